//! Beyond the paper: barrier places inside conditionals and loops whose guard every
//! thread of a block agrees on (*uniform regions*), and the placement constraints of a
//! race that such places may cover.
//!
//! The paper's options of a race location `⟨ℓ, ℓ'⟩` are label intervals: `[ℓ, ℓ')` and,
//! per common loop `ℓ^j`, `[ℓ^j_s, ℓ) ∪ [ℓ', ℓ^j)`. An interval only holds labels that
//! share all their enclosing blocks with a bound, so it steps over the insides of an
//! `if`/loop that lies between the two accesses: a barrier there runs only when the
//! conditional is taken (the loop iterates), and the paper leaves it out (its Sec. III-E
//! example, where the optimum sits inside `if (i < 10)`). When the guard is
//! block-uniform (by the oracle's uniformity analysis, [`oracle::Oracle::uniform_places`])
//! such a barrier cannot diverge, costs less (`IC`), and orders the pair on every path
//! where the race happens if the race needs the conditional taken (`if (bid == 0)` around
//! both accesses' blocks, correlated guards, `i < 10` in the same iteration).
//!
//! A [`Region`] is such a block (then branch, else branch or loop body) nested in an
//! option's interval, not enclosing either access, with its direct children after which
//! a barrier is uniform; regions nest (a uniform loop inside a uniform `if` is a region
//! of its own inside the `if`'s). A barrier at any place of a region *touches* the
//! option; the paper's interval labels (`full`) always *cover* it (every path of the
//! option's race type passes them), a region only on the paths that enter it.
//!
//! *Loop-instance places* ([`instance_places`], `SynthOptions::loop_instances`): the
//! uniform places inside a loop around one access only (not a common loop). A barrier
//! there runs between the two accesses for every iteration of that loop but one (the last
//! iteration's accesses when the loop is around the first access and the place precedes
//! it; the first iteration's when the loop is around the second and the place follows
//! it), so it orders a race whose instances happen only in the other iterations: the
//! first iteration stores the value stored before the loop (a benign pair), the last
//! iteration's accesses are by the thread of the other access (Blelloch's scan: the
//! up-sweep's last writer of the root is thread 0, which zeroes it), and it can be a
//! barrier the loop needs anyway. No option of the paper holds such a place. They are
//! grouped into classes ([`instance_classes`]): places of one enclosing block on one
//! side of the access inside their loop run on the same paths relative to the pair
//! (every one of them in each iteration of the block, all before or all after the
//! access), while places of different blocks or sides do not.
//!
//! *Race types*: within one iteration of every common loop (type 0) only `[ℓ, ℓ')` orders
//! the pair. Across iterations of common loop `j` (type `j`), with the second access in
//! the earlier iteration, option `j` does and so does every deeper option (it runs
//! between the two iterations of loop `j` too: the paper's "deeper subsumes
//! shallower"). When the oracle proved that the race only happens with the *first*
//! access in the earlier iteration (`oracle::Race::forward_only`:
//! `if (i < 1) x = A[tid + 1]; A[tid] = x;`), option 0 orders it too: its places run
//! after the first access and before the second in program order, so between the two
//! iterations.
//!
//! # Encoding ([`CoverRace`]; see also `crate::autosync`)
//!
//! A race location with at least one region or loop-instance place in one of its options
//! is encoded by coverage alone, without the `P^j` variables and their mutual exclusion
//! (which assume that an inter-iteration barrier at depth `k` always subsumes one at a
//! shallower depth, false once a barrier covers only some paths). With
//! `touched_j = ⋁ full_j ∨ ⋁_b R_b ∨ ⋁ I_j`, `R_b = ⋁ L_ℓ` over the places of region `b`,
//! `I_j` the loop-instance places (not already in `full_j` or a region of option `j`):
//!
//! - initially, with the race types the oracle reports (`SynthOptions::use_race_types`):
//!   per racing type, some option that may order it (above) touched (each racing type
//!   needs a barrier on its paths, and only those options' labels, regions and
//!   loop-instance places lie on them); without race types, some `touched_j`;
//! - when the oracle still reports the race for a placement `M`: its *coverage* must
//!   grow on every race type still reported (without race types: on some option), on
//!   some option that may order the type. Growing on option `j` means a label of `full_j`
//!   when `M` has none, else a place of a region `M` has no barrier in, else a place of
//!   a loop-instance class `M` has no barrier in; when `M` has a `full_j` label already
//!   (which should cover the type, but the oracle found otherwise), any label of the
//!   option, its regions or its loop-instance places that `M` lacks.
//!
//! Why this never excludes a placement the oracle would accept: barriers only remove
//! races (monotonicity), and the barriers of one class (`full_j`, the places of one
//! region, one loop-instance class) run on the same paths. A placement `M'` that does not
//! grow on a type `t` that `M` left racing has, per class of the options that may order
//! `t`, only classes `M` has, so it leaves the same paths of type `t` unordered and the
//! race stays. Each refutation excludes its own placement (it violates its clause: every
//! disjunct is a label `M` lacks), so the loop terminates: there are finitely many
//! placements. The oracle checks every placement, including absence of divergence, so
//! soundness is the oracle's; `forward_only` only widens which options count (an oracle
//! that does not prove it leaves it empty: the paper's types).
//!
//! Known limit (measured by `synth/tests/it/brute_force.rs`): places outside every option,
//! region and loop-instance place are never tried (a place in a loop around neither
//! access that is not between them; a non-uniform place that the oracle would still find
//! non-divergent), nor are a race location's options split when a `break` or `return`
//! between the labels of one class makes them run on different paths.

