//! Algorithm 1 of the AutoSync paper on Z3's Optimize (νZ MaxSAT).
//!
//! `L_ℓ` says "a barrier after ℓ"; a soft constraint `¬L_ℓ` with weight `C(ℓ)` makes
//! the cheapest placement the optimum. Each race location contributes guarded placement
//! constraints over its option variables `P^0 … P^d`; the refinement loop asks the
//! oracle about each optimum and either excludes a diverging block or blocks the race's
//! current `P` assignment, until the oracle finds nothing or the constraints are UNSAT.
//!
//! One extension, on by default (`SynthOptions::use_race_types`): when the oracle says a
//! race happens within one iteration, `P^0` is asserted (no placement without an
//! intra-iteration barrier can remove an observed intra-iteration race), and when it says
//! the race happens across iterations, at least one inter-iteration `P^j` is asserted.
//! Both only cut placements that would be refuted anyway; they save oracle calls.
//!
//! With `SynthOptions::warp_barriers`, each candidate also gets `W_ℓ` ("a warp barrier
//! after ℓ", soft `¬W_ℓ` of weight `C(ℓ) · warp_cost`, never together with `L_ℓ`), and
//! each race location a flag `V` ("a warp barrier may realise its options"), false
//! unless the oracle says the race is warp-local: option `j` then reads
//! `P^j → ⋁ L_ℓ ∨ (V ∧ ⋁ W_ℓ)`. A location reported again as not warp-local gets `¬V`
//! (instead of losing its `P` assignment); a divergent warp barrier excludes `W` and `L`
//! in its block, a divergent block barrier only `L`.
//!
//! With `SynthOptions::grid_barriers` (`fix --cooperative`), each candidate also gets
//! `G_ℓ` ("a grid barrier after ℓ", soft `¬G_ℓ` of weight `C(ℓ) · grid_cost`, never
//! together with `L_ℓ` or `W_ℓ`). A grid barrier orders everything a block barrier
//! does, so it realises every option: `P^j → ⋁ L_ℓ ∨ … ∨ ⋁ G_ℓ`; a race between
//! threads of different blocks (`Race::fixable` false) only by grid barriers:
//! `P^j → ⋁ G_ℓ`. The grid cost keeps block barriers wherever they suffice. A grid
//! barrier that diverges (across blocks) excludes `G` in its block; a divergent block
//! or warp barrier excludes `G` there too (threads of one block disagree).
//!
//! A statement that races with itself within one iteration (`kept[slot] = v` with a slot
//! from an atomic counter that is not yet known to be set up) is not given up on while
//! other races or divergences remain: fixing those can remove it (a barrier after the
//! counter's set-up makes the slots distinct). The synthesis gives up when only such
//! races are left.
//!
//! Beyond the paper (`SynthOptions::uniform_regions`, on by default, not with warp
//! barriers): the paper's options are label intervals, which step over the inside of a
//! conditional or loop lying between the two accesses, so a cheaper barrier inside
//! `if (bid == 0) { … }` (run by one block) or `if (i < 10) { … }` is never tried. Before
//! the first round the oracle's uniformity analysis (`Oracle::uniform_places`: no solver,
//! the verifier's grid/block/thread classes) names the places inside blocks where a
//! barrier would be block-uniform; blocks nested in an option's interval with such places
//! are the option's *regions* ([`crate::regions`]). A race location with no region in any
//! option keeps the paper's encoding above unchanged (so kernels without such blocks
//! synthesize exactly as before). A race location with regions is encoded by *coverage*
//! instead ([`CoverRace`]): a barrier in a region orders the pair only on the paths that
//! enter it, so
//!
//! - each racing type (intra, across iterations of common loop `j`) must be *touched*:
//!   some label of its option interval or of one of its regions has a barrier (without
//!   race types: some option is touched);
//! - when the oracle still reports the race for placement `M`, the coverage of every type
//!   it still reports must grow: a label of the option's interval if `M` has none, or a
//!   place in a region where `M` has no barrier (if `M` already has an interval label,
//!   any label of the option or its regions `M` lacks).
//!
//! There are no `P` variables nor the paper's mutual exclusion of inter-iteration options
//! for such a race: "a deeper inter-iteration barrier subsumes a shallower one" holds for
//! interval labels, not for a barrier that runs on some paths only. The clause only
//! excludes placements whose barriers, class by class (an option's interval labels, one
//! region's places), are among `M`'s on a type `M` leaves racing: by monotonicity
//! (barriers only remove races) they leave that race too, so the optimum is never cut
//! (up to the paper's own assumption that the labels of one class are interchangeable,
//! which a uniform `break` or `return` between them can falsify). Each clause excludes
//! `M` itself, so the loop terminates; the oracle checks every placement, divergence
//! included. The module doc of [`crate::regions`] gives the details.
//!
//! With `SynthOptions::loop_instances` (on by default, with uniform regions), the
//! uniform places inside a loop around one of the two accesses only (*loop-instance
//! places*: a barrier there orders the accesses of every iteration but the first or the
//! last) are coverage classes of their own in every option, so a race location with such
//! a loop is encoded by coverage too; and a race the oracle proved to happen across
//! iterations only with the first access in the earlier one (`Race::forward_only`, asked
//! with `CheckOptions::race_directions`) counts option 0 among the options that may order
//! it, in both encodings (`P^0` joins the inter-iteration clause of the paper's
//! encoding, whose `P` refinement stays complete: a barrier between the accesses does
//! order such a race).

