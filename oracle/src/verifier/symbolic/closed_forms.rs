//! The closed forms of a loop's carried variables from what the analysis pass shows:
//! unchanged, induction variables, geometric sequences (powers of two or tables),
//! `e(k - 1)`, and forms under a condition as candidate invariants; else an atom.

use kpl::{Arith, BinOp};
use std::collections::HashMap;

use super::super::candidates;
use super::super::term::{AtomId, Class, Rewriter, T, Term, any_node, exp_nonneg, linear_in};
use super::{AtomKind, Exec, Form, LoopCx, substitute_atoms, substitute_iter};

impl Exec<'_> {
    /// Finds the value at iteration `k` of every carried variable (see the module doc).
    pub(super) fn resolve(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<T> {
        let b = self.b;
        let (lp, k, args) = (lcx.lp, &lcx.k, &lcx.args[..]);
        let forms = self.closed_forms(lcx, carried, env0, ends, classes);
        let mut out = Vec::with_capacity(carried.len());
        for (i, f) in forms.into_iter().enumerate() {
            out.push(match f {
                Some(t) => t,
                None => {
                    let h = self.atom_with(
                        AtomKind::Carried(lp, carried[i].clone()),
                        classes[i],
                        args.to_vec(),
                    );
                    let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
                    b.ite(first, env0[&carried[i]].clone(), h)
                }
            });
        }
        out
    }

    /// Closed forms under a condition: for variables updated only under one condition
    /// `c` (`if (tid < n) { n >>= 1; off <<= 1; }`), `c → x == F(k)` where `F` is the
    /// closed form of the updates taken unconditionally. Inductive whenever `c`, once
    /// false, stays false (nothing it reads changes when it is false); a candidate
    /// like any other ([`super::invariants`] proves it or drops it).
    pub(super) fn conditional_forms(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<T> {
        let b = self.b;
        let mut conds: Vec<T> = Vec::new();
        let first_body_atom = lcx.starts.first().copied().unwrap_or(0);
        let reads_body = |c: &T| {
            any_node(
                c,
                &mut |n| matches!(n, Term::Atom(id, _) if *id >= first_body_atom && !lcx.starts.contains(id)),
            )
        };
        for e in ends {
            if let Term::Ite(c, _, _) = &**e
                && !conds.iter().any(|x| candidates::same(x, c))
                && !reads_body(c)
                && conds.len() < 4
            {
                conds.push(c.clone());
            }
        }
        let mut out = Vec::new();
        for c in conds {
            let forced: Vec<T> = ends
                .iter()
                .map(|e| {
                    let mut r = Rewriter::new(b, |b, n| std::rc::Rc::ptr_eq(n, &c).then(|| b.tt()));
                    r.run(e)
                })
                .collect();
            let forms = self.closed_forms(lcx, carried, env0, &forced, classes);
            for (i, (e, f)) in ends.iter().zip(forms).enumerate() {
                if let (Term::Ite(ci, _, _), Some(f)) = (&**e, f)
                    && std::rc::Rc::ptr_eq(ci, &c)
                    && self.relevant.contains(&carried[i])
                {
                    let x = b.leaf(Term::Atom(lcx.starts[i], lcx.args.clone()));
                    out.push(b.or(b.not(c.clone()), b.bin(BinOp::Eq, x, f)));
                }
            }
        }
        out
    }

    /// The closed forms of [`Exec::resolve`], `None` for the variables without one.
    fn closed_forms(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<Option<T>> {
        let b = self.b;
        let (lp, k, starts) = (lcx.lp, &lcx.k, &lcx.starts[..]);
        let mut forms: Vec<Form> = carried.iter().map(|_| Form::Unresolved).collect();
        let is_start = |id: AtomId| starts.contains(&id);
        loop {
            let mut changed = false;
            // Replace the start atoms of resolved variables by their forms.
            let known: HashMap<AtomId, T> = starts
                .iter()
                .zip(&forms)
                .filter_map(|(id, f)| match f {
                    Form::Known(t) => Some((*id, t.clone())),
                    Form::Unresolved => None,
                })
                .collect();
            for i in 0..carried.len() {
                if matches!(forms[i], Form::Known(_)) {
                    continue;
                }
                let e = substitute_atoms(&b, &ends[i], &known);
                let init = env0[&carried[i]].clone();
                let unresolved_start = |t: &T, also_own: bool| {
                    any_node(t, &mut |n| {
                        matches!(n, Term::Atom(id, _) if is_start(*id) && !known.contains_key(id)
                            && (also_own || *id != starts[i]))
                    })
                };
                let varies = |t: &T| {
                    unresolved_start(t, true)
                        || any_node(t, &mut |n| match n {
                            Term::Iter(l) => *l == lp,
                            Term::InLoop(_) => true,
                            _ => false,
                        })
                };
                let form = if matches!(&*e, Term::Atom(id, _) if *id == starts[i]) {
                    Some(init)
                } else if let Some((1, step)) = linear_in(&b, &e, starts[i]).filter(|(_, r)| !varies(r)) {
                    Some(b.bin(BinOp::Add, init, b.bin(BinOp::Mul, step, k.clone())))
                } else if let Some((op, c)) = geometric(&e, starts[i]) {
                    Some(self.geometric_form(lcx, starts[i], op, c, init, classes[i]))
                } else if !unresolved_start(&e, true) {
                    let prev = substitute_iter(&b, &e, lp, &b.iter_add(k.clone(), -1));
                    let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
                    Some(b.ite(first, init, prev))
                } else {
                    None
                };
                if let Some(f) = form {
                    forms[i] = Form::Known(f);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        forms
            .into_iter()
            .map(|f| match f {
                Form::Known(t) => Some(t),
                Form::Unresolved => None,
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    /// `init op^k c` as `Pow2(e0 + step·k)` when `init` is a power of two (a constant one
    /// or a `Pow2`) and `op c` multiplies or divides by one (unbounded arithmetic only).
    fn pow2_form(&self, op: BinOp, c: i64, init: &T, k: &T) -> Option<T> {
        let b = self.b;
        if b.arith != Arith::Unbounded {
            return None;
        }
        let step = pow2_step(op, c)?;
        let e0 = match &**init {
            Term::Pow2(e) => e.clone(),
            Term::Const(v) if *v > 0 && v & (v - 1) == 0 => b.int(i64::from(v.trailing_zeros())),
            _ => return None,
        };
        // Doubling 0 (a negative exponent) stays 0; only nonnegative exponents grow.
        if step > 0 && !exp_nonneg(&e0) {
            return None;
        }
        let e = b.bin(BinOp::Add, e0, b.bin(BinOp::Mul, b.int(step), k.clone()));
        Some(b.pow2(e))
    }

    /// The value at iteration `k` of `x := x op c` from `init`: a table when `init` is a
    /// constant (or a small table of them), else an atom with facts (see the encoder).
    /// A table ends where the loop's guard becomes false (no thread is inside beyond).
    fn geometric_form(&mut self, lcx: &LoopCx, x: AtomId, op: BinOp, c: i64, init: T, class: Class) -> T {
        let (lp, k, args) = (lcx.lp, &lcx.k, &lcx.args[..]);
        let b = self.b;
        // A power of two times powers of two: `Pow2` of an exponent linear in `k`.
        // Also from a constant start: nested power-of-two loops (sorting networks) are
        // faster for the solver as exponents linear in the iteration numbers (cases per
        // exponent, bits compared by `Encoder::same_index_bits`) than as nested tables.
        if let Some(p) = self.pow2_form(op, c, &init, k) {
            return p;
        }
        if let Some(v0) = init.as_const() {
            // Tabulate until the sequence is stuck (0 for `>>`, `/`; 0 for `*` in Wrap32),
            // leaves the 32-bit range every guard compares it with, or leaves what the
            // arithmetic computes; past the table, a bounded unknown.
            let mut vals = vec![v0];
            let mut tail = None;
            while vals.len() < 40 && vals.last().is_some_and(|v| v.unsigned_abs() <= 1 << 33) {
                let last = *vals.last().unwrap_or(&v0);
                let at = HashMap::from([(x, b.int(last))]);
                if substitute_atoms(&b, &lcx.guard, &at).as_const() == Some(0) {
                    break;
                }
                match b.arith.binary(op, last, c) {
                    Ok(next) if next == last => {
                        tail = Some(b.int(last));
                        break;
                    }
                    Ok(next) => vals.push(next),
                    Err(_) => break,
                }
            }
            let tail = match tail {
                Some(t) => t,
                None => {
                    let last = *vals.last().unwrap_or(&v0);
                    self.atom_with(AtomKind::Tail { op, c, last }, Class::Grid, args.to_vec())
                }
            };
            return b.table(k.clone(), vals.into_iter().map(|v| b.int(v)).collect(), tail);
        }
        if let Term::Table(ko, entries, tail) = &*init
            && init.table_size() <= 64
        {
            // One sequence per entry of the outer table.
            let inner: Vec<T> = entries
                .iter()
                .map(|e| self.geometric_form(lcx, x, op, c, e.clone(), class))
                .collect();
            let tail = self.geometric_form(lcx, x, op, c, tail.clone(), class);
            let t = b.table(ko.clone(), inner, tail);
            if t.table_size() <= 512 {
                return t;
            }
        }
        // Symbolic doubling: `init · 2^(m·k)` (unbounded arithmetic: no overflow).
        if b.arith == Arith::Unbounded
            && let Some(step) = pow2_step(op, c).filter(|s| *s > 0)
        {
            let e = b.bin(BinOp::Mul, b.int(step), k.clone());
            return b.bin(BinOp::Mul, init, b.pow2(e));
        }
        let g = self.atom_with(
            AtomKind::Geo {
                lp,
                op,
                c,
                init: init.clone(),
            },
            class,
            args.to_vec(),
        );
        let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
        b.ite(first, init, g)
    }
}

/// The exponent step of `x op c` when it multiplies or divides by a power of two.
fn pow2_step(op: BinOp, c: i64) -> Option<i64> {
    let log2 = (c > 0 && c & (c - 1) == 0).then(|| i64::from(c.trailing_zeros()));
    match op {
        BinOp::Mul => log2,
        BinOp::Div => log2.map(|m| -m),
        BinOp::Shl => (1..32).contains(&c).then_some(c),
        BinOp::Shr => (1..32).contains(&c).then_some(-c),
        _ => None,
    }
}

/// `e = x op c` with a step that makes a geometric sequence.
fn geometric(e: &T, x: AtomId) -> Option<(BinOp, i64)> {
    let is_x = |t: &T| matches!(&**t, Term::Atom(id, _) if *id == x);
    match &**e {
        Term::Bin(op @ (BinOp::Mul | BinOp::Div), a, c) if is_x(a) => {
            let c = c.as_const()?;
            (c >= 2).then_some((*op, c))
        }
        Term::Bin(BinOp::Mul, c, a) if is_x(a) => {
            let c = c.as_const()?;
            (c >= 2).then_some((BinOp::Mul, c))
        }
        Term::Bin(op @ (BinOp::Shl | BinOp::Shr), a, c) if is_x(a) => {
            let c = c.as_const()?;
            (1..32).contains(&c).then_some((*op, c))
        }
        _ => None,
    }
}
