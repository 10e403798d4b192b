//! Pointers and memory: moving a pointer, the cells a place covers, and reading and
//! writing a place (a variable, memory, a struct member by member): where C's reads and
//! writes of places become KPL locals, reads and writes.

use tree_sitter::Node;

use super::conversions::element_type;
use super::{Ref, arbitrary, strip_parens};
use crate::lower::{ArraySpace, LVal, Lowerer, Ptr, R, Target, V, Value, VarId, VarKind};
use crate::lower::{float, fold};
use crate::types::Ty;
use kpl::ir::{Expr, StmtKind};

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

impl<'p, 't> Lowerer<'p, 't> {
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
    pub(in crate::lower) fn cells(&self, a: usize, p: &Ptr, bytes: u32) -> Vec<Expr> {
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
                        crate::lower::Offset::Fixed(e) => e,
                        crate::lower::Offset::Local(l) => Expr::Var(l),
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
                        off = crate::lower::Offset::Local(self.mutable_local(&info.name, None, span));
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
                let crate::lower::Offset::Local(l) = off.clone() else {
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
}
