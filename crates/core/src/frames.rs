//! Stack-frame classification and display text, reproducing dial9's
//! JavaScript toolkit exactly (dial9-viewer 0.5.7: `formatFrame` and its
//! helpers in `trace_parser.js`, `frameKind`/`diagnoseStack` in `analyze.js`).
//!
//! The JS works with regular expressions and UTF-16 string indices. Every
//! delimiter it looks at is ASCII, so the port scans bytes and slices UTF-8 at
//! those delimiters; where a regex's backtracking picks a particular match,
//! the comment on the scanning function says which one and why.
//!
//! [`Frame`] lives here, below both the decoder (`trace`), which makes
//! frames, and the report, which holds them.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// One symbolized stack frame (leaf-first lists). `symbol` is the raw symbol
/// (or the `0x…` address when unresolved); display text comes from `frames`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    /// Shared: a frame is copied into every report stack that holds it.
    pub symbol: Arc<str>,
    pub location: Option<Arc<str>>,
}

/// A leaf-first stack, shared by the samples that have it: long polls'
/// samples repeat a few stacks thousands of times. Serialized as a list.
pub type Stack = Arc<[Frame]>;

/// Coarse class of a stack frame, decided from its raw symbol alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FrameKind {
    Unknown,
    Libc,
    Allocator,
    Kernel,
    Runtime,
    App,
}

impl FrameKind {
    /// The lowercase name the reference toolkit uses (`"app"`, `"kernel"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FrameKind::Unknown => "unknown",
            FrameKind::Libc => "libc",
            FrameKind::Allocator => "allocator",
            FrameKind::Kernel => "kernel",
            FrameKind::Runtime => "runtime",
            FrameKind::App => "app",
        }
    }
}

// ── Classification (`frameKind`) ──

const LIBC_PREFIXES: &[&str] = &[
    "__GI_",
    "__libc_",
    "__pthread_",
    "__clone",
    "start_thread",
    "__poll",
    "__epoll",
    "__futex",
    "malloc",
    "free",
    "mmap",
    "munmap",
    "brk",
    "sbrk",
];

const ALLOCATOR_PREFIXES: &[&str] = &[
    "je_", "arena_", "tcache_", "extent_", "large_", "slab_", "jemalloc", "mi_", "_mi_", "mi_heap_", "mimalloc",
];

const KERNEL_PREFIXES: &[&str] = &[
    "__",
    "do_",
    "sys_",
    "entry_",
    "exit_to",
    "irq_",
    "page_",
    "rcu_",
    "synchronize_",
    "schedule",
    "expand_fd",
    "expand_files",
    "alloc_fd",
    "ep_poll",
    "ep_send",
    "futex_",
    "sock_",
    "inet_",
    "tcp_",
    "vfs_",
    "filp_",
    "fd_install",
    "ksys_",
    "fput",
    "fget",
];

/// What may follow `tokio::runtime::` for a frame to count as runtime plumbing.
/// A plain prefix test, as in the JS regex (no segment boundary after it).
const TOKIO_RUNTIME_MODULES: &[&str] = &["scheduler", "task", "blocking", "context", "coop"];

const RUNTIME_PREFIXES: &[&str] = &[
    "std::panicking::",
    "std::sys::",
    "std::thread::",
    "<std::sys::",
    "<std::thread::",
    "core::ops::function::",
    "core::panicking::",
];

/// Generic kernel plumbing that is never the interesting blocker.
const KERNEL_PLUMBING_PREFIXES: &[&str] = &[
    "__schedule",
    "schedule_timeout",
    "do_syscall_64",
    "entry_SYSCALL",
    "__x64_sys_",
    "__sys_",
    "__wait_for_common",
    "__wait_rcu_gp",
];

fn starts_with_any(s: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| s.starts_with(p))
}

/// Classify a raw symbol (`frameKind` in `analyze.js`).
///
/// The prefix lists are only consulted for C-style names (no `::`), and libc
/// is tested before kernel so that `__GI_…` is not taken for a kernel `__…`.
/// Being prefix tests they over-match on purpose of parity: `free_pages` is
/// libc, `__read` kernel, and an unlisted C name such as `statx` is app.
pub fn frame_kind(symbol: &str) -> FrameKind {
    if symbol.is_empty() || symbol.starts_with("0x") {
        return FrameKind::Unknown;
    }
    if !symbol.contains("::") {
        if starts_with_any(symbol, LIBC_PREFIXES) {
            return FrameKind::Libc;
        }
        if starts_with_any(symbol, ALLOCATOR_PREFIXES) {
            return FrameKind::Allocator;
        }
        if starts_with_any(symbol, KERNEL_PREFIXES) {
            return FrameKind::Kernel;
        }
    }
    let unbracketed = symbol.strip_prefix('<').unwrap_or(symbol);
    if let Some(rest) = unbracketed.strip_prefix("tokio::runtime::")
        && starts_with_any(rest, TOKIO_RUNTIME_MODULES)
    {
        return FrameKind::Runtime;
    }
    if starts_with_any(symbol, RUNTIME_PREFIXES) {
        return FrameKind::Runtime;
    }
    FrameKind::App
}

