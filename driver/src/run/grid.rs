//! Writing grid barriers (`fix --cooperative`): the statement, consistent with how the
//! file names cooperative groups, and the `#include <cooperative_groups.h>` it needs.

use kpl::rewrite::Edit;

use crate::source::{Lang, Source};

/// The header a grid barrier needs in CUDA.
const INCLUDE: &str = "#include <cooperative_groups.h>";

/// The statement a grid barrier is written as in `src`: `grid_barrier;` in `.kpl`; in
/// CUDA `cg::this_grid().sync();` through the file's own namespace alias of
/// `cooperative_groups` (`namespace cg = cooperative_groups;`), else fully qualified.
pub fn statement(src: &Source) -> String {
    match src.lang {
        Lang::Kpl => "grid_barrier;".to_string(),
        Lang::Cuda => format!("{}::this_grid().sync();", namespace_alias(&src.text)),
    }
}

/// The name the file gives `cooperative_groups` (its first namespace alias of it), or
/// `cooperative_groups` itself.
fn namespace_alias(text: &str) -> String {
    for line in text.lines() {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == '=' || c == ';')
            .filter(|w| !w.is_empty())
            .collect();
        if let [
            "namespace",
            alias,
            "cooperative_groups" | "::cooperative_groups",
            ..,
        ] = words.as_slice()
        {
            return (*alias).to_string();
        }
    }
    "cooperative_groups".to_string()
}

/// The edit adding `#include <cooperative_groups.h>` to a CUDA file that does not
/// include it: after its last `#include` line before the first kernel, else after its
/// leading comment lines (the GPUVerify header stays first). Written with `\n`, as
/// every edit: `rewrite::with_line_ending` adapts them to the file.
pub fn include_edit(src: &Source) -> Option<Edit> {
    let included = src.text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with('#') && t.contains("include") && t.contains("cooperative_groups.h")
    });
    if src.lang != Lang::Cuda || included {
        return None;
    }
    let first_kernel = src.text.find("__global__").unwrap_or(src.text.len());
    let mut after_include = None;
    let mut after_comments = Some(0);
    let mut offset = 0;
    for line in src.text.split_inclusive('\n') {
        let end = offset + line.len();
        let t = line.trim_start();
        if offset < first_kernel && t.starts_with("#include") {
            after_include = Some(end);
        }
        if after_comments == Some(offset) && t.starts_with("//") {
            after_comments = Some(end);
        }
        offset = end;
    }
    let at = after_include.or(after_comments).unwrap_or(0);
    let missing_eol = at > 0 && !src.text[..at].ends_with('\n');
    let text = if missing_eol {
        format!("\n{INCLUDE}\n")
    } else {
        format!("{INCLUDE}\n")
    };
    Some(Edit {
        start: at,
        end: at,
        mark: 0,
        text,
    })
}
