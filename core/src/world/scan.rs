//! A linear scan of a world file before `toml` reads it, for what `toml` handles badly: it
//! refuses a key of more than 80 dotted parts (`a.b.c…`, in a `[header]` or before `=`) with
//! "recursion limit" and no position, and it holds about 100 bytes per token, so a 36 MB file
//! of dotted headers took 2 GB. The scan finds the part past the limit, and refuses a file of
//! more than `MAX_TOKENS` tokens, at the place it crosses that count.

/// The most dotted parts `toml` accepts in one key.
pub(crate) const MAX_KEY_PARTS: usize = 80;

/// The most tokens (punctuation, keys and values, roughly) a world file read by `toml` may
/// have: about 400 MB of `toml`'s memory, or some 360 000 responses.
pub(crate) const MAX_TOKENS: usize = 4_000_000;

/// What the scan refuses, at a byte offset.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A key with this many dotted parts; the offset is the first part past the limit.
    DeepKey(usize, usize),
    /// More than `MAX_TOKENS` tokens; the offset is where the count crossed it.
    TooManyTokens(usize),
}

/// The first thing in `text` that `toml` should not be given. Quoted parts (`"a.b"`) are one
/// part; multi-line strings are skipped.
pub(crate) fn find(text: &str) -> Option<Refusal> {
    let mut in_multiline: Option<&str> = None;
    let mut offset = 0;
    let mut tokens = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if let Some(q) = in_multiline {
            if line.matches(q).count() % 2 == 1 {
                in_multiline = None;
            }
            continue;
        }
        let body = line.trim_start();
        let lead = line.len() - body.len();
        let (key_at, key) = if let Some(h) = body.strip_prefix("[[") {
            (lead + 2, h)
        } else if let Some(h) = body.strip_prefix('[') {
            (lead + 1, h)
        } else if body.starts_with('#') {
            continue;
        } else {
            (lead, body)
        };
        let (parts, crossing, key_end) = key_parts(key);
        if let Some(at) = crossing {
            return Some(Refusal::DeepKey(start + key_at + at, parts));
        }
        // A key part and its dot, `=`, the value and each `[`, `{`, `,` in it: about one token
        // per punctuation mark outside strings, plus one per line.
        tokens += 1 + line
            .bytes()
            .filter(|b| matches!(b, b'.' | b'[' | b']' | b'{' | b'}' | b',' | b'='))
            .count();
        if tokens > MAX_TOKENS {
            return Some(Refusal::TooManyTokens(start));
        }
        // A value that opens a multi-line string the line does not close.
        let value = &key[key_end.min(key.len())..];
        for q in ["\"\"\"", "'''"] {
            if value.matches(q).count() % 2 == 1 {
                in_multiline = Some(q);
            }
        }
    }
    None
}

/// Counts the dotted parts of the key at the start of `key` (up to `=`, `]` or the line's
/// end): (parts, offset of the first part past the limit, offset where the key ends).
fn key_parts(key: &str) -> (usize, Option<usize>, usize) {
    let mut parts = 1;
    let mut crossing = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in key.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '.' => {
                    parts += 1;
                    if parts == MAX_KEY_PARTS + 1 {
                        crossing = Some(i + 1);
                    }
                }
                '=' | ']' | '\n' | '#' => return (parts, crossing, i),
                _ => {}
            },
        }
    }
    (parts, crossing, key.len())
}

#[cfg(test)]
mod tests {
    use super::{find, Refusal, MAX_TOKENS};

    fn key(parts: usize) -> String {
        vec!["a"; parts].join(".")
    }

    #[test]
    fn eighty_parts_are_fine_eighty_one_are_found_at_the_crossing() {
        assert_eq!(find(&format!("[x]\n{} = 1\n", key(80))), None);
        let text = format!("[x]\n{} = 1\n", key(81));
        assert_eq!(find(&text), Some(Refusal::DeepKey(4 + 160, 81)));
        assert_eq!(&text[164..165], "a");
    }

    #[test]
    fn headers_and_array_headers_count_too() {
        assert_eq!(
            find(&format!("[{}]\n", key(90))),
            Some(Refusal::DeepKey(1 + 160, 90))
        );
        assert_eq!(
            find(&format!("  [[{}]]\n", key(81))),
            Some(Refusal::DeepKey(4 + 160, 81))
        );
    }

    #[test]
    fn dots_in_quotes_values_comments_and_multiline_strings_do_not_count() {
        let dots = ".".repeat(200);
        assert_eq!(
            find(&format!("[x]\n\"{dots}\" = '{dots}'\n# {dots}\n")),
            None
        );
        assert_eq!(
            find(&format!("[x]\ndoc = \"\"\"\n{}\n\"\"\"\n", key(100))),
            None
        );
        assert!(matches!(
            find(&format!(
                "[x]\ndoc = '''\n{}\n'''\n{} = 1\n",
                key(100),
                key(81)
            )),
            Some(Refusal::DeepKey(_, 81))
        ));
    }

    #[test]
    fn a_file_of_more_than_the_token_limit_is_refused_where_it_crosses_it() {
        // `[[f.f.f]]` is 1 + 6 tokens: 600 000 of them cross the limit near line 571 429.
        let line = "[[f.f.f]]\n";
        let text = line.repeat(600_000);
        let Some(Refusal::TooManyTokens(at)) = find(&text) else {
            panic!("not refused")
        };
        assert_eq!(at / line.len() + 1, MAX_TOKENS / 7 + 1);
        assert_eq!(find(&line.repeat(500_000)), None);
    }
}
