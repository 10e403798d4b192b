//! What the runs of one check found, merged across runs: racing statement pairs with
//! their iteration classes, divergent barriers, notes. Also the per-run access logs
//! the races are detected with.

use std::collections::BTreeMap;

use kpl::LabelTree;

use super::compile::{Program, StmtIx};
use super::values::FastMap;
use crate::{Access, AccessKind, Dim3, Divergence, Race, ThreadId, Witness, in_text_order};

/// An array element: (array index in [`Program::arrays`], element index).
pub(super) type Loc = (u32, i64);

/// One logged access. `iters` is an id of the [`Interner`] of the run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub stmt: StmtIx,
    pub kind: AccessKind,
    /// Linear index of the thread in its block.
    pub thread: u32,
    /// Linear index of the block in the grid.
    pub block: u32,
    pub iters: u32,
    /// The statement instance (a counter of executed access statements of the run):
    /// equal steps are one instruction executed by several threads in lock step.
    pub step: u64,
    /// The value a plain write stores under benign tolerance (0 for other accesses, and
    /// for every access without tolerance): accesses with different values are kept
    /// apart, so that a write-write conflict can be judged on the values.
    pub value: i64,
}

/// Under benign tolerance: two plain writes of equal values (GPUVerify's benign race),
/// which do not race.
fn equal_writes(cx: &RunContext, kind: AccessKind, value: i64, new: &Entry) -> bool {
    cx.benign && kind == AccessKind::Write && new.kind == AccessKind::Write && value == new.value
}

const NIL: u32 = u32::MAX;

/// The accesses of the running block since its last barrier, per array element and
/// (thread, statement).
///
/// Keeping every access would make a barrier-free loop quadratic. A group keeps its
/// last access `L` and, per loop depth `j`, the frontier `F_j`: the latest access whose
/// first `j` iteration counters differ from `L`'s. That is all the race classes need:
/// the accesses of one group come in increasing (lexicographic) iteration order, so
/// for a new access `v` the accesses whose counters first differ from `v`'s at depth `j`
/// exist iff the latest access with a smaller `j`-prefix — `L`, or `F_j` when `L` has
/// `v`'s `j`-prefix — agrees with `v` on the first `j - 1` counters.
pub(super) struct AccessLog {
    /// Logged accesses compared with a new one, over the run (part of the run's work,
    /// [`super::exec::Machine::max_work`]: without barriers an element's list grows with
    /// every thread that touched it).
    pub walked: u64,
    /// Logged accesses compared with one new access at most, newest first (`u64::MAX`,
    /// set by `Machine::new`, for the oracle, which must see every race class;
    /// `race_instances` only wants some instances, and without barriers an element's
    /// list grows with every thread that touched it).
    pub walk_limit: u64,
    heads: FastMap<Loc, u32>,
    groups: Vec<Group>,
    /// `F_1 .. F_depth` of every group (iteration-vector ids, [`NIL`] when none).
    frontiers: Vec<u32>,
    /// The steps of those accesses (same layout).
    frontier_steps: Vec<u64>,
    /// Warp lock step (`--warp-size`), when on.
    pub warps: Option<WarpSync>,
}

/// Lock step inside warps (seed 000, the re-sync method): threads of one warp
/// re-synchronize after every access statement both execute, so an earlier access of
/// one is ordered before a later access of the other when both were enabled at some
/// access statement in between (or at the earlier one itself).
pub(super) struct WarpSync {
    pub size: u32,
    /// Lock step (`--warp-size`): every access statement is a re-sync point. Without
    /// it only `__syncwarp()` is.
    lock_step: bool,
    /// Since the last barrier: per executed access statement, its step and the threads
    /// enabled at it (a bit set, 64 threads a word), in step order.
    points: Vec<(u64, Vec<u64>)>,
}

impl WarpSync {
    pub(super) fn new(size: u32, lock_step: bool) -> WarpSync {
        WarpSync {
            size: size.max(1),
            lock_step,
            points: Vec::new(),
        }
    }