use std::collections::{BTreeMap, BTreeSet};

use kpl::{Kernel, Label, LabelTree, NodeKind};
use oracle::{Oracle, Race};
use z3::ast::Bool;
use z3::{Optimize, SatResult};

use crate::explain::Trace;
use crate::placement::{RaceOptions, race_options};
use crate::regions::{self, CoverRace};
use crate::{
    NoSolution, Outcome, Run, Stats, SynthError, SynthOptions, Synthesis, diverging_existing, unfixable,
};

/// Weights are given to Z3 as integers: costs are scaled by this factor and rounded, so
/// costs that differ by less than 1e-6 are treated as equal.
const WEIGHT_SCALE: f64 = 1e6;

/// Among placements of equal cost, prefer barriers earlier in program order, so the
/// answer does not depend on the solver's whims (the top of a loop body over its end,
/// right after a read over right before the write). Each weight unit is split into
/// `TIE_BREAK` parts and a label adds its rank (< `TIE_BREAK / 64`), so the tie-break
/// can never outweigh a real cost difference for placements of fewer than 64 barriers.
const TIE_BREAK: u128 = 1 << 24;

/// The constraint system of one synthesis (`S` in Algorithm 1).
struct Encoding<'t> {
    tree: &'t LabelTree,
    opt: Optimize,
    /// `L_ℓ` for every candidate label.
    l: BTreeMap<Label, Bool>,
    /// `W_ℓ` for every candidate label (empty without `SynthOptions::warp_barriers`).
    w: BTreeMap<Label, Bool>,
    /// `G_ℓ` for every candidate label (empty without `SynthOptions::grid_barriers`).
    g: BTreeMap<Label, Bool>,
    /// `P^0 … P^d` per race location, keyed by its labels in text order.
    races: BTreeMap<(Label, Label), (RaceOptions, Vec<Bool>)>,
    /// Per race location, `V`: warp barriers may realise its options, and whether `¬V`
    /// was asserted already (warp barrier mode only).
    warp_ok: BTreeMap<(Label, Label), (Bool, bool)>,
    /// Blocks excluded because a barrier in them diverged.
    excluded: Vec<Label>,
    /// Candidates inside blocks whose barrier is block-uniform by the oracle's analysis
    /// (`None`: no places inside uniform conditionals and loops are added, the paper's
    /// candidates only; see [`crate::regions`]).
    uniform: Option<BTreeSet<Label>>,
    /// Race locations with places in uniform regions, encoded by coverage instead of `P`.
    covers: BTreeMap<(Label, Label), CoverRace>,
    /// `SynthOptions::loop_instances`.
    loop_instances: bool,
    /// What `--explain` reports (recorded only, never read by the algorithm).
    trace: Trace,
}