use std::collections::BTreeSet;

use kpl::{Kernel, Label, LabelTree};
use oracle::{Oracle, Race};
use z3::Optimize;
use z3::ast::Bool;

use crate::placement::{RaceOptions, option_intervals};

/// A block nested in an option's interval whose barrier places are uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The block's label (an `if` statement for its then branch, an else branch, a loop).
    pub block: Label,
    /// Its direct children (start node included) after which a barrier is a candidate
    /// and uniform, in program order.
    pub places: Vec<Label>,
}

/// The candidates inside blocks (not at the kernel's top level) after which a barrier is
/// block-uniform by the oracle's analysis; `None` when the oracle has none.
pub fn uniform_candidates(
    oracle: &mut dyn Oracle,
    kernel: &Kernel,
    tree: &LabelTree,
) -> Option<BTreeSet<Label>> {
    let inner: Vec<Label> = tree
        .candidates()
        .into_iter()
        .filter(|l| tree.parent(*l).is_some_and(|p| p != tree.main()))
        .collect();
    if inner.is_empty() {
        return Some(BTreeSet::new());
    }
    let uniform = oracle.uniform_places(kernel, tree, &inner)?;
    Some(
        inner
            .into_iter()
            .zip(uniform)
            .filter(|(_, u)| *u)
            .map(|(l, _)| l)
            .collect(),
    )
}

/// The regions of one option: blocks whose labels are in `interval` (the option's labels,
/// candidates or not) and that enclose neither bound, and recursively the blocks nested
/// in them; only those with at least one uniform place.
pub fn regions(
    tree: &LabelTree,
    interval: &[Label],
    bounds: [Label; 2],
    uniform: &BTreeSet<Label>,
) -> Vec<Region> {
    let enclosing: Vec<Label> = bounds.iter().flat_map(|b| tree.blks(*b)).collect();
    let mut out = Vec::new();
    for &l in interval {
        if tree.node(l).block.is_some() && l != tree.main() && !enclosing.contains(&l) {
            collect(tree, l, uniform, &mut out);
        }
    }
    out
}

fn collect(tree: &LabelTree, block: Label, uniform: &BTreeSet<Label>, out: &mut Vec<Region>) {
    let children = tree.children_of(block);
    let places: Vec<Label> = children.iter().copied().filter(|c| uniform.contains(c)).collect();
    if !places.is_empty() {
        out.push(Region { block, places });
    }
    for c in children {
        if tree.node(c).block.is_some() {
            collect(tree, c, uniform, out);
        }
    }
}

/// One option of a race encoded by coverage.
#[derive(Clone, Debug)]
pub(crate) struct OptionCover {
    /// The paper's candidates of the option.
    pub full: Vec<Label>,
    pub regions: Vec<Region>,
    /// Loop-instance places ([`instance_places`]) in neither `full` nor a region, in
    /// classes ([`instance_classes`]).
    pub instance: Vec<Vec<Label>>,
}

