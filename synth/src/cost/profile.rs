//! The profile-guided model: the cost of a barrier at a place is how often a barrier
//! there executes, as measured (by the dynamic interpreter, for one launch configuration
//! and set of inputs). The measurement is given as data, per label of the tree of the
//! kernel that was profiled; the model applies to any kernel with the same statement ids
//! (the same kernel with barriers added or removed) through [`LabelTree::same_place`].

use std::collections::BTreeMap;

use kpl::{Label, LabelTree};

use super::CostModel;

#[derive(Clone, Debug)]
pub struct ProfileCost {
    tree: LabelTree,
    counts: BTreeMap<Label, f64>,
    /// The cost of a place the profile has no count for.
    pub fallback: f64,
}

impl ProfileCost {
    /// `counts`: executions of a barrier after each label of `tree` (labels missing from
    /// it cost `fallback`, 0 unless changed: the places a profile leaves out are the ones
    /// it never saw executed).
    pub fn from_counts(tree: LabelTree, counts: BTreeMap<Label, f64>) -> ProfileCost {
        ProfileCost {
            tree,
            counts,
            fallback: 0.0,
        }
    }

    /// The measured count of the place `l` of `tree` stands for, if there is one.
    pub fn count(&self, tree: &LabelTree, l: Label) -> Option<f64> {
        self.tree
            .same_place(tree, l)
            .and_then(|p| self.counts.get(&p))
            .copied()
    }
}

impl CostModel for ProfileCost {
    fn name(&self) -> &str {
        "profile"
    }

    fn cost(&self, tree: &LabelTree, l: Label) -> f64 {
        self.count(tree, l).unwrap_or(self.fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_places_into_other_trees_of_the_kernel() {
        let k = kpl::parse(
            "kernel k(shared A[]) {
    local x;
    x = A[tid];
    barrier;
    A[tid] = x;
}",
        )
        .unwrap()
        .remove(0);
        let t = LabelTree::new(&k);
        let read = t.label_of(k.body.stmts[1].id).unwrap();
        let m = ProfileCost::from_counts(t.clone(), BTreeMap::from([(read, 7.0)]));
        let stripped = k.without_barriers();
        let ts = LabelTree::new(&stripped);
        let read_s = ts.label_of(k.body.stmts[1].id).unwrap();
        assert_eq!(m.cost(&ts, read_s), 7.0);
        // The existing barrier stands after the read: 7 too.
        assert_eq!(super::super::existing_cost(&t, &k, &m), 7.0);
        let write = ts.label_of(k.body.stmts[3].id).unwrap();
        assert_eq!(m.cost(&ts, write), 0.0);
    }
}
