//! The dependence test on unrolled loops: a race type of a pair between two threads of
//! one block (the same iteration of every common loop, or different iterations of one
//! of them in one direction), decided without the solver by enumerating the iterations
//! and the threads, when there are few.
//!
//! Sorting networks and butterflies index shared memory with `pos = 2·tid − (tid &
//! (stride − 1))` for a power-of-two `stride` that a loop halves or doubles. For each
//! value of `stride` the accesses of one stage form a permutation of the elements, but
//! over a symbolic exponent that is a hard query: each one cost the solver 10–70 ms, and
//! `sdk/oddEvenMergeSort` asked 38 of them in its first check. Their loops have few
//! iterations (their guards fold to constants once the enclosing loops' iteration numbers
//! are known), and the block has a fixed, small number of threads. So the test computes,
//! at every pair of iterations of the race type, the element of each thread, and looks
//! for an element two distinct threads share.
//!
//! Why "none" is the solver's answer: the race query asks for two distinct threads of one
//! block, at iterations related as its type says (`Checker::occurrences`), whose indices
//! are equal (and whose predicates, preconditions and assumptions hold). The test covers
//! every such pair:
//! - iterations: a thread is inside iteration `k` of a loop only while its guard held at
//!   every iteration up to `k` ([`super::symbolic::LoopInfo::guard`]); the test stops at
//!   the first iteration whose guard is false for every thread (a thread's own guard
//!   excludes it where it is false), and gives up on a guard it cannot evaluate or a
//!   loop longer than [`MAX_TRIP`];
//! - threads: every thread of the fixed launch, each with its own iterations of the loops
//!   that are not shared by the race type;
//! - indices: evaluated exactly ([`kpl::Arith::binary`], as the term builder folds
//!   constants); parts the block shares but the test does not know (block ids, launch
//!   and parameter values) must cancel between the two indices, else it gives up;
//! - predicates: conjuncts it can evaluate exclude threads; the others (memory values,
//!   loop membership) are taken as true, and preconditions and assumptions are ignored:
//!   more pairs than the query has, so no pair still means unsat.
//!
//! Such an answer is kept in the kernel's cache as the barrier-free one, so a later check
//! of the synthesizer reuses it whatever its barriers. For the same-iteration type, the
//! meetings are kept too, and a check whose barriers separate all of them (different
//! numbers of barriers passed, [`Unrolled::all_separated`]) needs no query for it.

use kpl::{Arith, BinOp, Builtin, IntTy};

use std::collections::HashMap;

use super::queries::Order;
use super::symbolic::{AccessFact, BarrierFact, Summary};
use super::term::{LoopId, T, Term, any_node};

/// Iterations of one loop beyond which the test gives up.
pub(super) const MAX_TRIP: i64 = 256;

/// Thread-instances the test evaluates for one pair (iteration instances times threads,
/// both accesses): about a millisecond of work.
const MAX_WORK: usize = 1 << 18;

/// Instances at which two threads meet that the test keeps for the barrier count.
pub(super) const MAX_MEETINGS: usize = 4096;

/// Term nodes one evaluation may visit (terms are DAGs).
const MAX_NODES: u32 = 4096;

/// The iteration numbers of one thread copy's loops.
pub(super) type Env = Vec<(LoopId, i64)>;

/// Instances of a pair (the first access's iterations, the second's) at which two
/// threads access one element.
pub(super) type Meetings = Vec<(Env, Env)>;

/// The test's view of a kernel: its summary and the threads of its fixed block.
pub(super) struct Unrolled<'s> {
    sum: &'s Summary,
    /// Threads per block per dimension (1 in the dimensions the kernel never names).
    bdim: [i64; 3],
    /// Per loop, whether its guard depends on the thread (`for (i = tid; i < n; i +=
    /// bdim)`): its iterations differ between threads.
    per_thread: Vec<bool>,
    /// The threads of the block, x fastest.
    threads: Vec<[i64; 3]>,
}

