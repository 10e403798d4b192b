//! GPUVerify annotations: `__requires(e)` is a precondition (over parameters and launch
//! sizes, else an assumption where it stands), `__assume(e)` an assumption; the other
//! annotations (`__assert`, `__invariant`, `__ensures`, ...) only add proof obligations
//! or hints, and are ignored; the specification functions are arbitrary.

use super::Call;
use crate::lower::{Lowerer, R, V, Value, fold};
use crate::types::Ty;
use kpl::ir::{BinOp, Builtin, Expr, StmtKind};

/// GPUVerify annotations that only add proof obligations or hints: ignored (sound).
const IGNORED_ANNOTATIONS: &[&str] = &[
    "__assert",
    "__global_assert",
    "__function_wide_invariant",
    "__function_wide_candidate_invariant",
    "__ensures",
    "__global_ensures",
    "__global_requires",
    "__barrier_invariant",
    "__barrier_invariant_binary",
    "__non_temporal_loads_begin",
    "__non_temporal_loads_end",
    "__array_size",
    "__reads_from",
    "__writes_to",
    "__assert_invariant",
];
/// GPUVerify's specification functions (two-thread and access predicates): they only
/// occur in annotations; autosync cannot express them, so a precondition that uses them
/// is dropped (which is sound) and elsewhere their value is arbitrary.
const GPUVERIFY_FUNCTIONS: &[&str] = &[
    "__other_int",
    "__other_bool",
    "__other_ptr",
    "__uniform_int",
    "__uniform_bool",
    "__distinct_int",
    "__distinct_bool",
    "__all",
    "__at_most_one",
    "__exclusive",
    "__enabled",
    "__same_group",
    "__read",
    "__write",
    "__atomic",
    "__no_read",
    "__no_write",
    "__read_offset",
    "__write_offset",
    "__read_offset_bytes",
    "__write_offset_bytes",
    "__ptr_base",
    "__ptr_offset",
    "__ptr_offset_bytes",
    "__add_noovfl",
    "__add_noovfl_unsigned",
    "__add_noovfl_signed",
    "__old",
    "__return_val_int",
    "__return_val_bool",
    "__return_val_ptr",
];

/// GPUVerify's loop invariants: KPL `invariant` statements, which the static verifier
/// proves (base case and inductive step) before it uses them, and otherwise reports and
/// ignores. Written at the top of a loop body or in its condition
/// (`for (..; __invariant(e), c; ..)`); an invariant over what autosync cannot express
/// (GPUVerify's specification functions, reads of memory) is dropped.
const LOOP_INVARIANTS: &[&str] = &[
    "__invariant",
    "__global_invariant",
    "__candidate_invariant",
    "__candidate_global_invariant",
];

/// The loop invariants of [`LOOP_INVARIANTS`], before anything else.
pub(super) fn invariant<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if !LOOP_INVARIANTS.contains(&c.name) {
        return Ok(None);
    }
    if let Some(a) = c.args.first() {
        // A hint: what lowering it has to say (calls of GPUVerify's access predicates,
        // say) does not concern the kernel.
        let notes = l.notes.len();
        let (v, stmts) = l.in_block(|l| l.rvalue(*a))?;
        l.notes.truncate(notes);
        if let (V::Int(e), true) = (v.v, stmts.is_empty()) {
            let span = l.span(c.n);
            l.emit(StmtKind::Invariant(e), span);
        }
    }
    Ok(Some(Value::void()))
}

/// The annotations of [`IGNORED_ANNOTATIONS`], before anything else.
pub(super) fn ignored<'t>(_: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    Ok(IGNORED_ANNOTATIONS.contains(&c.name).then(Value::void))
}

/// Specification functions, `__requires`, `__assume` and the compiler's hints.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if GPUVERIFY_FUNCTIONS.contains(&c.name) {
        return Ok(Some(Value::arb(Ty::BOOL)));
    }
    let args = c.args;
    Ok(Some(match c.name {
        "__requires" => l.requires(args, c.n)?,
        "__implies" if args.len() == 2 => {
            let a = l.rvalue(args[0])?;
            let b = l.rvalue(args[1])?;
            match (a.v, b.v) {
                (V::Int(x), V::Int(y)) => Value::int(fold::bin(BinOp::Or, fold::not(x), y), Ty::BOOL),
                _ => Value::arb(Ty::BOOL),
            }
        }
        // True for 0 and the powers of two: as weak as GPUVerify's, so sound.
        "__is_pow2" if args.len() == 1 => {
            let a = l.rvalue(args[0])?;
            match a.v {
                V::Int(x) => Value::int(
                    fold::bin(
                        BinOp::Eq,
                        fold::bin(BinOp::BitAnd, x.clone(), fold::sub(x, Expr::Int(1))),
                        Expr::Int(0),
                    ),
                    Ty::BOOL,
                ),
                _ => Value::arb(Ty::BOOL),
            }
        }
        "__assume" => {
            if let Some(a) = args.first() {
                let (v, stmts) = l.in_block(|l| l.rvalue(*a))?;
                if let (V::Int(e), true) = (v.v, stmts.is_empty()) {
                    let span = l.span(c.n);
                    l.emit(StmtKind::Assume(e), span);
                }
            }
            Value::void()
        }
        "__builtin_expect" if !args.is_empty() => {
            let vals = l.eval_args(args)?;
            vals.into_iter().next().unwrap_or(Value::arb(Ty::INT))
        }
        "__builtin_assume" => {
            l.eval_args(args)?;
            Value::void()
        }
        _ => return Ok(None),
    }))
}

/// Other annotations by their shape (`__..assert..`, `__..invariant..`,
/// `__..ensures..`), after the file's own functions.
pub(super) fn obligations<'t>(_: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let name = c.name;
    Ok((name.starts_with("__")
        && (name.contains("invariant") || name.contains("assert") || name.contains("ensures")))
    .then(Value::void))
}

impl<'t> Lowerer<'_, 't> {
    fn requires(&mut self, args: &[tree_sitter::Node<'t>], n: tree_sitter::Node<'t>) -> R<Value> {
        let Some(a) = args.first() else {
            return Ok(Value::void());
        };
        let (v, stmts) = self.in_block(|l| l.rvalue(*a))?;
        match (v.v, stmts.is_empty()) {
            (V::Int(e), true) => {
                // Over parameters and launch sizes: a precondition; else an assumption here.
                let mut only_params = true;
                e.for_each_var(&mut |x| only_params &= self.params.iter().any(|p| p.name() == x));
                e.for_each_builtin(&mut |b| only_params &= matches!(b, Builtin::Bdim(_) | Builtin::Gdim(_)));
                if only_params && self.frames.len() == 1 {
                    self.requires.push(e);
                } else {
                    self.emit(StmtKind::Assume(e), self.span(n));
                }
            }
            _ => self.note(format!(
                "`{}` is not an integer condition autosync can express: ignored (which is sound)",
                crate::error::shorten(self.text(n))
            )),
        }
        Ok(Value::void())
    }
}
