//! Asynchronous copies and split barriers: what starts a copy, what closes a batch, what
//! waits, and `cuda::barrier`. The copies themselves are followed by `lower::in_flight`.
//!
//! - `cooperative_groups::memcpy_async(group, dst, src, bytes)` (and `(group, dst, n,
//!   src, m)` in elements): a copy the group shares, a batch of its own; `cg::wait(group)`
//!   and `cg::wait_prior<N>(group)` complete batches and then synchronize the group as
//!   its `sync()` does.
//! - `__pipeline_memcpy_async(dst, src, bytes)`: a copy of the calling thread;
//!   `__pipeline_commit()` closes a batch, `__pipeline_wait_prior(N)` completes batches
//!   (no synchronization between threads).
//! - `cuda::memcpy_async([group,] dst, src, bytes, pipe)` with a `cuda::pipeline`:
//!   `producer_commit()` closes a stage, `consumer_wait()` completes the oldest stage,
//!   `consumer_release()` releases it, `cuda::pipeline_consumer_wait_prior<N>(pipe)`
//!   completes all but N stages. Only the thread's own copies complete (a pipeline shared
//!   by a block is taken as one per thread: more reports, never fewer).
//! - `cuda::memcpy_async([group,] dst, src, bytes, bar)` with a `cuda::barrier`: the copy
//!   completes when the thread has waited for the barrier (`bar.arrive_and_wait()`,
//!   `bar.wait(bar.arrive())`), which is a block barrier when `init(&bar, n)` gave it the
//!   block's thread count. A split phase (`auto t = bar.arrive(); ...; bar.wait(t)`) and
//!   the `__mbarrier` intrinsics are unsupported.
//!
//! A size may be written `cuda::aligned_size_t<16>(n)`: `n` bytes.

use tree_sitter::Node;

use super::Call;
use super::sync::GroupKind;
use crate::lower::expr::Ref;
use crate::lower::in_flight::{Channel, Start};
use crate::lower::{LVal, Lowerer, Ptr, R, Target, V, Value, VarKind, fold};
use crate::types::Ty;
use kpl::ir::{AtomicOp, BinOp, Builtin, Dim, Expr, StmtKind};

/// The builtins of asynchronous copies; "not mine" for other names.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let span = l.span(c.n);
    Ok(Some(match c.name {
        "memcpy_async" => memcpy_async(l, c)?,
        "__pipeline_memcpy_async" if c.args.len() >= 3 => {
            let vals = l.eval_args(c.args)?;
            let len = l.index(vals[2].clone(), c.args[2]);
            start(l, c, None, &vals[0], &vals[1], len, Channel::Thread, false)?;
            Value::void()
        }
        "__pipeline_commit" => {
            l.commit(&Channel::Thread);
            Value::void()
        }
        "__pipeline_wait_prior" if c.args.len() == 1 => {
            let n = count(l, Some(c.args[0]));
            l.eval_args(c.args)?;
            if let Some(n) = n {
                l.wait_prior(&Channel::Thread, n, span);
            }
            Value::void()
        }
        "wait" | "wait_prior" if c.args.len() == 1 => {
            let group = l.rvalue(c.args[0])?;
            let ty = group.ty.to_string();
            if !super::is_group(&ty) {
                // Not `cooperative_groups::wait`: a function the file does not define.
                return Ok(Some(l.unknown_function(c.name, &[group], c.n)));
            }
            let n = match c.name {
                "wait" => Some(0),
                _ => count(l, c.targs.and_then(first_named)),
            };
            if let Some(n) = n {
                l.wait_prior(&Channel::Thread, n, span);
            }
            l.group_sync(&ty, c.n)?
        }
        "pipeline_consumer_wait_prior" if c.args.len() == 1 => {
            let n = count(l, c.targs.and_then(first_named));
            let channel = sync_object(l, c.args[0])?;
            if let (Some(n), Some(ch @ Channel::Pipeline(_))) = (n, &channel) {
                l.wait_prior(ch, n, span);
            }
            Value::void()
        }
        "make_pipeline" => {
            l.eval_args(c.args)?;
            if !c.args.is_empty() {
                l.note(
                    "a `cuda::pipeline` shared by a group is taken as one pipeline per thread: a `consumer_wait()` \
                     completes only the thread's own copies (it may report races the shared stage orders)"
                        .to_string(),
                );
            }
            Value::arb(Ty::Opaque("cuda::pipeline".into()))
        }
        "init" if c.args.len() == 2 => {
            let vals = l.eval_args(c.args)?;
            match (&vals[0].v, barrier_pointer(&vals[0])) {
                (V::Ptr(p), Some(key)) => l.init_barrier(p, key, &vals[1], span),
                _ => return Ok(Some(l.unknown_function(c.name, &vals, c.n))),
            }
            Value::void()
        }
        name if name.starts_with("__mbarrier")
            || name.starts_with("mbarrier_")
            || name == "pipeline_producer_commit" =>
        {
            return Err(l.unsupported(
                c.n,
                &format!("`{name}` (a split-phase barrier operation)"),
                "autosync models `cuda::barrier`'s `arrive_and_wait()` and `cuda::pipeline`'s stages",
            ));
        }
        _ => return Ok(None),
    }))
}