    fn same_warp(&self, s: u32, t: u32) -> bool {
        s / self.size == t / self.size
    }

    /// Both threads were enabled at some access statement at a step in `[from, to)`.
    fn resynced(&self, s: u32, t: u32, from: u64, to: u64) -> bool {
        let bit = |m: &[u64], x: u32| m.get((x / 64) as usize).is_some_and(|w| w >> (x % 64) & 1 == 1);
        let start = self.points.partition_point(|(step, _)| *step < from);
        self.points[start..]
            .iter()
            .take_while(|(step, _)| *step < to)
            .any(|(_, m)| bit(m, s) && bit(m, t))
    }
}

/// The accesses of one thread by one statement to one element (writing one value, see
/// [`Entry::value`]).
struct Group {
    thread: u32,
    stmt: StmtIx,
    kind: AccessKind,
    value: i64,
    /// `L`: the iteration vector of the latest access.
    last: u32,
    /// Where this group's `F_1 .. F_depth` start in [`AccessLog::frontiers`].
    frontier_at: u32,
    /// The step of `L`.
    last_step: u64,
    /// The number of loops around the statement.
    depth: u32,
    /// The next group of the same element ([`NIL`] at the end).
    next: u32,
}

impl AccessLog {
    /// An empty log that compares every new access with all logged ones (no `Default`:
    /// a zero `walk_limit` would compare none and see no race).
    pub(super) fn unlimited() -> AccessLog {
        AccessLog {
            walked: 0,
            walk_limit: u64::MAX,
            heads: FastMap::default(),
            groups: Vec::new(),
            frontiers: Vec::new(),
            frontier_steps: Vec::new(),
            warps: None,
        }
    }

    pub(super) fn clear(&mut self) {
        self.heads.clear();
        self.groups.clear();
        self.frontiers.clear();
        self.frontier_steps.clear();
        if let Some(w) = &mut self.warps {
            w.points.clear();
        }
    }

    /// Under warp lock step: an access statement starts, executed by the threads of
    /// `mask` (a re-sync point for every pair of them).
    pub(super) fn step(&mut self, step: u64, mask: &[bool]) {
        if self.warps.as_ref().is_some_and(|w| w.lock_step) {
            self.sync_point(step, mask);
        }
    }

    /// A re-sync point for the threads of `mask` that share a warp: an access
    /// statement under lock step, or a `__syncwarp()` no warp diverged at.
    pub(super) fn sync_point(&mut self, step: u64, mask: &[bool]) {
        if let Some(w) = &mut self.warps {
            let mut bits = vec![0u64; mask.len().div_ceil(64)];
            for (t, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
                bits[t / 64] |= 1 << (t % 64);
            }
            w.points.push((step, bits));
        }
    }

