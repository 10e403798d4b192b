//! Explanations (`fix --explain`) in terms of the source: lines, not labels.

use kpl::LabelTree;

/// [`synth::explain::BarrierWhy`] in terms of the source: lines, not labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// "after line 5", "at the top of the block at line 3".
    pub place: String,
    pub cost: f64,
    pub fixes: Vec<ExplainedRace>,
    pub rejected: Vec<ExplainedRejection>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExplainedRace {
    pub array: String,
    pub kind: String,
    pub first_line: u32,
    pub second_line: u32,
    /// "in the same barrier interval", "within one iteration of the loop at line 4",
    /// "across iterations of the loop at line 4".
    pub how: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExplainedRejection {
    pub place: String,
    pub line: u32,
    pub cost: f64,
    pub why: String,
}

/// An explanation in terms of source lines.
pub(crate) fn explained_in_source(
    tree: &LabelTree,
    trace: &synth::explain::Trace,
    w: &synth::explain::BarrierWhy,
) -> Explained {
    use synth::explain::{Why, place_name};
    let race_words = |i: usize| {
        let r = &trace.races[i].race;
        races_phrase(&[ExplainedRace {
            array: r.array.clone(),
            kind: r.kind(),
            first_line: r.first.span.line,
            second_line: r.second.span.line,
            how: String::new(),
        }])
    };
    let fixes = w
        .fixes
        .iter()
        .map(|&(i, j)| {
            let rt = &trace.races[i];
            let how = match (j, rt.options.loops.last()) {
                (_, None) => "in the same barrier interval".to_string(),
                (0, Some(l)) => format!("within one iteration of the loop at line {}", tree.line(*l)),
                (j, _) => format!(
                    "across iterations of the loop at line {}",
                    tree.line(rt.options.loops[j - 1])
                ),
            };
            ExplainedRace {
                array: rt.race.array.clone(),
                kind: rt.race.kind(),
                first_line: rt.race.first.span.line,
                second_line: rt.race.second.span.line,
                how,
            }
        })
        .collect();
    let rejected = w
        .rejected
        .iter()
        .map(|r| {
            let why = match &r.why {
                Why::Diverges { block } => format!(
                    "a barrier there diverges: threads of a block disagree on the guard of the block at line {}",
                    tree.line(*block)
                ),
                Why::DivergesElsewhere { kernel } => format!(
                    "a barrier there diverges in `{kernel}`, which shares this text (an instantiation of the \
                     same template)"
                ),
                Why::StillRacing { race, intra, inter } => format!(
                    "tried: {} was still there{}",
                    race_words(*race),
                    match (intra, inter) {
                        (true, true) => " (within and across loop iterations)",
                        (false, true) => " (across loop iterations)",
                        _ => "",
                    }
                ),
                Why::NeedsIntra { race } => format!(
                    "{} happens within one loop iteration; a barrier there only separates iterations",
                    race_words(*race)
                ),
                Why::NeedsInter { race } => format!(
                    "{} happens across loop iterations; a barrier there does not separate them",
                    race_words(*race)
                ),
                Why::MissesOther { race } => format!(
                    "a barrier there does not remove {}, which this one also removes: the placement would \
                     need another barrier",
                    race_words(*race)
                ),
                Why::Tie => "as cheap; of equally cheap places autosync takes the first in program order".to_string(),
                Why::CostlierOverall => "the placement as a whole would cost more with a barrier there".to_string(),
            };
            ExplainedRejection {
                place: place_name(tree, r.at),
                line: tree.line(r.at),
                cost: r.cost,
                why,
            }
        })
        .collect();
    Explained {
        place: place_name(tree, w.at),
        cost: w.cost,
        fixes,
        rejected,
    }
}

/// "the read-write race on `A` between line 5 and line 7 and the write-write race on `B`
/// at line 9": the races of an explanation, those on the same pair of lines together.
pub fn races_phrase(fixes: &[ExplainedRace]) -> String {
    let mut groups: Vec<(&str, u32, u32, Vec<&str>)> = Vec::new();
    for f in fixes {
        match groups
            .iter_mut()
            .find(|g| (g.0, g.1, g.2) == (f.array.as_str(), f.first_line, f.second_line))
        {
            Some(g) if !g.3.contains(&f.kind.as_str()) => g.3.push(&f.kind),
            Some(_) => {}
            None => groups.push((&f.array, f.first_line, f.second_line, vec![&f.kind])),
        }
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|(array, a, b, kinds)| {
            let (noun, kinds) = if kinds.len() > 1 {
                ("races", kinds.join(" and "))
            } else {
                ("race", kinds.concat())
            };
            if a == b {
                format!("the {kinds} {noun} on `{array}` at line {a}")
            } else {
                format!("the {kinds} {noun} on `{array}` between line {a} and line {b}")
            }
        })
        .collect();
    parts.join(" and ")
}
