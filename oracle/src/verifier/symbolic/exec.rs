//! The symbolic pass over statements: atoms, expressions, reads (with the read cache
//! and the per-launch input functions), predicated assignments, and the facts of
//! accesses, barriers and `assume`s; loops are handed to `loops`.

use kpl::{Arith, Block, Builtin, Expr, IntTy, Kernel, Space, Stmt, StmtId, StmtKind};
use std::collections::{HashMap, HashSet};

use super::super::term::{Class, LoopId, T, Term, class_of};
use super::{AccessFact, AssumeFact, AtomInfo, AtomKind, BarrierFact, Exec, LoopInfo, ReadCache, State};
use crate::AccessKind;

impl ReadCache {
    fn get(&self, array: &str, ty: Option<IntTy>, index: &T) -> Option<T> {
        let stale = self.written.get(array).copied().unwrap_or(0);
        self.entries
            .iter()
            .rev()
            .find(|(a, t, i, _, when)| {
                *when > stale && a == array && *t == ty && (std::rc::Rc::ptr_eq(i, index) || i == index)
            })
            .map(|(_, _, _, v, _)| v.clone())
    }

    fn insert(&mut self, array: &str, ty: Option<IntTy>, index: T, value: T) {
        self.now += 1;
        self.entries.push((array.to_string(), ty, index, value, self.now));
    }

