//! Percent-encoding as SigV4 defines it ("URI-encode"), and the lenient decoding the
//! signer and the listing parser need.
//!
//! SigV4 leaves only the unreserved characters `A-Z a-z 0-9 - . _ ~` as they are and
//! writes every other byte as `%XX` with upper-case hex. Object-key paths keep `/`;
//! query names and values encode it. URLs built here use exactly this encoding, so
//! the URL a browser sends and the canonical request the signature covers agree.

/// SigV4 URI-encoding of `input`'s bytes. `/` stays literal when `keep_slash` is true.
pub fn uri_encode(input: impl AsRef<[u8]>, keep_slash: bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = input.as_ref();
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') || (keep_slash && b == b'/') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
    }
    out
}

/// Undoes one layer of `%XX` (hex in either case). A `%` not followed by two hex
/// digits stays as it is: this reads what a server would, it does not validate.
pub fn percent_decode(input: &str) -> Vec<u8> {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (bytes.get(i + 1).and_then(hex_val), bytes.get(i + 2).and_then(hex_val))
        {
            out.push(hi << 4 | lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Decodes the `application/x-www-form-urlencoded` flavour S3 uses for
/// `encoding-type=url` listings: `+` is a space, then one layer of `%XX`.
/// Invalid UTF-8 is replaced (U+FFFD) rather than dropped.
pub fn form_decode(input: &str) -> String {
    let spaced = input.replace('+', " ");
    String::from_utf8_lossy(&percent_decode(&spaced)).into_owned()
}

fn hex_val(b: &u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_sigv4() {
        assert_eq!(uri_encode("a b/c=d&e~f", true), "a%20b/c%3Dd%26e~f");
        assert_eq!(uri_encode("a b/c", false), "a%20b%2Fc");
        assert_eq!(uri_encode("ሴ", false), "%E1%88%B4");
        assert_eq!(uri_encode("100%", false), "100%25");
        assert_eq!(uri_encode("-._~AZaz09", false), "-._~AZaz09");
    }

    #[test]
    fn decodes_leniently() {
        assert_eq!(percent_decode("a%20b%2fc"), b"a b/c");
        assert_eq!(percent_decode("100%"), b"100%");
        assert_eq!(percent_decode("%G1%4"), b"%G1%4");
        assert_eq!(form_decode("service%3Dpayments+api"), "service=payments api");
    }
}
