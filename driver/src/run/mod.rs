//! What `check` and `fix` do to one file, as data (the binary's `output` renders it):
//! the oracle for the file, the kernels selected, then [`check_file`] or
//! [`fix::fix_file`].

pub mod explain;
pub mod fix;
pub mod grid;
mod show;
mod templates;

pub use show::{Stage, show};

use std::time::Instant;

use anyhow::{Result, bail};
use kpl::{Kernel, Launch};
use oracle::{CheckOptions, Oracle, OracleError, Race, Report};

use crate::source::{FailedKernel, Source};
use crate::{OracleKind, Settings};

/// The oracle options for a kernel of `src` checked for `launch` (one of
/// [`Source::launches`], or [`Source::given`]).
pub fn check_options(common: &Settings, src: &Source, launch: &Launch) -> CheckOptions {
    CheckOptions {
        launch: launch.clone(),
        // CUDA under `--wrap` is wrapped per C type by the front end (`Expr::Cast`s) on
        // exact integers; untyped `.kpl` wraps everything at 32 bits unsigned.
        arith: if common.front_end.wrap && src.lang == crate::source::Lang::Kpl {
            kpl::Arith::Wrap32
        } else {
            kpl::Arith::Unbounded
        },
        only_intra_group: src.only_intra_group,
        classify_warps: false,
        race_directions: false,
        no_benign_tolerance: common.no_benign_tolerance,
        wrapping: common.front_end.wrap,
    }
}

/// The oracle of `settings` for the kernels of a file: each kernel it is asked about is
/// checked for its own launch ([`Source::launch_of`]), with `opts` otherwise.
pub fn make_oracle(settings: &Settings, src: &Source, opts: CheckOptions) -> Box<dyn Oracle> {
    Box::new(ByLaunch {
        settings: settings.clone(),
        base: opts,
        launches: src
            .kernels
            .iter()
            .map(|k| k.name.clone())
            .zip(src.launches.iter().cloned())
            .collect(),
        given: src.given.clone(),
        oracles: Vec::new(),
    })
}

/// The oracle of one launch, behind the result cache when there is one.
fn oracle_for(settings: &Settings, opts: CheckOptions) -> Box<dyn Oracle> {
    let Some(cache) = &settings.cache else {
        return plain_oracle(settings, opts);
    };
    let config = oracle_config(settings, &opts);
    let settings = settings.clone();
    Box::new(crate::cache::CachedOracle::new(
        std::sync::Arc::clone(cache),
        &config,
        Box::new(move || plain_oracle(&settings, opts.clone())),
    ))
}

/// The oracle of one launch.
fn plain_oracle(settings: &Settings, opts: CheckOptions) -> Box<dyn Oracle> {
    match settings.oracle {
        OracleKind::Static => Box::new(static_verifier(settings, opts)),
        OracleKind::Dynamic => Box::new(oracle::dynamic::Interpreter::new(opts)),
    }
}

/// What the oracle of `settings` with `opts` is made from, for the result cache's key
/// ([`crate::cache`]): every field of `settings` is named (a new one does not compile
/// until it is put in or left out here), and `opts` is taken whole.
fn oracle_config(settings: &Settings, opts: &CheckOptions) -> (OracleKind, Option<f64>, bool, CheckOptions) {
    let Settings {
        // They make the kernel, which is in the key.
        front_end: _,
        // It selects kernels.
        kernel: _,
        cache: _,
        oracle,
        solver_budget,
        no_benign_tolerance,
    } = settings;
    (*oracle, *solver_budget, *no_benign_tolerance, opts.clone())
}

/// An oracle per launch: the kernels of a file (and the launch contexts of one kernel)
/// may each be launched their own way, and an oracle's options hold one launch. A kernel
/// the file does not have by name (none today: synthesis keeps names) gets the file's
/// given launch.
struct ByLaunch {
    settings: Settings,
    base: CheckOptions,
    launches: Vec<(String, Launch)>,
    given: Launch,
    oracles: Vec<(Launch, Box<dyn Oracle>)>,
}

