//! Synchronization: `__syncthreads()` (and `cg::sync`/`.sync()` of a thread block) is a
//! barrier; `__syncwarp()` with the full mask (or none) is a warp barrier, with a
//! partial mask no synchronization (sound: fewer barriers means more races), as are
//! tile syncs; fences (`__threadfence*`) order nothing between threads in the SDV
//! semantics and vanish; grid-wide syncs are unsupported.

use tree_sitter::Node;

use super::Call;
use crate::lower::expr::dim3;
use crate::lower::{Lowerer, R, V, Value, fold};
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
            Value::arb(Ty::INT)
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
            let group = vals.first().map(|v| v.ty.to_string()).unwrap_or_default();
            l.group_sync(&group, c.n)?
        }
        "this_thread_block" => Value::arb(Ty::Opaque("thread_block".into())),
        "this_grid" => Value::arb(Ty::Opaque("grid_group".into())),
        "tiled_partition" => {
            l.eval_args(c.args)?;
            Value::arb(Ty::Opaque("thread_block_tile".into()))
        }
        "coalesced_threads" => Value::arb(Ty::Opaque("coalesced_group".into())),
        _ => return Ok(None),
    }))
}

impl<'t> Lowerer<'_, 't> {
    /// `cg::sync(g)` or `g.sync()` for a cooperative group of type `group`.
    fn group_sync(&mut self, group: &str, n: Node<'t>) -> R<Value> {
        if group.contains("grid") || group.contains("multi_grid") {
            return Err(self.unsupported(
                n,
                "grid-wide synchronization",
                "autosync checks one launch of one block grid",
            ));
        }
        if group.contains("tile") || group.contains("coalesced") || group.contains("warp") {
            return Ok(Value::void());
        }
        self.emit(StmtKind::Barrier, self.span(n));
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
        let block = !(group.contains("tile") || group.contains("coalesced") || group.contains("grid"));
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
