//! Asynchronous copies in flight. A copy started by `memcpy_async` (and its relatives,
//! recognized in `builtins::async_copy`) reads its source and writes its destination at
//! some moment between the call and the wait that completes it: its accesses belong to
//! every barrier interval in between. The lowering models that with the thread's
//! *pending* copies:
//!
//! - At the call, the copy's arguments are saved in locals of their own (declared at the
//!   kernel's start) and its accesses are lowered once (the call's interval).
//! - After every barrier lowered while it is pending (`__syncthreads`, a warp or grid
//!   barrier), its accesses are lowered again from the saved values: the interval that
//!   barrier opens has them too.
//! - A wait that completes it sets its saved length to 0, so that later repetitions do
//!   nothing on the paths where it completed; the copy leaves the pending list only
//!   where the wait is certain to follow the call (the wait's block encloses the call's,
//!   and no jump leaves between them).
//! - While a copy is pending no barrier may be placed by `fix` (the statements get no
//!   place): a barrier the synthesis adds would not repeat the copy's accesses.
//! - What the lowering cannot follow is unsupported: a jump (`return`, `break`,
//!   `continue`, `goto`) while a copy is pending, a copy still pending at the end of the
//!   loop iteration that started it (a pipeline across iterations), a copy pending when
//!   the kernel ends.
//!
//! Who copies what: a copy of one thread (`__pipeline_memcpy_async`,
//! `cuda::memcpy_async` without a group) is that thread's accesses of the whole ranges. A
//! copy of a group (`cooperative_groups::memcpy_async(block, ...)`) is shared by its
//! threads in a way CUDA does not say: each destination cell is copied by one thread of
//! the group. The lowering gives each thread one arbitrary cell `j` of the destination,
//! copied by it when `@own(j, r)` is its rank in the group: `own` is a function nobody
//! knows (so any thread may copy any cell, and two threads never copy one cell), `r` a
//! value the group shares and that is new at every call (so two calls may share the work
//! out differently).
//!
//! Batches: `__pipeline_commit` (and every `cooperative_groups::memcpy_async`) closes a
//! batch of the thread's copies; `wait_prior(N)` completes every batch but the newest
//! `N`. A `cuda::pipeline`'s `producer_commit` closes a stage, `consumer_wait` completes
//! its oldest stage not released, `consumer_release` releases it. A `cuda::barrier`'s
//! copies complete when the thread has waited for the barrier's phase.

use std::collections::HashMap;

use kpl::ir::{BinOp, Expr, Span, StmtKind};

use super::{Lowerer, Ptr, R, fold};

/// What completes a copy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Channel {
    /// The thread's own queue of batches: `cooperative_groups::memcpy_async` (one batch
    /// per call) and `__pipeline_memcpy_async` (batches closed by `__pipeline_commit`).
    Thread,
    /// A `cuda::pipeline` object, by its place.
    Pipeline(String),
    /// A `cuda::barrier` object, by its place.
    Barrier(String),
}

/// Who performs a copy.
#[derive(Clone, Debug)]
pub(super) enum Part {
    /// The calling thread copies all of it.
    Whole,
    /// The threads of a group share it: the calling thread's rank in the group, and the
    /// saved value the group shares for this call (see the module doc).
    Shared { rank: Expr, shared: String },
}

/// One pending copy of the thread.
#[derive(Clone, Debug)]
struct Copy {
    id: usize,
    channel: Channel,
    /// The batch (or pipeline stage) it belongs to, once committed.
    batch: Option<usize>,
    /// The blocks (outermost first) the call was lowered in, and the commit.
    issued: Vec<usize>,
    committed: Option<Vec<usize>>,
    /// The destination and source, their offsets saved in locals.
    dst: Ptr,
    src: Option<Ptr>,
    /// The saved length in bytes: 0 once the copy completed.
    len: String,
    part: Part,
    /// The call: its accesses are reported there, wherever they are repeated.
    span: Span,
}

impl Copy {
    /// Committed wherever it was started (the commit's block encloses the call's).
    fn surely_committed(&self) -> bool {
        self.committed.as_ref().is_some_and(|c| within(c, &self.issued))
    }
}

/// A closed batch or stage: its number, what it belongs to, and the blocks of the
/// commit that closed it.
#[derive(Clone, Debug)]
struct Batch {
    no: usize,
    channel: Channel,
    committed: Vec<usize>,
}