fn is_kernel_plumbing(symbol: &str) -> bool {
    symbol == "schedule" || starts_with_any(symbol, KERNEL_PLUMBING_PREFIXES)
}

// ── Stack diagnosis (`diagnoseStack`) ──

/// The interesting frames of one symbolized stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackDiagnosis<'a> {
    /// First libc frame leafward of the trigger.
    pub syscall: Option<&'a Frame>,
    /// First kernel frame leafward of the trigger that is not generic plumbing.
    pub blocker: Option<&'a Frame>,
    /// First (leaf-most) application frame.
    pub trigger: Option<&'a Frame>,
    /// Every kernel frame of the stack, leaf first.
    pub kernel_path: Vec<&'a Frame>,
    /// Every application frame of the stack, leaf first.
    pub app_frames: Vec<&'a Frame>,
}

/// Diagnose a symbolized stack given leaf first (`diagnoseStack` plus the
/// kernel-path / app-frame filters its callers apply).
///
/// The walk for syscall, blocker and trigger stops at the first app frame, so
/// the syscall and blocker are only ever found leafward of the trigger; the
/// two lists still cover the whole stack.
pub fn diagnose_stack<'a>(frames: impl IntoIterator<Item = &'a Frame>) -> StackDiagnosis<'a> {
    let mut diagnosis = StackDiagnosis::default();
    let mut walking = true;
    for frame in frames {
        let kind = frame_kind(&frame.symbol);
        match kind {
            FrameKind::Kernel => diagnosis.kernel_path.push(frame),
            FrameKind::App => diagnosis.app_frames.push(frame),
            _ => {}
        }
        if !walking {
            continue;
        }
        if diagnosis.syscall.is_none() && kind == FrameKind::Libc {
            diagnosis.syscall = Some(frame);
        }
        if diagnosis.blocker.is_none() && kind == FrameKind::Kernel && !is_kernel_plumbing(&frame.symbol) {
            diagnosis.blocker = Some(frame);
        }
        if kind == FrameKind::App {
            diagnosis.trigger = Some(frame);
            walking = false;
        }
    }
    diagnosis
}

// ── Display text (`formatFrame`) ──

/// Display text of a frame (`formatFrame(frame).text`).
///
/// `<Impl as Trait>::method` symbols get the specialised Rust treatment (closure
/// owner, payload label, short type name); other paths are generic-stripped and
/// shortened to three segments; C names stay as they are. A location ending in
/// `:<line>` appends ` <file.rs>:<line>` (the file name may be empty).
pub fn format_frame(symbol: &str, location: Option<&str>) -> String {
    if symbol.is_empty() {
        return "(unknown)".to_owned();
    }
    if symbol.starts_with("0x") {
        return symbol.to_owned();
    }

    let mut text = if let Some(qualified) = split_qualified_method(symbol) {
        format_qualified(&qualified)
    } else if symbol.contains("::") {
        shorten_path(&strip_boring_generics(symbol)).into_owned()
    } else {
        symbol.to_owned()
    };

    // JS tests the location for truthiness, so an empty string adds nothing.
    if let Some(location) = location.filter(|l| !l.is_empty())
        && let Some(line) = trailing_line(location)
    {
        text.push(' ');
        text.push_str(file_name(location).unwrap_or(""));
        text.push(':');
        text.push_str(line);
    }
    text
}

/// The parts of a `<Impl as Trait>::method` symbol.
struct QualifiedMethod<'a> {
    impl_type: &'a str,
    trait_path: Option<&'a str>,
    method: &'a str,
}

/// `_splitRustQualifiedMethod`: the symbol must open with `<` whose matching
/// `>` (plain depth count, so a `->` inside counts too) is followed by `::`.
fn split_qualified_method(symbol: &str) -> Option<QualifiedMethod<'_>> {
    if !symbol.starts_with('<') {
        return None;
    }
    let close = matching_angle(symbol.as_bytes(), 0)?;
    if !symbol.as_bytes()[close + 1..].starts_with(b"::") {
        return None;
    }
    let inside = &symbol[1..close];
    let (impl_type, trait_path) = match top_level_index(inside, " as ") {
        Some(at) => (js_trim(&inside[..at]), Some(js_trim(&inside[at + 4..]))),
        None => (js_trim(inside), None),
    };
    Some(QualifiedMethod {
        impl_type,
        trait_path,
        method: &symbol[close + 3..],
    })
}

