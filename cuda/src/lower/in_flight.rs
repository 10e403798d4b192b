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
//! - While a copy is pending, the copy's accesses are lowered again after every
//!   statement that gets a place (`Lowerer::finalize`): a barrier `fix` places there is
//!   followed by them, as a written one is. The tops of blocks and labels get no place.
//! - Double buffering: a copy still pending at the end of an iteration of a counted loop
//!   (`for (i = a; ..; i += c)`) that started it, by a call in the body itself whose
//!   arguments change only with `i`, is *carried*: the first attempt at the kernel finds
//!   it (`carry_request`), and the next attempt makes its twin, the previous iteration's
//!   copy (the arguments at `i - c`, from the second iteration on), pending at the top of
//!   the body ([`Lowerer::carry_into`]); the twin must be complete by the end of the body
//!   ([`Lowerer::carry_out`]). The group's share-out is keyed by `i`, so that the call and
//!   its twin share the work alike.
//! - What the lowering cannot follow is unsupported: a jump (`return`, `break`,
//!   `continue`, `goto`; an early `return` of an inlined function outside loops is not
//!   one) while a copy is pending, a copy pending at the end of another loop's iteration
//!   or two iterations after its call, a copy pending when the kernel ends.
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
pub(super) struct Copy {
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
    /// The call's node (which call site it is, across attempts at the kernel).
    node: usize,
    args: Args,
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
    /// Surely closed where it is (false for the batch a previous loop iteration may
    /// have left, see [`Lowerer::carry_into`]).
    certain: bool,
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
    /// Loops (by body node) whose iterations leave copies in flight for the next one, and
    /// those copies as the previous attempt at the kernel saw them (see [`Carry`]).
    pub carry: HashMap<usize, Vec<Copy>>,
    /// The value a group copy at a node shares, inside a loop that carries it: the loop's
    /// counter, so that the call and its twin in the next iteration share the work alike.
    carried_share: HashMap<usize, Expr>,
    /// A loop found to leave copies in flight: the next attempt carries them.
    pub carry_request: Option<(usize, Vec<Copy>)>,
}

/// Whether blocks `inner` are within blocks `outer` (the same block or nested in it).
fn within(outer: &[usize], inner: &[usize]) -> bool {
    inner.starts_with(outer)
}

/// The arguments of a copy as the call computed them (before they were saved).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Args {
    dst: Expr,
    src: Option<Expr>,
    len: Expr,
}

/// A counted loop, `for (var = init; ..; var = var + step)`: what the twin of a carried
/// copy needs.
pub(super) struct Counted {
    pub var: String,
    pub init: Expr,
    pub step: i64,
}

impl Counted {
    /// `e` in the previous iteration: `var - step` for `var`.
    fn previous(&self, e: &Expr) -> Expr {
        fold::replace_leaves(e, &|x| match x {
            Expr::Var(v) if *v == self.var => Some(fold::sub(x.clone(), Expr::Int(self.step))),
            _ => None,
        })
    }

    /// The loop `for (var = init; ..; var = step)` when `step` is `var` plus or minus a
    /// constant.
    pub fn of(var: &str, init: &Expr, step: &Expr) -> Option<Counted> {
        let Expr::Binary(op, a, b) = step else {
            return None;
        };
        let c = fold::int(b)?;
        let step = match op {
            BinOp::Add => c,
            BinOp::Sub => c.checked_neg()?,
            _ => return None,
        };
        (**a == Expr::Var(var.to_string()) && step != 0).then(|| Counted {
            var: var.to_string(),
            init: init.clone(),
            step,
        })
    }
}

/// The variables a block's statements assign or declare, nested blocks included.
fn assigned_in(stmts: &[kpl::ir::Stmt]) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    kpl::for_each_stmt(stmts, &mut |s| out.extend(s.kind.target().map(str::to_string)));
    out
}

/// Whether two copies (of one call, in two attempts) are the same but for their saved
/// locals.
fn same_shape(a: &Copy, b: &Copy) -> bool {
    let part = match (&a.part, &b.part) {
        (Part::Whole, Part::Whole) => true,
        (Part::Shared { rank: x, .. }, Part::Shared { rank: y, .. }) => x == y,
        _ => false,
    };
    let ptr = |p: &Ptr, q: &Ptr| p.target == q.target && p.unit == q.unit;
    let src = match (&a.src, &b.src) {
        (None, None) => true,
        (Some(p), Some(q)) => ptr(p, q),
        _ => false,
    };
    part && src && ptr(&a.dst, &b.dst) && a.channel == b.channel
}

