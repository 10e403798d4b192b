//! From a caller context to the host's `Launch` layer: atoms are eliminated (constants
//! pin sizes and parameters, an atom that is a size or an argument stands for it) and
//! what remains linear is a relation.

use std::collections::BTreeMap;

use kpl::launch::{Launch, Origin, Site};
use kpl::{Arith, BinOp, Builtin, Dim, Expr};

use super::Context;

impl Context {
    /// The launch this context gives kernel `kernel` (whose scalar parameters are
    /// `scalars`, in the order of the kernel's parameter list `params`): constants pin,
    /// atoms that are a size or an argument stand for it, and equations and conditions
    /// whose atoms all stand for something are relations.
    pub fn launch(&self, params: &[String], scalars: &[(String, kpl::IntTy)], site: &Site) -> Launch {
        let mut l = Launch::default();
        // A condition `a == 512` (`case 512:` of a `switch (threads)`) makes the atom
        // that constant wherever it is used.
        let pinned: BTreeMap<String, i64> = self
            .conditions
            .iter()
            .flat_map(conjuncts)
            .filter_map(|c| match c {
                Expr::Binary(BinOp::Eq, a, b) => match (a.as_ref(), b.as_ref()) {
                    (Expr::Var(x), Expr::Int(v)) | (Expr::Int(v), Expr::Var(x)) if is_atom(x) => {
                        Some((x.clone(), *v))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let value = |v: &Expr| fold(&pin_atoms(v, &pinned));
        // Equations `lhs == rhs`, sizes first: an atom is best a size.
        let mut eqs: Vec<(Expr, Expr)> = Vec::new();
        for (d, dim) in [Dim::X, Dim::Y, Dim::Z].into_iter().enumerate() {
            if let Some(v) = &self.block[d] {
                eqs.push((Expr::Builtin(Builtin::Bdim(dim)), value(v)));
            }
        }
        for (d, dim) in [Dim::X, Dim::Y, Dim::Z].into_iter().enumerate() {
            if let Some(v) = &self.grid[d] {
                eqs.push((Expr::Builtin(Builtin::Gdim(dim)), value(v)));
            }
        }
        if let Some(args) = &self.args {
            for (p, a) in params.iter().zip(args) {
                let Some((_, ty)) = scalars.iter().find(|(s, _)| s == p) else {
                    continue;
                };
                if let Some(a) = a {
                    // A constant argument arrives converted to the parameter's type.
                    let a = match value(a) {
                        Expr::Int(v) => match i64::try_from(ty.convert(i128::from(v))) {
                            Ok(c) => Expr::Int(c),
                            Err(_) => continue,
                        },
                        a => a,
                    };
                    eqs.push((Expr::Var(p.clone()), a));
                }
            }
        }
        let mut stands: BTreeMap<String, Expr> = BTreeMap::new();
        let mut rest = Vec::new();
        for (lhs, rhs) in eqs {
            match (&lhs, &rhs) {
                (Expr::Builtin(b), Expr::Int(v)) => {
                    let v = u32::try_from(*v).ok().filter(|v| *v >= 1);
                    let max = if matches!(b, Builtin::Bdim(_)) {
                        1024
                    } else {
                        u32::MAX
                    };
                    match (b, v.filter(|v| *v <= max)) {
                        (Builtin::Bdim(d), Some(v)) => l.block[d.index()] = Some(v),
                        (Builtin::Gdim(d), Some(v)) => l.grid[d.index()] = Some(v),
                        _ => {}
                    }
                }
                (Expr::Var(p), Expr::Int(v)) => {
                    l.params.insert(p.clone(), *v);
                }
                (_, Expr::Var(a)) if is_atom(a) && !stands.contains_key(a) => {
                    stands.insert(a.clone(), lhs);
                }
                _ => rest.push((lhs, rhs)),
            }
        }
        let mut relate = |r: Expr| {
            if linear(&r) && !l.relations.contains(&r) {
                l.relations.push(r);
            }
        };
        for (lhs, rhs) in rest {
            if let Some(r) = substitute(&rhs, &stands) {
                let r = fold(&r);
                if r != lhs {
                    relate(Expr::bin(BinOp::Eq, lhs, r));
                }
            }
        }
        for c in &self.conditions {
            if let Some(r) = substitute(&pin_atoms(c, &pinned), &stands) {
                match fold(&r) {
                    Expr::Int(_) => {}
                    r => relate(r),
                }
            }
        }
        l.cooperative = self.cooperative;
        l.sites = vec![site.clone()];
        l.from(Origin::Host)
    }
}

const ATOM: &str = "host`";

pub(super) fn atom(function: &str, name: &str) -> Expr {
    Expr::Var(format!("{ATOM}{function}::{name}"))
}

fn is_atom(v: &str) -> bool {
    v.starts_with(ATOM)
}

/// Whether a relation multiplies, divides or shifts only by constants. Others
/// (`gdim.x == (n + bdim.x - 1) / bdim.x` with a symbolic block) are dropped, which only
/// allows more launches: nonlinear facts cost the solver far more than they give.
fn linear(e: &Expr) -> bool {
    match e {
        Expr::Binary(op, a, b) => {
            let nonlinear = matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr)
                && !matches!(**b, Expr::Int(_))
                && !(matches!(op, BinOp::Mul) && matches!(**a, Expr::Int(_)));
            !nonlinear && linear(a) && linear(b)
        }
        Expr::Unary(_, a) | Expr::Cast(_, a) => linear(a),
        _ => true,
    }
}

/// `e` with atoms replaced by what they stand for; `None` when one stands for nothing.
fn substitute(e: &Expr, stands: &BTreeMap<String, Expr>) -> Option<Expr> {
    Some(match e {
        Expr::Var(v) if is_atom(v) => stands.get(v)?.clone(),
        Expr::Var(_) => return None,
        Expr::Int(_) | Expr::Builtin(_) => e.clone(),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(substitute(a, stands)?)),
        Expr::Binary(op, a, b) => Expr::bin(*op, substitute(a, stands)?, substitute(b, stands)?),
        Expr::Cast(t, a) => Expr::Cast(*t, Box::new(substitute(a, stands)?)),
        _ => return None,
    })
}

/// The conjuncts of `e` (`a && b && c`).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            let mut out = conjuncts(a);
            out.extend(conjuncts(b));
            out
        }
        _ => vec![e],
    }
}

