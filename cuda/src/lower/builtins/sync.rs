//! Synchronization: `__syncthreads()` (and `cg::sync`/`.sync()` of a thread block) is a
//! barrier; `__syncwarp()` with the full mask (or none) is a warp barrier, with a
//! partial mask no synchronization (sound: fewer barriers means more races); fences
//! (`__threadfence*`) order nothing between threads in the SDV semantics and vanish.
//!
//! Cooperative groups (see [`GroupKind`]): a `thread_block`'s sync is a barrier; a
//! `grid_group`'s sync is a grid barrier ([`StmtKind::GridBarrier`]: it orders every
//! thread of the grid, and must be reached by all of them); a `thread_block_tile<32>`'s sync is a warp barrier
//! when warps have 32 threads (the tile is then the warp: same threads, same
//! divergence rule); the sync of any other group (smaller tiles, `coalesced_group`, a
//! `thread_group` whose size is not known here) synchronizes nothing, which can only
//! add reports (its divergence is not checked).

use tree_sitter::Node;

use super::Call;
use crate::lower::expr::dim3;
use crate::lower::{Lowerer, R, V, Value, fold};
use crate::program::named_children;
use crate::types::Ty;
use kpl::ir::{Builtin, Dim, Expr, StmtKind};

/// Barriers, warp barriers, fences, and the cooperative groups' free functions.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let span = l.span(c.n);
    Ok(Some(match c.name {
        "__syncthreads" | "__barrier_sync" => {
            l.emit(StmtKind::Barrier, span);
            Value::void()
        }
        "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
            l.eval_args(c.args)?;
            l.emit(StmtKind::Barrier, span);
            l.block_uniform_result(span)
        }
        "__syncwarp" => {
            // A warp barrier for the full warp; a partial mask synchronizes only
            // some lanes, which is modelled as no synchronization (sound).
            let vals = l.eval_args(c.args)?;
            let full = match vals.first().map(|v| &v.v) {
                None => true,
                Some(V::Int(e)) => fold::int(e).is_some_and(|m| m & 0xFFFF_FFFF == 0xFFFF_FFFF),
                Some(_) => false,
            };
            if full {
                l.emit(StmtKind::WarpBarrier, span);
            }
            Value::void()
        }
        "__threadfence" | "__threadfence_block" | "__threadfence_system" => {
            l.eval_args(c.args)?;
            Value::void()
        }
        "sync" if c.scope.contains("::") || l.frame().this.is_none() => {
            let vals = l.eval_args(c.args)?;
            match vals.first().map(|v| v.ty.to_string()) {
                Some(group) if is_group(&group) => l.group_sync(&group, c.n)?,
                // Not a group: not `cooperative_groups::sync`, some function the file
                // does not define.
                _ => l.unknown_function(c.name, &vals, c.n),
            }
        }
        "this_thread_block" => Value::arb(Ty::Opaque("thread_block".into())),
        "this_grid" => Value::arb(Ty::Opaque("grid_group".into())),
        "tiled_partition" => {
            // `tiled_partition<N>(g)` is a `thread_block_tile<N>`; `tiled_partition(g, n)`
            // a `thread_group` of n threads (its size unknown to the type).
            let vals = l.eval_args(c.args)?;
            if !vals.first().is_some_and(|v| is_group(&v.ty.to_string())) {
                return Ok(Some(l.unknown_function(c.name, &vals, c.n)));
            }
            let n = c.targs.and_then(|t| named_children(t).into_iter().next());
            match n.and_then(|n| l.const_eval(n)) {
                Some(v) => Value::arb(Ty::Opaque(format!("thread_block_tile<{v}>"))),
                None => Value::arb(Ty::Opaque("thread_group".into())),
            }
        }
        "coalesced_threads" => Value::arb(Ty::Opaque("coalesced_group".into())),
        _ => return Ok(None),
    }))
}

/// Whether a type is one of the cooperative groups (`thread_block`, `grid_group`,
/// `thread_block_tile<32>`, `coalesced_group`, `thread_group`, ...), by its name: the
/// argument types that `cooperative_groups::sync` and `tiled_partition` take.
pub(in crate::lower) fn is_group(ty: &str) -> bool {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let base = t.split('<').next().unwrap_or(&t);
    let name = base.rsplit("::").next().unwrap_or(base);
    matches!(
        name,
        "thread_block"
            | "grid_group"
            | "multi_grid_group"
            | "thread_block_tile"
            | "coalesced_group"
            | "thread_group"
            | "cluster_group"
    )
}

/// What kind of cooperative group a value of a (C++) type is, by the type's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lower) enum GroupKind {
    /// `thread_block`: the threads of one block.
    Block,
    /// `grid_group`, `multi_grid_group`.
    Grid,
    /// `thread_block_tile<N>`, `N` when it is written as a number.
    Tile(Option<u32>),
    /// `coalesced_group`, `thread_group` (any size), anything else.
    Other,
}

