//! Loop invariants as checked hints: candidates generated from a loop (and the kernel's
//! own `invariant` statements, GPUVerify's `__invariant`) are proved Houdini-style with
//! the query engine, and only the proved ones are used.
//!
//! A loop-carried value without a closed form is an arbitrary value at every iteration
//! but the first ([`super::symbolic`]); an invariant `I(x, k)` of the start-of-iteration
//! values `x` and the iteration number `k` constrains it again:
//! - **candidates** ([`super::candidates::generate`], and `Exec::conditional_forms` in `symbolic`):
//!   monotone bounds (`x >= init`, `x <= init`), every comparison of the loop guard and
//!   of the conditions in the body that reads the carried values turned into `<=`,
//!   `>=`, `<`, `>` (bounds of a counter that goes up and down, `i + 1 <= mark` from
//!   `if (i + 1 == mark)`), closed forms under a condition (`c → x == F(k)` for
//!   variables updated only under `if (c)`), and the kernel's `invariant` statements;
//! - **proof** ([`prove`]): the base case `I(init, 0)` and the inductive step
//!   `guard(x) ∧ no exit in iteration k ∧ ⋀ I(x, k) ⟹ I(end(x), k + 1)` over one thread
//!   whose every read, trip count and unknown is arbitrary, so a proved invariant holds
//!   at the head of every iteration a thread reaches, whatever the other threads do.
//!   Houdini: a candidate refuted by a model is dropped and the rest asked again, until
//!   the remaining ones are inductive together. Each proof runs in the kernel's own Z3
//!   context within [`super::Limits::invariants`] resource units (never wall time);
//!   an undecided proof drops its candidates.
//! - **use** ([`apply`]): a proved invariant becomes an `assume` at the head of the loop
//!   body (for the values of iteration `k`) and one right after the loop (for the head
//!   values the thread left with: those of iteration `trip`, or of `trip - 1` for a
//!   thread that left by a `break` before which nothing is assigned).

use z3::Solver;
use z3::ast::Bool;

use super::encode::{Ctx, Encoder, Map};
use super::solver::{resource_count, set_limit};
use super::symbolic::{AssumeFact, LoopInvariants, Origin, Summary, substitute_atoms, substitute_iter};
use super::term::{AtomId, T, Term};
use std::collections::HashMap;

/// What became of one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Proved,
    /// False before the first iteration.
    NotInitially,
    /// Not preserved by an iteration (with the other surviving candidates).
    NotInductive,
    /// The solver gave up (out of units): not used.
    Undecided,
}

/// Proves the candidates of every loop of `sum` (in the current Z3 context, which must
/// be the kernel's), within `budget` resource units for all of them together.
pub(super) fn prove(sum: &Summary, budget: u64) -> Vec<Vec<Verdict>> {
    let mut meter = Budget {
        left: budget,
        solver: Solver::new(),
        limit_set: 0,
    };
    let out: Vec<Vec<Verdict>> = sum
        .invariants
        .iter()
        .map(|l| prove_loop(sum, l, &mut meter))
        .collect();
    out
}

/// The proofs' solver (one per kernel, a scope per query) and their units left.
struct Budget {
    left: u64,
    solver: Solver,
    /// The limit last set on `solver` (0: none yet): setting it costs more than most
    /// proofs, so it is set only when it changes.
    limit_set: u64,
}

/// The substitution of the start atoms by `by`.
fn starts_map(l: &LoopInvariants, by: &[T]) -> HashMap<AtomId, T> {
    l.starts.iter().copied().zip(by.iter().cloned()).collect()
}

