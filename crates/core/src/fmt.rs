//! Number formatting exactly as the reference report prints it (JavaScript
//! `toFixed`, en-US thousands grouping, `fmtDur`). Rust's `{:.N}` rounds exact
//! binary ties to even where JS rounds them away from zero, so `to_fixed`
//! works on the exact decimal expansion of the double instead.

/// JavaScript `Number.prototype.toFixed(digits)`.
pub fn to_fixed(value: f64, digits: usize) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "NaN".into()
        } else if value > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if value.abs() >= 1e21 {
        return format!("{value}");
    }
    let expansion = expansion(value.abs(), digits);
    let (int_part, frac_part) = expansion.split_once('.').unwrap_or((&expansion, ""));
    let mut digits_vec: Vec<u8> = int_part.bytes().chain(frac_part.bytes().take(digits)).collect();
    let round_up = frac_part.as_bytes().get(digits).is_some_and(|&d| d >= b'5');
    if round_up {
        let mut i = digits_vec.len();
        loop {
            if i == 0 {
                digits_vec.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits_vec[i] == b'9' {
                digits_vec[i] = b'0';
            } else {
                digits_vec[i] += 1;
                break;
            }
        }
    }
    let split = digits_vec.len() - digits;
    let mut out = String::with_capacity(digits_vec.len() + 2);
    let is_zero = digits_vec.iter().all(|&d| d == b'0');
    if value.is_sign_negative() && !is_zero {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits_vec[..split]).expect("ascii digits"));
    if digits > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits_vec[split..]).expect("ascii digits"));
    }
    out
}

/// Enough of the decimal expansion of `abs` to round it at `digits` as its
/// exact value would round: 25 digits more, unless they read 5 and zeros (a
/// tie, or one made by rounding them); then all of it (1100 fractional
/// digits hold any double exactly). Formatting those takes bignum work.
fn expansion(abs: f64, digits: usize) -> String {
    const MORE: usize = 25;
    let short = format!("{abs:.*}", digits + MORE);
    let more = &short.as_bytes()[short.len() - MORE..];
    if more[0] == b'5' && more[1..].iter().all(|&d| d == b'0') {
        format!("{abs:.1100}")
    } else {
        short
    }
}

/// `n` things, the noun in the plural but for one: "1 file", "1,240 files".
pub fn count(n: usize, noun: &str) -> String {
    format!("{} {noun}{}", grouped(n as i64), if n == 1 { "" } else { "s" })
}

/// en-US `toLocaleString()` of an integer: a comma every three digits.
pub fn grouped(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if value < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The reference's `fmtDur(ns)`: seconds, milliseconds, microseconds or ns.
pub fn fmt_dur(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{}s", to_fixed(ns / 1e9, 2))
    } else if ns >= 1e6 {
        format!("{}ms", to_fixed(ns / 1e6, 2))
    } else if ns >= 1e3 {
        format!("{}µs", to_fixed(ns / 1e3, 1))
    } else {
        format!("{}ns", js_number(ns))
    }
}

/// JavaScript's default `String(number)` for the values the report prints
/// (integers and plain decimals).
pub fn js_number(value: f64) -> String {
    if value == value.trunc() && value.abs() < 1e21 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Text from a trace made safe for a terminal: control characters (escape
/// sequences, carriage returns, bells, line breaks) written as `\u{1b}` and
/// the like.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escape_controls(text, |_| false)
}

/// A whole text for a terminal (a report, a message): its lines and tabs
/// kept, every other control character escaped as `printable` does, so no
/// string inside it can move the cursor, retitle or clear the terminal.
pub fn terminal_text(text: &str) -> std::borrow::Cow<'_, str> {
    escape_controls(text, |c| c == '\n' || c == '\t')
}