impl GroupKind {
    /// The kind of a group type's name (`cg::thread_block_tile<32>`, `thread_block`).
    pub(in crate::lower) fn of(ty: &str) -> GroupKind {
        let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        let (base, args) = match t.find('<') {
            Some(i) => (&t[..i], Some(t[i + 1..].trim_end_matches('>'))),
            None => (t.as_str(), None),
        };
        let name = base.rsplit("::").next().unwrap_or(base);
        match name {
            "thread_block" => GroupKind::Block,
            "grid_group" | "multi_grid_group" => GroupKind::Grid,
            "thread_block_tile" => GroupKind::Tile(args.and_then(|a| a.split(',').next()?.parse().ok())),
            _ => GroupKind::Other,
        }
    }
}

impl<'t> Lowerer<'_, 't> {
    /// The result of `__syncthreads_or/and/count`: the same value in every thread of
    /// the block (the barrier combines every thread's predicate), so a barrier under
    /// `if (__syncthreads_or(done))` does not diverge. Modelled as a read, after the
    /// barrier, of a cell of its own in a shared array nothing writes: one read instance
    /// by all threads of a block is one value (the verifier's `read_class`), a new one
    /// at every call and loop iteration.
    pub(in crate::lower) fn block_uniform_result(&mut self, span: kpl::ir::Span) -> Value {
        let a = self.array(
            crate::lower::ArrayKey::SyncResults,
            "__syncthreads_result",
            crate::lower::ArraySpace::Shared,
            4,
        );
        let array = self.arrays[a].kpl.clone();
        let k = self.sync_results;
        self.sync_results += 1;
        let var = self.local("_synced", None, span);
        self.emit(
            StmtKind::Read {
                var: var.clone(),
                array,
                index: Expr::Int(k),
                ty: Some(kpl::IntTy::I32),
            },
            span,
        );
        Value::int(Expr::Var(var), Ty::INT)
    }

    /// `cg::sync(g)` or `g.sync()` for a cooperative group of type `group`.
    fn group_sync(&mut self, group: &str, n: Node<'t>) -> R<Value> {
        let span = self.span(n);
        match GroupKind::of(group) {
            GroupKind::Block => self.emit(StmtKind::Barrier, span),
            // A grid-wide barrier (the kernel is launched cooperatively, or the sync
            // is undefined): it orders every thread of the grid.
            GroupKind::Grid => self.emit(StmtKind::GridBarrier, span),
            GroupKind::Tile(Some(32)) if self.opts.launch.warp_size.is_none_or(|w| w == 32) => {
                self.emit(StmtKind::WarpBarrier, span);
            }
            GroupKind::Tile(_) | GroupKind::Other => self.note(format!(
                "the sync() of a `{group}` (a group other than a thread block, a grid or a tile of one 32-thread \
                 warp) is taken as no synchronization: it may report races that the sync orders"
            )),
        }
        Ok(Value::void())
    }

    /// Methods of cooperative groups (an opaque `thread_block`, tile, ...).
    pub(in crate::lower) fn group_method(
        &mut self,
        group: &str,
        method: &str,
        args: &[Node<'t>],
        n: Node<'t>,
    ) -> R<Value> {
        self.eval_args(args)?;
        let block = GroupKind::of(group) == GroupKind::Block;
        let dims = |b: fn(Dim) -> Builtin| Dim::ALL.map(|d| Expr::Builtin(b(d)));
        Ok(match method {
            "sync" => return self.group_sync(group, n),
            "thread_rank" if block => {
                let [tx, ty, tz] = dims(Builtin::Tid);
                let [bx, by, _] = dims(Builtin::Bdim);
                let e = fold::add(tx, fold::mul(bx.clone(), fold::add(ty, fold::mul(by, tz))));
                Value::int(e, Ty::UINT)
            }
            "size" | "num_threads" if block => {
                let [x, y, z] = dims(Builtin::Bdim);
                Value::int(fold::mul(fold::mul(x, y), z), Ty::UINT)
            }
            "thread_index" if block => self.rvalue_name("threadIdx", n)?,
            "group_index" if block => self.rvalue_name("blockIdx", n)?,
            "group_dim" | "dim_threads" if block => self.rvalue_name("blockDim", n)?,
            _ => Value::arb(Ty::UINT),
        })
    }

    fn rvalue_name(&mut self, name: &str, n: Node<'t>) -> R<Value> {
        let b: fn(Dim) -> Builtin = match name {
            "threadIdx" => Builtin::Tid,
            "blockIdx" => Builtin::Bid,
            _ => Builtin::Bdim,
        };
        let _ = n;
        Ok(dim3(b))
    }
}
