//! The files a command works on: the files given, and the `.cu`, `.cuh` and `.kpl` files
//! under the directories given (recursively, in sorted order).

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

/// Extensions picked up when walking a directory.
pub const EXTENSIONS: [&str; 3] = ["cu", "cuh", "kpl"];

fn wanted(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
}

/// One input: a file to process, or a problem with an argument (reported like a file that
/// failed, without stopping the others).
pub type Input = (PathBuf, Option<String>);

/// Expands the command-line paths: a file stays as given (its type is checked when it is
/// loaded), a directory becomes the files under it with a wanted extension, in sorted
/// order.
pub fn expand(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push((p.clone(), None));
            continue;
        }
        let before = out.len();
        for entry in walkdir::WalkDir::new(p).follow_links(true).sort_by_file_name() {
            match entry {
                Ok(e) if e.file_type().is_file() && wanted(e.path()) => {
                    // `autosync check .` names files `a.cu`, not `./a.cu`.
                    let path = e.path().strip_prefix(".").unwrap_or(e.path());
                    out.push((path.to_path_buf(), None));
                }
                Ok(_) => {}
                Err(e) => {
                    let at = e.path().unwrap_or(p).to_path_buf();
                    out.push((at.clone(), Some(format!("cannot read {}: {e}", at.display()))));
                }
            }
        }
        if out.len() == before {
            out.push((
                p.clone(),
                Some(format!(
                    "{}: no .cu, .cuh or .kpl file in this directory",
                    p.display()
                )),
            ));
        }
    }
    out
}

/// The input's path, or its problem as an error.
pub fn path(input: &Input) -> Result<&Path> {
    match &input.1 {
        None => Ok(&input.0),
        Some(e) => Err(anyhow!("{e}")),
    }
}