fn escape_controls(text: &str, keep: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && !keep(c);
    if !text.chars().any(escaped) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if escaped(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// `(part / whole) * 100` formatted with `toFixed(digits)`, as the reference computes percentages.
pub fn pct(part: f64, whole: f64, digits: usize) -> String {
    to_fixed(part / whole * 100.0, digits)
}

/// A span of whole seconds, the one way the page and the CLI say it:
/// `15s`, `13m44s`, `5h50m13s`, `2d03h`.
pub fn secs(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m{s:02}s"),
        (0, _, _) => format!("{h}h{m:02}m{s:02}s"),
        _ => format!("{d}d{h:02}h"),
    }
}

/// A byte count for people, in decimal units with three significant digits
/// (`812 B`, `75.3 KB`, `1.41 MB`, `4.17 GB`): the page, the CLI and the
/// timeline's allocation track all say sizes this way.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = "B";
    for u in UNITS {
        value /= 1000.0;
        unit = u;
        if value < 1000.0 {
            break;
        }
    }
    if value < 10.0 {
        format!("{value:.2} {unit}")
    } else if value < 100.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_one_thing_or_several() {
        assert_eq!(count(1, "file"), "1 file");
        assert_eq!(count(0, "file"), "0 files");
        assert_eq!(count(1_240, "file"), "1,240 files");
    }

    #[test]
    fn bytes_have_three_significant_digits() {
        assert_eq!(bytes(94), "94 B");
        assert_eq!(bytes(75_300), "75.3 KB");
        assert_eq!(bytes(1_410_000), "1.41 MB");
        assert_eq!(bytes(999_999), "1000 KB");
        assert_eq!(bytes(4_170_000_000), "4.17 GB");
        assert_eq!(bytes(u64::MAX), "18446744 TB");
    }

    #[test]
    fn spans_of_seconds_name_their_two_largest_units() {
        assert_eq!(secs(15), "15s");
        assert_eq!(secs(824), "13m44s");
        assert_eq!(secs(21_013), "5h50m13s");
        assert_eq!(secs(2 * 86_400 + 3 * 3600 + 59), "2d03h");
    }

    #[test]
    fn printable_escapes_control_characters() {
        assert_eq!(printable("plain · text"), "plain · text");
        assert_eq!(printable("a\u{1b}]0;owned\u{7}b\n"), "a\\u{1b}]0;owned\\u{7}b\\u{a}");
        assert_eq!(terminal_text("a\u{1b}[2J\tb\r\n"), "a\\u{1b}[2J\tb\\u{d}\n");
    }

    #[test]
    fn to_fixed_rounds_exact_ties_away_from_zero() {
        assert_eq!(to_fixed(0.25, 1), "0.3");
        assert_eq!(to_fixed(2.25, 1), "2.3");
        assert_eq!(to_fixed(0.125, 2), "0.13");
        assert_eq!(to_fixed(0.5, 0), "1");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(-2.5, 0), "-3");
    }

    #[test]
    fn to_fixed_respects_binary_values_below_the_tie() {
        assert_eq!(to_fixed(1.005, 2), "1.00");
        assert_eq!(to_fixed(1.45, 1), "1.4");
        assert_eq!(to_fixed(9.995, 2), "9.99");
        assert_eq!(to_fixed(99.96, 1), "100.0");
        assert_eq!(to_fixed(-0.0001, 1), "0.0");
    }

    #[test]
    fn to_fixed_rounds_as_the_exact_expansion_would() {
        // The rounding of the whole exact expansion, as toFixed does it.
        let exact = |v: f64, digits: usize| {
            let e = format!("{:.1100}", v.abs());
            let (int, frac) = e.split_once('.').unwrap();
            let kept: String = int.chars().chain(frac.chars().take(digits)).collect();
            let mut n: u128 = kept.parse().unwrap();
            n += u128::from(frac.as_bytes()[digits] >= b'5');
            let s = format!("{n:0>width$}", width = digits + 1);
            let (i, f) = s.split_at(s.len() - digits);
            let sign = if v < 0.0 && n > 0 { "-" } else { "" };
            if digits == 0 {
                format!("{sign}{i}")
            } else {
                format!("{sign}{i}.{f}")
            }
        };
        // Every tie and near-tie of short decimals, and a spread of doubles.
        let mut values: Vec<f64> = (0..20_000).map(|i| f64::from(i) / 1000.0).collect();
        values.extend((0..2_000).map(|i| f64::from(i) * 0.005 + 1e-17));
        values.extend((0..64).map(|e| 1.0 / f64::from(1u32 << (e % 31)) * 3.0));
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits((x >> 2) | 0x3000_0000_0000_0000) % 1e6);
        }
        for v in values.into_iter().flat_map(|v| [v, -v]) {
            for digits in 0..4 {
                assert_eq!(to_fixed(v, digits), exact(v, digits), "{v:e} to {digits} digits");
            }
        }
    }

    #[test]
    fn grouping_and_durations() {
        assert_eq!(grouped(311_335), "311,335");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(-1_234_567), "-1,234,567");
        assert_eq!(fmt_dur(50_259_015.0), "50.26ms");
        assert_eq!(fmt_dur(1_450_000_000.0), "1.45s");
        assert_eq!(fmt_dur(6_300.0), "6.3µs");
        assert_eq!(fmt_dur(999.0), "999ns");
        assert_eq!(fmt_dur(-5.0), "-5ns");
    }
}
