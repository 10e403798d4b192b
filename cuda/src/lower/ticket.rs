//! Last-block tickets: the one ordering between blocks that CUDA code writes without a
//! grid barrier.
//!
//! ```text
//! partial[blockIdx.x] = mine;                   // P: every block's work
//! __threadfence();                               // F
//! if (threadIdx.x == 0) {                        // T: one thread per block draws a ticket
//!     unsigned t = atomicInc(&count, gridDim.x);
//!     amLast = (t == gridDim.x - 1);
//! }
//! __syncthreads();                               // B1
//! if (amLast) { ... read every partial ... }     // R: the block with the last ticket
//! ```
//!
//! Every block takes exactly one ticket from a counter that starts at 0, so the tickets
//! are `0 .. #blocks` and the block that draws the last one draws it after every other
//! block drew its own. Each of those blocks fenced its earlier accesses before its
//! ticket, so they happen before what the last block does after its ticket. That is
//! exactly a grid barrier between P and R, *provided* nothing else happens after the
//! ticket in any other block. The pass below proves the pattern on the lowered kernel
//! and then writes
//!
//! ```text
//! barrier;                                                  // B1, pinned
//! if (G) { ticket_barrier; }
//! if (E && (!G || bid == (@ticket_last_x(), ..))) { R }
//! ```
//!
//! where `G` is what the pattern needs of the launch (a one-dimensional grid when the
//! code compares with `gridDim.x - 1`, a one-thread ticket condition, `atomicInc`'s
//! bound at least the number of blocks): in launches where `G` fails nothing changes.
//! The last block is an arbitrary one, `@ticket_last_*()`, and no other block runs `R`.
//!
//! What a block's fence orders ("released"): its threads' accesses before the last
//! block barrier that precedes the ticket thread's fence, and the ticket thread's own
//! accesses before the fence; with a barrier between a fence every thread executes and
//! the ticket, everything before the fence. Accesses that are not released (after the
//! fence, or of other threads after the last barrier) must not conflict with anything in
//! `R`, or the pattern is not used and a note says why. Barriers the argument relies on
//! lose their place, so `fix --strip` keeps them.
//!
//! Assumed (deviation list of the verifier): the counter is 0 when the kernel starts;
//! the fence orders the block's earlier accesses before its ticket as seen by the last
//! block, whose reads need no fence of their own (the CUDA Programming Guide's pattern).

use std::collections::{HashMap, HashSet};

use kpl::{
    AtomicOp, BinOp, Block, Builtin, Dim, Expr, IntTy, Place, Span, Stmt, StmtId, StmtKind, UnOp,
    for_each_stmt,
};

/// What the pass needs to know of the kernel beyond its statements.
pub(super) struct Context<'a> {
    /// The markers the lowering left where `__threadfence()` was called (locals of
    /// these names, removed by [`remove_fences`]).
    pub fences: &'a HashSet<String>,
    /// Arrays in global memory.
    pub global: &'a dyn Fn(&str) -> bool,
    /// Arrays in shared memory.
    pub shared: &'a dyn Fn(&str) -> bool,
    /// Scalar parameters (one value for the launch unless the kernel assigns them).
    pub scalars: &'a HashSet<String>,
    /// The results of block-scoped atomics (`atomicAdd_block`): atomic only among the
    /// threads of one block, so no ticket.
    pub block_scoped: &'a HashSet<String>,
    /// The locals that reads the other blocks' fences may not reach go to: `__ldg` (the
    /// read-only data cache, for data that does not change during the kernel), surface
    /// reads, and reads of code autosync cannot see (unknown functions, inline PTX,
    /// which may load through those caches too).
    pub noncoherent: &'a HashSet<String>,
}

/// Finds a last-block ticket in the kernel body and makes its ordering explicit (see
/// the module comment). The note for the report: what the ticket orders, or why a
/// ticket orders nothing; `None` when there is no last-block pattern.
pub(super) fn order_last_block(stmts: &mut Vec<Stmt>, cx: &Context) -> Option<String> {
    if any_stmt(stmts, &|s| s.kind.orders_blocks()) {
        return None;
    }
    let facts = Facts::new(stmts, cx);
    match find(stmts, &facts, &mut Vec::new())? {
        Ok(plan) => {
            let note = plan.note.clone();
            apply(stmts, plan);
            Some(note)
        }
        Err(why) => Some(why),
    }
}

/// Removes the fence markers (wherever inlining put them).
pub(super) fn remove_fences(stmts: &mut Vec<Stmt>, fences: &HashSet<String>) {
    stmts.retain(|s| !is_fence(s, fences));
    for s in stmts.iter_mut() {
        for b in s.blocks_mut() {
            remove_fences(&mut b.stmts, fences);
        }
    }
}

fn is_fence(s: &Stmt, fences: &HashSet<String>) -> bool {
    matches!(&s.kind, StmtKind::Local { var, init: None } if fences.contains(var))
}

/// Facts about the kernel's variables.
struct Facts<'a> {
    cx: &'a Context<'a>,
    /// Locals declared once with a value that depends only on ids, launch sizes and
    /// parameters, never assigned again: their declared value, wherever they are read.
    defs: HashMap<String, Expr>,
    /// Every name some statement assigns, declares or reads into.
    targets: HashMap<String, usize>,
}

