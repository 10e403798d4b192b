//! The race queries of a large kernel on two threads (*lanes*).
//!
//! Every pair query is independent of the others but for the solver history it meets
//! and the answers it may reuse, so a kernel's conflicting pairs are split into two
//! lanes: the first lane's are asked on the calling thread, the second's on a thread of
//! its own, each lane with its own summary, Z3 context, incremental solver, budget
//! ([`Limits::check`](super::Limits)), screens and cache of answers (the second lane's
//! is [`Cache::lane`](super::Cache)). Pairs of different arrays never share a query, an
//! answer or a screen, so arrays are split first ([`Split::ByArray`], greedily by the
//! race types of their pairs); when one array has most of the work, its pairs alternate
//! between the lanes instead ([`Split::ByPair`]).
//!
//! The split is a function of the kernel alone ([`split`]), never of the machine, so
//! each lane asks the same queries in the same order on the same solver history
//! whatever the load, and the verdict stays a function of the input and the options. A
//! lane that stops at its first defect (the check's first pass) stops on its own: the
//! other goes on to its own first defect or its end, so what each lane asked never
//! depends on which finished first.
//!
//! Small kernels stay on one thread: a lane costs a thread, a summary of the kernel and,
//! once per kernel, a Z3 context; and a lane's solver, which has not seen the other
//! lane's queries, may need more units for its own.

use std::collections::{HashMap, HashSet};

use kpl::Kernel;

use super::{Cache, PairProgress, RacePhase, StaticVerifier, Z3Session, in_context, invariants, symbolic};
use crate::Report;

/// Race types (summed over the pairs of the arrays) below which a check keeps one lane
/// (the default of [`StaticVerifier::lane_min_types`]).
pub(super) const LANE_MIN_TYPES: usize = 48;

/// Stack of the second lane's thread: the encoder and Z3 recurse on deep terms (as for
/// the threads of the command line, which check files).
const LANE_STACK: usize = 512 << 20;

/// How a kernel's pairs are split between the two lanes.
pub(super) enum Split {
    /// The second lane asks about these arrays, the first about the others.
    ByArray(HashSet<String>),
    /// The work is mostly one array's: the conflicting pairs alternate between the
    /// lanes in the order they are asked (so racing and race-free pairs, which often
    /// come in runs, spread over both). Each lane then screens the array on its own,
    /// when worth it.
    ByPair,
}

impl Split {
    /// Whether the `nth` conflicting pair, of `array`, is the second lane's.
    fn second(&self, array: &str, nth: usize) -> bool {
        match self {
            Split::ByArray(set) => set.contains(array),
            Split::ByPair => nth % 2 == 1,
        }
    }
}

/// Which pairs a race phase asks about.
#[derive(Clone, Copy)]
pub(super) enum Lane<'a> {
    /// All of them: one thread.
    All,
    First(&'a Split),
    Second(&'a Split),
}

impl Lane<'_> {
    /// Whether this lane asks about the `nth` conflicting pair (of `array`), in the
    /// order of [`super::pairs::conflicting_indices`].
    pub(super) fn asks(&self, array: &str, nth: usize) -> bool {
        match self {
            Lane::All => true,
            Lane::First(split) => !split.second(array, nth),
            Lane::Second(split) => split.second(array, nth),
        }
    }
}

/// How to split the kernel's pairs, or `None` when it is asked on one thread (fewer
/// than `min_types` race types). Arrays go, heaviest first (ties by name), to the lane
/// with fewer race types so far; when that leaves the second lane less than a quarter
/// of the work (one array, or one that dominates), pairs are split instead.
pub(super) fn split(progress: &HashMap<&str, PairProgress>, min_types: usize) -> Option<Split> {
    let mut arrays: Vec<(&str, usize)> = progress
        .iter()
        .map(|(a, p)| (*a, p.total))
        .filter(|(_, t)| *t > 0)
        .collect();
    let total: usize = arrays.iter().map(|(_, t)| t).sum();
    if total < min_types.max(2) {
        return None;
    }
    arrays.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let (mut first, mut second) = (0, 0);
    let mut out = HashSet::new();
    for (array, types) in arrays {
        if second < first {
            second += types;
            out.insert(array.to_string());
        } else {
            first += types;
        }
    }
    Some(if 4 * second < total {
        Split::ByPair
    } else {
        Split::ByArray(out)
    })
}

/// Moves the second lane's cache to its thread and back. The cache holds its Z3
/// session through an `Rc` and Z3 objects are not `Send`: nothing else refers to that
/// session or its objects (a lane's Z3 terms live and die on the lane's thread, the
/// cache keeps only plain answers), and the session is used by one thread at a time.
struct Handoff(Box<Cache>);
// SAFETY: see above.
unsafe impl Send for Handoff {}

impl Handoff {
    fn into_inner(self) -> Box<Cache> {
        self.0
    }
}

