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
/// (launch sizes, `--warp-sync`).
pub fn load(path: &Path) -> anyhow::Result<(Vec<kpl::Kernel>, oracle::CheckOptions)> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let kernels = match path.extension().and_then(|x| x.to_str()) {
        Some("cu") => {
            cuda::parse(path, &text, &cuda::Options::default()).map_err(|e| anyhow::anyhow!("{e}"))?
        }
        _ => kpl::parse(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?,
    };
    let header = |e: String| anyhow::anyhow!("{}: {e}", path.display());
    let (block_dim, grid_dim) = kpl::header::header_launch(&text).map_err(header)?;
    let warp_size = kpl::header::header_warp_size(&text).map_err(header)?;
    let opts = oracle::CheckOptions {
        block_dim,
        grid_dim,
        warp_size,
        only_intra_group: kpl::header::header_only_intra_group(&text),
        ..oracle::CheckOptions::default()
    };
    Ok((kernels, opts))
}
