//! Calls: CUDA builtins (barriers, atomics, texture fetches, math), GPUVerify
//! annotations, and `__device__` functions, which are inlined.
//!
//! - `__syncthreads()` (and `cg::sync`/`.sync()` of a thread block) is a barrier;
//!   `__syncwarp()` and tile syncs are no-ops that are not barriers (warp-level barriers
//!   are not modelled yet: sound, since fewer barriers means more races); fences
//!   (`__threadfence*`) order nothing between threads in the SDV semantics and vanish.
//! - Atomics are KPL atomics on the cells they update.
//! - `__requires(e)` is a precondition, `__assume(e)` an assumption; other GPUVerify
//!   annotations (`__assert`, `__invariant`, `__ensures`, ...) only add proof obligations
//!   or hints, and are ignored.
//! - Functions the file does not define have arbitrary results; a pointer argument is
//!   taken as a read and a write of some element of what it points to.

use std::rc::Rc;

use tree_sitter::Node;

use super::expr::{Ref, arbitrary};
use super::fold;
use super::stmt::items;
use super::{ArraySpace, Binding, Frame, LVal, Lowerer, Offset, R, Ret, Target, V, Value, VarKind};
use crate::program::{last_name, named_children};
use crate::types::{StructTy, Ty, vector_type};
use kpl::ir::{AtomicOp, BinOp, Builtin, Dim, Expr, StmtKind, UnOp};