impl<'a> Facts<'a> {
    fn new(stmts: &[Stmt], cx: &'a Context<'a>) -> Facts<'a> {
        let mut targets = HashMap::new();
        let mut decls = Vec::new();
        for_each_stmt(stmts, &mut |s| {
            if let StmtKind::Local { var, init: Some(e) } = &s.kind {
                decls.push((var.clone(), e.clone()));
            }
            if let Some(v) = s.kind.target() {
                *targets.entry(v.to_string()).or_insert(0) += 1;
            }
        });
        let mut facts = Facts {
            cx,
            defs: HashMap::new(),
            targets,
        };
        // In declaration order: a definition may use the ones before it.
        for (var, init) in decls {
            if facts.targets.get(&var) == Some(&1) && facts.invariant(&init) {
                let value = facts.resolve(&init);
                facts.defs.insert(var, value);
            }
        }
        facts
    }

    /// A scalar parameter nothing in the kernel assigns.
    fn fixed_param(&self, v: &str) -> bool {
        self.cx.scalars.contains(v) && !self.targets.contains_key(v)
    }

    /// The value does not change while the thread runs: ids, launch sizes, constants,
    /// fixed parameters and the definitions of [`Facts::defs`].
    fn invariant(&self, e: &Expr) -> bool {
        match e {
            Expr::Int(_) | Expr::Builtin(_) => true,
            Expr::Var(v) => self.fixed_param(v) || self.defs.contains_key(v),
            Expr::Unary(_, a) | Expr::Cast(_, a) => self.invariant(a),
            Expr::Binary(_, a, b) => self.invariant(a) && self.invariant(b),
            Expr::Apply(_, args) => args.iter().all(|a| self.invariant(a)),
            Expr::Other(_) => false,
        }
    }

    /// The same value for every thread of the launch.
    fn grid_uniform(&self, e: &Expr) -> bool {
        let e = self.resolve(e);
        let mut ok = self.invariant(&e);
        e.for_each_builtin(&mut |b| ok &= matches!(b, Builtin::Bdim(_) | Builtin::Gdim(_)));
        ok
    }

    /// `e` with the definitions of [`Facts::defs`] put in.
    fn resolve(&self, e: &Expr) -> Expr {
        match e {
            Expr::Var(v) => self.defs.get(v).cloned().unwrap_or_else(|| e.clone()),
            Expr::Int(_) | Expr::Builtin(_) | Expr::Other(_) => e.clone(),
            Expr::Unary(op, a) => Expr::un(*op, self.resolve(a)),
            Expr::Cast(ty, a) => Expr::cast(*ty, self.resolve(a)),
            Expr::Binary(op, a, b) => Expr::bin(*op, self.resolve(a), self.resolve(b)),
            Expr::Apply(f, args) => Expr::Apply(f.clone(), args.iter().map(|a| self.resolve(a)).collect()),
        }
    }

    fn global(&self, array: &str) -> bool {
        (self.cx.global)(array)
    }
}

/// A proved pattern: what [`apply`] changes.
struct Plan {
    /// Where the statements are: indices from the body down (each but the last names
    /// an `if` whose then-block holds the next).
    b1: Vec<usize>,
    /// The branch only the last block takes: an `if` around its code, or (`returns`)
    /// an `if` whose body returns in every other block.
    r_if: Vec<usize>,
    returns: bool,
    pinned: Vec<Vec<usize>>,
    guard: Expr,
    span: Span,
    note: String,
}

/// Looks for the ticket along the spine of blocks the whole grid runs: the body, and
/// the then-blocks of `if`s with grid-uniform conditions.
fn find(root: &[Stmt], facts: &Facts, spine: &mut Vec<usize>) -> Option<Result<Plan, String>> {
    let stmts = block_at(root, spine);
    for (i, s) in stmts.iter().enumerate() {
        let Some((cond, _)) = if_without_else(s) else {
            continue;
        };
        spine.push(i);
        if let Some(ticket) = Ticket::of(s, facts) {
            let result = prove(root, spine, &ticket, facts);
            spine.pop();
            match result {
                Ok(plan) => return Some(Ok(plan)),
                Err(Some(why)) => return Some(Err(why)),
                // Not a last-block ticket: an atomic counter used otherwise.
                Err(None) => continue,
            }
        }
        if facts.grid_uniform(cond)
            && let Some(r) = find(root, facts, spine)
        {
            return Some(r);
        }
        spine.pop();
    }
    None
}

/// `if (C1) { .. x = atomicInc(count[c], M) or atomicAdd(count[c], 1) .. }`: one
/// thread of the block takes a ticket.
struct Ticket<'s> {
    cond: &'s Expr,
    body: &'s [Stmt],
    /// Index of the atomic in `body`.
    at: usize,
    /// The variable the old value goes to.
    var: &'s str,
    counter: &'s str,
    /// `atomicInc`'s bound, `None` for `atomicAdd(.., 1)`.
    bound: Option<&'s Expr>,
    /// The dimensions the condition pins to thread 0.
    dims: [bool; 3],
    span: Span,
}