    /// Reports the races of `new` with the logged accesses of other threads to its
    /// element (one access per race class is enough), then logs `new`.
    pub(super) fn access(&mut self, loc: Loc, new: &Entry, cx: &RunContext, out: &mut Findings) {
        let (prog, interner) = (cx.prog, cx.interner);
        let v = interner.get(new.iters);
        let mut own = None;
        let mut cur = self.heads.get(&loc).copied().unwrap_or(NIL);
        let mut budget = self.walk_limit;
        while let Some(g) = self.groups.get(cur as usize) {
            let here = cur;
            cur = g.next;
            self.walked += 1;
            if budget == 0 {
                // The older accesses are not compared; `new` gets a group of its own
                // if its thread's is among them (an older record of real accesses:
                // what is found against it is still a race).
                break;
            }
            budget -= 1;
            if g.thread == new.thread {
                if g.stmt == new.stmt && g.value == new.value {
                    own = Some(here);
                }
                continue;
            }
            if !g.kind.conflicts_with(new.kind) {
                continue;
            }
            if equal_writes(cx, g.kind, g.value, new) {
                out.benign(prog, g.stmt, new.stmt, loc.0);
                continue;
            }
            if out.saturated(prog, g.stmt, new.stmt, false) {
                continue;
            }
            let entry = |iters, step| Entry {
                stmt: g.stmt,
                kind: g.kind,
                thread: g.thread,
                block: new.block,
                iters,
                step,
                value: g.value,
            };
            // Under warp lock step, a thread of the same warp races only within one
            // instruction, or with accesses no re-sync point separates from `new`.
            let warp = self.warps.as_ref().filter(|w| w.same_warp(g.thread, new.thread));
            let synced = |step: u64| {
                warp.is_some_and(|w| step != new.step && w.resynced(g.thread, new.thread, step, new.step))
            };
            let common = common_loops(prog, g.stmt, new.stmt);
            let last = interner.get(g.last);
            let d = first_difference(last, v, common);
            if !synced(g.last_step) {
                out.race(cx, loc, &entry(g.last, g.last_step), new, false);
            }
            for j in 1..=d {
                let at = (g.frontier_at + j as u32 - 1) as usize;
                let (f, step) = (self.frontiers[at], self.frontier_steps[at]);
                if f != NIL && !synced(step) && first_difference(interner.get(f), v, common) == j - 1 {
                    out.race(cx, loc, &entry(f, step), new, false);
                }
            }
        }
        match own {
            Some(g) => self.advance(g, new.iters, new.step, interner),
            None => {
                let depth = prog.stmts[new.stmt as usize].loops.len() as u32;
                let frontier_at = self.frontiers.len() as u32;
                self.frontiers.extend(std::iter::repeat_n(NIL, depth as usize));
                self.frontier_steps.extend(std::iter::repeat_n(0, depth as usize));
                let next = self.heads.insert(loc, self.groups.len() as u32).unwrap_or(NIL);
                self.groups.push(Group {
                    thread: new.thread,
                    stmt: new.stmt,
                    kind: new.kind,
                    value: new.value,
                    last: new.iters,
                    last_step: new.step,
                    frontier_at,
                    depth,
                    next,
                });
            }
        }
    }

    /// A later access of the group: `F_j` becomes the old `L` where their `j`-prefixes differ.
    fn advance(&mut self, g: u32, iters: u32, step: u64, interner: &Interner) {
        let Some(group) = self.groups.get_mut(g as usize) else {
            return;
        };
        let depth = group.depth as usize;
        let d = first_difference(interner.get(group.last), interner.get(iters), depth);
        for j in d + 1..=depth {
            self.frontiers[group.frontier_at as usize + j - 1] = group.last;
            self.frontier_steps[group.frontier_at as usize + j - 1] = group.last_step;
        }
        group.last = iters;
        group.last_step = step;
    }
}

/// The first position below `limit` where the two iteration vectors differ (`limit`
/// when they agree up to it).
fn first_difference(a: &[u64], b: &[u64], limit: usize) -> usize {
    (0..limit).find(|&k| a.get(k) != b.get(k)).unwrap_or(limit)
}

/// The global-memory accesses of the blocks that already ran, for races between
/// blocks. Blocks have no common time line, so this keeps, per element and statement,
/// a trie of the iteration-vector prefixes seen: a node per prefix (with one access
/// below it) and up to two of its children, enough to tell whether an access with the
/// same prefix and a *different* next counter exists.
#[derive(Default)]
pub(super) struct History {
    /// Per element, the statements that accessed it, with the value written (see
    /// [`Entry::value`]; linked through `stmts`).
    heads: FastMap<Loc, u32>,
    stmts: Vec<(StmtIx, i64, u32)>,
    nodes: FastMap<(Loc, StmtIx, i64, u32), Node>,
    pending: Vec<(Loc, Entry)>,
}

struct Node {
    rep: Entry,
    kids: [Option<(u64, Entry)>; 2],
}

impl History {
    pub(super) fn clear(&mut self) {
        self.heads.clear();
        self.stmts.clear();
        self.nodes.clear();
        self.pending.clear();
    }

