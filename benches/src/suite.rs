//! The kernels the harness measures, found on disk.

use std::path::{Path, PathBuf};

/// A benchmark kernel file and the suite it belongs to.
#[derive(Clone, Debug)]
pub struct Entry {
    pub suite: &'static str,
    pub path: PathBuf,
}

/// The suites, as (name, folder relative to the workspace root, file extension).
pub const SUITES: &[(&str, &str, &str)] = &[
    ("examples", "examples", "kpl"),
    ("micro", "micro-benchmarks", "cu"),
    ("realistic", "benches/realistic", "cu"),
];

/// The suites measured when none is named: the paper's Tables I and II.
pub const DEFAULT: &[&str] = &["micro", "realistic"];

/// The workspace root (where `micro-benchmarks/` and `benches/` are).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every benchmark file of the named suites, suite by suite, sorted by name.
pub fn entries(root: &Path, names: &[&str]) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for &(suite, dir, ext) in SUITES.iter().filter(|s| names.contains(&s.0)) {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|path| Entry { suite, path }));
    }
    Ok(out)
}

/// The kernels of a benchmark file and the oracle options its header comment gives
/// (launch sizes, `--warp-sync`): loaded as `autosync check` loads it, with default
/// settings.
pub fn load(path: &Path) -> anyhow::Result<(Vec<kpl::Kernel>, oracle::CheckOptions)> {
    let settings = driver::Settings::default();
    let src = driver::source::load(path, &settings.front_end)?;
    // The harness measures whole files: a kernel the front end cannot lower makes the
    // file a failed row, as before `check` learned to go on with the other kernels.
    if let Some(f) = src.failed.first() {
        anyhow::bail!("kernel `{}`: {}", f.name, f.error);
    }
    let opts = driver::check_options(&settings, &src, &src.given);
    Ok((src.kernels, opts))
}
