//! What the barrier-independent answers of a kernel depend on, as one hash.
//!
//! The per-kernel cache keeps answers that ignore barriers (which race types of a pair
//! can happen at all, cross-block races) across the checks of one synthesis. Those
//! answers are about the summary's terms, and some terms do depend on barriers: a
//! shared scalar that thread 0 writes is one value for the block only when a barrier
//! separates the write from the reads ([`super::symbolic`]'s read classes), and a
//! `__shared__` counter's atomics are repetition-free only when a barrier follows its
//! set-up. So an answer is reused only while this fingerprint stays the same: the
//! accesses' index, guard, value and operand terms, the counters, the atoms, loops and
//! assumptions. Statement positions and spans are left out (inserting a barrier moves
//! them without changing any answer).

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::symbolic::{AtomKind, Summary};
use super::term::{T, Term};

/// The fingerprint of `sum` (see the module doc).
pub fn of(sum: &Summary) -> u64 {
    let mut fp = Fingerprint::default();
    let mut h = DefaultHasher::new();
    for a in &sum.accesses {
        (a.stmt, a.kind, &a.array, &a.loops).hash(&mut h);
        fp.term(&a.index).hash(&mut h);
        fp.term(&a.pred).hash(&mut h);
        a.value.as_ref().map(|v| fp.term(v)).hash(&mut h);
        a.atomic.as_ref().map(|(op, v)| (*op, fp.term(v))).hash(&mut h);
    }
    let mut counters: Vec<_> = sum.counters.iter().copied().collect();
    counters.sort_unstable();
    counters.hash(&mut h);
    for atom in &sum.atoms {
        (atom.class, atom.arity, atom.ty).hash(&mut h);
        match &atom.kind {
            AtomKind::Geo { lp, op, c, init } => (lp, op, c, fp.term(init)).hash(&mut h),
            other => format!("{other:?}").hash(&mut h),
        }
    }
    for l in sum.loops.iter().flatten() {
        (l.stmt, l.trip, l.exit_jumps, l.once).hash(&mut h);
        for t in [&l.trip_term, &l.guard, &l.exits] {
            fp.term(t).hash(&mut h);
        }
    }
    for a in &sum.assumes {
        (fp.term(&a.pred), fp.term(&a.cond), &a.loops).hash(&mut h);
    }
    for r in &sum.requires {
        fp.term(r).hash(&mut h);
    }
    h.finish()
}

/// Structural hashes of terms, memoized by node: terms share subterms, so hashing
/// them as trees could take exponential time.
#[derive(Default)]
struct Fingerprint {
    memo: HashMap<*const Term, u64>,
}

impl Fingerprint {
    fn term(&mut self, t: &T) -> u64 {
        let key = std::rc::Rc::as_ptr(t);
        if let Some(h) = self.memo.get(&key) {
            return *h;
        }
        let mut h = DefaultHasher::new();
        std::mem::discriminant(&**t).hash(&mut h);
        match &**t {
            Term::Const(v) => v.hash(&mut h),
            Term::Builtin(b) => b.hash(&mut h),
            Term::Param(i, ty) => (i, ty).hash(&mut h),
            Term::Iter(l) | Term::InLoop(l) => l.hash(&mut h),
            Term::IterAdd(_, off) => off.hash(&mut h),
            Term::Atom(id, _) => id.hash(&mut h),
            Term::Un(op, _) => op.hash(&mut h),
            Term::Bin(op, _, _) => op.hash(&mut h),
            Term::Cast(ty, _) => ty.hash(&mut h),
            Term::Table(_, entries, _) => entries.len().hash(&mut h),
            Term::Ite(..) | Term::Pow2(_) => {}
        }
        let mut children = Vec::new();
        t.for_each_child(&mut |c| children.push(c.clone()));
        for c in &children {
            self.term(c).hash(&mut h);
        }
        let out = h.finish();
        self.memo.insert(key, out);
        out
    }
}
