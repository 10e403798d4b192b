//! Screening: one grouped query over all accesses of an array that names the pairs that
//! may race at all, so the other pairs need no query of their own.

use z3::Model;
use z3::ast::Bool;

use super::super::encode::{Ctx, Encoder, Map};
use super::super::symbolic::AccessFact;
use super::trace_order::{It, Iters, at};
use super::{Checker, Scope, trace_slow};
use crate::AccessKind;

impl Checker<'_> {
    /// Screening (Faial's grouping of accesses, seed 003): one query over all the
    /// accesses of one array asks whether *some* conflicting pair of them can touch one
    /// element from two distinct threads (of one block, or of two blocks) at any
    /// iterations, barriers ignored. Each model names one such pair, which the next
    /// query excludes; once the query is unsatisfiable, no pair left unnamed can race,
    /// whatever the barriers, and it needs no query of its own. This keeps a check
    /// linear in the number of race-free accesses instead of quadratic.
    ///
    /// Returns the named pairs (indices into `accs`, first ≤ second), or `None` when
    /// the solver gives up, more than `limit` pairs come out or the queries take more
    /// than `budget` resource units together (then every pair needs its own queries). Warp lock
    /// step is ignored here (more pairs: sound). With `indices_only`, the accesses'
    /// predicates and `assume`s are left out (an over-approximation: fewer facts,
    /// never fewer pairs) — much smaller in deep loop nests, and enough when the
    /// indices alone keep the threads apart.
    pub fn may_race(
        &self,
        accs: &[&AccessFact],
        scope: Scope,
        limit: usize,
        budget: u64,
        indices_only: bool,
    ) -> Option<Vec<(usize, usize)>> {
        let start = std::time::Instant::now();
        let spent_before = self.meter.spent();
        let mut enc = Encoder::new(self.sum);
        let mut iters = Iters { next: 0 };
        let block1 = match scope {
            Scope::SameBlock => 0,
            Scope::CrossBlock => 1,
        };
        let mut fs: Vec<Bool> = enc.launch_facts(&[(0, 0), (1, block1)]);
        fs.push(enc.distinct_threads(scope == Scope::SameBlock));
        let base: Vec<usize> = [(0, 0), (1, block1)]
            .into_iter()
            .map(|(copy, block)| {
                enc.ctx(Ctx {
                    copy,
                    block,
                    iters: Map::new(),
                })
            })
            .collect();
        fs.extend(self.requires(&mut enc, &base));
        // One selector per access and copy; a model may select several per copy (then
        // all their constraints hold at once), and names a conflicting pair of them.
        let sel: [Vec<Bool>; 2] = [0, 1].map(|c| {
            (0..accs.len())
                .map(|i| Bool::new_const(format!("screen.sel{c}.{i}")))
                .collect()
        });
        let index = [enc.fresh_val("screen.index0"), enc.fresh_val("screen.index1")];
        fs.push(index[0].eq(&index[1]));
        for (copy, block) in [(0, 0), (1, block1)] {
            fs.push(Bool::or(&sel[copy]));
            for (i, a) in accs.iter().enumerate() {
                let k: Vec<It> = a.loops.iter().map(|_| iters.fresh(&mut enc, "ks")).collect();
                let cx = at(&mut enc, copy, block, &a.loops, &k);
                let ix = enc.val(&a.index, cx);
                let mut here = vec![ix.eq(&index[copy])];
                if !indices_only {
                    here.push(enc.cond(&a.pred, cx));
                    here.extend(self.assumes(&mut enc, &a.loops, a.pos, cx));
                }
                fs.push(sel[copy][i].implies(Bool::and(&here)));
            }
        }
        // A conflict: at least one writes (atomics write), not both atomic.
        let kind_in = |c: usize, f: &dyn Fn(AccessKind) -> bool| {
            let hits: Vec<Bool> = accs
                .iter()
                .enumerate()
                .filter(|(_, a)| f(a.kind))
                .map(|(i, _)| sel[c][i].clone())
                .collect();
            Bool::or(&hits)
        };
        let writes = |k: AccessKind| k != AccessKind::Read;
        let atomic = |k: AccessKind| k == AccessKind::Atomic;
        fs.push(Bool::or(&[kind_in(0, &writes), kind_in(1, &writes)]));
        fs.push(Bool::and(&[kind_in(0, &atomic), kind_in(1, &atomic)]).not());
        enc.finish();
        fs.append(&mut enc.facts);
        let nonlinear = enc.nonlinear();
        let mut found = Vec::new();
        loop {
            let pick = |m: &Model| {
                let on = |c: usize| -> Vec<usize> {
                    (0..accs.len())
                        .filter(|&i| m.eval(&sel[c][i], true).and_then(|v| v.as_bool()) == Some(true))
                        .collect()
                };
                let (s0, s1) = (on(0), on(1));
                s0.iter()
                    .flat_map(|&i| s1.iter().map(move |&j| (i, j)))
                    .find(|&(i, j)| accs[i].kind.conflicts_with(accs[j].kind))
            };
            let spent = self.meter.spent() - spent_before;
            let units = budget.checked_sub(spent).filter(|t| *t > 0)?;
            let asked = std::time::Instant::now();
            let answer = self.solve(&fs, units, &nonlinear, pick);
            trace_slow(start, || {
                format!(
                    "screening query over {} accesses of `{}` ({scope:?}, {} named so far): {:?}, \
                     solver {} ms, {} units",
                    accs.len(),
                    accs.first().map_or("", |a| a.array.as_str()),
                    found.len(),
                    answer.as_ref().map(|p| p.is_some()),
                    asked.elapsed().as_millis(),
                    self.meter.last()
                )
            });
            match answer {
                Ok(None) => return Some(found),
                Ok(Some(Some((i, j)))) if found.len() < limit => {
                    found.push((i.min(j), i.max(j)));
                    fs.push(Bool::and(&[sel[0][i].clone(), sel[1][j].clone()]).not());
                    fs.push(Bool::and(&[sel[0][j].clone(), sel[1][i].clone()]).not());
                }
                _ => return None,
            }
        }
    }
}
