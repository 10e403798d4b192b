//! Why each barrier of a synthesized placement is where it is (`autosync fix --explain`).
//!
//! The refinement loop of [`crate::autosync`] records a [`Trace`] as it goes — for every
//! race constraint its placement options, the blocks excluded because a barrier in them
//! diverged, and the placements refuted because the oracle still found the race — and
//! [`explain`] turns it into one [`BarrierWhy`] per inserted barrier: the races it
//! removes, and the cheaper places that were rejected with the reason. The trace is only
//! recorded, never read by the algorithm.

use kpl::{Label, LabelTree, NodeKind};
use oracle::Race;

use crate::CostModel;
use crate::placement::RaceOptions;

/// What one AutoSync run tried.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Race constraints, in the order they were added.
    pub races: Vec<RaceTrace>,
    /// Blocks excluded by divergence, with the barrier (its label) that diverged.
    pub excluded: Vec<(Label, Label)>,
    /// Placements refuted because a race survived them.
    pub blocked: Vec<Blocked>,
    /// Places excluded because a barrier there diverged in another kernel that shares
    /// the source text (a joint synthesis, [`crate::joint`]), with that kernel's name.
    pub elsewhere: Vec<(Label, String)>,
}

/// One race location and its placement options (Algorithm 1, lines 6–12).
#[derive(Clone, Debug)]
pub struct RaceTrace {
    pub options: RaceOptions,
    /// The oracle's first report of the race.
    pub race: Race,
    /// The race type was used to require options: `P^0` (intra), some inter `P^j`.
    pub needs_intra: bool,
    pub needs_inter: Vec<usize>,
}

/// A placement the oracle refuted for one race.
#[derive(Clone, Debug)]
pub struct Blocked {
    /// Index in [`Trace::races`].
    pub race: usize,
    pub placement: Vec<Label>,
    /// The race as the oracle reported it for that placement.
    pub still: Race,
}

impl Trace {
    pub(crate) fn race(&mut self, options: &RaceOptions, race: &Race, use_types: bool) {
        self.races.push(RaceTrace {
            options: options.clone(),
            race: race.clone(),
            needs_intra: use_types && race.intra,
            needs_inter: if use_types {
                race.inter
                    .iter()
                    .copied()
                    .filter(|j| *j <= options.depth())
                    .collect()
            } else {
                Vec::new()
            },
        });
    }

    pub(crate) fn blocked(&mut self, key: (Label, Label), placement: &[Label], still: &Race) {
        if let Some(race) = self
            .races
            .iter()
            .position(|r| (r.options.first, r.options.second) == key)
        {
            self.blocked.push(Blocked {
                race,
                placement: placement.to_vec(),
                still: still.clone(),
            });
        }
    }

    pub(crate) fn excluded_elsewhere(&mut self, at: Label, kernel: &str) {
        if !self.elsewhere.iter().any(|(l, _)| *l == at) {
            self.elsewhere.push((at, kernel.to_string()));
        }
    }

    pub(crate) fn excluded(&mut self, block: Label, at: Label) {
        if !self.excluded.iter().any(|(b, _)| *b == block) {
            self.excluded.push((block, at));
        }
    }
}

/// Why a barrier is where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct BarrierWhy {
    /// The inserted barrier (a label of the input kernel's tree).
    pub at: Label,
    pub cost: f64,
    /// The races it removes (indices in [`Trace::races`]) and through which option
    /// (0 = within one iteration, j = across iterations of the j-th common loop).
    pub fixes: Vec<(usize, usize)>,
    /// Places at most as cheap that could have removed one of those races, and why not.
    pub rejected: Vec<Rejected>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub at: Label,
    pub cost: f64,
    pub why: Why,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// A barrier there diverged: `block` is the conditional or loop body it was in.
    Diverges { block: Label },
    /// A barrier there diverged in `kernel`, another kernel with the same source text
    /// (an instantiation of the same template).
    DivergesElsewhere { kernel: String },
    /// A placement with a barrier there was tried and the race (index) was still found.
    StillRacing { race: usize, intra: bool, inter: bool },
    /// The race happens within one iteration and the place only separates iterations.
    NeedsIntra { race: usize },
    /// The race happens across iterations and the place only separates accesses within
    /// one iteration.
    NeedsInter { race: usize },
    /// The place would not remove this other race (index), which the chosen barrier
    /// also removes: the placement would need another barrier.
    MissesOther { race: usize },
    /// As cheap: of equally cheap places the earliest in program order is taken.
    Tie,
    /// The placement as a whole would cost more with a barrier there.
    CostlierOverall,
}

/// At most this many rejected places are listed per barrier.
pub const MAX_REJECTED: usize = 6;

