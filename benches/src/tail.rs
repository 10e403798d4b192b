//! The tail of `check` times (issue #15): one `check` per file, as `autosync check FILE`
//! does it with default settings (load, translate, verify every kernel with a fresh
//! static verifier), over the corpus (`tests/corpus/`), the realistic suite and the
//! micro-benchmarks, files one after the other. Reported as p50/p90/p99/max per group
//! and overall, with the slowest files, so a slow shape shows up in every run of the
//! harness.

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The groups measured, as (name, folder relative to the workspace root, recursive).
pub const GROUPS: &[(&str, &str, bool)] = &[
    ("corpus", "tests/corpus", true),
    ("realistic", "benches/realistic", false),
    ("micro", "micro-benchmarks", false),
];

/// One file's `check`.
#[derive(Clone, Debug)]
pub struct Timing {
    pub group: &'static str,
    /// Relative to the workspace root.
    pub file: String,
    pub ms: f64,
    /// `verified`, `race`, `divergence` (the worst of its kernels), or `error`.
    pub verdict: &'static str,
}

fn cu_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if recursive {
                cu_files(&p, recursive, out);
            }
        } else if p.extension().is_some_and(|x| x == "cu") {
            out.push(p);
        }
    }
}

/// Every file of the groups, group by group, sorted by path.
pub fn files(root: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    for &(group, dir, recursive) in GROUPS {
        let mut files = Vec::new();
        cu_files(&root.join(dir), recursive, &mut files);
        out.extend(files.into_iter().map(|p| (group, p)));
    }
    out
}

/// Times one `check` of `path` (default settings and the file's header).
pub fn check_once(path: &Path) -> (f64, &'static str) {
    let settings = driver::Settings::default();
    let start = Instant::now();
    let verdict = match driver::source::load(path, &settings.front_end)
        .and_then(|src| driver::check_file(&settings, &src))
    {
        Ok(checks) => {
            use driver::Verdict;
            let worst = |v: Verdict| checks.iter().any(|c| c.verdict == v);
            if worst(Verdict::Unsupported) || worst(Verdict::Timeout) {
                "error"
            } else if worst(Verdict::Divergence) {
                "divergence"
            } else if worst(Verdict::Race) {
                "race"
            } else {
                "verified"
            }
        }
        Err(_) => "error",
    };
    (start.elapsed().as_secs_f64() * 1e3, verdict)
}

/// Times every file once.
pub fn measure(root: &Path) -> Vec<Timing> {
    files(root)
        .into_iter()
        .map(|(group, path)| {
            let (ms, verdict) = check_once(&path);
            let file = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            Timing {
                group,
                file,
                ms,
                verdict,
            }
        })
        .collect()
}

/// The `p`-th percentile (nearest rank) of `sorted`, which is sorted ascending.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// p50, p90, p99 and max of `ms`.
pub fn quantiles(ms: &[f64]) -> [f64; 4] {
    let mut v = ms.to_vec();
    v.sort_by(f64::total_cmp);
    [
        percentile(&v, 50.0),
        percentile(&v, 90.0),
        percentile(&v, 99.0),
        v.last().copied().unwrap_or(0.0),
    ]
}

/// The markdown section: quantiles per group and overall, then the slowest files.
pub fn table(rows: &[Timing], slowest: usize) -> String {
    let mut out = String::new();
    out.push_str("| files | n | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|\n");
    let mut groups: Vec<&str> = GROUPS.iter().map(|g| g.0).collect();
    groups.push("all");
    for g in groups {
        let ms: Vec<f64> = rows
            .iter()
            .filter(|r| g == "all" || r.group == g)
            .map(|r| r.ms)
            .collect();
        if ms.is_empty() {
            continue;
        }
        let [p50, p90, p99, max] = quantiles(&ms);
        out.push_str(&format!(
            "| {g} | {} | {p50:.0} | {p90:.0} | {p99:.0} | {max:.0} |\n",
            ms.len()
        ));
    }
    let mut by_time: Vec<&Timing> = rows.iter().collect();
    by_time.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    out.push_str("\n| slowest files | verdict | ms |\n|---|---|---:|\n");
    for r in by_time.into_iter().take(slowest) {
        out.push_str(&format!("| {} | {} | {:.0} |\n", r.file, r.verdict, r.ms));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantiles(&v), [50.0, 90.0, 99.0, 100.0]);
        assert_eq!(quantiles(&[3.0, 1.0, 2.0]), [2.0, 3.0, 3.0, 3.0]);
        assert_eq!(quantiles(&[]), [0.0; 4]);
    }
}