fn format_qualified(q: &QualifiedMethod<'_>) -> String {
    // An async closure wrapped in a Future/Stream adapter: the function that
    // produced it is the most useful identity, so it replaces everything.
    if let Some(owner) = closure_owner(q.impl_type) {
        return owner;
    }
    let short_type = outer_type_name(q.impl_type);
    // A wrapper around something more telling (`Arc<my::Inner>`, a
    // TaskLocalFuture's future) shows that payload alone, method dropped.
    if let Some(payload) = payload_label(q.impl_type)
        && payload != short_type
    {
        return payload;
    }
    let method = strip_boring_generics(q.method);
    let method = shorten_path(&method);
    // A one- or two-letter type (`T`, `&T`'s `T`, `F`) says nothing; prefer
    // the trait's name. An empty trait name is falsy in JS, hence the filter.
    let trait_name = q.trait_path.map(outer_type_name).filter(|n| !n.is_empty());
    match trait_name {
        Some(trait_name) if js_len(short_type) <= 2 => format!("{trait_name}::{method}"),
        _ => format!("{short_type}::{method}"),
    }
}

// ── Location helpers ──

/// The digits of a trailing `:<digits>` (regex `/:(\d+)$/`).
fn trailing_line(location: &str) -> Option<&str> {
    let bytes = location.as_bytes();
    let digits = bytes.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let colon = bytes.len().checked_sub(digits + 1)?;
    (digits > 0 && bytes[colon] == b':').then(|| &location[colon + 1..])
}

/// `_fileName`: regex `/([^/]+\.rs)(?::\d+)?$/`. The match must reach the end,
/// so the `.rs` either ends the location or sits right before a final
/// `:<digits>`; the name then runs back to the previous `/` and is non-empty.
fn file_name(location: &str) -> Option<&str> {
    let end = if location.ends_with(".rs") {
        location.len()
    } else {
        let line = trailing_line(location)?;
        let before_colon = &location[..location.len() - line.len() - 1];
        if !before_colon.ends_with(".rs") {
            return None;
        }
        before_colon.len()
    };
    let stem_end = end - 3;
    let start = location[..stem_end].rfind('/').map_or(0, |slash| slash + 1);
    (start < stem_end).then(|| &location[start..end])
}

/// docs.rs source link for a location inside a published crate's source
/// (`_docsRsUrl`), e.g. `…/hyper-0.14.28/src/client/connect/http.rs:474` →
/// `https://docs.rs/hyper/0.14.28/src/hyper/client/connect/http.rs.html#474`.
/// Spawn locations carry `:line:col`; the column is ignored.
pub fn docs_url(location: &str) -> Option<String> {
    // Regex `/\/([a-z][a-z0-9_-]*)-(\d+\.\d+[^/]*)\/(.+?)(?::(\d+))?(?::\d+)?$/`:
    // the leftmost `/` that starts a match wins.
    location
        .bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'/')
        .find_map(|(slash, _)| docs_url_at(location, slash))
}

