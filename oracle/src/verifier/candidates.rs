//! Loop-invariant candidates, generated from one loop's terms during symbolic execution
//! (`symbolic` calls [`generate`] and [`relevant_vars`]): pure term work, apart from
//! their Houdini proof in `invariants`, which needs the encoder and the query engine.

use super::term::{AtomId, Builder, T, Term};
use kpl::BinOp;
use std::collections::HashSet;

/// At most this many generated candidates per loop (annotated ones always count).
const MAX_CANDIDATES: usize = 48;

/// The candidates generated from a loop's terms (over its start atoms `starts`):
/// monotone bounds, and the comparisons of the guard, the body's conditions and the
/// exits, with no value read in the body (`body_atom`) in them.
#[allow(clippy::too_many_arguments)]
pub(super) fn generate(
    b: &Builder,
    relevant: &[bool],
    starts: &[T],
    inits: &[T],
    guard: &T,
    ends: &[T],
    exits: &T,
    body_atom: &dyn Fn(AtomId) -> bool,
    inner_loop_atom: &dyn Fn(AtomId) -> bool,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    let mut push = |t: T| {
        if t.as_const().is_none() && out.len() < MAX_CANDIDATES && !out.iter().any(|o| same(o, &t)) {
            out.push(t);
        }
    };
    // A variable the body always sets before reading it (`iState` of an outer loop
    // whose body runs `for (iState = 1; ..)`) has no start value in any term: its
    // carried value does not matter.
    let read = |x: &T| {
        std::iter::once(guard)
            .chain(ends)
            .chain(std::iter::once(exits))
            .any(|t| {
                super::term::any_node(
                    t,
                    &mut |n| matches!((n, &**x), (Term::Atom(a, _), Term::Atom(b, _)) if a == b),
                )
            })
    };
    for (((x, init), end), rel) in starts.iter().zip(inits).zip(ends).zip(relevant) {
        // A value an inner loop computes (its trip count in it) needs that loop's
        // invariants to be bounded: not worth the proof (costly terms).
        let inner = super::term::any_node(end, &mut |n| matches!(n, Term::Atom(a, _) if inner_loop_atom(*a)));
        if x == end || !rel || inner || !read(x) {
            continue;
        }
        push(b.bin(BinOp::Ge, x.clone(), init.clone()));
        push(b.bin(BinOp::Le, x.clone(), init.clone()));
    }
    let start_ids: Vec<AtomId> = starts
        .iter()
        .filter_map(|t| match &**t {
            Term::Atom(id, _) => Some(*id),
            _ => None,
        })
        .collect();
    let mut cmps = Vec::new();
    let mut seen = HashSet::new();
    for t in std::iter::once(guard).chain(ends).chain(std::iter::once(exits)) {
        comparisons(t, &mut seen, &mut cmps);
    }
    // A comparison of a value the body has already changed on some paths (`i + 1 ==
    // mark` after `if (..) { i--; continue; }`) also gives the comparison of the value
    // on each path: every `ite` replaced by one of its branches.
    let mut projected = Vec::new();
    for (x, y) in &cmps {
        for then in [false, true] {
            let p = (project(b, x, then), project(b, y, then));
            let has = |v: &Vec<(T, T)>| v.iter().any(|(a, c)| same(a, &p.0) && same(c, &p.1));
            if !has(&cmps) && !has(&projected) {
                projected.push(p);
            }
        }
    }
    cmps.extend(projected);
    for (x, y) in cmps {
        let usable = |t: &T| {
            let mut start = false;
            let mut body = false;
            super::term::any_node(t, &mut |n| {
                if let Term::Atom(id, _) = n {
                    start |= start_ids.contains(id);
                    body |= body_atom(*id);
                }
                false
            });
            (start, body)
        };
        let ((sx, bx), (sy, by)) = (usable(&x), usable(&y));
        if !(sx || sy) || bx || by {
            continue;
        }
        for op in [BinOp::Le, BinOp::Ge, BinOp::Lt, BinOp::Gt] {
            push(b.bin(op, x.clone(), y.clone()));
        }
    }
    out
}

/// The variables whose values can matter to an index, a condition or an atomic's
/// operand (directly or through assignments): only their invariants are worth proving
/// (a value that only flows into stored data would cost proofs for nothing).
pub(super) fn relevant_vars(kernel: &kpl::Kernel) -> HashSet<String> {
    use kpl::StmtKind as K;
    let mut out = HashSet::new();
    let stmts = kernel.stmts();
    let add = |e: &kpl::Expr, out: &mut HashSet<String>| {
        e.for_each_var(&mut |v| {
            out.insert(v.to_string());
        })
    };
    for s in &stmts {
        match &s.kind {
            K::Read { index, .. } | K::Write { index, .. } => add(index, &mut out),
            K::Atomic { index, value, .. } => {
                add(index, &mut out);
                add(value, &mut out);
            }
            K::If { cond, .. } | K::While { cond, .. } | K::Assume(cond) | K::Invariant(cond) => {
                add(cond, &mut out)
            }
            K::For { var, cond, .. } => {
                add(cond, &mut out);
                out.insert(var.clone());
            }
            _ => {}
        }
    }
    loop {
        let before = out.len();
        for s in &stmts {
            match &s.kind {
                K::Assign { var, value }
                | K::Local {
                    var,
                    init: Some(value),
                } if out.contains(var) => add(value, &mut out),
                K::For { var, init, step, .. } if out.contains(var) => {
                    add(init, &mut out);
                    add(step, &mut out);
                }
                _ => {}
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The same term: the same node, or equal small terms (a deep comparison of large
/// shared terms can take exponential time).
pub(super) fn same(a: &T, b: &T) -> bool {
    let small = |t: &T| {
        let mut n = 0;
        !super::term::any_node(t, &mut |_| {
            n += 1;
            n > 64
        })
    };
    std::rc::Rc::ptr_eq(a, b) || (small(a) && small(b) && a == b)
}

/// `t` with every `ite` replaced by its then (`then`) or its else branch.
fn project(b: &Builder, t: &T, then: bool) -> T {
    let mut r = super::term::Rewriter::new(*b, |_, n| match &**n {
        Term::Ite(_, x, y) => Some(if then { x.clone() } else { y.clone() }),
        _ => None,
    });
    r.run(t)
}

/// The operands of the comparisons in a term.
fn comparisons(t: &T, seen: &mut HashSet<*const Term>, out: &mut Vec<(T, T)>) {
    if !seen.insert(std::rc::Rc::as_ptr(t)) {
        return;
    }
    match &**t {
        Term::Bin(op, x, y) => {
            if matches!(
                op,
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
            ) && !out.iter().any(|(a, c)| same(a, x) && same(c, y))
            {
                out.push((x.clone(), y.clone()));
            }
            comparisons(x, seen, out);
            comparisons(y, seen, out);
        }
        Term::Un(_, x) | Term::Cast(_, x) => comparisons(x, seen, out),
        Term::Ite(c, x, y) => {
            comparisons(c, seen, out);
            comparisons(x, seen, out);
            comparisons(y, seen, out);
        }
        _ => {}
    }
}