impl ByLaunch {
    fn oracle(&mut self, kernel: &Kernel) -> &mut dyn Oracle {
        let launch = self
            .launches
            .iter()
            .find(|(n, _)| *n == kernel.name)
            .map_or(&self.given, |(_, l)| l);
        let at = match self.oracles.iter().position(|(l, _)| l == launch) {
            Some(i) => i,
            None => {
                let opts = CheckOptions {
                    launch: launch.clone(),
                    ..self.base.clone()
                };
                self.oracles
                    .push((launch.clone(), oracle_for(&self.settings, opts)));
                self.oracles.len() - 1
            }
        };
        self.oracles[at].1.as_mut()
    }
}

impl Oracle for ByLaunch {
    fn name(&self) -> &'static str {
        match self.settings.oracle {
            OracleKind::Static => "static",
            OracleKind::Dynamic => "dynamic",
        }
    }

    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        self.oracle(kernel).check(kernel)
    }

    fn replay(&mut self, kernel: &Kernel, report: &mut Report) {
        self.oracle(kernel).replay(kernel, report)
    }

    fn uniform_places(
        &mut self,
        kernel: &Kernel,
        tree: &kpl::LabelTree,
        after: &[kpl::Label],
    ) -> Option<Vec<bool>> {
        self.oracle(kernel).uniform_places(kernel, tree, after)
    }
}

/// The static verifier with the solver limits of `settings`.
pub(crate) fn static_verifier(settings: &Settings, opts: CheckOptions) -> oracle::verifier::StaticVerifier {
    let mut v = oracle::verifier::StaticVerifier::new(opts);
    if let Some(factor) = settings.solver_budget {
        v.limits = v.limits.scaled(factor);
    }
    v
}

/// The kernels of a file the command applies to (`--kernel` narrows them).
pub fn selected<'a>(common: &Settings, src: &'a Source) -> Result<Vec<&'a Kernel>> {
    let ks: Vec<&Kernel> = src
        .kernels
        .iter()
        .filter(|k| common.kernel.as_ref().is_none_or(|n| kernel_matches(&k.name, n)))
        .collect();
    if let (Some(name), true) = (
        &common.kernel,
        ks.is_empty() && selected_failed(common, src).is_empty(),
    ) {
        let mut have: Vec<&str> = src.kernels.iter().map(|k| k.name.as_str()).collect();
        have.extend(src.failed.iter().map(|f| f.name.as_str()));
        bail!(
            "{}: no kernel named `{name}` (the file has: {})",
            src.path.display(),
            if have.is_empty() {
                "none".to_string()
            } else {
                have.join(", ")
            }
        );
    }
    Ok(ks)
}

/// The kernels of a file the front end could not lower that the command applies to,
/// each with the number of [`selected`] kernels before it (to report in file order).
pub fn selected_failed<'a>(common: &Settings, src: &'a Source) -> Vec<(usize, &'a FailedKernel)> {
    let wanted = |name: &str| common.kernel.as_ref().is_none_or(|n| kernel_matches(name, n));
    src.failed
        .iter()
        .filter(|f| wanted(&f.name))
        .map(|f| {
            let before = src.kernels[..f.position.min(src.kernels.len())]
                .iter()
                .filter(|k| wanted(&k.name))
                .count();
            (before, f)
        })
        .collect()
}

/// Puts a report for each failed kernel among the others' (`reports` in the order of
/// [`selected`]), in file order.
pub(crate) fn interleave<T>(
    reports: Vec<T>,
    failed: &[(usize, &FailedKernel)],
    report: impl Fn(&FailedKernel) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(reports.len() + failed.len());
    let mut failed = failed.iter().peekable();
    for (i, r) in reports.into_iter().enumerate() {
        while let Some((_, f)) = failed.next_if(|(before, _)| *before <= i) {
            out.push(report(f));
        }
        out.push(r);
    }
    out.extend(failed.map(|(_, f)| report(f)));
    out
}

