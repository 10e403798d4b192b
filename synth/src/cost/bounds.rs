//! The loop-bound-aware static model: a barrier costs the product of the trip counts of
//! its enclosing loops, times, per enclosing conditional, the fraction of blocks that
//! enter it — each computed when the launch configuration and the pinned parameters make
//! it a constant, the paper's LC and IC otherwise.
//!
//! What is computed, and how:
//! - a `for (v = init; cond; v = step)` loop whose body does not assign `v`, and whose
//!   header reads only `v`, scalar parameters with a known value (`--param`, or a
//!   `requires p == c` conjunct), `bdim`/`gdim` (when the launch is known) and `tid`/`bid`:
//!   the header is run for every thread of a block (`tid`) and every block (`bid`) as
//!   needed; a block executes the loop as often as its longest-running thread (lock
//!   step), and the trip count is the mean over blocks. `break`/`return` in the body are
//!   ignored, so this is an upper bound for such loops. `while` loops and loops whose
//!   bounds depend on other variables (an enclosing loop's, a local) fall back to LC.
//! - an `if` whose guard reads only parameters with known values, the launch and ids:
//!   the fraction of blocks in which at least one thread enters the branch (a block
//!   executes a barrier when any of its threads reaches it). A guard that depends on
//!   `tid` alone thus costs 1 (a barrier there diverges anyway unless all or no threads
//!   enter), a guard on `bid` the fraction of blocks, a constant guard 1 or 0. Others
//!   fall back to IC.
//!
//! So the cost approximates the number of times a barrier there executes per block, as
//! the paper's model intends, with exact numbers where the text gives them.

use std::collections::{BTreeMap, HashMap};

use kpl::{Arith, Builtin, Expr, Kernel, Label, LabelTree, NodeKind, Stmt, StmtId, StmtKind};

use super::{CostModel, PaperCost};

pub use kpl::Launch;

/// The most (thread, block) pairs an estimate evaluates before giving up.
const MAX_EVALS: u64 = 1 << 20;
/// Trip counts above this are not computed (the loop is treated as unknown).
const MAX_TRIPS: u64 = 1 << 20;

/// Loop-bound-aware costs for one kernel (statement ids are the kernel's; the model
/// applies to any tree of the same kernel with or without barriers).
#[derive(Clone, Debug)]
pub struct BoundsCost {
    /// Trip count per loop statement, when computable.
    trips: HashMap<StmtId, f64>,
    /// Fraction of blocks entering the then-branch (`false`) or else-branch (`true`) of
    /// an `if`, when computable.
    guards: HashMap<(StmtId, bool), f64>,
    /// LC and IC for what is not computable.
    pub fallback: PaperCost,
}

impl BoundsCost {
    pub fn new(kernel: &Kernel, launch: &Launch, fallback: PaperCost) -> BoundsCost {
        // The kernel's own pins (`requires bdim == 256 && n == 4`), as the verifier sees them.
        let launch = launch.for_kernel(kernel);
        let cx = Cx {
            launch: &launch,
            params: &launch.params,
        };
        let mut m = BoundsCost {
            trips: HashMap::new(),
            guards: HashMap::new(),
            fallback,
        };
        for s in kernel.stmts() {
            match &s.kind {
                StmtKind::For {
                    var,
                    init,
                    cond,
                    step,
                    body,
                } if !assigns(&body.stmts, var) => {
                    if let Some(t) = cx.trips(var, init, cond, step) {
                        m.trips.insert(s.id, t);
                    }
                }
                StmtKind::If { cond, .. } => {
                    if let Some((then_f, else_f)) = cx.fractions(cond) {
                        m.guards.insert((s.id, false), then_f);
                        m.guards.insert((s.id, true), else_f);
                    }
                }
                _ => {}
            }
        }
        m
    }

    /// The trip count computed for a loop statement, if any.
    pub fn trip_count(&self, id: StmtId) -> Option<f64> {
        self.trips.get(&id).copied()
    }