/// Try the docs.rs regex with its leading `/` at byte `slash`.
fn docs_url_at(location: &str, slash: usize) -> Option<String> {
    // `<crate>-<version>` is everything up to the next `/`: neither the crate
    // class nor `[^/]*` can cross a slash.
    let seg_start = slash + 1;
    let seg_end = seg_start + location[seg_start..].find('/')?;
    let seg = &location.as_bytes()[seg_start..seg_end];
    if !seg.first()?.is_ascii_lowercase() {
        return None;
    }
    let crate_class = seg
        .iter()
        .take_while(|&&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        .count();
    // The crate group is greedy: the last `-` inside the crate-class run that
    // is followed by `\d+\.\d` splits crate from version.
    let dash = (1..crate_class)
        .rev()
        .find(|&d| seg[d] == b'-' && is_version_start(&seg[d + 1..]))?;
    let krate = &location[seg_start..seg_start + dash];
    let version = &location[seg_start + dash + 1..seg_end];

    // `(.+?)` is lazy and `.` stops at line terminators; what follows it may
    // only be `:`/digits, so a terminator anywhere in the tail rules this out.
    let path_start = seg_end + 1;
    let tail = &location[path_start..];
    if tail.is_empty() || tail.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    // The shortest non-empty path after which the rest is `(:\d+)?(:\d+)?`.
    let (path_end, line) = (path_start + 1..=location.len())
        .filter(|&e| e == location.len() || location.as_bytes()[e] == b':')
        .find_map(|e| line_col_suffix(&location[e..]).map(|line| (e, line)))?;
    let raw_path = &location[path_start..path_end];
    let path = raw_path.strip_prefix("src/").unwrap_or(raw_path);

    let mut url = format!(
        "https://docs.rs/{krate}/{version}/src/{}/{path}.html",
        krate.replace('-', "_")
    );
    if let Some(line) = line {
        url.push('#');
        url.push_str(line);
    }
    Some(url)
}

/// `\d+\.\d` at the start of `s`.
fn is_version_start(s: &[u8]) -> bool {
    let major = s.iter().take_while(|b| b.is_ascii_digit()).count();
    major > 0 && s.get(major) == Some(&b'.') && s.get(major + 1).is_some_and(u8::is_ascii_digit)
}

/// Match `(?::(\d+))?(?::\d+)?$` against the whole of `s`; `Some(line)` on a
/// match, where the line is the first digit run (if any).
fn line_col_suffix(s: &str) -> Option<Option<&str>> {
    if s.is_empty() {
        return Some(None);
    }
    let (line, rest) = colon_digits(s)?;
    if rest.is_empty() || colon_digits(rest).is_some_and(|(_, after)| after.is_empty()) {
        Some(Some(line))
    } else {
        None
    }
}

/// Split a leading `:<digits>` (at least one digit) off `s`.
fn colon_digits(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix(':')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| rest.split_at(digits))
}

// ── Symbol helpers ──

/// JS `String.prototype.trim` / regex `\s` whitespace. Differs from Rust's
/// `char::is_whitespace` in U+FEFF (JS yes) and U+0085 (JS no).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// JS `string.length` (UTF-16 code units), for the length thresholds.
fn js_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// Nesting depth of `<>`, `()` and `[]`. Counts may go negative, as in the JS.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Nesting {
    angles: i32,
    parens: i32,
    brackets: i32,
}

impl Nesting {
    fn step(&mut self, b: u8) {
        match b {
            b'<' => self.angles += 1,
            b'>' => self.angles -= 1,
            b'(' => self.parens += 1,
            b')' => self.parens -= 1,
            b'[' => self.brackets += 1,
            b']' => self.brackets -= 1,
            _ => {}
        }
    }

    fn after(bytes: &[u8]) -> Self {
        let mut nesting = Nesting::default();
        bytes.iter().for_each(|&b| nesting.step(b));
        nesting
    }

    fn is_top_level(self) -> bool {
        self == Nesting::default()
    }
}

/// Index of the `>` matching the `<` at `open` (plain depth count of `<`/`>`).
fn matching_angle(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if b == b'<' {
            depth += 1;
        } else if b == b'>' {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// First occurrence of `needle` outside any `<>`, `()`, `[]` (`_topLevelIndex`).
/// The byte at each position is counted before testing the needle there.
fn top_level_index(s: &str, needle: &str) -> Option<usize> {
    let (bytes, needle) = (s.as_bytes(), needle.as_bytes());
    let last_start = bytes.len().checked_sub(needle.len())?;
    let mut nesting = Nesting::default();
    (0..=last_start).find(|&i| {
        nesting.step(bytes[i]);
        nesting.is_top_level() && bytes[i..].starts_with(needle)
    })
}

/// Last `::` at the nesting level the whole string ends at (`_lastTopLevelPathSep`).
fn last_top_level_path_sep(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let target = Nesting::after(bytes);
    let mut nesting = Nesting::default();
    let mut found = None;
    let mut i = 0;
    while i + 1 < bytes.len() {
        nesting.step(bytes[i]);
        if nesting == target && bytes[i] == b':' && bytes[i + 1] == b':' {
            found = Some(i);
            i += 1; // the second `:` cannot start another separator
        }
        i += 1;
    }
    found
}

/// The last `,`- or `<`-separated item at the string's final nesting level
/// (`_tailAtFinalNesting`), trimmed.
fn tail_at_final_nesting(s: &str) -> &str {
    let bytes = s.as_bytes();
    let target = Nesting::after(bytes);
    let mut nesting = Nesting::default();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        nesting.step(b);
        if (b == b'<' || b == b',') && nesting == target {
            start = i + 1;
        }
    }
    js_trim(&s[start..])
}

/// Remove `<…>` pairs that enclose the whole (trimmed) string.
fn strip_outer_angles(s: &str) -> &str {
    let mut s = js_trim(s);
    while s.starts_with('<') && matching_angle(s.as_bytes(), 0) == Some(s.len() - 1) {
        s = js_trim(&s[1..s.len() - 1]);
    }
    s
}

/// Drop a leading `&` / `&mut ` and then `dyn `, then trim
/// (`.replace(/^&(?:mut\s+)?/, "").replace(/^dyn\s+/, "").trim()`).
fn strip_ref_dyn(s: &str) -> &str {
    let mut s = s;
    if let Some(rest) = s.strip_prefix('&') {
        s = strip_keyword(rest, "mut");
    }
    js_trim(strip_keyword(s, "dyn"))
}

/// `s` without a leading `keyword\s+`, or `s` unchanged if it has none.
fn strip_keyword<'a>(s: &'a str, keyword: &str) -> &'a str {
    match s.strip_prefix(keyword) {
        Some(after) => {
            let spaced = after.trim_start_matches(is_js_space);
            if spaced.len() < after.len() { spaced } else { s }
        }
        None => s,
    }
}

