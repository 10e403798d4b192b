//! The divergence phase: per barrier, whether two threads can disagree on reaching it,
//! asked before any race query since only never-divergent barriers order accesses.

use crate::{Divergence, Report};

use super::pairs::many_blocks;
use super::queries::{Checker, Outcome};
use super::symbolic;
use super::term::Class;

/// Divergence first, since only never-divergent barriers order accesses: fills
/// `checker.uniform` (one entry per barrier) for the race queries, and reports the
/// barriers that may diverge (undecided ones too, with a note).
pub(super) fn divergences(checker: &mut Checker, report: &mut Report) {
    let sum = checker.sum;
    for bar in &sum.barriers {
        let out = if bar.grid {
            grid_divergence(checker, bar)
        } else if sum.class(&bar.pred) <= Class::Block {
            Outcome::Unsat
        } else {
            checker.divergence(bar)
        };
        checker.uniform.push(!out.possible());
        // A block that skips a last-block ticket is not an error: then no block is
        // last, and the ticket orders nothing (it is not uniform, above).
        if bar.ticket {
            continue;
        }
        match out {
            Outcome::Unsat | Outcome::Benign => {}
            Outcome::Sat(w) => report.divergences.push(Divergence {
                stmt: bar.stmt,
                span: bar.span,
                witness: Some(*w),
                replay: None,
            }),
            Outcome::Unknown(why) => {
                report.notes.push(format!(
                    "line {}: the solver could not decide whether this barrier diverges ({why}); \
                     reported as divergent",
                    bar.span.line
                ));
                report.divergences.push(Divergence {
                    stmt: bar.stmt,
                    span: bar.span,
                    witness: None,
                    replay: None,
                });
            }
        }
    }
}

/// Whether two threads of the grid can disagree on reaching a grid barrier: two threads
/// of one block (unless its guard is block-uniform), then two threads of different
/// blocks (unless it is grid-uniform, or the launch has one block).
fn grid_divergence(checker: &Checker, bar: &symbolic::BarrierFact) -> Outcome {
    let sum = checker.sum;
    let class = sum.class(&bar.pred);
    if class > Class::Block {
        let out = checker.divergence(bar);
        if out.possible() {
            return out;
        }
    }
    if class > Class::Grid && many_blocks(sum) {
        return checker.divergence_across_blocks(bar);
    }
    Outcome::Unsat
}
