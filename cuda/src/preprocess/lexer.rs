//! Lexing for the preprocessor: lexemes of the file text (identifiers, numbers,
//! literals, punctuators, blanks and newlines) and the tokens macros are made of, with
//! how a token list is written back as text.

/// What a lexeme is, as far as the preprocessor cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Ident,
    Number,
    /// A string or character literal.
    Literal,
    Punct,
    /// Blanks, comments, escaped newlines.
    Space,
    Newline,
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Lexeme {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
}

const PUNCTS: &[&str] = &[
    "%:%:", "...", "<<=", ">>=", "->*", "##", "%:", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
    "--", "->", "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
];

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The next lexeme of `text` at `pos` (`pos < text.len()`, on a char boundary).
pub(super) fn lex(text: &str, pos: usize) -> Lexeme {
    let b = text.as_bytes();
    let n = b.len();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mk = |kind, end: usize| Lexeme {
        kind,
        start: pos,
        end,
    };
    let c = b[pos];
    match c {
        b'\n' => mk(Kind::Newline, pos + 1),
        b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
            let mut i = pos;
            while i < n && matches!(b[i], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                i += 1;
            }
            mk(Kind::Space, i)
        }
        b'\\' if at(pos + 1) == b'\n' => mk(Kind::Space, pos + 2),
        b'\\' if at(pos + 1) == b'\r' && at(pos + 2) == b'\n' => mk(Kind::Space, pos + 3),
        b'/' if at(pos + 1) == b'/' => {
            let mut i = pos + 2;
            while i < n && b[i] != b'\n' {
                // A line comment continues over an escaped newline.
                if b[i] == b'\\' && at(i + 1) == b'\n' {
                    i += 1;
                }
                i += 1;
            }
            mk(Kind::Space, i.min(n))
        }
        b'/' if at(pos + 1) == b'*' => {
            let end = text[pos + 2..].find("*/").map_or(n, |i| pos + 2 + i + 2);
            mk(Kind::Space, end)
        }
        b'"' | b'\'' => mk(Kind::Literal, literal_end(b, pos + 1, c)),
        _ if is_ident_start(c) => {
            let mut i = pos;
            while i < n && is_ident_char(b[i]) {
                i += 1;
            }
            let word = &text[pos..i];
            let next = at(i);
            if next == b'"' && word.ends_with('R') && matches!(word, "R" | "LR" | "uR" | "UR" | "u8R") {
                return mk(Kind::Literal, raw_string_end(text, i));
            }
            if (next == b'"' || next == b'\'') && matches!(word, "L" | "u" | "U" | "u8") {
                return mk(Kind::Literal, literal_end(b, i + 1, next));
            }
            mk(Kind::Ident, i)
        }
        _ if c.is_ascii_digit() || (c == b'.' && at(pos + 1).is_ascii_digit()) => {
            let mut i = pos + 1;
            while i < n {
                let d = b[i];
                let exponent_sign = matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if exponent_sign || is_ident_char(d) || d == b'.' || (d == b'\'' && is_ident_char(at(i + 1)))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            mk(Kind::Number, i)
        }
        _ if c.is_ascii_punctuation() => {
            let rest = &b[pos..];
            let len = PUNCTS
                .iter()
                .find(|p| rest.starts_with(p.as_bytes()))
                .map_or(1, |p| p.len());
            mk(Kind::Punct, pos + len)
        }
        _ => {
            let mut i = pos + 1;
            while i < n && !text.is_char_boundary(i) {
                i += 1;
            }
            mk(Kind::Other, i)
        }
    }
}

/// The end of a string or character literal whose opening quote is just before `i`
/// (an unterminated literal ends at the end of its line).
fn literal_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() {
        match b[i] {
            // Skip the escaped character, all of it (it may be several bytes).
            b'\\' => {
                i += 2;
                while i < b.len() && (b[i] & 0xC0) == 0x80 {
                    i += 1;
                }
            }
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of a raw string literal `R"delim( ... )delim"` whose `"` is at `quote`.
fn raw_string_end(text: &str, quote: usize) -> usize {
    let rest = &text[quote + 1..];
    let Some(open) = rest.find('(') else {
        return text.len();
    };
    let delim = &rest[..open];
    let close = format!("){delim}\"");
    rest[open..]
        .find(&close)
        .map_or(text.len(), |i| quote + 1 + open + i + close.len())
}

/// A token in a macro body, an argument or an `#if` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tok {
    pub(super) kind: Kind,
    pub(super) text: String,
    /// Blanks before it in the source.
    pub(super) space: bool,
    /// Never expand this identifier again (it named a macro being expanded).
    pub(super) painted: bool,
}

impl Tok {
    pub(super) fn new(kind: Kind, text: &str, space: bool) -> Tok {
        Tok {
            kind,
            text: text.to_string(),
            space,
            painted: false,
        }
    }

    pub(super) fn is(&self, s: &str) -> bool {
        self.kind != Kind::Literal && self.text == s
    }
}

/// The tokens of a piece of text (blanks, comments and newlines become `space` flags).
pub(super) fn tokens_of(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut space = false;
    while pos < text.len() {
        let lx = lex(text, pos);
        match lx.kind {
            Kind::Space | Kind::Newline => space = true,
            k => {
                out.push(Tok::new(k, &text[lx.start..lx.end], space));
                space = false;
            }
        }
        pos = lx.end.max(pos + 1);
    }
    out
}

/// Whether two characters side by side could be read as one token.
pub(super) fn may_fuse(a: Option<u8>, b: Option<u8>) -> bool {
    let separate = |c: u8| matches!(c, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b';' | b',');
    match (a, b) {
        (Some(a), Some(b)) => {
            (is_ident_char(a) && is_ident_char(b))
                || (a.is_ascii_punctuation() && b.is_ascii_punctuation() && !separate(a) && !separate(b))
                || (a == b'.' && b.is_ascii_digit())
        }
        _ => false,
    }
}

/// Joins tokens back into text, with a blank wherever the source had one or where two
/// tokens would otherwise fuse.
pub(super) fn text_of(toks: &[Tok]) -> String {
    let mut s = String::new();
    for t in toks {
        let fuse = may_fuse(s.as_bytes().last().copied(), t.text.as_bytes().first().copied());
        if !s.is_empty() && (t.space || fuse) {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}
