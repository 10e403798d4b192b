//! Expressions: values (with their statements for memory accesses, calls and side
//! effects, in C's evaluation order) and l-values.

use tree_sitter::Node;

use super::{ArraySpace, LVal, Lowerer, Ptr, R, Target, V, Value, VarId, VarKind};
use super::{float, fold};
use crate::preprocess::int_literal;
use crate::program::{last_name, named_children};
use crate::types::{Binding, Ty, vector_type};
use kpl::ir::{BinOp, Builtin, Dim, Expr, StmtKind, UnOp};

/// An item of a flattened chain of binary operators.
#[derive(Clone, Copy, Debug)]
enum Flat<'t> {
    Operand(Node<'t>),
    Op(&'t str),
}

/// C precedence of the binary operators a chain is flattened over (higher binds tighter).
fn precedence(op: &str) -> u8 {
    match op {
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => 0,
    }
}

/// What a name or an expression denotes: a place, or just a value.
pub(super) enum Ref {
    L(LVal),
    V(Value),
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// The child expression of a parenthesized expression or argument list entry.
pub(super) fn strip_parens(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match named_children(n).into_iter().find(|c| c.kind() != "comment") {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

impl<'p, 't> Lowerer<'p, 't> {
    // ---- pointers and memory ----------------------------------------------------

    /// `p + count` elements of `bytes` bytes.
    pub fn advance(&self, p: &Ptr, count: Expr, bytes: u64) -> Ptr {
        if bytes == 0 || fold::int(&count) == Some(0) {
            return p.clone();
        }
        let u = p.unit.max(1) as u64;
        if bytes.is_multiple_of(u) {
            let step = (bytes / u) as i64;
            return Ptr {
                target: p.target,
                off: fold::add(p.off.clone(), fold::mul(count, Expr::Int(step))),
                unit: p.unit,
            };
        }
        let g = gcd(bytes, u);
        Ptr {
            target: p.target,
            off: fold::add(
                fold::mul(p.off.clone(), Expr::Int((u / g) as i64)),
                fold::mul(count, Expr::Int((bytes / g) as i64)),
            ),
            unit: g as u32,
        }
    }

    /// The cells of array `a` that a scalar of `bytes` bytes at `p` covers.
    pub(super) fn cells(&self, a: usize, p: &Ptr, bytes: u32) -> Vec<Expr> {
        let c = self.arrays[a].cell.max(1) as i64;
        let u = p.unit.max(1) as i64;
        let start = if u == c {
            p.off.clone()
        } else if u > c && u % c == 0 {
            fold::mul(p.off.clone(), Expr::Int(u / c))
        } else if c % u == 0 {
            fold::div(p.off.clone(), Expr::Int(c / u))
        } else {
            fold::div(fold::mul(p.off.clone(), Expr::Int(u)), Expr::Int(c))
        };
        let k = (bytes as i64 / c).max(1);
        (0..k).map(|j| fold::add(start.clone(), Expr::Int(j))).collect()
    }

    /// `*p` for a pointer value pointing at a `ty`.
    pub fn deref(&mut self, p: &Ptr, ty: Ty, n: Node<'t>) -> R<LVal> {
        match p.target {
            Target::Array(a) if self.arrays[a].space == ArraySpace::Private => Ok(LVal::Private(ty)),
            Target::Array(_) => Ok(LVal::Mem(p.clone(), ty)),
            Target::Var(v) if fold::int(&p.off) == Some(0) => Ok(LVal::Var(v)),
            // Another part of a variable (`float *p = &v.x; p[1]`, `((float *)&v4)[i]`):
            // not modelled, so the variable is taken as changed (every field arbitrary)
            // in case this is a write, and the part reads as arbitrary.
            Target::Var(v) => {
                let whole = self.outermost_var(v);
                self.overwrite_var(whole, n)?;
                Ok(LVal::Private(ty))
            }
            Target::Null => Err(self.unsupported(n, "dereferencing a null pointer", "")),
            Target::Unknown => Err(self.unsupported(
                n,
                "a pointer whose target cannot be determined",
                "autosync tracks pointers into kernel parameters, `__shared__` and `__device__` arrays; \
                 pointers loaded from memory or built from integers are not supported",
            )),
        }
    }

    /// The variable whose fields hold `v`, through every level of nesting (`v` itself
    /// when it is no field): what a pointer into `v` may reach past its end.
    fn outermost_var(&self, v: VarId) -> VarId {
        let mut cur = v;
        while let Some(parent) = self
            .vars
            .iter()
            .position(|x| matches!(&x.kind, VarKind::Struct(fields) if fields.contains(&cur)))
        {
            cur = parent;
        }
        cur
    }

    /// The value of a truth test: the expression, or a fresh arbitrary local (one
    /// value for the launch when the value is launch-uniform: `if (mean)` of a pointer
    /// parameter).
    pub fn truth(&mut self, v: Value, n: Node<'t>) -> Expr {
        let uniform = self.launch_uniform(&v);
        if let V::Float(e) = &v.v
            && let Some(c) = float::truth(e.clone(), &v.ty)
        {
            return c;
        }
        match v.v {
            V::Int(e) => e,
            V::Ptr(p) if p.target == Target::Null => Expr::Int(0),
            _ if uniform => self.uniform_param(kpl::IntTy::U8, Some((0, 1))),
            _ => Expr::Var(self.local("_c", None, self.span(n)).to_string()),
        }
    }

    /// An index expression (arbitrary values become a fresh arbitrary local).
    pub fn index(&mut self, v: Value, n: Node<'t>) -> Expr {
        match v.v {
            V::Int(e) => e,
            V::Uniform => self.uniform_param(kpl::IntTy::I64, None),
            _ => Expr::Var(self.local("_i", None, self.span(n))),
        }
    }

    /// The expression to store for a value: itself (a floating-point value's term), one
    /// unknown for the launch for a launch-uniform value, or a havocked scratch local.
    pub fn data(&mut self, v: &Value, n: Node<'t>) -> Expr {
        match &v.v {
            V::Int(e) | V::Float(e) => e.clone(),
            V::Uniform => self.uniform_value(),
            _ => {
                let s = self.scratch();
                self.emit(StmtKind::havoc(s.clone()), self.span(n));
                Expr::Var(s)
            }
        }
    }

    pub fn read(&mut self, lv: &LVal, n: Node<'t>) -> R<Value> {
        match lv {
            LVal::Var(id) => self.read_var(*id, n),
            LVal::Mem(p, ty) => self.read_mem(p, ty, n, None),
            LVal::Private(ty) => Ok(arbitrary(ty)),
        }
    }

    fn read_var(&mut self, id: usize, n: Node<'t>) -> R<Value> {
        let info = self.vars[id].clone();
        Ok(match info.kind {
            VarKind::Int(k) => Value::int(Expr::Var(k), info.ty),
            VarKind::Fixed(e) => Value::int(e, info.ty),
            VarKind::Arb => match self.held.get(&id) {
                Some(v) => v.clone(),
                None => Value::arb(info.ty),
            },
            VarKind::Texture => Value::arb(info.ty),
            VarKind::Float(k) => Value::float(Expr::Var(k), info.ty),
            // A floating-point kernel parameter: one unknown of the launch, named after it.
            VarKind::Uniform if float::tag(&info.ty).is_some() => {
                Value::float(Expr::Apply(format!("arg_{}", info.name), Vec::new()), info.ty)
            }
            VarKind::Uniform => Value::uniform(info.ty),
            VarKind::Ptr { target, off, unit } => Value {
                v: V::Ptr(Ptr {
                    target: target.unwrap_or(Target::Unknown),
                    off: match off {
                        super::Offset::Fixed(e) => e,
                        super::Offset::Local(l) => Expr::Var(l),
                    },
                    unit,
                }),
                ty: info.ty,
            },
            VarKind::Struct(fields) => {
                let mut vals = Vec::new();
                for f in fields {
                    vals.push(self.read_var(f, n)?);
                }
                Value {
                    v: V::Struct(vals),
                    ty: info.ty,
                }
            }
            VarKind::Array(target) => {
                let elem = info.ty.pointee().cloned().unwrap_or(Ty::Opaque("?".into()));
                let unit = match target {
                    Target::Array(a) => self.arrays[a].cell,
                    _ => elem.cell_bytes(),
                };
                Value {
                    v: V::Ptr(Ptr {
                        target,
                        off: Expr::Int(0),
                        unit,
                    }),
                    ty: Ty::ptr(elem),
                }
            }
            VarKind::Ref(lv) => self.read(&lv, n)?,
        })
    }

    /// Reads memory; `dest` receives a single integer read when given.
    pub fn read_mem(&mut self, p: &Ptr, ty: &Ty, n: Node<'t>, dest: Option<&str>) -> R<Value> {
        let Target::Array(a) = p.target else {
            let lv = self.deref(p, ty.clone(), n)?;
            return self.read(&lv, n);
        };
        match ty {
            Ty::Array(elem, _) => Ok(Value {
                v: V::Ptr(p.clone()),
                ty: Ty::ptr((**elem).clone()),
            }),
            Ty::Struct(s) => {
                let cb = ty.cell_bytes() as u64;
                let mut vals = Vec::new();
                let mut off = 0u64;
                for (_, f) in &s.fields {
                    let fp = self.advance(p, Expr::Int(off as i64), cb);
                    vals.push(self.read_member(&fp, f, cb, n)?);
                    off = off.saturating_add(f.cells());
                }
                Ok(Value {
                    v: V::Struct(vals),
                    ty: ty.clone(),
                })
            }
            _ => {
                let space = self.arrays[a].space;
                if matches!(space, ArraySpace::Private | ArraySpace::Constant) {
                    return Ok(arbitrary(ty));
                }
                let array = self.arrays[a].kpl.clone();
                let cells = self.cells(a, p, ty.first_leaf());
                let span = self.span(n);
                // A value that is exactly one cell is what the read returns; a part of a
                // cell, or several cells, is not (its bytes are not the cell's).
                let exact = cells.len() == 1 && ty.first_leaf() == self.arrays[a].cell;
                let int = ty.is_int() && exact;
                let float = matches!(ty, Ty::Float { .. }) && exact;
                let elem = element_type(ty).filter(|_| int);
                let var = match (int, dest) {
                    (true, Some(d)) => d.to_string(),
                    (true, None) => self.local("_t", None, span),
                    (false, _) if float => self.local("_f", None, span),
                    (false, _) => self.scratch(),
                };
                for index in cells {
                    self.emit(
                        StmtKind::Read {
                            var: var.clone(),
                            array: array.clone(),
                            index,
                            ty: elem,
                        },
                        span,
                    );
                }
                Ok(match ty {
                    Ty::Int { .. } | Ty::Bool if int => Value::int(Expr::Var(var), ty.clone()),
                    Ty::Float { .. } if float => Value::float(Expr::Var(var), ty.clone()),
                    Ty::Ptr(_) => Value {
                        v: V::Ptr(Ptr {
                            target: Target::Unknown,
                            off: Expr::Int(0),
                            unit: 1,
                        }),
                        ty: ty.clone(),
                    },
                    _ => arbitrary(ty),
                })
            }
        }
    }

    pub fn write(&mut self, lv: &LVal, val: Value, n: Node<'t>) -> R<()> {
        match lv {
            LVal::Var(id) => self.write_var(*id, val, n),
            LVal::Mem(p, ty) => self.write_mem(p, ty, val, n),
            LVal::Private(_) => Ok(()),
        }
    }

    fn write_var(&mut self, id: usize, val: Value, n: Node<'t>) -> R<()> {
        let info = self.vars[id].clone();
        let span = self.span(n);
        match info.kind {
            VarKind::Int(k) => {
                let val = self.convert(val, &info.ty, n)?;
                match val.v {
                    V::Int(e) => self.emit(StmtKind::Assign { var: k, value: e }, span),
                    _ => self.emit(StmtKind::havoc(k), span),
                }
            }
            VarKind::Float(k) => {
                let val = self.convert(val, &info.ty, n)?;
                match val.v {
                    V::Float(e) => self.emit(StmtKind::Assign { var: k, value: e }, span),
                    V::Uniform => {
                        let e = self.uniform_value();
                        self.emit(StmtKind::Assign { var: k, value: e }, span)
                    }
                    _ => self.emit(StmtKind::havoc(k), span),
                }
            }
            VarKind::Fixed(_) => {
                return Err(self.unsupported(
                    n,
                    &format!(
                        "assignment to `{}`, which autosync took for a constant",
                        info.name
                    ),
                    "declare it without `const`",
                ));
            }
            VarKind::Arb => {
                // An object of a type the file does not define keeps what it holds; the
                // holdings of every value ever stored in it (the table does not follow
                // control flow), none known after an untracked value.
                match val.v {
                    V::Struct(parts) => self.hold(id, parts),
                    V::Ptr(_) => self.hold(id, vec![val]),
                    _ => {
                        self.held.remove(&id);
                    }
                }
            }
            VarKind::Texture | VarKind::Uniform => {}
            VarKind::Ptr { target, off, unit } => {
                let p = match val.v {
                    V::Ptr(p) => p,
                    V::Int(e) if fold::int(&e) == Some(0) => Ptr {
                        target: Target::Null,
                        off: Expr::Int(0),
                        unit,
                    },
                    _ => Ptr {
                        target: Target::Unknown,
                        off: Expr::Int(0),
                        unit,
                    },
                };
                let mut off = off;
                let new_target = match (target, p.target) {
                    (_, Target::Null) => target.unwrap_or(Target::Null),
                    (None, t) | (Some(Target::Null), t) => t,
                    (Some(t), u) if t == u => t,
                    // Straight-line code after the declaration (`x = inp + row; ...;
                    // x = out + row;`), an assignment that is a statement of its own (no
                    // operand of another expression, whose other operands may be
                    // evaluated before or after it): from here on the pointer surely
                    // points into the new array. Its offset gets a local of its own, so
                    // that values taken from the pointer before keep their array and
                    // offset.
                    (Some(Target::Array(_)), u @ Target::Array(_))
                        if info.declared_in == (self.frames.len(), self.block())
                            && n.parent().is_some_and(|s| s.kind() == "expression_statement") =>
                    {
                        off = super::Offset::Local(self.mutable_local(&info.name, None, span));
                        u
                    }
                    (Some(t), u) => {
                        self.request_merge(t, u);
                        return Err(self.unsupported(
                            n,
                            &format!("pointer `{}` is made to point into different arrays", info.name),
                            "use one pointer per array (autosync tracks which array each pointer points into)",
                        ));
                    }
                };
                let super::Offset::Local(l) = off.clone() else {
                    return Err(self.unsupported(n, &format!("assignment to pointer `{}`", info.name), ""));
                };
                let value = if p.target == Target::Null {
                    Expr::Int(0)
                } else if p.unit == unit {
                    p.off
                } else if p.unit > unit && p.unit % unit == 0 {
                    fold::mul(p.off, Expr::Int((p.unit / unit) as i64))
                } else {
                    return Err(self.unsupported(
                        n,
                        &format!(
                            "pointer `{}` is assigned a pointer with a smaller element size",
                            info.name
                        ),
                        "",
                    ));
                };
                self.vars[id].kind = VarKind::Ptr {
                    target: Some(new_target),
                    off,
                    unit,
                };
                self.emit(StmtKind::Assign { var: l, value }, span);
            }
            VarKind::Struct(fields) => match val.v {
                V::Struct(vals) if vals.len() == fields.len() => {
                    for (f, v) in fields.into_iter().zip(vals) {
                        self.write_var(f, v, n)?;
                    }
                }
                _ => {
                    for f in fields {
                        let ty = self.vars[f].ty.clone();
                        self.write_var(f, arbitrary(&ty), n)?;
                    }
                }
            },
            // A private array (a field of a struct copied as a whole): not modelled, its
            // reads are arbitrary anyway.
            VarKind::Array(Target::Array(a)) if self.arrays[a].space == ArraySpace::Private => {}
            VarKind::Array(_) => {
                return Err(self.unsupported(n, "assignment to an array", ""));
            }
            VarKind::Ref(lv) => self.write(&lv, val, n)?,
        }
        Ok(())
    }

    fn write_mem(&mut self, p: &Ptr, ty: &Ty, val: Value, n: Node<'t>) -> R<()> {
        let Target::Array(a) = p.target else {
            let lv = self.deref(p, ty.clone(), n)?;
            return self.write(&lv, val, n);
        };
        match ty {
            Ty::Struct(s) => {
                let cb = ty.cell_bytes() as u64;
                let vals = match val.v {
                    V::Struct(vs) if vs.len() == s.fields.len() => vs,
                    _ => s.fields.iter().map(|(_, f)| arbitrary(f)).collect(),
                };
                let mut off = 0u64;
                for ((_, f), v) in s.fields.iter().zip(vals) {
                    let fp = self.advance(p, Expr::Int(off as i64), cb);
                    self.write_member(&fp, f, v, cb, n)?;
                    off = off.saturating_add(f.cells());
                }
                Ok(())
            }
            Ty::Array(..) => Err(self.unsupported(n, "assignment to an array", "")),
            _ => {
                match self.arrays[a].space {
                    ArraySpace::Private => return Ok(()),
                    ArraySpace::Constant => {
                        return Err(self.unsupported(
                            n,
                            "a write to `__constant__` memory in device code",
                            "the program is invalid: kernels can only read `__constant__` memory; \
                             write to a `__device__` or `__shared__` array instead",
                        ));
                    }
                    ArraySpace::Shared | ArraySpace::Global => {}
                }
                let val = self.convert(val, ty, n)?;
                let cells = self.cells(a, p, ty.first_leaf());
                // The value stored is the cell's new contents only when it is exactly one
                // cell: a part of a cell, or one of several cells, holds other bytes, so
                // two such stores are not known to store equal contents (arbitrary).
                let value = if cells.len() == 1 && ty.first_leaf() == self.arrays[a].cell {
                    self.data(&val, n)
                } else {
                    self.data(&Value::arb(ty.clone()), n)
                };
                let array = self.arrays[a].kpl.clone();
                let span = self.span(n);
                for index in cells {
                    self.emit(
                        StmtKind::Write {
                            array: array.clone(),
                            index,
                            value: value.clone(),
                        },
                        span,
                    );
                }
                Ok(())
            }
        }
    }

    // ---- conversions -------------------------------------------------------------

    /// A fresh scalar parameter of the kernel named after `hint`, of type `ty` (and within
    /// `range`, as a precondition): one value per launch. Kernel parameters, and untracked
    /// launch-uniform values where they become integers, are such parameters.
    pub fn scalar_param(&mut self, hint: &str, ty: kpl::IntTy, range: Option<(i64, i64)>) -> String {
        let name = self.fresh(hint);
        let v = Expr::Var(name.clone());
        if let Some((lo, hi)) = range {
            self.requires.push(Expr::bin(
                BinOp::And,
                Expr::bin(BinOp::Le, Expr::Int(lo), v.clone()),
                Expr::bin(BinOp::Le, v.clone(), Expr::Int(hi)),
            ));
        }
        self.params.push(kpl::ir::Param::Scalar {
            name: name.clone(),
            ty,
        });
        name
    }

    /// [`Lowerer::scalar_param`] as a value: an untracked launch-uniform value seen as an
    /// integer.
    fn uniform_param(&mut self, ty: kpl::IntTy, range: Option<(i64, i64)>) -> Expr {
        Expr::Var(self.scalar_param("_u", ty, range))
    }

    /// Whether a value is the same in every thread of the launch and every evaluation:
    /// launch-uniform untracked values, and integers over constants, launch sizes and
    /// kernel parameters.
    fn launch_uniform(&self, v: &Value) -> bool {
        match &v.v {
            V::Uniform => true,
            V::Int(e) | V::Float(e) => self.launch_uniform_int(e),
            // The null pointer, and a global or constant array (a pointer parameter) at
            // an offset all threads agree on: `mean != nullptr` is one truth for the
            // launch.
            V::Ptr(p) => {
                let global = match p.target {
                    Target::Null => true,
                    Target::Array(i) => self
                        .arrays
                        .get(i)
                        .is_some_and(|a| matches!(a.space, ArraySpace::Global | ArraySpace::Constant)),
                    _ => false,
                };
                global && self.launch_uniform_int(&p.off)
            }
            _ => false,
        }
    }

    fn launch_uniform_int(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.for_each_builtin(&mut |b| ok &= matches!(b, Builtin::Bdim(_) | Builtin::Gdim(_)));
        e.for_each_var(&mut |x| {
            ok &= self
                .params
                .iter()
                .any(|p| matches!(p, kpl::ir::Param::Scalar { name, .. } if name == x))
        });
        ok
    }

    /// A value converted to type `to` (casts, initialization, assignment).
    pub fn convert(&mut self, v: Value, to: &Ty, n: Node<'t>) -> R<Value> {
        if let Some(out) = self.float_conversion(&v, to) {
            return Ok(out);
        }
        let from = v.ty.clone();
        Ok(match (v.v, to) {
            (_, Ty::Void) => Value::void(),
            (x, Ty::Opaque(name)) if name == "auto" => Value { v: x, ty: from },
            (V::Uniform, Ty::Bool) => Value::int(self.uniform_param(kpl::IntTy::U8, Some((0, 1))), Ty::Bool),
            (V::Uniform, Ty::Int { .. }) => {
                let t = to.int_ty().unwrap_or_default();
                Value::int(self.uniform_param(t, None), to.clone())
            }
            (V::Uniform, Ty::Float { .. }) => Value::uniform(to.clone()),
            (V::Int(e), Ty::Float { .. }) if self.launch_uniform_int(&e) => Value::uniform(to.clone()),
            (V::Int(e), Ty::Bool) if from == Ty::Bool => Value::int(e, Ty::Bool),
            (V::Int(e), Ty::Bool) => Value::int(boolean(e), Ty::Bool),
            (V::Int(e), Ty::Int { .. }) => Value::int(convert_int(e, &from, to), to.clone()),
            (V::Int(e), Ty::Ptr(_)) => Value {
                v: V::Ptr(Ptr {
                    target: if fold::int(&e) == Some(0) {
                        Target::Null
                    } else {
                        Target::Unknown
                    },
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: to.clone(),
            },
            (V::Ptr(p), Ty::Ptr(_)) => Value {
                v: V::Ptr(p),
                ty: to.clone(),
            },
            (V::Struct(vals), Ty::Struct(s)) => {
                if from == *to {
                    Value {
                        v: V::Struct(vals),
                        ty: to.clone(),
                    }
                } else if vals.len() == s.fields.len() {
                    // An initializer list, or a struct of the same shape.
                    let mut out = Vec::new();
                    for (v, (_, f)) in vals.into_iter().zip(&s.fields) {
                        out.push(self.convert(v, f, n)?);
                    }
                    Value {
                        v: V::Struct(out),
                        ty: to.clone(),
                    }
                } else {
                    arbitrary(to)
                }
            }
            (V::Struct(_), Ty::Ptr(_)) if from.as_struct().is_some() => {
                return self.conversion_operator(from, to, n);
            }
            (x @ V::Ptr(_), Ty::Array(..)) => Value { v: x, ty: from },
            (_, t) => arbitrary(t),
        })
    }

    // ---- expressions -------------------------------------------------------------

    pub fn rvalue(&mut self, n: Node<'t>) -> R<Value> {
        match self.expr(n)? {
            Ref::V(v) => Ok(v),
            Ref::L(lv) => self.read(&lv, n),
        }
    }

    pub fn lvalue(&mut self, n: Node<'t>) -> R<LVal> {
        let n = strip_parens(n);
        if n.kind() == "identifier"
            && self.lookup(self.text(n)).is_none()
            && self.member(self.text(n), n)?.is_none()
        {
            let name = self.text(n);
            if self.global(name, n)?.is_none() {
                return Err(self.unsupported(
                    n,
                    &format!("`{name}` is not declared in this file"),
                    "declare it, or pass the folder of the header that does with -I",
                ));
            }
        }
        match self.expr(n)? {
            Ref::L(lv) => Ok(lv),
            Ref::V(_) => {
                Err(self.unsupported(n, "assignment to something that is not a variable or memory", ""))
            }
        }
    }

    /// The value of `n`, with a single integer read going straight into `dest` (for
    /// `int x = A[i];`): `Some(Int(dest))` then. `None` when `n` is not a read of memory
    /// (nothing was evaluated).
    pub fn read_into(&mut self, n: Node<'t>, dest: &str) -> R<Option<Value>> {
        let n = strip_parens(n);
        if !matches!(
            n.kind(),
            "subscript_expression" | "field_expression" | "pointer_expression"
        ) {
            return Ok(None);
        }
        if n.kind() == "pointer_expression" && self.text(n).trim_start().starts_with('&') {
            return Ok(None);
        }
        Ok(Some(match self.expr(n)? {
            Ref::L(LVal::Mem(p, ty)) if ty.is_int() => self.read_mem(&p, &ty, n, Some(dest))?,
            Ref::L(lv) => self.read(&lv, n)?,
            Ref::V(v) => v,
        }))
    }

    pub(super) fn expr(&mut self, n: Node<'t>) -> R<Ref> {
        let t = self.text(n);
        Ok(match n.kind() {
            "parenthesized_expression" => return self.expr(strip_parens(n)),
            "number_literal" => Ref::V(number(t)),
            "char_literal" => Ref::V(Value::int(
                Expr::Int(int_literal(t).unwrap_or(0)),
                Ty::Int {
                    bytes: 1,
                    signed: true,
                },
            )),
            "true" => Ref::V(Value::int(Expr::Int(1), Ty::BOOL)),
            "false" => Ref::V(Value::int(Expr::Int(0), Ty::BOOL)),
            "null" | "nullptr" => Ref::V(null()),
            "string_literal" | "concatenated_string" | "raw_string_literal" => Ref::V(Value {
                v: V::Ptr(Ptr {
                    target: Target::Unknown,
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: Ty::ptr(Ty::Int {
                    bytes: 1,
                    signed: true,
                }),
            }),
            "identifier" => self.name(t, n)?,
            // A variable's name where the parser expected a type (`T obj(temp);`).
            "type_identifier" if self.lookup(t).is_some() || self.prog.globals.contains_key(t) => {
                self.name(t, n)?
            }
            "qualified_identifier" if let Some(v) = self.scoped_constant(n) => Ref::V(v),
            "qualified_identifier" => {
                let name = last_name(n, self.prog.src);
                self.name(&name, n)?
            }
            "this" => Ref::V(self.this_ptr(n)?),
            "field_expression" => self.field_expr(n)?,
            "subscript_expression" => Ref::L(self.subscript(n)?),
            "pointer_expression" => self.pointer_expr(n)?,
            "unary_expression" => Ref::V(self.unary_expr(n)?),
            "binary_expression" | "cast_expression" if self.has_mistaken_cast(n) => Ref::V(self.reparse(n)?),
            "binary_expression" => Ref::V(self.binary_expr(n)?),
            "assignment_expression" => Ref::V(self.assignment(n)?),
            "update_expression" => Ref::V(self.update(n)?),
            "conditional_expression" => Ref::V(self.conditional(n)?),
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.rvalue(l)?;
                }
                let r = n
                    .child_by_field_name("right")
                    .ok_or_else(|| self.unsupported(n, "expression", ""))?;
                return self.expr(r);
            }
            "cast_expression" => Ref::V(self.cast(n)?),
            "sizeof_expression" | "alignof_expression" => Ref::V(self.size_of(n)?),
            "call_expression" => self.returned_place(n, |l| l.call(n))?,
            "initializer_list" => Ref::V(self.initializer_list(n)?),
            "compound_literal_expression" => Ref::V(self.compound_literal(n)?),
            "user_defined_literal" => Ref::V(Value::arb(Ty::Opaque("literal".into()))),
            "offsetof_expression" => Ref::V(Value::arb(Ty::UINT)),
            "template_function" => {
                return Err(self.unsupported(n, "a function used as a value", "call it instead"));
            }
            "lambda_expression" => return Err(self.unsupported(n, "lambda expressions", "")),
            "new_expression" => Ref::V(self.new_expression(n)?),
            "delete_expression" => Ref::V(self.delete_expression(n)?),
            "throw_expression" => return Err(self.unsupported(n, "exceptions", "")),
            "gnu_asm_expression" => Ref::V(self.inline_asm(n)?),
            other => return Err(self.unsupported(n, &format!("expression `{other}`"), "")),
        })
    }

    /// The result of a call `n` lowered by `call`: the place it names when the function
    /// inlined for `n` returns a reference (so that `v[k] = x` and `T &r = f()` write
    /// where the function points), else its value.
    pub(super) fn returned_place(&mut self, n: Node<'t>, call: impl FnOnce(&mut Self) -> R<Value>) -> R<Ref> {
        let outer = self.ref_call.replace((n.id(), None));
        let v = call(self);
        let got = std::mem::replace(&mut self.ref_call, outer);
        let v = v?;
        Ok(match got {
            Some((id, Some(place))) if id == n.id() => Ref::L(place),
            _ => Ref::V(v),
        })
    }

    /// `this`: a pointer to the object a method was called on (to an unknown place
    /// when the object is a private array element).
    fn this_ptr(&mut self, n: Node<'t>) -> R<Value> {
        let Some(this) = self.frame().this.clone() else {
            return Err(self.unsupported(n, "`this` outside a method", ""));
        };
        let ty = self
            .frame()
            .this_ty
            .clone()
            .map(Ty::Struct)
            .unwrap_or(Ty::Opaque("this".into()));
        let p = match this {
            LVal::Var(v) => Ptr {
                target: Target::Var(v),
                off: Expr::Int(0),
                unit: 1,
            },
            LVal::Mem(p, _) => p,
            LVal::Private(_) => Ptr {
                target: Target::Unknown,
                off: Expr::Int(0),
                unit: 1,
            },
        };
        Ok(Value {
            v: V::Ptr(p),
            ty: Ty::ptr(ty),
        })
    }

    /// `&e` (an address, a value) or `*e` (the place it points to).
    fn pointer_expr(&mut self, n: Node<'t>) -> R<Ref> {
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "expression", ""))?;
        Ok(if self.text(n).trim_start().starts_with('&') {
            let inner = strip_parens(arg);
            if inner.kind() == "identifier"
                && self.lookup(self.text(inner)).is_none()
                && let Some(f) = self.function_value(self.text(inner))
            {
                return Ok(Ref::V(f)); // `&f`: a function pointer (`call::fnptr`)
            }
            let lv = self.lvalue(arg)?;
            Ref::V(self.address_of(lv))
        } else {
            let pv = self.rvalue(arg)?;
            Ref::L(self.deref_value(pv, n)?)
        })
    }

    /// `-e`, `!e`, `~e`, `+e`: an operation on the operand's value.
    fn unary_expr(&mut self, n: Node<'t>) -> R<Value> {
        let op = n
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or("");
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "expression", ""))?;
        if matches!(op, "-" | "+" | "!" | "~") {
            let operand = self.expr(arg)?;
            let v = match self.user_operator(op, vec![operand], n)? {
                Ok(result) => return self.ref_value(result, n),
                Err(mut operands) => match operands.pop() {
                    Some(a) => self.ref_value(a, arg)?,
                    None => return Err(self.unsupported(n, "expression", "")),
                },
            };
            return Ok(unary(op, v, self.opts.wrap));
        }
        let v = self.rvalue(arg)?;
        Ok(unary(op, v, self.opts.wrap))
    }

    /// `(T) e`: the operand's value converted to `T`.
    fn cast(&mut self, n: Node<'t>) -> R<Value> {
        let ty_node = n
            .child_by_field_name("type")
            .ok_or_else(|| self.unsupported(n, "cast", ""))?;
        let to = self.type_descriptor(ty_node)?;
        let value = n
            .child_by_field_name("value")
            .ok_or_else(|| self.unsupported(n, "cast", ""))?;
        let v = self.rvalue(value)?;
        self.convert(v, &to, n)
    }

    /// `sizeof` and `alignof` (of a type, or of an expression's type without its
    /// effects): a constant `size_t`.
    fn size_of(&mut self, n: Node<'t>) -> R<Value> {
        let ty = if let Some(tn) = n.child_by_field_name("type") {
            self.type_descriptor(tn)?
        } else if let Some(v) = n.child_by_field_name("value") {
            self.in_block(|l| l.type_of(v))?.0
        } else {
            Ty::Opaque("?".into())
        };
        let (size, align) = ty.layout();
        let value = if n.kind() == "sizeof_expression" {
            size
        } else {
            align
        };
        Ok(Value::int(
            Expr::Int(value as i64),
            Ty::Int {
                bytes: 8,
                signed: false,
            },
        ))
    }

    /// The type of the operand of `sizeof`/`alignof`: an expression's type without array
    /// decay (`sizeof(a)` of `int a[10]` is 40), or the type a name denotes when the
    /// parser took a type name for a value (`sizeof(float4)`, `sizeof(P3)`).
    fn type_of(&mut self, v: Node<'t>) -> R<Ty> {
        let inner = strip_parens(v);
        if matches!(inner.kind(), "identifier" | "type_identifier") {
            let name = self.text(inner);
            if self.lookup(name).is_none()
                && !matches!(self.binding(name), Some(Binding::Value(_)))
                && self.member(name, inner)?.is_none()
                && self.enumerator(name, 0).is_none()
                && self.global(name, inner)?.is_none()
            {
                let t = self.named_type_of_text(name)?;
                if !matches!(&t, Ty::Opaque(o) if crate::types::opaque_scalar_bytes(o).is_none()) {
                    return Ok(t);
                }
            }
        }
        Ok(match self.expr(v)? {
            Ref::V(v) => v.ty,
            Ref::L(LVal::Var(id)) => self.vars[id].ty.clone(),
            Ref::L(LVal::Mem(_, t) | LVal::Private(t)) => t,
        })
    }

    /// `{a, b, ...}`: the values of its elements, to be converted by the declaration or
    /// assignment that uses it.
    fn initializer_list(&mut self, n: Node<'t>) -> R<Value> {
        let mut vals = Vec::new();
        for c in named_children(n) {
            if c.kind() != "comment" {
                vals.push(self.rvalue(c)?);
            }
        }
        Ok(Value {
            v: V::Struct(vals),
            ty: Ty::Opaque("initializer list".into()),
        })
    }

    /// `(T){...}`: its value converted to `T`.
    fn compound_literal(&mut self, n: Node<'t>) -> R<Value> {
        let to = match n.child_by_field_name("type") {
            Some(tn) => self.type_descriptor(tn)?,
            None => Ty::Opaque("?".into()),
        };
        let v = match n.child_by_field_name("value") {
            Some(v) => self.rvalue(v)?,
            None => arbitrary(&to),
        };
        self.convert(v, &to, n)
    }

    // ---- `(i) + (j)`: casts that are not casts -----------------------------------

    /// Whether `name` names a type here.
    fn is_type_name(&self, name: &str) -> bool {
        matches!(self.binding(name), Some(Binding::Type(_)))
            || self.lookup_alias(name).is_some()
            || self.prog.aliases.contains_key(name)
            || self.prog.structs_by_name.contains_key(name)
            || crate::types::builtin_scalar(name).is_some()
            || vector_type(name).is_some()
    }

    /// `(i) + x`, `(i) - x`, `(i) * x`, `(i) & x` where `i` is not a type: the parser,
    /// which does not know which names are types, read a binary operator as a cast of a
    /// unary one (macros like `#define IDX(i, j) ((i) + (j) * W)` write this a lot).
    /// Returns the name, the operator and its right operand.
    fn mistaken_cast(&self, n: Node<'t>) -> Option<(Node<'t>, &'t str, Node<'t>)> {
        if n.kind() != "cast_expression" {
            return None;
        }
        let td = n.child_by_field_name("type")?;
        if td.child_by_field_name("declarator").is_some() {
            return None;
        }
        let name = td.child_by_field_name("type")?;
        if name.kind() != "type_identifier" || self.is_type_name(self.text(name)) {
            return None;
        }
        let value = n.child_by_field_name("value")?;
        if !matches!(value.kind(), "unary_expression" | "pointer_expression") {
            return None;
        }
        let op = self.text(value.child_by_field_name("operator")?);
        if !matches!(op, "+" | "-" | "*" | "&") {
            return None;
        }
        Some((name, op, value.child_by_field_name("argument")?))
    }

    fn has_mistaken_cast(&self, n: Node<'t>) -> bool {
        match n.kind() {
            "cast_expression" => self.mistaken_cast(n).is_some(),
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map_or("", |o| self.text(o));
                op != "&&"
                    && op != "||"
                    && [n.child_by_field_name("left"), n.child_by_field_name("right")]
                        .into_iter()
                        .flatten()
                        .any(|c| self.has_mistaken_cast(c))
            }
            _ => false,
        }
    }

    /// The operands and operators of a chain of binary operators, undoing mistaken casts.
    fn flatten(&self, n: Node<'t>, out: &mut Vec<Flat<'t>>) {
        if let Some((name, op, arg)) = self.mistaken_cast(n) {
            out.push(Flat::Operand(name));
            out.push(Flat::Op(op));
            return self.flatten(arg, out);
        }
        let op = n.child_by_field_name("operator").map_or("", |o| self.text(o));
        match (
            n.kind(),
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) {
            ("binary_expression", Some(l), Some(r)) if op != "&&" && op != "||" => {
                self.flatten(l, out);
                out.push(Flat::Op(op));
                self.flatten(r, out);
            }
            _ => out.push(Flat::Operand(n)),
        }
    }

    /// Evaluates a chain of binary operators with C precedence.
    fn reparse(&mut self, n: Node<'t>) -> R<Value> {
        let mut items = Vec::new();
        self.flatten(n, &mut items);
        let mut operands: Vec<Value> = Vec::new();
        let mut ops: Vec<&str> = Vec::new();
        for item in items {
            match item {
                Flat::Operand(x) if x.kind() == "type_identifier" => {
                    let name = self.text(x).to_string();
                    let v = match self.name(&name, x)? {
                        Ref::V(v) => v,
                        Ref::L(lv) => self.read(&lv, x)?,
                    };
                    operands.push(v);
                }
                Flat::Operand(x) => {
                    let v = self.rvalue(x)?;
                    operands.push(v);
                }
                Flat::Op(op) => {
                    while let Some(top) = ops.last() {
                        if precedence(top) < precedence(op) {
                            break;
                        }
                        let top = ops.pop().unwrap_or("+");
                        self.reduce(top, &mut operands);
                    }
                    ops.push(op);
                }
            }
        }
        while let Some(top) = ops.pop() {
            self.reduce(top, &mut operands);
        }
        operands
            .pop()
            .ok_or_else(|| self.unsupported(n, "expression", ""))
    }

    fn reduce(&mut self, op: &str, operands: &mut Vec<Value>) {
        let b = operands.pop().unwrap_or(Value::arb(Ty::INT));
        let a = operands.pop().unwrap_or(Value::arb(Ty::INT));
        operands.push(self.binary(op, a, b));
    }

    /// Whether `name` means nothing the front end knows here (no variable, constant,
    /// enumerator or function: a macro of a header that was not read?).
    pub(super) fn names_nothing(&mut self, name: &str, n: Node<'t>) -> R<bool> {
        Ok(matches!(self.name(name, n)?, Ref::V(Value { ty: Ty::Opaque(t), .. }) if t == name))
    }

    /// What a name means here.
    fn name(&mut self, name: &str, n: Node<'t>) -> R<Ref> {
        if let Some(v) = self.lookup(name) {
            return Ok(Ref::L(LVal::Var(v)));
        }
        if let Some(Binding::Value(e)) = self.binding(name) {
            return Ok(Ref::V(Value::int(e, Ty::INT)));
        }
        if let Some(lv) = self.member(name, n)? {
            return Ok(Ref::L(lv));
        }
        let builtin = dim3;
        let v = match name {
            "threadIdx" => builtin(Builtin::Tid),
            "blockIdx" => builtin(Builtin::Bid),
            "blockDim" => builtin(Builtin::Bdim),
            "gridDim" => builtin(Builtin::Gdim),
            "warpSize" => Value::int(Expr::Int(32), Ty::INT),
            "NULL" => null(),
            _ => {
                if let Some(v) = self.enumerator(name, 0) {
                    return Ok(Ref::V(Value::int(Expr::Int(v), Ty::INT)));
                }
                if let Some(lv) = self.global(name, n)? {
                    return Ok(Ref::L(lv));
                }
                if let Some(f) = self.function_value(name) {
                    return Ok(Ref::V(f)); // a function pointer (`call::fnptr`)
                }
                if let Some(c) = known_constant(name) {
                    return Ok(Ref::V(c));
                }
                self.undeclared_in_incomplete_file(name, n)?;
                self.note(format!(
                    "`{name}` is not defined in this file (a macro or constant from a header that was not \
                     read?): its value is taken as arbitrary"
                ));
                Value::arb(Ty::Opaque(name.to_string()))
            }
        };
        Ok(Ref::V(v))
    }

    /// The value of an enumerator.
    /// The value of the enumerator `name`, when the front end can evaluate it.
    pub fn enumerator_value(&mut self, name: &str) -> Option<i64> {
        self.enumerator(name, 0)
    }

    fn enumerator(&mut self, name: &str, depth: usize) -> Option<i64> {
        let (value, prev) = self.prog.enumerators.get(name).cloned()?;
        if depth > 64 {
            return None;
        }
        match value {
            Some(v) => self.const_eval(v),
            None => match prev {
                Some(p) => self.enumerator(&p, depth + 1).map(|x| x + 1),
                None => Some(0),
            },
        }
    }

    /// A field of `this` inside a method.
    fn member(&mut self, name: &str, n: Node<'t>) -> R<Option<LVal>> {
        let (Some(this), Some(ty)) = (self.frame().this.clone(), self.frame().this_ty.clone()) else {
            return Ok(None);
        };
        if !ty.fields.iter().any(|(f, _)| f == name) {
            return Ok(None);
        }
        self.field_of(this, name, n).map(Some)
    }

    pub(super) fn address_of(&self, lv: LVal) -> Value {
        match lv {
            LVal::Var(v) if matches!(self.vars[v].kind, VarKind::Ref(_)) => match self.vars[v].kind.clone() {
                VarKind::Ref(inner) => self.address_of(inner),
                _ => unreachable!("matched a reference"),
            },
            LVal::Var(v) => {
                let ty = self.vars[v].ty.clone();
                Value {
                    v: V::Ptr(Ptr {
                        target: Target::Var(v),
                        off: Expr::Int(0),
                        unit: ty.size_of().max(1) as u32,
                    }),
                    ty: Ty::ptr(ty),
                }
            }
            LVal::Mem(p, ty) => Value {
                v: V::Ptr(p),
                ty: Ty::ptr(ty),
            },
            LVal::Private(ty) => Value {
                v: V::Ptr(Ptr {
                    target: Target::Unknown,
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: Ty::ptr(ty),
            },
        }
    }

    /// `*v` for a pointer value.
    pub(super) fn deref_value(&mut self, v: Value, n: Node<'t>) -> R<LVal> {
        let pointee = v.ty.pointee().cloned().unwrap_or(Ty::Opaque("?".into()));
        match v.v {
            V::Ptr(p) => self.deref(&p, pointee, n),
            _ => Err(self.unsupported(n, "dereferencing something that is not a known pointer", "")),
        }
    }

    fn subscript(&mut self, n: Node<'t>) -> R<LVal> {
        let base = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "subscript", ""))?;
        let idx = n
            .child_by_field_name("indices")
            .and_then(|l| named_children(l).into_iter().find(|c| c.kind() != "comment"))
            .or_else(|| n.child_by_field_name("index"))
            .ok_or_else(|| self.unsupported(n, "subscript", ""))?;
        let base_ref = self.expr(base)?;
        let base_ref = match self.subscript_operator(base_ref, idx, n)? {
            Ok(place) => return Ok(place),
            Err(base_ref) => base_ref,
        };
        let bv = match base_ref {
            Ref::V(v) => v,
            Ref::L(lv) => {
                let union = match &lv {
                    LVal::Var(id) => self.vars[*id].ty.is_union(),
                    LVal::Mem(_, ty) | LVal::Private(ty) => ty.is_union(),
                };
                if union {
                    // An array member of a union: part of the union's one cell.
                    self.rvalue(idx)?;
                    return Ok(lv);
                }
                if let LVal::Private(Ty::Array(elem, _)) = &lv {
                    // A row of an array in thread-private memory (`q.p[4][i]` of a
                    // struct passed by value): private too.
                    let elem = (**elem).clone();
                    self.rvalue(idx)?;
                    return Ok(LVal::Private(elem));
                }
                self.read(&lv, base)?
            }
        };
        let iv = self.rvalue(idx)?;
        if !bv.ty.is_pointer_like() {
            if let V::Ptr(_) = bv.v {
            } else {
                return Err(self.unsupported(
                    n,
                    "subscript of something that is not an array or pointer",
                    "",
                ));
            }
        }
        let elem = bv.ty.pointee().cloned().unwrap_or(Ty::Opaque("?".into()));
        let i = self.index(iv, idx);
        let V::Ptr(p) = bv.v else {
            return Err(self.unsupported(n, "subscript of something that is not a known pointer", ""));
        };
        let q = self.advance(&p, i, elem.size_of());
        self.deref(&q, elem, n)
    }

    fn field_expr(&mut self, n: Node<'t>) -> R<Ref> {
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "field", ""))?;
        let field = n
            .child_by_field_name("field")
            .ok_or_else(|| self.unsupported(n, "field", ""))?;
        let name = last_name(field, self.prog.src);
        let arrow = n
            .child_by_field_name("operator")
            .is_some_and(|o| self.text(o) == "->");
        let base = if arrow {
            let pv = self.rvalue(arg)?;
            Ref::L(self.deref_value(pv, n)?)
        } else {
            self.expr(arg)?
        };
        match base {
            Ref::L(lv) => Ok(Ref::L(self.field_of(lv, &name, n)?)),
            Ref::V(v) => Ok(Ref::V(self.field_of_value(v, &name, n)?)),
        }
    }

    pub(super) fn field_of(&mut self, lv: LVal, name: &str, n: Node<'t>) -> R<LVal> {
        match lv {
            LVal::Var(id) => match self.vars[id].kind.clone() {
                VarKind::Struct(fields) => {
                    let ty = self.vars[id].ty.clone();
                    match ty.field(name) {
                        Some((i, _, _)) if i < fields.len() => Ok(LVal::Var(fields[i])),
                        _ => self.static_member(&ty, name, n),
                    }
                }
                VarKind::Ref(inner) => self.field_of(inner, name, n),
                _ => Ok(LVal::Private(Ty::Opaque(name.to_string()))),
            },
            LVal::Mem(p, ty) => match &ty {
                Ty::Struct(_) => {
                    let Some((_, off, fty)) = ty.field(name) else {
                        return self.static_member(&ty, name, n);
                    };
                    let fty = fty.clone();
                    let q = self.advance(&p, Expr::Int(off as i64), ty.cell_bytes() as u64);
                    Ok(LVal::Mem(q, fty))
                }
                // A field of an element whose type is unknown: the whole element.
                _ => Ok(LVal::Mem(p, ty)),
            },
            LVal::Private(ty) => Ok(LVal::Private(
                ty.field(name)
                    .map(|(_, _, t)| t.clone())
                    .unwrap_or(Ty::Opaque(name.into())),
            )),
        }
    }

    fn field_of_value(&mut self, v: Value, name: &str, n: Node<'t>) -> R<Value> {
        match (v.v, v.ty.field(name)) {
            (V::Struct(vals), Some((i, _, _))) if i < vals.len() => Ok(vals[i].clone()),
            (_, Some((_, _, t))) => Ok(arbitrary(t)),
            _ if v.ty.as_struct().is_some() => self
                .static_member(&v.ty, name, n)
                .and_then(|lv| self.read(&lv, n)),
            _ => Ok(Value::arb(Ty::Opaque(name.to_string()))),
        }
    }

    /// `obj.size` naming a static constant of the struct (`static constexpr int size`):
    /// its value, a constant place.
    fn static_member(&mut self, ty: &Ty, name: &str, n: Node<'t>) -> R<LVal> {
        match ty.as_struct().and_then(|s| s.constant(name)) {
            Some(k) => Ok(LVal::Var(self.hidden_var(
                name,
                Ty::INT,
                VarKind::Fixed(Expr::Int(k)),
            ))),
            None => Err(self.no_field(ty, name, n)),
        }
    }

    /// `T::name` for a struct type `T` with a static constant `name` (`x128::size`,
    /// `Packed128<float>::size`).
    fn scoped_constant(&mut self, n: Node<'t>) -> Option<Value> {
        let scope = n.child_by_field_name("scope")?;
        let name = n.child_by_field_name("name")?;
        if name.kind() != "identifier" {
            return None;
        }
        let ty: Ty = match scope.kind() {
            "template_type" => self.base_type(scope).ok()?,
            // The parser reads `x128::size` with a namespace as scope: a type only if
            // the file (or the template being instantiated) names one so.
            "namespace_identifier" | "type_identifier" => {
                let t = self.text(scope);
                if self.prog.aliases.contains_key(t) && !self.prog.alias_is_unique(t) {
                    // Declared more than once (in a function, in namespaces): which one
                    // this is, autosync does not resolve.
                    return Some(Value::arb(Ty::INT));
                }
                let known = self.prog.aliases.contains_key(t)
                    || self.prog.structs_by_name.contains_key(t)
                    || self.lookup_alias(t).is_some()
                    || matches!(self.binding(t), Some(Binding::Type(_)));
                if !known {
                    return None;
                }
                match self.binding(t) {
                    Some(Binding::Type(ty)) => ty,
                    _ => self.named_type_of_text(t).ok()?,
                }
            }
            _ => return None,
        };
        // A struct's member that is not one of its constants (inherited, not evaluable,
        // not `const`): arbitrary, never another variable of that name.
        let st = ty.as_struct()?;
        let k = st.constant(self.text(name));
        let own_enumerator = st
            .def
            .is_some_and(|d| declares_enumerator(self.prog.structs[d].node, self.text(name), self.prog.src));
        if k.is_none() && own_enumerator {
            return None; // an enumerator of an enum inside the struct
        }
        Some(k.map_or(Value::arb(Ty::INT), |k| Value::int(Expr::Int(k), Ty::INT)))
    }

    fn no_field(&self, ty: &Ty, name: &str, n: Node<'t>) -> crate::CudaError {
        self.prog.error(
            crate::ErrorKind::Unsupported,
            n,
            format!("`{ty}` has no field `{name}`"),
        )
    }

    /// The operator (or `default`) and the two operands of a binary or assignment node.
    fn operands(&self, n: Node<'t>, default: &'t str, what: &str) -> R<(&'t str, Node<'t>, Node<'t>)> {
        let op = n
            .child_by_field_name("operator")
            .map_or(default, |o| self.text(o));
        let side = |name| {
            n.child_by_field_name(name)
                .ok_or_else(|| self.unsupported(n, what, ""))
        };
        Ok((op, side("left")?, side("right")?))
    }

    fn binary_expr(&mut self, n: Node<'t>) -> R<Value> {
        let (op, l, r) = self.operands(n, "", "expression")?;
        // `(T) - x` with `T` a type is a cast of `-x` that the parser read as a
        // subtraction.
        let inner = strip_parens(l);
        if l.kind() == "parenthesized_expression"
            && inner.kind() == "identifier"
            && (op == "-" || op == "+")
            && self.lookup(self.text(inner)).is_none()
            && self.is_type_name(self.text(inner))
        {
            let to = self.named_type_of_text(self.text(inner))?;
            let v = self.rvalue(r)?;
            let v = unary(op, v, self.opts.wrap);
            return self.convert(v, &to, n);
        }
        if op == "&&" || op == "||" {
            return self.logical(op, l, r, n);
        }
        // The file's operator when an operand is a struct ([`Lowerer::user_operator`]).
        let operands = vec![self.expr(l)?, self.expr(r)?];
        match self.user_operator(op, operands, n)? {
            Ok(result) => self.ref_value(result, n),
            Err(operands) => {
                let [a, b] =
                    <[Ref; 2]>::try_from(operands).map_err(|_| self.unsupported(n, "operands", ""))?;
                let a = self.ref_value(a, l)?;
                let b = self.ref_value(b, r)?;
                Ok(self.binary(op, a, b))
            }
        }
    }

    /// The value of what an expression denotes (a place is read).
    pub(super) fn ref_value(&mut self, r: Ref, n: Node<'t>) -> R<Value> {
        match r {
            Ref::V(v) => Ok(v),
            Ref::L(lv) => self.read(&lv, n),
        }
    }

    /// `a && b`, `a || b`: the right side runs only when needed.
    fn logical(&mut self, op: &str, l: Node<'t>, r: Node<'t>, n: Node<'t>) -> R<Value> {
        let a = self.rvalue(l)?;
        let (b, stmts) = self.in_block(|lw| lw.rvalue(r))?;
        let and = op == "&&";
        if stmts.is_empty() {
            return Ok(match (&a.v, &b.v) {
                (V::Int(x), V::Int(y)) => {
                    if let Some(c) = fold::int(x) {
                        // Constant left side: the result is the right side's truth (or fixed).
                        if (c != 0) == and {
                            Value::int(boolean(y.clone()), Ty::BOOL)
                        } else {
                            Value::int(Expr::Int(!and as i64), Ty::BOOL)
                        }
                    } else {
                        Value::int(
                            fold::bin(if and { BinOp::And } else { BinOp::Or }, x.clone(), y.clone()),
                            Ty::BOOL,
                        )
                    }
                }
                // An operand the lowering does not track is an unknown truth of its own
                // (launch-uniform when the operand is), and the other one stays exact:
                // `threadIdx.x == 0 && p != nullptr` still holds for thread 0 only.
                _ => {
                    let (x, y) = (self.truth(a.clone(), l), self.truth(b.clone(), r));
                    let (x, y) = (boolean(x), boolean(y));
                    Value::int(
                        fold::bin(if and { BinOp::And } else { BinOp::Or }, x, y),
                        Ty::BOOL,
                    )
                }
            });
        }
        // t = a; if (t) { b...; t = b } (for &&), if (!t) { ... } (for ||)
        let span = self.span(n);
        let init = match &a.v {
            V::Int(e) => Some(boolean(e.clone())),
            _ => None,
        };
        if let Some(c) = init.as_ref().and_then(fold::int) {
            if (c != 0) != and {
                return Ok(Value::int(Expr::Int(c), Ty::BOOL));
            }
            self.extend(stmts);
            return Ok(match b.v {
                V::Int(y) => Value::int(boolean(y), Ty::BOOL),
                _ => Value::arb(Ty::BOOL),
            });
        }
        let t = self.mutable_local("_b", init, span);
        let mut then = stmts;
        let assign = match b.v {
            V::Int(y) => StmtKind::Assign {
                var: t.clone(),
                value: boolean(y),
            },
            _ => StmtKind::havoc(t.clone()),
        };
        then.push(self.made_stmt(assign, span));
        let cond = if and {
            Expr::Var(t.clone())
        } else {
            fold::not(Expr::Var(t.clone()))
        };
        let blk = self.made_block(then, span);
        self.emit(
            StmtKind::If {
                cond,
                then_blk: blk,
                else_blk: None,
            },
            span,
        );
        Ok(Value::int(Expr::Var(t), Ty::BOOL))
    }

    /// A statement the lowering makes up (no place in the source).
    pub fn made_stmt(&self, kind: StmtKind, span: kpl::ir::Span) -> kpl::ir::Stmt {
        kpl::ir::Stmt {
            id: kpl::ir::StmtId(0),
            kind,
            span,
            place: kpl::ir::Place::Nowhere,
        }
    }

    /// A binary operator on two values.
    pub fn binary(&mut self, op: &str, a: Value, b: Value) -> Value {
        let cmp = matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=");
        // Pointer arithmetic and comparisons.
        match (&a.v, &b.v) {
            (V::Ptr(p), V::Int(i)) if op == "+" || op == "-" => {
                let elem = a.ty.pointee().map_or(1, |t| t.size_of());
                let i = if op == "-" {
                    fold::un(UnOp::Neg, i.clone())
                } else {
                    i.clone()
                };
                let ty = match &a.ty {
                    Ty::Array(t, _) => Ty::ptr((**t).clone()),
                    t => t.clone(),
                };
                return Value {
                    v: V::Ptr(self.advance(p, i, elem)),
                    ty,
                };
            }
            (V::Int(i), V::Ptr(p)) if op == "+" => {
                let elem = b.ty.pointee().map_or(1, |t| t.size_of());
                return Value {
                    v: V::Ptr(self.advance(p, i.clone(), elem)),
                    ty: b.ty.clone(),
                };
            }
            (V::Ptr(p), V::Ptr(q)) if p.target == q.target && (op == "-" || cmp) => {
                let bytes = |x: &Ptr| fold::mul(x.off.clone(), Expr::Int(x.unit as i64));
                let d = fold::sub(bytes(p), bytes(q));
                if op == "-" {
                    let elem = a.ty.pointee().map_or(1, |t| t.size_of()).max(1);
                    return Value::int(
                        fold::div(d, Expr::Int(elem as i64)),
                        Ty::Int {
                            bytes: 8,
                            signed: true,
                        },
                    );
                }
                return Value::int(
                    fold::bin(binop(op).unwrap_or(BinOp::Eq), d, Expr::Int(0)),
                    Ty::BOOL,
                );
            }
            _ => {}
        }
        let ty = if cmp {
            Ty::BOOL
        } else {
            arith_type(&a.ty, &b.ty, op)
        };
        let common = arith_type(&a.ty, &b.ty, op);
        if matches!(common, Ty::Float { .. })
            && let Some(v) = self.float_binary(op, &a, &b, &common)
        {
            return v;
        }
        // Untracked operands: the result is untracked too, and uniform when both are.
        let untracked = |l: &mut Self, a: &Value, b: &Value, ty: Ty| -> Value {
            let uniform = l.launch_uniform(a) && l.launch_uniform(b);
            match (uniform, ty.int_ty()) {
                (false, _) => Value::arb(ty),
                (true, None) => Value::uniform(ty),
                (true, Some(_)) if ty == Ty::Bool => {
                    Value::int(l.uniform_param(kpl::IntTy::U8, Some((0, 1))), ty)
                }
                (true, Some(t)) => Value::int(l.uniform_param(t, None), ty),
            }
        };
        let (Some(bop), true) = (binop(op), ty.is_int()) else {
            return untracked(self, &a, &b, ty);
        };
        let (at, bt) = (a.ty.clone(), b.ty.clone());
        let (x, y) = match (a.v, b.v) {
            (V::Int(x), V::Int(y)) => (x, y),
            (av, bv) => {
                let (a, b) = (Value { v: av, ty: at }, Value { v: bv, ty: bt });
                return untracked(self, &a, &b, ty);
            }
        };
        // The operands in the type the operation is done in: exactly where their value
        // in that type matters (comparisons, division, right shifts, `|` and `^`), or
        // everywhere under `--wrap`. There, an unsigned operand computed by `+ - * <<`
        // (`tid - 2 > 100`) is also brought into its type. `+`, `-`, `*` and `<<`
        // themselves compute on mathematical integers (assumed not to overflow: `tid - 1`
        // is -1 for thread 0), which agrees with C modulo 2^width; `&` of a negative
        // value with a value of an unsigned type is the same either way.
        let operand_ty = if op == "<<" || op == ">>" {
            vec![promoted(&at), promoted(&bt)]
        } else if matches!(op, "&&" | "||") {
            vec![Ty::BOOL, Ty::BOOL]
        } else {
            let c = common_type(&at, &bt);
            vec![c.clone(), c]
        };
        let exact = self.opts.wrap || !matches!(op, "+" | "-" | "*" | "<<" | "&");
        let (x, y) = if exact && !matches!(op, "&&" | "||") {
            (
                convert_int(normalized(x, &at), &at, &operand_ty[0]),
                convert_int(normalized(y, &bt), &bt, &operand_ty[1]),
            )
        } else {
            (x, y)
        };
        let r = fold::bin(bop, x, y);
        if self.opts.wrap && !cmp && !matches!(op, "&&" | "||") {
            let rt = ty.clone();
            Value::int(wrap_int(r, &rt), ty)
        } else {
            Value::int(r, ty)
        }
    }

    fn assignment(&mut self, n: Node<'t>) -> R<Value> {
        let (op, l, r) = self.operands(n, "=", "assignment")?;
        let lv = self.lvalue(l)?;
        let lty = self.lval_type(&lv);
        // `s += v` with the file's `operator+=`, `a = b` with a struct's `operator=`.
        let user = op != "=" || lty.as_struct().is_some();
        let rhs_ref = if user {
            let rhs = self.expr(r)?;
            match self.user_operator(op, vec![Ref::L(lv.clone()), rhs], n)? {
                Ok(result) => return self.ref_value(result, n),
                Err(mut operands) => operands.pop(),
            }
        } else {
            None
        };
        if let Some(rhs) = rhs_ref {
            // No operator of the file applies: the built-in assignment of the value (the
            // target read before the operand, as below).
            let new = if op == "=" {
                self.ref_value(rhs, r)?
            } else {
                let cur = self.read(&lv, n)?;
                let rhs = self.ref_value(rhs, r)?;
                self.binary(op.trim_end_matches('='), cur, rhs)
            };
            let new = self.convert(new, &lty, n)?;
            self.write(&lv, new.clone(), n)?;
            return self.result_of(&lv, new, n);
        }
        if op == "=" {
            let direct = match &lv {
                LVal::Var(id) => match &self.vars[*id].kind {
                    VarKind::Int(k) => Some(k.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let LVal::Var(id) = &lv
                && matches!(self.vars[*id].kind, VarKind::Struct(_))
                && self.load_struct(*id, r)?
            {
                return self.read(&lv, n);
            }
            let v = match direct {
                Some(k) => match self.read_into(r, &k)? {
                    Some(Value {
                        v: V::Int(Expr::Var(x)),
                        ..
                    }) if x == k => return self.read(&lv, n),
                    Some(v) => v,
                    None => self.rvalue(r)?,
                },
                None => self.rvalue(r)?,
            };
            let v = self.convert(v, &lty, n)?;
            self.write(&lv, v.clone(), n)?;
            return self.result_of(&lv, v, n);
        }
        let cur = self.read(&lv, n)?;
        let rhs = self.rvalue(r)?;
        let new = self.binary(op.trim_end_matches('='), cur, rhs);
        let new = self.convert(new, &lty, n)?;
        self.write(&lv, new.clone(), n)?;
        self.result_of(&lv, new, n)
    }

    /// The value of an assignment expression: the variable (re-read), or the value
    /// written to memory.
    fn result_of(&mut self, lv: &LVal, written: Value, n: Node<'t>) -> R<Value> {
        match lv {
            LVal::Var(id) if !matches!(self.vars[*id].kind, VarKind::Ref(_)) => self.read(lv, n),
            _ => Ok(written),
        }
    }

    /// `x = <memory>` for a struct variable: each integer field is read straight into
    /// its local. False when `rhs` is not a read of a struct in memory (nothing done).
    /// Reads a member of a struct copied as a whole (`Quad q = tile[i];`). An array
    /// member is read element by element: its contents are not tracked (a private array
    /// reads as arbitrary), but each of its cells in shared or global memory is accessed.
    fn read_member(&mut self, p: &Ptr, ty: &Ty, cb: u64, n: Node<'t>) -> R<Value> {
        let Ty::Array(elem, count) = ty else {
            return self.read_mem(p, ty, n, None);
        };
        let count = self.copied_elements(*count, n)?;
        for i in 0..count {
            let ep = self.advance(p, Expr::Int((i * elem.cells()) as i64), cb);
            self.read_member(&ep, elem, cb, n)?;
        }
        Ok(arbitrary(ty))
    }

    /// Writes a member of a struct stored as a whole (`out[t] = q;`): an array member
    /// element by element, each with an arbitrary value (private arrays are not tracked).
    fn write_member(&mut self, p: &Ptr, ty: &Ty, val: Value, cb: u64, n: Node<'t>) -> R<()> {
        let Ty::Array(elem, count) = ty else {
            return self.write_mem(p, ty, val, n);
        };
        let count = self.copied_elements(*count, n)?;
        for i in 0..count {
            let ep = self.advance(p, Expr::Int((i * elem.cells()) as i64), cb);
            self.write_member(&ep, elem, arbitrary(elem), cb, n)?;
        }
        Ok(())
    }

    /// How many elements an array member copied with its struct has: its declared
    /// length, which must be known (and small enough to copy cell by cell).
    fn copied_elements(&self, count: Option<u64>, n: Node<'t>) -> R<u64> {
        const MOST: u64 = 1024;
        count.filter(|&c| c <= MOST).ok_or_else(|| {
            self.unsupported(
                n,
                "copying a struct whose array member has an unknown length (or more than 1024 elements)",
                "copy the elements one by one",
            )
        })
    }

    pub fn load_struct(&mut self, id: usize, rhs: Node<'t>) -> R<bool> {
        let rhs = strip_parens(rhs);
        if !matches!(
            rhs.kind(),
            "subscript_expression" | "field_expression" | "pointer_expression"
        ) || self.text(rhs).trim_start().starts_with('&')
        {
            return Ok(false);
        }
        match self.expr(rhs)? {
            Ref::L(LVal::Mem(p, ty)) if ty == self.vars[id].ty => {
                self.load_fields(id, &p, &ty, rhs)?;
                Ok(true)
            }
            Ref::L(lv) => {
                let v = self.read(&lv, rhs)?;
                self.write(&LVal::Var(id), v, rhs)?;
                Ok(true)
            }
            Ref::V(v) => {
                self.write(&LVal::Var(id), v, rhs)?;
                Ok(true)
            }
        }
    }

    fn load_fields(&mut self, id: usize, p: &Ptr, ty: &Ty, n: Node<'t>) -> R<()> {
        let (VarKind::Struct(fields), Some(s)) = (self.vars[id].kind.clone(), ty.as_struct().cloned()) else {
            let v = self.read_mem(p, ty, n, None)?;
            return self.write(&LVal::Var(id), v, n);
        };
        let cb = ty.cell_bytes() as u64;
        let mut off = 0u64;
        for ((_, fty), f) in s.fields.iter().zip(fields) {
            let fp = self.advance(p, Expr::Int(off as i64), cb);
            match self.vars[f].kind.clone() {
                VarKind::Int(k) if fty.is_int() => {
                    let v = self.read_mem(&fp, fty, n, Some(&k))?;
                    if !matches!(&v.v, V::Int(Expr::Var(x)) if *x == k) {
                        self.write(&LVal::Var(f), v, n)?;
                    }
                }
                VarKind::Struct(_) => self.load_fields(f, &fp, fty, n)?,
                _ => {
                    let v = self.read_member(&fp, fty, cb, n)?;
                    self.write(&LVal::Var(f), v, n)?;
                }
            }
            off = off.saturating_add(fty.cells());
        }
        Ok(())
    }

    pub fn lval_type(&self, lv: &LVal) -> Ty {
        match lv {
            LVal::Var(v) => match &self.vars[*v].kind {
                VarKind::Ref(inner) => self.lval_type(inner),
                _ => self.vars[*v].ty.clone(),
            },
            LVal::Mem(_, t) | LVal::Private(t) => t.clone(),
        }
    }

    fn update(&mut self, n: Node<'t>) -> R<Value> {
        let op = n
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or("++");
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "++", ""))?;
        let prefix = n.child(0).is_some_and(|c| c.kind() == "++" || c.kind() == "--");
        let lv = self.lvalue(arg)?;
        let ty = self.lval_type(&lv);
        let cur = self.read(&lv, n)?;
        let one = Value::int(Expr::Int(1), Ty::INT);
        let bop = if op == "++" { "+" } else { "-" };
        let new = self.binary(bop, cur.clone(), one.clone());
        let new = self.convert(new, &ty, n)?;
        self.write(&lv, new.clone(), n)?;
        if prefix {
            return self.result_of(&lv, new, n);
        }
        Ok(match lv {
            // The old value of a variable is the new one, stepped back.
            LVal::Var(_) => {
                let now = self.read(&lv, n)?;
                let back = if op == "++" { "-" } else { "+" };
                self.binary(back, now, one)
            }
            _ => cur,
        })
    }

    fn conditional(&mut self, n: Node<'t>) -> R<Value> {
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(n, "?:", ""))?;
        let a = n
            .child_by_field_name("consequence")
            .ok_or_else(|| self.unsupported(n, "?:", ""))?;
        let b = n
            .child_by_field_name("alternative")
            .ok_or_else(|| self.unsupported(n, "?:", ""))?;
        let cv = self.rvalue(c)?;
        let cond = self.truth(cv, c);
        let (va, sa) = self.in_block(|l| l.rvalue(a))?;
        let (vb, sb) = self.in_block(|l| l.rvalue(b))?;
        if let Some(k) = fold::int(&cond) {
            // Only the chosen operand runs, converted to the type of the whole `?:`.
            let ty = conditional_type(&va.ty, &vb.ty);
            let (v, stmts) = if k != 0 { (va, sa) } else { (vb, sb) };
            self.extend(stmts);
            return match (v.v, ty.is_int()) {
                (V::Int(e), true) => Ok(Value::int(convert_int(e, &v.ty, &ty), ty)),
                (x, _) => Ok(Value { v: x, ty: v.ty }),
            };
        }
        self.select(cond, (va, sa), (vb, sb), n)
    }

    /// A fresh local that each side of a `?:` sets to its value, last in its statements.
    fn select_local(
        &mut self,
        (sa, x): (&mut Vec<kpl::ir::Stmt>, Expr),
        (sb, y): (&mut Vec<kpl::ir::Stmt>, Expr),
        span: kpl::ir::Span,
    ) -> String {
        let t = self.mutable_local("_s", None, span);
        for (stmts, value) in [(sa, x), (sb, y)] {
            stmts.push(self.made_stmt(
                StmtKind::Assign {
                    var: t.clone(),
                    value,
                },
                span,
            ));
        }
        t
    }

    /// `cond ? a : b` where each side comes with its statements.
    pub fn select(
        &mut self,
        cond: Expr,
        (va, mut sa): (Value, Vec<kpl::ir::Stmt>),
        (vb, mut sb): (Value, Vec<kpl::ir::Stmt>),
        n: Node<'t>,
    ) -> R<Value> {
        let span = self.span(n);
        let ty = if va.ty.is_int() && vb.ty.is_int() {
            conditional_type(&va.ty, &vb.ty)
        } else if va.ty.is_pointer_like() {
            va.ty.clone()
        } else if matches!(va.ty, Ty::Float { .. }) || matches!(vb.ty, Ty::Float { .. }) {
            Ty::Float { bytes: 4 }
        } else {
            va.ty.clone()
        };
        let floats = match ty {
            Ty::Float { .. } => self.float_term(&va, &ty).zip(self.float_term(&vb, &ty)),
            _ => None,
        };
        let out = if let Some((x, y)) = floats {
            let t = self.select_local((&mut sa, x), (&mut sb, y), span);
            Value::float(Expr::Var(t), ty)
        } else {
            match (&va.v, &vb.v) {
                (V::Int(x), V::Int(y)) => {
                    // Both operands in the type of the whole expression (C's usual
                    // arithmetic conversions: `m < 0 ? m : 0u` is unsigned).
                    let (x, y) = (
                        convert_int(x.clone(), &va.ty, &ty),
                        convert_int(y.clone(), &vb.ty, &ty),
                    );
                    let t = self.select_local((&mut sa, x), (&mut sb, y), span);
                    Value::int(Expr::Var(t), ty)
                }
                (V::Ptr(p), V::Ptr(q))
                    if p.target == q.target || q.target == Target::Null || p.target == Target::Null =>
                {
                    let target = if p.target == Target::Null {
                        q.target
                    } else {
                        p.target
                    };
                    let unit = p.unit.min(q.unit).max(1);
                    let conv = |x: &Ptr| {
                        if x.target == Target::Null {
                            Expr::Int(0)
                        } else {
                            fold::mul(x.off.clone(), Expr::Int((x.unit / unit) as i64))
                        }
                    };
                    let t = self.mutable_local("_p", None, span);
                    sa.push(self.made_stmt(
                        StmtKind::Assign {
                            var: t.clone(),
                            value: conv(p),
                        },
                        span,
                    ));
                    sb.push(self.made_stmt(
                        StmtKind::Assign {
                            var: t.clone(),
                            value: conv(q),
                        },
                        span,
                    ));
                    Value {
                        v: V::Ptr(Ptr {
                            target,
                            off: Expr::Var(t),
                            unit,
                        }),
                        ty,
                    }
                }
                (V::Ptr(p), V::Ptr(q)) => {
                    self.request_merge(p.target, q.target);
                    return Err(self.unsupported(
                        n,
                        "a pointer that points into one of two arrays depending on a condition",
                        "use one pointer per array",
                    ));
                }
                _ => arbitrary(&ty),
            }
        };
        if !sa.is_empty() || !sb.is_empty() {
            let then_blk = self.made_block(sa, span);
            let else_blk = (!sb.is_empty()).then(|| self.made_block(sb, span));
            self.emit(
                StmtKind::If {
                    cond,
                    then_blk,
                    else_blk,
                },
                span,
            );
        }
        Ok(out)
    }
}

