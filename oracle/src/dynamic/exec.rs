//! One run of a kernel under the SDV semantics (docs/semantics.md, Execution model): the
//! blocks of the grid one after another, the threads of a block in lock step under
//! predicated execution.
//!
//! A statement is executed by all threads of the block at once, each with an enabled
//! bit (the mask). Threads leave the mask through a false branch or loop guard, or
//! through `return`/`break`/`continue`, which also set the thread's [`Status`] so the
//! enclosing statements know when to enable it again. Every memory access is checked
//! against the accesses since the block's last barrier (and, for global memory, against
//! the earlier blocks) at the moment it happens.

use kpl::arith::ArithError;
use kpl::{Arith, AtomicOp, BinOp, Builtin, Space};

use super::compile::{CExpr, CKind, CLoop, CStmt, Program, Slot, StmtIx};
use super::grid::GridPhases;
use super::races::{AccessLog, Entry, Findings, Interner, Loc, RunContext, RunInfo, unlinear};
use super::values::{FastMap, Rng, initial_content};
use crate::{AccessKind, Dim3, Witness};

/// Why a run ended early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// An `assume` was false for an enabled thread: no feasible execution goes on.
    Infeasible,
    /// A loop execution reached the iteration bound.
    LoopBound { line: u32, bound: u64 },
    /// Arithmetic the semantics does not define (overflow of the 64-bit range, bad shift).
    Arith { line: u32, err: ArithError },
    /// The run did [`Machine::max_work`] work (only when the caller set a limit: the
    /// static verifier's concrete runs, `race_instances`).
    Work,
}

/// Why a thread is disabled until some enclosing statement ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Running,
    /// Until the end of the kernel.
    Returned,
    /// Until the innermost loop ends.
    Broken,
    /// Until the innermost loop's next iteration.
    Continued,
}

/// The fixed inputs of one run.
pub(super) struct RunSpec<'a> {
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// Values of the scalar parameters, in [`Program::params`] order.
    pub params: &'a [i64],
    pub seed: u64,
}

/// The interpreter's state, reused across runs so that a check does not allocate per run.
pub(super) struct Machine<'p> {
    prog: &'p Program,
    arith: Arith,
    loop_bound: u64,
    max_blocks: u32,
    /// The blocks (linear ids, in order) a run executes instead of the first ones and
    /// the last: a replay runs the blocks of its witness (`dynamic::replay_run`).
    pub(super) chosen_blocks: Option<Vec<u32>>,
    /// Statement executions (times the threads of the block, enabled or not) plus
    /// logged accesses compared ([`AccessLog::walked`]) after which a run stops with
    /// [`Stop::Work`]; `u64::MAX`: never.
    pub(super) max_work: u64,
    /// Statement executions of the current run, against `max_work`.
    work: u64,
    nthreads: usize,
    /// Thread frames, `prog.slots` values per thread.
    vars: Vec<i64>,
    status: Vec<Status>,
    tids: Vec<Dim3>,
    bid: Dim3,
    block: u32,
    block_dim: Dim3,
    grid_dim: Dim3,
    seed: u64,
    rng: Rng,
    /// Element contents that differ from the initial ones.
    global_mem: FastMap<Loc, i64>,
    shared_mem: FastMap<Loc, i64>,
    /// Accesses of the running block since its last barrier.
    log: AccessLog,
    /// Access statements executed so far in the run (see [`Entry::step`]).
    step: u64,
    /// `--only-intra-group`: races between blocks are not looked for.
    only_intra_group: bool,
    /// Threads per warp, for `warp_havoc` (`--warp-size`, else 32).
    warp_size: usize,
    /// Benign tolerance (`CheckOptions::no_benign_tolerance` off): two plain writes of
    /// equal values do not race.
    benign: bool,
    /// Global accesses of the blocks run so far, per grid phase, and the grid barriers.
    grid: GridPhases,
    interner: Interner,
    /// Per enclosing loop, outermost first: the interned iteration vector up to it. The
    /// top is the iteration vector of the current statement.
    loop_stack: Vec<u32>,
    masks: Vec<Vec<bool>>,
    run: RunInfo,
    /// Per statement: how many times a block executed it as a barrier (for `profile`;
    /// the caller resets it).
    pub(super) barrier_hits: Vec<u64>,
    /// Every access of the run, for the brute-force cross-check in the tests.
    #[cfg(test)]
    pub(super) trace: Vec<super::tests::Traced>,
    /// Barriers the running block completed (identifies its barrier intervals).
    #[cfg(test)]
    epoch: u32,
    /// Per two-thread `assume` executed in earlier blocks of the run: the threads that
    /// passed it (their launch values and frames), to check the pairs across blocks.
    passed: Vec<(StmtIx, Env, Vec<i64>)>,
}

