//! From the preprocessed text tree-sitter parses back to the files the user wrote.
//!
//! The preprocessor copies most of the text verbatim and writes macro expansions in
//! place of macro calls. Every byte of its output belongs to one [`Segment`]: either a
//! verbatim copy of some file (every offset maps back exactly), or the expansion of a
//! macro call (every offset maps to the call, as compilers report locations in macros).
//! A statement's span in the main file is where its first byte and its last byte come
//! from; barriers can be written after it only when that span is really its text (see
//! [`SourceMap::main_range`]).

use std::ops::Range;
use std::path::PathBuf;

use kpl::ir::{FileSpan, Span};

/// A file the preprocessor read: the main file (index 0) and included headers.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
    /// The `#include` that brought the file in: file index and directive range.
    pub included_at: Option<(usize, Range<usize>)>,
    lines: LineIndex,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String, included_at: Option<(usize, Range<usize>)>) -> SourceFile {
        let lines = LineIndex::new(&text);
        SourceFile {
            path,
            text,
            included_at,
            lines,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        self.lines.line_col(&self.text, offset)
    }
}

/// Line starts of a text, for offset → line/column.
#[derive(Clone, Debug, Default)]
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    fn line_col(&self, text: &str, offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let col = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }
}

/// Where a stretch of the preprocessed text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Copied from `file` starting at byte `start`.
    Verbatim { file: usize, start: usize },
    /// Written by expanding the macro call at `call` in `file`.
    Macro { file: usize, call: Range<usize> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Range in the preprocessed text.
    pub out: Range<usize>,
    pub origin: Origin,
}

/// A location in one of the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: usize,
    pub offset: usize,
}

/// The preprocessed text with the origin of every byte.
#[derive(Clone, Debug)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
    pub text: String,
    pub segments: Vec<Segment>,
    /// The preprocessor's notes for the report (a header not found, an `#error` read
    /// past), each starting with `file:line: `.
    pub notes: Vec<String>,
    /// What the file's text depends on that was not read, described for a report: a
    /// header that was not found, the configuration an `#error` read past asks for.
    /// Macros may come from them, so a name nothing declares may be anything
    /// ([`SourceMap::is_complete`]).
    pub unread: Vec<String>,
    /// `#if` ... `#endif` groups (file, byte range in it) whose conditions test a macro
    /// nothing read defines, after a part of the file was not read: which group the
    /// real build takes is unknown, and device code in them is not checked.
    pub uncertain: Vec<(usize, std::ops::Range<usize>)>,
}

impl SourceMap {
    /// Whether every macro the file uses was read (no header missing, no `#error`
    /// read past).
    pub fn is_complete(&self) -> bool {
        self.unread.is_empty()
    }