/// Explains every barrier of `inserted` (labels of `tree`, the input kernel's tree).
pub fn explain(tree: &LabelTree, trace: &Trace, inserted: &[Label], cost: &dyn CostModel) -> Vec<BarrierWhy> {
    inserted
        .iter()
        .map(|&b| {
            let cost_b = cost.cost(tree, b);
            let mut fixes = Vec::new();
            for (i, r) in trace.races.iter().enumerate() {
                if let Some(j) = r.options.options.iter().position(|o| o.contains(&b)) {
                    fixes.push((i, j));
                }
            }
            let mut rejected: Vec<Rejected> = Vec::new();
            for &(i, j) in &fixes {
                let r = &trace.races[i];
                let mut alternatives: Vec<Label> = r.options.options.iter().flatten().copied().collect();
                alternatives.sort_by_key(|l| tree.node(*l).post);
                alternatives.dedup();
                for a in alternatives {
                    if a == b || inserted.contains(&a) || rejected.iter().any(|x| x.at == a) {
                        continue;
                    }
                    let cost_a = cost.cost(tree, a);
                    let tried = trace
                        .blocked
                        .iter()
                        .find(|x| x.race == i && x.placement.contains(&a) && !x.placement.contains(&b));
                    let diverges = diverging_block(tree, trace, a);
                    let elsewhere = trace.elsewhere.iter().find(|(l, _)| *l == a);
                    // Places that could stand in for this barrier (the same option of the
                    // race) at no higher cost, places strictly cheaper, and places that
                    // were tried or excluded.
                    let same = r.options.options[j].contains(&a);
                    let listed = tried.is_some()
                        || diverges.is_some()
                        || elsewhere.is_some()
                        || (same && cost_a <= cost_b)
                        || cost_a < cost_b;
                    if !listed {
                        continue;
                    }
                    let why = match (diverges, elsewhere, tried) {
                        (Some(block), _, _) => Why::Diverges { block },
                        (None, Some((_, kernel)), _) => Why::DivergesElsewhere {
                            kernel: kernel.clone(),
                        },
                        (None, None, Some(t)) => Why::StillRacing {
                            race: i,
                            intra: t.still.intra,
                            inter: !t.still.inter.is_empty(),
                        },
                        (None, None, None) => reason(tree, trace, (i, a, b), same, cost_a == cost_b, &fixes),
                    };
                    rejected.push(Rejected {
                        at: a,
                        cost: cost_a,
                        why,
                    });
                }
            }
            rejected.sort_by(|x, y| {
                x.cost
                    .total_cmp(&y.cost)
                    .then(tree.node(x.at).post.cmp(&tree.node(y.at).post))
            });
            rejected.truncate(MAX_REJECTED);
            BarrierWhy {
                at: b,
                cost: cost_b,
                fixes,
                rejected,
            }
        })
        .collect()
}

fn diverging_block(tree: &LabelTree, trace: &Trace, a: Label) -> Option<Label> {
    trace
        .excluded
        .iter()
        .find(|(block, _)| tree.children_of(*block).contains(&a))
        .map(|(block, _)| *block)
}

/// Why `a` was not taken instead of `b` for race `i` (`same`: `a` realises the same
/// option of the race as `b`).
fn reason(
    tree: &LabelTree,
    trace: &Trace,
    (i, a, b): (usize, Label, Label),
    same: bool,
    equal_cost: bool,
    fixes: &[(usize, usize)],
) -> Why {
    let r = &trace.races[i];
    let in_option = |j: usize| r.options.options.get(j).is_some_and(|o| o.contains(&a));
    if !same && r.needs_intra && !in_option(0) {
        return Why::NeedsIntra { race: i };
    }
    if !same && !r.needs_inter.is_empty() && !r.needs_inter.iter().any(|j| in_option(*j)) {
        return Why::NeedsInter { race: i };
    }
    // Races the chosen barrier removes and a barrier at `a` would not.
    let missed: Vec<usize> = fixes
        .iter()
        .filter(|(k, j)| !trace.races[*k].options.options[*j].contains(&a))
        .map(|(k, _)| *k)
        .collect();
    if let Some(&k) = missed.first() {
        return Why::MissesOther { race: k };
    }
    if same && equal_cost && tree.node(a).post > tree.node(b).post {
        return Why::Tie;
    }
    Why::CostlierOverall
}

/// Where a barrier after `l` stands, in words ("after line 5", "at the top of the block
/// at line 3").
pub fn place_name(tree: &LabelTree, l: Label) -> String {
    let n = tree.node(l);
    match n.kind {
        NodeKind::Main => "at the top of the kernel".to_string(),
        NodeKind::Start(block) => match tree.node(block).kind {
            NodeKind::Main => "at the top of the kernel".to_string(),
            _ => format!("at the top of the block at line {}", tree.line(block)),
        },
        NodeKind::Stmt(_) if n.place == kpl::Place::Split => {
            format!(
                "inside line {} (split after reading its racing operand)",
                n.span.line
            )
        }
        NodeKind::Stmt(_) | NodeKind::Else(_) if n.span.end_line > n.span.line => {
            format!("after lines {}–{}", n.span.line, n.span.end_line)
        }
        NodeKind::Stmt(_) | NodeKind::Else(_) => format!("after line {}", n.span.line),
    }
}