impl<'s> Ticket<'s> {
    fn of(s: &'s Stmt, facts: &Facts) -> Option<Ticket<'s>> {
        let (cond, body) = if_without_else(s)?;
        let mut found = None;
        for (at, st) in body.iter().enumerate() {
            if let StmtKind::Atomic {
                var: Some(var),
                op,
                array,
                index,
                value,
                ty,
            } = &st.kind
            {
                let bound = match op {
                    AtomicOp::Add if strip_wide_casts(value) == Expr::Int(1) => None,
                    AtomicOp::Inc => Some(value),
                    _ => continue,
                };
                if !facts.global(array)
                    || !wide(*ty)
                    || !facts.grid_uniform(index)
                    || facts.cx.block_scoped.contains(var.as_str())
                {
                    continue;
                }
                if bound.is_some_and(|m| !facts.grid_uniform(m)) || found.is_some() {
                    return None;
                }
                found = Some((at, var.as_str(), array.as_str(), bound, st.span));
            }
        }
        let (at, var, counter, bound, span) = found?;
        // Thread 0 of every block reaches the atomic and the flag's store after it.
        if any_stmt(body, &|s| {
            matches!(s.kind, StmtKind::Return | StmtKind::Break | StmtKind::Continue)
        }) {
            return None;
        }
        let dims = thread_zero_dims(&facts.resolve(cond))?;
        Some(Ticket {
            cond,
            body,
            at,
            var,
            counter,
            bound,
            dims,
            span,
        })
    }
}

/// The dimensions `d` such that the condition holds exactly where `threadIdx.d == 0`,
/// when it is a conjunction of zero tests of thread ids (or of sums of thread ids scaled
/// by block sizes and positive constants, as a flat rank is) and nothing else: thread 0
/// of every block takes it.
fn thread_zero_dims(cond: &Expr) -> Option<[bool; 3]> {
    let mut dims = [false; 3];
    let mut conjuncts = vec![strip_casts(cond)];
    while let Some(c) = conjuncts.pop() {
        match c {
            Expr::Binary(BinOp::And, a, b) => {
                conjuncts.push(strip_casts(a));
                conjuncts.push(strip_casts(b));
            }
            Expr::Binary(BinOp::Eq, a, b) => {
                let x = match (strip_casts(a), strip_casts(b)) {
                    (_, Expr::Int(0)) => a,
                    (Expr::Int(0), _) => b,
                    _ => return None,
                };
                zero_sum_dims(x, &mut dims)?;
            }
            Expr::Unary(UnOp::Not, a) => zero_sum_dims(a, &mut dims)?,
            // Any other conjunct may keep thread 0 of some block from its ticket: then
            // no block is last, and a stale flag may let one in.
            _ => return None,
        }
    }
    dims.iter().any(|d| *d).then_some(dims)
}

/// `x == 0` with `x` a sum of non-negative terms each holding one thread id: every
/// such id is 0.
///
/// Each term is below 2^10 (a thread id) times at most two factors of at most 2^10
/// (block sizes, constants up to 1024), so the sum stays below 2^31 and a cast to a
/// 32-bit type or wider leaves it unchanged; only a bare thread id may be under a
/// narrower (16-bit) cast.
fn zero_sum_dims(x: &Expr, dims: &mut [bool; 3]) -> Option<()> {
    fn wide_inner(e: &Expr) -> &Expr {
        match e {
            Expr::Cast(ty, a) if ty.bits >= 32 => wide_inner(a),
            _ => e,
        }
    }
    fn term(t: &Expr, factors: usize) -> Option<Dim> {
        match wide_inner(t) {
            Expr::Builtin(Builtin::Tid(d)) => Some(*d),
            Expr::Cast(ty, a) if ty.bits >= 16 => match &**a {
                Expr::Builtin(Builtin::Tid(d)) => Some(*d),
                _ => None,
            },
            Expr::Binary(BinOp::Mul, a, b) if factors < 2 => {
                match (term(a, factors + 1), term(b, factors + 1)) {
                    (Some(d), None) if small_positive(b) => Some(d),
                    (None, Some(d)) if small_positive(a) => Some(d),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    /// At least 1 and at most 1024.
    fn small_positive(e: &Expr) -> bool {
        match wide_inner(e) {
            Expr::Int(c) => (1..=1024).contains(c),
            Expr::Builtin(Builtin::Bdim(_)) => true,
            _ => false,
        }
    }
    let mut terms = vec![x];
    let mut found = Vec::new();
    while let Some(t) = terms.pop() {
        if terms.len() + found.len() > 3 {
            return None;
        }
        match wide_inner(t) {
            Expr::Binary(BinOp::Add, a, b) => {
                terms.push(a);
                terms.push(b);
            }
            other => found.push(term(other, 0)?),
        }
    }
    for d in found {
        dims[d.index()] = true;
    }
    Some(())
}

/// Casts that keep every value a ticket, a thread id or a launch size can have (32 bits
/// or more) removed.
fn strip_wide_casts(e: &Expr) -> Expr {
    match e {
        Expr::Cast(ty, a) if ty.bits >= 32 => strip_wide_casts(a),
        Expr::Cast(ty, a) => Expr::cast(*ty, strip_wide_casts(a)),
        Expr::Unary(op, a) => Expr::un(*op, strip_wide_casts(a)),
        Expr::Binary(op, a, b) => Expr::bin(*op, strip_wide_casts(a), strip_wide_casts(b)),
        _ => e.clone(),
    }
}

/// `e` under its outer casts. Used where the value is a thread id (below 1024: 16-bit
/// types and wider keep it) or a truth value.
fn strip_casts(e: &Expr) -> &Expr {
    match e {
        Expr::Cast(ty, a) if ty.bits >= 16 => strip_casts(a),
        _ => e,
    }
}

fn wide(ty: Option<IntTy>) -> bool {
    ty.is_none_or(|t| t.bits >= 32)
}

/// The statements of the block at `path` (the body for an empty path; each index an
/// `if` whose then-block is next).
fn block_at<'s>(stmts: &'s [Stmt], path: &[usize]) -> &'s [Stmt] {
    let mut cur = stmts;
    for &i in path {
        match &cur[i].kind {
            StmtKind::If { then_blk, .. } => cur = &then_blk.stmts,
            _ => return &[],
        }
    }
    cur
}

fn block_at_mut<'s>(stmts: &'s mut Vec<Stmt>, path: &[usize]) -> Option<&'s mut Vec<Stmt>> {
    let mut cur = stmts;
    for &i in path {
        match &mut cur.get_mut(i)?.kind {
            StmtKind::If { then_blk, .. } => cur = &mut then_blk.stmts,
            _ => return None,
        }
    }
    Some(cur)
}

/// An access to global memory: array, kind, line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Atomic,
}