/// Where the lowering is, for what can be said of loops: the copies and batches made
/// from here on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    copy: usize,
    batch: usize,
    /// How deep the blocks are around the loop.
    depth: usize,
}

impl InFlight {
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Where a loop body begins, `depth` blocks deep.
    pub fn mark(&self, depth: usize) -> Mark {
        Mark {
            copy: self.next_copy,
            batch: self.next_batch,
            depth,
        }
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
    /// The call's node id.
    pub node: usize,
    /// Closed as a batch of its own at once (`cooperative_groups::memcpy_async`, and
    /// the copies of a barrier, which need no commit).
    pub committed: bool,
}

impl<'t> Lowerer<'_, 't> {
    /// Starts a copy: saves its arguments, lowers its accesses once, and makes it pending.
    pub(super) fn start_copy(&mut self, s: Start, span: Span) {
        let args = Args {
            dst: s.dst.off.clone(),
            src: s.src.as_ref().map(|p| p.off.clone()),
            len: s.len.clone(),
        };
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
            Some((rank, value)) => {
                // Once: a second call of this node in the body (an inlined helper called
                // twice) is another copy, shared out its own way.
                let value = self.copies.carried_share.remove(&s.node).unwrap_or(value);
                Part::Shared {
                    rank,
                    shared: self.saved("_copy_share", value, span),
                }
            }
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
            node: s.node,
            args,
        };
        self.copy_accesses(&copy);
        self.copies.pending.push(copy);
        if s.committed {
            self.commit(&s.channel);
        }
    }

    /// A KPL local declared as 0 at the kernel's start, assigned `value` here.
    fn saved(&mut self, base: &str, value: Expr, span: Span) -> String {
        let var = self.hoisted(base);
        self.emit(
            StmtKind::Assign {
                var: var.clone(),
                value,
            },
            span,
        );
        var
    }

    /// A KPL local declared as 0 at the kernel's start.
    fn hoisted(&mut self, base: &str) -> String {
        let var = self.fresh(base);
        self.mutable.insert(var.clone());
        self.copies.locals.push(var.clone());
        var
    }

    /// Before lowering the body of a counted loop (`for (v = init; ..; v += c)`, body node
    /// `body`) that the previous attempt found to leave copies in flight into the next
    /// iteration: each such copy gets a twin, the previous iteration's copy, pending from
    /// the top of the body. Its arguments are the call's with `v - c` for `v`
    /// ([`Lowerer::carry_out`] checks that nothing else in them changes in the loop); it
    /// exists from the second iteration on, and its batch is older than the body's and
    /// not certain to exist (the first iteration has none).
    pub(super) fn carry_into(&mut self, body: usize, lp: Option<&Counted>) -> Vec<Copy> {
        let (Some(templates), Some(lp)) = (self.copies.carry.get(&body).cloned(), lp) else {
            return Vec::new();
        };
        // The body's block is the next one made (`body_block`).
        let mut stack = self.block_ids.clone();
        stack.push(self.blocks_made);
        let mut twins = Vec::new();
        // An array the previous attempt had made by the call but this one has not yet
        // (declared in the body): no twin, and the loop stays unsupported.
        let known = |l: &Self, p: &Ptr| !matches!(p.target, super::Target::Array(a) if a >= l.arrays.len());
        for t in templates {
            if !known(self, &t.dst) || t.src.as_ref().is_some_and(|p| !known(self, p)) {
                continue;
            }
            let no = self.copies.next_batch;
            self.copies.next_batch += 1;
            self.copies.batches.push(Batch {
                no,
                channel: t.channel.clone(),
                committed: stack.clone(),
                certain: false,
            });
            let part = match &t.part {
                Part::Whole => Part::Whole,
                Part::Shared { rank, .. } => Part::Shared {
                    rank: rank.clone(),
                    shared: self.hoisted("_copy_share"),
                },
            };
            let before = |e: &Expr| lp.previous(e);
            let twin = Copy {
                id: self.copies.next_copy,
                channel: t.channel.clone(),
                batch: Some(no),
                issued: stack.clone(),
                committed: Some(stack.clone()),
                dst: Ptr {
                    off: before(&t.args.dst),
                    ..t.dst.clone()
                },
                src: t.src.as_ref().zip(t.args.src.as_ref()).map(|(p, off)| Ptr {
                    off: before(off),
                    ..p.clone()
                }),
                len: self.hoisted("_copy_len"),
                part,
                span: t.span,
                node: t.node,
                args: t.args.clone(),
            };
            self.copies.next_copy += 1;
            self.copies
                .carried_share
                .insert(t.node, Expr::Var(lp.var.clone()));
            self.copies.pending.push(twin.clone());
            twins.push(twin);
        }
        twins
    }

    /// After lowering the body of a loop (`blk`, with `mark` taken before it): a copy of an
    /// iteration still in flight at its end must be carried into the next iteration
    /// (the next attempt at the kernel does, when this one did not: `carry_request`), and
    /// only one iteration (the twin must be complete by the end of the body). The twins
    /// are set up at the top of the body.
    pub(super) fn carry_out(
        &mut self,
        body: usize,
        mark: Mark,
        twins: Vec<Copy>,
        blk: &mut kpl::ir::Block,
        lp: Option<&Counted>,
    ) -> Result<(), &'static str> {
        for t in &twins {
            self.copies.carried_share.remove(&t.node);
        }
        const ACROSS: &str = "an asynchronous copy or pipeline stage of a loop iteration that is still in flight \
                              when the iteration ends (a pipeline across iterations autosync cannot follow)";
        if self
            .copies
            .pending
            .iter()
            .any(|p| twins.iter().any(|t| t.id == p.id))
        {
            return Err(
                "an asynchronous copy still in flight two loop iterations after its call (a pipeline of \
                        more than two stages)",
            );
        }
        let stages_left = self
            .copies
            .stages
            .values()
            .flatten()
            .any(|s| s.iter().any(|b| *b >= mark.batch));
        if stages_left {
            return Err(ACROSS);
        }
        let outlived: Vec<Copy> = self
            .copies
            .pending
            .iter()
            .filter(|c| c.id >= mark.copy && !twins.iter().any(|t| t.id == c.id))
            .cloned()
            .collect();
        let changed = assigned_in(&blk.stmts);
        let carriable = |c: &Copy| {
            let mut fixed = true;
            let mut check = |v: &str| fixed &= !changed.contains(v);
            c.args.dst.for_each_var(&mut check);
            c.args.len.for_each_var(&mut check);
            if let Some(e) = &c.args.src {
                e.for_each_var(&mut check);
            }
            if let Some(lp) = lp {
                lp.init.for_each_var(&mut check);
            }
            // Committed in its own iteration: a commit in the next one would make it
            // the newest batch there, not an older one.
            lp.is_some()
                && fixed
                && c.surely_committed()
                && c.channel == Channel::Thread
                && c.issued.len() == mark.depth + 1
                && outlived.iter().filter(|o| o.node == c.node).count() == 1
        };
        let all_carriable = outlived.iter().all(carriable);
        let covered = outlived.iter().all(|o| {
            twins
                .iter()
                .any(|t| t.node == o.node && same_shape(t, o) && t.args == o.args)
        });
        if !(all_carriable && covered) {
            if all_carriable && !outlived.is_empty() && self.copies.carry_request.is_none() {
                self.copies.carry_request = Some((body, outlived));
            }
            return Err(ACROSS);
        }
        let Some(lp) = lp else {
            return Ok(());
        };
        // The top of the body: the twin's length (0 in the first iteration) and the value
        // its group shares, then its accesses.
        let mut top = Vec::new();
        for t in &twins {
            let len = lp.previous(&t.args.len);
            let first = fold::bin(BinOp::Eq, Expr::Var(lp.var.clone()), lp.init.clone());
            top.push(self.made_stmt(
                StmtKind::Assign {
                    var: t.len.clone(),
                    value: Expr::Int(0),
                },
                t.span,
            ));
            let set = self.made_stmt(
                StmtKind::Assign {
                    var: t.len.clone(),
                    value: len,
                },
                t.span,
            );
            top.push(self.made_stmt(
                StmtKind::If {
                    cond: fold::not(first),
                    then_blk: self.made_block(vec![set], t.span),
                    else_blk: None,
                },
                t.span,
            ));
            if let Part::Shared { shared, .. } = &t.part {
                top.push(self.made_stmt(
                    StmtKind::Assign {
                        var: shared.clone(),
                        value: lp.previous(&Expr::Var(lp.var.clone())),
                    },
                    t.span,
                ));
            }
            top.extend(self.lowered(|l| l.copy_accesses(t)));
        }
        blk.stmts.splice(0..0, top);
        Ok(())
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
            certain: true,
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
            .filter(|b| b.channel == *channel && b.certain && within(&b.committed, &here))
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
            .any(|b| b.no == head && b.certain && within(&b.committed, &here));
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
                    format!("copy_owner_{}", c.node),
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