/// `e` with the atoms of `pinned` replaced by their constants.
fn pin_atoms(e: &Expr, pinned: &BTreeMap<String, i64>) -> Expr {
    match e {
        Expr::Var(v) => pinned.get(v).map_or_else(|| e.clone(), |c| Expr::Int(*c)),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(pin_atoms(a, pinned))),
        Expr::Binary(op, a, b) => Expr::bin(*op, pin_atoms(a, pinned), pin_atoms(b, pinned)),
        Expr::Cast(t, a) => Expr::Cast(*t, Box::new(pin_atoms(a, pinned))),
        _ => e.clone(),
    }
}

/// Constant folding with C's integer semantics on unbounded integers.
pub(super) fn fold(e: &Expr) -> Expr {
    let a = Arith::Unbounded;
    match e {
        Expr::Unary(op, x) => match fold(x) {
            Expr::Int(v) => a.unary(*op, v).map_or_else(|_| e.clone(), Expr::Int),
            x => Expr::Unary(*op, Box::new(x)),
        },
        Expr::Binary(op, x, y) => match (fold(x), fold(y)) {
            (Expr::Int(u), Expr::Int(v)) => a.binary(*op, u, v).map_or_else(|_| e.clone(), Expr::Int),
            (x, y) => Expr::bin(*op, x, y),
        },
        _ => e.clone(),
    }
}