    /// Remembers an access of the running block; it joins the history when the block ends.
    pub(super) fn record(&mut self, loc: Loc, e: Entry) {
        self.pending.push((loc, e));
    }

    pub(super) fn end_block(&mut self, interner: &Interner) {
        for (loc, e) in std::mem::take(&mut self.pending) {
            let v = interner.get(e.iters);
            for k in 0..=v.len() {
                let prefix = interner.prefix(e.iters, k);
                let node = self
                    .nodes
                    .entry((loc, e.stmt, e.value, prefix))
                    .or_insert_with(|| {
                        if k == 0 {
                            let next = self.heads.insert(loc, self.stmts.len() as u32).unwrap_or(NIL);
                            self.stmts.push((e.stmt, e.value, next));
                        }
                        Node {
                            rep: e,
                            kids: [None, None],
                        }
                    });
                if let Some(&child) = v.get(k) {
                    let known = node.kids.iter().flatten().any(|(c, _)| *c == child);
                    if let Some(free) = node.kids.iter_mut().find(|kid| kid.is_none())
                        && !known
                    {
                        *free = Some((child, e));
                    }
                }
            }
        }
    }

    /// Reports the races of `new` with the accesses of earlier blocks to its element:
    /// one access per race class and statement.
    pub(super) fn access(&self, loc: Loc, new: &Entry, cx: &RunContext, out: &mut Findings) {
        let (prog, interner) = (cx.prog, cx.interner);
        let v = interner.get(new.iters);
        let mut cur = self.heads.get(&loc).copied().unwrap_or(NIL);
        while let Some(&(stmt, value, next)) = self.stmts.get(cur as usize) {
            cur = next;
            let kind = prog.stmts[stmt as usize].access.unwrap_or(AccessKind::Read);
            if !kind.conflicts_with(new.kind) {
                continue;
            }
            if equal_writes(cx, kind, value, new) {
                out.benign(prog, stmt, new.stmt, loc.0);
                continue;
            }
            if out.saturated(prog, stmt, new.stmt, true) {
                continue;
            }
            let common = common_loops(prog, stmt, new.stmt);
            // Walk down `new`'s own prefixes: at depth k, a child other than `new`'s
            // next counter is an access that first differs from `new` at loop k + 1.
            for (k, next_counter) in v.iter().take(common).map(Some).chain([None]).enumerate() {
                let Some(node) = self.nodes.get(&(loc, stmt, value, interner.prefix(new.iters, k))) else {
                    break;
                };
                let other = match next_counter {
                    None => Some(&node.rep),
                    Some(c) => node
                        .kids
                        .iter()
                        .flatten()
                        .find(|(kid, _)| kid != c)
                        .map(|(_, e)| e),
                };
                if let Some(e) = other {
                    out.race(cx, loc, e, new, true);
                }
            }
        }
    }
}

/// Interns iteration vectors (iteration numbers of the enclosing loops, outermost
/// first) as a trie: a vector's id is derived from its parent prefix's id and its last
/// counter, so the interpreter keeps the current vector's id up to date with one small
/// hash lookup per loop iteration, and a prefix of a vector is one of its ancestors.
pub(super) struct Interner {
    ids: FastMap<(u32, u64), u32>,
    nodes: Vec<INode>,
}

struct INode {
    parent: u32,
    vec: Vec<u64>,
}

impl Default for Interner {
    fn default() -> Interner {
        let mut i = Interner {
            ids: FastMap::default(),
            nodes: Vec::new(),
        };
        i.clear();
        i
    }
}

impl Interner {
    /// The id of the empty vector (no enclosing loop).
    pub(super) const ROOT: u32 = 0;

    pub(super) fn clear(&mut self) {
        self.ids.clear();
        self.nodes.clear();
        self.nodes.push(INode {
            parent: Self::ROOT,
            vec: Vec::new(),
        });
    }