impl<'p> Machine<'p> {
    pub(super) fn new(prog: &'p Program, arith: Arith, loop_bound: u64, max_blocks: u32) -> Machine<'p> {
        Machine {
            prog,
            arith,
            loop_bound,
            max_blocks: max_blocks.max(1),
            chosen_blocks: None,
            max_work: u64::MAX,
            work: 0,
            nthreads: 0,
            vars: Vec::new(),
            status: Vec::new(),
            tids: Vec::new(),
            bid: [0; 3],
            block: 0,
            block_dim: [0; 3],
            grid_dim: [0; 3],
            seed: 0,
            rng: Rng::new(0),
            global_mem: FastMap::default(),
            shared_mem: FastMap::default(),
            log: AccessLog::unlimited(),
            step: 0,
            only_intra_group: false,
            warp_size: 32,
            benign: false,
            grid: GridPhases::default(),
            interner: Interner::default(),
            loop_stack: Vec::new(),
            masks: Vec::new(),
            barrier_hits: vec![0; prog.stmts.len()],
            run: RunInfo {
                block_dim: [0; 3],
                grid_dim: [0; 3],
                params: Vec::new(),
            },
            #[cfg(test)]
            trace: Vec::new(),
            #[cfg(test)]
            epoch: 0,
            passed: Vec::new(),
        }
    }

    /// The work of the last run, against [`Machine::max_work`].
    pub(super) fn work_done(&self) -> u64 {
        self.work.saturating_add(self.log.walked)
    }

    /// Compare a new access with at most `n` logged ones ([`AccessLog::walk_limit`]).
    pub(super) fn set_walk_limit(&mut self, n: u64) {
        self.log.walk_limit = n;
    }

    /// Whether the kernel's preconditions hold for this launch and these parameters.
    /// Preconditions that cannot be evaluated (division by zero, overflow) count as false.
    pub(super) fn requires_hold(&mut self, spec: &RunSpec) -> bool {
        self.setup(spec);
        let mut frame = vec![0; self.prog.slots];
        for (p, v) in self.prog.params.iter().zip(spec.params) {
            frame[p.slot] = *v;
        }
        let env = Env {
            arith: self.arith,
            tid: [0; 3],
            bid: [0; 3],
            bdim: self.block_dim,
            gdim: self.grid_dim,
        };
        self.prog.requires.iter().all(|r| {
            if r.reads_thread_ids() {
                let blocks = count(self.grid_dim);
                (0..blocks).all(|b| {
                    (0..self.nthreads).all(|t| {
                        let env = Env {
                            tid: self.tids[t],
                            bid: unlinear(b, self.grid_dim),
                            ..env
                        };
                        holds(r, &env, &frame)
                    })
                })
            } else {
                holds(r, &env, &frame)
            }
        })
    }

    fn setup(&mut self, spec: &RunSpec) {
        self.block_dim = spec.block_dim;
        self.grid_dim = spec.grid_dim;
        self.nthreads = count(spec.block_dim) as usize;
        self.tids.clear();
        self.tids
            .extend((0..self.nthreads as u32).map(|t| unlinear(t, spec.block_dim)));
    }

    /// The blocks a run executes, in order. Blocks may run in any order, so running
    /// only some of them is a prefix of a valid schedule: what it finds is real. Large
    /// grids are cut to their first blocks and the last one (edge cases live there),
    /// unless the caller chose the blocks.
    pub(super) fn blocks(&self, grid_dim: Dim3) -> impl Iterator<Item = u32> + use<> {
        let total = count(grid_dim);
        let blocks: Vec<u32> = match &self.chosen_blocks {
            Some(chosen) => chosen.iter().copied().filter(|b| *b < total).collect(),
            None => {
                let shown = total.min(self.max_blocks);
                let last = (shown < total).then(|| total - 1);
                (0..shown - u32::from(last.is_some())).chain(last).collect()
            }
        };
        blocks.into_iter()
    }

    /// Executes the kernel on the blocks of the grid, reporting into `out`.
    pub(super) fn run(&mut self, spec: &RunSpec, out: &mut Findings) -> Result<(), Stop> {
        self.setup(spec);
        self.work = 0;
        self.log.walked = 0;
        self.seed = spec.seed;
        self.rng = Rng::new(spec.seed);
        self.global_mem.clear();
        self.grid.clear();
        self.interner.clear();
        self.passed.clear();
        self.run = RunInfo {
            block_dim: spec.block_dim,
            grid_dim: spec.grid_dim,
            params: self
                .prog
                .params
                .iter()
                .zip(spec.params)
                .map(|(p, v)| (p.name.clone(), *v))
                .collect(),
        };
        for block in self.blocks(spec.grid_dim) {
            self.start_block(block, spec.params);
            let mut mask = self.take_mask(true);
            let body = &self.prog.body;
            let result = self.exec_block(body, &mut mask, out);
            self.masks.push(mask);
            self.grid
                .end_block(self.prog, &self.interner, &self.run, block, result.is_ok(), out);
            result?;
        }
        Ok(())
    }

    fn start_block(&mut self, block: u32, params: &[i64]) {
        self.block = block;
        self.bid = unlinear(block, self.grid_dim);
        let slots = self.prog.slots;
        self.vars.clear();
        self.vars.resize(self.nthreads * slots, 0);
        for t in 0..self.nthreads {
            for (p, v) in self.prog.params.iter().zip(params) {
                self.vars[t * slots + p.slot] = *v;
            }
        }
        self.status.clear();
        self.status.resize(self.nthreads, Status::Running);
        self.shared_mem.clear();
        self.log.clear();
        self.loop_stack.clear();
        #[cfg(test)]
        {
            self.epoch = 0;
        }
    }

    fn take_mask(&mut self, value: bool) -> Vec<bool> {
        let mut m = self.masks.pop().unwrap_or_default();
        m.clear();
        m.resize(self.nthreads, value);
        m
    }

    fn env(&self, t: usize) -> Env {
        Env {
            arith: self.arith,
            tid: self.tids[t],
            bid: self.bid,
            bdim: self.block_dim,
            gdim: self.grid_dim,
        }
    }

    /// Evaluates `e` for thread `t`.
    fn eval(&mut self, e: &CExpr, t: usize, stmt: StmtIx) -> Result<i64, Stop> {
        let slots = self.prog.slots;
        let env = self.env(t);
        let frame = &self.vars[t * slots..(t + 1) * slots];
        eval(e, &env, frame, Some(&mut self.rng), None).map_err(|err| Stop::Arith {
            line: self.prog.stmts[stmt as usize].span.line,
            err,
        })
    }

    fn set(&mut self, t: usize, slot: Slot, v: i64) {
        self.vars[t * self.prog.slots + slot] = v;
    }

    fn exec_block(&mut self, stmts: &'p [CStmt], mask: &mut [bool], out: &mut Findings) -> Result<(), Stop> {
        for s in stmts {
            if !mask.iter().any(|m| *m) {
                // Nothing is executed by no thread: not even a barrier (docs/semantics.md,
                // Execution model).
                return Ok(());
            }
            self.exec(s, mask, out)?;
        }
        Ok(())
    }

    fn exec(&mut self, s: &'p CStmt, mask: &mut [bool], out: &mut Findings) -> Result<(), Stop> {
        let ix = s.ix;
        let n = mask.len();
        self.work = self.work.saturating_add(n as u64);
        if self.work.saturating_add(self.log.walked) > self.max_work {
            return Err(Stop::Work);
        }
        match &s.kind {
            CKind::Assign { slot, value } => {
                for t in (0..n).filter(|t| mask[*t]) {
                    let v = self.eval(value, t, ix)?;
                    self.set(t, *slot, v);
                }
            }
            CKind::Arbitrary { slot, warp: false } => {
                for t in (0..n).filter(|t| mask[*t]) {
                    let v = self.rng.arbitrary();
                    self.set(t, *slot, v);
                }
            }
            CKind::Arbitrary { slot, warp: true } => {
                // One value for the enabled threads of each warp (threads numbered x
                // fastest, as CUDA makes warps).
                let size = self.warp_size.max(1);
                let mut warp_value: Option<(usize, i64)> = None;
                for t in (0..n).filter(|t| mask[*t]) {
                    let v = match warp_value {
                        Some((w, v)) if w == t / size => v,
                        _ => self.rng.arbitrary(),
                    };
                    warp_value = Some((t / size, v));
                    self.set(t, *slot, v);
                }
            }
            CKind::Read {
                slot,
                array,
                index,
                ty,
            } => {
                self.access_step(mask);
                for t in (0..n).filter(|t| mask[*t]) {
                    let i = self.eval(index, t, ix)?;
                    let loc = (*array, i);
                    self.access(t, ix, AccessKind::Read, loc, 0, out);
                    let raw = self.load(loc);
                    let v = self.read_as(*ty, raw, ix)?;
                    self.set(t, *slot, v);
                }
            }
            CKind::Write { array, index, value } => {
                self.access_step(mask);
                for t in (0..n).filter(|t| mask[*t]) {
                    let i = self.eval(index, t, ix)?;
                    let v = self.eval(value, t, ix)?;
                    let loc = (*array, i);
                    self.access(t, ix, AccessKind::Write, loc, v, out);
                    self.store(loc, v);
                }
            }
            CKind::Atomic {
                slot,
                op,
                array,
                index,
                value,
                ty,
            } => {
                self.access_step(mask);
                for t in (0..n).filter(|t| mask[*t]) {
                    let i = self.eval(index, t, ix)?;
                    let v = self.eval(value, t, ix)?;
                    let loc = (*array, i);
                    self.access(t, ix, AccessKind::Atomic, loc, 0, out);
                    let raw = self.load(loc);
                    let old = self.read_as(*ty, raw, ix)?;
                    let new = self.atomic(*op, old, v).map_err(|err| Stop::Arith {
                        line: self.prog.stmts[ix as usize].span.line,
                        err,
                    })?;
                    self.store(loc, new);
                    if let Some(slot) = slot {
                        self.set(t, *slot, old);
                    }
                }
            }
            CKind::Barrier => {
                self.barrier(ix, mask, out);
            }
            CKind::WarpBarrier => self.warp_barrier(ix, mask, out),
            CKind::GridBarrier => {
                // A grid barrier is a barrier of the block too; completed by every
                // thread of the block, it also ends the block's grid phase.
                if self.barrier(ix, mask, out) {
                    self.grid.completed(ix, self.iters());
                }
            }
            CKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let mut then_mask = self.take_mask(false);
                let mut else_mask = self.take_mask(false);
                for t in (0..n).filter(|t| mask[*t]) {
                    let c = self.eval(cond, t, ix)? != 0;
                    then_mask[t] = c;
                    else_mask[t] = !c;
                }
                self.exec_block(then_blk, &mut then_mask, out)?;
                self.exec_block(else_blk, &mut else_mask, out)?;
                self.masks.push(then_mask);
                self.masks.push(else_mask);
                self.drop_jumped(mask);
            }
            CKind::Loop(l) => self.exec_loop(ix, l, mask, out)?,
            CKind::Assume(cond) if cond.has_other() => self.assume_pairs(ix, cond, mask)?,
            CKind::Assume(cond) => {
                for t in (0..n).filter(|t| mask[*t]) {
                    if self.eval(cond, t, ix)? == 0 {
                        return Err(Stop::Infeasible);
                    }
                }
            }
            CKind::Nop => {}
            CKind::Return => self.jump(mask, Status::Returned),
            CKind::Break => self.jump(mask, Status::Broken),
            CKind::Continue => self.jump(mask, Status::Continued),
        }
        Ok(())
    }