    /// The fraction computed for an `if` statement's then (`else_branch = false`) or else
    /// branch, if any.
    pub fn guard_fraction(&self, id: StmtId, else_branch: bool) -> Option<f64> {
        self.guards.get(&(id, else_branch)).copied()
    }
}

impl CostModel for BoundsCost {
    fn name(&self) -> &str {
        "bounds"
    }

    fn cost(&self, tree: &LabelTree, l: Label) -> f64 {
        let loops: f64 = tree
            .loops(l)
            .into_iter()
            .map(|b| {
                tree.stmt_id(b)
                    .and_then(|id| self.trip_count(id))
                    .unwrap_or(self.fallback.loop_cost)
            })
            .product();
        let conds: f64 = tree
            .conds(l)
            .into_iter()
            .map(|b| {
                let known = match tree.node(b).kind {
                    NodeKind::Stmt(id) => self.guard_fraction(id, false),
                    NodeKind::Else(id) => self.guard_fraction(id, true),
                    _ => None,
                };
                known.unwrap_or(self.fallback.cond_cost)
            })
            .product();
        loops * conds
    }
}

/// Whether a statement of `stmts` (nested ones included) assigns `var`.
fn assigns(stmts: &[Stmt], var: &str) -> bool {
    stmts.iter().any(|s| {
        let direct = match &s.kind {
            StmtKind::Local { var: v, .. }
            | StmtKind::Assign { var: v, .. }
            | StmtKind::Havoc { var: v, .. }
            | StmtKind::Read { var: v, .. } => v == var,
            StmtKind::Atomic { var: v, .. } => v.as_deref() == Some(var),
            StmtKind::For { var: v, .. } => v == var,
            _ => false,
        };
        direct || s.blocks().iter().any(|b| assigns(&b.stmts, var))
    })
}

/// The evaluation context: launch and known parameters.
struct Cx<'a> {
    launch: &'a Launch,
    params: &'a BTreeMap<String, i64>,
}

/// One thread's view: its ids, and the loop variable being counted.
#[derive(Clone, Copy)]
struct Thread<'v> {
    tid: [u32; 3],
    bid: [u32; 3],
    var: Option<(&'v str, i64)>,
}

fn count(d: [u32; 3]) -> u64 {
    d.iter().map(|x| u64::from(*x)).product()
}

fn unlinear(i: u64, d: [u32; 3]) -> [u32; 3] {
    let (x, y) = (u64::from(d[0].max(1)), u64::from(d[1].max(1)));
    [(i % x) as u32, ((i / x) % y) as u32, (i / x / y) as u32]
}