/// An arbitrary value of a type (structs field by field).
pub(super) fn arbitrary(ty: &Ty) -> Value {
    match ty {
        Ty::Struct(s) => Value {
            v: V::Struct(s.fields.iter().map(|(_, f)| arbitrary(f)).collect()),
            ty: ty.clone(),
        },
        Ty::Ptr(_) => Value {
            v: V::Ptr(Ptr {
                target: Target::Unknown,
                off: Expr::Int(0),
                unit: 1,
            }),
            ty: ty.clone(),
        },
        _ => Value::arb(ty.clone()),
    }
}

/// Whether an `enumerator` named `name` is declared inside `n` (an enum in a struct).
fn declares_enumerator(n: Node, name: &str, src: &str) -> bool {
    (n.kind() == "enumerator"
        && n.child_by_field_name("name")
            .and_then(|x| src.get(x.byte_range()))
            == Some(name))
        || named_children(n)
            .into_iter()
            .any(|c| declares_enumerator(c, name, src))
}

fn null() -> Value {
    Value {
        v: V::Ptr(Ptr {
            target: Target::Null,
            off: Expr::Int(0),
            unit: 1,
        }),
        ty: Ty::ptr(Ty::Void),
    }
}

/// `e` as 0 or 1.
pub(super) fn boolean(e: Expr) -> Expr {
    use BinOp::*;
    match &e {
        Expr::Binary(Eq | Ne | Lt | Le | Gt | Ge | And | Or, _, _) | Expr::Unary(UnOp::Not, _) => e,
        Expr::Int(v) => Expr::Int((*v != 0) as i64),
        _ => Expr::bin(Ne, e, Expr::Int(0)),
    }
}