struct Access<'s> {
    array: &'s str,
    kind: Kind,
    line: u32,
}

fn global_accesses<'s>(stmts: &'s [Stmt], facts: &Facts, out: &mut Vec<Access<'s>>) {
    for_each_stmt(stmts, &mut |s| global_accesses_of(s, facts, out));
}

/// The statement's own access, if it is one to global memory.
fn global_accesses_of<'s>(s: &'s Stmt, facts: &Facts, out: &mut Vec<Access<'s>>) {
    let (array, kind) = match &s.kind {
        StmtKind::Read { array, .. } => (array, Kind::Read),
        StmtKind::Write { array, .. } => (array, Kind::Write),
        StmtKind::Atomic { array, .. } => (array, Kind::Atomic),
        _ => return,
    };
    if facts.global(array) {
        out.push(Access {
            array,
            kind,
            line: s.span.line,
        });
    }
}

fn conflict(a: &Access, b: &Access) -> bool {
    a.array == b.array
        && !(a.kind == Kind::Read && b.kind == Kind::Read)
        && !(a.kind == Kind::Atomic && b.kind == Kind::Atomic)
}

/// Proves the pattern around the ticket at `spine` (its last index is the ticket's
/// statement in its block).
/// `Err(None)`: not a last-block ticket; `Err(Some(why))`: one, but not proved.
fn prove(body: &[Stmt], spine: &[usize], t: &Ticket, facts: &Facts) -> Result<Plan, Option<String>> {
    let (&ti, outer) = spine.split_last().expect("the spine ends at the ticket");
    let block = block_at(body, outer);
    let why = |what: String| {
        Some(format!(
            "the ticket at line {} orders nothing: {what}",
            t.span.line
        ))
    };

    // After the ticket: a block barrier, then the last-block branch, and nothing else
    // that touches global memory in any block.
    let after = &block[ti + 1..];
    let Shape { b1, r, branch, n } = Shape::of(after, t, facts).ok_or(None)?;
    let (last, everyone) = last_and_everyone(body, outer, after, b1, r, &branch);
    let in_last = last_block_accesses(body, &last, &everyone, facts).map_err(|what| what.and_then(why))?;
    if !counter_updated_once(body, &last, t) {
        return Err(why("the counter has other atomic updates".into()));
    }

    let release = Release::of(body, spine, t, facts).map_err(why)?;
    if let Some((u, a)) = release
        .unreleased
        .iter()
        .find_map(|u| in_last.iter().find(|a| conflict(u, a)).map(|a| (u, a)))
    {
        return Err(why(format!(
            "line {} is not ordered before the last block's line {} (it comes after the last `__syncthreads()` or `__threadfence()` before the ticket)",
            u.line, a.line
        )));
    }

    let (guard, needs) = guard(t, &n, facts);
    let mut b1_path = outer.to_vec();
    b1_path.push(ti + 1 + b1);
    let mut r_path = outer.to_vec();
    r_path.push(ti + 1 + r);
    let returns = matches!(branch, Branch::Return);
    let mut pinned = release.pinned;
    pinned.push(b1_path.clone());
    Ok(Plan {
        b1: b1_path,
        r_if: r_path,
        returns,
        pinned,
        guard,
        span: after[b1].span,
        note: format!(
            "line {}: only the block that draws the last ticket (line {}) goes on, after every other block's accesses before its `__threadfence()`, in launches where {} (the counter is assumed 0 when the kernel starts)",
            after[r].span.line,
            t.span.line,
            words(&needs)
        ),
    })
}

/// The pattern in the statements after the ticket: the block barrier at `b1`, the
/// last-block branch at `r` on the flag the ticket keeps, and the value `n` of the last
/// ticket the branch tests.
struct Shape<'s> {
    b1: usize,
    r: usize,
    branch: Branch<'s>,
    n: Expr,
}

impl<'s> Shape<'s> {
    /// The shape in `after`, the statements after the ticket; `None` when they are not
    /// the pattern at all.
    fn of(after: &'s [Stmt], t: &Ticket, facts: &Facts) -> Option<Shape<'s>> {
        // Not the pattern at all: no barrier after the ticket, the ticket not kept in a
        // shared cell, no branch on it.
        let b1 = after.iter().position(|s| s.kind.is_barrier())?;
        let flag = Flag::of(t, facts)?;
        let (r, branch, n) = after[b1 + 1..].iter().enumerate().find_map(|(k, s)| {
            let between = &after[b1 + 1..b1 + 1 + k];
            let (branch, n) = Branch::of(s, &flag, between, facts)?;
            Some((b1 + 1 + k, branch, n))
        })?;
        // The flag is written by the ticket alone between the ticket and its read.
        let mut rewritten = false;
        for_each_stmt(&after[..b1], &mut |x| {
            rewritten |= matches!(&x.kind, StmtKind::Write { array, .. } | StmtKind::Atomic { array, .. } if array == flag.array);
        });
        if rewritten {
            return None;
        }
        Some(Shape { b1, r, branch, n })
    }
}

/// What only the last block runs, and what every block runs after its ticket: the
/// statements after the ticket (`after`, with the barrier at `b1` and the branch at
/// `r`) and after the blocks that enclose it (`outer`, the ticket's path in `body`).
fn last_and_everyone<'s>(
    body: &'s [Stmt],
    outer: &[usize],
    after: &'s [Stmt],
    b1: usize,
    r: usize,
    branch: &Branch<'s>,
) -> (Vec<&'s Stmt>, Vec<&'s Stmt>) {
    let mut last: Vec<&Stmt> = Vec::new();
    let mut everyone: Vec<&Stmt> = after[..b1].iter().chain(&after[b1 + 1..r]).collect();
    let rest: Vec<&Stmt> = after[r + 1..]
        .iter()
        .chain(
            outer
                .iter()
                .enumerate()
                .flat_map(|(level, &i)| &block_at(body, &outer[..level])[i + 1..]),
        )
        .collect();
    match branch {
        Branch::If(then_blk) => {
            last.extend(*then_blk);
            everyone.extend(rest);
        }
        // The other blocks have returned.
        Branch::Return => last.extend(rest),
    }
    (last, everyone)
}

