//! Operators: binary, logical, unary, assignments and increments, and the conditional
//! operator with the selection between values of any type it makes.

use tree_sitter::Node;

use super::conversions::{
    arith_type, common_type, conditional_type, convert_int, normalized, promoted, wrap_int,
};
use super::{Ref, arbitrary, boolean, strip_parens};
use crate::lower::{LVal, Lowerer, Ptr, R, Target, V, Value, VarKind};
use crate::lower::{float, fold};
use crate::types::Ty;
use kpl::ir::{BinOp, Expr, StmtKind, UnOp};

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

impl<'p, 't> Lowerer<'p, 't> {
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

    pub(super) fn binary_expr(&mut self, n: Node<'t>) -> R<Value> {
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

    pub(super) fn assignment(&mut self, n: Node<'t>) -> R<Value> {
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

    pub(super) fn update(&mut self, n: Node<'t>) -> R<Value> {
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

    pub(super) fn conditional(&mut self, n: Node<'t>) -> R<Value> {
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

    /// `-e`, `!e`, `~e`, `+e`: an operation on the operand's value.
    pub(super) fn unary_expr(&mut self, n: Node<'t>) -> R<Value> {
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
}