fn number(t: &str) -> Value {
    let lower = t.to_ascii_lowercase();
    let hex = lower.starts_with("0x");
    let float = !hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f'));
    if float {
        let ty = if lower.ends_with('f') {
            Ty::FLOAT
        } else {
            Ty::Float { bytes: 8 }
        };
        return match float::literal_bits(t, &ty) {
            Some(bits) => Value::float(Expr::Int(bits), ty),
            None => Value::uniform(ty),
        };
    }
    let suffix = lower.trim_start_matches(|c: char| c.is_ascii_hexdigit() || c == 'x' || c == '\'');
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let ty = Ty::Int {
        bytes: if long { 8 } else { 4 },
        signed: !unsigned,
    };
    match int_literal(t) {
        Some(v) => Value::int(Expr::Int(v), ty),
        None => Value::arb(ty),
    }
}

/// The KPL operator of a C binary operator token.
pub(crate) fn binop(op: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match op {
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "&" => BitAnd,
        "|" => BitOr,
        "^" => BitXor,
        "<<" => Shl,
        ">>" => Shr,
        "==" => Eq,
        "!=" => Ne,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "&&" => And,
        "||" => Or,
        _ => return None,
    })
}

/// The type of `a op b` for arithmetic operators: C's usual arithmetic conversions
/// (floating point wins; integers are promoted, then brought to a common type); for
/// shifts, the promoted left operand.
fn arith_type(a: &Ty, b: &Ty, op: &str) -> Ty {
    match (a, b) {
        (Ty::Float { bytes: x }, Ty::Float { bytes: y }) => Ty::Float { bytes: (*x).max(*y) },
        (Ty::Float { .. }, _) => a.clone(),
        (_, Ty::Float { .. }) if op != "<<" && op != ">>" => b.clone(),
        _ if a.is_int() && (op == "<<" || op == ">>") => promoted(a),
        _ if a.is_int() && b.is_int() => common_type(a, b),
        _ if a.is_int() => promoted(a),
        _ if b.is_int() => promoted(b),
        _ => Ty::Opaque("?".into()),
    }
}