/// The global accesses of the last block's code `last`, when they need the ticket's
/// ordering and it can give it. `Err(None)`: nothing outside the last block's code
/// conflicts with it; `Err(Some(what))`: why the fence cannot order it.
fn last_block_accesses<'s>(
    body: &[Stmt],
    last: &[&'s Stmt],
    everyone: &[&Stmt],
    facts: &Facts,
) -> Result<Vec<Access<'s>>, Option<String>> {
    let mut in_last = Vec::new();
    for s in last {
        global_accesses(std::slice::from_ref(*s), facts, &mut in_last);
    }
    let mut cached = None;
    for s in last {
        for_each_stmt(std::slice::from_ref(*s), &mut |x| {
            if let StmtKind::Read { var, array, .. } = &x.kind
                && facts.cx.noncoherent.contains(var)
                && facts.global(array)
                && cached.is_none()
            {
                cached = Some((array.clone(), x.span.line));
            }
        });
    }
    // Nothing outside the last block's code conflicts with it: no ordering is needed,
    // and none is made (nor a note written).
    let mut inside: HashSet<*const Stmt> = HashSet::new();
    for s in last {
        for_each_stmt(std::slice::from_ref(*s), &mut |x| {
            inside.insert(x as *const Stmt);
        });
    }
    let mut outside = Vec::new();
    for_each_stmt(body, &mut |x| {
        if !inside.contains(&(x as *const Stmt)) {
            global_accesses_of(x, facts, &mut outside);
        }
    });
    if !outside.iter().any(|o| in_last.iter().any(|a| conflict(o, a))) {
        return Err(None);
    }
    if let Some((array, line)) = cached
        && outside.iter().any(|o| o.array == array && o.kind != Kind::Read)
    {
        return Err(Some(format!(
            "line {line} may read through a cache the other blocks' fences do not reach (`__ldg`, a surface, code autosync cannot see)"
        )));
    }
    let mut touched = Vec::new();
    for s in everyone {
        global_accesses(std::slice::from_ref(*s), facts, &mut touched);
    }
    if let Some(a) = touched.first() {
        return Err(Some(format!(
            "line {} touches global memory after the ticket in every block",
            a.line
        )));
    }
    Ok(in_last)
}

/// Whether the ticket is the counter's only atomic update outside the last block's
/// code `last`.
fn counter_updated_once(body: &[Stmt], last: &[&Stmt], t: &Ticket) -> bool {
    let mut counter = 0;
    for_each_stmt(body, &mut |s| {
        if matches!(&s.kind, StmtKind::Atomic { array, .. } if array == t.counter) {
            counter += 1;
        }
    });
    let mut in_last_counter = 0;
    for s in last {
        for_each_stmt(std::slice::from_ref(*s), &mut |s| {
            if matches!(&s.kind, StmtKind::Atomic { array, .. } if array == t.counter) {
                in_last_counter += 1;
            }
        });
    }
    counter - in_last_counter == 1
}

/// How the last block's code is set apart.
enum Branch<'s> {
    /// `if (last) { R }`.
    If(&'s [Stmt]),
    /// `if (!last) return;` and `R` after it.
    Return,
}

impl<'s> Branch<'s> {
    /// `s` as the last block's branch, with the value `N` of the last ticket it tests;
    /// `between` are the statements between the barrier after the ticket and `s`.
    fn of(s: &'s Stmt, flag: &Flag, between: &[Stmt], facts: &Facts) -> Option<(Branch<'s>, Expr)> {
        let (cond, then_blk) = if_without_else(s)?;
        // `if (last && threadIdx.x == 0)`: the other conjuncts only narrow it down.
        let mut conjuncts = vec![cond];
        while let Some(c) = conjuncts.pop() {
            if let Some(n) = flag.last_test(c, between, facts) {
                return Some((Branch::If(then_blk), n));
            }
            if let Expr::Binary(BinOp::And, a, b) = strip_casts(c) {
                conjuncts.push(a);
                conjuncts.push(b);
            }
        }
        let returns = matches!(
            then_blk,
            [Stmt {
                kind: StmtKind::Return,
                ..
            }]
        );
        let n = flag.last_test(&negation(cond)?, between, facts)?;
        returns.then_some((Branch::Return, n))
    }
}

