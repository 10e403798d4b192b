//! The harness on the micro-benchmarks (the paper's Table I): every kernel gets exactly
//! the `m` barriers of its name `n-m-description`, and both the AutoSync and the naive
//! result verify. The realistic suite (Table II) must at least load: every file parses,
//! carries a launch header and is one of the paper's benchmarks.

use autosync_benches::harness::{self, Which};
use autosync_benches::suite;

#[test]
fn micro_suite_exact_barriers_and_verified() {
    let entries = suite::entries(&suite::root(), &["micro"]).expect("micro-benchmarks/ is readable");
    assert_eq!(entries.len(), 8, "the paper's eight micro-benchmarks");
    let rows = harness::measure_all(&entries, Which::Static);
    assert_eq!(rows.len(), 8);
    for r in &rows {
        let m: usize = r
            .name
            .split('-')
            .nth(1)
            .and_then(|m| m.parse().ok())
            .expect("n-m-name");
        let naive = r.naive.as_ref().expect("naive ran");
        let auto = r.autosync.as_ref().expect("AutoSync ran");
        assert_eq!(
            auto.barriers,
            Some(m),
            "{}: AutoSync barriers ({:?})",
            r.name,
            r.failure()
        );
        assert_eq!(r.barriers_original, Some(m), "{}: barriers in the file", r.name);
        assert!(
            auto.verified,
            "{}: AutoSync result verifies ({:?})",
            r.name,
            r.failure()
        );
        assert!(
            naive.verified,
            "{}: naive result verifies ({:?})",
            r.name,
            r.failure()
        );
        assert!(
            auto.oracle_calls < naive.oracle_calls,
            "{}: AutoSync {} vs naive {} oracle calls",
            r.name,
            auto.oracle_calls,
            naive.oracle_calls
        );
        let json = r.json();
        for field in [
            "suite",
            "name",
            "loc",
            "oracle_calls_naive",
            "oracle_calls_autosync",
            "barriers_original",
            "barriers_naive",
            "barriers_autosync",
            "cost_original",
            "cost_autosync",
            "time_ms_naive",
            "time_ms_autosync",
            "verified_naive",
            "verified_autosync",
        ] {
            assert!(json.get(field).is_some(), "{}: JSON field {field}", r.name);
        }
        assert_eq!(json["barriers_autosync"], m);
    }
}

#[test]
fn realistic_suite_parses() {
    let entries = suite::entries(&suite::root(), &["realistic"]).expect("benches/realistic/ is readable");
    assert_eq!(entries.len(), 18, "one file per kernel of the paper's Table II");
    for e in &entries {
        let (kernels, launch) =
            suite::load(&e.path).unwrap_or_else(|err| panic!("{}: {err}", e.path.display()));
        assert_eq!(kernels.len(), 1, "{}: one kernel per file", e.path.display());
        assert!(
            launch.launch.block_dim().is_some() && launch.launch.grid_dim().is_some(),
            "{}: launch header",
            e.path.display()
        );
        let stem = e.path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        assert!(
            harness::paper_barriers("realistic", stem).is_some(),
            "{stem}: a Table II benchmark"
        );
        assert!(
            kernels[0].barrier_count() >= 1,
            "{stem}: the SDK's barriers are in the file"
        );
    }
}

#[test]
fn a_file_that_does_not_load_is_a_row() {
    let dir = std::env::temp_dir().join(format!("autosync-benches-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.cu");
    std::fs::write(
        &path,
        "__global__ void k(int *a) { again: a[0] = 1; goto again; }\n",
    )
    .expect("write");
    let rows = harness::measure(
        &suite::Entry {
            suite: "realistic",
            path,
        },
        Which::Static,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(rows.len(), 1);
    assert!(!rows[0].ok());
    assert!(
        rows[0].failure().is_some_and(|f| f.contains("front end")),
        "{:?}",
        rows[0].failure()
    );
}