/// The type of `c ? a : b` for integer operands: the common type (two `bool`s stay
/// `bool`).
fn conditional_type(a: &Ty, b: &Ty) -> Ty {
    if *a == Ty::Bool && *b == Ty::Bool {
        Ty::Bool
    } else {
        common_type(a, b)
    }
}

/// C's integer promotion: `bool`, `char` and `short` become `int`.
pub(super) fn promoted(t: &Ty) -> Ty {
    match t {
        Ty::Bool => Ty::INT,
        Ty::Int { bytes, .. } if *bytes < 4 => Ty::INT,
        _ => t.clone(),
    }
}

/// The common type of two integer operands (C's usual arithmetic conversions).
pub(super) fn common_type(a: &Ty, b: &Ty) -> Ty {
    let (Ty::Int { bytes: x, signed: s }, Ty::Int { bytes: y, signed: t }) = (promoted(a), promoted(b))
    else {
        return promoted(a);
    };
    if s == t {
        return Ty::Int {
            bytes: x.max(y),
            signed: s,
        };
    }
    let (ubytes, sbytes) = if s { (y, x) } else { (x, y) };
    if ubytes >= sbytes {
        // The unsigned type's rank is at least the signed one's.
        Ty::Int {
            bytes: ubytes,
            signed: false,
        }
    } else {
        // The signed type is wider, so it holds every value of the unsigned one.
        Ty::Int {
            bytes: sbytes,
            signed: true,
        }
    }
}