/// The condition that is true exactly when `e` is false, for the forms a test of the
/// last ticket takes: `!e`, `a != b`, `a == 0`.
fn negation(e: &Expr) -> Option<Expr> {
    match strip_casts(e) {
        Expr::Unary(UnOp::Not, a) => Some((**a).clone()),
        Expr::Binary(BinOp::Ne, a, b) => Some(Expr::bin(BinOp::Eq, (**a).clone(), (**b).clone())),
        Expr::Binary(BinOp::Eq, a, b) if **b == Expr::Int(0) => Some((**a).clone()),
        Expr::Binary(BinOp::Eq, a, b) if **a == Expr::Int(0) => Some((**b).clone()),
        _ => None,
    }
}

/// Where the ticket's value goes: a shared cell that holds the ticket (`A`) or the
/// test `ticket == N` (`B`).
struct Flag<'s> {
    array: &'s str,
    index: Expr,
    /// `Some(N)` when the cell holds `ticket == N`.
    test: Option<Expr>,
}

impl<'s> Flag<'s> {
    fn of(t: &Ticket<'s>, facts: &Facts) -> Option<Flag<'s>> {
        let mut ticket: HashSet<&str> = HashSet::from([t.var]);
        let mut tests: HashMap<&str, Expr> = HashMap::new();
        let mut found: Option<Flag<'s>> = None;
        for s in &t.body[t.at + 1..] {
            match &s.kind {
                StmtKind::Local { var, init: Some(e) } | StmtKind::Assign { var, value: e } => {
                    let v = var.as_str();
                    if is_ticket(e, &ticket) {
                        ticket.insert(v);
                    } else {
                        ticket.remove(v);
                    }
                    match ticket_test(e, &ticket, &tests, facts) {
                        Some(n) => tests.insert(v, n),
                        None => tests.remove(v),
                    };
                }
                StmtKind::Write { array, index, value } if (facts.cx.shared)(array) => {
                    if found.is_some() || !facts.grid_uniform(index) {
                        return None;
                    }
                    let test = if is_ticket(value, &ticket) {
                        None
                    } else {
                        Some(ticket_test(value, &ticket, &tests, facts)?)
                    };
                    found = Some(Flag {
                        array,
                        index: facts.resolve(index),
                        test,
                    });
                }
                _ => {
                    // Anything else that may change a tracked value ends its tracking.
                    for_each_stmt(std::slice::from_ref(s), &mut |x| {
                        if let Some(v) = x.kind.target() {
                            ticket.remove(v);
                            tests.remove(v);
                        }
                    });
                }
            }
        }
        let flag = found?;
        // The recognized write is the only write (or atomic) of that array in the
        // ticket's branch.
        let mut writes = 0;
        for_each_stmt(t.body, &mut |s| {
            if matches!(&s.kind, StmtKind::Write { array, .. } | StmtKind::Atomic { array, .. } if array == flag.array)
            {
                writes += 1;
            }
        });
        (writes == 1).then_some(flag)
    }

    /// The value `N` of the last ticket that `e` tests, where `between` (the statements
    /// between the barrier after the ticket and the branch) read the cell back.
    fn last_test(&self, e: &Expr, between: &[Stmt], facts: &Facts) -> Option<Expr> {
        // The cell is read back once, after the barrier, into a local nothing changes
        // before the branch (copies of it too), and nothing writes the array in between.
        let mut read: Option<Option<IntTy>> = None;
        let mut names: Vec<&str> = Vec::new();
        // Locals holding the test itself (`bool closing = t + 1 == gridDim.x;`), with N.
        let mut tests: Vec<(&str, Expr)> = Vec::new();
        for s in between {
            let mut bad = false;
            for_each_stmt(std::slice::from_ref(s), &mut |x| {
                if matches!(&x.kind, StmtKind::Write { array, .. } | StmtKind::Atomic { array, .. } if array == self.array)
                {
                    bad = true;
                }
                if x.kind
                    .target()
                    .is_some_and(|v| names.contains(&v) || tests.iter().any(|(t, _)| *t == v))
                {
                    bad = true;
                }
            });
            if bad {
                return None;
            }
            match &s.kind {
                StmtKind::Read {
                    var,
                    array,
                    index,
                    ty,
                } if array == self.array && facts.resolve(index) == self.index => {
                    read = Some(*ty);
                    names = vec![var.as_str()];
                    tests.clear();
                }
                // `bool last = amLast;`: a copy.
                StmtKind::Local { var, init: Some(e) } if matches!(strip_wide_casts(e), Expr::Var(v) if names.contains(&v.as_str())) =>
                {
                    names.push(var.as_str());
                }
                StmtKind::Local { var, init: Some(e) } => {
                    if let Some(n) = read.and_then(|ty| self.direct_test(e, ty, &names, facts)) {
                        tests.push((var.as_str(), n));
                    }
                }
                _ => {}
            }
        }
        let ty = read?;
        if let Expr::Var(v) = strip_casts(e)
            && let Some((_, n)) = tests.iter().find(|(t, _)| t == v)
        {
            return Some(n.clone());
        }
        self.direct_test(e, ty, &names, facts)
    }

    /// `N` when `e` tests the cell's value, read into one of `names` (through `ty`),
    /// for the last ticket `N`.
    fn direct_test(&self, e: &Expr, ty: Option<IntTy>, names: &[&str], facts: &Facts) -> Option<Expr> {
        let e = strip_casts(e);
        let is_var = |x: &Expr| matches!(strip_wide_casts(x), Expr::Var(v) if names.contains(&v.as_str()));
        match &self.test {
            // The cell holds the ticket: the branch compares it with N.
            None if wide(ty) => last_comparison(e, &is_var, facts),
            None => None,
            // The cell holds `ticket == N`: the branch tests it.
            Some(n) => match e {
                x if is_var(x) => Some(n.clone()),
                Expr::Binary(BinOp::Ne, a, b)
                    if (is_var(a) && **b == Expr::Int(0)) || (is_var(b) && **a == Expr::Int(0)) =>
                {
                    Some(n.clone())
                }
                _ => None,
            },
        }
    }
}

/// The ticket, unchanged (through wide casts).
fn is_ticket(e: &Expr, ticket: &HashSet<&str>) -> bool {
    matches!(strip_wide_casts(e), Expr::Var(v) if ticket.contains(v.as_str()))
}

/// `ticket == N` with `N` grid-uniform: `N`.
fn ticket_test(e: &Expr, ticket: &HashSet<&str>, tests: &HashMap<&str, Expr>, facts: &Facts) -> Option<Expr> {
    match strip_casts(e) {
        Expr::Var(v) => tests.get(v.as_str()).cloned(),
        e => last_comparison(e, &|x| is_ticket(x, ticket), facts),
    }
}

/// `N` when `e` says "the ticket `x` is the last one, `N`", given that tickets are
/// at most `N` where the pattern is used (its guard): `x == N`, `x + k == N` (then `N - k`),
/// `x >= N`, either way round.
fn last_comparison(e: &Expr, is_x: &dyn Fn(&Expr) -> bool, facts: &Facts) -> Option<Expr> {
    // `x + k`: the `k`.
    let plus = |t: &Expr| match strip_wide_casts(t) {
        Expr::Binary(BinOp::Add, x, c) if is_x(&x) => match *c {
            Expr::Int(k) => Some(k),
            _ => None,
        },
        _ => None,
    };
    match e {
        Expr::Binary(BinOp::Eq, a, b) if is_x(a) => uniform_minus(b, 0, facts),
        Expr::Binary(BinOp::Eq, a, b) if is_x(b) => uniform_minus(a, 0, facts),
        Expr::Binary(BinOp::Eq, a, b) => match (plus(a), plus(b)) {
            (Some(k), _) => uniform_minus(b, k, facts),
            (_, Some(k)) => uniform_minus(a, k, facts),
            _ => None,
        },
        Expr::Binary(BinOp::Ge, a, b) if is_x(a) => uniform_minus(b, 0, facts),
        Expr::Binary(BinOp::Le, a, b) if is_x(b) => uniform_minus(a, 0, facts),
        _ => None,
    }
}

/// `n - k` when `n` is grid-uniform.
fn uniform_minus(n: &Expr, k: i64, facts: &Facts) -> Option<Expr> {
    if !facts.grid_uniform(n) {
        return None;
    }
    let n = facts.resolve(n);
    Some(if k == 0 {
        n
    } else {
        Expr::bin(BinOp::Sub, n, Expr::Int(k))
    })
}

/// What the block's fence orders before its ticket (module comment).
struct Release<'s> {
    /// Accesses the fence does not order before the ticket (of any thread).
    unreleased: Vec<Access<'s>>,
    /// Barriers the argument relies on.
    pinned: Vec<Vec<usize>>,
}