/// The pending copies of the thread at the point being lowered (see the module doc).
#[derive(Debug, Default)]
pub(super) struct InFlight {
    pending: Vec<Copy>,
    batches: Vec<Batch>,
    /// The stages of each `cuda::pipeline` not yet released, oldest first (`None` once
    /// a release the lowering cannot place made that unknown).
    stages: HashMap<Channel, Option<Vec<usize>>>,
    next_copy: usize,
    next_batch: usize,
    /// The locals that hold saved arguments, declared (as 0) at the kernel's start.
    pub locals: Vec<String>,
    /// The `expected` count each `__shared__ cuda::barrier` was initialized with
    /// (`init(&bar, n)`), when the initialization surely ran in thread 0 at the kernel's
    /// top level (see `async_copy::init`).
    pub barrier_counts: HashMap<String, Expr>,
    /// The condition of each `if`'s then-block, by block number (see [`Lowerer::block`]).
    pub conditions: HashMap<usize, Expr>,
}

/// Whether blocks `inner` are within blocks `outer` (the same block or nested in it).
fn within(outer: &[usize], inner: &[usize]) -> bool {
    inner.starts_with(outer)
}

/// Where the lowering is, for what can be said of loops: the copies and batches made
/// from here on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    copy: usize,
    batch: usize,
}

impl InFlight {
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn mark(&self) -> Mark {
        Mark {
            copy: self.next_copy,
            batch: self.next_batch,
        }
    }

    /// Whether a copy started since `m` is still pending, or a pipeline stage closed
    /// since `m` is not released: then the next iteration of a loop whose body began at
    /// `m` does not start where the first did.
    pub fn outlived(&self, m: Mark) -> bool {
        self.pending.iter().any(|c| c.id >= m.copy)
            || self
                .stages
                .values()
                .flatten()
                .any(|s| s.iter().any(|b| *b >= m.batch))
    }
}

/// What the copy is, as the builtin found it.
pub(super) struct Start {
    pub channel: Channel,
    pub dst: Ptr,
    pub src: Option<Ptr>,
    pub len: Expr,
    /// Shared by a group: the calling thread's rank in it, and a value the group shares,
    /// new at this call (see the module doc).
    pub group: Option<(Expr, Expr)>,
    /// Closed as a batch of its own at once (`cooperative_groups::memcpy_async`, and
    /// the copies of a barrier, which need no commit).
    pub committed: bool,
}