/// `e`, a value of type `from`, converted to the integer type `to`: the identity when
/// every value of `from` is one of `to`, else an exact conversion ([`Expr::Cast`]).
pub(super) fn convert_int(e: Expr, from: &Ty, to: &Ty) -> Expr {
    let Some(t) = to.int_ty() else {
        return e;
    };
    if *to == Ty::Bool {
        return boolean(e);
    }
    // Thread and block ids and sizes are below 2^31 (CUDA's launch limits).
    let fits = match from {
        Ty::Bool => true,
        _ if matches!(e, Expr::Builtin(_)) => t.bits >= 32,
        _ => from.int_ty().is_some_and(|f| f.fits_in(t)),
    };
    if fits {
        return e;
    }
    cast_to(t, e)
}

/// `e` converted to `t`: folded for a constant, else an [`Expr::Cast`].
/// The type an integer element is read through (`_t = u32(A[i]);`). Memory is untyped
/// for the oracles (it holds any integer), so the read converts the value to the
/// lvalue's type, as C does: exact for memory written through the type (stores convert
/// to it), and the verifier knows the value is in the type's range without a
/// wrap-around unknown: counts and slots read from unsigned elements are never
/// negative (repetition-free counters `atomicAdd(&n, count[i])`, histogram bins
/// `data[i] % BINS`). `unsigned long long` stays untyped: the interpreter computes in
/// 64-bit signed integers, where its upper half does not fit.
pub(crate) fn element_type(ty: &Ty) -> Option<kpl::IntTy> {
    ty.int_ty().filter(|t| t.bits <= 32 || t.signed)
}

