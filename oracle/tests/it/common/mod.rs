//! Helpers for the verifier tests: parse inline `.kpl`, run an oracle, and summarize
//! reports as plain tuples so assertions are exact and readable.
#![allow(dead_code)]

use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, Report};

/// (array, first line, second line, kind, intra, inter depths, fixable)
pub type RaceRow = (String, u32, u32, String, bool, Vec<usize>, bool);

pub fn kernel(src: &str) -> kpl::Kernel {
    match kpl::parse(src) {
        Ok(mut ks) if !ks.is_empty() => ks.remove(0),
        Ok(_) => panic!("no kernel in source"),
        Err(e) => panic!("parse error: {e}"),
    }
}

pub fn check_with(src: &str, opts: CheckOptions) -> Report {
    let k = kernel(src);
    StaticVerifier::new(opts).check(&k).expect("the verifier answers")
}

/// The options of the tests that pin the race queries' reasoning about indices, written
/// as "every write-write pair of one element races": GPUVerify's benign tolerance off
/// (`verifier_benign.rs` tests the default, which tolerates writes of equal values).
pub fn strict() -> CheckOptions {
    CheckOptions {
        no_benign_tolerance: true,
        ..CheckOptions::default()
    }
}

pub fn check(src: &str) -> Report {
    check_with(src, strict())
}

pub fn races(r: &Report) -> Vec<RaceRow> {
    r.races
        .iter()
        .map(|x| {
            (
                x.array.clone(),
                x.first.span.line,
                x.second.span.line,
                x.kind(),
                x.intra,
                x.inter.clone(),
                x.fixable,
            )
        })
        .collect()
}

pub fn divergences(r: &Report) -> Vec<u32> {
    r.divergences.iter().map(|d| d.span.line).collect()
}

pub fn row(
    array: &str,
    first: u32,
    second: u32,
    kind: &str,
    intra: bool,
    inter: &[usize],
    fixable: bool,
) -> RaceRow {
    (
        array.to_string(),
        first,
        second,
        kind.to_string(),
        intra,
        inter.to_vec(),
        fixable,
    )
}

pub fn launch(block: u32, grid: u32) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([block, 1, 1])),
            grid: kpl::launch::dims(Some([grid, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    }
}

/// Asserts that the static report `stat` covers what the interpreter observed in `dy`:
/// every race (same array, lines and kind; unfixable when the interpreter saw a
/// cross-block race) and every divergent barrier.
pub fn assert_static_covers(stat: &Report, dy: &Report, src: &str) {
    let srows = races(stat);
    for d in races(dy) {
        let covered = srows
            .iter()
            .any(|s| s.0 == d.0 && s.1 == d.1 && s.2 == d.2 && s.3 == d.3 && (d.6 || !s.6));
        assert!(
            covered,
            "the interpreter saw {d:?}, the verifier says {srows:?}\n{src}"
        );
    }
    for l in divergences(dy) {
        assert!(
            divergences(stat).contains(&l),
            "missed divergence at line {l}\n{src}"
        );
    }
}

/// The static report of `src`, after checking that it covers what the interpreter
/// observes ([`assert_static_covers`]; nothing to compare when no run is feasible).
pub fn static_covering_dynamic(src: &str, opts: CheckOptions) -> Report {
    let stat = check_with(src, opts.clone());
    let dy = match oracle::dynamic::Interpreter::new(opts).check(&kernel(src)) {
        Ok(r) => r,
        Err(oracle::OracleError::NoFeasibleRun(_)) => return stat,
        Err(e) => panic!("interpreter: {e}"),
    };
    assert_static_covers(&stat, &dy, src);
    stat
}

/// `n` read/write pairs over a permutation of the threads (`tid ^ 5` in blocks of a
/// multiple of 8, which the affine dependence test leaves to the solver since no range
/// of a bitwise operation of the id is known to it, so that the array is worth
/// screening; with a fixed block the unrolled test decides them, so tests of what the
/// solver does switch it off): in the race-free shape (`shift` 0) reads and writes touch disjoint ranges; with `shift`
/// 1 each read is one element past the write of its pair, which another thread writes.
pub fn permuted(n: usize, shift: bool) -> String {
    let mut body = String::from("  local x;\n");
    for i in 1..=n {
        let read = if shift {
            format!("{i} * bdim + 1")
        } else {
            format!("{} * bdim", n + i)
        };
        body.push_str(&format!("  x = A[(tid ^ 5) + {read}];\n"));
        body.push_str(&format!("  A[(tid ^ 5) + {i} * bdim] = x;\n"));
    }
    format!("kernel k(shared A[]) {{\n{body}}}\n")
}