    /// The id of `parent`'s vector extended by `counter`.
    pub(super) fn child(&mut self, parent: u32, counter: u64) -> u32 {
        if let Some(id) = self.ids.get(&(parent, counter)) {
            return *id;
        }
        let id = self.nodes.len() as u32;
        let mut vec = self.get(parent).to_vec();
        vec.push(counter);
        self.nodes.push(INode { parent, vec });
        self.ids.insert((parent, counter), id);
        id
    }

    pub(super) fn get(&self, id: u32) -> &[u64] {
        self.nodes.get(id as usize).map_or(&[], |n| n.vec.as_slice())
    }

    /// The id of the first `len` counters of vector `id`.
    pub(super) fn prefix(&self, mut id: u32, len: usize) -> u32 {
        while self.get(id).len() > len {
            id = self.nodes.get(id as usize).map_or(Self::ROOT, |n| n.parent);
        }
        id
    }
}

/// What race detection reads about the current run.
pub(super) struct RunContext<'a> {
    /// Benign tolerance: plain writes of equal values do not race.
    pub benign: bool,
    pub prog: &'a Program,
    pub interner: &'a Interner,
    pub run: &'a RunInfo,
}

/// The launch and parameters of the current run, for witnesses.
pub(super) struct RunInfo {
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    pub params: Vec<(String, i64)>,
}

impl RunInfo {
    pub(super) fn thread(&self, thread: u32, block: u32) -> ThreadId {
        ThreadId {
            tid: unlinear(thread, self.block_dim),
            bid: unlinear(block, self.grid_dim),
        }
    }

    fn witness(&self, threads: [ThreadId; 2], index: Option<i64>, iterations: [Vec<u64>; 2]) -> Witness {
        Witness {
            threads,
            index,
            iterations,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            params: self.params.clone(),
        }
    }
}

/// The x, y, z coordinates of a linear index (x varies fastest, as in CUDA).
pub(super) fn unlinear(i: u32, dims: Dim3) -> Dim3 {
    let x = dims[0].max(1);
    let y = dims[1].max(1);
    [i % x, (i / x) % y, i / (x * y)]
}

/// A racing statement pair, accumulated over all runs.
struct RaceAcc {
    array: u32,
    first: StmtIx,
    second: StmtIx,
    intra: bool,
    /// `inter[j - 1]`: seen across iterations of common loop `j`.
    inter: Vec<bool>,
    classes_seen: usize,
    fixable: bool,
    /// Every instance seen was between threads of one warp (`Findings::classify_warp`).
    warp_local: bool,
    witness: Witness,
    /// Nothing new can be learned from another same-block race of this pair
    /// ([`SAME_BLOCK_DONE`]) or from any race of it ([`ALL_DONE`]). Lets the hot loop skip
    /// the bookkeeping of races it already knows everything about.
    saturated: u8,
}

/// The results of all runs of one check.
pub(super) struct Findings {
    races: FastMap<(StmtIx, StmtIx), RaceAcc>,
    /// `RaceAcc::saturated` of every statement pair (both orders) as a dense matrix,
    /// because the hot loop asks for it at every conflicting access; empty for kernels
    /// too large for one, which then ask `races`.
    saturation: Vec<u8>,
    nstmts: usize,
    divergences: BTreeMap<StmtIx, Divergence>,
    notes: Vec<String>,
    /// Write-write pairs seen writing equal values unordered (array, statements in
    /// either order); benign unless the pair also races.
    benign: std::collections::BTreeSet<(u32, StmtIx, StmtIx)>,
    /// The last entry of `benign` (most repeats come in a row).
    last_benign: Option<(u32, StmtIx, StmtIx)>,
    /// The warp size when races are classified as warp-local
    /// (`CheckOptions::classify_warps`): a pair is then saturated only once an instance
    /// between two warps was seen too.
    pub classify_warp: Option<u32>,
    /// Record every race type seen, with a witness each, instead of races per pair
    /// (`dynamic::race_instances`).
    pub instances: Option<Instances>,
}