    /// A two-thread `assume` (`other(e)` in its condition): it must hold for every
    /// ordered pair of distinct threads of the grid that reach it, checked when the
    /// second of them does (the blocks run one after the other). A condition that
    /// cannot be evaluated counts as false.
    fn assume_pairs(&mut self, ix: StmtIx, cond: &CExpr, mask: &[bool]) -> Result<(), Stop> {
        let slots = self.prog.slots;
        let here: Vec<(Env, Vec<i64>)> = (0..mask.len())
            .filter(|t| mask[*t])
            .map(|t| (self.env(t), self.vars[t * slots..(t + 1) * slots].to_vec()))
            .collect();
        let holds = |a: &(Env, Vec<i64>), b: &(Env, Vec<i64>)| {
            !matches!(eval(cond, &a.0, &a.1, None, Some((&b.0, &b.1))), Ok(0) | Err(_))
        };
        for (i, a) in here.iter().enumerate() {
            for (j, b) in here.iter().enumerate() {
                if i != j && !holds(a, b) {
                    return Err(Stop::Infeasible);
                }
            }
            for (_, env, frame) in self.passed.iter().filter(|p| p.0 == ix) {
                let b = (*env, frame.clone());
                if !holds(a, &b) || !holds(&b, a) {
                    return Err(Stop::Infeasible);
                }
            }
        }
        self.passed
            .extend(here.into_iter().map(|(env, frame)| (ix, env, frame)));
        Ok(())
    }