pub(crate) fn cast_to(t: kpl::IntTy, e: Expr) -> Expr {
    match fold::int(&e).and_then(|c| i64::try_from(t.convert(i128::from(c))).ok()) {
        Some(c) => Expr::Int(c),
        None => Expr::cast(t, e),
    }
}

/// `e` of type `ty` brought into the type's range when it is an unsigned value that a
/// subtraction may have taken below zero (`tid - 2`), which the no-overflow assumption
/// otherwise leaves negative. Sums and products of unsigned values stay as they are.
fn normalized(e: Expr, ty: &Ty) -> Expr {
    fn may_go_negative(e: &Expr) -> bool {
        match e {
            Expr::Binary(BinOp::Sub, ..) | Expr::Unary(UnOp::Neg, _) => true,
            Expr::Binary(BinOp::Add | BinOp::Mul | BinOp::Shl, a, b) => {
                may_go_negative(a) || may_go_negative(b)
            }
            _ => false,
        }
    }
    if matches!(ty, Ty::Int { signed: false, .. }) && may_go_negative(&e) {
        wrap_int(e, ty)
    } else {
        e
    }
}

/// The result `e` of an operation done in type `ty`, wrapped into it (`--wrap`).
fn wrap_int(e: Expr, ty: &Ty) -> Expr {
    match ty.int_ty() {
        Some(t) => cast_to(t, e),
        None => e,
    }
}

