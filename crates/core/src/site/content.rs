//! The metadata each uploaded file gets: its `Content-Type` (browsers refuse a
//! module script or a streamed wasm module of the wrong type) and its
//! `Cache-Control` (long for files whose name changes with their content, none
//! for the entry point that names them).

use super::path::SitePath;

/// The `Content-Type` for a file name, by its extension (any case).
pub fn content_type(file_name: &str) -> &'static str {
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Whether a file name carries a content hash the way Trunk (and the project's
/// `scripts/hash-assets.mjs`) write them: `name-<16 hex>.ext` or
/// `name-<16 hex>_suffix.ext` (`d9lens-web-3f2a9c0d1e4b5a67_bg.wasm`).
///
/// Such a file never changes under its name, so it may be cached for good. To err
/// on the safe side (a false "hashed" would pin a stale file in caches for a year),
/// the 16 digits must be lower-case and include a letter: a run of decimal digits
/// is more likely a date or a counter.
pub fn is_content_hashed(file_name: &str) -> bool {
    const HASH_LEN: usize = 16;
    let bytes = file_name.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        let Some(hash) = bytes.get(i + 1..i + 1 + HASH_LEN) else {
            return false;
        };
        b == b'-'
            && i > 0
            && hash.iter().all(|h| matches!(h, b'0'..=b'9' | b'a'..=b'f'))
            && hash.iter().any(|h| h.is_ascii_lowercase())
            && matches!(bytes.get(i + 1 + HASH_LEN), Some(b'.' | b'_'))
    })
}

/// How long browsers and CDNs may keep a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheControl {
    /// Pages (`.html`): revalidate every time, so a new deploy shows at once.
    NoCache,
    /// Content-hashed files: a year, never revalidated.
    Immutable,
    /// Anything else: five minutes, the price of a name that does not change with
    /// the content (a visitor may mix versions for that long after a deploy).
    Short,
}

impl CacheControl {
    pub fn for_path(path: &SitePath) -> Self {
        let name = path.file_name();
        if content_type(name).starts_with("text/html") {
            Self::NoCache
        } else if is_content_hashed(name) {
            Self::Immutable
        } else {
            Self::Short
        }
    }

    /// The `Cache-Control` header value.
    pub fn header_value(self) -> &'static str {
        match self {
            Self::NoCache => "no-cache",
            Self::Immutable => "public, max-age=31536000, immutable",
            Self::Short => "public, max-age=300",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_by_extension() {
        let cases = [
            ("index.html", "text/html; charset=utf-8"),
            ("INDEX.HTML", "text/html; charset=utf-8"),
            ("d9lens-web.js", "text/javascript; charset=utf-8"),
            ("boot.mjs", "text/javascript; charset=utf-8"),
            ("d9lens-web_bg.wasm", "application/wasm"),
            ("main-0123456789abcdef.css", "text/css; charset=utf-8"),
            ("favicon.svg", "image/svg+xml"),
            ("manifest.json", "application/json"),
            ("logo.png", "image/png"),
            ("favicon.ico", "image/x-icon"),
            ("robots.txt", "text/plain; charset=utf-8"),
            ("demo-trace.bin", "application/octet-stream"),
            ("trace.bin.gz", "application/octet-stream"),
            ("LICENSE", "application/octet-stream"),
            ("archive.tar.zst", "application/octet-stream"),
        ];
        for (name, expected) in cases {
            assert_eq!(content_type(name), expected, "{name}");
        }
    }

    #[test]
    fn trunk_hashed_names() {
        for hashed in [
            "d9lens-web-3f2a9c0d1e4b5a67_bg.wasm",
            "d9lens-web-3f2a9c0d1e4b5a67.js",
            "main-0123456789abcdef.css",
            "s3-89ab0123cdef4567.css",
            "worker-a1b2c3d4e5f60718_loader.js",
            "favicon-ffffffffffffffff.svg",
            // scripts/hash-assets.mjs puts the hash before the first dot.
            "worker_loader-0f1e2d3c4b5a6978.js",
            "d9lens-web_bg-0f1e2d3c4b5a6978.wasm",
            "demo-trace-0f1e2d3c4b5a6978.bin",
        ] {
            assert!(is_content_hashed(hashed), "{hashed}");
        }
        for plain in [
            "index.html",
            "d9lens-web.js",
            "d9lens-web_bg.wasm",
            "boot.js",
            "demo-trace.bin",
            // 15 and 17 digits, upper case, no dash, nothing before the dash, no extension.
            "main-0123456789abcde.css",
            "main-0123456789abcdef0.css",
            "main-0123456789ABCDEF.css",
            "main0123456789abcdef.css",
            "-0123456789abcdef.css",
            "main-0123456789abcdef",
            // Decimal digits only: a date or a counter, not a hash.
            "report-2026113012345678.txt",
        ] {
            assert!(!is_content_hashed(plain), "{plain}");
        }
    }

    #[test]
    fn cache_control_by_kind() {
        let cc = |p: &str| CacheControl::for_path(&SitePath::new(p).unwrap()).header_value();
        assert_eq!(cc("index.html"), "no-cache");
        assert_eq!(cc("docs/about.html"), "no-cache");
        assert_eq!(
            cc("d9lens-web-3f2a9c0d1e4b5a67_bg.wasm"),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(
            cc("assets/main-0123456789abcdef.css"),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(cc("boot.js"), "public, max-age=300");
    }
}