    /// A value of memory read through `ty`: converted to it, as C reads an lvalue of
    /// that type (memory holds any integer: what was stored through other types, or
    /// the run's initial contents).
    fn read_as(&self, ty: Option<kpl::IntTy>, v: i64, ix: StmtIx) -> Result<i64, Stop> {
        match ty {
            None => Ok(v),
            Some(t) => self.arith.cast(t, v).map_err(|err| Stop::Arith {
                line: self.prog.stmts[ix as usize].span.line,
                err,
            }),
        }
    }

    /// `return`, `break`, `continue`: the enabled threads stop until the jump's target.
    fn jump(&mut self, mask: &mut [bool], why: Status) {
        for (t, m) in mask.iter_mut().enumerate() {
            if *m {
                self.status[t] = why;
                *m = false;
            }
        }
    }

    /// After a nested block: threads that jumped out of it stay disabled here too.
    fn drop_jumped(&self, mask: &mut [bool]) {
        for (t, m) in mask.iter_mut().enumerate() {
            *m &= self.status[t] == Status::Running;
        }
    }

    /// A loop iterates while its guard holds for any thread still in it; threads leave
    /// it for good when their guard is false, by `break` or by `return`.
    fn exec_loop(
        &mut self,
        ix: StmtIx,
        l: &'p CLoop,
        mask: &mut [bool],
        out: &mut Findings,
    ) -> Result<(), Stop> {
        let mut live = self.take_mask(false);
        live.copy_from_slice(mask);
        if let Some((slot, init, _)) = &l.var {
            for t in (0..live.len()).filter(|t| live[*t]) {
                let v = self.eval(init, t, ix)?;
                self.set(t, *slot, v);
            }
        }
        let parent = self.iters();
        self.loop_stack.push(parent);
        let mut k = 0;
        loop {
            let mut any = false;
            for (t, in_loop) in live.iter_mut().enumerate() {
                if *in_loop {
                    *in_loop = self.eval(&l.cond, t, ix)? != 0;
                    any |= *in_loop;
                }
            }
            if !any {
                break;
            }
            if k >= self.loop_bound {
                return Err(Stop::LoopBound {
                    line: self.prog.stmts[ix as usize].span.line,
                    bound: self.loop_bound,
                });
            }
            let id = self.interner.child(parent, k);
            if let Some(top) = self.loop_stack.last_mut() {
                *top = id;
            }
            let mut body_mask = self.take_mask(false);
            body_mask.copy_from_slice(&live);
            self.exec_block(&l.body, &mut body_mask, out)?;
            self.masks.push(body_mask);
            for (t, in_loop) in live.iter_mut().enumerate() {
                match self.status[t] {
                    Status::Continued if *in_loop => self.status[t] = Status::Running,
                    Status::Running => {}
                    _ => *in_loop = false,
                }
            }
            if let Some((slot, _, step)) = &l.var {
                for t in (0..live.len()).filter(|t| live[*t]) {
                    let v = self.eval(step, t, ix)?;
                    self.set(t, *slot, v);
                }
            }
            k += 1;
        }
        self.masks.push(live);
        self.loop_stack.pop();
        for (t, m) in mask.iter_mut().enumerate() {
            if *m && self.status[t] == Status::Broken {
                self.status[t] = Status::Running;
            }
        }
        self.drop_jumped(mask);
        Ok(())
    }