fn prove_loop(sum: &Summary, l: &LoopInvariants, meter: &mut Budget) -> Vec<Verdict> {
    let b = sum.builder();
    let n = l.candidates.len();
    let mut verdict = vec![Verdict::Proved; n];
    // Base case: I(init, 0).
    let base_map = starts_map(l, &l.inits);
    let base: Vec<T> = l
        .candidates
        .iter()
        .map(|c| substitute_atoms(&b, &substitute_iter(&b, &c.cond, l.lp, &b.int(0)), &base_map))
        .collect();
    houdini(
        sum,
        &mut verdict,
        Verdict::NotInitially,
        meter,
        &base,
        |enc, cx, _| {
            let hyps = Vec::new();
            let goals = base.iter().map(|t| enc.cond(t, cx)).collect();
            (hyps, goals)
        },
    );
    // Inductive step: guard(x) ∧ no exit ∧ ⋀ I(x, k) ⟹ I(end(x), k + 1).
    let k = b.leaf(Term::Iter(l.lp));
    let next_map = starts_map(l, &l.ends);
    let next: Vec<T> = l
        .candidates
        .iter()
        .map(|c| {
            substitute_atoms(
                &b,
                &substitute_iter(&b, &c.cond, l.lp, &b.iter_add(k.clone(), 1)),
                &next_map,
            )
        })
        .collect();
    let cands: Vec<T> = l.candidates.iter().map(|c| c.cond.clone()).collect();
    houdini(
        sum,
        &mut verdict,
        Verdict::NotInductive,
        meter,
        &next,
        |enc, cx, alive| {
            let mut hyps = vec![enc.cond(&l.guard, cx), enc.cond(&l.exits, cx).not()];
            for (c, live) in cands.iter().zip(alive) {
                if *live {
                    hyps.push(enc.cond(c, cx));
                }
            }
            let goals = next.iter().map(|t| enc.cond(t, cx)).collect();
            (hyps, goals)
        },
    );
    verdict
}

/// Drops (marking them `fail`) the candidates still `Proved` whose goal a model of the
/// hypotheses refutes, until the hypotheses imply all the remaining goals. `build`
/// gives the hypotheses and the goals (one per candidate) given the candidates still
/// alive, which the hypotheses may assume: each round assumes only those.
fn houdini(
    sum: &Summary,
    verdict: &mut [Verdict],
    fail: Verdict,
    meter: &mut Budget,
    sizes: &[T],
    build: impl Fn(&mut Encoder, usize, &[bool]) -> (Vec<Bool>, Vec<Bool>),
) {
    loop {
        let alive: Vec<usize> = (0..verdict.len())
            .filter(|&j| verdict[j] == Verdict::Proved)
            .collect();
        if alive.is_empty() {
            return;
        }
        let mut enc = Encoder::new(sum);
        let cx = enc.ctx(Ctx {
            copy: 0,
            block: 0,
            iters: Map::new(),
        });
        let live: Vec<bool> = verdict.iter().map(|v| *v == Verdict::Proved).collect();
        let (hyps, goals) = build(&mut enc, cx, &live);
        let mut fs = enc.launch_facts(&[(0, 0)]);
        for r in &sum.requires {
            fs.push(enc.cond(r, cx));
        }
        fs.extend(hyps);
        let alive_goals: Vec<Bool> = alive.iter().map(|&j| goals[j].clone()).collect();
        fs.push(Bool::and(&alive_goals).not());
        enc.finish();
        fs.append(&mut enc.facts);
        // Below a whole query's units, a power of two: the limit then changes a few
        // times rather than at every query (setting it costs more than most proofs).
        let limit = match meter.left {
            0 => 0,
            left if left >= PER_QUERY => PER_QUERY,
            left => 1 << left.ilog2(),
        };
        if limit == 0 || crate::interrupt::cancelled() {
            // No units left, or the run was cancelled (then its answers are dropped).
            mark(verdict, &alive, Verdict::Undecided);
            return;
        }
        let changed = std::mem::replace(&mut meter.limit_set, limit) != limit;
        let s = &meter.solver;
        s.push();
        if changed {
            set_limit(s, limit);
        }
        let before = resource_count(s);
        for f in &fs {
            s.assert(f);
        }
        let result = s.check();
        // The candidates a model refutes (none: no model).
        let refuted: Vec<usize> = match (&result, s.get_model()) {
            (z3::SatResult::Sat, Some(m)) => alive
                .iter()
                .copied()
                .filter(|&j| m.eval(&goals[j], true).and_then(|v| v.as_bool()) != Some(true))
                .collect(),
            _ => Vec::new(),
        };
        s.pop(1);
        let used = resource_count(s).saturating_sub(before);
        meter.left = meter.left.saturating_sub(used);
        match result {
            z3::SatResult::Unsat => return,
            z3::SatResult::Unknown if alive.len() > 1 => {
                // The hardest candidate (the largest) is likely why: without it.
                let size = |j: usize| {
                    let mut n = 0usize;
                    super::term::any_node(&sizes[j], &mut |_| {
                        n += 1;
                        false
                    });
                    n
                };
                let worst = alive
                    .iter()
                    .copied()
                    .max_by_key(|&j| (size(j), j))
                    .unwrap_or(alive[0]);
                mark(verdict, &[worst], Verdict::Undecided);
            }
            z3::SatResult::Unknown => {
                mark(verdict, &alive, Verdict::Undecided);
                return;
            }
            z3::SatResult::Sat => {
                if refuted.is_empty() {
                    mark(verdict, &alive, Verdict::Undecided);
                    return;
                }
                mark(verdict, &refuted, fail);
            }
        }
    }
}

