//! The race queries of one pair of accesses: every race type, within a block and
//! across blocks, first within the first attempt's limit and then the undecided ones,
//! with the per-kernel cache deciding which queries need barriers.

use crate::Witness;

use super::cache::{Cache, cached, synced};
use super::concrete;
use super::pairs::{Scopes, orders};
use super::queries::{Attempt, Checker, Order, Outcome, Scope, Separation};
use super::symbolic::AccessFact;

/// What the queries found about one pair of accesses.
pub(super) struct PairRace {
    pub(super) intra: bool,
    pub(super) inter: Vec<usize>,
    /// Depths at which the second access's iteration may be the earlier one (decided
    /// racing or undecided); with `CheckOptions::race_directions` both directions are
    /// asked, so `inter` minus these is `Race::forward_only`.
    pub(super) backward: Vec<usize>,
    pub(super) fixable: bool,
    pub(super) witness: Option<Witness>,
    pub(super) notes: Vec<String>,
    /// Some race type is ruled out only by the values written being equal.
    pub(super) benign: bool,
}

impl PairRace {
    fn new(fixable: bool) -> PairRace {
        PairRace {
            intra: false,
            inter: Vec::new(),
            backward: Vec::new(),
            fixable,
            witness: None,
            notes: Vec::new(),
            benign: false,
        }
    }

    /// Tries every race type of the pair, first within the first attempt's limit, then
    /// the types still undecided (and not already shown by the other direction) within
    /// the query limit.
    pub(super) fn find(
        ck: &Checker,
        cache: &mut Cache,
        concrete: &mut concrete::Concrete,
        a: &AccessFact,
        b: &AccessFact,
        scopes: Scopes,
        attempts: &[Attempt],
    ) -> PairRace {
        let mut found = PairRace::new(true);
        let both = ck.opts.race_directions;
        // A race query of the pair: from a run of the kernel when one showed its type,
        // else the solver's.
        let ask =
            |concrete: &mut concrete::Concrete, scope: Scope, order: Order, sync: bool, limit: Attempt| {
                concrete.race(a, b, scope, order, || ck.race(a, b, scope, order, sync, limit))
            };
        if scopes.same {
            found.search(a, b, attempts, both, &mut |order, limit| {
                let key = (a.stmt, b.stmt, order);
                match ck.separation(a, b, order) {
                    Separation::Always => Outcome::Unsat,
                    Separation::Never => cached(&mut cache.same, key, limit, || {
                        ask(concrete, Scope::SameBlock, order, false, limit)
                    }),
                    // The query without barriers only pays when the pair is checked again
                    // (the synthesizer's loop): run it then, and skip the pair for good
                    // if it is unsatisfiable.
                    Separation::Maybe => {
                        // Ruled out already: with this check's barriers (the unrolled
                        // test), or without any barrier (in an earlier check, where
                        // none separated the pair).
                        if cache.synced.contains(&(a.stmt, b.stmt, order, Scope::SameBlock))
                            || matches!(cache.same.get(&key), Some((Outcome::Unsat, _)))
                        {
                            return Outcome::Unsat;
                        }
                        let synced = |cache: &mut Cache, concrete: &mut concrete::Concrete| {
                            synced(
                                &mut cache.synced,
                                (a.stmt, b.stmt, order, Scope::SameBlock),
                                || ask(concrete, Scope::SameBlock, order, true, limit),
                            )
                        };
                        if cache.seen.insert(key) {
                            return synced(cache, concrete);
                        }
                        let free = cached(&mut cache.same, key, limit, || {
                            ask(concrete, Scope::SameBlock, order, false, limit)
                        });
                        // Benign without barriers: barriers may still order them all
                        // (then the pair is not counted as benign).
                        if free.possible() || matches!(free, Outcome::Benign) {
                            synced(cache, concrete)
                        } else {
                            free
                        }
                    }
                }
            });
        }
        if scopes.cross {
            let mut cross = PairRace::new(false);
            let grid = ck.sum.barriers.iter().any(|b| b.grid);
            cross.search(a, b, attempts, both, &mut |order, limit| {
                let mut free = |concrete: &mut concrete::Concrete| {
                    cached(&mut cache.cross, (a.stmt, b.stmt, order), limit, || {
                        ask(concrete, Scope::CrossBlock, order, false, limit)
                    })
                };
                if !grid {
                    return free(concrete);
                }
                // Grid barriers order threads of different blocks: as for one block,
                // the query without them first (cached), then with them.
                match ck.separation_in(a, b, order, Scope::CrossBlock) {
                    Separation::Always => Outcome::Unsat,
                    Separation::Never => free(concrete),
                    Separation::Maybe => {
                        let f = free(concrete);
                        if f.possible() || matches!(f, Outcome::Benign) {
                            synced(
                                &mut cache.synced,
                                (a.stmt, b.stmt, order, Scope::CrossBlock),
                                || ask(concrete, Scope::CrossBlock, order, true, limit),
                            )
                        } else {
                            f
                        }
                    }
                }
            });
            if cross.intra || !cross.inter.is_empty() {
                // No barrier orders threads of different blocks: the pair is unfixable,
                // and its witness shows two blocks.
                found.fixable = false;
                found.intra |= cross.intra;
                found.inter.extend(cross.inter);
                found.inter.sort_unstable();
                found.inter.dedup();
                found.backward.extend(cross.backward);
                found.witness = cross.witness.or(found.witness);
            }
            found.benign |= cross.benign;
            found.notes.extend(cross.notes);
        }
        found
    }

    fn search(
        &mut self,
        a: &AccessFact,
        b: &AccessFact,
        attempts: &[Attempt],
        both_directions: bool,
        query: &mut dyn FnMut(Order, Attempt) -> Outcome,
    ) {
        let mut pending = orders(a, b);
        for (pass, &limit) in attempts.iter().enumerate() {
            let last = pass + 1 == attempts.len();
            let mut undecided = Vec::new();
            for order in pending {
                if let Order::Inter { depth, .. } = order
                    && self.inter.contains(&depth)
                    && !both_directions
                {
                    continue;
                }
                let out = query(order, limit);
                if matches!(out, Outcome::Unknown(_)) && !last {
                    undecided.push(order);
                } else {
                    self.add(a, b, order, out);
                }
            }
            pending = undecided;
        }
    }

    fn add(&mut self, a: &AccessFact, b: &AccessFact, order: Order, out: Outcome) {
        match out {
            Outcome::Unsat => return,
            Outcome::Benign => {
                self.benign = true;
                return;
            }
            Outcome::Sat(w) => {
                if self.witness.is_none() {
                    self.witness = Some(*w);
                }
            }
            Outcome::Unknown(why) => self.notes.push(format!(
                "lines {} and {}: the solver could not decide whether `{}` races ({why}); reported as racing",
                a.span.line, b.span.line, a.array
            )),
        }
        match order {
            Order::Intra => self.intra = true,
            Order::Inter { depth, forward } => {
                if !forward && !self.backward.contains(&depth) {
                    self.backward.push(depth);
                }
                if !self.inter.contains(&depth) {
                    self.inter.push(depth);
                    self.inter.sort_unstable();
                }
            }
        }
    }
}