    /// A barrier executed by all threads of the block ends its barrier interval; one
    /// that only some threads reach diverges (and synchronizes nothing).
    /// Returns whether every thread of the block executed it.
    fn barrier(&mut self, ix: StmtIx, mask: &[bool], out: &mut Findings) -> bool {
        let enabled = mask.iter().position(|m| *m);
        let disabled = mask.iter().position(|m| !*m);
        if let (Some(_), Some(h)) = (enabled, self.barrier_hits.get_mut(ix as usize)) {
            *h += 1;
        }
        match (enabled, disabled) {
            (Some(on), Some(off)) => {
                let iters = self.interner.get(self.iters()).to_vec();
                let run = &self.run;
                let block = self.block;
                out.divergence(self.prog, ix, || Witness {
                    threads: [run.thread(on as u32, block), run.thread(off as u32, block)],
                    index: None,
                    iterations: [iters.clone(), iters],
                    block_dim: run.block_dim,
                    grid_dim: run.grid_dim,
                    params: run.params.clone(),
                });
            }
            (Some(_), None) => {
                self.log.clear();
                #[cfg(test)]
                {
                    self.epoch += 1;
                }
                return true;
            }
            _ => {}
        }
        false
    }

    fn memory(&mut self, array: u32) -> &mut FastMap<Loc, i64> {
        match self.prog.arrays[array as usize].space {
            Space::Shared => &mut self.shared_mem,
            Space::Global => &mut self.global_mem,
        }
    }