/// `memcpy_async` of cooperative groups or of `cuda::`: `(group, dst, src, bytes)`,
/// `(group, dst, n, src, m)`, `([group,] dst, src, bytes, pipe_or_barrier)`.
fn memcpy_async<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Value> {
    let Some(&first) = c.args.first() else {
        return Ok(l.unknown_function(c.name, &[], c.n));
    };
    let head = l.rvalue(first)?;
    let group = Some(head.ty.to_string()).filter(|t| super::is_group(t));
    let rest = if group.is_some() { &c.args[1..] } else { c.args };
    if rest.len() < 3 {
        let mut vals = vec![head];
        vals.extend(l.eval_args(&c.args[1..])?);
        return Ok(l.unknown_function(c.name, &vals, c.n));
    }
    let dst = match group {
        Some(_) => l.rvalue(rest[0])?,
        None => head,
    };
    let second = l.rvalue(rest[1])?;
    // `(group, dst, n, src, m)`: counts of elements.
    if group.is_some() && !matches!(second.v, V::Ptr(_)) && rest.len() == 4 {
        let src = l.rvalue(rest[2])?;
        let _ = l.rvalue(rest[3])?;
        let elem = dst.ty.pointee().map_or(1, Ty::size_of).max(1);
        let n = l.index(second, rest[1]);
        let len = fold::mul(n, Expr::Int(elem as i64));
        start(l, c, group.as_deref(), &dst, &src, len, Channel::Thread, true)?;
        return Ok(Value::void());
    }
    let len = size(l, rest[2])?;
    let (channel, committed) = match rest.get(3) {
        Some(&s) => match sync_object(l, s)? {
            Some(ch @ Channel::Barrier(_)) => (ch, true),
            Some(ch) => (ch, false),
            None => {
                return Err(l.unsupported(
                    s,
                    "`memcpy_async` with a synchronization object that is neither a `cuda::pipeline` nor a \
                     `cuda::barrier` autosync can name",
                    "",
                ));
            }
        },
        None if group.is_some() => (Channel::Thread, true),
        None => return Ok(l.unknown_function(c.name, &[dst, second], c.n)),
    };
    start(l, c, group.as_deref(), &dst, &second, len, channel, committed)?;
    Ok(Value::void())
}

