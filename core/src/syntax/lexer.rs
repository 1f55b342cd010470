//! Lexer: tokens with spans, INDENT/DEDENT from indentation, comments kept aside.

use crate::diag::Diagnostic;
use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    Float(f64),
    Str(String),
    /// `f"…"`: literal text and the byte ranges of the `{expr}` holes in the source.
    FStr(Vec<FTok>),
    /// `<lit>`: a primitive literal of the core notation.
    Prim(PrimTok),
    /// `<name>`: an external function or handle as a primitive (`<print>`, `<stdout>`).
    PrimName(String),
    Kw(Kw),
    Punct(&'static str),
    Newline,
    Indent,
    Dedent,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FTok {
    Lit(String),
    /// A hole: the expression's text is `src[start..end]`.
    Expr(usize, usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum PrimTok {
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    Fun,
    Ret,
    Prj,
    Rec,
    For,
    In,
    If,
    Elif,
    Else,
    While,
    Do,
    Extern,
    And,
    Or,
    Not,
}

pub const KEYWORDS: &[(&str, Kw)] = &[
    ("fun", Kw::Fun),
    ("ret", Kw::Ret),
    ("prj", Kw::Prj),
    ("rec", Kw::Rec),
    ("for", Kw::For),
    ("in", Kw::In),
    ("if", Kw::If),
    ("elif", Kw::Elif),
    ("else", Kw::Else),
    ("while", Kw::While),
    ("do", Kw::Do),
    ("extern", Kw::Extern),
    ("and", Kw::And),
    ("or", Kw::Or),
    ("not", Kw::Not),
];

impl Kw {
    pub fn as_str(self) -> &'static str {
        KEYWORDS
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(s, _)| *s)
            .unwrap_or("?")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A `#` comment; `own_line` is true when only whitespace precedes it on its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub text: String,
    pub span: Span,
    pub own_line: bool,
}

pub struct Lexed {
    pub tokens: Vec<Token>,
    pub comments: Vec<Comment>,
    /// Byte offsets of items preceded by a blank line (for the formatter).
    pub blank_before: Vec<u32>,
    pub diags: Vec<Diagnostic>,
}

const PUNCTS: &[&str] = &[
    "++=", ":=", "+=", "-=", "++", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ":",
    "&", "+", "-", "*", "/", "%", "<", ">", "=", ";",
];

/// The `}` that closes an f-string hole whose expression starts at `from` (brackets and
/// strings inside may hold `}` and `"`); `Err` with where the scan stopped when the line ends
/// first.
pub fn hole_end(b: &[u8], from: usize) -> Result<usize, usize> {
    let (mut pos, mut depth, mut in_str) = (from, 0usize, false);
    while pos < b.len() && b[pos] != b'\n' {
        let c = b[pos];
        if in_str {
            if c == b'\\' {
                pos += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                b'}' if depth == 0 => return Ok(pos),
                b'}' => depth -= 1,
                _ => {}
            }
        }
        pos += 1;
    }
    Err(pos)
}

/// Does the text's first line start, unindented, with `name :=`, `name =` or an item keyword?
/// No bracket is open at the start of such a line: the lexer closes unclosed ones there.
pub fn starts_item(text: &str) -> bool {
    let line = text.split(['\n', '\r']).next().unwrap_or("");
    if line.starts_with([' ', '\t']) {
        return false;
    }
    let word: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if word.is_empty() {
        return false;
    }
    if matches!(
        word.as_str(),
        "for" | "if" | "while" | "do" | "extern" | "rec" | "ret"
    ) {
        return true;
    }
    let after = line[word.len()..].trim_start();
    after.starts_with(":=") || (after.starts_with('=') && !after.starts_with("=="))
}

pub fn lex(src: &str) -> Lexed {
    // A lone `\r` ends a line, as `\n` does; offsets are unchanged.
    let normalized = crate::span::lone_cr_to_lf(src);
    let src: &str = &normalized;
    // Sized once (a token takes about three bytes of source or more): growing a vector of
    // hundreds of thousands of tokens copies it and faults in fresh pages at each doubling.
    // Capped, so a huge file of comments does not reserve gigabytes it never uses.
    let out = Vec::with_capacity((src.len() / 2 + 16).min(1 << 20));
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        pos: 0,
        out,
        comments: Vec::new(),
        diags: Vec::new(),
        blank_before: Vec::new(),
    };
    lx.run();
    Lexed {
        tokens: lx.out,
        comments: lx.comments,
        blank_before: lx.blank_before,
        diags: lx.diags,
    }
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    out: Vec<Token>,
    comments: Vec<Comment>,
    diags: Vec<Diagnostic>,
    blank_before: Vec<u32>,
}

/// The layout state of `Lexer::run`: indentation levels, bracket depth (newlines inside
/// brackets are ignored), and where lines start.
struct Layout {
    indents: Vec<usize>,
    depth: usize,
    at_line_start: bool,
    saw_blank: bool,
    any_line: bool,
}

impl<'a> Lexer<'a> {
    fn push(&mut self, tok: Tok, start: usize, end: usize) {
        self.out.push(Token {
            tok,
            span: Span::new(start, end),
        });
    }

    fn run(&mut self) {
        // A byte-order mark some editors put first is not part of the program.
        if self.src.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        let mut lay = Layout {
            indents: vec![0],
            depth: 0,
            at_line_start: true,
            saw_blank: false,
            any_line: false,
        };
        while self.pos < self.b.len() {
            if lay.at_line_start && lay.depth == 0 && !self.indentation(&mut lay) {
                continue;
            }
            self.token(&mut lay);
        }
        let end = self.b.len();
        if self
            .out
            .last()
            .map(|t| t.tok != Tok::Newline)
            .unwrap_or(false)
        {
            self.push(Tok::Newline, end, end);
        }
        while lay.indents.len() > 1 {
            lay.indents.pop();
            self.push(Tok::Dedent, end, end);
        }
        self.push(Tok::Eof, end, end);
    }

    /// At the start of a line outside brackets: measures its indentation and pushes `Indent`
    /// and `Dedent`s. False for a blank or comment-only line, which it consumes.
    fn indentation(&mut self, lay: &mut Layout) -> bool {
        let line_start = self.pos;
        let mut col = 0;
        let mut tab_at = None;
        while self.pos < self.b.len() && (self.b[self.pos] == b' ' || self.b[self.pos] == b'\t') {
            if self.b[self.pos] == b'\t' && tab_at.is_none() {
                tab_at = Some(self.pos);
            }
            col += 1;
            self.pos += 1;
        }
        let rest = self.b.get(self.pos).copied();
        if matches!(rest, None | Some(b'\n') | Some(b'\r') | Some(b'#')) {
            if rest == Some(b'#') {
                self.comment(true);
            } else if lay.any_line {
                lay.saw_blank = true;
            }
            if self.pos < self.b.len() && self.b[self.pos] == b'\r' {
                self.pos += 1;
            }
            if self.pos < self.b.len() && self.b[self.pos] == b'\n' {
                self.pos += 1;
            }
            return false;
        }
        if let Some(t) = tab_at {
            self.diags.push(
                Diagnostic::error("E0002", Span::new(t, t + 1), "tab character in indentation")
                    .with_help("indent with spaces only (4 per level is canonical; `opal fmt` rewrites the file)")
                    .with_fix("    "),
            );
        }
        lay.at_line_start = false;
        if lay.saw_blank {
            self.blank_before.push(self.pos as u32);
        }
        lay.saw_blank = false;
        lay.any_line = true;
        let cur = *lay.indents.last().unwrap_or(&0);
        if col > cur {
            lay.indents.push(col);
            self.push(Tok::Indent, line_start, self.pos);
        } else if col < cur {
            while lay.indents.len() > 1 && col < *lay.indents.last().unwrap_or(&0) {
                lay.indents.pop();
                self.push(Tok::Dedent, self.pos, self.pos);
            }
            if col != *lay.indents.last().unwrap_or(&0) {
                self.diags.push(
                    Diagnostic::error(
                        "E0008",
                        Span::new(line_start, self.pos),
                        "this line's indentation matches no enclosing block",
                    )
                    .with_help("indent it exactly like the block it belongs to"),
                );
                lay.indents.push(col);
            }
        }
        true
    }

    /// One token (or a skipped space, a comment, an error) at `self.pos`.
    fn token(&mut self, lay: &mut Layout) {
        let c = self.b[self.pos];
        let start = self.pos;
        match c {
            b' ' | b'\t' | b'\r' => self.pos += 1,
            b'\n' => {
                self.pos += 1;
                if lay.depth > 0 && self.next_line_starts_item() {
                    // An unclosed bracket: recover at the next line that starts an item,
                    // so one missing `)` does not swallow the rest of the file.
                    lay.depth = 0;
                }
                if lay.depth == 0 {
                    self.push(Tok::Newline, start, start + 1);
                    lay.at_line_start = true;
                }
            }
            b'#' => self.comment(false),
            b'"' => {
                if let Some(s) = self.string() {
                    self.push(Tok::Str(s), start, self.pos);
                }
            }
            b'0'..=b'9' => {
                let t = self.number(false);
                self.push(t, start, self.pos);
            }
            b'f' if self.b.get(self.pos + 1) == Some(&b'"') => {
                self.pos += 1;
                let parts = self.fstring(start);
                self.push(Tok::FStr(parts), start, self.pos);
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let id = self.ident();
                let tok = match KEYWORDS.iter().find(|(s, _)| *s == id) {
                    Some((_, k)) => Tok::Kw(*k),
                    None => Tok::Ident(id.to_string()),
                };
                self.push(tok, start, self.pos);
            }
            b'<' if self.b.get(self.pos + 1) == Some(&b'<') => self.task(),
            b'<' if self.prim_literal_ahead() => {
                if let Some(t) = self.prim_literal() {
                    self.push(t, start, self.pos);
                }
            }
            _ => self.punct(lay),
        }
    }

    /// `<<…>>`: a task, which only dispatch creates. Skip to the matching `>>` so we report
    /// it once.
    fn task(&mut self) {
        let start = self.pos;
        let end = self.src[self.pos..]
            .find(">>")
            .map(|i| self.pos + i + 2)
            .unwrap_or_else(|| {
                self.src[self.pos..]
                    .find('\n')
                    .map(|i| self.pos + i)
                    .unwrap_or(self.b.len())
            });
        self.diags.push(
            Diagnostic::error("E0004", Span::new(start, end), "a task `<<…>>` cannot be written in source")
                .with_help("tasks are created by dispatch when an external call starts; write the call itself, e.g. `y := f x`"),
        );
        self.pos = end;
        self.push(Tok::Ident("<<task>>".into()), start, end);
    }

    /// A punctuation token, counting bracket depth, or an error for an unexpected character.
    fn punct(&mut self, lay: &mut Layout) {
        let start = self.pos;
        let p = PUNCTS
            .iter()
            .find(|p| self.b[self.pos..].starts_with(p.as_bytes()));
        match p {
            Some(p) => {
                self.pos += p.len();
                match *p {
                    "(" | "[" | "{" => lay.depth += 1,
                    ")" | "]" | "}" => lay.depth = lay.depth.saturating_sub(1),
                    _ => {}
                }
                self.push(Tok::Punct(p), start, self.pos);
            }
            None => {
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                self.pos += ch.len_utf8();
                self.diags.push(
                    Diagnostic::error("E0003", Span::new(start, self.pos), format!("unexpected character `{ch}`"))
                        .with_help("remove it; OPAL identifiers are ASCII letters, digits and `_`, strings go in double quotes"),
                );
            }
        }
    }

    /// Does the line after this newline start an item (see [`starts_item`])? Used only to
    /// recover from an unclosed bracket.
    fn next_line_starts_item(&self) -> bool {
        starts_item(&self.src[self.pos..])
    }

    fn comment(&mut self, own_line: bool) {
        let start = self.pos;
        while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
            self.pos += 1;
        }
        let text = self.src[start..self.pos].trim_end().to_string();
        self.comments.push(Comment {
            text,
            span: Span::new(start, self.pos),
            own_line,
        });
    }

    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while self.pos < self.b.len()
            && (self.b[self.pos].is_ascii_alphanumeric() || self.b[self.pos] == b'_')
        {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    fn number(&mut self, negative: bool) -> Tok {
        let start = self.pos;
        while self.pos < self.b.len() && self.b[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        let mut is_float = false;
        if self.pos + 1 < self.b.len()
            && self.b[self.pos] == b'.'
            && self.b[self.pos + 1].is_ascii_digit()
        {
            is_float = true;
            self.pos += 1;
            while self.pos < self.b.len() && self.b[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
        }
        if self.pos < self.b.len() && (self.b[self.pos] == b'e' || self.b[self.pos] == b'E') {
            let save = self.pos;
            self.pos += 1;
            if self.pos < self.b.len() && (self.b[self.pos] == b'-' || self.b[self.pos] == b'+') {
                self.pos += 1;
            }
            if self.pos < self.b.len() && self.b[self.pos].is_ascii_digit() {
                is_float = true;
                while self.pos < self.b.len() && self.b[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        let digits = &self.src[start..self.pos];
        let signed;
        let text: &str = if negative {
            signed = format!("-{digits}");
            &signed
        } else {
            digits
        };
        if is_float {
            match text.parse::<f64>() {
                Ok(f) if f.is_finite() => Tok::Float(f),
                Ok(_) => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0003",
                            Span::new(start, self.pos),
                            format!("float literal `{text}` is out of range"),
                        )
                        .with_help("floats are 64-bit: at most about 1.8e308 in size"),
                    );
                    Tok::Float(0.0)
                }
                Err(_) => self.bad_number(start),
            }
        } else {
            match text.parse::<i64>() {
                Ok(i) => Tok::Int(i),
                Err(_) => {
                    self.diags.push(
                        Diagnostic::error("E0003", Span::new(start, self.pos), format!("integer literal `{text}` does not fit in 64 bits"))
                            .with_help("integers are i64: use a value between -9223372036854775808 and 9223372036854775807, or a float"),
                    );
                    Tok::Int(0)
                }
            }
        }
    }

    fn bad_number(&mut self, start: usize) -> Tok {
        self.diags.push(Diagnostic::error(
            "E0003",
            Span::new(start, self.pos),
            "malformed number",
        ));
        Tok::Int(0)
    }

    /// Reads a string literal starting at `"`. Reports errors and returns what it could.
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.pos += 1;
        let mut s = String::new();
        loop {
            let Some(ch) = self.src[self.pos..].chars().next() else {
                self.diags.push(
                    Diagnostic::error(
                        "E0003",
                        Span::new(start, self.pos),
                        "unterminated string literal",
                    )
                    .with_help("close the string with `\"` on the same line"),
                );
                return Some(s);
            };
            match ch {
                '"' => {
                    self.pos += 1;
                    return Some(s);
                }
                '\n' => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0003",
                            Span::new(start, self.pos),
                            "unterminated string literal",
                        )
                        .with_help(
                            "close the string with `\"` on the same line; write a newline as `\\n`",
                        ),
                    );
                    return Some(s);
                }
                '\\' => self.escape(
                    &mut s,
                    "unknown escape sequence",
                    "valid escapes are \\n \\t \\\" \\\\ and \\u{…}",
                ),
                c => {
                    s.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// `\u{…}` with `self.pos` at the `u`: the character, leaving `self.pos` at the `}` (the
    /// caller steps over it); `None` if it is not a valid code point.
    fn unicode_escape(&mut self) -> Option<char> {
        let close = self.src[self.pos..].find('}').map(|i| self.pos + i)?;
        let ch = u32::from_str_radix(self.src.get(self.pos + 2..close)?, 16)
            .ok()
            .and_then(char::from_u32)?;
        self.pos = close;
        Some(ch)
    }

    /// Reads an f-string whose `"` is at `self.pos` (`start` is the `f`): literal text with the
    /// usual escapes and `{{`/`}}` for braces, and `{expr}` holes kept as source ranges.
    fn fstring(&mut self, start: usize) -> Vec<FTok> {
        self.pos += 1;
        let mut parts = Vec::new();
        let mut lit = String::new();
        let unterminated = |lx: &mut Self| {
            lx.diags.push(
                Diagnostic::error("E0003", Span::new(start, lx.pos), "unterminated f-string")
                    .with_help("close the f-string with `\"` on the same line"),
            );
        };
        loop {
            let Some(ch) = self.src[self.pos..].chars().next() else {
                unterminated(self);
                break;
            };
            match ch {
                '"' => {
                    self.pos += 1;
                    break;
                }
                '\n' => {
                    unterminated(self);
                    break;
                }
                '{' if self.b.get(self.pos + 1) == Some(&b'{') => {
                    lit.push('{');
                    self.pos += 2;
                }
                '}' if self.b.get(self.pos + 1) == Some(&b'}') => {
                    lit.push('}');
                    self.pos += 2;
                }
                '{' => {
                    if !self.fstring_hole(&mut parts, &mut lit) {
                        break;
                    }
                }
                '}' => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0003",
                            Span::new(self.pos, self.pos + 1),
                            "single `}` in an f-string",
                        )
                        .with_help("write a literal brace as `}}`"),
                    );
                    self.pos += 1;
                }
                '\\' => {
                    self.escape(
                        &mut lit,
                        "unknown escape sequence in an f-string",
                        "valid escapes are \\n \\t \\\" \\\\ and {{ }}",
                    );
                }
                c => {
                    lit.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if !lit.is_empty() || parts.is_empty() {
            parts.push(FTok::Lit(lit));
        }
        parts
    }

    /// The `{expression}` of an f-string at `self.pos`; false if it is not closed on the line
    /// (reported, and the rest of the line skipped).
    fn fstring_hole(&mut self, parts: &mut Vec<FTok>, lit: &mut String) -> bool {
        let open = self.pos;
        let end = match hole_end(self.b, open + 1) {
            Ok(end) => end,
            Err(stopped) => {
                self.pos = stopped;
                self.diags.push(
                    Diagnostic::error(
                        "E0003",
                        Span::new(open, self.pos),
                        "unclosed `{` in an f-string",
                    )
                    .with_help("close the expression with `}`; write a literal brace as `{{`"),
                );
                // Keep the rest of the line out of the program: the string is broken.
                while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
                    self.pos += 1;
                }
                return false;
            }
        };
        if !lit.is_empty() {
            parts.push(FTok::Lit(std::mem::take(lit)));
        }
        if self.src[open + 1..end].trim().is_empty() {
            self.diags.push(
                Diagnostic::error(
                    "E0003",
                    Span::new(open, end + 1),
                    "empty `{}` in an f-string",
                )
                .with_help(
                    "put an expression inside the braces, or write `{{}}` for literal braces",
                ),
            );
        } else {
            parts.push(FTok::Expr(open + 1, end));
        }
        self.pos = end + 1;
        true
    }

    /// An escape `\n`, `\t`, `\"`, `\\` or `\u{…}` in a string or an f-string, at
    /// `self.pos`; an unknown one is reported with `unknown` and `help`.
    fn escape(&mut self, lit: &mut String, unknown: &str, help: &str) {
        let esc_start = self.pos;
        self.pos += 1;
        let e = self.src[self.pos..].chars().next();
        match e {
            Some('n') => lit.push('\n'),
            Some('t') => lit.push('\t'),
            Some('"') => lit.push('"'),
            Some('\\') => lit.push('\\'),
            Some('u') if self.b.get(self.pos + 1) == Some(&b'{') => match self.unicode_escape() {
                Some(ch) => lit.push(ch),
                None => self.diags.push(
                    Diagnostic::error(
                        "E0003",
                        Span::new(esc_start, self.pos + 1),
                        "invalid unicode escape",
                    )
                    .with_help("write `\\u{…}` with 1 to 6 hex digits of a valid code point"),
                ),
            },
            _ => {
                let l = e.map(|c| c.len_utf8()).unwrap_or(0);
                self.diags.push(
                    Diagnostic::error("E0003", Span::new(esc_start, self.pos + l), unknown)
                        .with_help(help),
                );
            }
        }
        if let Some(c) = e {
            self.pos += c.len_utf8();
        }
    }

    /// `<` directly followed by a literal or name and `>`, with no space inside.
    fn prim_literal_ahead(&self) -> bool {
        let mut p = self.pos + 1;
        let Some(&c) = self.b.get(p) else {
            return false;
        };
        if c == b'"' {
            p += 1;
            while p < self.b.len() && self.b[p] != b'"' && self.b[p] != b'\n' {
                if self.b[p] == b'\\' {
                    p += 1;
                }
                p += 1;
            }
            return self.b.get(p) == Some(&b'"') && self.b.get(p + 1) == Some(&b'>');
        }
        if c == b'-' {
            p += 1;
        }
        let Some(&c) = self.b.get(p) else {
            return false;
        };
        if c.is_ascii_digit() {
            while p < self.b.len()
                && (self.b[p].is_ascii_digit() || self.b[p] == b'.' || self.b[p] == b'e')
            {
                p += 1;
            }
            return self.b.get(p) == Some(&b'>');
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while p < self.b.len() && (self.b[p].is_ascii_alphanumeric() || self.b[p] == b'_') {
                p += 1;
            }
            return self.b.get(p) == Some(&b'>');
        }
        false
    }

    fn prim_literal(&mut self) -> Option<Tok> {
        self.pos += 1; // <
        let c = self.b[self.pos];
        let tok = if c == b'"' {
            Tok::Prim(PrimTok::Str(self.string()?))
        } else if c == b'-' || c.is_ascii_digit() {
            let neg = c == b'-';
            if neg {
                self.pos += 1;
            }
            match self.number(neg) {
                Tok::Int(i) => Tok::Prim(PrimTok::Int(i)),
                Tok::Float(f) => Tok::Prim(PrimTok::Float(f)),
                _ => return None,
            }
        } else {
            Tok::PrimName(self.ident().to_string())
        };
        if self.b.get(self.pos) == Some(&b'>') {
            self.pos += 1;
        }
        Some(tok)
    }
}