    fn load(&mut self, loc: Loc) -> i64 {
        let seed = self.seed;
        self.memory(loc.0)
            .get(&loc)
            .copied()
            .unwrap_or_else(|| initial_content(seed, loc.0, loc.1))
    }

    fn store(&mut self, loc: Loc, v: i64) {
        self.memory(loc.0).insert(loc, v);
    }

    /// The value an atomic operation stores, given the old content and its operand.
    fn atomic(&mut self, op: AtomicOp, old: i64, v: i64) -> Result<i64, ArithError> {
        let a = self.arith;
        Ok(match op {
            AtomicOp::Add => a.binary(BinOp::Add, old, v)?,
            AtomicOp::Sub => a.binary(BinOp::Sub, old, v)?,
            AtomicOp::Exch => v,
            AtomicOp::Min => old.min(v),
            AtomicOp::Max => old.max(v),
            AtomicOp::And => a.binary(BinOp::BitAnd, old, v)?,
            AtomicOp::Or => a.binary(BinOp::BitOr, old, v)?,
            AtomicOp::Xor => a.binary(BinOp::BitXor, old, v)?,
            // CUDA: ((old >= v) ? 0 : (old + 1)).
            AtomicOp::Inc if old >= v => 0,
            AtomicOp::Inc => a.binary(BinOp::Add, old, 1)?,
            // CUDA: (((old == 0) || (old > v)) ? v : (old - 1)).
            AtomicOp::Dec if old == 0 || old > v => v,
            AtomicOp::Dec => a.binary(BinOp::Sub, old, 1)?,
            // The IR keeps one operand of atomicCAS (the new value), not the compare
            // value, so whether the swap happens is arbitrary.
            AtomicOp::Cas if self.rng.coin() => v,
            AtomicOp::Cas => old,
        })
    }

