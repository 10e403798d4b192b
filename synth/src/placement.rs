//! Placement constraints (AutoSync paper, Sec. III-B), as plain data over labels so they
//! can be inspected and tested without a solver.

use kpl::{Label, LabelTree};

/// The placement options of one race location `⟨ℓ, ℓ'⟩` (`ℓ ⪯ ℓ'`).
///
/// `options[0]` is the intra-iteration option, the interval `[ℓ, ℓ')`; `options[j]` for
/// `j ≥ 1` is the inter-iteration option at common loop `ℓ^j`:
/// `[ℓ^j_s, ℓ) ∪ [ℓ', ℓ^j)`. A simple race (no common loop) has only `options[0]`.
/// Each option lists the candidate labels after which a barrier would realise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceOptions {
    pub first: Label,
    pub second: Label,
    /// The common loops, outermost first (`ℓ^1 … ℓ^d`).
    pub loops: Vec<Label>,
    pub options: Vec<Vec<Label>>,
}

impl RaceOptions {
    pub fn depth(&self) -> usize {
        self.loops.len()
    }
}

/// The placement options for a race between `first` and `second` (in either order).
pub fn race_options(tree: &LabelTree, first: Label, second: Label) -> RaceOptions {
    let (l, l2) = if tree.precedes(second, first) {
        (second, first)
    } else {
        (first, second)
    };
    let loops_a = tree.loops(l);
    let loops_b = tree.loops(l2);
    let loops: Vec<Label> = loops_a
        .iter()
        .zip(&loops_b)
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| *a)
        .collect();
    let keep =
        |ls: Vec<Label>| -> Vec<Label> { ls.into_iter().filter(|x| tree.node(*x).candidate).collect() };
    let options = option_intervals(tree, l, l2, &loops)
        .into_iter()
        .map(keep)
        .collect();
    RaceOptions {
        first: l,
        second: l2,
        loops,
        options,
    }
}

/// The label sets of the options of a race between `l ⪯ l2` with common loops `loops`
/// (outermost first), every label (candidates or not): `[l, l2)`, then
/// `[ℓ^j_s, l) ∪ [l2, ℓ^j)` per common loop `ℓ^j`.
pub fn option_intervals(tree: &LabelTree, l: Label, l2: Label, loops: &[Label]) -> Vec<Vec<Label>> {
    let mut options = vec![tree.interval(l, l2)];
    for &lj in loops {
        let mut opt = tree.interval(tree.start(lj), l);
        opt.extend(tree.interval(l2, lj));
        options.push(opt);
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(t: &LabelTree, ls: &[Label]) -> Vec<String> {
        ls.iter().map(|l| t.name(*l)).collect()
    }

    #[test]
    fn fig4_options() {
        // Paper Fig. 4 (left), shifted one line down by the kernel header: the race is
        // between 3 (read) and 5 (write) inside the loop 2:6.
        let k = kpl::parse(
            "kernel fig4(shared A[], n) {
    for (i = 0; i < n; i = i + 1) {
        local x = 0;
        x = A[tid + 1];
        x = x + i;
        A[tid] = x;
    }
}",
        )
        .unwrap()
        .remove(0);
        let t = LabelTree::new(&k);
        let at = |name: &str| t.in_order().find(|l| t.name(*l) == name).unwrap();
        let r = race_options(&t, at("6"), at("4"));
        assert_eq!(r.first, at("4"));
        assert_eq!(r.depth(), 1);
        assert_eq!(lines(&t, &r.options[0]), ["4", "5"]);
        assert_eq!(lines(&t, &r.options[1]), ["2:7s", "3", "6"]);
    }

    #[test]
    fn self_race_has_no_intra_option() {
        let k = kpl::parse("kernel k(shared A[]) {\n A[0] = tid;\n}")
            .unwrap()
            .remove(0);
        let t = LabelTree::new(&k);
        let w = t.candidates()[1];
        let r = race_options(&t, w, w);
        assert!(r.options[0].is_empty());
        assert_eq!(r.depth(), 0);
    }
}
