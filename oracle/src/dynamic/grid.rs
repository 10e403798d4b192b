//! Grid barriers (`grid_barrier;`, `this_grid().sync()`) in the interpreter.
//!
//! Blocks still run one after another. A grid barrier that every thread of a block
//! reaches ends the block's *grid phase*: the phase is named by the last grid barrier
//! instance the block completed (statement and iteration vector), and the global
//! accesses of other blocks are checked against the running block's only within one
//! phase (a [`History`] per phase). Lock step across blocks at a grid barrier means
//! exactly this: everything before an instance happens before everything after it, in
//! every block. Two accesses of different blocks in the same phase have no completed
//! grid barrier instance between them, so they race as before; accesses in different
//! phases are ordered (or, when the blocks disagree on their grid barriers, the kernel
//! has a divergent grid barrier, reported below).
//!
//! Divergence across the grid: each block's sequence of completed grid barrier
//! instances must equal the first block's. At the first difference, the instance that
//! comes first in program order is the one the other block skipped: it is reported as
//! a divergent barrier. (A grid barrier that only some threads of a block reach is a
//! divergence within the block, reported by the barrier itself, and completes nothing.)
//!
//! Values: a block that runs later reads what earlier blocks wrote, also in later
//! phases. Memory contents are arbitrary in the model, so this only changes which
//! values are tried, never which accesses may race.

use super::compile::{Program, StmtIx};
use super::races::{Findings, History, Interner, RunInfo};
use super::values::FastMap;
use crate::Witness;

/// A grid barrier instance: its statement and its interned iteration vector.
type Instance = (StmtIx, u32);

/// The phase before any grid barrier.
const START: Instance = (u32::MAX, Interner::ROOT);

/// The grid-barrier state of one run.
pub(super) struct GridPhases {
    /// The running block's phase.
    phase: Instance,
    /// Grid barrier instances the running block completed, in order.
    seq: Vec<Instance>,
    /// The first block's sequence, and the block.
    reference: Option<(u32, Vec<Instance>)>,
    /// Global accesses of the blocks run so far, per phase.
    histories: FastMap<Instance, History>,
}

impl Default for GridPhases {
    fn default() -> GridPhases {
        GridPhases {
            phase: START,
            seq: Vec::new(),
            reference: None,
            histories: FastMap::default(),
        }
    }
}

impl GridPhases {
    /// A new run.
    pub(super) fn clear(&mut self) {
        self.phase = START;
        self.seq.clear();
        self.reference = None;
        self.histories.retain(|k, _| *k == START);
        self.histories.values_mut().for_each(History::clear);
    }

    /// The accesses of the running block's phase (of earlier blocks, and its own
    /// pending ones).
    pub(super) fn history(&mut self) -> &mut History {
        self.histories.entry(self.phase).or_default()
    }

    /// Every thread of the running block completed the grid barrier `stmt` at `iters`.
    pub(super) fn completed(&mut self, stmt: StmtIx, iters: u32) {
        self.phase = (stmt, iters);
        self.seq.push(self.phase);
    }

    /// The running block ended: its accesses join the histories, and its grid
    /// barriers are compared with the first block's.
    pub(super) fn end_block(
        &mut self,
        prog: &Program,
        interner: &Interner,
        run: &RunInfo,
        block: u32,
        completed: bool,
        out: &mut Findings,
    ) {
        for h in self.histories.values_mut() {
            h.end_block(interner);
        }
        let seq = std::mem::take(&mut self.seq);
        self.phase = START;
        // A block cut short (a false `assume`, the loop bound) reached only a prefix of
        // its grid barriers: comparing it would report a divergence no run has.
        if !completed {
            return;
        }
        let Some((first, reference)) = &self.reference else {
            self.reference = Some((block, seq));
            return;
        };
        let i = reference.iter().zip(&seq).take_while(|(a, b)| a == b).count();
        let (mine, theirs) = (seq.get(i), reference.get(i));
        let (reached, by, other) = match (mine, theirs) {
            (Some(m), Some(t)) if earlier(prog, interner, *t, *m) => (*t, *first, block),
            (Some(m), _) => (*m, block, *first),
            (None, Some(t)) => (*t, *first, block),
            (None, None) => return,
        };
        let iters = interner.get(reached.1).to_vec();
        out.divergence(prog, reached.0, || Witness {
            threads: [run.thread(0, by), run.thread(0, other)],
            index: None,
            iterations: [iters.clone(), iters],
            block_dim: run.block_dim,
            grid_dim: run.grid_dim,
            params: run.params.clone(),
        });
    }
}

/// Instance `a` comes before `b` in a thread's program order: by the counters of their
/// common loops, then by text order.
fn earlier(prog: &Program, interner: &Interner, a: Instance, b: Instance) -> bool {
    let (sa, sb) = (&prog.stmts[a.0 as usize], &prog.stmts[b.0 as usize]);
    let common = sa.loops.iter().zip(&sb.loops).take_while(|(x, y)| x == y).count();
    let (va, vb) = (interner.get(a.1), interner.get(b.1));
    for k in 0..common {
        match va.get(k).cmp(&vb.get(k)) {
            std::cmp::Ordering::Less => return true,
            std::cmp::Ordering::Greater => return false,
            std::cmp::Ordering::Equal => {}
        }
    }
    sa.post < sb.post
}