impl<'t> Encoding<'t> {
    fn new(tree: &'t LabelTree, opts: &SynthOptions) -> Self {
        let opt = Optimize::new();
        let mut l = BTreeMap::new();
        let candidates = tree.candidates();
        let rank_unit = (TIE_BREAK / 64 / (candidates.len() as u128 + 1)).max(1);
        let mut warp = BTreeMap::new();
        let mut grid = BTreeMap::new();
        for (rank, &c) in candidates.iter().enumerate() {
            let v = Bool::new_const(format!("L{}", c.0));
            let cost = opts.cost.cost(tree, c);
            let weight = |cost: f64| {
                let w = (cost * WEIGHT_SCALE).round().clamp(1.0, 1e30) as u128;
                w * TIE_BREAK + rank as u128 * rank_unit
            };
            opt.assert_soft(&v.not(), weight(cost), None);
            if opts.warp_barriers {
                let wv = Bool::new_const(format!("W{}", c.0));
                opt.assert_soft(&wv.not(), weight(cost * opts.warp_cost), None);
                opt.assert(Bool::and(&[v.clone(), wv.clone()]).not());
                warp.insert(c, wv);
            }
            if opts.grid_barriers {
                let gv = Bool::new_const(format!("G{}", c.0));
                opt.assert_soft(
                    &gv.not(),
                    weight(opts.cost.grid_cost(tree, c, opts.grid_cost)),
                    None,
                );
                opt.assert(Bool::and(&[v.clone(), gv.clone()]).not());
                if let Some(wv) = warp.get(&c) {
                    opt.assert(Bool::and(&[wv.clone(), gv.clone()]).not());
                }
                grid.insert(c, gv);
            }
            l.insert(c, v);
        }
        Encoding {
            tree,
            opt,
            l,
            w: warp,
            g: grid,
            races: BTreeMap::new(),
            warp_ok: BTreeMap::new(),
            excluded: Vec::new(),
            uniform: None,
            covers: BTreeMap::new(),
            loop_instances: opts.loop_instances,
            trace: Trace::default(),
        }
    }

    fn any_barrier(&self, labels: &[Label]) -> Bool {
        let vs: Vec<Bool> = labels.iter().filter_map(|x| self.l.get(x).cloned()).collect();
        Bool::or(&vs)
    }

    /// Lines 6–12 of Algorithm 1 for one race location.
    fn add_race(&mut self, key: (Label, Label), race: &Race, use_types: bool) {
        let ro = race_options(self.tree, key.0, key.1);
        if let Some(cover) = self
            .uniform
            .as_ref()
            .and_then(|u| CoverRace::new(self.tree, &ro, u, self.loop_instances))
        {
            return self.add_cover_race(key, &ro, cover, race, use_types);
        }
        let n = self.races.len();
        let p: Vec<Bool> = (0..=ro.depth())
            .map(|j| Bool::new_const(format!("P{n}_{j}")))
            .collect();
        let v = (!self.w.is_empty()).then(|| Bool::new_const(format!("V{n}")));
        for (j, option) in ro.options.iter().enumerate() {
            let mut realised = self.any_barrier(option);
            if let Some(v) = &v {
                let ws: Vec<Bool> = option.iter().filter_map(|x| self.w.get(x).cloned()).collect();
                realised = Bool::or(&[realised, Bool::and(&[v.clone(), Bool::or(&ws)])]);
            }
            let realised = self.with_grid(option, race, realised);
            self.opt.assert(p[j].implies(realised));
        }
        if let Some(v) = v {
            if !race.warp_local {
                self.opt.assert(v.not());
            }
            self.warp_ok.insert(key, (v, !race.warp_local));
        }
        for j in 1..p.len() {
            for k in (j + 1)..p.len() {
                self.opt.assert(Bool::and(&[p[j].clone(), p[k].clone()]).not());
            }
        }
        self.opt.assert(Bool::or(&p));
        if use_types {
            self.add_race_types(&p, race);
        }
        self.trace.race(&ro, race, use_types);
        self.races.insert(key, (ro, p));
    }

    /// Option `option` of `race` realised by `realised` (block and warp barriers), or by
    /// a grid barrier; a race between blocks only by a grid barrier.
    fn with_grid(&self, option: &[Label], race: &Race, realised: Bool) -> Bool {
        if self.g.is_empty() {
            return realised;
        }
        let gs: Vec<Bool> = option.iter().filter_map(|x| self.g.get(x).cloned()).collect();
        if race.fixable {
            Bool::or(&[realised, Bool::or(&gs)])
        } else {
            Bool::or(&gs)
        }
    }

