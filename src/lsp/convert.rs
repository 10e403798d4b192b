//! From what the driver returns to LSP data: byte offsets to positions in the encoding
//! the client speaks, check results to diagnostics (in the words of the text report),
//! `fix`'s edits to text edits.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, LabelStyle};
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range,
    TextEdit, Uri,
};

use driver::source::InputError;
use driver::{KernelCheck, Source, Verdict};

use crate::output;

/// The rule ids of the diagnostics (`Diagnostic::code`), as the SARIF log names them.
pub mod rule {
    /// A race between threads of one block (a barrier can fix it).
    pub const DATA_RACE: &str = "data-race";
    /// A race between threads of different blocks (no barrier can fix it).
    pub const CROSS_BLOCK_RACE: &str = "cross-block-race";
    pub const BARRIER_DIVERGENCE: &str = "barrier-divergence";
    /// The file or a kernel could not be checked (syntax error, unsupported construct,
    /// solver limit).
    pub const UNSUPPORTED: &str = "unsupported";
}

/// What every diagnostic of autosync says it comes from.
pub const SOURCE: &str = "autosync";

/// How positions count characters: UTF-16 code units (LSP's default) or bytes (UTF-8,
/// when the client offers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Line starts of a text, for byte offset ↔ LSP position.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    enc: Encoding,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str, enc: Encoding) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts, enc }
    }

    /// The nearest character boundary at or before `offset` (clamped to the text).
    fn boundary(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = self.boundary(offset);
        let line = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = self.starts[line];
        let col = match self.enc {
            Encoding::Utf8 => offset - start,
            Encoding::Utf16 => self.text[start..offset].encode_utf16().count(),
        };
        Position::new(line as u32, col as u32)
    }

    pub fn range(&self, r: std::ops::Range<usize>) -> Range {
        Range::new(self.position(r.start), self.position(r.end.max(r.start)))
    }

    /// The byte offset of a position (past the end of its line: the line's end).
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += match self.enc {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        start + line.len()
    }

    /// The byte offset of a 1-based line and a 1-based column counted in characters (as
    /// the front ends report errors).
    fn offset_of_line_col(&self, line: u32, col: u32) -> usize {
        let Some(&start) = self.starts.get(line.max(1) as usize - 1) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let end = rest.find('\n').unwrap_or(rest.len());
        rest[..end]
            .char_indices()
            .nth(col.max(1) as usize - 1)
            .map_or(start + end, |(i, _)| start + i)
    }

    /// The word (identifier characters) at a 1-based line and column, or the rest of
    /// that line when no word starts there: where a front-end error points.
    fn word_at(&self, line: u32, col: u32) -> Range {
        let start = self.offset_of_line_col(line, col);
        let rest = &self.text[start..];
        let line_end = rest.find('\n').unwrap_or(rest.len());
        let word = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(i, _)| i);
        let len = if word > 0 {
            word
        } else {
            rest[..line_end].trim_end().len()
        };
        self.range(start..start + len)
    }

    /// The range of the first line that contains `needle` (else the first line).
    fn line_containing(&self, needle: &str) -> Range {
        let line = self
            .starts
            .iter()
            .position(|&s| {
                let l = &self.text[s..];
                l[..l.find('\n').unwrap_or(l.len())].contains(needle)
            })
            .unwrap_or(0);
        let start = self.starts[line];
        let l = &self.text[start..];
        self.range(start..start + l[..l.find('\n').unwrap_or(l.len())].trim_end().len())
    }
}

/// A diagnostic of autosync with its rule id.
/// A finding a run confirmed is an error, one it did not a warning.
fn severity(replay: &Option<driver::report::Replay>) -> DiagnosticSeverity {
    match driver::report::possible(replay) {
        Some(_) => DiagnosticSeverity::WARNING,
        None => DiagnosticSeverity::ERROR,
    }
}