/// Starts the copy of `len` bytes from `src` to `dst`, by the calling thread or shared by
/// `group`'s threads.
#[allow(clippy::too_many_arguments)]
fn start<'t>(
    l: &mut Lowerer<'_, 't>,
    c: &Call<'_, 't>,
    group: Option<&str>,
    dst: &Value,
    src: &Value,
    len: Expr,
    channel: Channel,
    committed: bool,
) -> R<()> {
    let span = l.span(c.n);
    let unknown = |l: &Lowerer<'_, 't>, what: &str| {
        l.unsupported(
            c.n,
            &format!("an asynchronous copy {what} autosync cannot name"),
            "copy between arrays (parameters, `__shared__` arrays) and pointers into them",
        )
    };
    let V::Ptr(d) = &dst.v else {
        return Err(unknown(l, "into memory"));
    };
    // CUDA copies into shared memory; a thread's variable as the destination is not
    // followed (its source would be read while the copy is in flight).
    let d = match d.target {
        Target::Array(_) => d.clone(),
        Target::Var(_) | Target::Null | Target::Unknown => return Err(unknown(l, "into memory")),
    };
    let s = match &src.v {
        V::Ptr(p) if matches!(p.target, Target::Array(_)) => Some(p.clone()),
        V::Ptr(p) if matches!(p.target, Target::Var(_)) => None,
        _ => return Err(unknown(l, "from memory")),
    };
    let group = match group {
        None => None,
        Some(ty) => Some(shared_part(l, c.n, ty, &d)?),
    };
    l.start_copy(
        Start {
            channel,
            dst: d,
            src: s,
            len,
            group,
            node: c.n.id(),
            committed,
        },
        span,
    );
    Ok(())
}

/// How `group`'s threads share a copy into `dst`: the calling thread's rank in the group
/// and a value the group shares, new at this call (one per warp for a group within a
/// warp, one per block otherwise).
fn shared_part<'t>(l: &mut Lowerer<'_, 't>, n: Node<'t>, ty: &str, dst: &Ptr) -> R<(Expr, Expr)> {
    let kind = GroupKind::of(ty);
    let Some(rank) = kind.rank() else {
        return Err(l.unsupported(
            n,
            &format!("`memcpy_async` of a `{ty}`, a group whose thread numbering autosync does not know"),
            "copy with the thread block (`this_thread_block()`) or a `tiled_partition<N>` of it",
        ));
    };
    if !dst.unit.is_multiple_of(l.arrays_cell(dst)) {
        return Err(l.unsupported(
            n,
            "a group's `memcpy_async` into a destination that may start inside an element of its array",
            "",
        ));
    }
    let span = l.span(n);
    let within_warp = matches!(kind, GroupKind::Tile { size: Some(s), .. } if s <= 32);
    let shared = if within_warp {
        l.warp_uniform_value(Ty::INT, span)
    } else {
        l.block_uniform_result(span)
    };
    let shared = match shared.v {
        V::Int(e) => e,
        _ => Expr::Var(l.local("_copy_share", None, span)),
    };
    Ok((rank, shared))
}

/// A byte count: `n`, or the `n` of `cuda::aligned_size_t<A>(n)`.
fn size<'t>(l: &mut Lowerer<'_, 't>, n: Node<'t>) -> R<Expr> {
    let inner = (n.kind() == "call_expression")
        .then(|| n.child_by_field_name("function"))
        .flatten()
        .filter(|f| l.text(*f).contains("aligned_size_t"))
        .and_then(|_| n.child_by_field_name("arguments"))
        .and_then(first_named);
    let v = l.rvalue(inner.unwrap_or(n))?;
    Ok(l.index(v, n))
}

/// A count written as a constant (`wait_prior<1>`, `__pipeline_wait_prior(0)`).
fn count<'t>(l: &mut Lowerer<'_, 't>, n: Option<Node<'t>>) -> Option<usize> {
    n.and_then(|n| l.const_eval(n))
        .and_then(|v| usize::try_from(v).ok())
}