    fn add_race_types(&self, p: &[Bool], race: &Race) {
        if race.intra {
            self.opt.assert(&p[0]);
        }
        let mut inter: Vec<Bool> = race.inter.iter().filter_map(|j| p.get(*j).cloned()).collect();
        if !inter.is_empty() {
            // Across iterations only with the first access in the earlier one: a barrier
            // between the accesses (`P^0`) orders those too.
            if self.loop_instances && race.inter.iter().all(|j| race.forward_only.contains(j)) {
                inter.push(p[0].clone());
            }
            self.opt.assert(Bool::or(&inter));
        }
    }

    /// A race at a known location reported not warp-local: its options no longer count
    /// warp barriers. True when that is news (then the `P` assignment need not change).
    fn deny_warp(&mut self, key: (Label, Label), race: &Race) -> bool {
        match self.warp_ok.get_mut(&key) {
            Some((v, denied)) if !*denied && !race.warp_local => {
                *denied = true;
                self.opt.assert(v.not());
                true
            }
            _ => false,
        }
    }

    fn add_race_once(&mut self, tree: &LabelTree, race: &Race, use_types: bool) {
        if let Some(key) = location(tree, race).filter(|k| !self.known(k)) {
            self.add_race(key, race, use_types);
        }
    }

    /// Whether the race location has its constraints already.
    fn known(&self, key: &(Label, Label)) -> bool {
        self.races.contains_key(key) || self.covers.contains_key(key)
    }

    /// A race location with places in uniform regions: coverage constraints
    /// ([`CoverRace::assert_initial`]) instead of lines 6–12.
    fn add_cover_race(
        &mut self,
        key: (Label, Label),
        ro: &RaceOptions,
        cover: CoverRace,
        race: &Race,
        use_types: bool,
    ) {
        let l = &self.l;
        cover.assert_initial(&self.opt, &|x| l.get(&x).cloned(), race, use_types);
        self.trace.race(&cover.extended(ro, self.tree), race, use_types);
        self.covers.insert(key, cover);
    }

    /// The race survived `chosen`: line 29 for `P`-encoded races, more coverage for the
    /// others ([`CoverRace::refute`]).
    fn refute(
        &mut self,
        key: (Label, Label),
        chosen: &[Label],
        model: &z3::Model,
        race: &Race,
        use_types: bool,
    ) {
        let Some(cover) = self.covers.get(&key) else {
            return self.block_assignment(key, chosen, model, race, use_types);
        };
        let l = &self.l;
        let set: BTreeSet<Label> = chosen.iter().copied().collect();
        cover.refute(&self.opt, &|x| l.get(&x).cloned(), &set, race, use_types);
        self.trace.blocked(key, chosen, race);
    }

    /// Line 29: the race survived this model, so its `P` assignment is wrong.
    fn block_assignment(
        &mut self,
        key: (Label, Label),
        chosen: &[Label],
        model: &z3::Model,
        race: &Race,
        use_types: bool,
    ) {
        let Some((_, p)) = self.races.get(&key) else {
            return;
        };
        let differs: Vec<Bool> = p
            .iter()
            .map(|pj| {
                let now = model.eval(pj, true).and_then(|b| b.as_bool()).unwrap_or(false);
                if now { pj.not() } else { pj.clone() }
            })
            .collect();
        self.opt.assert(Bool::or(&differs));
        if use_types {
            self.add_race_types(p, race);
        }
        self.trace.blocked(key, chosen, race);
    }

    /// Line 25: no barrier directly inside `block` (`at`: the barrier that diverged).
    /// A warp barrier that diverged (`warp`) excludes warp barriers there too: threads of
    /// one warp disagreeing means threads of the block do.
    /// A grid barrier that diverged (`grid`) excludes only grid barriers there: its
    /// guard may still be the same for the threads of each block.
    fn exclude_block(&mut self, block: Label, at: Label, warp: bool, grid: bool) {
        self.trace.excluded(block, at);
        for c in self.tree.children_of(block) {
            if let Some(v) = self.l.get(&c).filter(|_| !grid) {
                self.opt.assert(v.not());
            }
            if let Some(v) = self.w.get(&c).filter(|_| warp) {
                self.opt.assert(v.not());
            }
            if let Some(v) = self.g.get(&c) {
                self.opt.assert(v.not());
            }
        }
        if !self.excluded.contains(&block) {
            self.excluded.push(block);
        }
    }

