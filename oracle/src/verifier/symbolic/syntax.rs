//! Syntactic questions about loop bodies that the symbolic pass asks: what a block
//! assigns, whether it can `break`, `continue` or `return`, whether it runs once, and
//! which loops are self-contained.

use kpl::{Block, Expr, Kernel, Stmt, StmtId, StmtKind};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The loops that do not `return` and none of whose variables (those assigned or
/// declared anywhere in them) is mentioned outside them: running such a loop changes
/// nothing later statements or enclosing loops can see but array contents (which the
/// read cache forgets after every loop anyway) and fresh atoms.
pub(super) fn self_contained_loops(kernel: &Kernel) -> HashSet<StmtId> {
    fn count(s: &Stmt, out: &mut HashMap<String, usize>) {
        mentions(s, &mut |v| *out.entry(v.to_string()).or_default() += 1);
    }
    let stmts = kernel.stmts();
    let mut total = HashMap::new();
    for s in &stmts {
        count(s, &mut total);
    }
    for e in &kernel.requires {
        e.for_each_var(&mut |v| *total.entry(v.to_string()).or_default() += 1);
    }
    let mut out = HashSet::new();
    for s in stmts.iter().filter(|s| s.kind.is_loop()) {
        let inner: Vec<&Stmt> = std::iter::once(*s).chain(subtree(s)).collect();
        if inner.iter().any(|t| matches!(t.kind, StmtKind::Return)) {
            continue;
        }
        let mut here = HashMap::new();
        for t in &inner {
            count(t, &mut here);
        }
        let assigned = inner.iter().filter_map(|t| match &t.kind {
            StmtKind::Local { var, .. }
            | StmtKind::Assign { var, .. }
            | StmtKind::Havoc { var, .. }
            | StmtKind::Read { var, .. }
            | StmtKind::For { var, .. }
            | StmtKind::Atomic { var: Some(var), .. } => Some(var),
            _ => None,
        });
        if assigned.into_iter().all(|v| here.get(v) == total.get(v)) {
            out.insert(s.id);
        }
    }
    out
}

/// Every mention of a variable by `s` itself (not its blocks): read, assigned or declared.
fn mentions(s: &Stmt, f: &mut impl FnMut(&str)) {
    let mut exprs: Vec<&Expr> = Vec::new();
    match &s.kind {
        StmtKind::Local { var, init } => {
            f(var);
            exprs.extend(init);
        }
        StmtKind::Assign { var, value } => {
            f(var);
            exprs.push(value);
        }
        StmtKind::Havoc { var, .. } => f(var),
        StmtKind::Read { var, index, .. } => {
            f(var);
            exprs.push(index);
        }
        StmtKind::Write { index, value, .. } => exprs.extend([index, value]),
        StmtKind::Atomic {
            var, index, value, ..
        } => {
            if let Some(v) = var {
                f(v);
            }
            exprs.extend([index, value]);
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => exprs.push(cond),
        StmtKind::For {
            var,
            init,
            cond,
            step,
            ..
        } => {
            f(var);
            exprs.extend([init, cond, step]);
        }
        StmtKind::Assume(e) | StmtKind::Invariant(e) => exprs.push(e),
        StmtKind::Barrier
        | StmtKind::WarpBarrier
        | StmtKind::GridBarrier
        | StmtKind::TicketBarrier
        | StmtKind::Return
        | StmtKind::Break
        | StmtKind::Continue => {}
    }
    for e in exprs {
        e.for_each_var(f);
    }
}

/// Variables a block assigns or declares (at any depth).
pub(super) fn assigned_vars(blk: &Block, out: &mut BTreeSet<String>) {
    kpl::for_each_stmt(&blk.stmts, &mut |s| {
        out.extend(s.kind.target().map(str::to_string))
    });
}

/// A `break` of this loop (not of an inner one).
/// `break` of this loop (not of a loop nested in it).
pub(super) fn has_break(blk: &Block) -> bool {
    has_jump(blk, &StmtKind::Break)
}

/// `continue` of this loop (not of a loop nested in it).
fn has_continue(blk: &Block) -> bool {
    has_jump(blk, &StmtKind::Continue)
}

/// `jump` in `blk` or its conditionals, not in nested loops.
fn has_jump(blk: &Block, jump: &StmtKind) -> bool {
    blk.stmts.iter().any(|s| match &s.kind {
        StmtKind::If {
            then_blk, else_blk, ..
        } => has_jump(then_blk, jump) || else_blk.as_ref().is_some_and(|e| has_jump(e, jump)),
        k => k == jump,
    })
}

/// The body ends with an unconditional `break;` and never continues: every thread
/// leaves the loop in its first iteration (the front ends' one-trip `while (1)` for a
/// `switch`).
pub(super) fn runs_once(body: &Block) -> bool {
    matches!(body.stmts.last().map(|s| &s.kind), Some(StmtKind::Break)) && !has_continue(body)
}

/// Every `break` of this loop comes before any assignment to a carried variable on every
/// path through the body (assignments in branches or nested loops count wherever they
/// are): a thread that breaks leaves with the head values of its iteration.
pub(super) fn break_before_assign(body: &Block, carried: &[String]) -> bool {
    fn go(blk: &Block, carried: &[String], assigned: &mut bool) -> bool {
        for s in &blk.stmts {
            match &s.kind {
                StmtKind::Break if *assigned => return false,
                StmtKind::If {
                    then_blk, else_blk, ..
                } => {
                    // The branches are alternatives: each starts from what came before.
                    let mut in_then = *assigned;
                    let mut in_else = *assigned;
                    if !go(then_blk, carried, &mut in_then) {
                        return false;
                    }
                    if let Some(e) = else_blk
                        && !go(e, carried, &mut in_else)
                    {
                        return false;
                    }
                    *assigned = in_then || in_else;
                }
                _ => {
                    let mut vars = BTreeSet::new();
                    match &s.kind {
                        StmtKind::Local { var, .. }
                        | StmtKind::Assign { var, .. }
                        | StmtKind::Havoc { var, .. }
                        | StmtKind::Read { var, .. }
                        | StmtKind::For { var, .. }
                        | StmtKind::Atomic { var: Some(var), .. } => {
                            vars.insert(var.clone());
                        }
                        _ => {}
                    }
                    for inner in s.blocks() {
                        assigned_vars(inner, &mut vars);
                    }
                    if vars.iter().any(|v| carried.contains(v)) {
                        *assigned = true;
                    }
                }
            }
        }
        true
    }
    go(body, carried, &mut false)
}

/// The statements of a statement's blocks, at any depth.
pub(super) fn subtree(s: &Stmt) -> Vec<&Stmt> {
    let mut out = Vec::new();
    for blk in s.blocks() {
        for t in &blk.stmts {
            out.push(t);
            out.extend(subtree(t));
        }
    }
    out
}

pub(super) fn has_return(blk: &Block) -> bool {
    blk.stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Return) || s.blocks().into_iter().any(has_return))
}