/// Units one proof query may take.
const PER_QUERY: u64 = 1_000_000;

fn mark(verdict: &mut [Verdict], which: &[usize], v: Verdict) {
    for &j in which {
        verdict[j] = v;
    }
}

/// Adds the proved invariants of every loop to the summary's `assume`s: at the head of
/// the loop body, and after the loop.
pub(super) fn apply(sum: &mut Summary, verdicts: &[Vec<Verdict>]) {
    let b = sum.builder();
    let mut facts = Vec::new();
    for (l, vs) in sum.invariants.iter().zip(verdicts) {
        let proved: Vec<&T> = l
            .candidates
            .iter()
            .zip(vs)
            .filter(|(_, v)| **v == Verdict::Proved)
            .map(|(c, _)| &c.cond)
            .collect();
        if proved.is_empty() {
            continue;
        }
        let conj = |map: &HashMap<AtomId, T>, k: Option<&T>| {
            proved.iter().fold(b.tt(), |acc, c| {
                let c = match k {
                    Some(k) => substitute_iter(&b, c, l.lp, k),
                    None => (*c).clone(),
                };
                b.and(acc, substitute_atoms(&b, &c, map))
            })
        };
        if l.in_loop {
            facts.push(AssumeFact {
                pred: l.head_pred.clone(),
                cond: conj(&starts_map(l, &l.head), None),
                loops: l.head_loops.clone(),
                pos: l.head_pos,
                two_thread: false,
            });
        }
        // After the loop, only the invariants over variables whose value there is a
        // head value.
        let inexact: Vec<AtomId> = l
            .starts
            .iter()
            .zip(&l.after_exact)
            .filter(|(_, e)| !**e)
            .map(|(s, _)| *s)
            .collect();
        let after_ok: Vec<&T> = proved
            .iter()
            .copied()
            .filter(|c| {
                !super::term::any_node(c, &mut |n| matches!(n, Term::Atom(a, _) if inexact.contains(a)))
            })
            .collect();
        let conj_after = |map: &HashMap<AtomId, T>, k: &T| {
            after_ok.iter().fold(b.tt(), |acc, c| {
                b.and(acc, substitute_atoms(&b, &substitute_iter(&b, c, l.lp, k), map))
            })
        };
        let after = l.after.iter().fold(b.tt(), |acc, (when, vals, k)| {
            let holds = conj_after(&starts_map(l, vals), k);
            b.and(acc, b.or(b.not(when.clone()), holds))
        });
        if !l.after.is_empty() {
            facts.push(AssumeFact {
                pred: l.after_pred.clone(),
                cond: after,
                loops: l.after_loops.clone(),
                pos: l.after_pos,
                two_thread: false,
            });
        }
    }
    sum.assumes.extend(facts);
}

/// The notes of a check about the kernel's own invariants: those not proved (and so
/// ignored) and those not at the head of a loop.
pub(super) fn notes(sum: &Summary, verdicts: &[Vec<Verdict>]) -> Vec<String> {
    let mut out = Vec::new();
    for (l, vs) in sum.invariants.iter().zip(verdicts) {
        for (c, v) in l.candidates.iter().zip(vs) {
            let Origin::Annotated(span) = c.origin else {
                continue;
            };
            let why = match v {
                Verdict::Proved => continue,
                Verdict::NotInitially => "it does not hold before the first iteration",
                Verdict::NotInductive => "an iteration does not preserve it",
                Verdict::Undecided => "the solver could not decide it",
            };
            out.push(format!(
                "line {}: invariant not proved ({why}), ignored",
                span.line
            ));
        }
    }
    for span in &sum.misplaced_invariants {
        out.push(format!(
            "line {}: invariant not at the head of a loop body, ignored",
            span.line
        ));
    }
    out
}