/// Length of a `{{closure}}` or `{closure#N}` segment starting at `at`.
fn closure_segment_len_at(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = bytes.get(at..)?;
    if rest.starts_with(b"{{closure}}") {
        return Some(11);
    }
    let numbered = rest.strip_prefix(b"{closure#")?;
    let digits = numbered.iter().take_while(|b| b.is_ascii_digit()).count();
    (digits > 0 && numbered.get(digits) == Some(&b'}')).then_some(9 + digits + 1)
}

fn is_closure_segment(segment: &str) -> bool {
    closure_segment_len_at(segment.as_bytes(), 0) == Some(segment.len())
}

/// Start of a `{{closure}}` / `{closure#N}` segment ending the string.
fn trailing_closure_start(s: &str) -> Option<usize> {
    if s.ends_with("{{closure}}") {
        return Some(s.len() - 11);
    }
    let body = s.strip_suffix('}')?.as_bytes();
    let digits = body.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let before = &body[..body.len() - digits];
    (digits > 0 && before.ends_with(b"{closure#")).then(|| before.len() - 9)
}

/// Last segment after splitting on `::` left to right (`_lastSeg`); a forward
/// split matters for runs like `:::`.
fn last_segment(s: &str) -> &str {
    s.split("::").last().unwrap_or(s)
}

/// Generic stripping (`_stripBoringGenerics`): one left-to-right pass over the
/// innermost `<…>` groups (regex `/<([^<>]*)>/g`), dropping boring parameters.
fn strip_boring_generics(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = match s.find('<') {
        Some(i) => i,
        None => return Cow::Borrowed(s),
    };
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let Some(offset) = bytes[i + 1..].iter().position(|&b| b == b'<' || b == b'>') else {
            break;
        };
        let next = i + 1 + offset;
        if bytes[next] == b'<' {
            // Not innermost: the regex retries from the next `<`.
            i = next;
            continue;
        }
        out.push_str(&s[copied..i]);
        push_interesting_generics(&mut out, &s[i + 1..next]);
        copied = next + 1;
        i = next + 1;
    }
    if copied == 0 {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// Replacement for one innermost generic group: nothing if all parameters are
/// boring, else the interesting ones joined by `,` inside `<>`.
fn push_interesting_generics(out: &mut String, inner: &str) {
    let mut kept = inner
        .split(',')
        .map(js_trim)
        .filter(|p| !is_boring_generic(p))
        .peekable();
    if kept.peek().is_none() {
        return;
    }
    out.push('<');
    for (n, param) in kept.enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(param);
    }
    out.push('>');
}

/// `^[A-Z]$|^(Fut|Req|Res|Bs|InnerFuture)$`.
fn is_boring_generic(param: &str) -> bool {
    is_single_uppercase(param) || matches!(param, "Fut" | "Req" | "Res" | "Bs" | "InnerFuture")
}

fn is_single_uppercase(s: &str) -> bool {
    s.len() == 1 && s.as_bytes()[0].is_ascii_uppercase()
}

/// Path shortening (`_shortenPath`): keep the last three non-closure
/// segments plus any trailing closure segments.
fn shorten_path(s: &str) -> Cow<'_, str> {
    let parts: Vec<&str> = s.split("::").collect();
    let closures = parts.iter().rev().take_while(|p| is_closure_segment(p)).count();
    let meaningful = parts.len() - closures;
    if meaningful <= 3 {
        return Cow::Borrowed(s);
    }
    // Every part is a subslice of `s`, so the kept tail is one slice of it.
    let start = parts[meaningful - 3].as_ptr() as usize - s.as_ptr() as usize;
    Cow::Borrowed(&s[start..])
}