/// The report of a kernel the front end could not lower: `unsupported`, with the error.
fn failed_check(f: &FailedKernel) -> KernelCheck {
    KernelCheck {
        name: f.name.clone(),
        verdict: Verdict::Unsupported,
        report: Report::default(),
        error: Some(f.error.to_string()),
        time_ms: 0.0,
        groups: Vec::new(),
    }
}

/// `--kernel reduce5` selects every instantiation of a template kernel
/// (`reduce5<int,256>`), `--kernel 'reduce5<int,256>'` just that one.
/// `--kernel k` selects `k`, the instantiations `k<32>` and the launch contexts `k#2`
/// (and `--kernel k<32>` that instantiation's contexts).
fn kernel_matches(name: &str, wanted: &str) -> bool {
    let context = name.split('#').next();
    name == wanted || context == Some(wanted) || name.split(['<', '#']).next() == Some(wanted)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    Race,
    Divergence,
    Unsupported,
    Timeout,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Race => "race",
            Verdict::Divergence => "divergence",
            Verdict::Unsupported => "unsupported",
            Verdict::Timeout => "timeout",
        }
    }
}

pub struct KernelCheck {
    pub name: String,
    pub verdict: Verdict,
    pub report: Report,
    /// Why the oracle could not answer (unsupported, timeout).
    pub error: Option<String>,
    pub time_ms: f64,
    /// The races of `report` grouped by the barrier that separates them
    /// ([`crate::group`]): every race in exactly one group.
    pub groups: Vec<crate::group::RaceGroup>,
}

/// Checks one kernel; `notes` are the front end's notes about it.
pub fn check_kernel(oracle: &mut dyn Oracle, k: &Kernel, notes: &[String]) -> KernelCheck {
    let start = Instant::now();
    let result = oracle.check(k);
    let time_ms = start.elapsed().as_secs_f64() * 1e3;
    let (verdict, report, error) = match result {
        Ok(r) if !r.divergences.is_empty() => (Verdict::Divergence, r, None),
        Ok(r) if !r.races.is_empty() => (Verdict::Race, r, None),
        Ok(r) => (Verdict::Verified, r, None),
        Err(e @ OracleError::Timeout(_)) => (Verdict::Timeout, Report::default(), Some(e.to_string())),
        Err(e) => (Verdict::Unsupported, Report::default(), Some(e.to_string())),
    };
    let mut report = report;
    oracle.replay(k, &mut report);
    report.notes.splice(0..0, notes.iter().cloned());
    let (races, origins) = merge_same_places(std::mem::take(&mut report.races));
    report.races = races;
    let groups = crate::group::group_races(k, &report.races, &origins);
    KernelCheck {
        name: k.name.clone(),
        verdict,
        report,
        error,
        time_ms,
        groups,
    }
}

/// Races at the same places (array, both accesses' spans and kinds) told once: the front
/// end may lower one access of the source to several statements (an asynchronous copy's
/// accesses, repeated in every barrier interval the copy spans), one race to the user.
/// The merged race has what any of them has: every depth it happens across iterations
/// at, within one iteration if any does, unfixable or not warp-local if any is; a depth
/// is forward-only when it is for every race that has it in the same program order (none
/// once a pair in the other order is merged in). With each merged race, the races it
/// stands for (a barrier that groups it must separate each of them, [`crate::group`]).
fn merge_same_places(races: Vec<Race>) -> (Vec<Race>, Vec<Vec<Race>>) {
    let mut out: Vec<Race> = Vec::new();
    let mut origins: Vec<Vec<Race>> = Vec::new();
    for r in races {
        let place = |a: &oracle::Access| (a.span, a.kind);
        let in_order = |o: &Race| (place(&o.first), place(&o.second)) == (place(&r.first), place(&r.second));
        let swapped = |o: &Race| (place(&o.first), place(&o.second)) == (place(&r.second), place(&r.first));
        let Some(at) = out
            .iter()
            .position(|o| o.array == r.array && (in_order(o) || swapped(o)))
        else {
            origins.push(vec![r.clone()]);
            out.push(r);
            continue;
        };
        origins[at].push(r.clone());
        let o = &mut out[at];
        if swapped(o) {
            // Program order is the other way round: no direction is known to be safe.
            o.forward_only.clear();
        } else {
            let forward = |d: &usize, x: &Race| !x.inter.contains(d) || x.forward_only.contains(d);
            let mut forward_only: Vec<usize> = o
                .forward_only
                .iter()
                .chain(&r.forward_only)
                .copied()
                .filter(|d| forward(d, o) && forward(d, &r))
                .collect();
            forward_only.sort_unstable();
            forward_only.dedup();
            o.forward_only = forward_only;
        }
        o.intra |= r.intra;
        o.inter.extend(r.inter.iter().copied());
        o.inter.sort_unstable();
        o.inter.dedup();
        o.fixable &= r.fixable;
        o.warp_local &= r.warp_local;
        // Told as confirmed when a run showed any of them, with that run's instance.
        let confirmed = |x: &Race| x.replay.as_ref().is_some_and(|p| p.confirmed);
        if confirmed(&r) && !confirmed(o) {
            o.witness = r.witness;
            o.replay = r.replay;
        } else {
            o.witness = o.witness.take().or(r.witness);
        }
    }
    (out, origins)
}