/// What the second lane needs of the check: the verifier's settings, the loop
/// invariants' verdicts (`None` in a first pass, which assumes none), and which
/// barriers were proved never divergent.
pub(super) struct LaneInput<'k> {
    pub kernel: &'k Kernel,
    pub verifier: Settings,
    pub verdicts: Option<Vec<Vec<invariants::Verdict>>>,
    pub uniform: Vec<bool>,
    pub first_defect: bool,
}

/// A [`StaticVerifier`]'s settings, without its cache (which stays on its thread).
pub(super) struct Settings {
    opts: crate::CheckOptions,
    limits: super::Limits,
    screening: bool,
    dependence_test: bool,
    unrolled_test: bool,
    warp_two_pass: bool,
    lazy_invariants: bool,
    concrete_after: usize,
}

impl Settings {
    pub(super) fn of(v: &StaticVerifier) -> Settings {
        // Every field named, so that a setting added to the verifier cannot be
        // forgotten here (the second lane would silently run without it).
        let StaticVerifier {
            opts,
            limits,
            screening,
            dependence_test,
            unrolled_test,
            warp_two_pass,
            lazy_invariants,
            lane_min_types: _,
            concrete_after,
            cache: _,
        } = v;
        Settings {
            opts: opts.clone(),
            limits: *limits,
            screening: *screening,
            dependence_test: *dependence_test,
            unrolled_test: *unrolled_test,
            warp_two_pass: *warp_two_pass,
            lazy_invariants: *lazy_invariants,
            concrete_after: *concrete_after,
        }
    }

    /// A verifier with these settings and no cache, that asks on its own thread only.
    fn verifier(self) -> StaticVerifier {
        StaticVerifier {
            opts: self.opts,
            limits: self.limits,
            screening: self.screening,
            dependence_test: self.dependence_test,
            unrolled_test: self.unrolled_test,
            warp_two_pass: self.warp_two_pass,
            lazy_invariants: self.lazy_invariants,
            lane_min_types: usize::MAX,
            concrete_after: self.concrete_after,
            cache: None,
        }
    }
}

/// Runs `first` (the first lane, on this thread) while the second lane asks about its
/// pairs of `split` on a thread of its own with the cache `lane`; the second lane's
/// races, benign pairs and notes (after the first lane's) go to `report`, and its cache
/// comes back.
pub(super) fn run_two(
    input: LaneInput,
    split: &Split,
    lane: Box<Cache>,
    report: &mut Report,
    first: impl FnOnce(&mut Report),
) -> Box<Cache> {
    let handoff = Handoff(lane);
    let LaneInput {
        kernel,
        verifier,
        verdicts,
        uniform,
        first_defect,
    } = input;
    // The second lane works for the same run (`crate::interrupt`).
    let token = crate::interrupt::current();
    let (theirs, back) = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .stack_size(LANE_STACK)
            .spawn_scoped(s, move || {
                let mut cache = handoff.into_inner();
                let r = token.run(|| {
                    ask(
                        kernel,
                        verifier.verifier(),
                        verdicts,
                        uniform,
                        first_defect,
                        split,
                        &mut cache,
                    )
                });
                (r, Handoff(cache))
            });
        first(report);
        match worker {
            Ok(h) => match h.join() {
                Ok(out) => out,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(e) => panic!("cannot start the second lane's thread: {e}"),
        }
    });
    report.races.extend(theirs.races);
    report.benign.extend(theirs.benign);
    report.notes.extend(theirs.notes);
    back.into_inner()
}

/// The second lane: its own summary of the kernel (with the invariants' verdicts), its
/// own Z3 session (from `cache`), the race phase over its pairs of `split`.
fn ask(
    kernel: &Kernel,
    verifier: StaticVerifier,
    verdicts: Option<Vec<Vec<invariants::Verdict>>>,
    uniform: Vec<bool>,
    first_defect: bool,
    split: &Split,
    cache: &mut Cache,
) -> Report {
    let mut sum = symbolic::summarize(kernel, &verifier.opts);
    if let Some(v) = &verdicts {
        invariants::apply(&mut sum, v);
    }
    let z3 = cache.z3.clone();
    in_context(&z3.ctx, || {
        let mut checker = verifier.checker(&sum, &z3.solver);
        checker.uniform = uniform;
        let mut report = Report::default();
        let mut races = RacePhase::new(&verifier, &checker, cache, kernel);
        races.first_defect = first_defect;
        races.lane = Lane::Second(split);
        races.run(&mut report);
        races.finish();
        report
    })
}

/// A fresh cache for the second lane of the kernel of `main`.
pub(super) fn fresh(main: &Cache) -> Box<Cache> {
    Box::new(Cache::new(
        main.key.clone(),
        main.facts,
        std::rc::Rc::new(Z3Session::new()),
    ))
}