    fn invalidate(&mut self, array: &str) {
        self.now += 1;
        self.written.insert(array.to_string(), self.now);
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The `invariant` statements at the head of loop bodies.
pub(super) fn head_invariants(kernel: &Kernel) -> HashSet<StmtId> {
    let mut out = HashSet::new();
    for s in kernel.stmts() {
        if !s.kind.is_loop() {
            continue;
        }
        for body in s.blocks() {
            for t in &body.stmts {
                match &t.kind {
                    StmtKind::Invariant(_) => {
                        out.insert(t.id);
                    }
                    StmtKind::Local { .. } => {}
                    _ => break,
                }
            }
        }
    }
    out
}

impl Exec<'_> {
    pub(super) fn iters(&self) -> Vec<T> {
        self.stack.iter().map(|l| self.b.leaf(Term::Iter(*l))).collect()
    }

    pub(super) fn atom_with(&mut self, kind: AtomKind, class: Class, args: Vec<T>) -> T {
        let id = self.atoms.len();
        self.atoms.push(AtomInfo {
            kind,
            class,
            arity: args.len(),
            ty: None,
        });
        self.b.leaf(Term::Atom(id, args))
    }

    /// The value of a read of memory through `ty` (`x = u32(A[i]);`): a fresh atom that
    /// the encoder knows to be in the type's range, as `Cast(ty, atom)` so that
    /// [`Builder::range`] knows it too (the encoder does not wrap it: see
    /// [`AtomInfo::ty`]).
    fn typed_atom(&mut self, kind: AtomKind, class: Class, ty: Option<IntTy>) -> T {
        let v = self.atom(kind, class);
        self.typed(v, ty)
    }

    /// `v`, a fresh atom, as a value of `ty`: `Builder::cast`, which keeps `Cast(ty, v)`
    /// under unbounded arithmetic (an atom's range is unknown to it), where the atom is
    /// marked as in the type's range; bit vectors get the mask (nothing for 32 bits).
    fn typed(&mut self, v: T, ty: Option<IntTy>) -> T {
        let Some(t) = ty else {
            return v;
        };
        if self.b.arith == Arith::Unbounded
            && let Term::Atom(id, _) = &*v
            && let Some(info) = self.atoms.get_mut(*id)
        {
            info.ty = Some(t);
        }
        self.b.cast(t, v)
    }

    /// A fresh atom over the iterations of the enclosing loops.
    fn atom(&mut self, kind: AtomKind, class: Class) -> T {
        let args = self.iters();
        self.atom_with(kind, class, args)
    }

    pub(super) fn class(&self, t: &T) -> Class {
        let atoms = &self.atoms;
        let loops = &self.loops;
        fn loop_class(atoms: &[AtomInfo], loops: &[Option<LoopInfo>], l: LoopId) -> Class {
            match loops.get(l).and_then(|i| i.as_ref()) {
                Some(info) => info.trip.map_or(Class::Grid, |t| atoms[t].class).max(class_of(
                    &info.guard,
                    &|a| atoms.get(a).map_or(Class::Thread, |x| x.class),
                    &|m| loop_class(atoms, loops, m),
                )),
                None => Class::Thread,
            }
        }
        class_of(t, &|a| atoms.get(a).map_or(Class::Thread, |x| x.class), &|l| {
            loop_class(atoms, loops, l)
        })
    }

    pub(super) fn active(&self, st: &State) -> T {
        let b = &self.b;
        let flags = b.or(b.or(st.ret.clone(), st.brk.clone()), st.cont.clone());
        b.and(st.path.clone(), b.not(flags))
    }

    pub(super) fn full(&self, st: &State) -> T {
        self.b.and(st.ctx.clone(), self.active(st))
    }

    pub(super) fn eval(&mut self, env: &HashMap<String, T>, e: &Expr) -> T {
        let b = self.b;
        match e {
            Expr::Int(v) => b.int(*v),
            Expr::Var(v) => match env.get(v).or_else(|| self.scalars.get(v)) {
                Some(t) => t.clone(),
                // Only kernels that bypass the scope check get here: any value will do.
                None => self.atom(AtomKind::Unknown(v.clone()), Class::Thread),
            },
            Expr::Builtin(bi) => match bi {
                Builtin::Bdim(d) if self.block_dim[d.index()].is_some() => {
                    b.int(self.block_dim[d.index()].unwrap_or(1))
                }
                Builtin::Gdim(d) if self.grid_dim[d.index()].is_some() => {
                    b.int(self.grid_dim[d.index()].unwrap_or(1))
                }
                _ => b.leaf(Term::Builtin(*bi)),
            },
            Expr::Unary(op, a) => {
                let a = self.eval(env, a);
                b.un(*op, a)
            }
            Expr::Cast(ty, a) => {
                let a = self.eval(env, a);
                b.cast(*ty, a)
            }
            Expr::Binary(op, x, y) => {
                let x = self.eval(env, x);
                let y = self.eval(env, y);
                b.bin(*op, x, y)
            }
            // Outside a two-thread `assume` (or nested), an arbitrary value: sound, as
            // an assumption about it constrains nothing else.
            Expr::Other(a) if self.two_thread => {
                self.two_thread = false;
                let a = self.eval(env, a);
                self.two_thread = true;
                self.atom_with(AtomKind::Other, Class::Thread, vec![a])
            }
            Expr::Other(_) => self.atom(AtomKind::Unknown("other(..)".to_string()), Class::Thread),
            Expr::Apply(f, args) => {
                let args: Vec<T> = args.iter().map(|a| self.eval(env, a)).collect();
                self.apply(f, args)
            }
        }
    }

    /// `@f(args)`: the function's atom (one per name and arity for the launch, class
    /// [`Class::Grid`]: the uniformity of an application is that of its arguments,
    /// which [`class_of`] takes in).
    fn apply(&mut self, f: &str, args: Vec<T>) -> T {
        let key = (f.to_string(), args.len());
        let id = match self.functions.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.atoms.len();
                self.atoms.push(AtomInfo {
                    kind: AtomKind::Function(f.to_string()),
                    class: Class::Grid,
                    arity: args.len(),
                    ty: None,
                });
                self.functions.insert(key, id);
                id
            }
        };
        self.b.leaf(Term::Atom(id, args))
    }

    /// A global array no statement writes or updates: its contents are fixed for the
    /// launch, so a read returns a function of the index alone, the same for every
    /// thread, block and iteration ([`AtomKind::Input`]). Under `--alias` the front end
    /// makes the pointer parameters that may alias one array, so a write through any of
    /// them makes it written; atomics count as writes.
    fn is_input(&self, array: &str) -> bool {
        self.kernel.array_space(array).unwrap_or(Space::Global) == Space::Global
            && !self.written.contains(array)
    }

    /// The value of `array[index]` for an [`Exec::is_input`] array.
    fn input(&mut self, array: &str, index: T, ty: Option<IntTy>) -> T {
        let key = (array.to_string(), ty);
        let id = match self.inputs.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.atoms.len();
                self.atoms.push(AtomInfo {
                    kind: AtomKind::Input(array.to_string()),
                    class: Class::Grid,
                    arity: 1,
                    ty: None,
                });
                self.inputs.insert(key, id);
                id
            }
        };
        let v = self.b.leaf(Term::Atom(id, vec![index]));
        self.typed(v, ty)
    }

    /// Who shares the value one execution of a read returns (`Read(stmt)` at given
    /// iteration numbers): the threads of a block when its index is block-uniform, else
    /// each thread its own. [`Class::Grid`] stands for a read of an [`Exec::is_input`]
    /// array, whatever its index: its value is the array's [`AtomKind::Input`] function
    /// of the index, which every thread, block and iteration shares (a thread-dependent
    /// index included: two threads reading one element read one value).
    ///
    /// Why this is sound (the deviation "Values all threads read alike" in
    /// `verifier/mod.rs`): the threads of a block that execute one instance of a read
    /// statement (the same iterations of its loops) with one index read one element at
    /// one step of the lock-step trace, with no write in between; under delayed
    /// visibility a thread that wrote that element earlier in the barrier interval
    /// would see its own value, but that write races with the other thread's read. An
    /// input array is never written at all.
    fn read_class(&self, array: &str, index: &T) -> Class {
        if self.is_input(array) {
            return Class::Grid;
        }
        match self.class(index) {
            c @ (Class::Thread | Class::Warp) => c,
            _ => Class::Block,
        }
    }

    fn old(&mut self, st: &mut State, var: &str) -> T {
        if let Some(t) = st.env.get(var) {
            return t.clone();
        }
        let t = self.atom(AtomKind::Unknown(var.to_string()), Class::Thread);
        st.env.insert(var.to_string(), t.clone());
        t
    }

    fn assign(&mut self, st: &mut State, var: &str, value: T) {
        let old = self.old(st, var);
        let active = self.active(st);
        let v = self.b.ite(active, value, old);
        st.env.insert(var.to_string(), v);
    }

    pub(super) fn block(&mut self, blk: &Block, st: &mut State) {
        for s in &blk.stmts {
            self.stmt(s, st);
        }
    }

    fn record_access(
        &mut self,
        s: &Stmt,
        st: &State,
        array: &str,
        kind: AccessKind,
        index: T,
        atomic: Option<(kpl::AtomicOp, T)>,
    ) {
        if !self.record {
            return;
        }
        let pred = self.full(st);
        self.accesses.push(AccessFact {
            stmt: s.id,
            span: s.span,
            array: array.to_string(),
            // Arrays the kernel does not declare (other front ends) count as global:
            // that checks both same-block and cross-block races.
            space: self.kernel.array_space(array).unwrap_or(Space::Global),
            kind,
            index,
            pred,
            loops: self.stack.clone(),
            pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
            atomic,
            value: None,
        });
    }

    /// Gives the access just recorded (a plain write) the value it stores.
    fn record_written(&mut self, value: T) {
        if self.record
            && let Some(a) = self.accesses.last_mut()
        {
            a.value = Some(value);
        }
    }

    fn stmt(&mut self, s: &Stmt, st: &mut State) {
        let b = self.b;
        match &s.kind {
            StmtKind::Local { var, init } => {
                // A declaration is reached by every thread that can ever read the
                // variable, so no predication is needed.
                let v = match init {
                    Some(e) => self.eval(&st.env, e),
                    None => self.atom(AtomKind::Arbitrary(s.id), Class::Thread),
                };
                st.env.insert(var.clone(), v);
            }
            StmtKind::Assign { var, value } => {
                let v = self.eval(&st.env, value);
                self.assign(st, var, v);
            }
            StmtKind::Havoc { var, warp } => {
                let class = if *warp { Class::Warp } else { Class::Thread };
                let v = self.atom(AtomKind::Arbitrary(s.id), class);
                self.assign(st, var, v);
            }
            StmtKind::Read {
                var,
                array,
                index,
                ty,
            } => {
                let i = self.eval(&st.env, index);
                let class = self.read_class(array, &i);
                self.record_access(s, st, array, AccessKind::Read, i.clone(), None);
                let v = match self.reads.get(array, *ty, &i) {
                    Some(v) => v,
                    None if class == Class::Grid => self.input(array, i, *ty),
                    None => {
                        let v = self.typed_atom(AtomKind::Read(s.id), class, *ty);
                        self.reads.insert(array, *ty, i, v.clone());
                        v
                    }
                };
                self.assign(st, var, v);
            }
            StmtKind::Write { array, index, value } => {
                let i = self.eval(&st.env, index);
                self.reads.invalidate(array);
                self.record_access(s, st, array, AccessKind::Write, i, None);
                let v = self.eval(&st.env, value);
                self.record_written(v);
            }
            StmtKind::Atomic {
                var,
                op,
                array,
                index,
                value,
                ty,
            } => {
                let i = self.eval(&st.env, index);
                let operand = self.eval(&st.env, value);
                self.reads.invalidate(array);
                self.record_access(s, st, array, AccessKind::Atomic, i, Some((*op, operand)));
                if let Some(var) = var {
                    let v = self.typed_atom(AtomKind::Read(s.id), Class::Thread, *ty);
                    self.assign(st, var, v);
                }
            }
            StmtKind::Barrier | StmtKind::WarpBarrier | StmtKind::GridBarrier | StmtKind::TicketBarrier => {
                if self.record {
                    let pred = self.full(st);
                    let unconditional = self.active(st).as_const() == Some(1);
                    self.barriers.push(BarrierFact {
                        stmt: s.id,
                        span: s.span,
                        pred,
                        unconditional,
                        loops: self.stack.clone(),
                        pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
                        warp: matches!(s.kind, StmtKind::WarpBarrier),
                        grid: s.kind.orders_blocks(),
                        ticket: matches!(s.kind, StmtKind::TicketBarrier),
                    });
                }
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let c = self.eval(&st.env, cond);
                let c = b.truthy(c);
                let path = st.path.clone();
                st.path = b.and(path.clone(), c.clone());
                self.block(then_blk, st);
                if let Some(e) = else_blk {
                    st.path = b.and(path.clone(), b.not(c));
                    self.block(e, st);
                }
                st.path = path;
            }
            StmtKind::While { .. } | StmtKind::For { .. } => {
                // Reads before the loop, in other iterations or after it may see the
                // writes of its iterations.
                self.reads.clear();
                // An analysis pass of an enclosing loop only needs the loop's effect on
                // variables, and a self-contained loop has none that anything outside
                // it sees: skipping it keeps loop nests linear in their depth (each
                // loop is otherwise analysed once per enclosing loop).
                if self.record || !self.self_contained.contains(&s.id) {
                    self.run_loop(s, st);
                }
                self.reads.clear();
            }
            StmtKind::Assume(e) => {
                if self.record {
                    let two_thread = self.stack.is_empty() && e.has_other();
                    self.two_thread = two_thread;
                    let c = self.eval(&st.env, e);
                    self.two_thread = false;
                    let cond = b.truthy(c);
                    let pred = self.full(st);
                    self.assumes.push(AssumeFact {
                        pred,
                        cond,
                        loops: self.stack.clone(),
                        pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
                        two_thread,
                    });
                }
            }
            StmtKind::Invariant(e) => match self.stack.last() {
                Some(&lp) if self.head_invariants.contains(&s.id) => {
                    let c = self.eval(&st.env, e);
                    let c = b.truthy(c);
                    self.inv_terms.entry(lp).or_default().push((c, s.span));
                }
                _ if self.record => self.misplaced.push(s.span),
                _ => {}
            },
            StmtKind::Return => st.ret = b.or(st.ret.clone(), self.active(st)),
            StmtKind::Break => st.brk = b.or(st.brk.clone(), self.active(st)),
            StmtKind::Continue => st.cont = b.or(st.cont.clone(), self.active(st)),
        }
    }
}
