//! Cost models: how expensive a barrier at a given place is expected to be.
//!
//! - [`PaperCost`]: the paper's static model `LC^loops · IC^conds` (Sec. III-C);
//! - [`BoundsCost`]: trip counts of loops whose bounds are constant under the launch
//!   configuration and the pinned parameters, and the fraction of blocks that enter a
//!   conditional whose guard only reads ids; the paper's LC and IC where unknown;
//! - [`ProfileCost`]: measured barrier executions per place, given as data (the
//!   dynamic interpreter measures them, see `oracle::dynamic::profile`), so this crate
//!   stays independent of any particular oracle;
//! - [`TableCost`]: a user table, line → weight.
//!
//! Grid barriers (`fix --cooperative`) cost [`CostModel::grid_cost`]: in every model,
//! `C(ℓ)` times the grid-cost factor (`--grid-cost`, default 100). A grid barrier after
//! `ℓ` executes exactly where a block barrier there would (the static models' trip
//! counts and guard fractions, the profile's measured counts and the table's weights
//! all describe the place), and the factor prices the wait for every block of the grid.

use kpl::{Label, LabelTree};

mod bounds;
mod profile;
mod table;

pub use bounds::{BoundsCost, Launch};
pub use profile::ProfileCost;
pub use table::TableCost;

/// The cost of one barrier placed after a label. The cost of a placement is the sum over
/// its barriers (AutoSync paper, Sec. III-C).
pub trait CostModel {
    /// A short name for reports.
    fn name(&self) -> &str;

    /// `C(ℓ)`: the cost of a barrier inserted as the right sibling of `l`.
    fn cost(&self, tree: &LabelTree, l: Label) -> f64;

    /// The cost of a grid barrier there, `factor` block barriers' worth.
    fn grid_cost(&self, tree: &LabelTree, l: Label, factor: f64) -> f64 {
        self.cost(tree, l) * factor
    }
}

/// The paper's static model: `C(ℓ) = LC^|loops(ℓ)| · IC^|conds(ℓ)|`, where `LC` stands for
/// the average trip count of a loop and `IC` for the fraction of threads a conditional
/// enables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperCost {
    pub loop_cost: f64,
    pub cond_cost: f64,
}

impl PaperCost {
    pub const DEFAULT_LC: f64 = 100.0;
    pub const DEFAULT_IC: f64 = 0.5;
}

impl Default for PaperCost {
    fn default() -> Self {
        PaperCost {
            loop_cost: Self::DEFAULT_LC,
            cond_cost: Self::DEFAULT_IC,
        }
    }
}

impl CostModel for PaperCost {
    fn name(&self) -> &str {
        "paper"
    }

    fn cost(&self, tree: &LabelTree, l: Label) -> f64 {
        let loops = tree.loops(l).len() as i32;
        let conds = tree.conds(l).len() as i32;
        self.loop_cost.powi(loops) * self.cond_cost.powi(conds)
    }
}

/// The cost of the barriers a kernel already has, under `model`: each barrier statement
/// costs what a barrier after its left sibling would (the place it stands at, skipping
/// barriers right before it, [`LabelTree::position_of_barrier`]).
pub fn existing_cost(tree: &LabelTree, kernel: &kpl::Kernel, model: &dyn CostModel) -> f64 {
    barrier_costs(tree, kernel, model)
        .into_iter()
        .map(|(_, c)| c)
        .fold(0.0, |a, b| a + b) // `sum` would start at -0.0
}

/// Each barrier statement of `kernel` (in pre-order) with its cost under `model`.
pub fn barrier_costs(
    tree: &LabelTree,
    kernel: &kpl::Kernel,
    model: &dyn CostModel,
) -> Vec<(kpl::StmtId, f64)> {
    kernel
        .stmts()
        .iter()
        .filter(|s| s.kind.is_barrier())
        .filter_map(|s| Some((s.id, tree.label_of(s.id)?)))
        .map(|(id, l)| (id, model.cost(tree, tree.position_of_barrier(l).unwrap_or(l))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_example_costs() {
        // Fig. 4 (left): C(1:5) = 1 (after the loop), C(2) = 100 (inside it).
        let k = kpl::parse(
            "kernel k(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        if (tid < 3) {
            x = x + i;
        }
        A[tid] = x;
    }
}",
        )
        .unwrap()
        .remove(0);
        let t = LabelTree::new(&k);
        let at = |line: u32| {
            t.candidates()
                .into_iter()
                .find(|l| t.line(*l) == line && t.stmt_id(*l).is_some())
                .unwrap()
        };
        let m = PaperCost::default();
        assert_eq!(m.cost(&t, at(3)), 1.0);
        assert_eq!(m.cost(&t, at(4)), 100.0);
        assert_eq!(m.cost(&t, at(6)), 50.0);
        let lc2 = PaperCost {
            loop_cost: 10.0,
            cond_cost: 0.25,
        };
        assert_eq!(lc2.cost(&t, at(6)), 2.5);
    }
}
