//! Occurrences of a race type in SDV trace order (iteration numbers of the common loops,
//! then program text) and the barrier instances that lie between them: what tells
//! a race query, or no query at all, that barriers separate two accesses.

use z3::ast::Bool;

use super::super::encode::{Ctx, Encoder, Val};
use super::super::symbolic::{AccessFact, Summary};
use super::super::term::LoopId;
use super::{Checker, Order, Scope, Separation};

/// An iteration number with what is statically known about it.
#[derive(Clone, Debug)]
pub(super) struct It {
    pub(super) v: Val,
    sym: Sym,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Var(usize, i64),
    Const(i64),
}

/// A formula folded statically where possible.
#[derive(Clone, Debug)]
pub(super) enum Sb {
    Known(bool),
    Dyn(Bool),
}

impl Sb {
    fn and(self, o: Sb) -> Sb {
        match (self, o) {
            (Sb::Known(false), _) | (_, Sb::Known(false)) => Sb::Known(false),
            (Sb::Known(true), x) | (x, Sb::Known(true)) => x,
            (Sb::Dyn(a), Sb::Dyn(b)) => Sb::Dyn(Bool::and(&[a, b])),
        }
    }

    fn or(self, o: Sb) -> Sb {
        match (self, o) {
            (Sb::Known(true), _) | (_, Sb::Known(true)) => Sb::Known(true),
            (Sb::Known(false), x) | (x, Sb::Known(false)) => x,
            (Sb::Dyn(a), Sb::Dyn(b)) => Sb::Dyn(Bool::or(&[a, b])),
        }
    }

    pub(super) fn bool(self) -> Bool {
        match self {
            Sb::Known(b) => Bool::from_bool(b),
            Sb::Dyn(b) => b,
        }
    }
}

/// An occurrence of a statement: its loops, their iteration numbers, its text position.
pub(super) struct Point<'a> {
    loops: &'a [LoopId],
    k: &'a [It],
    pos: u32,
}

/// The two occurrences of a race type as points, the one executed first first.
pub(super) fn in_trace_order<'p>(
    a: &'p AccessFact,
    ka: &'p [It],
    b: &'p AccessFact,
    kb: &'p [It],
    order: Order,
) -> (Point<'p>, Point<'p>) {
    let pa = Point {
        loops: &a.loops,
        k: ka,
        pos: a.pos,
    };
    let pb = Point {
        loops: &b.loops,
        k: kb,
        pos: b.pos,
    };
    match order {
        Order::Inter { forward: false, .. } => (pb, pa),
        _ => (pa, pb),
    }
}

pub(super) struct Iters {
    pub(super) next: usize,
}

impl Iters {
    pub(super) fn fresh(&mut self, enc: &mut Encoder, name: &str) -> It {
        self.next += 1;
        It {
            v: enc.iter_var(name),
            sym: Sym::Var(self.next, 0),
        }
    }
}

fn zero(enc: &Encoder) -> It {
    It {
        v: enc.inum(0),
        sym: Sym::Const(0),
    }
}

fn succ(enc: &Encoder, x: &It) -> It {
    It {
        v: enc.iter_add(&x.v, 1),
        sym: match x.sym {
            Sym::Var(i, o) => Sym::Var(i, o + 1),
            Sym::Const(n) => Sym::Const(n + 1),
        },
    }
}

/// Iteration variables known to be ordered (`a < b`): the differing iteration of an
/// inter-iteration query.
#[derive(Default)]
pub(super) struct Rel {
    less: Vec<(usize, usize)>,
}

impl Rel {
    /// `i + o < j + p` follows from `i < j` when `o <= p`.
    fn lt(&self, i: usize, o: i64, j: usize, p: i64) -> bool {
        o <= p && self.less.contains(&(i, j))
    }

    fn eq(&self, x: &It, y: &It) -> Sb {
        match (x.sym, y.sym) {
            (Sym::Var(i, o), Sym::Var(j, p)) if i == j => Sb::Known(o == p),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(i, o, j, p) || self.lt(j, p, i, o) => {
                Sb::Known(false)
            }
            (Sym::Const(m), Sym::Const(n)) => Sb::Known(m == n),
            _ => Sb::Dyn(x.v.eq(&y.v)),
        }
    }

    fn lt_it(&self, enc: &Encoder, x: &It, y: &It) -> Sb {
        match (x.sym, y.sym) {
            (Sym::Var(i, o), Sym::Var(j, p)) if i == j => Sb::Known(o < p),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(i, o, j, p) => Sb::Known(true),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(j, p, i, o + 1) => Sb::Known(false),
            (Sym::Const(m), Sym::Const(n)) => Sb::Known(m < n),
            (_, Sym::Const(n)) if n <= 0 => Sb::Known(false),
            _ => Sb::Dyn(enc.iter_lt(&x.v, &y.v)),
        }
    }

    /// `p` comes before `q` in the trace.
    fn before(&self, enc: &Encoder, p: &Point, q: &Point) -> Sb {
        let c = Summary::common_loops(p.loops, q.loops);
        let mut result = Sb::Known(false);
        let mut same = Sb::Known(true);
        for m in 0..c {
            result = result.or(same.clone().and(self.lt_it(enc, &p.k[m], &q.k[m])));
            same = same.and(self.eq(&p.k[m], &q.k[m]));
        }
        result.or(same.and(Sb::Known(p.pos < q.pos)))
    }
}

