//! `fix --format github`: the barrier changes as GitHub pull-request review comments with
//! ```` ```suggestion ```` blocks, in the shape of the REST API's "create a review
//! comment" (`path`, `line`, `side`, `start_line`/`start_side` for several lines, `body`).
//!
//! Each suggestion replaces whole lines of the original file. Edits that touch the same
//! lines are merged into one suggestion (GitHub suggestions must not overlap), so
//! applying every suggestion to the original gives exactly the file `fix` writes.

use serde_json::{Value, json};

use driver::EditInfo;

/// Byte offset where the 1-based `line` starts.
fn line_start(text: &str, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(line as usize - 2)
        .map_or(text.len(), |(i, _)| i + 1)
}

/// The lines (first, last; 1-based, inclusive) of `text` an edit replaces or extends.
fn lines_of(text: &str, e: &driver::report::Edit) -> (u32, u32) {
    let line = |o: usize| driver::report::line_at(text, o);
    if e.start == e.end {
        // An insertion at the start of a line extends the line before it (an insertion
        // "after line N" suggests line N plus the new line).
        if e.start > 0 && text.as_bytes()[e.start - 1] == b'\n' {
            let l = line(e.start - 1);
            (l, l)
        } else {
            let l = line(e.start);
            (l, l)
        }
    } else {
        (line(e.start), line(e.end - 1))
    }
}

/// Review comments for the edits of one file. `path` is the file as the repository
/// names it.
pub fn suggestions(path: &str, text: &str, edits: &[EditInfo]) -> Vec<Value> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].edit.start, edits[i].edit.end));
    // Groups of edits whose line ranges overlap.
    let mut groups: Vec<((u32, u32), Vec<usize>)> = Vec::new();
    for i in order {
        let (a, b) = lines_of(text, &edits[i].edit);
        match groups.last_mut() {
            Some(((_, end), members)) if a <= *end => {
                *end = (*end).max(b);
                members.push(i);
            }
            _ => groups.push(((a, b), vec![i])),
        }
    }
    groups
        .into_iter()
        .map(|((a, b), members)| {
            let from = line_start(text, a);
            let to = line_start(text, b + 1);
            let local: Vec<driver::report::Edit> = members
                .iter()
                .map(|&i| {
                    let e = &edits[i].edit;
                    driver::report::Edit {
                        start: e.start.max(from) - from,
                        end: e.end.min(to).max(e.start.max(from)) - from,
                        text: e.text.clone(),
                        mark: e.mark,
                    }
                })
                .collect();
            let (mut replacement, _) = driver::report::apply(&text[from..to], &local);
            if !replacement.is_empty() && !replacement.ends_with('\n') {
                replacement.push('\n');
            }
            let mut what: Vec<&str> = members
                .iter()
                .map(|&i| edits[i].what.as_str())
                .filter(|w| !w.is_empty())
                .collect();
            what.dedup();
            let body = format!(
                "**autosync**: {}\n\n```suggestion\n{replacement}```\n",
                what.join(" ")
            );
            let mut c = json!({"path": path, "line": b, "side": "RIGHT", "body": body});
            if a < b {
                c["start_line"] = json!(a);
                c["start_side"] = json!("RIGHT");
            }
            c
        })
        .collect()
}

/// The path a repository (and a review comment) names a file by: relative to the git
/// work tree around the current directory (SARIF's `%SRCROOT%`), with `/` separators;
/// a file outside it keeps the path it was given.
pub fn repo_path(path: &std::path::Path) -> String {
    let abs = crate::sarif::absolute(path);
    let rel = abs
        .strip_prefix(crate::sarif::src_root())
        .map_or_else(|_| path.to_path_buf(), std::path::Path::to_path_buf);
    rel.to_string_lossy()
        .replace('\\', "/")
        .trim_start_matches("./")
        .to_string()
}
