//! Reading a JSON message that is not quite JSON text: a client that puts a lone surrogate
//! escape (`\ud800`) or bytes that are not UTF-8 in a string. Such a message cannot be
//! applied, but the protocol servers still need its id, method or command to answer it.

use serde_json::Value;

/// The message with every lone-surrogate escape read as U+FFFD and invalid UTF-8 replaced,
/// or `None` if it is not JSON even so.
pub fn parse(bytes: &[u8]) -> Option<Value> {
    serde_json::from_str(&replace_surrogate_escapes(&String::from_utf8_lossy(bytes))).ok()
}

/// `text` with every `\uD800`–`\uDFFF` escape replaced by `\uFFFD`, so that a lenient
/// parse can read the rest of the message (an escaped backslash is not an escape).
pub fn replace_surrogate_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let esc = &rest[i..];
        let hex = esc
            .get(2..6)
            .filter(|h| esc[1..].starts_with('u') && h.chars().all(|c| c.is_ascii_hexdigit()));
        match hex.and_then(|h| u16::from_str_radix(h, 16).ok()) {
            Some(unit) if (0xD800..=0xDFFF).contains(&unit) => {
                out.push_str("\\uFFFD");
                rest = &esc[6..];
            }
            _ => {
                let n = esc[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
                out.push_str(&esc[..n]);
                rest = &esc[n..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_surrogate_escapes_are_replaced() {
        assert_eq!(
            replace_surrogate_escapes(r#"a\ud800b \\ud800 \u00e9 \uDFFF"#),
            r#"a\uFFFDb \\ud800 \u00e9 \uFFFD"#
        );
        assert_eq!(
            parse(b"{\"seq\": 4, \"x\": \"\\ud800\xff\"}").and_then(|v| v["seq"].as_i64()),
            Some(4)
        );
    }
}