fn diagnostic(range: Range, severity: DiagnosticSeverity, rule: &str, message: String) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(rule.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        ..Diagnostic::default()
    }
}

/// A span's byte range, clamped to the text (spans made up by a transformation point
/// nowhere: the start of the file).
fn span_range(span: driver::report::Span, text: &str) -> std::ops::Range<usize> {
    let end = span.end.min(text.len());
    span.start.min(end)..end
}

/// The message of a text-report diagnostic: its title, then its notes, one a line.
fn message_of<F>(d: &CsDiagnostic<F>) -> String {
    std::iter::once(d.message.as_str())
        .chain(d.notes.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where a text-report label is for a client: a range of the open document (file 0 of
/// [`output::cs_files`]), or of the header it includes that defines the device code, at
/// the header's own URI. A header without a path a URI can name (the document is an
/// unsaved buffer) falls back to the document's place for the span.
fn label_location(
    src: &Source,
    uri: &Uri,
    index: &LineIndex<'_>,
    file: usize,
    range: std::ops::Range<usize>,
) -> Option<Location> {
    if file == 0 {
        return Some(Location::new(uri.clone(), index.range(range)));
    }
    let h = src.header(u32::try_from(file).ok()?)?;
    let url = url::Url::from_file_path(&h.path).ok()?;
    let header_uri: Uri = url.as_str().parse().ok()?;
    let header_index = LineIndex::new(&h.text, index.enc);
    Some(Location::new(header_uri, header_index.range(range)))
}

/// Related information at the real place of a span (see [`label_location`]).
fn related_at(
    src: &Source,
    uri: &Uri,
    index: &LineIndex<'_>,
    span: driver::report::Span,
    message: String,
) -> DiagnosticRelatedInformation {
    let (file, range) = output::place(src, span);
    let location = label_location(src, uri, index, file, range)
        .unwrap_or_else(|| Location::new(uri.clone(), index.range(span_range(span, &src.text))));
    DiagnosticRelatedInformation { location, message }
}

/// The text report's `labels` as related information, in their order, each at its
/// real place ([`label_location`]); a label whose place has no location there is left
/// out. The one conversion of labels, so divergences and race groups relate alike.
fn related_information<'a>(
    labels: impl IntoIterator<Item = &'a Label<usize>>,
    src: &Source,
    uri: &Uri,
    index: &LineIndex<'_>,
) -> Vec<DiagnosticRelatedInformation> {
    labels
        .into_iter()
        .filter_map(|l| {
            Some(DiagnosticRelatedInformation {
                location: label_location(src, uri, index, l.file_id, l.range.clone())?,
                message: l.message.clone(),
            })
        })
        .collect()
}

/// Where a diagnostic of `span` in kernel `kernel` is underlined in the open document:
/// its real place when that is in the document (the last statement of an inlined
/// function at its own line, not at the call); for code of an included header, the
/// innermost call in the document that reaches it; else the span's place in the document
/// (the `#include` line).
fn document_range(src: &Source, kernel: &str, index: &LineIndex<'_>, span: driver::report::Span) -> Range {
    if let (0, range) = output::place(src, span) {
        return index.range(range);
    }
    let call = driver::report::call_chain(src, kernel, span)
        .into_iter()
        .find_map(|f| match output::place(src, f.site) {
            (0, range) => Some(range),
            _ => None,
        });
    index.range(call.unwrap_or_else(|| span_range(span, &src.text)))
}

/// Related information at the call sites of the inlined calls that reach the code at
/// `spans` in kernel `kernel` ("`g` is called here"), each once, innermost first.
fn call_sites(
    src: &Source,
    kernel: &str,
    uri: &Uri,
    index: &LineIndex<'_>,
    spans: &[driver::report::Span],
) -> Vec<DiagnosticRelatedInformation> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for span in spans {
        for f in driver::report::call_chain(src, kernel, *span) {
            let at = output::place(src, f.site);
            if seen.contains(&at) {
                continue;
            }
            seen.push(at);
            out.push(related_at(
                src,
                uri,
                index,
                f.site,
                format!("`{}` is called here", f.callee),
            ));
        }
    }
    out
}

/// The LSP diagnostics of a checked file: each race (its second access underlined, both
/// accesses as related information) and each divergent barrier (the guard as related
/// information) as errors, each kernel that could not be checked as a warning.
///
/// Device code of an included header is underlined in this document at its `#include`
/// line (where the checked launch comes in), and its real places are related
/// information at the header's URI: a client shows a document's diagnostics from the
/// server that checked it, and the header checked on its own (other instantiations,
/// its own diagnostics) would otherwise get this file's reports mixed into its list.
pub fn check_diagnostics(
    src: &Source,
    results: &[KernelCheck],
    uri: &Uri,
    index: &LineIndex<'_>,
) -> Vec<Diagnostic> {
    let mut out: Vec<(&str, Diagnostic)> = Vec::new();
    for k in results {
        for d in &k.report.divergences {
            let cs = output::divergence_diagnostic(src, &k.name, d);
            let related = related_information(
                cs.labels.iter().filter(|l| l.style == LabelStyle::Secondary),
                src,
                uri,
                index,
            );
            let mut diag = diagnostic(
                document_range(src, &k.name, index, d.span),
                severity(&d.replay),
                rule::BARRIER_DIVERGENCE,
                message_of(&cs),
            );
            diag.related_information = Some(related);
            out.push((&k.name, diag));
        }
        for g in driver::group::groups_or_each(&k.groups, k.report.races.len()) {
            let members: Vec<&driver::report::Race> =
                g.members.iter().filter_map(|i| k.report.races.get(*i)).collect();
            let diag = match members.as_slice() {
                [first, _, ..] if g.barrier.is_some() => {
                    group_diagnostic(src, &k.name, &k.report.races, &g, first, uri, index)
                }
                [r, ..] => Some(race_diagnostic(src, &k.name, r, uri, index)),
                [] => None,
            };
            out.extend(diag.map(|d| (k.name.as_str(), d)));
        }
        if matches!(k.verdict, Verdict::Unsupported | Verdict::Timeout) {
            out.push((&k.name, not_checked(src, k, index)));
        }
    }
    merge_duplicates(out)
}

/// One race as a diagnostic: at its second access, both accesses (and the calls that
/// reach them) as related information.
fn race_diagnostic(
    src: &Source,
    kernel: &str,
    r: &driver::report::Race,
    uri: &Uri,
    index: &LineIndex<'_>,
) -> Diagnostic {
    let cs = output::race_diagnostic(src, kernel, r);
    let (first, second) = output::access_messages(r);
    let rule = if r.fixable {
        rule::DATA_RACE
    } else {
        rule::CROSS_BLOCK_RACE
    };
    let mut diag = diagnostic(
        document_range(src, kernel, index, r.second.span),
        severity(&r.replay),
        rule,
        message_of(&cs),
    );
    let mut related = vec![
        related_at(
            src,
            uri,
            index,
            r.first.span,
            format!(
                "first access ({}): {first}",
                output::at_phrase(src, kernel, r.first.span)
            ),
        ),
        related_at(
            src,
            uri,
            index,
            r.second.span,
            format!(
                "second access ({}): {second}",
                output::at_phrase(src, kernel, r.second.span)
            ),
        ),
    ];
    related.extend(call_sites(
        src,
        kernel,
        uri,
        index,
        &[r.first.span, r.second.span],
    ));
    diag.related_information = Some(related);
    diag
}

/// A group of racing pairs one barrier separates ([`crate::grouped::group_diagnostic`]) as one
/// diagnostic: at the second access of its first pair, with every access, the calls
/// that reach them and the barrier's place as related information; an error when a run
/// confirmed any pair, else a warning.
fn group_diagnostic(
    src: &Source,
    kernel: &str,
    races: &[driver::report::Race],
    g: &driver::group::RaceGroup,
    first: &driver::report::Race,
    uri: &Uri,
    index: &LineIndex<'_>,
) -> Option<Diagnostic> {
    let cs = crate::grouped::group_diagnostic(src, kernel, races, g)?;
    let all_possible = g
        .members
        .iter()
        .filter_map(|i| races.get(*i))
        .all(|r| driver::report::possible(&r.replay).is_some());
    let severity = if all_possible {
        DiagnosticSeverity::WARNING
    } else {
        DiagnosticSeverity::ERROR
    };
    // The accesses first, then the barrier's place (the text report's primary label).
    let of_style = |style| cs.labels.iter().filter(move |l| l.style == style);
    let related = related_information(
        of_style(LabelStyle::Secondary).chain(of_style(LabelStyle::Primary)),
        src,
        uri,
        index,
    );
    let mut diag = diagnostic(
        document_range(src, kernel, index, first.second.span),
        severity,
        rule::DATA_RACE,
        message_of(&cs),
    );
    diag.related_information = Some(related);
    Some(diag)
}

/// One diagnostic per place: reports with the same title, range and related ranges
/// (the instantiations of one template, several access pairs of one statement) are one
/// diagnostic that says how many it stands for.
fn merge_duplicates(diags: Vec<(&str, Diagnostic)>) -> Vec<Diagnostic> {
    let related = |d: &Diagnostic| -> Vec<Range> {
        d.related_information
            .iter()
            .flatten()
            .map(|r| r.location.range)
            .collect()
    };
    let same = |a: &Diagnostic, b: &Diagnostic| {
        a.range == b.range
            && a.code == b.code
            && a.message.lines().next() == b.message.lines().next()
            && related(a) == related(b)
    };
    let mut out: Vec<(Diagnostic, Vec<&str>, usize)> = Vec::new();
    for (kernel, d) in diags {
        match out.iter_mut().find(|(o, _, _)| same(o, &d)) {
            Some((_, kernels, count)) => {
                *count += 1;
                if !kernels.contains(&kernel) {
                    kernels.push(kernel);
                }
            }
            None => out.push((d, vec![kernel], 1)),
        }
    }
    out.into_iter()
        .map(|(mut d, kernels, count)| {
            if let [_, others @ ..] = kernels.as_slice()
                && !others.is_empty()
            {
                let names: Vec<String> = others.iter().map(|k| format!("`{k}`")).collect();
                d.message
                    .push_str(&format!("\nalso in kernel {}", names.join(", ")));
            }
            if count > kernels.len() {
                d.message.push_str(&format!(
                    "\n{count} reports at these places (`autosync check` lists each)"
                ));
            }
            d
        })
        .collect()
}

/// A kernel that could not be checked: at the front end's error for a kernel it could
/// not lower, else at the kernel's header.
fn not_checked(src: &Source, k: &KernelCheck, index: &LineIndex<'_>) -> Diagnostic {
    let range = match src.failed.iter().find(|f| f.name == k.name) {
        Some(f) if f.error.path == src.path.display().to_string() => index.word_at(f.error.line, f.error.col),
        _ => src
            .kernels
            .iter()
            .find(|x| x.name == k.name)
            .filter(|x| x.span != driver::report::Span::NONE)
            .map_or(Range::default(), |x| {
                let r = span_range(x.span, &src.text);
                let header = src.text[r.clone()].find('\n').map_or(r.end, |i| r.start + i);
                index.range(r.start..header)
            }),
    };
    let why = k.error.clone().unwrap_or_default();
    let message = match k.verdict {
        Verdict::Timeout => format!(
            "kernel `{}` could not be checked: {why} (`--solver-budget` raises the solver's limits)",
            k.name
        ),
        _ => format!("kernel `{}` could not be checked (unsupported): {why}", k.name),
    };
    diagnostic(range, DiagnosticSeverity::WARNING, rule::UNSUPPORTED, message)
}

/// A file that could not be loaded or checked at all: at the error when it is in this
/// file, at the `#include` of the file it is in, else at the first line.
pub fn error_diagnostic(path: &std::path::Path, e: &anyhow::Error, index: &LineIndex<'_>) -> Diagnostic {
    let (range, message) = match e.downcast_ref::<InputError>() {
        Some(ie) if ie.path == path.display().to_string() => {
            (index.word_at(ie.line, ie.col), ie.message.clone())
        }
        Some(ie) => {
            let name = std::path::Path::new(&ie.path)
                .file_name()
                .map_or(ie.path.clone(), |n| n.to_string_lossy().into_owned());
            (index.line_containing(&name), ie.to_string())
        }
        None => (index.range(0..0), format!("{e:#}")),
    };
    diagnostic(
        range,
        DiagnosticSeverity::WARNING,
        rule::UNSUPPORTED,
        format!("autosync could not check this file: {message}"),
    )
}

/// `fix`'s edits of `text` as LSP text edits that give exactly the text `fix` writes
/// (`driver::report::apply`'s order: by start, insertions at one place in their order;
/// an edit that starts inside the one before it starts where that one ends).
pub fn text_edits(edits: &[driver::EditInfo], index: &LineIndex<'_>) -> Vec<TextEdit> {
    let mut order: Vec<&driver::report::Edit> = edits.iter().map(|e| &e.edit).collect();
    order.sort_by_key(|e| (e.start, e.end));
    let mut pos = 0;
    let mut out = Vec::with_capacity(order.len());
    for e in order {
        let start = e.start.max(pos);
        let end = e.end.max(start);
        out.push(TextEdit::new(index.range(start..end), e.text.clone()));
        pos = end;
    }
    out
}

/// Applies LSP text edits (non-overlapping, as in one `WorkspaceEdit`) to a text.
pub fn apply(text: &str, edits: &[TextEdit], enc: Encoding) -> String {
    let index = LineIndex::new(text, enc);
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                index.offset(e.range.start),
                index.offset(e.range.end),
                e.new_text.as_str(),
            )
        })
        .collect();
    // Stable: insertions at one place stay in their order.
    spans.sort_by_key(|&(s, e, _)| (s, e));
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (s, e, new) in spans {
        let s = s.max(pos);
        out.push_str(&text[pos..s]);
        out.push_str(new);
        pos = e.max(s);
    }
    out.push_str(&text[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        let text = "a\n\u{b5}x\u{1F600}y\n";
        let u16 = LineIndex::new(text, Encoding::Utf16);
        let y = text.find('y').unwrap_or(0);
        assert_eq!(u16.position(y), Position::new(1, 4));
        assert_eq!(u16.offset(Position::new(1, 4)), y);
        let u8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(u8.position(y), Position::new(1, 7));
        assert_eq!(u8.offset(Position::new(1, 7)), y);
        // Past the end of a line: the line's end; past the last line: the text's end.
        assert_eq!(u16.offset(Position::new(0, 9)), 1);
        assert_eq!(u16.offset(Position::new(9, 0)), text.len());
    }

    #[test]
    fn text_edits_give_what_rewrite_apply_gives() {
        let text = "int a;\nint b;\n";
        let edit = |start, end, text: &str| driver::EditInfo {
            edit: driver::report::Edit {
                start,
                end,
                text: text.to_string(),
                mark: 0,
            },
            what: String::new(),
        };
        // Two insertions at one place, and a replacement.
        let edits = vec![edit(7, 7, "X\n"), edit(7, 7, "Y\n"), edit(0, 3, "long")];
        let raw: Vec<driver::report::Edit> = edits.iter().map(|e| e.edit.clone()).collect();
        let (want, _) = driver::report::apply(text, &raw);
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            let lsp = text_edits(&edits, &LineIndex::new(text, enc));
            assert_eq!(apply(text, &lsp, enc), want);
        }
    }
}