    /// The interned iteration vector of the current statement.
    fn iters(&self) -> u32 {
        self.loop_stack.last().copied().unwrap_or(Interner::ROOT)
    }

    /// What the options say beyond the launch: warps (lock step inside warps of the
    /// `--warp-size`, else warps that only `__syncwarp()` synchronizes, when the kernel
    /// has one) and `--only-intra-group`.
    pub(super) fn configure(&mut self, opts: &crate::CheckOptions, kernel: &kpl::Kernel) {
        self.only_intra_group = opts.only_intra_group;
        self.warp_size = opts.warp_barrier_size() as usize;
        self.benign = !opts.no_benign_tolerance;
        let warp_barriers = kernel
            .stmts()
            .iter()
            .any(|s| matches!(s.kind, kpl::StmtKind::WarpBarrier));
        self.log.warps = match opts.launch.warp_size {
            Some(w) => Some(super::races::WarpSync::new(w, true)),
            None if warp_barriers => Some(super::races::WarpSync::new(opts.warp_barrier_size(), false)),
            None => None,
        };
    }

    /// `__syncwarp()`: every warp with enabled threads must have all its threads
    /// enabled (else the barrier diverges, and synchronizes nothing); then the enabled
    /// threads of each warp are ordered.
    fn warp_barrier(&mut self, ix: StmtIx, mask: &[bool], out: &mut Findings) {
        let size = self.log.warps.as_ref().map_or(32, |w| w.size) as usize;
        let mut diverged = false;
        for (w, lanes) in mask.chunks(size.max(1)).enumerate() {
            let on = lanes.iter().position(|m| *m);
            let off = lanes.iter().position(|m| !*m);
            if let (Some(on), Some(off)) = (on, off) {
                diverged = true;
                let iters = self.interner.get(self.iters()).to_vec();
                let run = &self.run;
                let block = self.block;
                let t = |lane: usize| (w * size + lane) as u32;
                out.divergence(self.prog, ix, || Witness {
                    threads: [run.thread(t(on), block), run.thread(t(off), block)],
                    index: None,
                    iterations: [iters.clone(), iters],
                    block_dim: run.block_dim,
                    grid_dim: run.grid_dim,
                    params: run.params.clone(),
                });
            }
        }
        if !diverged {
            self.step += 1;
            self.log.sync_point(self.step, mask);
        }
    }

    /// A new access statement instance starts, executed by the threads of `mask`.
    fn access_step(&mut self, mask: &[bool]) {
        self.step += 1;
        self.log.step(self.step, mask);
    }