/// Outer type name (`_rustOuterTypeName`): `closure`/`closure#N` for a closure
/// type, else the last identifier before any generics.
fn outer_type_name(type_: &str) -> &str {
    let mut s = strip_ref_dyn(strip_outer_angles(type_));
    if let Some(at) = top_level_index(s, " as ") {
        s = js_trim(&s[..at]);
    }
    if let Some(start) = trailing_closure_start(s) {
        return s[start..].trim_matches(['{', '}']);
    }
    if let Some(generic_at) = s.find('<') {
        s = &s[..generic_at];
    }
    trailing_identifier(s).unwrap_or_else(|| last_segment(s))
}

/// Regex `/([A-Za-z_][A-Za-z0-9_]*)\s*$/`, group 1: the leftmost match is the
/// trailing identifier-character run from its first non-digit.
fn trailing_identifier(s: &str) -> Option<&str> {
    let t = s.trim_end_matches(is_js_space);
    let bytes = t.as_bytes();
    let run = bytes
        .iter()
        .rev()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    let start = (bytes.len() - run..bytes.len()).find(|&i| bytes[i].is_ascii_alphabetic() || bytes[i] == b'_')?;
    Some(&t[start..])
}

/// Wrappers whose label is that of their first labelled argument.
fn is_transparent_wrapper(name: &str) -> bool {
    matches!(
        name,
        "Arc" | "Box" | "Pin" | "Mutex" | "RwLock" | "Option" | "Result" | "Poll" | "Stream" | "Future"
    )
}

/// Type label (`_rustTypeLabel`): a concise name for a type, keeping the last
/// two path segments when `include_module`, looking through transparent
/// wrappers and labelling generic arguments module-less.
fn type_label(type_: &str, include_module: bool) -> String {
    let mut s = strip_ref_dyn(strip_outer_angles(type_));
    if let Some(at) = top_level_index(s, " as ") {
        s = js_trim(&s[..at]);
    }
    if let Some(at) = top_level_index(s, " + ") {
        s = js_trim(&s[..at]);
    }
    // `dyn Future<Output = T>`: the assigned type is the interesting part.
    if let Some(at) = top_level_index(s, " = ") {
        return type_label(&s[at + 3..], include_module);
    }

    let generic_at = s.find('<');
    let outer_name = outer_type_name(s);
    let short_path: Cow<'_, str> = if include_module {
        let path = js_trim(generic_at.map_or(s, |at| &s[..at]));
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        let joined = parts[parts.len().saturating_sub(2)..].join("::");
        if joined.is_empty() {
            Cow::Borrowed(outer_name)
        } else {
            Cow::Owned(joined)
        }
    } else {
        Cow::Borrowed(outer_name)
    };

    if generic_at.is_none() {
        // A bare type parameter, lifetime or const argument labels as nothing.
        let meaningless = is_single_uppercase(&short_path) || is_lifetime(&short_path) || is_all_digits(&short_path);
        return if meaningless {
            String::new()
        } else {
            short_path.into_owned()
        };
    }

    let args = generic_args(s);
    if is_transparent_wrapper(outer_name) {
        return args
            .iter()
            .map(|arg| type_label(arg, include_module))
            .find(|l| !l.is_empty())
            .unwrap_or_default();
    }
    let names: Vec<String> = args
        .iter()
        .map(|arg| type_label(arg, false))
        .filter(|l| !l.is_empty())
        .collect();
    if names.is_empty() {
        short_path.into_owned()
    } else {
        format!("{short_path}<{}>", names.join(", "))
    }
}