impl<'s> Release<'s> {
    fn of(body: &'s [Stmt], spine: &[usize], t: &Ticket<'s>, facts: &Facts) -> Result<Release<'s>, String> {
        let fences = facts.cx.fences;
        let fence = |s: &Stmt| is_fence(s, fences);
        // The statements every thread runs before the ticket, in order, with their paths.
        let mut line: Vec<(Vec<usize>, &'s Stmt)> = Vec::new();
        for level in 0..spine.len() {
            let block = block_at(body, &spine[..level]);
            for (i, s) in block[..spine[level]].iter().enumerate() {
                let mut p = spine[..level].to_vec();
                p.push(i);
                line.push((p, s));
            }
        }
        let barrier_before = |end: usize| line[..end].iter().rposition(|(_, s)| s.kind.is_barrier());
        let mut unreleased = Vec::new();
        let mut pinned = Vec::new();
        let own_fence = t.body[..t.at].iter().rposition(fence);
        let tail_from = match own_fence {
            // The ticket thread fences just before its ticket: after the last barrier,
            // only its own accesses are ordered.
            Some(f) => {
                for (k, s) in t.body.iter().enumerate().skip(f + 1) {
                    if k != t.at {
                        global_accesses(std::slice::from_ref(s), facts, &mut unreleased);
                    }
                }
                Some((barrier_before(line.len()), line.len()))
            }
            None => {
                let f = line
                    .iter()
                    .rposition(|(_, s)| fence(s))
                    .ok_or_else(|| "no `__threadfence()` before it, so the other blocks' accesses are not ordered before the last block's".to_string())?;
                for (k, s) in t.body.iter().enumerate() {
                    if k != t.at {
                        global_accesses(std::slice::from_ref(s), facts, &mut unreleased);
                    }
                }
                for (_, s) in &line[f + 1..] {
                    global_accesses(std::slice::from_ref(*s), facts, &mut unreleased);
                }
                match line[f + 1..].iter().position(|(_, s)| s.kind.is_barrier()) {
                    // Every thread fenced, then the block met at a barrier before the
                    // ticket: everything before the fence is ordered.
                    Some(b) => {
                        pinned.push(line[f + 1 + b].0.clone());
                        None
                    }
                    None => Some((barrier_before(f), f)),
                }
            }
        };
        if let Some((b0, end)) = tail_from {
            // Between the last barrier and the fence, the accesses of threads other than
            // the ticket's are not ordered.
            let start = b0.map_or(0, |b| b + 1);
            if let Some(b) = b0 {
                pinned.push(line[b].0.clone());
            }
            let ticket_cond = facts.resolve(t.cond);
            for (_, s) in &line[start..end] {
                let own = matches!(&s.kind, StmtKind::If { cond, else_blk: None, .. } if facts.resolve(cond) == ticket_cond);
                if !own {
                    global_accesses(std::slice::from_ref(*s), facts, &mut unreleased);
                }
            }
        }
        Ok(Release { unreleased, pinned })
    }
}