    /// The chosen block barriers, the chosen warp barriers, the chosen grid barriers,
    /// and the model.
    #[allow(clippy::type_complexity)]
    fn solve(
        &self,
        stats: &mut Stats,
    ) -> Result<Option<(Vec<Label>, Vec<Label>, Vec<Label>, z3::Model)>, SynthError> {
        stats.solver_calls += 1;
        let start = std::time::Instant::now();
        let result = self.opt.check(&[]);
        stats.solver_time += start.elapsed();
        match result {
            SatResult::Unsat => Ok(None),
            SatResult::Unknown => Err(SynthError::Solver(
                self.opt.get_reason_unknown().unwrap_or_else(|| "unknown".into()),
            )),
            SatResult::Sat => {
                let model = self
                    .opt
                    .get_model()
                    .ok_or_else(|| SynthError::Solver("no model for a satisfiable placement".into()))?;
                let pick = |vars: &BTreeMap<Label, Bool>| -> Vec<Label> {
                    vars.iter()
                        .filter(|(_, v)| model.eval(*v, true).and_then(|b| b.as_bool()).unwrap_or(false))
                        .map(|(l, _)| *l)
                        .collect()
                };
                let (chosen, warp, grid) = (pick(&self.l), pick(&self.w), pick(&self.g));
                Ok(Some((chosen, warp, grid, model)))
            }
        }
    }
}

/// The races a placement must remove: those a block barrier can order, and with grid
/// barriers (`SynthOptions::grid_barriers`) those between blocks too.
fn targets(report: &oracle::Report, opts: &SynthOptions) -> Vec<Race> {
    report
        .races
        .iter()
        .filter(|r| r.fixable || opts.grid_barriers)
        .cloned()
        .collect()
}

/// The race location of a race, as labels of the input tree in text order.
fn location(tree: &LabelTree, r: &Race) -> Option<(Label, Label)> {
    let a = tree.label_of(r.first.stmt)?;
    let b = tree.label_of(r.second.stmt)?;
    Some(if tree.precedes(b, a) { (b, a) } else { (a, b) })
}

/// The innermost block of an inserted barrier (the block whose start it follows, or the
/// block of the statement it follows).
fn block_of(tree: &LabelTree, after: Label) -> Option<Label> {
    match tree.node(after).kind {
        NodeKind::Start(b) => Some(b),
        _ => tree.parent(after),
    }
}

/// A self race within one iteration (or outside loops): one KPL statement (a write,
/// since reads and writes are separate statements) by two threads on the same element.
/// No barrier orders the two accesses themselves.
fn is_intra_self_race(r: &Race) -> bool {
    r.is_self_race() && r.intra
}

/// Gives up on self races within one iteration when nothing else is left to fix: other
/// races (and divergences) may be their cause, and fixing those can remove them (module
/// doc), so only then is there no barrier placement.
fn self_race(races: &[Race], divergences: usize) -> Option<NoSolution> {
    if divergences > 0 || races.iter().any(|r| !is_intra_self_race(r)) {
        return None;
    }
    let r = races.iter().find(|r| is_intra_self_race(r))?;
    Some(NoSolution {
        reason: format!(
            "line {} races with itself on `{}` ({} by two threads in the same barrier interval): two \
             threads access the same element in one statement, which neither a barrier nor splitting the \
             statement can order — change the indexing (or let one thread do it)",
            r.first.span.line,
            r.array,
            r.kind()
        ),
        races: vec![r.clone()],
    })
}

/// Races within one iteration between a read and the write of one source statement
/// (`A[i] = A[i] + A[i+1]`), grouped by the write: only a barrier inside the statement,
/// that is a split, can remove them. (Races of such a pair across loop iterations are
/// left to ordinary barriers.)
fn split_sites(kernel: &Kernel, races: &[Race]) -> Vec<(kpl::StmtId, Vec<kpl::StmtId>, Vec<Race>)> {
    let mut out: Vec<(kpl::StmtId, Vec<kpl::StmtId>, Vec<Race>)> = Vec::new();
    for r in races.iter().filter(|r| r.intra) {
        let Some((read, write)) = kpl::split::same_statement(kernel, r.first.stmt, r.second.stmt) else {
            continue;
        };
        match out.iter_mut().find(|s| s.0 == write) {
            Some(s) => {
                if !s.1.contains(&read) {
                    s.1.push(read);
                }
                s.2.push(r.clone());
            }
            None => out.push((write, vec![read], vec![r.clone()])),
        }
    }
    out
}