    fn segment(&self, out: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.out.end <= out);
        self.segments.get(i).filter(|s| s.out.start <= out)
    }

    /// Where the byte at `out` comes from; for a macro expansion, the start of the call.
    pub fn loc(&self, out: usize) -> Loc {
        match self.segment(out).map(|s| &s.origin) {
            Some(Origin::Verbatim { file, start }) => {
                let seg = self.segment(out).map_or(0, |s| s.out.start);
                Loc {
                    file: *file,
                    offset: start + (out - seg),
                }
            }
            Some(Origin::Macro { file, call }) => Loc {
                file: *file,
                offset: call.start,
            },
            None => self.end_loc(),
        }
    }

    /// Where the text ending (exclusively) at `out` ends in its file.
    fn loc_end(&self, out: usize) -> Loc {
        if out == 0 {
            return self.loc(0);
        }
        match self.segment(out - 1) {
            Some(Segment {
                out: seg,
                origin: Origin::Verbatim { file, start },
            }) => Loc {
                file: *file,
                offset: start + (out - seg.start),
            },
            Some(Segment {
                origin: Origin::Macro { file, call },
                ..
            }) => Loc {
                file: *file,
                offset: call.end,
            },
            None => self.end_loc(),
        }
    }

    fn end_loc(&self) -> Loc {
        Loc {
            file: 0,
            offset: self.files.first().map_or(0, |f| f.text.len()),
        }
    }

    /// The location in the main file that stands for `loc`: itself, or the `#include`
    /// line that (transitively) brought its file in.
    pub fn in_main(&self, mut loc: Loc) -> Loc {
        let mut guard = 0;
        while loc.file != 0 && guard < 256 {
            match self.files.get(loc.file).and_then(|f| f.included_at.clone()) {
                Some((file, range)) => {
                    loc = Loc {
                        file,
                        offset: range.start,
                    }
                }
                None => break,
            }
            guard += 1;
        }
        loc
    }

    /// The main-file text of the preprocessed range `out`, when it is exactly that:
    /// both ends in the main file, the first byte not inside a macro expansion that
    /// starts before the range, and the last byte not inside one that ends after it.
    /// This is when a barrier can be written right before or after the range.
    pub fn main_range(&self, out: Range<usize>) -> Option<Range<usize>> {
        if out.start >= out.end {
            return None;
        }
        let first = self.segment(out.start)?;
        let last = self.segment(out.end - 1)?;
        // Blanks the preprocessor put around an expansion do not count.
        let blank = |r: Range<usize>| self.text.get(r).is_some_and(|t| t.trim().is_empty());
        let start_ok = match &first.origin {
            Origin::Verbatim { file, .. } => *file == 0,
            Origin::Macro { file, .. } => *file == 0 && blank(first.out.start..out.start),
        };
        let end_ok = match &last.origin {
            Origin::Verbatim { file, .. } => *file == 0,
            Origin::Macro { file, .. } => *file == 0 && blank(out.end..last.out.end),
        };
        if !(start_ok && end_ok) {
            return None;
        }
        let (s, e) = (self.loc(out.start), self.loc_end(out.end));
        (s.file == 0 && e.file == 0 && s.offset <= e.offset).then_some(s.offset..e.offset)
    }

    /// A span in the main file for the preprocessed range `out`: its exact text when
    /// [`main_range`](Self::main_range) allows, else the nearest main-file location
    /// (the macro call, the `#include` line).
    ///
    /// Text of an included header also gets its real place ([`Span::elsewhere`]), for
    /// reports; the main-file fields stay the `#include` line, which is all `fix` may
    /// edit.
    pub fn span(&self, out: Range<usize>) -> Span {
        let range = self.main_range(out.clone()).unwrap_or_else(|| {
            let s = self.in_main(self.loc(out.start));
            let e = self.in_main(self.loc_end(out.end.max(out.start)));
            if e.offset >= s.offset && e.file == s.file {
                s.offset..e.offset
            } else {
                s.offset..s.offset
            }
        });
        Span {
            elsewhere: self.elsewhere(out),
            ..self.main_span(range)
        }
    }

    /// Where the preprocessed range `out` is when it starts in a header: its text there
    /// when it ends in the same header, else its first byte.
    fn elsewhere(&self, out: Range<usize>) -> Option<FileSpan> {
        let s = self.loc(out.start);
        if s.file == 0 {
            return None;
        }
        let file = self.files.get(s.file)?;
        let e = self.loc_end(out.end.max(out.start));
        let end = if e.file == s.file && e.offset >= s.offset {
            e.offset
        } else {
            s.offset
        };
        let (line, col) = file.line_col(s.offset);
        Some(FileSpan {
            file: u32::try_from(s.file).ok()?,
            start: s.offset,
            end,
            line,
            col,
        })
    }

    /// A [`Span`] for a byte range of the main file.
    pub fn main_span(&self, range: Range<usize>) -> Span {
        let Some(main) = self.files.first() else {
            return Span::NONE;
        };
        let (line, col) = main.line_col(range.start);
        let (end_line, _) = main.line_col(range.end);
        Span {
            start: range.start,
            end: range.end,
            line,
            col,
            end_line,
            elsewhere: None,
            call: None,
        }
    }

    /// File, line and column of a preprocessed offset, for diagnostics.
    pub fn describe(&self, out: usize) -> (PathBuf, u32, u32) {
        let loc = self.loc(out);
        match self.files.get(loc.file) {
            Some(f) => {
                let (l, c) = f.line_col(loc.offset);
                (f.path.clone(), l, c)
            }
            None => (PathBuf::new(), 0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> SourceMap {
        // main: "int a = M;\n" with M expanding to "1 + 2"
        let main = SourceFile::new("m.cu".into(), "int a = M;\nx\n".into(), None);
        SourceMap {
            files: vec![main],
            text: "int a = 1 + 2;\nx\n".into(),
            segments: vec![
                Segment {
                    out: 0..8,
                    origin: Origin::Verbatim { file: 0, start: 0 },
                },
                Segment {
                    out: 8..13,
                    origin: Origin::Macro { file: 0, call: 8..9 },
                },
                Segment {
                    out: 13..17,
                    origin: Origin::Verbatim { file: 0, start: 9 },
                },
            ],
            notes: Vec::new(),
            unread: Vec::new(),
            uncertain: Vec::new(),
        }
    }

    #[test]
    fn ranges_map_back_through_macros() {
        let m = map();
        assert_eq!(m.main_range(0..14), Some(0..10));
        assert_eq!(m.main_range(8..13), Some(8..9));
        // Part of an expansion has no exact text.
        assert_eq!(m.main_range(8..9), None);
        assert_eq!(m.main_range(10..14), None);
        let s = m.span(15..16);
        assert_eq!((s.start, s.end, s.line, s.col), (11, 12, 2, 1));
        assert_eq!(m.describe(10), (PathBuf::from("m.cu"), 1, 9));
    }
}