impl<'t> Lowerer<'_, 't> {
    /// A KPL local declared as 0 at the kernel's start, assignable anywhere.
    fn saved(&mut self, base: &str, value: Expr, span: Span) -> String {
        let var = self.fresh(base);
        self.mutable.insert(var.clone());
        self.copies.locals.push(var.clone());
        self.emit(
            StmtKind::Assign {
                var: var.clone(),
                value,
            },
            span,
        );
        var
    }

    /// Starts a copy: saves its arguments, lowers its accesses once, and makes it pending.
    pub(super) fn start_copy(&mut self, s: Start, span: Span) {
        let dst_off = self.saved("_copy_dst", s.dst.off.clone(), span);
        let src = s.src.map(|p| {
            let off = self.saved("_copy_src", p.off.clone(), span);
            Ptr {
                off: Expr::Var(off),
                ..p
            }
        });
        let len = self.saved("_copy_len", s.len, span);
        let part = match s.group {
            None => Part::Whole,
            Some((rank, value)) => Part::Shared {
                rank,
                shared: self.saved("_copy_share", value, span),
            },
        };
        let id = self.copies.next_copy;
        self.copies.next_copy += 1;
        let copy = Copy {
            id,
            channel: s.channel.clone(),
            batch: None,
            issued: self.block_ids.clone(),
            committed: None,
            dst: Ptr {
                off: Expr::Var(dst_off),
                ..s.dst
            },
            src,
            len,
            part,
            span,
        };
        self.copy_accesses(&copy);
        self.copies.pending.push(copy);
        if s.committed {
            self.commit(&s.channel);
        }
    }

    /// Closes a batch (or pipeline stage) of `channel`: every copy of it not yet in one.
    pub(super) fn commit(&mut self, channel: &Channel) {
        let no = self.copies.next_batch;
        self.copies.next_batch += 1;
        let here = self.block_ids.clone();
        for c in self.copies.pending.iter_mut() {
            if c.channel == *channel && c.batch.is_none() {
                c.batch = Some(no);
                c.committed = Some(here.clone());
            }
        }
        self.copies.batches.push(Batch {
            no,
            channel: channel.clone(),
            committed: here,
        });
        if let Channel::Pipeline(_) = channel {
            let stages = self
                .copies
                .stages
                .entry(channel.clone())
                .or_insert(Some(Vec::new()));
            if let Some(s) = stages {
                s.push(no);
            }
        }
    }

    /// `wait_prior(n)` on `channel`: completes every committed copy with at least `n`
    /// batches after its own that are certain to be closed here.
    pub(super) fn wait_prior(&mut self, channel: &Channel, n: usize, span: Span) {
        let here = self.block_ids.clone();
        let certain: Vec<usize> = self
            .copies
            .batches
            .iter()
            .filter(|b| b.channel == *channel && within(&b.committed, &here))
            .map(|b| b.no)
            .collect();
        self.complete(span, |c| {
            c.channel == *channel
                && c.batch
                    .is_some_and(|b| certain.iter().filter(|&&o| o > b).count() >= n)
        });
    }

    /// A barrier's wait: completes the copies the thread started with `channel`.
    pub(super) fn wait_all(&mut self, channel: &Channel, span: Span) {
        self.complete(span, |c| c.channel == *channel);
    }

    /// `consumer_wait()` of a pipeline: completes its oldest stage not released, when
    /// that stage is known and certain to be closed here.
    pub(super) fn consumer_wait(&mut self, channel: &Channel, span: Span) {
        let here = self.block_ids.clone();
        let Some(Some(stages)) = self.copies.stages.get(channel) else {
            return;
        };
        let Some(&head) = stages.first() else {
            return;
        };
        let certain = self
            .copies
            .batches
            .iter()
            .any(|b| b.no == head && within(&b.committed, &here));
        if certain {
            self.complete(span, |c| c.channel == *channel && c.batch == Some(head));
        }
    }

    /// `consumer_release()` of a pipeline: its oldest stage is released, when the release
    /// is certain to follow that stage's commit; else the stages are no longer known.
    pub(super) fn consumer_release(&mut self, channel: &Channel) {
        let here = self.block_ids.clone();
        let batches = &self.copies.batches;
        let Some(Some(stages)) = self.copies.stages.get_mut(channel) else {
            return;
        };
        let Some(&head) = stages.first() else {
            return;
        };
        let follows = batches
            .iter()
            .any(|b| b.no == head && within(&here, &b.committed));
        if follows {
            stages.remove(0);
        } else {
            self.copies.stages.insert(channel.clone(), None);
        }
    }

    /// Completes the pending copies `due` picks out, as far as it is certain: their saved
    /// length becomes 0 (on this path they are done), and they stop being pending where
    /// this point is certain to follow their start.
    fn complete(&mut self, span: Span, due: impl Fn(&Copy) -> bool) {
        let here = self.block_ids.clone();
        let barrier = |c: &Copy| matches!(c.channel, Channel::Barrier(_));
        let done: Vec<Copy> = self
            .copies
            .pending
            .iter()
            .filter(|c| due(c) && (barrier(c) || c.surely_committed()))
            .cloned()
            .collect();
        for c in &done {
            self.emit(
                StmtKind::Assign {
                    var: c.len.clone(),
                    value: Expr::Int(0),
                },
                span,
            );
        }
        self.copies
            .pending
            .retain(|c| !done.iter().any(|d| d.id == c.id && within(&here, &c.issued)));
    }

    /// After a barrier: the pending copies' accesses again (the interval it opens).
    pub(super) fn repeat_pending(&mut self) {
        let pending = self.copies.pending.clone();
        for c in &pending {
            self.copy_accesses(c);
        }
    }

    /// The accesses of a copy: `if (len != 0) { ... }` around the writes of the
    /// destination and reads of the source, of the whole ranges or of the thread's cell.
    fn copy_accesses(&mut self, c: &Copy) {
        let span = c.span;
        let len = Expr::Var(c.len.clone());
        let live = fold::bin(BinOp::Ne, len.clone(), Expr::Int(0));
        match &c.part {
            Part::Whole => {
                let stmts = self.lowered(|l| {
                    l.range_access(&c.dst, &len, Some(None), span);
                    if let Some(src) = &c.src {
                        l.range_access(src, &len, None, span);
                    }
                });
                self.emit_if(live, stmts, span);
            }
            Part::Shared { rank, shared } => {
                // The destination cell `j` of the copy, copied by the one thread of the
                // group that owns it.
                let cell = i64::from(self.arrays_cell(&c.dst));
                let j = self.fresh("_copy_cell");
                let jv = Expr::Var(j.clone());
                let owner = Expr::Apply(
                    format!("copy_owner_{}", c.id),
                    vec![jv.clone(), Expr::Var(shared.clone())],
                );
                let cond = [
                    live,
                    fold::bin(BinOp::Le, Expr::Int(0), jv.clone()),
                    fold::bin(BinOp::Lt, fold::mul(jv.clone(), Expr::Int(cell)), len),
                    fold::bin(BinOp::Eq, owner, rank.clone()),
                ]
                .into_iter()
                .reduce(|a, b| fold::bin(BinOp::And, a, b))
                .unwrap_or(Expr::Int(1));
                // The builtin made sure that the destination starts at a cell.
                let per_unit = i64::from(c.dst.unit) / cell;
                let dst = Ptr {
                    off: fold::add(fold::mul(c.dst.off.clone(), Expr::Int(per_unit)), jv.clone()),
                    unit: cell as u32,
                    ..c.dst.clone()
                };
                let src = c.src.as_ref().map(|p| self.source_of_cell(p, &jv, cell));
                let stmts = self.lowered(|l| {
                    l.range_access(&dst, &Expr::Int(cell), Some(None), span);
                    if let Some(src) = &src {
                        l.range_access(src, &Expr::Int(cell), None, span);
                    }
                });
                self.emit(StmtKind::Local { var: j, init: None }, span);
                self.emit_if(cond, stmts, span);
            }
        }
    }

    /// The source bytes of destination cell `j` (of `cell` bytes): a pointer at them, in
    /// the source array's cells when they divide evenly, else in bytes.
    fn source_of_cell(&self, p: &Ptr, j: &Expr, cell: i64) -> Ptr {
        let src_cell = i64::from(self.arrays_cell(p));
        let unit = i64::from(p.unit);
        if unit % src_cell == 0 && cell % src_cell == 0 {
            let off = fold::add(
                fold::mul(p.off.clone(), Expr::Int(unit / src_cell)),
                fold::mul(j.clone(), Expr::Int(cell / src_cell)),
            );
            Ptr {
                off,
                unit: src_cell as u32,
                ..p.clone()
            }
        } else {
            let off = fold::add(
                fold::mul(p.off.clone(), Expr::Int(unit)),
                fold::mul(j.clone(), Expr::Int(cell)),
            );
            Ptr {
                off,
                unit: 1,
                ..p.clone()
            }
        }
    }

    /// The cell size of the array a pointer points into (1 if it points at no array).
    pub(super) fn arrays_cell(&self, p: &Ptr) -> u32 {
        match p.target {
            super::Target::Array(a) => self.arrays[a].cell.max(1),
            _ => 1,
        }
    }

    fn emit_if(&mut self, cond: Expr, stmts: Vec<kpl::ir::Stmt>, span: Span) {
        if stmts.is_empty() {
            return;
        }
        let then_blk = self.made_block(stmts, span);
        self.emit(
            StmtKind::If {
                cond,
                then_blk,
                else_blk: None,
            },
            span,
        );
    }

    /// The statements `f` emits, in a block of their own.
    fn lowered(&mut self, f: impl FnOnce(&mut Self)) -> Vec<kpl::ir::Stmt> {
        self.in_block(|l| {
            f(l);
            Ok(())
        })
        .map(|((), stmts)| stmts)
        .unwrap_or_default()
    }

    /// Fails when a copy is pending at a jump (`what`): the lowering follows copies
    /// along the text, which a jump leaves.
    pub(super) fn no_copy_in_flight(&self, n: tree_sitter::Node<'t>, what: &str) -> R<()> {
        if self.copies.is_empty() {
            return Ok(());
        }
        Err(self.unsupported(
            n,
            &format!("{what} while an asynchronous copy may be in flight"),
            "wait for the copy (`cg::wait`, `__pipeline_wait_prior`, `consumer_wait`) before the jump",
        ))
    }
}
