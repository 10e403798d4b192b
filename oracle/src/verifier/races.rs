//! The race phase of a check: every conflicting pair in program order, screened or
//! ruled out by the unrolled test where that pays, its findings turned into the
//! report's races and benign pairs (one lane's pairs at a time, see [`super::lanes`]).

use std::collections::HashMap;

use kpl::Kernel;

use crate::{Access, BenignPair, Race, Report};

use super::cache::Cache;
use super::pair_race::PairRace;
use super::pairs::{Apart, Scopes, conflicting_indices, many_blocks, orders};
use super::queries::{Attempt, Checker, Order, Outcome, Scope, Separation};
use super::screen::{
    PairProgress, SCREEN_BUDGET, SCREEN_WORTH, Screen, pair_key, pair_progress, race_types, screen_array,
};
use super::symbolic::AccessFact;
use super::{StaticVerifier, concrete, lanes, unrolled};

/// The shared state of one check's race queries: the per-pair loop, the arrays
/// screened, and the time spent per array that decides when screening pays.
pub(super) struct RacePhase<'a, 's> {
    verifier: &'a StaticVerifier,
    checker: &'a Checker<'s>,
    pub(super) cache: &'a mut Cache,
    /// Taken from the cache for the check, put back by [`RacePhase::finish`].
    screened: Screen,
    pub(super) progress: HashMap<&'s str, PairProgress>,
    many_blocks: bool,
    /// Pairs no two threads can race on whatever the values (no query needed).
    apart: Apart,
    /// Stop at the first pair that may race or is benign (and screen no array: in a
    /// check without loop invariants the pair queries cost more, and so screens were
    /// started that then did not pay, measured on the corpus).
    pub(super) first_defect: bool,
    /// The pairs this phase asks about (one lane's, see [`lanes`]).
    pub(super) lane: lanes::Lane<'a>,
    /// Race types runs of the kernel showed ([`concrete`]).
    concrete: concrete::Concrete<'a>,
    /// The unrolled test's view of the kernel, when it applies ([`unrolled`]).
    unrolled: Option<unrolled::Unrolled<'s>>,
}

impl<'a, 's> RacePhase<'a, 's> {
    pub(super) fn new(
        verifier: &'a StaticVerifier,
        checker: &'a Checker<'s>,
        cache: &'a mut Cache,
        kernel: &'a Kernel,
    ) -> Self {
        let sum = checker.sum;
        let last_yield = cache.run_yield;
        let many_blocks = many_blocks(sum) && !verifier.opts.only_intra_group;
        let mut apart = Apart::new(sum, many_blocks);
        if !verifier.dependence_test {
            apart.forms.iter_mut().for_each(|f| *f = None);
        }
        RacePhase {
            verifier,
            checker,
            screened: cache.screen.take().unwrap_or_default(),
            cache,
            progress: pair_progress(sum, &apart),
            many_blocks,
            apart,
            first_defect: false,
            lane: lanes::Lane::All,
            unrolled: if verifier.unrolled_test {
                unrolled::Unrolled::new(sum)
            } else {
                None
            },
            concrete: concrete::Concrete::new(
                kernel,
                &verifier.opts,
                sum,
                verifier.concrete_after,
                last_yield,
            ),
        }
    }

    /// Asks about every conflicting pair in program order, adding their races and notes
    /// to `report` (unordered: see [`order_races`]).
    pub(super) fn run(&mut self, report: &mut Report) {
        let sum = self.checker.sum;
        for (nth, (i, j)) in conflicting_indices(&sum.accesses).enumerate() {
            let scopes = self.apart.scopes(sum, i, j);
            if !scopes.same && !scopes.cross {
                continue;
            }
            let (a, b) = (&sum.accesses[i], &sum.accesses[j]);
            if !self.lane.asks(&a.array, nth) {
                continue;
            }
            self.screen_if_worth(a);
            self.pair(a, b, scopes, report);
            if self.first_defect && !(report.races.is_empty() && report.benign.is_empty()) {
                return;
            }
        }
    }

    /// Screens `a`'s array once its remaining pair queries are expected to take more
    /// than [`SCREEN_WORTH`] units, unless most of its pairs asked so far race. That
    /// decision is taken once per array and kernel (a kernel checked again, as the
    /// synthesizer does, keeps it): an array racing when first weighed is one stripped
    /// of its barriers, and the placements checked next synchronize it, which makes a
    /// grouped query over it harder than its pair queries.
    fn screen_if_worth(&mut self, a: &AccessFact) {
        let Some(progress) = self.progress.get(a.array.as_str()) else {
            return;
        };
        let expected = progress.remaining();
        if self.verifier.screening
            && !self.first_defect
            && expected > SCREEN_WORTH
            && self.screened.arrays.insert(a.array.clone())
            && !progress.mostly_racing()
        {
            self.screened.ran.insert(a.array.clone());
            let budget = (expected / 3.0).clamp(SCREEN_BUDGET.0, SCREEN_BUDGET.1) as u64;
            let sum = self.checker.sum;
            screen_array(
                self.checker,
                sum,
                &a.array,
                self.many_blocks,
                budget,
                &mut self.screened,
            );
        }
    }