/// A context of thread copy `copy` in block `block` at iteration numbers `k` of `loops`.
pub(super) fn at(enc: &mut Encoder, copy: usize, block: usize, loops: &[LoopId], k: &[It]) -> usize {
    enc.ctx(Ctx {
        copy,
        block,
        iters: loops.iter().copied().zip(k.iter().map(|x| x.v.clone())).collect(),
    })
}

impl Checker<'_> {
    /// The iteration numbers of the two occurrences for a race type, and what is known
    /// about their order (fresh variables, shared where the type says they are equal).
    pub(super) fn occurrences(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        b: &AccessFact,
        order: Order,
    ) -> (Vec<It>, Vec<It>, Rel) {
        let mut iters = Iters { next: 0 };
        let ka: Vec<It> = a.loops.iter().map(|_| iters.fresh(enc, "k0")).collect();
        let common = Summary::common_loops(&a.loops, &b.loops);
        let kb: Vec<It> = (0..b.loops.len())
            .map(|i| match order {
                Order::Intra if i < common => ka[i].clone(),
                Order::Inter { depth, .. } if i + 1 < depth => ka[i].clone(),
                _ => iters.fresh(enc, "k1"),
            })
            .collect();
        let mut rel = Rel::default();
        if let Order::Inter { depth, forward } = order
            && let (Some(x), Some(y)) = (ka.get(depth - 1), kb.get(depth - 1))
            && let (Sym::Var(i, _), Sym::Var(j, _)) = (x.sym, y.sym)
        {
            rel.less.push(if forward { (i, j) } else { (j, i) });
        }
        (ka, kb, rel)
    }

    /// Whether barriers order the occurrences of this race type: never (the query
    /// without barriers answers), always (no query needed), or maybe.
    pub fn separation(&self, a: &AccessFact, b: &AccessFact, order: Order) -> Separation {
        self.separation_in(a, b, order, Scope::SameBlock)
    }

    /// [`Checker::separation`] for the threads of `scope`: across blocks, only grid
    /// barriers count.
    pub fn separation_in(&self, a: &AccessFact, b: &AccessFact, order: Order, scope: Scope) -> Separation {
        let mut enc = Encoder::new(self.sum);
        let (ka, kb, rel) = self.occurrences(&mut enc, a, b, order);
        let (x, y) = in_trace_order(a, &ka, b, &kb, order);
        match self.barrier_between(&mut enc, &rel, &x, &y, scope) {
            Sb::Known(false) => Separation::Never,
            Sb::Known(true) => Separation::Always,
            Sb::Dyn(_) => Separation::Maybe,
        }
    }

    /// Some never-divergent barrier executes strictly between `x` and `y` (`x` first),
    /// under-approximated as described in the module comment. Threads of different
    /// blocks (`scope`) are ordered by grid barriers only; a never-divergent grid
    /// barrier enabled for one thread is enabled for the whole grid.
    pub(super) fn barrier_between(
        &self,
        enc: &mut Encoder,
        rel: &Rel,
        x: &Point,
        y: &Point,
        scope: Scope,
    ) -> Sb {
        let mut any = Sb::Known(false);
        for (bi, bar) in self.sum.barriers.iter().enumerate() {
            if !self.uniform.get(bi).copied().unwrap_or(false) || (scope == Scope::CrossBlock && !bar.grid) {
                continue;
            }
            let mut cands: Vec<Vec<It>> = Vec::new();
            // Candidates in the iterations of an occurrence whose predicate implies the
            // barrier's (an unconditional barrier of the occurrence's own loops) are
            // known to execute.
            let mut implied = Vec::new();
            for p in [x, y] {
                let c = Summary::common_loops(&bar.loops, p.loops);
                let mut kb: Vec<It> = p.k[..c].to_vec();
                kb.resize(bar.loops.len(), zero(enc));
                cands.push(kb);
                implied.push(bar.unconditional && c == bar.loops.len());
            }
            // The barrier in the next iteration of each loop around the earlier
            // occurrence (it exists when that loop goes on).
            for j in 1..=Summary::common_loops(&bar.loops, x.loops) {
                let mut kb: Vec<It> = x.k[..j - 1].to_vec();
                kb.push(succ(enc, &x.k[j - 1]));
                kb.resize(bar.loops.len(), zero(enc));
                cands.push(kb);
            }
            for (ci, kb) in cands.into_iter().enumerate() {
                let pb = Point {
                    loops: &bar.loops,
                    k: &kb,
                    pos: bar.pos,
                };
                let between = rel.before(enc, x, &pb).and(rel.before(enc, &pb, y));
                if matches!(between, Sb::Known(false)) {
                    continue;
                }
                let en = if implied.get(ci).copied().unwrap_or(false) {
                    Sb::Known(true)
                } else {
                    let iters = bar
                        .loops
                        .iter()
                        .copied()
                        .zip(kb.iter().map(|k| k.v.clone()))
                        .collect();
                    let cx = enc.ctx(Ctx {
                        copy: 0,
                        block: 0,
                        iters,
                    });
                    Sb::Dyn(enc.cond(&bar.pred, cx))
                };
                // A warp barrier orders only threads of one warp.
                let en = if bar.warp {
                    en.and(Sb::Dyn(enc.same_warp(self.opts.warp_barrier_size())))
                } else {
                    en
                };
                any = any.or(between.and(en));
                if matches!(any, Sb::Known(true)) {
                    return any;
                }
            }
        }
        any
    }
}
