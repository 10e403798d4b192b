//! Building KPL expressions with constants folded, so lowered kernels read like the
//! source (`sdata[tid]`, not `sdata[0 + tid * 1]`).

use kpl::arith::Arith;
use kpl::ir::{BinOp, Expr, UnOp};

pub fn int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int(v) => Some(*v),
        _ => None,
    }
}

pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    use BinOp::*;
    if let (Some(x), Some(y)) = (int(&a), int(&b))
        && let Ok(v) = Arith::Unbounded.binary(op, x, y)
    {
        return Expr::Int(v);
    }
    match (op, int(&a), int(&b)) {
        (Add, Some(0), _) => return b,
        (Add | Sub | BitOr | BitXor | Shl | Shr, _, Some(0)) => return a,
        (Mul, Some(1), _) => return b,
        (Mul | Div, _, Some(1)) => return a,
        (Mul, Some(0), _) | (Mul, _, Some(0)) => return Expr::Int(0),
        _ => {}
    }
    // (x * k) / k and (x * k + y * k) / k, which pointer arithmetic produces.
    if let (Div, Some(k)) = (op, int(&b))
        && k > 0
        && let Some(q) = divide_exact(&a, k)
    {
        return q;
    }
    // x + (-k) → x - k
    if let (Add, Some(k)) = (op, int(&b))
        && k < 0
    {
        return Expr::bin(Sub, a, Expr::Int(-k));
    }
    Expr::bin(op, a, b)
}

/// `e / k` when every term of `e` is a multiple of `k`.
fn divide_exact(e: &Expr, k: i64) -> Option<Expr> {
    match e {
        Expr::Int(v) if v % k == 0 => Some(Expr::Int(v / k)),
        Expr::Binary(BinOp::Mul, x, y) => match (int(x), int(y)) {
            (_, Some(c)) if c % k == 0 => Some(bin(BinOp::Mul, (**x).clone(), Expr::Int(c / k))),
            (Some(c), _) if c % k == 0 => Some(bin(BinOp::Mul, Expr::Int(c / k), (**y).clone())),
            _ => None,
        },
        Expr::Binary(op @ (BinOp::Add | BinOp::Sub), x, y) => {
            Some(bin(*op, divide_exact(x, k)?, divide_exact(y, k)?))
        }
        _ => None,
    }
}

pub fn add(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Add, a, b)
}

pub fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Sub, a, b)
}

pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Mul, a, b)
}

pub fn div(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Div, a, b)
}

pub fn un(op: UnOp, a: Expr) -> Expr {
    if let Some(x) = int(&a)
        && let Ok(v) = Arith::Unbounded.unary(op, x)
    {
        return Expr::Int(v);
    }
    if let (UnOp::Not, Expr::Unary(UnOp::Not, inner)) = (op, &a) {
        // !!x is x != 0
        return bin(BinOp::Ne, (**inner).clone(), Expr::Int(0));
    }
    Expr::un(op, a)
}

/// `e` with every leaf (variable, builtin, constant) that `f` maps replaced, folded again
/// (`threadIdx` put in as 0, a loop counter one step back, known block sizes).
pub fn replace_leaves(e: &Expr, f: &impl Fn(&Expr) -> Option<Expr>) -> Expr {
    if let Some(r) = f(e) {
        return r;
    }
    match e {
        Expr::Binary(op, a, b) => bin(*op, replace_leaves(a, f), replace_leaves(b, f)),
        Expr::Unary(op, a) => un(*op, replace_leaves(a, f)),
        Expr::Cast(t, a) => Expr::Cast(*t, Box::new(replace_leaves(a, f))),
        Expr::Apply(name, args) => {
            Expr::Apply(name.clone(), args.iter().map(|a| replace_leaves(a, f)).collect())
        }
        _ => e.clone(),
    }
}

pub fn not(a: Expr) -> Expr {
    use BinOp::*;
    match a {
        Expr::Binary(op @ (Eq | Ne | Lt | Le | Gt | Ge), x, y) => {
            let neg = match op {
                Eq => Ne,
                Ne => Eq,
                Lt => Ge,
                Le => Gt,
                Gt => Le,
                _ => Lt,
            };
            Expr::Binary(neg, x, y)
        }
        other => un(UnOp::Not, other),
    }
}

/// Whether a constant warp mask names all 32 lanes (`0xffffffff`, `~0u`, `-1`): only then
/// do `__syncwarp`, the `_sync` votes, reductions and shuffles involve the whole warp.
pub fn full_warp_mask(m: i64) -> bool {
    m & 0xFFFF_FFFF == 0xFFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds() {
        let x = Expr::var("x");
        assert_eq!(add(Expr::Int(0), mul(x.clone(), Expr::Int(1))), x);
        assert_eq!(
            div(mul(x.clone(), Expr::Int(8)), Expr::Int(4)),
            mul(x.clone(), Expr::Int(2))
        );
        assert_eq!(bin(BinOp::Lt, Expr::Int(256), Expr::Int(512)), Expr::Int(1));
        assert_eq!(
            not(bin(BinOp::Lt, x.clone(), Expr::Int(3))),
            Expr::bin(BinOp::Ge, x, Expr::Int(3))
        );
    }
}
