//! Which pairs of accesses are asked about: the conflicting pairs in program order,
//! their race types, and the scopes (same block, different blocks) that the
//! solver-free dependence test of [`super::affine`] leaves to the queries.

use kpl::Space;

use super::affine;
use super::queries::Order;
use super::symbolic::{AccessFact, Summary};

/// Whether the launch can have two blocks (grids are one block wide in the dimensions a
/// symbolic launch leaves at 1).
pub(super) fn many_blocks(sum: &Summary) -> bool {
    let mut known: i64 = 1;
    for d in 0..3 {
        match sum.grid_dim[d] {
            Some(g) => known = known.saturating_mul(g),
            None if sum.dims_used[d] => return true,
            None => {}
        }
    }
    known >= 2
}

/// Two accesses can race: same array, at least one writes, not both atomic.
pub(super) fn conflicting(a: &AccessFact, b: &AccessFact) -> bool {
    a.array == b.array && a.kind.conflicts_with(b.kind)
}

/// The race types of a pair: the same iteration of all common loops, and different
/// iterations of each common loop in either direction (one direction suffices for a
/// statement with itself, by symmetry of the two threads).
pub(super) fn orders(a: &AccessFact, b: &AccessFact) -> Vec<Order> {
    let mut out = vec![Order::Intra];
    for depth in 1..=Summary::common_loops(&a.loops, &b.loops) {
        out.push(Order::Inter { depth, forward: true });
        if a.stmt != b.stmt {
            out.push(Order::Inter {
                depth,
                forward: false,
            });
        }
    }
    out
}

/// The pairs of conflicting accesses, each once (with itself too), the earlier in
/// program order first: the order in which their race queries are asked.
pub(super) fn conflicting_pairs(accesses: &[AccessFact]) -> impl Iterator<Item = (&AccessFact, &AccessFact)> {
    conflicting_indices(accesses).map(|(i, j)| (&accesses[i], &accesses[j]))
}

/// [`conflicting_pairs`] as indices into `accesses`.
pub(super) fn conflicting_indices(accesses: &[AccessFact]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..accesses.len())
        .flat_map(move |i| (i..accesses.len()).map(move |j| (i, j)))
        .map(|(i, j)| {
            if accesses[i].pos <= accesses[j].pos {
                (i, j)
            } else {
                (j, i)
            }
        })
        .filter(|&(i, j)| conflicting(&accesses[i], &accesses[j]))
}

/// Per access, its index as an affine form (when it is one), and what the launch allows:
/// the solver-free dependence test of [`affine`].
pub(super) struct Apart {
    launch: affine::Launch,
    pub(super) forms: Vec<Option<affine::Affine>>,
    many_blocks: bool,
}

impl Apart {
    pub(super) fn new(sum: &Summary, many_blocks: bool) -> Apart {
        let launch = affine::Launch::of(sum);
        let forms = sum
            .accesses
            .iter()
            .map(|a| affine::affine(sum, &launch, &a.index))
            .collect();
        Apart {
            launch,
            forms,
            many_blocks,
        }
    }

    /// The scopes of accesses `i` and `j` that still need queries: those the test does
    /// not rule out (cross-block only for global arrays of a launch with many blocks).
    pub(super) fn scopes(&self, sum: &Summary, i: usize, j: usize) -> Scopes {
        let a = &sum.accesses[i];
        let meet = |threads| match (&self.forms[i], &self.forms[j]) {
            (Some(x), Some(y)) => !affine::never_meet(&self.launch, x, y, threads),
            _ => true,
        };
        Scopes {
            same: meet(affine::Threads::SameBlock),
            cross: a.space == Space::Global && self.many_blocks && meet(affine::Threads::CrossBlock),
        }
    }
}

/// Which thread pairs of an access pair still need queries.
#[derive(Clone, Copy)]
pub(super) struct Scopes {
    pub(super) same: bool,
    pub(super) cross: bool,
}