/// Algorithm 1: the cheapest barrier placement the oracle accepts.
///
/// Beyond the paper: when a read races with the write of its own source statement
/// (`A[tid] = A[tid] + A[tid + 1]`) and `opts.split_check` accepts the statement, the
/// kernel is prepared for splitting it ([`kpl::split::prepare`]) and the synthesis runs
/// on that kernel, where a barrier between the racing read and the write is a candidate
/// like any other (same cost model, same oracle check of the result).
pub fn synthesize(
    kernel: &Kernel,
    oracle: &mut dyn Oracle,
    opts: &SynthOptions,
) -> Result<Synthesis, SynthError> {
    synthesize_from(kernel, oracle, opts, true)
}

fn synthesize_from(
    kernel: &Kernel,
    oracle: &mut dyn Oracle,
    opts: &SynthOptions,
    may_split: bool,
) -> Result<Synthesis, SynthError> {
    let mut run = Run::new(kernel, oracle, opts);
    let started = std::time::Instant::now();
    let report = run.ask(kernel)?;
    trace_round(&run.tree, &[], &report, started);
    if report.is_clean() {
        return Ok(run.finish(Outcome::AlreadyCorrect, Vec::new()));
    }
    // Races between blocks: no barrier orders them. They are reported, and the others
    // are still fixed as far as barriers can, so the report can show that placement.
    // With grid barriers (`fix --cooperative`), those too are races to fix.
    let blocked = unfixable(&report).filter(|_| !opts.grid_barriers);
    let fixable = targets(&report, opts);
    if let Some(ns) =
        diverging_existing(&report, &[]).or_else(|| self_race(&fixable, report.divergences.len()))
    {
        return Ok(run.give_up(ns));
    }
    if let (Some(ns), true) = (&blocked, fixable.is_empty() && report.divergences.is_empty()) {
        return Ok(run.give_up(ns.clone()));
    }
    let sites = if may_split {
        let in_blocks: Vec<Race> = fixable.iter().filter(|r| r.fixable).cloned().collect();
        split_sites(kernel, &in_blocks)
    } else {
        Vec::new()
    };
    if !sites.is_empty() {
        return split_then_synthesize(run, &sites);
    }
    // The tree is cloned out of `run` so the encoding can borrow it while `run` asks.
    let tree = run.tree.clone();
    let mut enc = Encoding::new(&tree, opts);
    if opts.uniform_regions && !opts.warp_barriers && !opts.grid_barriers {
        enc.uniform = regions::uniform_candidates(run.oracle, kernel, &tree);
    }
    for r in fixable.iter().filter(|r| !is_intra_self_race(r)) {
        enc.add_race_once(&tree, r, opts.use_race_types);
    }
    let mut last_races = fixable;
    loop {
        if run.stats.iterations >= opts.max_iterations {
            return Err(SynthError::IterationLimit(run.stats.iterations));
        }
        let Some((mut chosen, warp, grid, model)) = enc.solve(&mut run.stats)? else {
            let ns = unsat_reason(&tree, &enc, last_races);
            return Ok(run.give_up(ns));
        };
        run.stats.iterations += 1;
        if !warp.is_empty() || !grid.is_empty() {
            chosen.extend(warp.iter().chain(&grid).copied());
            chosen.sort_by_key(|l| tree.node(*l).post);
        }
        let (candidate, ids) = run.with_barriers_kinds(&chosen, &warp, &grid);
        let started = std::time::Instant::now();
        let report = run.ask(&candidate)?;
        trace_round(&tree, &chosen, &report, started);
        let fixable = targets(&report, opts);
        if let Some(ns) =
            diverging_existing(&report, &ids).or_else(|| self_race(&fixable, report.divergences.len()))
        {
            return Ok(run.give_up(ns));
        }
        if !report.divergences.is_empty() {
            for d in &report.divergences {
                let after = ids.iter().position(|id| *id == d.stmt).map(|i| chosen[i]);
                if let Some((a, block)) = after.and_then(|a| Some((a, block_of(&tree, a)?))) {
                    enc.exclude_block(block, a, warp.contains(&a), grid.contains(&a));
                }
            }
            continue;
        }
        if fixable.is_empty() {
            // Only races between blocks are left: this placement is as far as barriers go.
            let outcome = match unfixable(&report) {
                Some(ns) => Outcome::NoSolution(ns),
                None => Outcome::Fixed,
            };
            let mut s = run.finish_with_kinds(outcome, chosen, warp, grid);
            s.trace = Some(enc.trace);
            return Ok(s);
        }
        for r in fixable.iter().filter(|r| !is_intra_self_race(r)) {
            let Some(key) = location(&tree, r) else { continue };
            if enc.known(&key) {
                if enc.deny_warp(key, r) {
                    continue;
                }
                enc.refute(key, &chosen, &model, r, opts.use_race_types);
            } else {
                // A race the first answer did not mention (a testing oracle can find more
                // once barriers change what it explores): constrain it like the others.
                enc.add_race(key, r, opts.use_race_types);
            }
        }
        last_races = fixable;
    }
}