    /// The race queries of one pair (scopes the screen did not rule out, every race
    /// type), timed for [`PairProgress`]; a race found goes to `report`.
    fn pair(&mut self, a: &AccessFact, b: &AccessFact, scopes: Scopes, report: &mut Report) {
        let limits = self.verifier.limits;
        let spent_before = self.checker.meter.spent();
        let attempts = limits.attempts();
        let key = pair_key(a, b);
        let scopes = Scopes {
            same: scopes.same && !self.screened.same.contains(&key),
            cross: scopes.cross && !self.screened.cross.contains(&key),
        };
        if !scopes.same && !scopes.cross {
            return;
        }
        if scopes.same {
            self.unroll(a, b);
        }
        let found = PairRace::find(
            self.checker,
            self.cache,
            &mut self.concrete,
            a,
            b,
            scopes,
            &attempts,
        );
        if let Some(p) = self.progress.get_mut(a.array.as_str()) {
            p.done += race_types(a, b);
            p.racing += usize::from(found.intra) + found.inter.len() + found.backward.len();
            p.spent += self.checker.meter.spent() - spent_before;
        }
        report.notes.extend(found.notes);
        let warp_local = self.verifier.opts.classify_warps
            && found.fixable
            && warp_local(
                self.checker,
                a,
                b,
                found.intra,
                &found.inter,
                limits.last_attempt(),
            );
        let racing = found.intra || !found.inter.is_empty();
        if found.benign && !racing {
            report.benign.push(BenignPair {
                array: a.array.clone(),
                first: access(a),
                second: access(b),
            });
        }
        if racing {
            report.races.push(Race {
                array: a.array.clone(),
                space: a.space,
                first: access(a),
                second: access(b),
                intra: found.intra,
                forward_only: found
                    .inter
                    .iter()
                    .copied()
                    .filter(|j| {
                        self.verifier.opts.race_directions && a.stmt != b.stmt && !found.backward.contains(j)
                    })
                    .collect(),
                inter: found.inter,
                fixable: found.fixable,
                warp_local,
                witness: found.witness,
                replay: None,
            });
        }
    }

    /// Rules out race types of the pair within a block by the unrolled test
    /// ([`unrolled`]): a type at which no two threads meet at all, as the barrier-free
    /// answer (the race queries take it from the cache, whatever the barriers); the
    /// same-iteration type, when the barriers of this check separate every meeting, for
    /// this check.
    fn unroll(&mut self, a: &AccessFact, b: &AccessFact) {
        let Some(u) = &self.unrolled else {
            return;
        };
        for order in orders(a, b) {
            let key = (a.stmt, b.stmt, order);
            // Types across iterations that the barriers always separate need no answer
            // (in a kernel with barriers in its loops, most of them).
            if matches!(self.cache.same.get(&key), Some((Outcome::Unsat, _)))
                || (order != Order::Intra && self.checker.separation(a, b, order) == Separation::Always)
            {
                continue;
            }
            // Meetings are kept for the barrier count of the same-iteration type only.
            let keep = if order == Order::Intra {
                unrolled::MAX_MEETINGS
            } else {
                0
            };
            let meetings = self
                .cache
                .unrolled
                .entry(key)
                .or_insert_with(|| u.meetings(a, b, order, keep));
            match meetings {
                Some(m) if m.is_empty() => {
                    let limit = self.verifier.limits.last_attempt();
                    self.cache.same.insert(key, (Outcome::Unsat, limit));
                }
                Some(m) if order == Order::Intra && u.all_separated(a, b, m) => {
                    self.cache
                        .synced
                        .insert((a.stmt, b.stmt, order, Scope::SameBlock));
                    self.cache.separated += 1;
                }
                _ => {}
            }
        }
    }

    /// Keeps the screened pairs for the next check of the same kernel.
    pub(super) fn finish(self) {
        self.cache.screen = Some(self.screened);
        self.cache.shown = self.concrete.shown;
        // A first pass stops at its first racing pair: its runs say nothing of
        // what they would save in a whole check.
        if !self.first_defect
            && let Some(y) = self.concrete.run_yield()
        {
            self.cache.run_yield = Some(y);
        }
    }
}

/// Races in source order (then statement order), whatever order they were found in.
pub(super) fn order_races(report: &mut Report) {
    report.races.sort_by_key(|r| {
        (
            r.first.span.start,
            r.second.span.start,
            r.first.stmt,
            r.second.stmt,
        )
    });
    report.benign.sort_by_key(|p| {
        (
            p.first.span.start,
            p.second.span.start,
            p.first.stmt,
            p.second.stmt,
        )
    });
}

/// Whether every race type found for a same-block pair (`intra`, `inter` depths, each
/// in both directions) is impossible between threads of different warps, barriers
/// counted (`CheckOptions::classify_warps`). Undecided counts as not warp-local.
fn warp_local(
    ck: &Checker,
    a: &AccessFact,
    b: &AccessFact,
    intra: bool,
    inter: &[usize],
    limit: Attempt,
) -> bool {
    let warp = ck.opts.warp_barrier_size();
    let mut types: Vec<Order> = orders(a, b);
    types.retain(|o| match o {
        Order::Intra => intra,
        Order::Inter { depth, .. } => inter.contains(depth),
    });
    (intra || !inter.is_empty())
        && types
            .into_iter()
            .all(|order| !ck.race_across_warps(a, b, order, warp, limit).possible())
}

fn access(a: &AccessFact) -> Access {
    Access {
        stmt: a.stmt,
        kind: a.kind,
        span: a.span,
    }
}
