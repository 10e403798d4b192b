//! The files a command works on: the files given, and the `.cu`, `.cuh` and `.kpl` files
//! under the directories given, walked as ripgrep walks them (the `ignore` crate):
//! `.gitignore` (inside a git work tree), `.ignore` and hidden files and folders are
//! skipped unless asked for, `--exclude` globs are skipped too, symbolic links are
//! followed and a link that loops back is skipped with a warning. A file named on the
//! command line is always taken, whatever the filters say.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use ignore::overrides::{Override, OverrideBuilder};

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

/// How directories are walked (`--hidden`, `--no-ignore`, `--exclude`).
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Also enter hidden files and folders (names starting with `.`).
    pub hidden: bool,
    /// Do not read `.gitignore`, `.ignore`, `.git/info/exclude` or the global git ignore.
    pub no_ignore: bool,
    /// Globs of files and folders to skip, in `.gitignore` syntax (`build`, `*.cuh`,
    /// `third_party/**`), matched against the paths below each directory walked.
    pub exclude: Vec<String>,
}

/// The inputs of a command, and what the user should know about the walk (symbolic
/// link loops skipped, directories without any CUDA file) — warnings, not errors.
#[derive(Debug, Default)]
pub struct Expanded {
    pub inputs: Vec<Input>,
    pub notes: Vec<String>,
}

/// Checks an `--exclude` glob (for the command line's parser: a bad glob is a usage
/// error, not a file's).
pub fn parse_exclude(glob: &str) -> Result<String, String> {
    OverrideBuilder::new(".")
        .add(&format!("!{glob}"))
        .map(|_| glob.to_string())
        .map_err(|e| format!("`{glob}` is not a glob: {e}"))
}

/// The `--exclude` globs as an override matcher rooted at `root` (relative globs match
/// below it, as in a `.gitignore` there).
fn excludes(root: &Path, globs: &[String]) -> Result<Override, ignore::Error> {
    let mut b = OverrideBuilder::new(root);
    for g in globs {
        b.add(&format!("!{g}"))?;
    }
    b.build()
}

/// Expands the command-line paths: a file stays as given (its type is checked when it is
/// loaded), a directory becomes the files under it with a wanted extension, in sorted
/// order, walked with `opts`.
pub fn expand(paths: &[PathBuf], opts: &WalkOptions) -> Expanded {
    let mut out = Expanded::default();
    for p in paths {
        if p.is_dir() {
            walk(p, opts, &mut out);
        } else {
            out.inputs.push((p.clone(), None));
        }
    }
    out
}

/// The wanted files under directory `dir`, added to `out`.
fn walk(dir: &Path, opts: &WalkOptions, out: &mut Expanded) {
    let overrides = match excludes(dir, &opts.exclude) {
        Ok(o) => o,
        Err(e) => {
            out.inputs
                .push((dir.to_path_buf(), Some(format!("--exclude: {e}"))));
            return;
        }
    };
    let walker = ignore::WalkBuilder::new(dir)
        .follow_links(true)
        .hidden(!opts.hidden)
        .ignore(!opts.no_ignore)
        .git_ignore(!opts.no_ignore)
        .git_exclude(!opts.no_ignore)
        .git_global(!opts.no_ignore)
        .parents(!opts.no_ignore)
        .overrides(overrides)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let before = out.inputs.len();
    for entry in walker {
        match entry {
            Ok(e) if e.file_type().is_some_and(|t| t.is_file()) && wanted(e.path()) => {
                // `autosync check .` names files `a.cu`, not `./a.cu`.
                let path = e.path().strip_prefix(".").unwrap_or(e.path());
                out.inputs.push((path.to_path_buf(), None));
            }
            Ok(_) => {}
            Err(e) => match symlink_loop(&e) {
                Some((ancestor, child)) => out.notes.push(format!(
                    "autosync: warning: {}: skipped: a symbolic link loop (it leads back to {})",
                    child.strip_prefix(".").unwrap_or(child).display(),
                    ancestor.display()
                )),
                None => {
                    let at = error_path(&e).unwrap_or(dir).to_path_buf();
                    out.inputs
                        .push((at.clone(), Some(format!("cannot read {}: {e}", at.display()))));
                }
            },
        }
    }
    if out.inputs.len() == before {
        out.notes.push(format!(
            "autosync: {}: no CUDA files found (.cu, .cuh, .kpl{})",
            dir.display(),
            skipped_hint(opts)
        ));
    }
}

/// What the walk skipped by default, for the message of a directory with no file found.
fn skipped_hint(opts: &WalkOptions) -> &'static str {
    match (opts.hidden, opts.no_ignore) {
        (false, false) => "; hidden and ignored files are skipped: --hidden, --no-ignore",
        (false, true) => "; hidden files are skipped: --hidden",
        (true, false) => "; ignored files are skipped: --no-ignore",
        (true, true) => "",
    }
}

/// The ancestor and the link of a symbolic link loop, if `e` is one.
fn symlink_loop(e: &ignore::Error) -> Option<(&Path, &Path)> {
    match e {
        ignore::Error::Loop { ancestor, child } => Some((ancestor, child)),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => symlink_loop(err),
        _ => None,
    }
}

/// The path an error of the walk is about, if it names one.
fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}

/// The input's path, or its problem as an error.
pub fn path(input: &Input) -> Result<&Path> {
    match &input.1 {
        None => Ok(&input.0),
        Some(e) => Err(anyhow!("{e}")),
    }
}