/// A race type seen in a run, in the terms of the static verifier's queries: the two
/// statements, `earlier` the one whose iteration of the loop at `depth` is the smaller
/// (for the same iterations of all common loops, `depth` is `None` and the smaller
/// statement index comes first), and whether the threads are in different blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct TypeSeen {
    pub earlier: StmtIx,
    pub later: StmtIx,
    pub depth: Option<usize>,
    pub cross_block: bool,
}

/// The race types runs exhibited, each with the first instance seen as its witness
/// (threads and iterations in the order `earlier`, `later`).
#[derive(Default)]
pub(super) struct Instances {
    pub seen: FastMap<TypeSeen, Witness>,
    /// Per statement pair (smaller index first) and block scope: how many of its race
    /// types were seen, to saturate the pair once all were.
    counts: FastMap<(StmtIx, StmtIx, bool), usize>,
}

impl Instances {
    /// Records the race type of `x` and `y` (distinct threads, one element `loc`).
    /// Returns the saturation flag to set for the pair when all of its types in this
    /// scope are now seen: [`SAME_BLOCK_DONE`] within a block, [`ALL_DONE`] across blocks
    /// (which is what [`Findings::saturated`] asks of each scope in this mode).
    fn record(&mut self, cx: &RunContext, loc: Loc, x: &Entry, y: &Entry, cross_block: bool) -> Option<u8> {
        let (prog, interner, run) = (cx.prog, cx.interner, cx.run);
        let common = common_loops(prog, x.stmt, y.stmt);
        let (ix, iy) = (interner.get(x.iters), interner.get(y.iters));
        let class = (0..common).find(|&j| ix.get(j) != iy.get(j));
        let y_first = match class {
            Some(j) => iy.get(j) < ix.get(j),
            None => y.stmt < x.stmt,
        };
        let ((e, ie), (l, il)) = if y_first {
            ((y, iy), (x, ix))
        } else {
            ((x, ix), (y, iy))
        };
        let key = TypeSeen {
            earlier: e.stmt,
            later: l.stmt,
            depth: class.map(|j| j + 1),
            cross_block,
        };
        if self.seen.contains_key(&key) {
            return None;
        }
        let witness = run.witness(
            [run.thread(e.thread, e.block), run.thread(l.thread, l.block)],
            Some(loc.1),
            [ie.to_vec(), il.to_vec()],
        );
        self.seen.insert(key, witness);
        let pair = (e.stmt.min(l.stmt), e.stmt.max(l.stmt));
        let types = 1 + common * if pair.0 == pair.1 { 1 } else { 2 };
        let count = self.counts.entry((pair.0, pair.1, cross_block)).or_insert(0);
        *count += 1;
        (*count == types).then_some(if cross_block { ALL_DONE } else { SAME_BLOCK_DONE })
    }
}

const SAME_BLOCK_DONE: u8 = 1;
const ALL_DONE: u8 = 2;

impl Findings {
    pub(super) fn new(prog: &Program) -> Findings {
        const MAX_DENSE: usize = 2048;
        let n = prog.stmts.len();
        Findings {
            races: FastMap::default(),
            saturation: if n <= MAX_DENSE {
                vec![0; n * n]
            } else {
                Vec::new()
            },
            nstmts: n,
            divergences: BTreeMap::new(),
            notes: Vec::new(),
            benign: std::collections::BTreeSet::new(),
            last_benign: None,
            classify_warp: None,
            instances: None,
        }
    }

    pub(super) fn note(&mut self, msg: String) {
        if !self.notes.contains(&msg) {
            self.notes.push(msg);
        }
    }

    /// Two plain writes of statements `a` and `b` to one element of `array` stored equal
    /// values unordered (a benign pair, unless the two race elsewhere).
    pub(super) fn benign(&mut self, prog: &Program, a: StmtIx, b: StmtIx, array: u32) {
        let key = if prog.stmts[b as usize].post < prog.stmts[a as usize].post {
            (array, b, a)
        } else {
            (array, a, b)
        };
        if self.last_benign != Some(key) {
            self.last_benign = Some(key);
            self.benign.insert(key);
        }
    }

