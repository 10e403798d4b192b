//! [`Kernel`] → `.kpl` text. The output parses back to the same kernel (up to spans):
//! one statement per line, four-space indentation, parentheses only where C precedence
//! needs them.

use std::fmt::Write;

use crate::IntTy;
use crate::ir::*;

/// Prints kernels in the `.kpl` syntax, separated by blank lines.
pub fn print(kernels: &[Kernel]) -> String {
    let mut out = String::new();
    for (i, k) in kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_kernel(k, &mut out);
    }
    out
}

pub fn print_kernel(k: &Kernel, out: &mut String) {
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| match p {
            Param::Array { name, space } => format!("{} {name}[]", space.keyword()),
            Param::Scalar { name, ty } if *ty == IntTy::default() => name.clone(),
            Param::Scalar { name, ty } => format!("{ty} {name}"),
        })
        .collect();
    let _ = write!(out, "kernel {}({})", k.name, params.join(", "));
    if !k.requires.is_empty() {
        let conj = k
            .requires
            .iter()
            .map(|r| expr_prec(r, BinOp::And.precedence() + 1))
            .collect::<Vec<_>>()
            .join(" && ");
        // One `requires` clause holds one expression: several become a conjunction.
        let _ = write!(
            out,
            " requires {}",
            if k.requires.len() == 1 {
                expr(&k.requires[0])
            } else {
                conj
            }
        );
    }
    out.push(' ');
    block(&k.body, 0, out);
    out.push('\n');
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn block(b: &Block, depth: usize, out: &mut String) {
    out.push_str("{\n");
    for s in &b.stmts {
        stmt(s, depth + 1, out);
    }
    indent(depth, out);
    out.push('}');
}

/// Prints one statement (and its nested blocks) at the given depth, ending with a newline.
pub fn stmt(s: &Stmt, depth: usize, out: &mut String) {
    indent(depth, out);
    match &s.kind {
        StmtKind::Local { var, init: None } => {
            let _ = write!(out, "local {var};");
        }
        StmtKind::Local { var, init: Some(e) } => {
            let _ = write!(out, "local {var} = {};", expr(e));
        }
        StmtKind::Assign { var, value } => {
            let _ = write!(out, "{var} = {};", expr(value));
        }
        StmtKind::Havoc { var, warp } => {
            let kw = if *warp { "warp_havoc" } else { "havoc" };
            let _ = write!(out, "{kw} {var};");
        }
        StmtKind::Read {
            var,
            array,
            index,
            ty,
        } => {
            let _ = match ty {
                Some(t) => write!(out, "{var} = {}({array}[{}]);", t.name(), expr(index)),
                None => write!(out, "{var} = {array}[{}];", expr(index)),
            };
        }
        StmtKind::Write { array, index, value } => {
            let _ = write!(out, "{array}[{}] = {};", expr(index), expr(value));
        }
        StmtKind::Atomic {
            var,
            op,
            array,
            index,
            value,
            ty,
        } => {
            if let Some(v) = var {
                let _ = write!(out, "{v} = ");
            }
            let call = format!("{}({array}[{}], {})", op.keyword(), expr(index), expr(value));
            let _ = match ty {
                Some(t) => write!(out, "{}({call});", t.name()),
                None => write!(out, "{call};"),
            };
        }
        StmtKind::Barrier => out.push_str("barrier;"),
        StmtKind::WarpBarrier => out.push_str("warp_barrier;"),
        StmtKind::GridBarrier => out.push_str("grid_barrier;"),
        StmtKind::TicketBarrier => out.push_str("ticket_barrier;"),
        StmtKind::If {
            cond,
            then_blk,
            else_blk,
        } => {
            let _ = write!(out, "if ({}) ", expr(cond));
            block(then_blk, depth, out);
            if let Some(e) = else_blk {
                out.push_str(" else ");
                block(e, depth, out);
            }
        }
        StmtKind::While { cond, body } => {
            let _ = write!(out, "while ({}) ", expr(cond));
            block(body, depth, out);
        }
        StmtKind::For {
            var,
            init,
            cond,
            step,
            body,
        } => {
            let _ = write!(
                out,
                "for ({var} = {}; {}; {var} = {}) ",
                expr(init),
                expr(cond),
                expr(step)
            );
            block(body, depth, out);
        }
        StmtKind::Assume(e) => {
            let _ = write!(out, "assume {};", expr(e));
        }
        StmtKind::Invariant(e) => {
            let _ = write!(out, "invariant {};", expr(e));
        }
        StmtKind::Return => out.push_str("return;"),
        StmtKind::Break => out.push_str("break;"),
        StmtKind::Continue => out.push_str("continue;"),
    }
    out.push('\n');
}

/// An expression in `.kpl` (and C) syntax.
pub fn expr(e: &Expr) -> String {
    expr_prec(e, 0)
}

const UNARY_PREC: u8 = 11;

/// Prints `e` for a context that binds with precedence `min`: parenthesized when `e`
/// binds more loosely.
fn expr_prec(e: &Expr, min: u8) -> String {
    match e {
        Expr::Int(n) if *n < 0 => format!("(-{})", n.unsigned_abs()),
        Expr::Int(n) => n.to_string(),
        Expr::Var(v) => v.clone(),
        Expr::Builtin(b) => match b.dim() {
            Dim::X => b.keyword().to_string(),
            d => format!("{}.{}", b.keyword(), d.suffix()),
        },
        Expr::Unary(op, a) => {
            let sym = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
                UnOp::BitNot => "~",
            };
            let inner = expr_prec(a, UNARY_PREC);
            // `- -x` must not print as `--x`.
            let sep = if inner.starts_with(sym) { " " } else { "" };
            format!("{sym}{sep}{inner}")
        }
        Expr::Binary(op, a, b) => {
            let p = op.precedence();
            // Left-associative: the right operand needs parentheses at equal precedence.
            let s = format!("{} {} {}", expr_prec(a, p), op.symbol(), expr_prec(b, p + 1));
            if p < min { format!("({s})") } else { s }
        }
        Expr::Cast(ty, a) => format!("{ty}({})", expr(a)),
        Expr::Other(a) => format!("other({})", expr(a)),
        Expr::Apply(f, args) => {
            let args: Vec<String> = args.iter().map(expr).collect();
            format!("@{f}({})", args.join(", "))
        }
    }
}
