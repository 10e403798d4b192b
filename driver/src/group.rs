//! One finding per cause (issue #32 item 4): the racing pairs of a kernel that one block
//! barrier would separate, grouped, so that a missing barrier is one report and not one
//! per pair of accesses it leaves unordered.
//!
//! A pure function of the kernel and its races, no oracle call. Each race's *barrier
//! positions* are the placement constraint of the synthesis ([`synth::placement`]): the
//! candidate labels that lie in the option interval of every racing type the verifier
//! reported (within one iteration: between the accesses, `[ℓ, ℓ')`; across iterations
//! of common loop `j`: from the top of that loop's body to the first access or from the
//! second access to the end of the body, and between the accesses too when the race goes
//! only forward in that loop, `Race::forward_only`), and not inside a conditional branch
//! that only one of the accesses is in. A barrier at such a position is between the two
//! accesses on the paths that race. Then a greedy hitting set: the position that most
//! races still ungrouped have (ties: the one in the fewest blocks, then the earliest in
//! program order) makes a group of them, until every race with a position is in a group. A race with no
//! position (between blocks, a statement racing with itself within one iteration, an
//! access in an inlined function or macro body, where no barrier can be written) is a
//! group of its own without a barrier.
//!
//! What a group claims is only that: the barrier separates the two accesses of each of
//! its pairs. Whether every thread of the block reaches a barrier there (divergence), or
//! whether the kernel is then free of races, the grouping does not know: `autosync fix`
//! asks the verifier.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use kpl::{Kernel, Label, LabelTree, NodeKind, Span};
use oracle::Race;

/// A set of races one block barrier separates (or one race no barrier position
/// separates).
#[derive(Clone, Debug, PartialEq)]
pub struct RaceGroup {
    /// Indices of the races in the kernel's report, ascending.
    pub members: Vec<usize>,
    /// Where one barrier lies between the two accesses of every member; `None` for a
    /// race with no such place (then the group has that race alone).
    pub barrier: Option<BarrierPlace>,
}

/// A place for a barrier, in terms of the source.
#[derive(Clone, Debug, PartialEq)]
pub struct BarrierPlace {
    /// "after line 52", "after lines 20–27", "at the top of the block at line 18", as
    /// `fix --explain` names places.
    pub place: String,
    /// The line of the statement the barrier would follow (its first line), or of the
    /// line that opens the block when it goes at the top of one: `fix`'s `after_line`.
    pub after_line: u32,
    /// The statement it follows, or the statement whose block it opens (the kernel's
    /// body for the top of the kernel): where a report points.
    pub anchor: Span,
}

/// The groups of `races` (the report of kernel `k`, after races at the same places were
/// merged), in the order of their first member. `origins[i]`, when given, lists the
/// races as the verifier reported them that race `i` stands for (merged: a position must
/// separate each of them); empty `origins` means each race stands for itself.
pub fn group_races(k: &Kernel, races: &[Race], origins: &[Vec<Race>]) -> Vec<RaceGroup> {
    if races.is_empty() {
        return Vec::new();
    }
    let tree = LabelTree::new(k);
    let positions: Vec<Vec<Label>> = races
        .iter()
        .enumerate()
        .map(|(i, r)| match origins.get(i) {
            Some(parts) if !parts.is_empty() => {
                let mut sets = parts.iter().map(|p| barrier_positions(&tree, p));
                let first = sets.next().unwrap_or_default();
                sets.fold(first, |acc, s| {
                    acc.into_iter().filter(|l| s.contains(l)).collect()
                })
            }
            _ => barrier_positions(&tree, r),
        })
        .collect();
    hitting_groups(&tree, &positions)
        .into_iter()
        .map(|(members, at)| RaceGroup {
            members,
            barrier: at.map(|l| place_of(&tree, l)),
        })
        .collect()
}

/// The groups of a kernel's report to show: `groups` when they hold each of the
/// `races` races once, else one group per race (a report made by hand, without
/// grouping), so that no race goes unreported.
pub fn groups_or_each(groups: &[RaceGroup], races: usize) -> Vec<RaceGroup> {
    let mut seen: Vec<usize> = groups.iter().flat_map(|g| g.members.iter().copied()).collect();
    seen.sort_unstable();
    if seen == (0..races).collect::<Vec<_>>() {
        groups.to_vec()
    } else {
        (0..races)
            .map(|i| RaceGroup {
                members: vec![i],
                barrier: None,
            })
            .collect()
    }
}

/// The candidate labels after which one block barrier lies between the accesses of
/// `race` for every racing type the verifier reported, in program order. Empty when no
/// block barrier can order the race or no single place serves every type.
pub fn barrier_positions(tree: &LabelTree, race: &Race) -> Vec<Label> {
    if !race.fixable {
        return Vec::new();
    }
    let (Some(a), Some(b)) = (tree.label_of(race.first.stmt), tree.label_of(race.second.stmt)) else {
        return Vec::new();
    };
    let ro = synth::placement::race_options(tree, a, b);
    // One set of labels per racing type; a position must be in all of them.
    let mut types: Vec<Vec<Label>> = Vec::new();
    if race.intra {
        types.push(ro.options[0].clone());
    }
    for j in &race.inter {
        let Some(option) = ro.options.get(*j).filter(|_| *j >= 1) else {
            // A depth the tree does not have: no claim about it.
            return Vec::new();
        };
        let mut set = option.clone();
        if race.forward_only.contains(j) {
            set.extend(ro.options[0].iter().copied());
        }
        types.push(set);
    }
    let Some((first, rest)) = types.split_first() else {
        return Vec::new();
    };
    let mut out: Vec<Label> = first
        .iter()
        .copied()
        .filter(|l| rest.iter().all(|t| t.contains(l)))
        .filter(|l| tree.node(*l).candidate)
        .filter(|l| within_shared_conditionals(tree, *l, a, b))
        .collect();
    out.sort_by_key(|l| tree.node(*l).post);
    out.dedup();
    out
}

