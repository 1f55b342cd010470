//! Where a world file's key has too many dotted parts. `toml` refuses a key of more than 80
//! parts (`a.b.c…`, in a `[header]` or before `=`) with "recursion limit" and no position;
//! this scan, run only then, finds the part that crossed the limit so the error points at it.

/// The most dotted parts `toml` accepts in one key.
pub(crate) const MAX_KEY_PARTS: usize = 80;

/// The byte offset of the first key part past `MAX_KEY_PARTS`, and how many parts that key
/// has. Quoted parts (`"a.b"`) are one part; multi-line strings are skipped.
pub(crate) fn find(text: &str) -> Option<(usize, usize)> {
    let mut in_multiline: Option<&str> = None;
    let mut offset = 0;
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
            return Some((start + key_at + at, parts));
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
    use super::find;

    fn key(parts: usize) -> String {
        vec!["a"; parts].join(".")
    }

    #[test]
    fn eighty_parts_are_fine_eighty_one_are_found_at_the_crossing() {
        assert_eq!(find(&format!("[x]\n{} = 1\n", key(80))), None);
        let text = format!("[x]\n{} = 1\n", key(81));
        let (at, parts) = find(&text).expect("found");
        assert_eq!((at, parts), (4 + 160, 81));
        assert_eq!(&text[at..at + 1], "a");
    }

    #[test]
    fn headers_and_array_headers_count_too() {
        assert_eq!(find(&format!("[{}]\n", key(90))).map(|(at, n)| (at, n)), Some((1 + 160, 90)));
        assert_eq!(find(&format!("  [[{}]]\n", key(81))).map(|(at, n)| (at, n)), Some((4 + 160, 81)));
    }

    #[test]
    fn dots_in_quotes_values_comments_and_multiline_strings_do_not_count() {
        let dots = ".".repeat(200);
        assert_eq!(find(&format!("[x]\n\"{dots}\" = '{dots}'\n# {dots}\n")), None);
        assert_eq!(find(&format!("[x]\ndoc = \"\"\"\n{}\n\"\"\"\n", key(100))), None);
        assert_eq!(find(&format!("[x]\ndoc = '''\n{}\n'''\n{} = 1\n", key(100), key(81))).map(|(_, n)| n), Some(81));
    }
}
