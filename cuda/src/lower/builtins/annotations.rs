//! GPUVerify annotations: `__requires(e)` is a precondition (over parameters and launch
//! sizes, else an assumption where it stands), `__assume(e)` an assumption; the other
//! annotations (`__assert`, `__invariant`, `__ensures`, ...) only add proof obligations
//! or hints, and are ignored.
//!
//! The two-thread specification functions are exact: `__other_int(e)`/`__other_bool(e)`
//! is KPL's `other(e)`, `__uniform_int(e)` is `e == other(e)`, `__distinct_int(e)` is
//! `e != other(e)`, `__implies(a, b)` is `!a || b`, `__add_noovfl(a, b)` says that `a + b`
//! stays in the type's range. A precondition that names the other thread, or reads
//! memory, becomes an `assume` where it stands (the top of the kernel, for a kernel's
//! `__requires`): its reads are lowered before it, with `a[other(i)]` read as
//! `other(a[i])` (both threads read one memory at that point); an index mixing both
//! threads' values reads an arbitrary value. A read of an array the kernel writes is
//! made arbitrary when the kernel is finished ([`ghost_reads`]): another block may have
//! written it before this one reads it, so its value is not the input's. The
//! other specification functions (`__enabled`, `__read`, `__same_group`, ...) are
//! arbitrary, and a precondition using them is dropped (sound).
//!
//! `__ensures` (of a `__device__` function) is ignored: calls are inlined, so the
//! function's own body is what the caller sees (ignoring it is sound, and nothing is
//! trusted). `__global_requires(e)` (a precondition over global memory) is ignored
//! (sound: an assumption dropped). `__function_wrapper` is not a GPUVerify annotation
//! autosync knows of: like every unknown call it is lowered as an opaque call.

use super::Call;
use crate::lower::{Lowerer, R, V, Value, fold};
use crate::types::Ty;
use kpl::ir::{BinOp, Builtin, Expr, Stmt, StmtKind};
use std::collections::HashSet;