/// `^'[A-Za-z_][A-Za-z0-9_]*$`.
fn is_lifetime(s: &str) -> bool {
    let Some(name) = s.strip_prefix('\'') else {
        return false;
    };
    let bytes = name.as_bytes();
    bytes.first().is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `^\d+$`.
fn is_all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Top-level arguments of the first generic group (`_rustGenericArgs`),
/// trimmed, empty ones dropped.
fn generic_args(type_: &str) -> Vec<&str> {
    let s = strip_outer_angles(type_);
    let Some(open) = s.find('<') else {
        return Vec::new();
    };
    let Some(close) = matching_angle(s.as_bytes(), open) else {
        return Vec::new();
    };
    let inner = &s[open + 1..close];
    let mut args = Vec::new();
    let mut nesting = Nesting::default();
    let mut start = 0;
    for (i, &b) in inner.as_bytes().iter().enumerate() {
        nesting.step(b);
        if b == b',' && nesting.is_top_level() {
            args.push(js_trim(&inner[start..i]));
            start = i + 1;
        }
    }
    args.push(js_trim(&inner[start..]));
    args.retain(|a| !a.is_empty());
    args
}

/// Strip generic groups at the end of the string (`_stripTrailingRustGenerics`),
/// stopping if one is unbalanced or would leave nothing.
fn strip_trailing_generics(s: &str) -> &str {
    let mut s = js_trim(s);
    while s.ends_with('>') {
        let bytes = s.as_bytes();
        let mut depth = 0i32;
        let mut open = None;
        for i in (0..bytes.len()).rev() {
            if bytes[i] == b'>' {
                depth += 1;
            } else if bytes[i] == b'<' {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
        }
        match open {
            Some(open) if open > 0 => s = js_trim(&s[..open]),
            _ => break,
        }
    }
    s
}

/// Payload label (`_rustPayloadLabel`): the label of the first generic
/// argument that names a real type rather than a type parameter or a
/// smart-pointer/scheduler wrapper. An empty label is returned as `None`
/// (JS returns `""`, which its caller treats as absent) without trying
/// further arguments.
fn payload_label(type_: &str) -> Option<String> {
    let args = generic_args(type_);
    // Tokio's TaskLocalFuture stores the scoped value first and the future
    // being polled second; prefer the future.
    let reordered;
    let candidates: &[&str] = if outer_type_name(type_) == "TaskLocalFuture" && args.len() > 1 {
        reordered = [&args[1..2], &args[..1], &args[2..]].concat();
        &reordered
    } else {
        &args
    };
    candidates
        .iter()
        .find(|arg| {
            let name = outer_type_name(arg);
            !name.is_empty()
                && !is_single_uppercase(name)
                && !matches!(name, "Arc" | "Box" | "Pin" | "Handle" | "Schedule" | "BlockingSchedule")
        })
        .map(|arg| type_label(arg, true))
        .filter(|label| !label.is_empty())
}

/// Closure owner (`_rustClosureOwner`): the `Receiver::method` whose body an
/// async closure inside `type_` came from, optionally prefixed with the
/// receiver's last generic argument (`b::Encode · Stage::run`) when that
/// discriminates multi-parameter transform wrappers.
fn closure_owner(type_: &str) -> Option<String> {
    let bytes = type_.as_bytes();
    // Last `::{{closure}}` / `::{closure#N}` (such matches cannot overlap, so
    // the last position equals the regex's last global match).
    let last = (0..bytes.len().saturating_sub(1))
        .rev()
        .find(|&i| bytes[i] == b':' && bytes[i + 1] == b':' && closure_segment_len_at(bytes, i + 2).is_some())?;

    let mut before = &type_[..last];
    while let Some(start) = trailing_closure_start(before)
        && before[..start].ends_with("::")
    {
        before = &before[..start - 2];
    }
    let before = strip_trailing_generics(before);
    let sep = last_top_level_path_sep(before)?;
    let method = &before[sep + 2..];
    let receiver = strip_outer_angles(tail_at_final_nesting(&before[..sep]));
    let receiver_name = outer_type_name(receiver);
    if receiver_name.is_empty() || method.is_empty() {
        return None;
    }

    let args = generic_args(receiver);
    let arg_label = match args.as_slice() {
        [_, .., last_arg] => type_label(last_arg, true),
        _ => String::new(),
    };
    Some(if js_len(&arg_label) > 1 {
        format!("{arg_label} · {receiver_name}::{method}")
    } else {
        format!("{receiver_name}::{method}")
    })
}

/// An unresolved address in the kernel's half of a 64-bit address space
/// (`0xffff…`): what off-CPU stacks end in when kernel symbols are not read.
pub fn is_kernel_address(symbol: &str) -> bool {
    symbol.len() == 18 && symbol.starts_with("0xffff") && symbol[2..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(symbol: &str) -> Frame {
        Frame {
            symbol: symbol.into(),
            location: None,
        }
    }

    #[test]
    fn kind_edge_cases() {
        assert_eq!(frame_kind("__read"), FrameKind::Kernel);
        assert_eq!(frame_kind("__lll_lock_wait_private"), FrameKind::Kernel);
        assert_eq!(frame_kind("statx"), FrameKind::App);
        assert_eq!(frame_kind("_Unwind_Backtrace"), FrameKind::App);
        assert_eq!(frame_kind("free_pages"), FrameKind::Libc);
        assert_eq!(frame_kind("__GI___libc_read"), FrameKind::Libc);
        assert_eq!(frame_kind("je_malloc"), FrameKind::Allocator);
        assert_eq!(frame_kind("[unknown] 0xffff890dd018"), FrameKind::App);
        assert_eq!(frame_kind("0xdeadbeef"), FrameKind::Unknown);
        assert_eq!(frame_kind(""), FrameKind::Unknown);
        assert_eq!(frame_kind("std::panic::catch_unwind"), FrameKind::App);
        assert_eq!(frame_kind("std::sys::backtrace::x"), FrameKind::Runtime);
        assert_eq!(
            frame_kind("<tokio::runtime::task::harness::Harness<T,S>>::poll"),
            FrameKind::Runtime
        );
        assert_eq!(frame_kind("tokio::runtime::time::Driver::park"), FrameKind::App);
        // `::` disables the C prefix lists entirely.
        assert_eq!(frame_kind("free::thing"), FrameKind::App);
    }

    #[test]
    fn kind_serializes_lowercase() {
        assert_eq!(serde_json::to_string(&FrameKind::Allocator).unwrap(), "\"allocator\"");
        assert_eq!(FrameKind::Runtime.as_str(), "runtime");
    }

    #[test]
    fn format_edge_cases() {
        assert_eq!(format_frame("", Some("x.rs:1")), "(unknown)");
        assert_eq!(format_frame("0xdeadbeef", Some("x.rs:1")), "0xdeadbeef");
        assert_eq!(
            format_frame("[unknown] 0xffff890dd018", None),
            "[unknown] 0xffff890dd018"
        );
        assert_eq!(format_frame("foo::bar", Some("src/lib.c:12")), "foo::bar :12");
        assert_eq!(format_frame("plain_c_fn", Some("/x/y/z.rs:7")), "plain_c_fn z.rs:7");
        assert_eq!(format_frame("a::b<Foo, Bar>::c::d", None), "b<Foo,Bar>::c::d");
        assert_eq!(format_frame("x<>::y", None), "x<>::y");
        assert_eq!(
            format_frame("<T as alloc::string::ToString>::to_string", None),
            "ToString::to_string"
        );
        assert_eq!(
            format_frame("<impl a::b::Style>::write_prefix", None),
            "Style::write_prefix"
        );
        assert_eq!(
            format_frame("c::d::<impl a::b::Style>::write_prefix", None),
            "b::Style>::write_prefix"
        );
        assert_eq!(format_frame("a::b", Some("")), "a::b");
        assert_eq!(format_frame("a::b", Some("x.rs")), "a::b");
    }

    #[test]
    fn docs_url_cases() {
        assert_eq!(
            docs_url("/r/index.crates.io-1949cf8c6b5b557f/tokio-macros-2.5.0/src/lib.rs:115:9").as_deref(),
            Some("https://docs.rs/tokio-macros/2.5.0/src/tokio_macros/lib.rs.html#115")
        );
        assert_eq!(
            docs_url("/r/hyper-0.14.28/src/client/mod.rs").as_deref(),
            Some("https://docs.rs/hyper/0.14.28/src/hyper/client/mod.rs.html")
        );
        assert_eq!(docs_url("/rustc/abc/library/core/src/result.rs:2173"), None);
        assert_eq!(docs_url("src/main.rs:3"), None);
    }

    #[test]
    fn diagnosis_stops_walking_at_trigger() {
        let frames: Vec<Frame> = [
            "__schedule",
            "futex_wait",
            "__x64_sys_futex",
            "__GI___lll_lock_wait",
            "my::app::work",
            "__libc_start_main",
            "do_exit",
            "my::app::main",
        ]
        .into_iter()
        .map(frame)
        .collect();
        let d = diagnose_stack(&frames);
        assert_eq!(d.blocker.map(|f| &*f.symbol), Some("futex_wait"));
        assert_eq!(d.syscall.map(|f| &*f.symbol), Some("__GI___lll_lock_wait"));
        assert_eq!(d.trigger.map(|f| &*f.symbol), Some("my::app::work"));
        let kernel: Vec<&str> = d.kernel_path.iter().map(|f| &*f.symbol).collect();
        assert_eq!(kernel, ["__schedule", "futex_wait", "__x64_sys_futex", "do_exit"]);
        assert_eq!(d.app_frames.len(), 2);
    }

    #[test]
    fn diagnosis_plumbing_only() {
        let frames: Vec<Frame> = ["schedule", "schedule_timeout", "__libc_read"]
            .into_iter()
            .map(frame)
            .collect();
        let d = diagnose_stack(&frames);
        assert!(d.blocker.is_none() && d.trigger.is_none());
        assert_eq!(d.syscall.map(|f| &*f.symbol), Some("__libc_read"));
        // Only the exact `schedule` is plumbing; `schedule_hrtimeout` is a blocker.
        let frames = [frame("schedule_hrtimeout")];
        assert!(diagnose_stack(&frames).blocker.is_some());
    }
}