impl OptionCover {
    /// Every place of the option: its interval's, its regions', its loop-instance places.
    fn all(&self) -> impl Iterator<Item = Label> + '_ {
        self.full
            .iter()
            .chain(self.regions.iter().flat_map(|r| r.places.iter()))
            .chain(self.instance.iter().flatten())
            .copied()
    }
}

/// The *loop-instance places* of a race between `first ⪯ second` with common loops
/// `common`: the uniform places inside a loop around one access only. A barrier there
/// runs between the access of one iteration of that loop and the other access on every
/// iteration but one (the last for a loop around `first` when the place precedes it, the
/// first for a loop around `second` when the place follows it): it orders a race whose
/// instances happen only in the other iterations (equal values stored in the first one,
/// the last iteration's writer being the reader itself), and may be shared with the
/// loop's own races. No option of the paper holds such a place (see the module doc).
pub fn instance_places(
    tree: &LabelTree,
    first: Label,
    second: Label,
    common: usize,
    uniform: &BTreeSet<Label>,
) -> Vec<Label> {
    let own: Vec<Label> = [first, second]
        .iter()
        .flat_map(|a| tree.loops(*a).into_iter().skip(common))
        .collect();
    if own.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Label> = uniform
        .iter()
        .copied()
        .filter(|c| tree.blks(*c).iter().any(|b| own.contains(b)))
        .collect();
    out.sort_by_key(|l| tree.node(*l).post);
    out
}

/// The access of a race (`first` or `second`) inside the loop around one access only
/// that encloses place `l` (`None` when `l` is in none).
fn access_in_own_loop(
    tree: &LabelTree,
    first: Label,
    second: Label,
    common: usize,
    l: Label,
) -> Option<Label> {
    let blocks = tree.blks(l);
    [first, second]
        .into_iter()
        .find(|a| tree.loops(*a).iter().skip(common).any(|lp| blocks.contains(lp)))
}

/// Loop-instance places ([`instance_places`] of the race between `first ⪯ second`
/// with `common` common loops) grouped into classes of places that run on the same paths
/// relative to the race: the same enclosing block, and the same side (before or after in
/// program order) of the access inside their loop. Within one iteration of that block
/// they all run, and all before (or all after) the access, so each orders the same
/// instances of the pair (up to a `break`, `continue` or `return` between them, the
/// limit every class has; see the module doc). Classes come in the order of their first
/// place.
pub fn instance_classes(
    tree: &LabelTree,
    first: Label,
    second: Label,
    common: usize,
    places: &[Label],
) -> Vec<Vec<Label>> {
    // Per class, its enclosing block and whether it precedes the access.
    let mut keys: Vec<(Option<Label>, bool)> = Vec::new();
    let mut classes: Vec<Vec<Label>> = Vec::new();
    for &l in places {
        let access = access_in_own_loop(tree, first, second, common, l);
        let key = (tree.parent(l), access.is_some_and(|a| tree.precedes(l, a)));
        match keys.iter().position(|k| *k == key) {
            Some(i) => classes[i].push(l),
            None => {
                keys.push(key);
                classes.push(vec![l]);
            }
        }
    }
    classes
}

/// A race location whose options have regions (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct CoverRace {
    pub options: Vec<OptionCover>,
    /// `SynthOptions::loop_instances`: loop-instance places and `Race::forward_only`.
    pub loop_instances: bool,
}

impl CoverRace {
    /// The coverage encoding of a race with options `ro`, or `None` when no option has a
    /// region (the paper's encoding applies).
    pub fn new(
        tree: &LabelTree,
        ro: &RaceOptions,
        uniform: &BTreeSet<Label>,
        loop_instances: bool,
    ) -> Option<CoverRace> {
        let intervals = option_intervals(tree, ro.first, ro.second, &ro.loops);
        let instance = if loop_instances {
            instance_places(tree, ro.first, ro.second, ro.depth(), uniform)
        } else {
            Vec::new()
        };
        let options: Vec<OptionCover> = ro
            .options
            .iter()
            .zip(&intervals)
            .map(|(full, interval)| {
                let regions = regions(tree, interval, [ro.first, ro.second], uniform);
                let left: Vec<Label> = instance
                    .iter()
                    .copied()
                    .filter(|l| !full.contains(l) && !regions.iter().any(|r| r.places.contains(l)))
                    .collect();
                let instance = instance_classes(tree, ro.first, ro.second, ro.depth(), &left);
                OptionCover {
                    full: full.clone(),
                    regions,
                    instance,
                }
            })
            .collect();
        options
            .iter()
            .any(|o| !o.regions.is_empty() || !o.instance.is_empty())
            .then_some(CoverRace {
                options,
                loop_instances,
            })
    }