fn unary(op: &str, v: Value, wrap: bool) -> Value {
    if let V::Float(e) = &v.v {
        let done = match op {
            "+" => Some(v.clone()),
            "-" => float::negate(e.clone(), &v.ty),
            "!" => float::truth(e.clone(), &v.ty).map(|c| Value::int(fold::not(c), Ty::BOOL)),
            _ => None,
        };
        if let Some(out) = done {
            return out;
        }
    }
    if matches!(v.v, V::Uniform) {
        let ty = if op == "!" { Ty::BOOL } else { v.ty.clone() };
        return Value::uniform(ty);
    }
    let ty = if v.ty.is_int() {
        promoted(&v.ty)
    } else {
        v.ty.clone()
    };
    let from = v.ty.clone();
    // Negating an unsigned value always wraps (it is how `-u` is used): exact.
    let unsigned = matches!(ty, Ty::Int { signed: false, .. });
    let wrapped = |e: Expr| {
        if wrap || (unsigned && op == "-") {
            wrap_int(e, &ty)
        } else {
            e
        }
    };
    match (op, v.v) {
        ("-", V::Int(e)) => Value::int(wrapped(fold::un(UnOp::Neg, convert_int(e, &from, &ty))), ty),
        ("~", V::Int(e)) => Value::int(wrapped(fold::un(UnOp::BitNot, convert_int(e, &from, &ty))), ty),
        ("!", V::Int(e)) => Value::int(fold::not(e), Ty::BOOL),
        ("+", x) => Value { v: x, ty },
        ("!", V::Ptr(p)) if p.target == Target::Null => Value::int(Expr::Int(1), Ty::BOOL),
        ("!", _) => Value::arb(Ty::BOOL),
        (_, _) => Value::arb(ty),
    }
}

