//! The kernels the harness measures, found on disk.

use std::path::{Path, PathBuf};

/// A benchmark kernel file and the suite it belongs to.
#[derive(Clone, Debug)]
pub struct Entry {
    pub suite: &'static str,
    pub path: PathBuf,
}

/// The suites, as (name, folder relative to the workspace root, file extension).
const SUITES: &[(&str, &str, &str)] = &[("examples", "examples", "kpl")];

/// Every benchmark file, suite by suite, sorted by name.
pub fn entries(root: &Path) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for &(suite, dir, ext) in SUITES {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|path| Entry { suite, path }));
    }
    Ok(out)
}
