//! Atomics (`atomicAdd`, ..., with the `_block`/`_system`/`_sync` variants) are KPL
//! atomics on the cells they update; on a thread's own variable an ordinary update.

use super::Call;
use crate::lower::expr::arbitrary;
use crate::lower::{LVal, Lowerer, R, Target, Value};
use crate::types::Ty;
use kpl::ir::{AtomicOp, Expr, StmtKind};

fn atomic_op(name: &str) -> Option<AtomicOp> {
    let base = name
        .trim_end_matches("_block")
        .trim_end_matches("_system")
        .trim_end_matches("_sync");
    Some(match base {
        "atomicAdd" => AtomicOp::Add,
        "atomicSub" => AtomicOp::Sub,
        "atomicExch" => AtomicOp::Exch,
        "atomicMin" => AtomicOp::Min,
        "atomicMax" => AtomicOp::Max,
        "atomicInc" => AtomicOp::Inc,
        "atomicDec" => AtomicOp::Dec,
        "atomicCAS" => AtomicOp::Cas,
        "atomicAnd" => AtomicOp::And,
        "atomicOr" => AtomicOp::Or,
        "atomicXor" => AtomicOp::Xor,
        _ => return None,
    })
}

/// The operand as the builtin receives it: converted to the (unsigned) type of the
/// element it updates, as C converts the argument to the parameter's type. This keeps
/// amounts of `atomicAdd(unsigned *, unsigned)` never negative for the verifier's
/// repetition-free counters even when they come from memory (`atomicAdd(&n, len[i])`),
/// whose values are otherwise untyped. Signed and floating-point operands stay as they
/// are (nothing is gained by a conversion there).
fn operand(v: Expr, ty: &Ty) -> Expr {
    match ty.int_ty() {
        Some(t) if !t.signed => crate::lower::expr::cast_to(t, v),
        _ => v,
    }
}

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let Some(op) = atomic_op(c.name) else {
        return Ok(None);
    };
    let (args, n) = (c.args, c.n);
    let span = l.span(n);
    let Some(addr) = args.first() else {
        return Err(l.unsupported(n, "atomic without address", ""));
    };
    let p = l.rvalue(*addr)?;
    let lv = l.deref_value(p, n)?;
    let vals = l.eval_args(&args[1..])?;
    // atomicCAS(addr, compare, value) stores `value`.
    let value = match op {
        AtomicOp::Cas => vals.get(1),
        _ => vals.first(),
    }
    .cloned()
    .unwrap_or(Value::int(Expr::Int(1), Ty::INT));
    Ok(Some(match lv {
        LVal::Mem(ptr, ty) => {
            let Target::Array(a) = ptr.target else {
                return Err(l.unsupported(n, "atomic on an unknown address", ""));
            };
            let v = operand(l.data(&value, n), &ty);
            let array = l.arrays[a].kpl.clone();
            let result = if c.discard {
                None
            } else if ty.is_int() {
                Some(l.local("_old", None, span))
            } else {
                Some(l.scratch())
            };
            if let Some(r) = &result
                && c.name.ends_with("_block")
            {
                l.block_scoped.insert(r.clone());
            }
            let bytes = ty.first_leaf();
            for index in l.cells(a, &ptr, bytes) {
                l.emit(
                    StmtKind::Atomic {
                        var: result.clone(),
                        op,
                        array: array.clone(),
                        index,
                        value: v.clone(),
                        ty: crate::lower::expr::element_type(&ty).filter(|_| result.is_some()),
                    },
                    span,
                );
            }
            match result {
                Some(r) if ty.is_int() => Value::int(Expr::Var(r), ty),
                _ => arbitrary(&ty),
            }
        }
        other => {
            // An atomic on a thread's own variable is an ordinary update.
            let ty = l.lval_type(&other);
            let old = l.read(&other, n)?;
            l.write(&other, arbitrary(&ty), n)?;
            old
        }
    }))
}
