//! Atoms as uninterpreted functions of their iteration arguments, one per owner (thread
//! copy, block copy, warp or grid), with their side facts, and the lemmas `finish`
//! collects over the atoms and products a query used.

use kpl::{AtomicOp, BinOp};
use z3::ast::{Bool, Int};
use z3::{FuncDecl, Sort};

use super::super::symbolic::AtomKind;
use super::super::term::{AtomId, Class, T};
use super::arith::{U32_MAX, apply_value, product_facts};
use super::{CounterApp, Ctx, Encoder, GeoApp, Val};

impl Encoder<'_> {
    /// Whose function of the iterations an atom is in a context: its thread copy's,
    /// its block's, its warp's (5 + copy: see [`Encoder::atom`]) or the grid's.
    fn owner(&self, id: AtomId, cx: usize) -> usize {
        match self.sum.atom_class(id) {
            Class::Thread => self.ctxs[cx].copy,
            Class::Block => 2 + self.ctxs[cx].block,
            Class::Warp => 5 + self.ctxs[cx].copy,
            Class::Grid => 4,
        }
    }

    pub(super) fn atom(&mut self, id: AtomId, args: &[T], cx: usize) -> Val {
        match (self.sum.atoms.get(id).map(|a| &a.kind), args) {
            (Some(AtomKind::Other), [e]) => {
                return match self.partners.get(&cx).copied() {
                    Some(o) => self.val(e, o),
                    // No other thread in this query: any value (sound for an assumption).
                    None => self.fresh_val("other"),
                };
            }
            (Some(AtomKind::Input(_)), [_]) | (Some(AtomKind::Function(_)), _) => {
                // One function of the values for the launch (the index of a never-written
                // array, the arguments of `@f`): every copy, block and iteration shares it.
                let argv: Vec<Val> = args.iter().map(|a| self.val(a, cx)).collect();
                let sort = if self.wrap {
                    Sort::bitvector(32)
                } else {
                    Sort::int()
                };
                let f = self.ufs.entry((id, usize::MAX)).or_insert_with(|| {
                    let dom: Vec<&Sort> = argv.iter().map(|_| &sort).collect();
                    FuncDecl::new(format!("fn{id}"), &dom, &sort)
                });
                let v = apply_value(f, &argv, self.wrap);
                self.type_range(id, &v);
                return v;
            }
            _ => {}
        }
        let owner = self.owner(id, cx);
        let argv: Vec<Val> = args.iter().map(|a| self.iter(a, cx)).collect();
        let c = &self.ctxs[cx];
        if self.sum.atom_class(id) == Class::Warp && c.copy == 1 && c.block == 0 {
            // The second copy in the first copy's block: the first copy's warp's value
            // when the two are in one warp, its own warp's otherwise.
            let mine = self.owned_atom(id, owner, &argv, cx);
            let first = self.owned_atom(id, owner - 1, &argv, cx);
            let same = self.same_warp(self.sum.warp_size);
            return self.ite(&same, &first, &mine);
        }
        self.owned_atom(id, owner, &argv, cx)
    }

    /// Atom `id` as the function of the iterations `argv` that `owner` has.
    fn owned_atom(&mut self, id: AtomId, owner: usize, argv: &[Val], cx: usize) -> Val {
        let argv = argv.to_vec();
        let is_iter = self.sum.atoms.get(id).is_some_and(|a| a.is_iteration());
        let wrap = self.wrap;
        let f = self.ufs.entry((id, owner)).or_insert_with(|| {
            let (isort, vsort) = if wrap {
                (Sort::bitvector(64), Sort::bitvector(32))
            } else {
                (Sort::int(), Sort::int())
            };
            let range = if is_iter { isort.clone() } else { vsort };
            let dom: Vec<&Sort> = argv.iter().map(|_| &isort).collect();
            FuncDecl::new(format!("a{id}@{owner}"), &dom, &range)
        });
        let v = apply_value(f, &argv, wrap);
        self.atom_facts(id, owner, &argv, &v, cx);
        if let (Some(AtomKind::Read(stmt)), Val::I(x)) = (self.sum.atoms.get(id).map(|a| &a.kind), &v)
            && self.sum.counters.contains(stmt)
        {
            let c = &self.ctxs[cx];
            self.counter_apps.push(CounterApp {
                stmt: *stmt,
                copy: c.copy,
                block: c.block,
                argv: argv.clone(),
                value: x.clone(),
            });
        }
        v
    }

    /// A read through a type (`AtomInfo::ty`) returns a value of the type. The old
    /// value of a repetition-free counter only gets the lower bound: its lemma places
    /// the executions' ranges apart (even executions that do not happen), which an
    /// upper bound could make impossible for huge amounts, and an impossible query
    /// would hide its race.
    fn type_range(&mut self, id: AtomId, v: &Val) {
        let Some(info) = self.sum.atoms.get(id) else {
            return;
        };
        if let (Some(t), Val::I(x)) = (info.ty, v) {
            let lo = x.ge(Int::from_i128(t.min()));
            let counter = matches!(info.kind, AtomKind::Read(s) if self.sum.counters.contains(&s));
            if counter {
                self.facts.push(lo);
            } else {
                self.facts.push(Bool::and(&[lo, x.le(Int::from_i128(t.max()))]));
            }
        }
    }

    fn atom_facts(&mut self, id: AtomId, owner: usize, argv: &[Val], v: &Val, cx: usize) {
        self.type_range(id, v);
        let Some(info) = self.sum.atoms.get(id) else {
            return;
        };
        match &info.kind {
            AtomKind::Trip(_) => {
                let f = self.iter_bounds(v);
                self.facts.push(f);
            }
            AtomKind::Tail { op, c, last } => {
                let (op, c) = (*op, *c);
                let last = self.num(*last);
                let step = self.step(op, &last, c);
                let f = match (v, &last, &step) {
                    (Val::I(g), Val::I(l), Val::I(s)) => {
                        if matches!(op, BinOp::Div | BinOp::Shr) {
                            l.ge(0).implies(Bool::and(&[g.ge(0), g.le(s)]))
                        } else {
                            l.gt(0).implies(g.ge(s))
                        }
                    }
                    (Val::B(g), _, Val::B(s)) if matches!(op, BinOp::Div | BinOp::Shr) => g.bvule(s),
                    _ => Bool::from_bool(true),
                };
                self.facts.push(f);
            }
            AtomKind::Geo { op, c, init, .. } => {
                let (op, c, init) = (*op, *c, init.clone());
                let init = self.val(&init, cx);
                let step = self.step(op, &init, c);
                let f = match (v, &init, &step) {
                    (Val::I(g), Val::I(i0), Val::I(s)) => {
                        if matches!(op, BinOp::Div | BinOp::Shr) {
                            i0.ge(0).implies(Bool::and(&[g.ge(0), g.le(s)]))
                        } else {
                            i0.gt(0).implies(g.ge(s))
                        }
                    }
                    (Val::B(g), _, Val::B(s)) if matches!(op, BinOp::Div | BinOp::Shr) => g.bvule(s),
                    _ => Bool::from_bool(true),
                };
                self.facts.push(f);
                // Halving a 32-bit value 32 times leaves 0 (this bounds the iterations
                // of `for (d = n >> 1; d > 0; d >>= 1)` for a symbolic n).
                if let (Some(Val::I(k)), Val::I(g), Val::I(i0)) = (argv.last(), v, &init)
                    && matches!(op, BinOp::Div | BinOp::Shr)
                {
                    let small = Bool::and(&[i0.ge(0), i0.le(U32_MAX), k.ge(32)]);
                    self.facts.push(small.implies(g.eq(0)));
                }
                if let Some((k, outer)) = argv.split_last() {
                    // The value at iteration k (the atom stands for k ≥ 1).
                    let is_first = k.eq(&self.inum(0));
                    let value = match (&init, v) {
                        (Val::I(a), Val::I(b)) => Val::I(is_first.ite(a, b)),
                        (Val::B(a), Val::B(b)) => Val::B(is_first.ite(a, b)),
                        _ => v.clone(),
                    };
                    self.geo.push(GeoApp {
                        atom: id,
                        owner,
                        outer: outer.to_vec(),
                        k: k.clone(),
                        value,
                    });
                }
            }
            _ => {}
        }
    }

    /// One step of a geometric sequence.
    fn step(&mut self, op: BinOp, x: &Val, c: i64) -> Val {
        let cv = self.num(c);
        self.arith(op, x.clone(), cv, None, Some(c))
    }

    /// Adds the lemmas that need the whole formula: relations between two iterations of
    /// a geometric sequence, and between products with a common factor. Call once,
    /// after the formula is built.
    pub fn finish(&mut self) {
        self.product_lemmas();
        self.geo_lemmas();
        self.counter_lemmas();
    }

    /// Repetition-free counters (docs/semantics.md, Warps and atomics): two distinct
    /// executions of `atomic_add`s with positive operands on the same element of an array
    /// that nothing but `atomic_add`s of never-negative amounts modifies claim disjoint
    /// ranges `[old, old + amount)` (the element only grows), so in particular return
    /// distinct old values; `atomic_sub`s likewise claim `(old - amount, old]` when only
    /// such `atomic_sub`s modify the array. Unbounded arithmetic only (in 32 bits the
    /// counter could wrap around).
    ///
    /// The lemma does not ask the two executions to be enabled: in a real execution
    /// the values of the executions that happen are apart, and an application of the
    /// result's atom at an iteration or on a path the thread did not execute stands
    /// for no value the run computes (values on other paths are `ite`s that drop it,
    /// and a loop's closed forms only use iteration `k - 1` at iterations `k` the
    /// thread reaches), so it can be given a fresh value far from all others. This
    /// matters for the work queue `i = atomic_add(c, 1); while (i < n) { out[i] = ..;
    /// i = atomic_add(c, 1); }` (seed 000, Fig. 3): at iteration `k` the encoding does
    /// not know that the thread was inside iteration `k - 1`, where `i` came from.
    fn counter_lemmas(&mut self) {
        let apps = std::mem::take(&mut self.counter_apps);
        let mut inst = Vec::with_capacity(apps.len());
        for a in &apps {
            let Some(fact) = self.sum.accesses.iter().find(|f| f.stmt == a.stmt).cloned() else {
                inst.push(None);
                continue;
            };
            let cx = self.ctx(Ctx {
                copy: a.copy,
                block: a.block,
                iters: fact.loops.iter().copied().zip(a.argv.iter().cloned()).collect(),
            });
            let index = self.val(&fact.index, cx);
            let Some((op, operand)) = fact.atomic.as_ref() else {
                inst.push(None);
                continue;
            };
            // A counter's `atomic_inc` (never wrapping) adds 1.
            let amount = if *op == AtomicOp::Inc {
                Val::I(Int::from_i64(1))
            } else {
                self.val(operand, cx)
            };
            let Val::I(amount) = amount else {
                inst.push(None);
                continue;
            };
            let positive = amount.gt(0);
            // Counting down, `[old - amount + 1, old]`, is counting up on `-old`.
            let up = *op != AtomicOp::Sub;
            let value = if up { a.value.clone() } else { -&a.value };
            inst.push(Some((fact.array.clone(), positive, index, amount, value)));
        }
        for i in 0..apps.len() {
            for j in i + 1..apps.len() {
                let (a, b) = (&apps[i], &apps[j]);
                let (Some((arr_a, ok_a, idx_a, n_a, v_a)), Some((arr_b, ok_b, idx_b, n_b, v_b))) =
                    (&inst[i], &inst[j])
                else {
                    continue;
                };
                if arr_a != arr_b {
                    continue;
                }
                // Each block has its own copy of a shared counter: executions in two
                // blocks may return the same values.
                if a.block != b.block
                    && self
                        .sum
                        .accesses
                        .iter()
                        .any(|f| f.stmt == a.stmt && f.space == kpl::Space::Shared)
                {
                    continue;
                }
                let same_thread = a.copy == b.copy && a.block == b.block;
                let distinct = if !same_thread || a.stmt != b.stmt {
                    Bool::from_bool(true)
                } else {
                    let differ: Vec<Bool> = a.argv.iter().zip(&b.argv).map(|(x, y)| x.eq(y).not()).collect();
                    if differ.is_empty() {
                        continue;
                    }
                    Bool::or(&differ)
                };
                let pre = Bool::and(&[ok_a.clone(), ok_b.clone(), idx_a.eq(idx_b), distinct]);
                // The ranges `[old, old + amount)` the two executions claim are
                // disjoint: whichever ran second saw at least the first's old value
                // plus its amount.
                let apart = Bool::or(&[(v_a + n_a).le(v_b), (v_b + n_b).le(v_a)]);
                self.facts.push(pre.implies(apart));
            }
        }
    }

    /// Multiplication by a nonzero factor is strictly monotone: for `p1 = g1·f` and
    /// `p2 = g2·f`, `f ≥ 1 ∧ g1 < g2 ⟹ p1 + f ≤ p2` (and mirrored). Z3's incremental
    /// solver does not find these for `tid·m + i = tid'·m + i'` or `tid + bdim·k`, which
    /// are the index shapes of slice and stride loops; with them such queries are linear.
    fn product_lemmas(&mut self) {
        let prods = std::mem::take(&mut self.products);
        self.product_terms.extend(prods.iter().map(|(_, _, p)| p.clone()));
        self.facts.extend(product_facts(&prods));
    }

    /// Facts relating two iterations of the same geometric sequence (one step apart is
    /// exact; further apart is monotone).
    fn geo_lemmas(&mut self) {
        let apps = std::mem::take(&mut self.geo);
        for (i, a) in apps.iter().enumerate() {
            for b in &apps[i + 1..] {
                if a.atom != b.atom || a.owner != b.owner {
                    continue;
                }
                let Some(AtomKind::Geo { op, c, .. }) = self.sum.atoms.get(a.atom).map(|x| x.kind.clone())
                else {
                    continue;
                };
                let same_outer: Vec<Bool> = a.outer.iter().zip(&b.outer).map(|(x, y)| x.eq(y)).collect();
                let same_outer = Bool::and(&same_outer);
                for (x, y) in [(a, b), (b, a)] {
                    let next = self.iter_add(&x.k, 1);
                    let step = self.step(op, &x.value, c);
                    let f = Bool::and(&[same_outer.clone(), y.k.eq(&next)]).implies(y.value.eq(&step));
                    self.facts.push(f);
                    if let (Val::I(xv), Val::I(yv), Val::I(s)) = (&x.value, &y.value, &step) {
                        let later = Bool::and(&[same_outer.clone(), self.iter_lt(&x.k, &y.k)]);
                        let mono = if matches!(op, BinOp::Div | BinOp::Shr) {
                            Bool::and(&[later, xv.ge(0)]).implies(yv.le(s))
                        } else {
                            Bool::and(&[later, xv.gt(0)]).implies(yv.ge(s))
                        };
                        self.facts.push(mono);
                    }
                }
            }
        }
    }
}