    /// Whether another race of statements `a` and `b` cannot add anything (all classes
    /// seen, and for `cross_block` also known to be unfixable).
    pub(super) fn saturated(&self, prog: &Program, a: StmtIx, b: StmtIx, cross_block: bool) -> bool {
        let done = if cross_block { ALL_DONE } else { SAME_BLOCK_DONE };
        if let Some(flags) = self.saturation.get(a as usize * self.nstmts + b as usize) {
            return flags & done != 0;
        }
        let key = if prog.stmts[b as usize].post < prog.stmts[a as usize].post {
            (b, a)
        } else {
            (a, b)
        };
        self.races.get(&key).is_some_and(|acc| acc.saturated & done != 0)
    }

    /// Records a race between an earlier access `old` and the access `new` of the same
    /// element `loc`, by distinct threads. `cross_block`: the threads are in different
    /// blocks, so no barrier can order them.
    pub(super) fn race(&mut self, cx: &RunContext, loc: Loc, old: &Entry, new: &Entry, cross_block: bool) {
        if let Some(log) = &mut self.instances {
            if let Some(flag) = log.record(cx, loc, old, new, cross_block) {
                self.set_saturated(old.stmt, new.stmt, flag);
            }
            return;
        }
        let (prog, interner, run) = (cx.prog, cx.interner, cx.run);
        let (a, b) = if prog.stmts[new.stmt as usize].post < prog.stmts[old.stmt as usize].post {
            (new, old)
        } else {
            (old, new)
        };
        if self.saturated(prog, a.stmt, b.stmt, cross_block) {
            return;
        }
        let common = common_loops(prog, a.stmt, b.stmt);
        let (ia, ib) = (interner.get(a.iters), interner.get(b.iters));
        let class = (0..common).find(|&j| ia.get(j) != ib.get(j));
        let make_witness = || {
            run.witness(
                [run.thread(a.thread, a.block), run.thread(b.thread, b.block)],
                Some(loc.1),
                [ia.to_vec(), ib.to_vec()],
            )
        };
        let acc = self.races.entry((a.stmt, b.stmt)).or_insert_with(|| RaceAcc {
            array: loc.0,
            first: a.stmt,
            second: b.stmt,
            intra: false,
            inter: vec![false; common],
            classes_seen: 0,
            fixable: true,
            warp_local: self.classify_warp.is_some(),
            witness: make_witness(),
            saturated: 0,
        });
        if cross_block || self.classify_warp.is_some_and(|w| a.thread / w != b.thread / w) {
            acc.warp_local = false;
        }
        let slot = match class {
            None => &mut acc.intra,
            Some(j) => &mut acc.inter[j],
        };
        if !*slot {
            *slot = true;
            acc.classes_seen += 1;
        }
        if cross_block && acc.fixable {
            // Prefer a witness that shows why no barrier helps.
            acc.fixable = false;
            acc.witness = make_witness();
        }
        if acc.classes_seen == common + 1 && !acc.warp_local {
            acc.saturated |= SAME_BLOCK_DONE;
            if !acc.fixable {
                acc.saturated |= ALL_DONE;
            }
            let flags = acc.saturated;
            self.set_saturated(a.stmt, b.stmt, flags);
        }
    }

    /// Adds `flags` to the saturation of statements `a` and `b` (both orders) in the
    /// dense matrix.
    fn set_saturated(&mut self, a: StmtIx, b: StmtIx, flags: u8) {
        let n = self.nstmts;
        for ix in [a as usize * n + b as usize, b as usize * n + a as usize] {
            if let Some(f) = self.saturation.get_mut(ix) {
                *f |= flags;
            }
        }
    }