/// What the launch must satisfy for the ticket to mean "the last block", and the same
/// in words for the note.
fn guard(t: &Ticket, n: &Expr, facts: &Facts) -> (Expr, Vec<String>) {
    let g = |d| Expr::Builtin(Builtin::Gdim(d));
    let blocks = Expr::bin(BinOp::Mul, Expr::bin(BinOp::Mul, g(Dim::X), g(Dim::Y)), g(Dim::Z));
    let one_dim_last = strip_wide_casts(n) == Expr::bin(BinOp::Sub, g(Dim::X), Expr::Int(1));
    let mut parts = Vec::new();
    let mut needs = Vec::new();
    if one_dim_last {
        parts.push(Expr::bin(BinOp::Eq, g(Dim::Y), Expr::Int(1)));
        parts.push(Expr::bin(BinOp::Eq, g(Dim::Z), Expr::Int(1)));
        needs.push("gridDim.y == 1".to_string());
        needs.push("gridDim.z == 1".to_string());
    } else {
        parts.push(Expr::bin(
            BinOp::Eq,
            blocks.clone(),
            Expr::bin(BinOp::Add, n.clone(), Expr::Int(1)),
        ));
        needs.push("the number of blocks is the compared value plus 1".to_string());
    }
    if let Some(m) = t.bound {
        let m = facts.resolve(m);
        if !(one_dim_last && strip_wide_casts(&m) == g(Dim::X)) {
            parts.push(Expr::bin(
                BinOp::Ge,
                Expr::bin(BinOp::Add, m, Expr::Int(1)),
                blocks,
            ));
            needs.push("`atomicInc`'s bound is at least the number of blocks minus 1".to_string());
        }
    }
    let free: Vec<Dim> = Dim::ALL.into_iter().filter(|d| !t.dims[d.index()]).collect();
    for d in &free {
        parts.push(Expr::bin(
            BinOp::Eq,
            Expr::Builtin(Builtin::Bdim(*d)),
            Expr::Int(1),
        ));
        needs.push(format!("blockDim.{} == 1", d.suffix()));
    }
    let guard = parts
        .into_iter()
        .reduce(|a, b| Expr::bin(BinOp::And, a, b))
        .unwrap_or(Expr::Int(1));
    (guard, needs)
}

/// `a`, `a and b`, `a, b and c`.
fn words(items: &[String]) -> String {
    match items.split_last() {
        None => "any".to_string(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Writes the plan into the body (module comment).
fn apply(body: &mut Vec<Stmt>, plan: Plan) {
    for p in &plan.pinned {
        if let Some((last, outer)) = p.split_last()
            && let Some(s) = block_at_mut(body, outer).and_then(|b| b.get_mut(*last))
        {
            s.place = Place::Nowhere;
        }
    }
    let last = |d: Dim| {
        Expr::bin(
            BinOp::Eq,
            Expr::Builtin(Builtin::Bid(d)),
            Expr::Apply(format!("ticket_last_{}", d.suffix()), Vec::new()),
        )
    };
    let is_last = Dim::ALL
        .into_iter()
        .map(last)
        .reduce(|a, b| Expr::bin(BinOp::And, a, b))
        .expect("three dimensions");
    let guard = plan.guard;
    let (Some((ri, outer)), Some((&bi, _))) = (plan.r_if.split_last(), plan.b1.split_last()) else {
        return;
    };
    let Some(block) = block_at_mut(body, outer) else {
        return;
    };
    let only_last = if guard == Expr::Int(1) {
        is_last
    } else {
        Expr::bin(BinOp::Or, Expr::un(UnOp::Not, guard.clone()), is_last)
    };
    if let Some(StmtKind::If { cond, .. }) = block.get_mut(*ri).map(|s| &mut s.kind) {
        *cond = if plan.returns {
            // Return unless this is the last block.
            Expr::bin(BinOp::Or, cond.clone(), Expr::un(UnOp::Not, only_last))
        } else {
            Expr::bin(BinOp::And, cond.clone(), only_last)
        };
    }
    let ticket = Stmt {
        id: StmtId(0),
        kind: StmtKind::TicketBarrier,
        span: plan.span,
        place: Place::Nowhere,
    };
    let stmt = if guard == Expr::Int(1) {
        ticket
    } else {
        Stmt {
            id: StmtId(0),
            kind: StmtKind::If {
                cond: guard,
                then_blk: Block {
                    stmts: vec![ticket],
                    span: plan.span,
                    braces: false,
                    top: false,
                },
                else_blk: None,
            },
            span: plan.span,
            place: Place::Nowhere,
        }
    };
    block.insert(bi + 1, stmt);
}

/// `if (cond) { then }` without an `else`: its condition and its statements.
fn if_without_else(s: &Stmt) -> Option<(&Expr, &[Stmt])> {
    match &s.kind {
        StmtKind::If {
            cond,
            then_blk,
            else_blk: None,
        } => Some((cond, &then_blk.stmts)),
        _ => None,
    }
}

fn any_stmt(stmts: &[Stmt], p: &dyn Fn(&Stmt) -> bool) -> bool {
    let mut any = false;
    for_each_stmt(stmts, &mut |s| any |= p(s));
    any
}