/// Constants of the C and CUDA headers autosync does not read.
fn known_constant(name: &str) -> Option<Value> {
    let int = |v: i64| Some(Value::int(Expr::Int(v), Ty::INT));
    match name {
        "INT_MAX" => int(i32::MAX as i64),
        "INT_MIN" => int(i32::MIN as i64),
        "UINT_MAX" => Some(Value::int(Expr::Int(u32::MAX as i64), Ty::UINT)),
        "CHAR_BIT" => int(8),
        "SHRT_MAX" => int(i16::MAX as i64),
        "USHRT_MAX" => int(u16::MAX as i64),
        "UCHAR_MAX" => int(255),
        "EXIT_SUCCESS" => int(0),
        "EXIT_FAILURE" => int(1),
        "FLT_MAX" | "FLT_MIN" | "FLT_EPSILON" | "DBL_MAX" | "DBL_MIN" | "DBL_EPSILON" | "M_PI" | "M_E"
        | "INFINITY" | "NAN" | "HUGE_VALF" => Some(Value::arb(Ty::FLOAT)),
        _ if name.starts_with("CUDART_") => Some(Value::arb(Ty::FLOAT)),
        _ => None,
    }
}

/// `threadIdx`, `blockIdx`, ... as a `uint3` of the builtin `b` in each dimension.
pub(super) fn dim3(b: fn(Dim) -> Builtin) -> Value {
    let ty = vector_type("uint3").expect("uint3 is a vector type");
    Value {
        v: V::Struct(
            Dim::ALL
                .iter()
                .map(|d| Value::int(Expr::Builtin(b(*d)), Ty::UINT))
                .collect(),
        ),
        ty,
    }
}