/// Whether every conditional around label `l` is around both accesses `a` and `b`: a
/// barrier in a branch only one access is in (the write in the `then` branch, the read
/// after the `if`) is between them in the paper's order, but threads that do not take
/// the branch never reach it, so it is no place to name without asking the verifier.
/// (A loop around one access is kept: the top of an inner loop's body is where a barrier
/// between a write before the loop and the reads in it usually goes.)
fn within_shared_conditionals(tree: &LabelTree, l: Label, a: Label, b: Label) -> bool {
    let (ca, cb) = (tree.conds(a), tree.conds(b));
    tree.conds(l).iter().all(|c| ca.contains(c) && cb.contains(c))
}

/// The greedy hitting set over `positions` (per race, its barrier positions): groups of
/// race indices with the label they share, ordered by their first member; races without
/// positions alone, with `None`.
fn hitting_groups(tree: &LabelTree, positions: &[Vec<Label>]) -> Vec<(Vec<usize>, Option<Label>)> {
    let mut left: Vec<usize> = (0..positions.len())
        .filter(|i| !positions[*i].is_empty())
        .collect();
    let mut groups: Vec<(Vec<usize>, Option<Label>)> = (0..positions.len())
        .filter(|i| positions[*i].is_empty())
        .map(|i| (vec![i], None))
        .collect();
    while !left.is_empty() {
        // By post-order position, the program order of a barrier after the label.
        let mut cover: BTreeMap<u32, (Label, Vec<usize>)> = BTreeMap::new();
        for &i in &left {
            for &l in &positions[i] {
                cover
                    .entry(tree.node(l).post)
                    .or_insert_with(|| (l, Vec::new()))
                    .1
                    .push(i);
            }
        }
        // The most races; of equally many, the place in the fewest blocks (after a loop
        // rather than inside it, where a trip count that differs between threads would
        // make it diverge), then the earliest.
        let best = cover
            .into_iter()
            .max_by_key(|(post, (l, m))| (m.len(), Reverse(tree.blks(*l).len()), Reverse(*post)));
        let Some((_, (at, members))) = best else {
            break;
        };
        left.retain(|i| !members.contains(i));
        groups.push((members, Some(at)));
    }
    for g in &mut groups {
        g.0.sort_unstable();
    }
    groups.sort_by_key(|g| g.0.first().copied());
    groups
}

/// The source place of a barrier after label `l`.
fn place_of(tree: &LabelTree, l: Label) -> BarrierPlace {
    let n = tree.node(l);
    let anchor = match n.kind {
        NodeKind::Start(block) => tree.node(block).span,
        NodeKind::Else(_) => match tree.parent(l).and_then(|p| {
            let siblings = &tree.node(p).children;
            let i = siblings.iter().position(|c| *c == l)?;
            // The `if` statement is the sibling right before its else branch.
            i.checked_sub(1).map(|j| siblings[j])
        }) {
            Some(if_label) => tree.node(if_label).span,
            None => n.span,
        },
        _ => n.span,
    };
    BarrierPlace {
        place: synth::explain::place_name(tree, l),
        after_line: tree.line(l),
        anchor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> (Kernel, Vec<Race>) {
        let k = kpl::parse(src).expect("parses").remove(0);
        let mut v = oracle::verifier::StaticVerifier::new(oracle::CheckOptions::default());
        let report = oracle::Oracle::check(&mut v, &k).expect("checks");
        (k, report.races)
    }

    #[test]
    fn one_missing_barrier_is_one_group() {
        let (k, races) = check(
            "kernel k(shared A[], shared B[]) {
    local x;
    A[tid] = tid;
    B[tid] = tid;
    x = A[tid + 1];
    x = B[tid + 1];
    x = A[tid + 2];
    x = B[tid + 2];
}",
        );
        assert_eq!(races.len(), 4, "{races:?}");
        let groups = group_races(&k, &races, &[]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].members, [0, 1, 2, 3]);
        let b = groups[0].barrier.as_ref().expect("a place");
        assert_eq!(b.place, "after line 4");
        assert_eq!(b.after_line, 4);
    }

    #[test]
    fn two_missing_barriers_are_two_groups() {
        let (k, races) = check(
            "kernel k(shared A[], shared B[]) {
    local x;
    A[tid] = tid;
    x = A[tid + 1];
    B[tid] = x;
    x = B[tid + 1];
}",
        );
        let groups = group_races(&k, &races, &[]);
        let places: Vec<Option<String>> = groups
            .iter()
            .map(|g| g.barrier.as_ref().map(|b| b.place.clone()))
            .collect();
        assert_eq!(
            places,
            [Some("after line 3".to_string()), Some("after line 5".to_string())]
        );
    }

    #[test]
    fn no_place_inside_a_branch_only_one_access_is_in() {
        let (k, races) = check(
            "kernel k(shared A[]) {
    local x;
    if (tid < 4) {
        A[tid] = tid;
    }
    x = A[tid + 1];
}",
        );
        let groups = group_races(&k, &races, &[]);
        assert_eq!(groups.len(), 1, "{groups:?}");
        let b = groups[0].barrier.as_ref().expect("a place");
        assert_eq!(b.place, "after lines 3–5");
    }

    #[test]
    fn a_race_between_blocks_stays_alone() {
        let (k, races) = check(
            "kernel k(global G[]) {
    G[0] = tid;
}",
        );
        assert!(!races.is_empty());
        let groups = group_races(&k, &races, &[]);
        assert!(groups.iter().all(|g| g.barrier.is_none() && g.members.len() == 1));
    }
}
