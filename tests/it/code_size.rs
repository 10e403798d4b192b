//! Sizes a reader can take in (issue #29): no source file outside `tests/` folders over
//! 1,200 lines, and no function anywhere in the workspace over 150 lines, from its `fn`
//! line to its closing brace. A file that grows past the limit is cut by job into
//! modules, a function into named steps (see ARCHITECTURE.md).

use std::path::{Path, PathBuf};

use crate::common::root;

const MAX_FILE_LINES: usize = 1200;
const MAX_FN_LINES: usize = 150;

/// The workspace's `.rs` files, without build output.
fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rs_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A line without its string and character literals and its `//` comment, for
/// counting braces.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_str => {
                chars.next();
            }
            '"' => in_str = !in_str,
            '\'' if !in_str => {
                // A char literal (`'{'`, `'\''`); a lifetime has no closing quote soon.
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    chars.nth(2);
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.nth(1);
                }
            }
            '/' if !in_str && chars.peek() == Some(&'/') => break,
            _ if !in_str => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether the line starts a function item (`fn name`, with any qualifiers).
fn starts_fn(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let qualifiers = ["pub", "const", "async", "unsafe", "extern", "default"];
    words.iter().position(|w| *w == "fn").is_some_and(|i| {
        words[..i]
            .iter()
            .all(|w| qualifiers.contains(w) || w.starts_with("pub("))
    })
}

/// The functions of a file longer than the limit, as (first line, length).
fn long_functions(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<String> = text.lines().map(code_of).collect();
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if !starts_fn(l) {
            continue;
        }
        let (mut depth, mut opened) = (0i64, false);
        for (j, m) in lines.iter().enumerate().skip(k) {
            for c in m.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && m.trim_end().ends_with(';') {
                break; // a declaration without a body
            }
            if opened && depth == 0 {
                if j - k + 1 > MAX_FN_LINES {
                    out.push((k + 1, j - k + 1));
                }
                break;
            }
        }
    }
    out
}

fn in_tests_folder(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == "tests")
}

#[test]
fn no_source_file_is_too_long_and_no_function_either() {
    let root = root();
    let mut files = Vec::new();
    rs_files(root, &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read source");
        let rel = f.strip_prefix(root).unwrap_or(f);
        let n = text.lines().count();
        if !in_tests_folder(rel) && n > MAX_FILE_LINES {
            problems.push(format!("{}: {n} lines (at most {MAX_FILE_LINES})", rel.display()));
        }
        for (line, len) in long_functions(&text) {
            problems.push(format!(
                "{}:{line}: a function of {len} lines (at most {MAX_FN_LINES})",
                rel.display()
            ));
        }
    }
    assert!(files.len() > 100, "the walk found the workspace's sources");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_function_measure_counts_to_the_closing_brace() {
    let body = "    let s = \"}\";\n".repeat(MAX_FN_LINES);
    let long = format!("pub(crate) fn f() {{\n{body}}}\nfn g();\n");
    assert_eq!(long_functions(&long), [(1, MAX_FN_LINES + 2)]);
    let short = "fn f() {\n    if x { '}' } else { '{' }\n}\n";
    assert_eq!(long_functions(short), []);
}
