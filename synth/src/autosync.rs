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

//!
//! The refinement loop ([`refine`]) runs over *parts*, one per kernel, whose encodings
//! share one `Optimize` ([`Names`]): one part is the paper's loop; several are the joint
//! synthesis of kernels that share one source text ([`crate::joint`]), where each round
//! asks every part's oracle about its share of the optimum, a divergence in one part
//! excludes the place for all, and races refine the constraints of their own part.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

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

/// How an encoding names its Z3 variables. A kernel synthesized alone: `L{label}`,
/// `P{n}_{j}`, as always. Kernels synthesized together ([`crate::joint`]) share one
/// `Optimize`, and Z3 constants with one name are one variable: the variables of a
/// candidate (`L`, `W`, `G`) are named after its *source place*, so the labels of
/// different kernels that write a barrier at the same place of the text are one
/// variable, and the variables of a race location (`P`, `V`) get the kernel's prefix,
/// so they stay its own.
pub(crate) struct Names<'a> {
    /// Prefix of the variables private to this kernel.
    prefix: String,
    /// The source place of each candidate that has one (`None`: alone, every
    /// candidate is its own place).
    places: Option<&'a BTreeMap<Label, usize>>,
}

impl<'a> Names<'a> {
    /// A kernel synthesized alone.
    pub(crate) fn alone() -> Names<'static> {
        Names {
            prefix: String::new(),
            places: None,
        }
    }

    /// Member `index` of a joint synthesis, with the source places of its candidates.
    pub(crate) fn shared(index: usize, places: &'a BTreeMap<Label, usize>) -> Names<'a> {
        Names {
            prefix: format!("k{index}."),
            places: Some(places),
        }
    }

    /// What names candidate `l`'s variables (`L`, `W`, `G` followed by it); `None`
    /// when `l` has no source place (then it is no candidate in a joint synthesis).
    fn place(&self, l: Label) -> Option<String> {
        match self.places {
            None => Some(l.0.to_string()),
            Some(places) => places.get(&l).map(|p| format!("@{p}")),
        }
    }

    /// The source places of `labels` (none when alone).
    fn places_of(&self, labels: &[Label]) -> Vec<usize> {
        let Some(places) = self.places else {
            return Vec::new();
        };
        labels.iter().filter_map(|l| places.get(l).copied()).collect()
    }

    /// The labels at the source places `ids`.
    fn labels_at(&self, ids: &[usize]) -> Vec<Label> {
        let Some(places) = self.places else {
            return Vec::new();
        };
        places
            .iter()
            .filter(|(_, p)| ids.contains(p))
            .map(|(l, _)| *l)
            .collect()
    }

    /// The name of a variable of this kernel only.
    fn private(&self, name: String) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// The constraint system of one synthesis (`S` in Algorithm 1), or one kernel's part of
/// a joint synthesis (its candidates' variables shared through [`Names`]).
struct Encoding<'t> {
    tree: &'t LabelTree,
    opt: &'t Optimize,
    names: Names<'t>,
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
    /// The candidates' variables and their soft constraints `¬L_ℓ` (`¬W_ℓ`, `¬G_ℓ`),
    /// asserted into `opt`. Kernels sharing a variable each add their own soft
    /// constraint on it, so Z3 minimises the sum of their costs.
    fn new(tree: &'t LabelTree, opt: &'t Optimize, opts: &SynthOptions, names: Names<'t>) -> Self {
        let mut l = BTreeMap::new();
        let candidates = tree.candidates();
        let rank_unit = (TIE_BREAK / 64 / (candidates.len() as u128 + 1)).max(1);
        let mut warp = BTreeMap::new();
        let mut grid = BTreeMap::new();
        for (rank, &c) in candidates.iter().enumerate() {
            let Some(place) = names.place(c) else { continue };
            let v = Bool::new_const(format!("L{place}"));
            let cost = opts.cost.cost(tree, c);
            let weight = |cost: f64| {
                let w = (cost * WEIGHT_SCALE).round().clamp(1.0, 1e30) as u128;
                w * TIE_BREAK + rank as u128 * rank_unit
            };
            opt.assert_soft(&v.not(), weight(cost), None);
            if opts.warp_barriers {
                let wv = Bool::new_const(format!("W{place}"));
                opt.assert_soft(&wv.not(), weight(cost * opts.warp_cost), None);
                opt.assert(Bool::and(&[v.clone(), wv.clone()]).not());
                warp.insert(c, wv);
            }
            if opts.grid_barriers {
                let gv = Bool::new_const(format!("G{place}"));
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
            names,
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
            .map(|j| Bool::new_const(self.names.private(format!("P{n}_{j}"))))
            .collect();
        let v = (!self.w.is_empty()).then(|| Bool::new_const(self.names.private(format!("V{n}"))));
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
        cover.assert_initial(self.opt, &|x| l.get(&x).cloned(), race, use_types);
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
        cover.refute(self.opt, &|x| l.get(&x).cloned(), &set, race, use_types);
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

    /// The source places directly inside `block` (none when alone).
    fn places_in(&self, block: Label) -> Vec<usize> {
        self.names.places_of(&self.tree.children_of(block))
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

    /// The placement `model` chooses among this kernel's candidates: every barrier
    /// (block, warp and grid, in program order), and which of them are warp and grid
    /// barriers.
    fn picked(&self, model: &z3::Model) -> Placement {
        let pick = |vars: &BTreeMap<Label, Bool>| -> Vec<Label> {
            vars.iter()
                .filter(|(_, v)| model.eval(*v, true).and_then(|b| b.as_bool()).unwrap_or(false))
                .map(|(l, _)| *l)
                .collect()
        };
        let (mut chosen, warp, grid) = (pick(&self.l), pick(&self.w), pick(&self.g));
        if !warp.is_empty() || !grid.is_empty() {
            chosen.extend(warp.iter().chain(&grid).copied());
            chosen.sort_by_key(|l| self.tree.node(*l).post);
        }
        Placement { chosen, warp, grid }
    }
}

/// One placement of one kernel: the labels after which a barrier goes (in program
/// order), and those of them that get a warp or a grid barrier.
struct Placement {
    chosen: Vec<Label>,
    warp: Vec<Label>,
    grid: Vec<Label>,
}

/// A new MaxSAT solver (in the thread's Z3 context). Z3 does not catch SIGINT during
/// its checks (`ctrl_c`): the command line's handler stops the whole run
/// (`oracle::interrupt`).
pub(crate) fn new_optimize() -> Optimize {
    let opt = Optimize::new();
    let mut p = z3::Params::new();
    p.set_bool("ctrl_c", false);
    opt.set_params(&p);
    opt
}

/// The optimum of the constraints so far (`None`: unsatisfiable). A cancelled run
/// (`oracle::interrupt`) asks nothing more, and its check in flight is interrupted:
/// [`OracleError::Interrupted`](oracle::OracleError::Interrupted) either way.
fn solve(opt: &Optimize, stats: &mut Stats) -> Result<Option<z3::Model>, SynthError> {
    let interrupted = || SynthError::Oracle(oracle::OracleError::Interrupted);
    if oracle::interrupt::cancelled() {
        return Err(interrupted());
    }
    stats.solver_calls += 1;
    let start = std::time::Instant::now();
    let result = {
        let _interruptible = oracle::interrupt::Registration::new(opt.get_context());
        opt.check(&[])
    };
    stats.solver_time += start.elapsed();
    if oracle::interrupt::cancelled() {
        return Err(interrupted());
    }
    match result {
        SatResult::Unsat => Ok(None),
        SatResult::Unknown => Err(SynthError::Solver(
            opt.get_reason_unknown().unwrap_or_else(|| "unknown".into()),
        )),
        SatResult::Sat => opt
            .get_model()
            .map(Some)
            .ok_or_else(|| SynthError::Solver("no model for a satisfiable placement".into())),
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
fn split_sites(kernel: &Kernel, races: &[Race]) -> SplitSites {
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
    let fixable = match start(&mut run, may_split)? {
        Start::Clean => return Ok(run.finish(Outcome::AlreadyCorrect, Vec::new())),
        Start::GiveUp(ns) => return Ok(run.give_up(ns)),
        Start::Split(sites) => return split_then_synthesize(run, &sites),
        Start::Refine(fixable) => fixable,
    };
    // The tree is cloned out of `run` so the encoding can borrow it while `run` asks.
    let tree = run.tree.clone();
    let opt = new_optimize();
    let part = Part::new(run, &tree, &opt, Names::alone(), fixable, true);
    let mut done = refine(vec![part], &opt)?;
    done.pop()
        .ok_or_else(|| SynthError::Solver("the refinement loop returned no placement".into()))
}

/// Self-racing statements to prepare for splitting: per written statement, its racing
/// reads and the races ([`split_sites`]).
pub(crate) type SplitSites = Vec<(kpl::StmtId, Vec<kpl::StmtId>, Vec<Race>)>;

/// What the first answer about a kernel (lines 1–5 of Algorithm 1) leads to.
pub(crate) enum Start {
    /// Race- and divergence-free as given.
    Clean,
    /// No barrier placement can help, and why.
    GiveUp(NoSolution),
    /// Self-racing statements must be prepared for splitting first.
    Split(SplitSites),
    /// These races are to be removed by the refinement loop.
    Refine(Vec<Race>),
}

/// Asks the oracle about the kernel of `run` as given and decides what comes next.
pub(crate) fn start(run: &mut Run, may_split: bool) -> Result<Start, SynthError> {
    let started = Instant::now();
    let kernel = run.kernel;
    let report = run.ask(kernel)?;
    record_round(run, &run.tree, &[], &report, started);
    if report.is_clean() {
        return Ok(Start::Clean);
    }
    let opts = run.opts;
    // Races between blocks: no barrier orders them. They are reported, and the others
    // are still fixed as far as barriers can, so the report can show that placement.
    // With grid barriers (`fix --cooperative`), those too are races to fix.
    let blocked = unfixable(&report).filter(|_| !opts.grid_barriers);
    let fixable = targets(&report, opts);
    if let Some(ns) =
        diverging_existing(&report, &[]).or_else(|| self_race(&fixable, report.divergences.len()))
    {
        return Ok(Start::GiveUp(ns));
    }
    if let (Some(ns), true) = (blocked, fixable.is_empty() && report.divergences.is_empty()) {
        return Ok(Start::GiveUp(ns));
    }
    let sites = if may_split {
        let in_blocks: Vec<Race> = fixable.iter().filter(|r| r.fixable).cloned().collect();
        split_sites(kernel, &in_blocks)
    } else {
        Vec::new()
    };
    if !sites.is_empty() {
        return Ok(Start::Split(sites));
    }
    Ok(Start::Refine(fixable))
}

/// One kernel in the refinement loop: its run (input, oracle, counters), its part of
/// the constraints, and the races its last answer left.
pub(crate) struct Part<'r, 't> {
    run: Run<'r>,
    enc: Encoding<'t>,
    /// The races of the last answer that a placement must remove.
    last_races: Vec<Race>,
    /// No races to remove as given (a kernel synthesized together with others that
    /// need barriers).
    clean: bool,
    /// Its races are to be removed. Otherwise (a kernel synthesized together with
    /// others, not to be fixed itself) only kept from getting worse: no barrier placed
    /// for the others may diverge in it; its own races and divergences stay.
    fix: bool,
}

impl<'r, 't> Part<'r, 't> {
    /// A kernel entering the loop with the races of its first answer to remove
    /// (`fixable`; none when it is clean as given, or not to be fixed: `fix` false), its
    /// candidates' variables named by `names` in `opt`.
    pub(crate) fn new(
        run: Run<'r>,
        tree: &'t LabelTree,
        opt: &'t Optimize,
        names: Names<'t>,
        fixable: Vec<Race>,
        fix: bool,
    ) -> Self {
        let opts = run.opts;
        let mut enc = Encoding::new(tree, opt, opts, names);
        if opts.uniform_regions && !opts.warp_barriers && !opts.grid_barriers {
            enc.uniform = regions::uniform_candidates(run.oracle, run.kernel, tree);
        }
        for r in fixable.iter().filter(|r| !is_intra_self_race(r)) {
            enc.add_race_once(tree, r, opts.use_race_types);
        }
        Part {
            run,
            enc,
            clean: fixable.is_empty(),
            last_races: fixable,
            fix,
        }
    }

    /// The races of `report` a placement must remove in this part (none when it is
    /// not to be fixed).
    fn targets(&self, report: &oracle::Report) -> Vec<Race> {
        if self.fix {
            targets(report, self.run.opts)
        } else {
            Vec::new()
        }
    }

    /// The run's result, with the counters of the solver (shared by all parts) added.
    fn finish(self, stats: &Stats, outcome: Outcome, p: Placement) -> Synthesis {
        let mut run = self.run;
        add_solver_stats(&mut run.stats, stats);
        let mut s = run.finish_with_kinds(outcome, p.chosen, p.warp, p.grid);
        s.trace = Some(self.enc.trace);
        s
    }
}

/// The parts' runs, their constraints dropped.
fn runs_of<'r>(parts: Vec<Part<'r, '_>>) -> Vec<Run<'r>> {
    parts.into_iter().map(|p| p.run).collect()
}

/// `stats` of the solver (calls, rounds, its time) added to a run's.
fn add_solver_stats(to: &mut Stats, stats: &Stats) {
    to.solver_calls += stats.solver_calls;
    to.iterations += stats.iterations;
    to.solver_time += stats.solver_time;
}

/// What one part's oracle said of its share of the current optimum.
struct Answer {
    placement: Placement,
    report: oracle::Report,
}

/// Lines 13–30 of Algorithm 1 over `parts`, whose encodings share `opt` (one part: the
/// paper's loop): solve, give every part its share of the optimum and ask its oracle. A
/// barrier that diverges in one part excludes its block (for all parts: they share the
/// variables of a place); races that survive refine the constraints of their part; until
/// every part to fix is race- and divergence-free (and no inserted barrier diverges in
/// the others), or the constraints are unsatisfiable. One result per part, in order.
pub(crate) fn refine(mut parts: Vec<Part>, opt: &Optimize) -> Result<Vec<Synthesis>, SynthError> {
    let max_iterations = parts.iter().map(|p| p.run.opts.max_iterations).min().unwrap_or(0);
    let mut stats = Stats::default();
    'round: loop {
        if stats.iterations >= max_iterations {
            return Err(SynthError::IterationLimit(stats.iterations));
        }
        let Some(model) = solve(opt, &mut stats)? else {
            let why = unsat_reasons(&parts);
            return Ok(give_up_all(runs_of(parts), &stats, why));
        };
        stats.iterations += 1;
        let mut answers = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter_mut().enumerate() {
            let placement = part.enc.picked(&model);
            let (candidate, ids) =
                part.run
                    .with_barriers_kinds(&placement.chosen, &placement.warp, &placement.grid);
            let started = Instant::now();
            let report = part.run.ask(&candidate)?;
            record_round(&part.run, part.enc.tree, &placement.chosen, &report, started);
            let fixable = part.targets(&report);
            if let Some(ns) = diverging_existing(&report, &ids)
                .or_else(|| self_race(&fixable, report.divergences.len()))
                .filter(|_| part.fix)
            {
                return Ok(give_up_all(runs_of(parts), &stats, vec![(i, ns)]));
            }
            // Line 25 for the barriers placed (the other parts need not be asked about
            // this optimum).
            let diverged: Vec<Label> = report
                .divergences
                .iter()
                .filter_map(|d| ids.iter().position(|id| *id == d.stmt))
                .map(|i| placement.chosen[i])
                .collect();
            if !diverged.is_empty() {
                let mut places = Vec::new();
                for a in diverged {
                    if let Some(block) = block_of(part.enc.tree, a) {
                        let (warp, grid) = (placement.warp.contains(&a), placement.grid.contains(&a));
                        part.enc.exclude_block(block, a, warp, grid);
                        places.extend(part.enc.places_in(block));
                    }
                }
                let name = part.run.kernel.name.clone();
                tell_others(&mut parts, i, &places, &name);
                continue 'round;
            }
            answers.push(Answer { placement, report });
        }
        if answers
            .iter()
            .zip(&parts)
            .all(|(a, p)| p.targets(&a.report).is_empty())
        {
            return Ok(finish_all(parts, &stats, answers));
        }
        for (part, a) in parts.iter_mut().zip(&answers) {
            let fixable = part.targets(&a.report);
            refute_races(part, &a.placement, &model, &fixable);
            part.last_races = fixable;
        }
    }
}

/// The places (`places`) part `i` excluded because a barrier there diverged in kernel
/// `name` go into the other parts' traces, to explain why they have no barrier there.
fn tell_others(parts: &mut [Part], i: usize, places: &[usize], name: &str) {
    for (j, other) in parts.iter_mut().enumerate() {
        if j != i {
            for l in other.enc.names.labels_at(places) {
                other.enc.trace.excluded_elsewhere(l, name);
            }
        }
    }
}

/// Every part is free of the races barriers can order: the placement is found. A part
/// left with races between blocks has no solution, and shows this placement (as far as
/// barriers go); a part clean as given that gets no barrier is already correct. A part
/// not to fix that is not race- and divergence-free with the placement has "no
/// solution" (it was not looked for).
fn finish_all(parts: Vec<Part>, stats: &Stats, answers: Vec<Answer>) -> Vec<Synthesis> {
    parts
        .into_iter()
        .zip(answers)
        .map(|(part, a)| {
            let outcome = match unfixable(&a.report) {
                Some(ns) => Outcome::NoSolution(ns),
                None if !part.fix && !a.report.is_clean() => Outcome::NoSolution(NoSolution {
                    reason: "not to be fixed: the placement only keeps its barriers from diverging"
                        .to_string(),
                    races: a.report.races.clone(),
                }),
                None if part.clean && a.placement.chosen.is_empty() => Outcome::AlreadyCorrect,
                None => Outcome::Fixed,
            };
            part.finish(stats, outcome, a.placement)
        })
        .collect()
}

/// Lines 26–29 for one part: each race still reported rules out this placement (its
/// `P` assignment, or its coverage) in the part's constraints; a race the first answer
/// did not mention gets its constraints.
fn refute_races(part: &mut Part, placement: &Placement, model: &z3::Model, fixable: &[Race]) {
    let use_types = part.run.opts.use_race_types;
    for r in fixable.iter().filter(|r| !is_intra_self_race(r)) {
        let Some(key) = location(part.enc.tree, r) else {
            continue;
        };
        if part.enc.known(&key) {
            if part.enc.deny_warp(key, r) {
                continue;
            }
            part.enc.refute(key, &placement.chosen, model, r, use_types);
        } else {
            // A race the first answer did not mention (a testing oracle can find more
            // once barriers change what it explores): constrain it like the others.
            part.enc.add_race(key, r, use_types);
        }
    }
}

/// Every kernel gives up. `why` holds the kernels that are the reason (index, what went
/// wrong there). Alone, that is the reason; together, every kernel gets one reason
/// naming the kernels it is about, and its own races.
pub(crate) fn give_up_all(runs: Vec<Run>, stats: &Stats, why: Vec<(usize, NoSolution)>) -> Vec<Synthesis> {
    let joint = (runs.len() > 1).then(|| joint_reason(&runs, &why));
    runs.into_iter()
        .enumerate()
        .map(|(i, mut run)| {
            let mine = why.iter().filter(|(j, _)| *j == i);
            let ns = match &joint {
                None => mine
                    .map(|(_, ns)| ns.clone())
                    .next()
                    .unwrap_or_else(|| NoSolution {
                        reason: "no barrier placement found".to_string(),
                        races: Vec::new(),
                    }),
                Some(reason) => NoSolution {
                    reason: reason.clone(),
                    races: mine.flat_map(|(_, ns)| ns.races.iter().cloned()).collect(),
                },
            };
            add_solver_stats(&mut run.stats, stats);
            run.give_up(ns)
        })
        .collect()
}

/// Why kernels synthesized together have no common placement: the kernels, then what
/// went wrong in each kernel of `why`.
fn joint_reason(runs: &[Run], why: &[(usize, NoSolution)]) -> String {
    let names: Vec<String> = runs.iter().map(|r| format!("`{}`", r.kernel.name)).collect();
    let each: Vec<String> = why
        .iter()
        .map(|(i, ns)| format!("in `{}`, {}", runs[*i].kernel.name, ns.reason))
        .collect();
    format!(
        "no barrier placement serves all of {}, which share one source text (instantiations of one \
         template): {}",
        names.join(", "),
        each.join("; ")
    )
}

/// Why the constraints became unsatisfiable: per part, the races left and the blocks
/// excluded because a barrier in them diverged.
fn unsat_reasons(parts: &[Part]) -> Vec<(usize, NoSolution)> {
    if let [part] = parts {
        return vec![(0, unsat_reason(part.enc.tree, &part.enc, part.last_races.clone()))];
    }
    let mut why = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if !part.last_races.is_empty() {
            let ns = unsat_reason(part.enc.tree, &part.enc, part.last_races.clone());
            why.push((i, ns));
        } else if let Some(at) = excluded_lines(part.enc.tree, &part.enc) {
            why.push((
                i,
                NoSolution {
                    reason: format!(
                        "a barrier inside the block at {at} can be reached by some threads of a block and not \
                         others (barrier divergence)"
                    ),
                    races: Vec::new(),
                },
            ));
        }
    }
    why
}

/// Records a round (the oracle's answer about one placement) where the options ask for
/// it ([`SynthOptions::rounds`], `--show rounds`).
fn record_round(run: &Run, tree: &LabelTree, chosen: &[Label], report: &oracle::Report, started: Instant) {
    let Some(rounds) = run.opts.rounds else {
        return;
    };
    let races: BTreeSet<(u32, u32)> = report
        .races
        .iter()
        .map(|r| (r.first.span.line, r.second.span.line))
        .collect();
    let round = crate::Round {
        kernel: run.kernel.name.clone(),
        barriers_after: chosen.iter().map(|l| tree.line(*l)).collect(),
        races: races.into_iter().collect(),
        divergences: report.divergences.len(),
        time: started.elapsed(),
    };
    // A poisoned log (another thread panicked while recording) only loses the record.
    if let Ok(mut log) = rounds.lock() {
        log.push(round);
    }
}

/// Prepares the self-racing statements for splitting and synthesizes on that kernel;
/// gives up with the reason when a statement cannot be split.
fn split_then_synthesize(run: Run, sites: &SplitSites) -> Result<Synthesis, SynthError> {
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

/// `line 5`, or for device code of an included header (where no barrier is placed)
/// `line 5 of an included header`.
fn line_word(span: kpl::Span) -> String {
    match span.elsewhere {
        Some(e) if span.in_header() => format!("line {} of an included header", e.line),
        _ => format!("line {}", span.real().line),
    }
}

/// Explains an UNSAT placement problem with the races that were left.
fn unsat_reason(tree: &LabelTree, enc: &Encoding, races: Vec<Race>) -> NoSolution {
    let pairs: Vec<String> = races
        .iter()
        .map(|r| {
            format!(
                "{} and {} on `{}`",
                line_word(r.first.span),
                line_word(r.second.span),
                r.array
            )
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut reason = format!(
        "no barrier placement removes the race between {}",
        pairs.join(", ")
    );
    if races
        .iter()
        .any(|r| r.first.span.in_header() || r.second.span.in_header())
    {
        reason.push_str(": `fix` places no barrier in an included header");
    } else if races
        .iter()
        .any(|r| r.first.span.call.is_some() || r.second.span.call.is_some())
    {
        reason.push_str(": `fix` places no barrier inside a device function it inlines");
    }
    if let Some(at) = excluded_lines(tree, enc) {
        reason.push_str(&format!(
            ": every place that would separate the accesses is inside a block whose guard differs between \
             threads (barrier divergence at {at})"
        ));
    }
    NoSolution { reason, races }
}

/// The blocks excluded because a barrier in them diverged, as `line 7, line 12`.
fn excluded_lines(tree: &LabelTree, enc: &Encoding) -> Option<String> {
    let blocks: Vec<String> = enc
        .excluded
        .iter()
        .map(|b| format!("line {}", tree.line(*b)))
        .collect();
    (!blocks.is_empty()).then(|| blocks.join(", "))
}