    /// `ro` with every option's region places added (what `--explain` shows).
    pub fn extended(&self, ro: &RaceOptions, tree: &LabelTree) -> RaceOptions {
        let mut ro = ro.clone();
        for (opt, cover) in ro.options.iter_mut().zip(&self.options) {
            opt.extend(cover.all());
            opt.sort_by_key(|l| tree.node(*l).post);
            opt.dedup();
        }
        ro
    }

    /// The race types a report says must be ordered, each as the options whose places
    /// may order it (`None`: some option, unknown which). Within one iteration (type 0)
    /// only `[ℓ, ℓ')` does. Across iterations of common loop `j` (type `j`) with the
    /// second access in the earlier iteration, the paper's option `j` and the deeper ones
    /// (they run between the two iterations of loop `j` too); when the oracle proved that
    /// only the first access can be in the earlier iteration (`Race::forward_only`: `if
    /// (i < 1) x = A[tid + 1]; A[tid] = x;`), option 0 as well, whose places run between
    /// the accesses in program order.
    fn needed(&self, race: &Race, use_types: bool) -> Option<Vec<Vec<usize>>> {
        if !use_types {
            return None;
        }
        let d = self.options.len();
        let mut out: Vec<Vec<usize>> = race.intra.then(|| vec![0]).into_iter().collect();
        out.extend(race.inter.iter().filter(|j| (1..d).contains(*j)).map(|j| {
            if !self.loop_instances {
                return vec![*j];
            }
            let forward = race.forward_only.contains(j).then_some(0);
            forward.into_iter().chain(*j..d).collect()
        }));
        (!out.is_empty()).then_some(out)
    }

    /// One clause per racing type (or one over all options): some option of the type
    /// satisfies `per_option`.
    fn assert_types(
        &self,
        opt: &Optimize,
        race: &Race,
        use_types: bool,
        per_option: &dyn Fn(&OptionCover) -> Bool,
    ) {
        let over = |js: &mut dyn Iterator<Item = usize>| {
            Bool::or(&js.map(|j| per_option(&self.options[j])).collect::<Vec<_>>())
        };
        match self.needed(race, use_types) {
            Some(types) => types
                .iter()
                .for_each(|js| opt.assert(over(&mut js.iter().copied()))),
            None => opt.assert(over(&mut (0..self.options.len()))),
        }
    }

    /// The initial constraints: the racing types (or some option) touched.
    pub fn assert_initial(
        &self,
        opt: &Optimize,
        var: &dyn Fn(Label) -> Option<Bool>,
        race: &Race,
        use_types: bool,
    ) {
        self.assert_types(opt, race, use_types, &|o| any(o.all(), var));
    }

    /// The race survived placement `chosen`: its coverage must grow (module doc).
    pub fn refute(
        &self,
        opt: &Optimize,
        var: &dyn Fn(Label) -> Option<Bool>,
        chosen: &BTreeSet<Label>,
        race: &Race,
        use_types: bool,
    ) {
        let grow = |o: &OptionCover| -> Bool {
            let has = |ls: &[Label]| ls.iter().any(|l| chosen.contains(l));
            if !has(&o.full) {
                let fresh = o.regions.iter().filter(|r| !has(&r.places));
                let classes = o.instance.iter().filter(|c| !has(c));
                any(
                    o.full
                        .iter()
                        .chain(fresh.flat_map(|r| r.places.iter()))
                        .chain(classes.flatten())
                        .copied(),
                    var,
                )
            } else {
                any(o.all().filter(|l| !chosen.contains(l)), var)
            }
        };
        self.assert_types(opt, race, use_types, &grow);
    }
}

fn any(labels: impl Iterator<Item = Label>, var: &dyn Fn(Label) -> Option<Bool>) -> Bool {
    let vs: Vec<Bool> = labels.filter_map(var).collect();
    Bool::or(&vs)
}