/// GPUVerify annotations that only add proof obligations or hints: ignored (sound).
const IGNORED_ANNOTATIONS: &[&str] = &[
    "__assert",
    "__global_assert",
    "__function_wide_invariant",
    "__function_wide_candidate_invariant",
    "__ensures",
    "__global_ensures",
    "__barrier_invariant",
    "__barrier_invariant_binary",
    "__non_temporal_loads_begin",
    "__non_temporal_loads_end",
    "__array_size",
    "__reads_from",
    "__writes_to",
    "__assert_invariant",
];
/// GPUVerify's specification functions autosync cannot express (access predicates and
/// the like): they only occur in annotations; a precondition that uses them is dropped
/// (which is sound) and elsewhere their value is arbitrary. The two-thread forms
/// (`__other_int`, `__uniform_int`, ...) and `__add_noovfl` are lowered exactly
/// ([`two_thread`]).
const GPUVERIFY_FUNCTIONS: &[&str] = &[
    "__other_ptr",
    "__global_requires",
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
        if c.name == "__global_requires" {
            l.note(
                "`__global_requires` (a precondition over global memory) is ignored (which is sound)"
                    .to_string(),
            );
            return Ok(Some(Value::void()));
        }
        return Ok(Some(Value::arb(Ty::BOOL)));
    }
    if let Some(v) = two_thread(l, c)? {
        return Ok(Some(v));
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
                let mut parts = Vec::new();
                l.conjuncts(*a, &mut parts);
                for a in parts {
                    let (v, stmts) = l.in_block(|l| l.rvalue(a))?;
                    if let V::Int(e) = v.v {
                        l.assumption(stmts, e, c.n);
                    }
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

/// The two-thread specification functions and `__add_noovfl`: exact conditions (see
/// the module comment); an argument autosync does not track makes them arbitrary.
fn two_thread<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let args = c.args;
    let ints = |l: &mut Lowerer<'_, 't>| -> R<Option<Vec<(Expr, Ty)>>> {
        let mut out = Vec::new();
        for a in args {
            let v = l.rvalue(*a)?;
            match v.v {
                V::Int(e) => out.push((e, v.ty)),
                _ => return Ok(None),
            }
        }
        Ok(Some(out))
    };
    let truthy = |e: Expr| Expr::bin(BinOp::Ne, e, Expr::Int(0));
    Ok(Some(match (c.name, args.len()) {
        ("__other_int" | "__other_bool", 1) => match ints(l)?.and_then(|v| v.into_iter().next()) {
            Some((e, ty)) if c.name == "__other_int" => Value::int(Expr::other(e), ty),
            Some((e, _)) => Value::int(Expr::other(truthy(e)), Ty::BOOL),
            None => Value::arb(Ty::INT),
        },
        ("__uniform_int" | "__uniform_bool" | "__distinct_int" | "__distinct_bool", 1) => {
            match ints(l)?.and_then(|v| v.into_iter().next()) {
                Some((e, _)) => {
                    let e = if c.name.ends_with("_bool") { truthy(e) } else { e };
                    let op = if c.name.starts_with("__uniform") {
                        BinOp::Eq
                    } else {
                        BinOp::Ne
                    };
                    Value::int(Expr::bin(op, e.clone(), Expr::other(e)), Ty::BOOL)
                }
                None => Value::arb(Ty::BOOL),
            }
        }
        ("__add_noovfl" | "__add_noovfl_unsigned" | "__add_noovfl_signed", 2) => match ints(l)? {
            Some(v) => {
                let ty = match c.name {
                    "__add_noovfl_unsigned" => Some(kpl::IntTy::U32),
                    "__add_noovfl_signed" => Some(kpl::IntTy::I32),
                    _ => v[0].1.int_ty(),
                };
                match ty {
                    // KPL arithmetic is exact: the sum is the mathematical one.
                    Some(ty) => {
                        let sum = Expr::bin(BinOp::Add, v[0].0.clone(), v[1].0.clone());
                        Value::int(
                            Expr::bin(
                                BinOp::And,
                                Expr::bin(BinOp::Ge, sum.clone(), Expr::Int(ty.min() as i64)),
                                Expr::bin(BinOp::Le, sum, Expr::Int(ty.max() as i64)),
                            ),
                            Ty::BOOL,
                        )
                    }
                    None => Value::arb(Ty::BOOL),
                }
            }
            None => Value::arb(Ty::BOOL),
        },
        _ => return Ok(None),
    }))
}

/// `e` with `other` pushed down to the leaves that differ between threads (variables,
/// `tid`, `bid`), `in_other` when `e` is evaluated in the other thread; the variables of
/// `flipped` already stand for the other thread's value (`other(other(x))` is `x`).
fn push_other(e: &Expr, in_other: bool, flipped: &HashSet<String>) -> Expr {
    let leaf = |e: Expr, other: bool| if other { Expr::other(e) } else { e };
    match e {
        Expr::Int(_) => e.clone(),
        Expr::Var(v) => leaf(e.clone(), in_other != flipped.contains(v)),
        Expr::Builtin(b @ (Builtin::Tid(_) | Builtin::Bid(_))) => leaf(Expr::Builtin(*b), in_other),
        Expr::Builtin(_) => e.clone(),
        Expr::Other(a) => push_other(a, !in_other, flipped),
        Expr::Unary(op, a) => Expr::un(*op, push_other(a, in_other, flipped)),
        Expr::Cast(ty, a) => Expr::cast(*ty, push_other(a, in_other, flipped)),
        Expr::Binary(op, a, b) => Expr::bin(
            *op,
            push_other(a, in_other, flipped),
            push_other(b, in_other, flipped),
        ),
        Expr::Apply(f, args) => Expr::Apply(
            f.clone(),
            args.iter().map(|a| push_other(a, in_other, flipped)).collect(),
        ),
    }
}

/// `Some(x)` when `e` (after [`push_other`]) is `x` evaluated in the other thread.
fn all_other(e: &Expr) -> Option<Expr> {
    Some(match e {
        Expr::Int(_) | Expr::Builtin(Builtin::Bdim(_) | Builtin::Gdim(_)) => e.clone(),
        Expr::Other(a) => (**a).clone(),
        Expr::Var(_) | Expr::Builtin(_) => return None,
        Expr::Unary(op, a) => Expr::un(*op, all_other(a)?),
        Expr::Cast(ty, a) => Expr::cast(*ty, all_other(a)?),
        Expr::Binary(op, a, b) => Expr::bin(*op, all_other(a)?, all_other(b)?),
        Expr::Apply(f, args) => Expr::Apply(f.clone(), args.iter().map(all_other).collect::<Option<_>>()?),
    })
}

/// Makes the precondition reads (`spec`, the variables they read into) of arrays the
/// kernel writes arbitrary (`havoc`): another block may have written such an array
/// before this one reads it, so the value is not the input the precondition is about.
/// Reads of the other arrays stay: they cannot race, having no write to race with.
pub(in crate::lower) fn ghost_reads(stmts: &mut [Stmt], spec: &HashSet<String>) {
    fn written(stmts: &[Stmt], out: &mut HashSet<String>) {
        for s in stmts {
            if let StmtKind::Write { array, .. } | StmtKind::Atomic { array, .. } = &s.kind {
                out.insert(array.clone());
            }
            for b in s.blocks() {
                written(&b.stmts, out);
            }
        }
    }
    fn havoc(stmts: &mut [Stmt], spec: &HashSet<String>, written: &HashSet<String>) {
        for s in stmts {
            if let StmtKind::Read { var, array, .. } = &s.kind
                && spec.contains(var)
                && written.contains(array)
            {
                s.kind = StmtKind::havoc(var.clone());
            }
            for b in s.blocks_mut() {
                havoc(&mut b.stmts, spec, written);
            }
        }
    }
    if spec.is_empty() {
        return;
    }
    let mut w = HashSet::new();
    written(stmts, &mut w);
    havoc(stmts, spec, &w);
}

impl<'t> Lowerer<'_, 't> {
    fn requires(&mut self, args: &[tree_sitter::Node<'t>], n: tree_sitter::Node<'t>) -> R<Value> {
        let Some(a) = args.first() else {
            return Ok(Value::void());
        };
        let mut parts = Vec::new();
        self.conjuncts(*a, &mut parts);
        for a in parts {
            let (v, stmts) = self.in_block(|l| l.rvalue(a))?;
            match v.v {
                V::Int(e) => {
                    // Over parameters and launch sizes: a precondition; else an assumption here.
                    let mut only_params = stmts.is_empty() && !e.has_other();
                    e.for_each_var(&mut |x| only_params &= self.params.iter().any(|p| p.name() == x));
                    e.for_each_builtin(&mut |b| {
                        only_params &= matches!(b, Builtin::Bdim(_) | Builtin::Gdim(_))
                    });
                    if only_params && self.frames.len() == 1 {
                        self.requires.push(e);
                    } else {
                        self.assumption(stmts, e, n);
                    }
                }
                _ => self.note(format!(
                    "`{}` is not an integer condition autosync can express: ignored (which is sound)",
                    crate::error::shorten(self.text(n))
                )),
            }
        }
        Ok(Value::void())
    }

    /// The operands of top-level `&&`s: an annotation has no effect, so `a && b` holds
    /// when both hold, and each is lowered on its own (C's short circuit would lower
    /// reads in `b` under a condition).
    fn conjuncts(&self, n: tree_sitter::Node<'t>, out: &mut Vec<tree_sitter::Node<'t>>) {
        let op = n.child_by_field_name("operator").map(|o| self.text(o));
        match (n.kind(), op, n.named_child(0)) {
            ("parenthesized_expression", _, Some(inner)) if n.named_child_count() == 1 => {
                self.conjuncts(inner, out)
            }
            ("binary_expression", Some("&&"), _) => {
                if let (Some(l), Some(r)) = (n.child_by_field_name("left"), n.child_by_field_name("right")) {
                    self.conjuncts(l, out);
                    self.conjuncts(r, out);
                } else {
                    out.push(n);
                }
            }
            _ => out.push(n),
        }
    }

    /// `assume e` where the annotation `n` stands, after `stmts` (what evaluating `e`
    /// emitted: its reads into fresh locals). Reads at an index of the other thread
    /// (`a[other(i)]`) become `other(a[i])`; statements with an effect on anything but
    /// their own fresh locals (C evaluates no annotation) drop the assumption.
    fn assumption(&mut self, stmts: Vec<Stmt>, e: Expr, n: tree_sitter::Node<'t>) {
        let mut own: HashSet<String> = HashSet::new();
        own.insert(crate::lower::SCRATCH.to_string());
        let mut flipped = HashSet::new();
        let mut out = Vec::new();
        for mut s in stmts {
            let ok = match &mut s.kind {
                StmtKind::Local { var, init } => {
                    own.insert(var.clone());
                    *init = init
                        .as_ref()
                        .map(|i| push_other(i, false, &flipped))
                        .filter(|i| !i.has_other());
                    true
                }
                StmtKind::Havoc { var, .. } => own.contains(var),
                StmtKind::Assign { var, value } => {
                    let var = var.clone();
                    let v = push_other(value, false, &flipped);
                    if v.has_other() {
                        s.kind = StmtKind::havoc(var.clone());
                    } else {
                        *value = v;
                    }
                    own.contains(&var)
                }
                StmtKind::Read { var, index, .. } => {
                    let i = push_other(index, false, &flipped);
                    let var = var.clone();
                    if !i.has_other() {
                        *index = i;
                    } else if let Some(x) = all_other(&i) {
                        // Every thread reads the same memory here: the other thread's
                        // read of `a[x]` is `a[other(x)]`.
                        *index = x;
                        flipped.insert(var.clone());
                    } else {
                        s.kind = StmtKind::havoc(var.clone());
                    }
                    if matches!(s.kind, StmtKind::Read { .. }) {
                        self.spec_reads.insert(var.clone());
                    }
                    own.contains(&var)
                }
                _ => false,
            };
            if !ok {
                self.note(format!(
                    "`{}` has an effect autosync cannot drop: ignored (which is sound)",
                    crate::error::shorten(self.text(n))
                ));
                return;
            }
            out.push(s);
        }
        let e = push_other(&e, false, &flipped);
        self.extend(out);
        let span = self.span(n);
        self.emit(StmtKind::Assume(e), span);
    }
}