/// GPUVerify annotations that only add proof obligations or hints: ignored (sound).
const IGNORED_ANNOTATIONS: &[&str] = &[
    "__assert",
    "__global_assert",
    "__invariant",
    "__global_invariant",
    "__candidate_invariant",
    "__candidate_global_invariant",
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

/// Math functions: no memory effect, arbitrary floating-point result.
const FLOAT_FUNCTIONS: &[&str] = &[
    "sqrtf",
    "sqrt",
    "rsqrtf",
    "rsqrt",
    "cbrtf",
    "cbrt",
    "expf",
    "__expf",
    "exp",
    "exp2f",
    "exp2",
    "exp10f",
    "expm1f",
    "logf",
    "__logf",
    "log",
    "log2f",
    "__log2f",
    "log2",
    "log10f",
    "__log10f",
    "log10",
    "log1pf",
    "powf",
    "__powf",
    "pow",
    "sinf",
    "__sinf",
    "sin",
    "cosf",
    "__cosf",
    "cos",
    "tanf",
    "__tanf",
    "tan",
    "asinf",
    "acosf",
    "atanf",
    "atan2f",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinhf",
    "coshf",
    "tanhf",
    "sinh",
    "cosh",
    "tanh",
    "sinpif",
    "cospif",
    "fabsf",
    "fabs",
    "floorf",
    "floor",
    "ceilf",
    "ceil",
    "roundf",
    "round",
    "rintf",
    "rint",
    "truncf",
    "trunc",
    "nearbyintf",
    "fminf",
    "fmaxf",
    "fmin",
    "fmax",
    "fmodf",
    "fmod",
    "remainderf",
    "fmaf",
    "fma",
    "__fmaf_rn",
    "__fmaf_rz",
    "__fmul_rn",
    "__fmul_rz",
    "__fadd_rn",
    "__fadd_rz",
    "__fsub_rn",
    "__fdiv_rn",
    "__fdividef",
    "fdividef",
    "__frcp_rn",
    "__fsqrt_rn",
    "__frsqrt_rn",
    "__saturatef",
    "saturate",
    "copysignf",
    "erff",
    "erfcf",
    "erf",
    "erfc",
    "erfinvf",
    "lgammaf",
    "tgammaf",
    "hypotf",
    "hypot",
    "normf",
    "norm3df",
    "rnorm3df",
    "ldexpf",
    "frexpf",
    "modff",
    "scalbnf",
    "__int2float_rn",
    "__uint2float_rn",
    "__int_as_float",
    "__uint_as_float",
    "__half2float",
    "__float2half",
    "__double2float_rn",
    "__ll2float_rn",
    "__int2double_rn",
    "__hiloint2double",
    "__longlong_as_double",
    "__shfl_down",
    "__shfl_up",
    "__shfl_xor",
    "__shfl",
    "__shfl_down_sync",
    "__shfl_up_sync",
    "__shfl_xor_sync",
    "__shfl_sync",
    "curand_uniform",
    "curand_normal",
    "lerp",
    "smoothstep",
    "dot",
    "length",
    "normalize",
    "cross",
    "clamp",
    "fracf",
];

/// Builtins with an integer result the lowering does not compute.
const INT_FUNCTIONS: &[&str] = &[
    "__float2int_rn",
    "__float2int_rz",
    "__float2int_ru",
    "__float2int_rd",
    "__float2uint_rn",
    "__float2uint_rz",
    "__float2uint_ru",
    "__float2uint_rd",
    "__float_as_int",
    "__float_as_uint",
    "__double2int_rn",
    "__double2int_rz",
    "__double2loint",
    "__double2hiint",
    "__double_as_longlong",
    "__float2ll_rn",
    "__popc",
    "__popcll",
    "__clz",
    "__clzll",
    "__ffs",
    "__ffsll",
    "__brev",
    "__brevll",
    "__byte_perm",
    "__mulhi",
    "__umulhi",
    "__mul64hi",
    "__umul64hi",
    "__sad",
    "__usad",
    "__ballot",
    "__ballot_sync",
    "__any",
    "__all",
    "__any_sync",
    "__all_sync",
    "__activemask",
    "__lanemask_lt",
    "__lanemask_le",
    "__lanemask_eq",
    "clock",
    "clock64",
    "__funnelshift_l",
    "__funnelshift_r",
    "__funnelshift_lc",
    "__funnelshift_rc",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "__isnan",
    "__isinf",
    "__finitef",
    "__signbitf",
    "__hadd",
    "__rhadd",
    "__uhadd",
    "__urhadd",
    "lrintf",
    "lroundf",
    "llrintf",
    "llroundf",
    "ilogbf",
    "__match_any_sync",
    "__match_all_sync",
    "curand",
    "__reduce_add_sync",
];

/// Functions whose arguments are evaluated and nothing else happens.
const NO_EFFECT_FUNCTIONS: &[&str] = &[
    "printf",
    "assert",
    "__assertfail",
    "__trap",
    "__brkpt",
    "__prof_trigger",
    "__nanosleep",
];

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

fn is_texture_fetch(name: &str) -> bool {
    name.starts_with("tex1D")
        || name.starts_with("tex2D")
        || name.starts_with("tex3D")
        || name.starts_with("texCubemap")
        || name == "texfetch"
        || (name.starts_with("surf") && name.ends_with("read"))
}

impl<'p, 't> Lowerer<'p, 't> {
    pub fn call(&mut self, n: Node<'t>) -> R<Value> {
        let discard = std::mem::take(&mut self.discard);
        if named_children(n).iter().any(|c| c.kind() == "kernel_call_syntax") {
            return Err(self.unsupported(n, "launching a kernel from device code", ""));
        }
        let fun = n
            .child_by_field_name("function")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let args: Vec<Node> = n.child_by_field_name("arguments").map(items).unwrap_or_default();
        match fun.kind() {
            "identifier" | "qualified_identifier" => {
                let name = last_name(fun, self.prog.src);
                let scope = self.text(fun).to_string();
                self.named_call(&name, &scope, None, &args, n, discard)
            }
            "template_function" => {
                let name = fun
                    .child_by_field_name("name")
                    .map(|x| last_name(x, self.prog.src))
                    .unwrap_or_default();
                let targs = fun.child_by_field_name("arguments");
                self.named_call(&name, &name, targs, &args, n, discard)
            }
            "field_expression" => self.method_call(fun, &args, n),
            "primitive_type" | "sized_type_specifier" | "type_identifier" | "template_type" => {
                let ty = self.base_type(fun)?;
                self.construct(ty, &args, n)
            }
            "parenthesized_expression" => {
                let inner = super::expr::strip_parens(fun);
                if inner.kind() == "identifier" {
                    let name = self.text(inner).to_string();
                    return self.named_call(&name, &name, None, &args, n, discard);
                }
                Err(self.unsupported(
                    n,
                    "a call through a function pointer",
                    "call the function directly",
                ))
            }
            _ => Err(self.unsupported(
                n,
                "a call through a function pointer",
                "call the function directly",
            )),
        }
    }

    fn eval_args(&mut self, args: &[Node<'t>]) -> R<Vec<Value>> {
        args.iter().map(|a| self.rvalue(*a)).collect()
    }

    fn named_call(
        &mut self,
        name: &str,
        scope: &str,
        targs: Option<Node<'t>>,
        args: &[Node<'t>],
        n: Node<'t>,
        discard: bool,
    ) -> R<Value> {
        let span = self.span(n);
        if matches!(
            name,
            "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast"
        ) {
            let to = match targs.and_then(|t| named_children(t).into_iter().next()) {
                Some(t) => self.type_descriptor(t)?,
                None => Ty::Opaque("?".into()),
            };
            let v = match args.first() {
                Some(a) => self.rvalue(*a)?,
                None => Value::void(),
            };
            return self.convert(v, &to, n);
        }
        if IGNORED_ANNOTATIONS.contains(&name) {
            return Ok(Value::void());
        }
        if let Some(id) = self.lookup(name) {
            // A function object: its `operator()`.
            let lv = super::LVal::Var(id);
            if let Some(st) = self.lval_type(&lv).as_struct().cloned() {
                let calls: Vec<usize> = st
                    .def
                    .map(|d| self.prog.structs[d].methods.clone())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|&m| self.prog.funcs[m].name.replace(' ', "") == "operator()")
                    .collect();
                if let Some(f) = self.overload(&calls, args.len())
                    && self.prog.funcs[f].body.is_some()
                {
                    return self.inline(f, args, targs, Some((lv, st)), n);
                }
            }
            if matches!(self.lval_type(&lv), Ty::Opaque(_)) {
                // An object of a type autosync does not know (an unbound template
                // parameter): like a function the file does not define.
                let vals = self.eval_args(args)?;
                self.pointer_effects(&vals, n, false);
                return Ok(Value::arb(Ty::Opaque(name.to_string())));
            }
            return Err(self.unsupported(
                n,
                "a call through a function pointer",
                "call the function directly",
            ));
        }
        if GPUVERIFY_FUNCTIONS.contains(&name) {
            return Ok(Value::arb(Ty::BOOL));
        }
        match name {
            "__requires" => return self.requires(args, n),
            "__implies" if args.len() == 2 => {
                let a = self.rvalue(args[0])?;
                let b = self.rvalue(args[1])?;
                return Ok(match (a.v, b.v) {
                    (V::Int(x), V::Int(y)) => Value::int(fold::bin(BinOp::Or, fold::not(x), y), Ty::BOOL),
                    _ => Value::arb(Ty::BOOL),
                });
            }
            // True for 0 and the powers of two: as weak as GPUVerify's, so sound.
            "__is_pow2" if args.len() == 1 => {
                let a = self.rvalue(args[0])?;
                return Ok(match a.v {
                    V::Int(x) => Value::int(
                        fold::bin(
                            BinOp::Eq,
                            fold::bin(BinOp::BitAnd, x.clone(), fold::sub(x, Expr::Int(1))),
                            Expr::Int(0),
                        ),
                        Ty::BOOL,
                    ),
                    _ => Value::arb(Ty::BOOL),
                });
            }
            "__assume" => {
                if let Some(a) = args.first() {
                    let (v, stmts) = self.in_block(|l| l.rvalue(*a))?;
                    if let (V::Int(e), true) = (v.v, stmts.is_empty()) {
                        self.emit(StmtKind::Assume(e), span);
                    }
                }
                return Ok(Value::void());
            }
            "__builtin_expect" if !args.is_empty() => {
                let vals = self.eval_args(args)?;
                return Ok(vals.into_iter().next().unwrap_or(Value::arb(Ty::INT)));
            }
            "__syncthreads" | "__barrier_sync" => {
                self.emit(StmtKind::Barrier, span);
                return Ok(Value::void());
            }
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                self.eval_args(args)?;
                self.emit(StmtKind::Barrier, span);
                return Ok(Value::arb(Ty::INT));
            }
            "__syncwarp" => {
                // A warp barrier for the full warp; a partial mask synchronizes only
                // some lanes, which is modelled as no synchronization (sound).
                let vals = self.eval_args(args)?;
                let full = match vals.first().map(|v| &v.v) {
                    None => true,
                    Some(super::V::Int(e)) => {
                        super::fold::int(e).is_some_and(|m| m & 0xFFFF_FFFF == 0xFFFF_FFFF)
                    }
                    Some(_) => false,
                };
                if full {
                    self.emit(StmtKind::WarpBarrier, span);
                }
                return Ok(Value::void());
            }
            "__threadfence" | "__threadfence_block" | "__threadfence_system" | "__builtin_assume" => {
                self.eval_args(args)?;
                return Ok(Value::void());
            }
            "sync" if scope.contains("::") || self.frame().this.is_none() => {
                let vals = self.eval_args(args)?;
                let group = vals.first().map(|v| v.ty.to_string()).unwrap_or_default();
                return self.group_sync(&group, n);
            }
            "this_thread_block" => return Ok(Value::arb(Ty::Opaque("thread_block".into()))),
            "this_grid" => return Ok(Value::arb(Ty::Opaque("grid_group".into()))),
            "tiled_partition" => {
                self.eval_args(args)?;
                return Ok(Value::arb(Ty::Opaque("thread_block_tile".into())));
            }
            "coalesced_threads" => return Ok(Value::arb(Ty::Opaque("coalesced_group".into()))),
            "__ldg" | "__ldcg" | "__ldca" | "__ldcs" | "__ldlu" | "__ldcv" => {
                let Some(a) = args.first() else {
                    return Ok(Value::arb(Ty::INT));
                };
                let p = self.rvalue(*a)?;
                let lv = self.deref_value(p, n)?;
                return self.read(&lv, n);
            }
            _ => {}
        }
        if let Some(op) = atomic_op(name) {
            return self.atomic(op, args, n, discard);
        }
        if is_texture_fetch(name) {
            self.eval_args(args)?;
            let ty = match targs.and_then(|t| named_children(t).into_iter().next()) {
                Some(t) => self.type_descriptor(t)?,
                None => Ty::FLOAT,
            };
            return Ok(arbitrary(&ty));
        }
        if name.starts_with("surf") && name.ends_with("write") {
            return Err(self.unsupported(n, "surface writes", "autosync does not model surface memory"));
        }
        if let Some(ty) = name.strip_prefix("make_").and_then(vector_type) {
            let vals = self.eval_args(args)?;
            let v = Value {
                v: V::Struct(vals),
                ty: Ty::Opaque("initializer list".into()),
            };
            return self.convert(v, &ty, n);
        }
        // Inside a method, another method of the class called by its bare name.
        if let (Some(this), Some(s)) = (self.frame().this.clone(), self.frame().this_ty.clone())
            && let Some(def) = s.def
        {
            let methods: Vec<usize> = self.prog.structs[def]
                .methods
                .iter()
                .copied()
                .filter(|&m| self.prog.funcs[m].name == name)
                .collect();
            if let Some(f) = self.overload(&methods, args.len())
                && self.prog.funcs[f].body.is_some()
            {
                return self.inline(f, args, targs, Some((this, s)), n);
            }
        }
        // The file's own functions win over builtins of the same name; `S::f(...)` may
        // be a static method.
        let mut defined = self.prog.functions(name, None);
        if defined.is_empty() && scope.contains("::") {
            defined = self.prog.funcs_by_name.get(name).cloned().unwrap_or_default();
        }
        if let Some(f) = self.overload(&defined, args.len())
            && self.prog.funcs[f].body.is_some()
        {
            return self.inline(f, args, targs, None, n);
        }
        if self.prog.structs_by_name.contains_key(name)
            || self.lookup_alias(name).is_some()
            || self.prog.aliases.contains_key(name)
        {
            let ty = match targs {
                Some(t) if self.prog.structs_by_name.contains_key(name) => self.struct_type(name, Some(t))?,
                _ => self.named_type_of(name)?,
            };
            return self.construct(ty, args, n);
        }
        if let Some(ty) = crate::types::builtin_scalar(name) {
            return self.construct(ty, args, n);
        }
        match name {
            "min" | "max" | "umin" | "umax" | "llmin" | "llmax" | "ullmin" | "ullmax" | "imin" | "imax" => {
                let vals = self.eval_args(args)?;
                return Ok(self.min_max(name.ends_with("min"), vals, n));
            }
            "abs" | "labs" | "llabs" => {
                let vals = self.eval_args(args)?;
                return Ok(match vals.into_iter().next() {
                    Some(Value { v: V::Int(e), ty }) => {
                        let t = self.mutable_local("_abs", Some(e), span);
                        let neg = self.made_stmt(
                            StmtKind::Assign {
                                var: t.clone(),
                                value: fold::un(UnOp::Neg, Expr::Var(t.clone())),
                            },
                            span,
                        );
                        let blk = self.made_block(vec![neg], span);
                        self.emit(
                            StmtKind::If {
                                cond: Expr::bin(BinOp::Lt, Expr::Var(t.clone()), Expr::Int(0)),
                                then_blk: blk,
                                else_blk: None,
                            },
                            span,
                        );
                        Value::int(Expr::Var(t), ty)
                    }
                    Some(v) => Value::arb(v.ty),
                    None => Value::arb(Ty::INT),
                });
            }
            "__mul24" | "__umul24" => {
                // Exact when the operands fit in 24 bits (the no-overflow assumption).
                let vals = self.eval_args(args)?;
                let mut it = vals.into_iter();
                return Ok(match (it.next(), it.next()) {
                    (Some(a), Some(b)) => self.binary("*", a, b),
                    _ => Value::arb(Ty::INT),
                });
            }
            _ => {}
        }
        if FLOAT_FUNCTIONS.contains(&name)
            || INT_FUNCTIONS.contains(&name)
            || NO_EFFECT_FUNCTIONS.contains(&name)
        {
            let vals = self.eval_args(args)?;
            self.pointer_effects(&vals, n, true);
            let ty = if INT_FUNCTIONS.contains(&name) || NO_EFFECT_FUNCTIONS.contains(&name) {
                Ty::INT
            } else {
                vals.first()
                    .map(|v| v.ty.clone())
                    .filter(|t| matches!(t, Ty::Float { .. } | Ty::Struct(_)))
                    .unwrap_or(Ty::FLOAT)
            };
            return Ok(arbitrary(&ty));
        }
        if matches!(name, "malloc" | "free" | "cudaMalloc" | "new" | "delete") {
            return Err(self.unsupported(n, "dynamic allocation in device code", ""));
        }
        if name.starts_with("__")
            && (name.contains("invariant") || name.contains("assert") || name.contains("ensures"))
        {
            return Ok(Value::void());
        }
        // A function the file does not define.
        let vals = self.eval_args(args)?;
        self.note(format!(
            "`{name}` is not defined in this file: its result is taken as arbitrary, and it may read and write \
             what its pointer arguments point to"
        ));
        self.pointer_effects(&vals, n, false);
        Ok(Value::arb(Ty::Opaque(name.to_string())))
    }

    fn named_type_of(&mut self, name: &str) -> R<Ty> {
        if let Some(t) = self.lookup_alias(name) {
            return Ok(t);
        }
        if let Some(a) = self.prog.aliases.get(name).cloned() {
            return Ok(self.declared(a.ty, a.declarator)?.ty);
        }
        self.struct_type(name, None)
    }

    /// `T(args)`: a functional cast or a constructor.
    fn construct(&mut self, ty: Ty, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        let vals = self.eval_args(args)?;
        match (&ty, vals.len()) {
            (Ty::Struct(s), k) if k == s.fields.len() && k > 0 => {
                let v = Value {
                    v: V::Struct(vals),
                    ty: Ty::Opaque("initializer list".into()),
                };
                self.convert(v, &ty, n)
            }
            (Ty::Struct(_), _) => Ok(arbitrary(&ty)),
            (_, 1) => {
                let v = vals.into_iter().next().expect("one argument");
                self.convert(v, &ty, n)
            }
            (_, 0) if ty.is_int() => Ok(Value::int(Expr::Int(0), ty)),
            _ => Ok(arbitrary(&ty)),
        }
    }

    fn min_max(&mut self, min: bool, vals: Vec<Value>, n: Node<'t>) -> Value {
        let span = self.span(n);
        let mut it = vals.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Value::arb(Ty::INT);
        };
        let ty = if a.ty.is_int() && b.ty.is_int() {
            a.ty.clone()
        } else {
            Ty::FLOAT
        };
        match (a.v, b.v) {
            (V::Int(x), V::Int(y)) => {
                if let (Some(p), Some(q)) = (fold::int(&x), fold::int(&y)) {
                    return Value::int(Expr::Int(if min { p.min(q) } else { p.max(q) }), ty);
                }
                let t = self.mutable_local(if min { "_min" } else { "_max" }, Some(x), span);
                let set = self.made_stmt(
                    StmtKind::Assign {
                        var: t.clone(),
                        value: y.clone(),
                    },
                    span,
                );
                let blk = self.made_block(vec![set], span);
                let op = if min { BinOp::Lt } else { BinOp::Gt };
                self.emit(
                    StmtKind::If {
                        cond: Expr::bin(op, y, Expr::Var(t.clone())),
                        then_blk: blk,
                        else_blk: None,
                    },
                    span,
                );
                Value::int(Expr::Var(t), ty)
            }
            _ => Value::arb(ty),
        }
    }

    /// What an unknown function may do with pointer arguments: read and write some
    /// element of shared or global memory, change a variable.
    fn pointer_effects(&mut self, vals: &[Value], n: Node<'t>, known: bool) {
        let span = self.span(n);
        for v in vals {
            let V::Ptr(p) = &v.v else { continue };
            match p.target {
                Target::Array(a)
                    if !known && matches!(self.arrays[a].space, ArraySpace::Shared | ArraySpace::Global) =>
                {
                    let array = self.arrays[a].kpl.clone();
                    let i = self.local("_i", None, span);
                    let s = self.scratch();
                    self.emit(
                        StmtKind::Read {
                            var: s.clone(),
                            array: array.clone(),
                            index: Expr::Var(i.clone()),
                        },
                        span,
                    );
                    self.emit(StmtKind::Havoc { var: s.clone() }, span);
                    self.emit(
                        StmtKind::Write {
                            array,
                            index: Expr::Var(i),
                            value: Expr::Var(s),
                        },
                        span,
                    );
                }
                Target::Var(id) => {
                    let ty = self.vars[id].ty.clone();
                    if self.write(&LVal::Var(id), arbitrary(&ty), n).is_err() {
                        // A constant passed by address cannot change.
                    }
                }
                _ => {}
            }
        }
    }

    fn requires(&mut self, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
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
                super::super::error::shorten(self.text(n))
            )),
        }
        Ok(Value::void())
    }

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

    fn atomic(&mut self, op: AtomicOp, args: &[Node<'t>], n: Node<'t>, discard: bool) -> R<Value> {
        let span = self.span(n);
        let Some(addr) = args.first() else {
            return Err(self.unsupported(n, "atomic without address", ""));
        };
        let p = self.rvalue(*addr)?;
        let lv = self.deref_value(p, n)?;
        let vals = self.eval_args(&args[1..])?;
        // atomicCAS(addr, compare, value) stores `value`.
        let value = match op {
            AtomicOp::Cas => vals.get(1),
            _ => vals.first(),
        }
        .cloned()
        .unwrap_or(Value::int(Expr::Int(1), Ty::INT));
        match lv {
            LVal::Mem(ptr, ty) => {
                let Target::Array(a) = ptr.target else {
                    return Err(self.unsupported(n, "atomic on an unknown address", ""));
                };
                let v = self.data(&value, n);
                let array = self.arrays[a].kpl.clone();
                let result = if discard {
                    None
                } else if ty.is_int() {
                    Some(self.local("_old", None, span))
                } else {
                    Some(self.scratch())
                };
                let bytes = ty.first_leaf();
                for index in self.cells(a, &ptr, bytes) {
                    self.emit(
                        StmtKind::Atomic {
                            var: result.clone(),
                            op,
                            array: array.clone(),
                            index,
                            value: v.clone(),
                        },
                        span,
                    );
                }
                Ok(match result {
                    Some(r) if ty.is_int() => Value::int(Expr::Var(r), ty),
                    _ => arbitrary(&ty),
                })
            }
            other => {
                // An atomic on a thread's own variable is an ordinary update.
                let ty = self.lval_type(&other);
                let old = self.read(&other, n)?;
                self.write(&other, arbitrary(&ty), n)?;
                Ok(old)
            }
        }
    }

    fn method_call(&mut self, fun: Node<'t>, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        let obj = fun
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let field = fun
            .child_by_field_name("field")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let method = last_name(field, self.prog.src);
        let arrow = fun
            .child_by_field_name("operator")
            .is_some_and(|o| self.text(o) == "->");
        let this = if arrow {
            let p = self.rvalue(obj)?;
            self.deref_value(p, n)?
        } else {
            match self.expr(obj)? {
                Ref::L(lv) => lv,
                Ref::V(v) => {
                    let id = self.new_var("_obj", &v.ty.clone(), self.span(obj))?;
                    self.write(&LVal::Var(id), v, n)?;
                    LVal::Var(id)
                }
            }
        };
        let ty = self.lval_type(&this);
        let Some(s) = ty.as_struct().cloned() else {
            return self.group_method(&ty.to_string(), &method, args, n);
        };
        let Some(def) = s.def else {
            self.eval_args(args)?;
            return Ok(Value::arb(Ty::Opaque(method)));
        };
        let methods: Vec<usize> = self.prog.structs[def]
            .methods
            .iter()
            .copied()
            .filter(|&m| self.prog.funcs[m].name == method)
            .collect();
        match self.overload(&methods, args.len()) {
            Some(f) if self.prog.funcs[f].body.is_some() => self.inline(f, args, None, Some((this, s)), n),
            _ => {
                let vals = self.eval_args(args)?;
                self.pointer_effects(&vals, n, false);
                Ok(Value::arb(Ty::Opaque(method)))
            }
        }
    }

    /// Methods of cooperative groups (an opaque `thread_block`, tile, ...).
    fn group_method(&mut self, group: &str, method: &str, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
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
        let ty = vector_type("uint3").unwrap_or(Ty::UINT);
        let b: fn(Dim) -> Builtin = match name {
            "threadIdx" => Builtin::Tid,
            "blockIdx" => Builtin::Bid,
            _ => Builtin::Bdim,
        };
        let _ = n;
        Ok(Value {
            v: V::Struct(
                Dim::ALL
                    .iter()
                    .map(|d| Value::int(Expr::Builtin(b(*d)), Ty::UINT))
                    .collect(),
            ),
            ty,
        })
    }

    /// The candidate to call for `args` arguments.
    fn overload(&self, cands: &[usize], nargs: usize) -> Option<usize> {
        let fits = |f: &usize| {
            let def = &self.prog.funcs[*f];
            let params = def.params();
            let required = params
                .iter()
                .filter(|p| p.kind() != "optional_parameter_declaration")
                .count();
            let void = params.len() == 1 && self.text(params[0]).trim() == "void";
            let total = if void { 0 } else { params.len() };
            (nargs >= required.min(total) && nargs <= total) || def.variadic()
        };
        cands
            .iter()
            .copied()
            .filter(fits)
            .max_by_key(|f| self.prog.funcs[*f].body.is_some())
            .or_else(|| cands.first().copied())
    }

    /// The conversion operator of a struct value, for `T *p = SharedMemory<T>();`.
    pub fn conversion_operator(&mut self, from: Ty, to: &Ty, n: Node<'t>) -> R<Value> {
        let Some(s) = from.as_struct().cloned() else {
            return Ok(arbitrary(to));
        };
        let Some(def) = s.def else {
            return Ok(arbitrary(to));
        };
        let ops: Vec<usize> = self.prog.structs[def]
            .methods
            .iter()
            .copied()
            .filter(|&m| self.prog.funcs[m].conversion.is_some() && self.prog.funcs[m].body.is_some())
            .collect();
        let Some(&f) = ops.first() else {
            return Err(self.unsupported(n, &format!("converting `{from}` to `{to}`"), ""));
        };
        let id = self.new_var("_obj", &from, self.span(n))?;
        let v = self.inline(f, &[], None, Some((LVal::Var(id), s)), n)?;
        self.convert(v, to, n)
    }

    /// Inlines a call of function `f`.
    fn inline(
        &mut self,
        f: usize,
        args: &[Node<'t>],
        targs: Option<Node<'t>>,
        this: Option<(LVal, Rc<StructTy>)>,
        n: Node<'t>,
    ) -> R<Value> {
        let def = self.prog.funcs[f].clone();
        let Some(body) = def.body else {
            return Ok(Value::arb(Ty::Opaque(def.name)));
        };
        if self.frames.iter().any(|fr| fr.func == Some(f)) {
            return Err(self.unsupported(
                n,
                &format!("recursive call of `{}`", def.name),
                "autosync inlines device functions: write the recursion as a loop",
            ));
        }
        if self.frames.len() > 48 {
            return Err(self.unsupported(n, "calls nested too deeply", ""));
        }
        let params = def.params();
        // Arguments are evaluated in the caller.
        let mut argv: Vec<Ref> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let by_ref = params
                .get(i)
                .and_then(|p| p.child_by_field_name("declarator"))
                .is_some_and(|d| {
                    d.kind() == "reference_declarator" || self.text(d).trim_start().starts_with('&')
                });
            argv.push(if by_ref {
                self.expr(*a)?
            } else {
                Ref::V(self.rvalue(*a)?)
            });
        }
        let mut bindings: Vec<(String, Binding)> =
            this.as_ref().map(|(_, s)| s.bindings.clone()).unwrap_or_default();
        if let Some(tp) = def.template {
            let mut explicit = self.bind_template(tp, targs)?;
            // Deduce what was not given from the argument types.
            let given = targs.map_or(0, |t| named_children(t).len());
            for (k, (name, b)) in explicit.iter_mut().enumerate() {
                if k < given {
                    continue;
                }
                if let Some(t) = self.deduce(name, &params, &argv) {
                    *b = Binding::Type(t);
                }
            }
            bindings.extend(explicit);
        }
        let ret_ty = {
            let saved = std::mem::replace(&mut self.frame_mut().bindings, bindings.clone());
            let r = match (def.conversion, def.node.child_by_field_name("type")) {
                (Some(t), _) => self
                    .declared(t, def.declarator.child_by_field_name("declarator"))
                    .map(|d| d.ty),
                (None, Some(t)) => self
                    .declared(t, def.node.child_by_field_name("declarator"))
                    .map(|d| d.ty),
                (None, None) => Ok(Ty::Void),
            };
            self.frame_mut().bindings = saved;
            r?
        };
        let returns = count(body, "return_statement");
        let last_is_return = items(body).last().is_some_and(|s| s.kind() == "return_statement");
        self.frames.push(Frame {
            func: Some(f),
            bindings,
            this_ty: this.as_ref().map(|(_, s)| s.clone()),
            this: this.map(|(lv, _)| lv),
            ret: Ret::Last,
            loops: 0,
            assigned: super::stmt::assigned_names(self.prog, body),
            scope_base: self.scopes.len(),
            placeable: false,
            ret_value: None,
        });
        self.push_scope();
        let r = (|| -> R<Value> {
            self.bind_args(&params, argv, n)?;
            if returns > 1 || (returns == 1 && !last_is_return) {
                let span = self.span(n);
                let done = self.mutable_local(&format!("{}_done", def.name), Some(Expr::Int(0)), span);
                let result = if ret_ty == Ty::Void {
                    None
                } else {
                    Some(self.new_var(&format!("{}_ret", def.name), &ret_ty, span)?)
                };
                self.frame_mut().ret = Ret::Flag { done, result };
            }
            self.compound_items(body)?;
            Ok(match self.frame().ret.clone() {
                Ret::Flag { result: Some(r), .. } => self.read(&LVal::Var(r), n)?,
                Ret::Flag { result: None, .. } => Value::void(),
                _ => match self.frame_mut().ret_value.take() {
                    Some(v) => self.convert(v, &ret_ty, n)?,
                    None => arbitrary(&ret_ty),
                },
            })
        })();
        self.pop_scope();
        self.frames.pop();
        r
    }

    /// Binds the parameters of an inlined function to the argument values.
    fn bind_args(&mut self, params: &[Node<'t>], argv: Vec<Ref>, n: Node<'t>) -> R<()> {
        let mut argv = argv.into_iter();
        for p in params {
            let Some(t) = p.child_by_field_name("type") else {
                continue;
            };
            let d = self.declared(t, p.child_by_field_name("declarator"))?;
            let Some(name) = d.name.clone() else {
                argv.next();
                continue;
            };
            let arg = match argv.next() {
                Some(a) => a,
                None => match p.child_by_field_name("default_value") {
                    Some(dv) => Ref::V(self.rvalue(dv)?),
                    None => Ref::V(arbitrary(&d.ty)),
                },
            };
            let span = self.span(*p);
            let assigned = self.frame().assigned.contains(&name);
            let ty = match &d.ty {
                Ty::Array(e, _) => Ty::ptr((**e).clone()),
                t => t.clone(),
            };
            match arg {
                Ref::L(lv) if d.reference => {
                    self.add_var(&name, ty, VarKind::Ref(lv));
                }
                Ref::L(lv) => {
                    let v = self.read(&lv, n)?;
                    self.bind_value(&name, ty, v, assigned, span, n)?;
                }
                Ref::V(v) => self.bind_value(&name, ty, v, assigned, span, n)?,
            }
        }
        Ok(())
    }

    fn bind_value(
        &mut self,
        name: &str,
        ty: Ty,
        v: Value,
        assigned: bool,
        span: kpl::ir::Span,
        n: Node<'t>,
    ) -> R<()> {
        let v = self.convert(v, &ty, n)?;
        match (&v.v, &ty) {
            (V::Int(e), Ty::Int { .. }) if !assigned && self.stable(e) => {
                self.add_var(name, ty, VarKind::Fixed(e.clone()));
            }
            (V::Ptr(p), Ty::Ptr(_)) if !assigned && self.stable(&p.off) => {
                self.add_var(
                    name,
                    ty.clone(),
                    VarKind::Ptr {
                        target: Some(p.target),
                        off: Offset::Fixed(p.off.clone()),
                        unit: p.unit,
                    },
                );
            }
            (V::Ptr(p), Ty::Ptr(_)) => {
                let l = self.mutable_local(name, Some(p.off.clone()), span);
                self.add_var(
                    name,
                    ty.clone(),
                    VarKind::Ptr {
                        target: Some(p.target),
                        off: Offset::Local(l),
                        unit: p.unit,
                    },
                );
            }
            _ => {
                let id = self.new_var(name, &ty, span)?;
                self.write(&LVal::Var(id), v, n)?;
            }
        }
        Ok(())
    }

    /// The type a template type parameter gets from the arguments (`T x`, `T *p`).
    fn deduce(&self, param: &str, params: &[Node<'t>], argv: &[Ref]) -> Option<Ty> {
        for (p, a) in params.iter().zip(argv) {
            let t = p.child_by_field_name("type")?;
            if self.text(t) != param {
                continue;
            }
            let mut depth = 0;
            let mut d = p.child_by_field_name("declarator");
            while let Some(x) = d {
                if x.kind().contains("pointer") {
                    depth += 1;
                }
                d = x.child_by_field_name("declarator");
            }
            let mut ty = match a {
                Ref::V(v) => v.ty.clone(),
                Ref::L(lv) => self.lval_type(lv),
            };
            for _ in 0..depth {
                ty = ty.pointee()?.clone();
            }
            return Some(ty);
        }
        None
    }
}

fn count(n: Node, kind: &str) -> usize {
    (n.kind() == kind) as usize
        + named_children(n)
            .into_iter()
            .map(|c| count(c, kind))
            .sum::<usize>()
}