/// With `AUTOSYNC_TRACE_SYNTH` in the environment, each round's placement and what the
/// oracle said of it go to stderr (for finding why a synthesis takes many rounds).
fn trace_round(tree: &LabelTree, chosen: &[Label], report: &oracle::Report, started: std::time::Instant) {
    if std::env::var_os("AUTOSYNC_TRACE_SYNTH").is_none() {
        return;
    }
    let placement = if chosen.is_empty() {
        "the input".to_string()
    } else {
        let lines: Vec<u32> = chosen.iter().map(|l| tree.line(*l)).collect();
        format!("barriers after lines {lines:?}")
    };
    let races: BTreeSet<(u32, u32)> = report
        .races
        .iter()
        .map(|r| (r.first.span.line, r.second.span.line))
        .collect();
    eprintln!(
        "autosync: round on {placement}: {} ms, {} race(s) at line pairs {races:?}, {} divergence(s)",
        started.elapsed().as_millis(),
        report.races.len(),
        report.divergences.len()
    );
}

/// Prepares the self-racing statements for splitting and synthesizes on that kernel;
/// gives up with the reason when a statement cannot be split.
fn split_then_synthesize(
    run: Run,
    sites: &[(kpl::StmtId, Vec<kpl::StmtId>, Vec<Race>)],
) -> Result<Synthesis, SynthError> {
    let plan: Vec<(kpl::StmtId, Vec<kpl::StmtId>)> = sites.iter().map(|s| (s.0, s.1.clone())).collect();
    let cannot = |why: String, races: &[Race]| {
        let r = &races[0];
        NoSolution {
            reason: format!(
                "line {} races with itself on `{}`: a thread reads an element that another thread writes in the \
                 same statement, and only splitting the statement (read into a local, barrier, then write) can \
                 order them — autosync cannot split it here: {why}",
                r.second.span.line, r.array
            ),
            races: races.to_vec(),
        }
    };
    let prepared = kpl::split::prepare(run.kernel, &plan).and_then(|(k, split)| {
        let Some(check) = run.opts.split_check else {
            return Err("this input's front end cannot rewrite statements".to_string());
        };
        for s in &split {
            check(s).map_err(|e| format!("line {}: {e}", s.statement.line))?;
        }
        Ok((k, split))
    });
    let (k, split) = match prepared {
        Ok(x) => x,
        Err(why) => {
            let races: Vec<Race> = sites.iter().flat_map(|s| s.2.iter().cloned()).collect();
            let ns = cannot(why, &races);
            return Ok(run.give_up(ns));
        }
    };
    let first_calls = run.stats.oracle_calls;
    let mut s = synthesize_from(&k, run.oracle, run.opts, false)?;
    s.stats.oracle_calls += first_calls;
    s.stats.time = run.start_time().elapsed();
    s.splits = split;
    Ok(s)
}

/// Explains an UNSAT placement problem with the races that were left.
fn unsat_reason(tree: &LabelTree, enc: &Encoding, races: Vec<Race>) -> NoSolution {
    let pairs: Vec<String> = races
        .iter()
        .map(|r| {
            format!(
                "line {} and line {} on `{}`",
                r.first.span.line, r.second.span.line, r.array
            )
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut reason = format!(
        "no barrier placement removes the race between {}",
        pairs.join(", ")
    );
    if !enc.excluded.is_empty() {
        let blocks: Vec<String> = enc
            .excluded
            .iter()
            .map(|b| format!("line {}", tree.line(*b)))
            .collect();
        reason.push_str(&format!(
            ": every place that would separate the accesses is inside a block whose guard differs between \
             threads (barrier divergence at {})",
            blocks.join(", ")
        ));
    }
    NoSolution { reason, races }
}