/// Checks the selected kernels of a file, each with its own verdict (a kernel the oracle
/// cannot handle is `unsupported`; the others are still checked).
pub fn check_file(settings: &Settings, src: &Source) -> Result<Vec<KernelCheck>> {
    Ok(check_file_while(settings, src, &|| true)?.unwrap_or_default())
}

/// [`check_file`] that stops before each kernel once `keep_going` says no (`None` then):
/// the editor server's way to drop a check that a newer text made stale.
///
/// A check whose run is cancelled ([`crate::interrupt`]) before it returns is the error
/// [`crate::Interrupted`], whatever its kernels found (a kernel the solver was
/// interrupted in would read as racy).
pub fn check_file_while(
    settings: &Settings,
    src: &Source,
    keep_going: &dyn Fn() -> bool,
) -> Result<Option<Vec<KernelCheck>>> {
    let mut oracle = make_oracle(settings, src, check_options(settings, src, &src.given));
    let mut checked = Vec::new();
    for k in selected(settings, src)? {
        crate::stop_if_interrupted()?;
        if !keep_going() {
            return Ok(None);
        }
        let mut c = check_kernel(oracle.as_mut(), k, src.notes_of(&k.name));
        src.user_names(&k.name, &mut c.report);
        checked.push(c);
    }
    crate::unless_interrupted(Ok(Some(interleave(
        checked,
        &selected_failed(settings, src),
        failed_check,
    ))))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use super::*;
    use crate::source::{FrontEnd, Lang, from_text};

    const TWO: &str = "kernel first(shared A[]) {\n    local x;\n    x = A[tid + 1];\n    A[tid] = x;\n}\n\
                       kernel second(shared B[]) {\n    B[tid] = 1;\n}\n";

    #[test]
    fn text_that_is_not_on_disk_is_checked_like_a_file() {
        let src = from_text(
            Path::new("not/on/disk.kpl"),
            TWO.to_string(),
            Lang::Kpl,
            &FrontEnd::default(),
        )
        .expect("parses");
        let all = check_file(&Settings::default(), &src).expect("checks");
        let verdicts: Vec<Verdict> = all.iter().map(|k| k.verdict).collect();
        assert_eq!(verdicts, [Verdict::Race, Verdict::Verified]);
    }

    #[test]
    fn a_check_stops_before_the_next_kernel_when_told() {
        let src = from_text(
            Path::new("two.kpl"),
            TWO.to_string(),
            Lang::Kpl,
            &FrontEnd::default(),
        )
        .expect("parses");
        let asked = Cell::new(0);
        let once = || {
            asked.set(asked.get() + 1);
            asked.get() == 1
        };
        assert!(
            check_file_while(&Settings::default(), &src, &once)
                .expect("checks")
                .is_none()
        );
        assert_eq!(asked.get(), 2, "asked before each kernel");
        let all = check_file_while(&Settings::default(), &src, &|| true).expect("checks");
        assert_eq!(all.map(|v| v.len()), Some(2));
    }
}