fn first_named(n: Node<'_>) -> Option<Node<'_>> {
    crate::program::named_children(n).into_iter().next()
}

/// The channel of a `cuda::pipeline` or `cuda::barrier` argument (by its place).
/// A copy given to a barrier is an arrival-like update of its state ([`Lowerer::touch_barrier`]).
fn sync_object<'t>(l: &mut Lowerer<'_, 't>, n: Node<'t>) -> R<Option<Channel>> {
    let r = l.expr(n)?;
    let Ref::L(lv) = r else {
        return Ok(None);
    };
    let ty = l.lval_type(&lv);
    let channel = place_key(l, &lv).and_then(|k| channel_of(&ty, k));
    if let (Some(Channel::Barrier(_)), Some(p)) = (&channel, object_ptr(l, &lv)) {
        let span = l.span(n);
        l.touch_barrier(&p, span);
    }
    Ok(channel)
}

/// The channel of an object of type `ty` at place `key`.
fn channel_of(ty: &Ty, key: String) -> Option<Channel> {
    match object_kind(ty)? {
        Object::Pipeline => Some(Channel::Pipeline(key)),
        Object::Barrier => Some(Channel::Barrier(key)),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Object {
    Pipeline,
    Barrier,
}

/// `cuda::pipeline<...>` or `cuda::barrier<...>` (a type the file does not define).
fn object_kind(ty: &Ty) -> Option<Object> {
    let Ty::Opaque(name) = ty else {
        return None;
    };
    let base = name.split('<').next().unwrap_or(name).trim();
    match base.rsplit("::").next().unwrap_or(base) {
        "pipeline" => Some(Object::Pipeline),
        "barrier" => Some(Object::Barrier),
        _ => None,
    }
}

/// Whether a type is a `cuda::pipeline` or `cuda::barrier`, whose methods
/// [`Lowerer::sync_object_method`] lowers.
pub(in crate::lower) fn is_sync_object(ty: &Ty) -> bool {
    object_kind(ty).is_some()
}

/// Where an object is: a `__shared__` object is an array of its own (`&bar` a pointer
/// into it), a local object a variable.
fn object_ptr(l: &Lowerer<'_, '_>, lv: &LVal) -> Option<Ptr> {
    match lv {
        LVal::Var(id) => match &l.vars[*id].kind {
            VarKind::Array(target) => Some(Ptr {
                target: *target,
                off: Expr::Int(0),
                unit: 1,
            }),
            VarKind::Ref(inner) => object_ptr(l, inner),
            _ => Some(Ptr {
                target: Target::Var(*id),
                off: Expr::Int(0),
                unit: 1,
            }),
        },
        LVal::Mem(p, _) => Some(p.clone()),
        LVal::Private(_) => None,
    }
}

/// A name for the place of an object: the same for the object and a pointer to it.
fn place_key(l: &Lowerer<'_, '_>, lv: &LVal) -> Option<String> {
    object_ptr(l, lv).as_ref().and_then(pointer_key)
}

fn pointer_key(p: &Ptr) -> Option<String> {
    let off = fold::mul(p.off.clone(), Expr::Int(i64::from(p.unit)));
    let off = kpl::syntax::print_expr(&off);
    match p.target {
        Target::Array(a) => Some(format!("array{a}@{off}")),
        Target::Var(id) => Some(format!("var{id}@{off}")),
        Target::Null | Target::Unknown => None,
    }
}

/// The place of the barrier a pointer (`init(&bar, n)`'s first argument) points at.
fn barrier_pointer(v: &Value) -> Option<String> {
    let V::Ptr(p) = &v.v else {
        return None;
    };
    if object_kind(v.ty.pointee()?) != Some(Object::Barrier) {
        return None;
    }
    pointer_key(p)
}

impl<'t> Lowerer<'_, 't> {
    /// A method of a `cuda::pipeline` or `cuda::barrier` object at `this`.
    pub(in crate::lower) fn sync_object_method(
        &mut self,
        ty: &Ty,
        this: &LVal,
        method: &str,
        args: &[Node<'t>],
        n: Node<'t>,
    ) -> R<Value> {
        let span = self.span(n);
        let channel = place_key(self, this).and_then(|k| channel_of(ty, k));
        let Some(channel) = channel else {
            return Err(self.unsupported(
                n,
                "a `cuda::pipeline` or `cuda::barrier` autosync cannot name",
                "",
            ));
        };
        match (&channel, method) {
            (Channel::Pipeline(_), "producer_acquire") => {}
            (Channel::Pipeline(_), "producer_commit") => self.commit(&channel),
            (Channel::Pipeline(_), "consumer_wait") => self.consumer_wait(&channel, span),
            (Channel::Pipeline(_), "consumer_release") => self.consumer_release(&channel),
            // May return before the stage completed: completes nothing.
            (Channel::Pipeline(_), "consumer_wait_for" | "consumer_wait_until" | "quit") => {
                self.eval_args(args)?;
                return Ok(Value::arb(Ty::Bool));
            }
            (Channel::Barrier(key), "arrive_and_wait") => {
                self.barrier_wait(key.clone(), &channel, this, n)?
            }
            (Channel::Barrier(key), "wait") if args.len() == 1 && self.arrives_at(args[0], this) => {
                self.barrier_wait(key.clone(), &channel, this, n)?;
            }
            _ => {
                return Err(self.unsupported(
                    n,
                    &format!("`{method}` of a `{ty}`"),
                    "autosync models a pipeline's acquire/commit/wait/release and a barrier's \
                     `arrive_and_wait()` (or `wait(bar.arrive())`); a split arrive and wait is not modelled",
                ));
            }
        }
        Ok(Value::void())
    }

    /// `init(&bar, count)`: a write of the barrier's state (so that a use not ordered after
    /// it races with it), and the count the barrier's waits go by, when the barrier is a
    /// `__shared__` one and the call surely runs in thread 0 at the kernel's top level
    /// (under conditions thread 0 satisfies): then every later use in the kernel follows
    /// it, once a barrier orders the two (else the write races with the use).
    fn init_barrier(&mut self, p: &Ptr, key: String, count: &Value, span: kpl::ir::Span) {
        let cell = self.barrier_cell(p);
        if let Some((array, index)) = cell.clone() {
            let value = match &count.v {
                V::Int(e) => e.clone(),
                _ => Expr::Int(0),
            };
            self.emit(StmtKind::Write { array, index, value }, span);
        }
        let trusted = cell.is_some() && self.runs_in_thread_zero();
        match &count.v {
            V::Int(e) if trusted => {
                self.copies.barrier_counts.insert(key, e.clone());
            }
            _ => {
                self.copies.barrier_counts.remove(&key);
            }
        }
    }

    /// An arrival at a barrier, or a copy given to it: an atomic update of its state
    /// (arrivals do not race with each other, but do with its `init`).
    fn touch_barrier(&mut self, p: &Ptr, span: kpl::ir::Span) {
        if let Some((array, index)) = self.barrier_cell(p) {
            self.emit(
                StmtKind::Atomic {
                    var: None,
                    op: AtomicOp::Add,
                    array,
                    index,
                    value: Expr::Int(0),
                    ty: None,
                },
                span,
            );
        }
    }

    /// The KPL array and cell of a `__shared__` barrier object.
    fn barrier_cell(&self, p: &Ptr) -> Option<(String, Expr)> {
        let Target::Array(a) = p.target else {
            return None;
        };
        let array = &self.arrays[a];
        if array.space != crate::lower::ArraySpace::Shared {
            return None;
        }
        let cell = i64::from(array.cell.max(1));
        let byte = fold::mul(p.off.clone(), Expr::Int(i64::from(p.unit)));
        Some((array.kpl.clone(), fold::div(byte, Expr::Int(cell))))
    }

    /// Whether what is lowered now surely runs in thread 0 (when thread 0 gets here at
    /// all): every block around it below the kernel's body is the then-block of an `if`
    /// whose condition holds in thread 0.
    fn runs_in_thread_zero(&self) -> bool {
        self.block_ids.iter().skip(2).all(|b| {
            self.copies
                .conditions
                .get(b)
                .is_some_and(|c| fold::int(&at_thread_zero(c)).is_some_and(|v| v != 0))
        })
    }

    /// Whether `arg` is `obj.arrive()` of the object at `this` (`bar.wait(bar.arrive())`).
    fn arrives_at(&mut self, arg: Node<'t>, this: &LVal) -> bool {
        let Some(f) = (arg.kind() == "call_expression")
            .then(|| arg.child_by_field_name("function"))
            .flatten()
            .filter(|f| f.kind() == "field_expression")
        else {
            return false;
        };
        let (Some(obj), Some(field)) = (f.child_by_field_name("argument"), f.child_by_field_name("field"))
        else {
            return false;
        };
        if self.text(field) != "arrive" {
            return false;
        }
        match self.expr(obj) {
            Ok(Ref::L(lv)) => place_key(self, &lv).is_some() && place_key(self, &lv) == place_key(self, this),
            _ => false,
        }
    }

    /// `bar.arrive_and_wait()`: the thread's copies of the barrier complete; a block
    /// barrier when the barrier counts the block's threads, else no synchronization.
    fn barrier_wait(&mut self, key: String, channel: &Channel, this: &LVal, n: Node<'t>) -> R<()> {
        let span = self.span(n);
        if let Some(p) = object_ptr(self, this) {
            self.touch_barrier(&p, span);
        }
        self.wait_all(channel, span);
        let count = self.copies.barrier_counts.get(&key).cloned();
        let size = block_size();
        match count {
            Some(e) if with_block(&e, &self.opts.launch.block) == with_block(&size, &self.opts.launch.block) => {
                self.emit(StmtKind::Barrier, span);
            }
            // A count of the launch's sizes (`blockDim.x`): a barrier in the launches
            // where it is the block's thread count (a condition every thread agrees on).
            Some(e) if launch_uniform(&e) => {
                let then_blk = self.made_block(vec![self.made_stmt(StmtKind::Barrier, span)], span);
                self.emit(
                    StmtKind::If {
                        cond: fold::bin(BinOp::Eq, e, size),
                        then_blk,
                        else_blk: None,
                    },
                    span,
                );
                self.repeat_pending();
            }
            _ => self.note(
                "a `cuda::barrier` that is not a `__shared__` one initialized (`init(&bar, n)`) by thread 0 at the \
                 kernel's top level with the block's thread count is taken as no synchronization: it may report \
                 races that the barrier orders"
                    .to_string(),
            ),
        }
        Ok(())
    }
}

/// `blockDim.x * blockDim.y * blockDim.z`.
fn block_size() -> Expr {
    Dim::ALL
        .iter()
        .map(|d| Expr::Builtin(Builtin::Bdim(*d)))
        .reduce(fold::mul)
        .unwrap_or(Expr::Int(1))
}

/// Whether `e` is made of constants and the launch's sizes only.
fn launch_uniform(e: &Expr) -> bool {
    let mut vars = false;
    e.for_each_var(&mut |_| vars = true);
    let mut ids = false;
    e.for_each_builtin(&mut |b| ids |= matches!(b, Builtin::Tid(_) | Builtin::Bid(_)));
    !vars && !ids && !matches!(e, Expr::Apply(..) | Expr::Other(_))
}

/// `e` in thread 0 of its block: `threadIdx` put in as 0, folded.
fn at_thread_zero(e: &Expr) -> Expr {
    fold::replace_leaves(e, &|x| {
        matches!(x, Expr::Builtin(Builtin::Tid(_))).then_some(Expr::Int(0))
    })
}

/// `e` with the block sizes the launch fixes put in, folded.
fn with_block(e: &Expr, block: &kpl::launch::Dims) -> Expr {
    fold::replace_leaves(e, &|x| match x {
        Expr::Builtin(Builtin::Bdim(d)) => {
            let i = Dim::ALL.iter().position(|y| y == d)?;
            block[i].map(|v| Expr::Int(i64::from(v)))
        }
        _ => None,
    })
}