/// An index as `Σ k·x + c`, split into the terms that vary between the threads of a
/// block (evaluated per thread) and those all its threads share (block ids, launch and
/// parameter values the test does not know).
#[derive(Debug, Default)]
struct Split {
    thread: Vec<(T, i128)>,
    shared: Vec<(T, i128)>,
    c: i128,
}

impl<'s> Unrolled<'s> {
    /// `None` unless the arithmetic is unbounded and the block has a fixed size.
    pub(super) fn new(sum: &'s Summary) -> Option<Unrolled<'s>> {
        if sum.arith != Arith::Unbounded {
            return None;
        }
        // A size the launch gives counts even in a dimension the kernel never names
        // (its threads differ there, as `affine::Launch::of` has it); an unnamed
        // dimension the launch leaves open has size 1.
        let mut bdim = [1i64; 3];
        for (d, size) in bdim.iter_mut().enumerate() {
            match sum.block_dim[d] {
                Some(n) if (1..=1024).contains(&n) => *size = n,
                None if !sum.dims_used[d] => {}
                _ => return None,
            }
        }
        let per_thread = sum
            .loops
            .iter()
            .map(|l| {
                l.as_ref()
                    .is_none_or(|l| any_node(&l.guard, &mut |t| matches!(t, Term::Builtin(Builtin::Tid(_)))))
            })
            .collect();
        if bdim.iter().product::<i64>() > 1024 {
            return None;
        }
        let [x, y, z] = bdim;
        let threads = (0..z)
            .flat_map(|k| (0..y).flat_map(move |j| (0..x).map(move |i| [i, j, k])))
            .collect();
        Some(Unrolled {
            sum,
            bdim,
            per_thread,
            threads,
        })
    }

    /// The instances of the pair of race type `order` (the same iterations of the
    /// common loops, or different ones of one of them) at which two distinct threads
    /// of one block access one element (at most `keep`); empty when there is none:
    /// the race type within a block is then unsatisfiable, whatever the barriers.
    /// `None` when the test does not apply, gives up, or meets more than `keep`.
    pub(super) fn meetings(
        &self,
        a: &AccessFact,
        b: &AccessFact,
        order: Order,
        keep: usize,
    ) -> Option<Meetings> {
        let (sa, sb) = (self.split(&a.index)?, self.split(&b.index)?);
        if !cancels(&sa.shared, &sb.shared) {
            return None;
        }
        let threads = &self.threads;
        let instances = self.instances(a, b, order, MAX_WORK / (2 * threads.len()))?;
        let mut first: HashMap<i128, (usize, bool)> = HashMap::new();
        let mut out = Vec::new();
        for (ea, eb) in instances {
            first.clear();
            for (n, &tid) in threads.iter().enumerate() {
                if let Some(v) = self.element(&sa, &a.pred, &ea, tid)? {
                    first
                        .entry(v)
                        .and_modify(|(_, many)| *many = true)
                        .or_insert((n, false));
                }
            }
            let mut meet = false;
            for (n, &tid) in threads.iter().enumerate() {
                if let Some(v) = self.element(&sb, &b.pred, &eb, tid)?
                    && let Some(&(m, many)) = first.get(&v)
                    && (many || m != n)
                {
                    meet = true;
                    break;
                }
            }
            if meet {
                if out.len() == keep {
                    return None;
                }
                out.push((ea, eb));
            }
        }
        Some(out)
    }

    /// Every instance of `meetings` has a barrier between the two accesses: the
    /// threads have passed different numbers of barriers since the start of the
    /// current iteration of the innermost common loop, so the one that passed fewer
    /// must wait at the next for the other. A barrier instance counts when every thread
    /// of the block runs it (its predicate evaluates alike for all of them: a divergent
    /// barrier synchronizes nothing), in loops whose iterations are the same for every
    /// thread (no guard on the thread, no early exit); anything else, or a barrier the
    /// test cannot evaluate, and the test gives up. Then the same-iteration race type
    /// is unsatisfiable with the kernel's barriers.
    pub(super) fn all_separated(&self, a: &AccessFact, b: &AccessFact, meetings: &[(Env, Env)]) -> bool {
        let common = Summary::common_loops(&a.loops, &b.loops);
        let inside =
            |bar: &&BarrierFact| bar.loops.len() >= common && bar.loops[..common] == a.loops[..common];
        let bars: Vec<&BarrierFact> = self.sum.barriers.iter().filter(inside).collect();
        let alike = |l: &LoopId| {
            self.sum.loops.get(*l).and_then(|i| i.as_ref()).is_some_and(|i| {
                !i.exit_jumps
                    && (i.trip_term.as_const().is_some() || !self.per_thread.get(*l).copied().unwrap_or(true))
            })
        };
        let countable = bars
            .iter()
            .all(|bar| !bar.warp && !bar.grid && bar.loops.iter().all(alike));
        if !countable || bars.is_empty() {
            return false;
        }
        let passed = |acc: &AccessFact, env: &Env| -> Option<u64> {
            bars.iter()
                .try_fold(0u64, |n, bar| n.checked_add(self.passed(bar, acc, env, common)?))
        };
        meetings
            .iter()
            .all(|(ea, eb)| match (passed(a, ea), passed(b, eb)) {
                (Some(x), Some(y)) => x != y,
                _ => false,
            })
    }

    /// Whether every thread of the block runs `bar` at the iterations `env` of its
    /// loops (`Some(false)`: none does); `None` when the threads differ or the test
    /// cannot tell. Its loops run alike for every thread, so being inside them is taken
    /// as given.
    fn executes(&self, bar: &BarrierFact, env: &Env) -> Option<bool> {
        let per_thread = any_node(&bar.pred, &mut |t| matches!(t, Term::Builtin(Builtin::Tid(_))));
        let mut all: Option<bool> = None;
        for &tid in self.threads_to_try(per_thread) {
            let mut nodes = 0;
            let v = self.eval_with(&bar.pred, env, tid, &mut nodes, true)? != 0;
            if all.is_some_and(|w| w != v) {
                return None;
            }
            all = Some(v);
        }
        all
    }

    /// How often a thread at `acc` in iterations `env` has passed `bar` since the start
    /// of its current iteration of loop `bar.loops[depth - 1]` (of the kernel, for
    /// depth 0); `None` when a loop's iterations are unknown.
    fn passed(&self, bar: &BarrierFact, acc: &AccessFact, env: &Env, depth: usize) -> Option<u64> {
        let Some(&l) = bar.loops.get(depth) else {
            if bar.pos > acc.pos {
                return Some(0);
            }
            return self.executes(bar, &env[..depth].to_vec()).map(u64::from);
        };
        let outer: Env = env[..depth].to_vec();
        if acc.loops.get(depth) == Some(&l) {
            // The loop of both: its earlier iterations whole, then this one up to `acc`.
            let now = env.get(depth).map(|(_, k)| *k)?;
            let mut n = 0u64;
            for k in 0..now {
                let mut e = outer.clone();
                e.push((l, k));
                n = n.checked_add(self.per_iteration(bar, &e, depth + 1)?)?;
            }
            return n.checked_add(self.passed(bar, acc, env, depth + 1)?);
        }
        if bar.pos > acc.pos {
            return Some(0);
        }
        // A loop run to its end before `acc`.
        let mut n = 0u64;
        for k in self.iterations_of_all(l, &outer)? {
            let mut e = outer.clone();
            e.push((l, k));
            n = n.checked_add(self.per_iteration(bar, &e, depth + 1)?)?;
        }
        Some(n)
    }

    /// How often `bar` runs in one iteration (given by `env`) of loop
    /// `bar.loops[depth - 1]`.
    fn per_iteration(&self, bar: &BarrierFact, env: &Env, depth: usize) -> Option<u64> {
        let Some(&l) = bar.loops.get(depth) else {
            return self.executes(bar, env).map(u64::from);
        };
        let mut n = 0u64;
        for k in self.iterations_of_all(l, env)? {
            let mut e = env.clone();
            e.push((l, k));
            n = n.checked_add(self.per_iteration(bar, &e, depth + 1)?)?;
        }
        Some(n)
    }

    /// The threads a term must be evaluated for: all of them when it depends on the
    /// thread, else one (thread 0, the first).
    fn threads_to_try(&self, per_thread: bool) -> &[[i64; 3]] {
        if per_thread {
            &self.threads
        } else {
            &self.threads[..1]
        }
    }

    /// The element thread `tid` accesses at the iterations `env`, or `None` inside when
    /// the predicate is false there; `None` outside when the index cannot be evaluated.
    fn element(&self, s: &Split, pred: &T, env: &Env, tid: [i64; 3]) -> Option<Option<i128>> {
        if self.holds(pred, env, tid) == Some(false) {
            return Some(None);
        }
        // The thread's own guards of the loops whose iterations differ between threads.
        for &(l, _) in env {
            if self.per_thread.get(l).copied().unwrap_or(false)
                && let Some(Some(info)) = self.sum.loops.get(l)
                && self.holds(&info.guard, env, tid) == Some(false)
            {
                return Some(None);
            }
        }
        let mut v = s.c;
        for (x, k) in &s.thread {
            let mut nodes = 0;
            let e = i128::from(self.eval(x, env, tid, &mut nodes)?);
            v = v.checked_add(e.checked_mul(*k)?)?;
        }
        Some(Some(v))
    }

    /// The predicate's value when what the test can evaluate decides it (a conjunct
    /// false, a disjunct true); `None` when it may hold.
    fn holds(&self, pred: &T, env: &Env, tid: [i64; 3]) -> Option<bool> {
        let mut nodes = 0;
        self.eval(pred, env, tid, &mut nodes).map(|v| v != 0)
    }

    /// Every pair of iteration instances of `a` (first copy) and `b` (second copy) of
    /// race type `order` (as `Checker::occurrences` relates them); `None` when there are
    /// more than `cap` or a loop's iterations are unknown.
    fn instances(&self, a: &AccessFact, b: &AccessFact, order: Order, cap: usize) -> Option<Vec<(Env, Env)>> {
        // Loops above `shared` are in the same iteration for both copies; at `split`
        // (different iterations) the first copy's comes before the second's (forward)
        // or after it.
        let (shared, split) = match order {
            Order::Intra => (Summary::common_loops(&a.loops, &b.loops), None),
            Order::Inter { depth, forward } => (depth - 1, Some((depth - 1, forward))),
        };
        let mut prefix: Vec<Env> = vec![Vec::new()];
        for &l in a.loops.get(..shared)? {
            prefix = self.extend(prefix, l)?;
        }
        let ordered = |x: &Env, y: &Env| match split {
            None => true,
            Some((d, forward)) => match (x.get(d), y.get(d)) {
                (Some(i), Some(j)) => (i.1 < j.1) == forward && i.1 != j.1,
                _ => false,
            },
        };
        let mut out = Vec::new();
        for env in prefix {
            let mut ea = vec![env.clone()];
            for &l in &a.loops[shared..] {
                ea = self.extend(ea, l)?;
            }
            let mut eb = vec![env];
            for &l in &b.loops[shared..] {
                eb = self.extend(eb, l)?;
            }
            let pairs = ea.len().checked_mul(eb.len())?;
            // Different iterations keep about half of the pairs.
            let kept = if split.is_some() { pairs / 2 } else { pairs };
            if out.len() + kept > cap {
                return None;
            }
            for x in &ea {
                out.extend(
                    eb.iter()
                        .filter(|y| ordered(x, y))
                        .map(|y| (x.clone(), y.clone())),
                );
                if out.len() > cap {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Each environment extended with every iteration of loop `l` a thread can be in.
    fn extend(&self, envs: Vec<Env>, l: LoopId) -> Option<Vec<Env>> {
        let mut out = Vec::new();
        for env in envs {
            for k in self.iterations(l, &env)? {
                let mut e = env.clone();
                e.push((l, k));
                out.push(e);
            }
            if out.len() > MAX_WORK {
                return None;
            }
        }
        Some(out)
    }

    /// The iterations of loop `l` some thread can be in, given the enclosing loops'
    /// iteration numbers: all of a constant trip count, else up to the first whose guard
    /// is false for every thread (a thread is inside iteration `k` only if the guard
    /// held there; [`Unrolled::element`] checks a thread's own guard).
    fn iterations(&self, l: LoopId, env: &Env) -> Option<std::ops::Range<i64>> {
        let info = self.sum.loops.get(l)?.as_ref()?;
        if let Some(trip) = info.trip_term.as_const() {
            return (trip <= MAX_TRIP).then_some(0..trip.max(0));
        }
        let mut env = env.clone();
        env.push((l, 0));
        let threads = self.threads_to_try(self.per_thread.get(l).copied().unwrap_or(true));
        for k in 0..=MAX_TRIP {
            if let Some(last) = env.last_mut() {
                last.1 = k;
            }
            let mut inside = false;
            for &tid in threads {
                let mut nodes = 0;
                inside |= self.eval(&info.guard, &env, tid, &mut nodes)? != 0;
            }
            if !inside {
                return Some(0..k);
            }
        }
        None
    }

    /// The iterations of loop `l` every thread runs (to count the barriers in them):
    /// [`Unrolled::iterations`] of a loop whose guard does not depend on the thread.
    fn iterations_of_all(&self, l: LoopId, env: &Env) -> Option<std::ops::Range<i64>> {
        let info = self.sum.loops.get(l)?.as_ref()?;
        let uniform = info.trip_term.as_const().is_some() || !self.per_thread.get(l).copied().unwrap_or(true);
        if uniform { self.iterations(l, env) } else { None }
    }

    /// `t` as thread terms, shared terms and a constant ([`super::affine::linear`]);
    /// `None` when a term is neither: it reads memory, mixes the two kinds inside an
    /// operation the split does not open, or is an operation undefined for some
    /// operands (a shift by an unknown amount, a division by an unknown divisor), an
    /// arbitrary value in the queries, not necessarily the same for two threads.
    fn split(&self, t: &T) -> Option<Split> {
        let mut terms = Vec::new();
        let mut s = Split::default();
        let mut visits = 0;
        super::affine::linear(&self.sum.builder(), t, 1, &mut terms, &mut s.c, &mut visits)?;
        for (x, k) in terms.into_iter().filter(|(_, k)| *k != 0) {
            let unknown = any_node(&x, &mut |n| matches!(n, Term::Atom(..) | Term::InLoop(_)));
            let per_thread = any_node(&x, &mut |n| {
                matches!(
                    n,
                    Term::Builtin(Builtin::Tid(_)) | Term::Iter(_) | Term::IterAdd(..)
                )
            });
            let partial = any_node(
                &x,
                &mut |n| matches!(n, Term::Bin(BinOp::Shl | BinOp::Shr | BinOp::Div | BinOp::Rem, _, y) if y.as_const().is_none()),
            );
            match (unknown, per_thread) {
                (true, _) => return None,
                (false, true) => s.thread.push((x, k)),
                (false, false) if partial => return None,
                (false, false) => s.shared.push((x, k)),
            }
        }
        Some(s)
    }

    /// The value of `t` for thread `tid` at iterations `env`; `None` for what the test
    /// does not know (memory values, block ids, unknown launch sizes and parameters,
    /// undefined arithmetic).
    fn eval(&self, t: &T, env: &Env, tid: [i64; 3], nodes: &mut u32) -> Option<i64> {
        self.eval_with(t, env, tid, nodes, false)
    }

    /// [`Unrolled::eval`]; with `inside`, being inside the iterations `env` of its loops
    /// (`Term::InLoop`) is taken as true.
    fn eval_with(&self, t: &T, env: &Env, tid: [i64; 3], nodes: &mut u32, inside: bool) -> Option<i64> {
        *nodes += 1;
        if *nodes > MAX_NODES {
            return None;
        }
        let arith = self.sum.arith;
        match &**t {
            Term::Const(v) => Some(*v),
            Term::Builtin(Builtin::Tid(d)) => Some(tid[d.index()]),
            Term::Builtin(Builtin::Bdim(d)) => Some(self.bdim[d.index()]),
            Term::InLoop(l) if inside && env.iter().any(|(x, _)| x == l) => Some(1),
            Term::Builtin(_) | Term::Param(..) | Term::Atom(..) | Term::InLoop(_) => None,
            Term::Iter(l) => env.iter().find(|(x, _)| x == l).map(|(_, k)| *k),
            Term::IterAdd(k, off) => self.eval_with(k, env, tid, nodes, inside)?.checked_add(*off),
            Term::Un(op, a) => arith.unary(*op, self.eval_with(a, env, tid, nodes, inside)?).ok(),
            Term::Bin(op @ (BinOp::And | BinOp::Or), x, y) => {
                // Either side may decide it alone.
                let unit = i64::from(*op == BinOp::And);
                let (vx, vy) = (
                    self.eval_with(x, env, tid, nodes, inside),
                    self.eval_with(y, env, tid, nodes, inside),
                );
                let truth = |v: Option<i64>| v.map(|v| i64::from(v != 0));
                match (truth(vx), truth(vy)) {
                    (Some(p), _) if p != unit => Some(p),
                    (_, Some(p)) if p != unit => Some(p),
                    (Some(_), Some(_)) => Some(unit),
                    _ => None,
                }
            }
            Term::Bin(op, x, y) => {
                let vx = self.eval_with(x, env, tid, nodes, inside)?;
                let vy = self.eval_with(y, env, tid, nodes, inside)?;
                arith.binary(*op, vx, vy).ok()
            }
            Term::Ite(c, x, y) => {
                if self.eval_with(c, env, tid, nodes, inside)? != 0 {
                    self.eval_with(x, env, tid, nodes, inside)
                } else {
                    self.eval_with(y, env, tid, nodes, inside)
                }
            }
            Term::Table(k, entries, tail) => {
                let i = self.eval_with(k, env, tid, nodes, inside)?;
                let e = usize::try_from(i)
                    .ok()
                    .and_then(|i| entries.get(i))
                    .unwrap_or(tail);
                self.eval_with(e, env, tid, nodes, inside)
            }
            Term::Pow2(e) => match self.eval_with(e, env, tid, nodes, inside)? {
                e if e < 0 => Some(0),
                e if e <= 62 => Some(1 << e),
                _ => None,
            },
            Term::Cast(ty, a) => convert(*ty, self.eval_with(a, env, tid, nodes, inside)?),
        }
    }
}

fn convert(ty: IntTy, v: i64) -> Option<i64> {
    i64::try_from(ty.convert(i128::from(v))).ok()
}

/// The shared terms of the two indices are equal (their difference is 0 whatever their
/// values).
fn cancels(a: &[(T, i128)], b: &[(T, i128)]) -> bool {
    let mut diff: Vec<(T, i128)> = a.to_vec();
    for (t, k) in b {
        match diff.iter_mut().find(|(x, _)| x == t) {
            Some((_, c)) => *c -= k,
            None => diff.push((t.clone(), -k)),
        }
    }
    diff.iter().all(|(_, k)| *k == 0)
}