    pub(super) fn divergence(&mut self, prog: &Program, stmt: StmtIx, witness: impl FnOnce() -> Witness) {
        if prog.stmts[stmt as usize].ticket {
            return;
        }
        self.divergences.entry(stmt).or_insert_with(|| {
            let info = &prog.stmts[stmt as usize];
            let witness = witness();
            Divergence {
                stmt: info.id,
                span: info.span,
                replay: Some(crate::Replay::of_run(&witness)),
                witness: Some(witness),
            }
        });
    }

    /// The divergent barriers seen so far, with their witnesses.
    pub(super) fn divergences(&self) -> impl Iterator<Item = &Divergence> {
        self.divergences.values()
    }

    /// The statement pairs runs saw writing equal values to one element unordered:
    /// pairs the benign rule spared.
    pub(super) fn benign_pairs(&self) -> impl Iterator<Item = (StmtIx, StmtIx)> + '_ {
        self.benign.iter().map(|(_, a, b)| (*a, *b))
    }

    /// The report: races in program text order of their statements, divergences in
    /// program text order.
    pub(super) fn into_report(self, prog: &Program, tree: &LabelTree) -> crate::Report {
        let access = |ix: StmtIx| {
            let info = &prog.stmts[ix as usize];
            Access {
                stmt: info.id,
                kind: info.access.unwrap_or(AccessKind::Read),
                span: info.span,
            }
        };
        // Pairs that also raced are races, not benign.
        let benign: Vec<crate::BenignPair> = self
            .benign
            .into_iter()
            .filter(|(_, a, b)| !self.races.contains_key(&(*a, *b)))
            .map(|(array, a, b)| {
                let (first, second, _) = in_text_order(tree, access(a), access(b));
                crate::BenignPair {
                    array: prog.arrays[array as usize].name.clone(),
                    first,
                    second,
                }
            })
            .collect();
        let mut races: Vec<(u32, u32, Race)> = self
            .races
            .into_values()
            .map(|acc| {
                let (first, second, swapped) = in_text_order(tree, access(acc.first), access(acc.second));
                let mut witness = acc.witness;
                if swapped {
                    witness.threads.swap(0, 1);
                    witness.iterations.swap(0, 1);
                }
                let race = Race {
                    array: prog.arrays[acc.array as usize].name.clone(),
                    space: prog.arrays[acc.array as usize].space,
                    first,
                    second,
                    intra: acc.intra,
                    inter: (1..=acc.inter.len()).filter(|j| acc.inter[j - 1]).collect(),
                    forward_only: Vec::new(),
                    fixable: acc.fixable,
                    warp_local: acc.warp_local && acc.fixable,
                    replay: Some(crate::Replay::of_run(&witness)),
                    witness: Some(witness),
                };
                let post = |ix: StmtIx| prog.stmts[ix as usize].post;
                (
                    post(acc.first).min(post(acc.second)),
                    post(acc.first).max(post(acc.second)),
                    race,
                )
            })
            .collect();
        races.sort_by(|x, y| (x.0, x.1, &x.2.array).cmp(&(y.0, y.1, &y.2.array)));
        let mut divergences: Vec<(u32, Divergence)> = self
            .divergences
            .into_iter()
            .map(|(ix, d)| (prog.stmts[ix as usize].post, d))
            .collect();
        divergences.sort_by_key(|(post, _)| *post);
        crate::Report {
            races: races.into_iter().map(|(_, _, r)| r).collect(),
            divergences: divergences.into_iter().map(|(_, d)| d).collect(),
            notes: self.notes,
            benign,
        }
    }
}

/// The number of loops enclosing both statements.
fn common_loops(prog: &Program, a: StmtIx, b: StmtIx) -> usize {
    let (la, lb) = (&prog.stmts[a as usize].loops, &prog.stmts[b as usize].loops);
    la.iter().zip(lb).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_indices_unfold_x_fastest() {
        assert_eq!(unlinear(5, [4, 2, 1]), [1, 1, 0]);
        assert_eq!(unlinear(9, [2, 2, 3]), [1, 0, 2]);
        assert_eq!(unlinear(0, [0, 0, 0]), [0, 0, 0]);
    }
}