impl Cx<'_> {
    fn eval(&self, e: &Expr, t: &Thread) -> Option<i64> {
        let a = Arith::Unbounded;
        Some(match e {
            Expr::Int(c) => *c,
            Expr::Var(v) => match t.var {
                Some((name, value)) if name == v => value,
                _ => *self.params.get(v)?,
            },
            Expr::Builtin(b) => i64::from(match b {
                Builtin::Tid(d) => t.tid[d.index()],
                Builtin::Bid(d) => t.bid[d.index()],
                Builtin::Bdim(d) => self.launch.block[d.index()]?,
                Builtin::Gdim(d) => self.launch.grid[d.index()]?,
            }),
            Expr::Unary(op, x) => a.unary(*op, self.eval(x, t)?).ok()?,
            Expr::Cast(ty, x) => a.cast(*ty, self.eval(x, t)?).ok()?,
            Expr::Binary(op, x, y) => a.binary(*op, self.eval(x, t)?, self.eval(y, t)?).ok()?,
            // Another thread's value: unknown here.
            Expr::Other(_) | Expr::Apply(..) => return None,
        })
    }

    /// The threads and blocks to evaluate `exprs` for: all of them when they read ids
    /// (the launch must be known then), one otherwise.
    fn space(&self, exprs: &[&Expr]) -> Option<(u64, u64)> {
        let (mut tid, mut bid) = (false, false);
        for e in exprs {
            e.for_each_builtin(&mut |b| match b {
                Builtin::Tid(_) => tid = true,
                Builtin::Bid(_) => bid = true,
                _ => {}
            });
        }
        let threads = if tid { count(self.launch.block_dim()?) } else { 1 };
        let blocks = if bid { count(self.launch.grid_dim()?) } else { 1 };
        (threads.saturating_mul(blocks) <= MAX_EVALS && threads > 0 && blocks > 0)
            .then_some((threads, blocks))
    }

    fn thread(&self, t: u64, b: u64) -> Thread<'static> {
        Thread {
            tid: unlinear(t, self.launch.block_dim().unwrap_or([1, 1, 1])),
            bid: unlinear(b, self.launch.grid_dim().unwrap_or([1, 1, 1])),
            var: None,
        }
    }

    /// Mean over blocks of the largest trip count of a thread of the block.
    fn trips(&self, var: &str, init: &Expr, cond: &Expr, step: &Expr) -> Option<f64> {
        let mut reads_other = false;
        for e in [init, cond, step] {
            e.for_each_var(&mut |v| reads_other |= v != var && !self.params.contains_key(v));
        }
        if reads_other {
            return None;
        }
        let (threads, blocks) = self.space(&[init, cond, step])?;
        let mut total = 0u64;
        let mut budget = MAX_EVALS.saturating_mul(4);
        for b in 0..blocks {
            let mut most = 0u64;
            for t in 0..threads {
                let mut th = self.thread(t, b);
                let mut v = self.eval(init, &th)?;
                let mut n = 0u64;
                loop {
                    th.var = Some((var, v));
                    if self.eval(cond, &th)? == 0 {
                        break;
                    }
                    n += 1;
                    budget = budget.checked_sub(1)?;
                    if n > MAX_TRIPS {
                        return None;
                    }
                    v = self.eval(step, &th)?;
                }
                most = most.max(n);
            }
            total += most;
        }
        Some(total as f64 / blocks as f64)
    }

    /// (fraction of blocks where some thread takes the then-branch, same for else).
    fn fractions(&self, cond: &Expr) -> Option<(f64, f64)> {
        let mut reads_var = false;
        cond.for_each_var(&mut |v| reads_var |= !self.params.contains_key(v));
        if reads_var {
            return None;
        }
        let (threads, blocks) = self.space(&[cond])?;
        let (mut then_blocks, mut else_blocks) = (0u64, 0u64);
        for b in 0..blocks {
            let (mut then_any, mut else_any) = (false, false);
            for t in 0..threads {
                if self.eval(cond, &self.thread(t, b))? != 0 {
                    then_any = true;
                } else {
                    else_any = true;
                }
            }
            then_blocks += u64::from(then_any);
            else_blocks += u64::from(else_any);
        }
        Some((
            then_blocks as f64 / blocks as f64,
            else_blocks as f64 / blocks as f64,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(src: &str) -> Kernel {
        kpl::parse(src).unwrap().remove(0)
    }

    /// The cost of a barrier after the statement at `line`.
    fn cost_after(m: &dyn CostModel, k: &Kernel, line: u32) -> f64 {
        let t = LabelTree::new(k);
        let l = t
            .candidates()
            .into_iter()
            .find(|l| t.line(*l) == line && t.stmt_id(*l).is_some())
            .unwrap();
        m.cost(&t, l)
    }

    fn launch(block: u32, grid: u32) -> Launch {
        Launch::fixed([block, 1, 1], [grid, 1, 1])
    }

    #[test]
    fn doubling_loop_up_to_bdim_runs_log2_times() {
        let k = kernel(
            "kernel k(shared A[]) {
    local x;
    for (s = 1; s < bdim; s = s * 2) {
        x = A[tid];
        A[tid] = x;
    }
}",
        );
        let m = BoundsCost::new(&k, &launch(256, 4), PaperCost::default());
        assert_eq!(cost_after(&m, &k, 4), 8.0);
        assert_eq!(cost_after(&m, &k, 3), 1.0);
        // Unknown launch: the paper's LC.
        let m = BoundsCost::new(&k, &Launch::default(), PaperCost::default());
        assert_eq!(cost_after(&m, &k, 4), 100.0);
    }

    /// `requires bdim == 256` pins the block size for the cost model as it does for the
    /// verifier (one reading of pins, `Launch::of_requires`); a launch given from outside
    /// wins over it.
    #[test]
    fn requires_pin_of_the_block_size_reaches_the_bounds_model() {
        let k = kernel(
            "kernel k(shared A[]) requires bdim == 256 {
    local x;
    for (s = 1; s < bdim; s = s * 2) {
        x = A[tid];
        A[tid] = x;
    }
}",
        );
        let m = BoundsCost::new(&k, &Launch::default(), PaperCost::default());
        assert_eq!(cost_after(&m, &k, 4), 8.0);
        let sum = oracle_free_block_size(&k);
        assert_eq!(sum, [Some(256), None, None]);
    }

    /// The block size the verifier's summary uses comes from the same merge.
    fn oracle_free_block_size(k: &Kernel) -> kpl::launch::Dims {
        Launch::default().for_kernel(k).block
    }

    #[test]
    fn nested_constant_loops_multiply_and_unknown_ones_fall_back() {
        let k = kernel(
            "kernel k(shared A[], n) requires n == 5 {
    local x;
    for (i = 0; i < 16; i = i + 1) {
        for (j = 0; j < n; j = j + 1) {
            x = A[tid];
        }
        for (j = 0; j < i; j = j + 1) {
            x = A[tid];
        }
        while (x < 3) {
            x = A[tid];
        }
    }
}",
        );
        let m = BoundsCost::new(&k, &Launch::default(), PaperCost::default());
        assert_eq!(cost_after(&m, &k, 5), 16.0 * 5.0);
        // Bound from the enclosing loop's variable: LC.
        assert_eq!(cost_after(&m, &k, 8), 16.0 * 100.0);
        assert_eq!(cost_after(&m, &k, 11), 16.0 * 100.0);
    }

    #[test]
    fn thread_dependent_start_counts_the_longest_thread() {
        // for (p = tid; p < 4096; p += 256): every thread of a 256-thread block runs 16
        // iterations; with 300 elements thread 0 runs 2 and thread 255 runs 1: 2.
        let k = kernel(
            "kernel k(shared A[], n) {
    local x;
    for (p = tid; p < n; p = p + 256) {
        x = A[p];
    }
}",
        );
        let mut l = launch(256, 1);
        l.params.insert("n".into(), 4096);
        assert_eq!(
            cost_after(&BoundsCost::new(&k, &l, PaperCost::default()), &k, 4),
            16.0
        );
        l.params.insert("n".into(), 300);
        assert_eq!(
            cost_after(&BoundsCost::new(&k, &l, PaperCost::default()), &k, 4),
            2.0
        );
    }

    #[test]
    fn guards_cost_the_fraction_of_blocks_entering_them() {
        let k = kernel(
            "kernel k(shared A[], n) {
    local x;
    if (bid < 1) {
        x = A[tid];
    } else {
        x = A[tid];
    }
    if (tid < 32) {
        x = A[tid];
    }
    if (n > 3) {
        x = A[tid];
    }
}",
        );
        let m = BoundsCost::new(&k, &launch(64, 4), PaperCost::default());
        assert_eq!(cost_after(&m, &k, 4), 0.25);
        assert_eq!(cost_after(&m, &k, 6), 0.75);
        assert_eq!(cost_after(&m, &k, 9), 1.0);
        // `n` unknown: IC.
        assert_eq!(cost_after(&m, &k, 12), 0.5);
    }
}