    /// Checks an access against the accesses it is not ordered with, then logs it.
    /// `written` is the value a plain write stores (ignored otherwise).
    fn access(
        &mut self,
        t: usize,
        stmt: StmtIx,
        kind: AccessKind,
        loc: Loc,
        written: i64,
        out: &mut Findings,
    ) {
        let iters = self.iters();
        let new = Entry {
            stmt,
            kind,
            thread: t as u32,
            block: self.block,
            iters,
            step: self.step,
            value: if self.benign && kind == AccessKind::Write {
                written
            } else {
                0
            },
        };
        #[cfg(test)]
        self.trace.push(super::tests::Traced {
            entry: new,
            loc,
            iters: self.interner.get(iters).to_vec(),
            value: written,
            epoch: self.epoch,
        });
        let cx = RunContext {
            benign: self.benign,
            prog: self.prog,
            interner: &self.interner,
            run: &self.run,
        };
        self.log.access(loc, &new, &cx, out);
        if self.prog.arrays[loc.0 as usize].space == Space::Global && !self.only_intra_group {
            let history = self.grid.history();
            history.access(loc, &new, &cx, out);
            history.record(loc, new);
        }
    }
}

/// Number of threads (blocks) in a block (grid) of these dimensions.
pub(super) fn count(d: Dim3) -> u32 {
    d[0].saturating_mul(d[1]).saturating_mul(d[2])
}

/// What an expression can read besides variables.
#[derive(Clone, Copy)]
struct Env {
    arith: Arith,
    tid: Dim3,
    bid: Dim3,
    bdim: Dim3,
    gdim: Dim3,
}

/// Evaluates an expression. A division by zero yields an arbitrary value drawn from
/// `rng`, or is an error without one. `other(e)` is `e` in the `other` thread (in the
/// thread itself without one: any value will do, the verifier's is arbitrary).
fn eval(
    e: &CExpr,
    env: &Env,
    frame: &[i64],
    mut rng: Option<&mut Rng>,
    other: Option<(&Env, &[i64])>,
) -> Result<i64, ArithError> {
    match e {
        CExpr::Other(a) => match other {
            Some((oe, of)) => eval(a, oe, of, rng, Some((env, frame))),
            None => eval(a, env, frame, rng, None),
        },
        CExpr::Const(c) => Ok(env.arith.norm(*c)),
        CExpr::Var(s) => Ok(frame[*s]),
        CExpr::Builtin(b) => Ok(i64::from(match b {
            Builtin::Tid(d) => env.tid[d.index()],
            Builtin::Bid(d) => env.bid[d.index()],
            Builtin::Bdim(d) => env.bdim[d.index()],
            Builtin::Gdim(d) => env.gdim[d.index()],
        })),
        CExpr::Unary(op, a) => env.arith.unary(*op, eval(a, env, frame, rng, other)?),
        CExpr::Cast(ty, a) => env.arith.cast(*ty, eval(a, env, frame, rng, other)?),
        CExpr::Apply(seed, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(a, env, frame, rng.as_deref_mut(), other)?);
            }
            Ok(env.arith.norm(apply(*seed, &vals)))
        }
        CExpr::Binary(op, a, b) => {
            let a = eval(a, env, frame, rng.as_deref_mut(), other)?;
            let b = eval(b, env, frame, rng.as_deref_mut(), other)?;
            match (env.arith.binary(*op, a, b), rng) {
                (Err(ArithError::DivByZero), Some(rng)) => {
                    Ok(env.arith.norm(rng.div_by_zero(*op == BinOp::Rem, a)))
                }
                (r, _) => r,
            }
        }
    }
}

/// The interpretation of an uninterpreted function `@f` ([`kpl::Expr::Apply`]) the
/// interpreter runs with: a fixed hash of the name and the arguments, folded to a few
/// values so that distinct arguments sometimes give equal results (the verifier must
/// assume neither that they do nor that they do not).
pub(super) fn function_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn apply(seed: u64, args: &[i64]) -> i64 {
    let h = args
        .iter()
        .fold(seed, |h, a| (h ^ *a as u64).wrapping_mul(0x0100_0000_01b3));
    ((h >> 29) % 7) as i64
}

/// Whether a precondition holds. One that cannot be evaluated (division by zero,
/// overflow) makes the launch infeasible rather than arbitrarily feasible.
fn holds(e: &CExpr, env: &Env, frame: &[i64]) -> bool {
    !matches!(eval(e, env, frame, None, None), Ok(0) | Err(_))
}
