//! `fix` on the instantiations of a template: kernels lowered from one function body
//! (`k<32>`, `k<64>`) share one source text, so a barrier written for one is in all of
//! them. They are synthesized together ([`synth::synthesize_jointly`]: one placement of
//! source places, checked by the oracle in every instantiation, cost summed over them),
//! also those `--kernel` leaves out; and before the file is written, every
//! instantiation of a template whose text changed is translated from the fixed text and
//! checked again ([`recheck`]), whichever way its placement was found.

use std::collections::BTreeMap;

use anyhow::Result;
use kpl::{Kernel, Label, LabelTree, rewrite};
use oracle::Oracle;
use synth::{Joint, Member, NoSolution, Outcome, SynthError, SynthOptions, Synthesis};

use super::fix::{FileFix, FixStatus, input_of};
use crate::source::Source;
use crate::{FixSettings, Settings};

/// The instantiations of one template among a file's kernels: indices into
/// `Source::kernels`, in file order, at least two.
pub(super) type Group = Vec<usize>;

/// The groups of kernels sharing their body's text that contain a selected kernel
/// (`chosen`: indices into `Source::kernels`). Members need not be selected.
pub(super) fn groups(src: &Source, chosen: &[usize]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for &i in chosen {
        let span = src.kernels[i].body.span;
        if span == kpl::Span::NONE || out.iter().any(|g| g.contains(&i)) {
            continue;
        }
        let group: Group = (0..src.kernels.len())
            .filter(|&j| src.kernels[j].body.span == span)
            .collect();
        if group.len() > 1 {
            out.push(group);
        }
    }
    out
}

/// What synthesis gave one instantiation: the placement (`Err`: the oracle could not
/// answer, the kernel is unsupported), when asked for the placement from scratch
/// (without the movable barriers) that says which existing barriers are redundant, and
/// what its report says when it is fixed ([`joint_note`]), and the other members.
pub(super) struct Planned {
    pub synthesis: Result<Synthesis, String>,
    pub scratch: Option<Synthesis>,
    pub note: String,
    pub together_with: Vec<String>,
}

/// Synthesizes the instantiations `kernels` of one template together: per member, in
/// their order. `opts[i]` are member `i`'s options; `fix[i]` says whether it is to be
/// fixed (selected), else it only must not get worse. `None` when that is not done
/// jointly (the naive baseline; a member needs a statement split): then each selected
/// one is synthesized alone and [`recheck`] guards the result.
pub(super) fn plan_group(
    args: &FixSettings,
    src: &Source,
    kernels: &[&Kernel],
    opts: &[&SynthOptions],
    fix: &[bool],
    oracles: &dyn Fn() -> Box<dyn Oracle>,
) -> Result<Option<Vec<Planned>>> {
    if args.naive {
        return Ok(None);
    }
    let inputs: Vec<Kernel> = kernels.iter().map(|k| input_of(args, k)).collect();
    let Some(mut done) = jointly(src, &inputs, opts, fix, oracles)? else {
        return Ok(None);
    };
    all_or_none(kernels, fix, &mut done);
    let names: Vec<String> = kernels.iter().map(|k| k.name.clone()).collect();
    let total: f64 = done.iter().filter_map(|s| s.as_ref().ok()).map(|s| s.cost).sum();
    let wants_scratch = !args.strip
        && !args.keep_existing
        && kernels
            .iter()
            .any(|k| k.stmts().iter().any(|s| s.is_movable_barrier()))
        && done.iter().all(|s| {
            s.as_ref()
                .is_ok_and(|s| !matches!(s.outcome, Outcome::NoSolution(_)))
        });
    let mut scratch: Vec<Option<Synthesis>> = if wants_scratch {
        let stripped: Vec<Kernel> = kernels.iter().map(|k| k.without_movable_barriers()).collect();
        jointly(src, &stripped, opts, fix, oracles)?
            .map(|v| v.into_iter().map(Result::ok).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    scratch.resize_with(kernels.len(), || None);
    Ok(Some(
        done.into_iter()
            .zip(scratch)
            .zip(&names)
            .map(|((synthesis, scratch), name)| Planned {
                synthesis,
                scratch,
                note: joint_note(name, &names, total),
                together_with: names.iter().filter(|n| *n != name).cloned().collect(),
            })
            .collect(),
    ))
}

/// One joint synthesis of `inputs` (each with a fresh oracle of its own, so an oracle's
/// answers about the kernel it was last asked about stay useful); `None` when a member
/// needs a statement split.
fn jointly(
    src: &Source,
    inputs: &[Kernel],
    opts: &[&SynthOptions],
    fix: &[bool],
    oracles: &dyn Fn() -> Box<dyn Oracle>,
) -> Result<Option<Vec<Result<Synthesis, String>>>> {
    let mut table = Vec::new();
    let places: Vec<BTreeMap<Label, usize>> = inputs
        .iter()
        .map(|k| source_places(src, &LabelTree::new(k), &mut table))
        .collect();
    let mut own: Vec<Box<dyn Oracle>> = inputs.iter().map(|_| oracles()).collect();
    let members = inputs
        .iter()
        .zip(opts)
        .zip(places)
        .zip(own.iter_mut())
        .zip(fix)
        .map(|((((kernel, opts), places), oracle), &fix)| Member {
            kernel,
            oracle: oracle.as_mut(),
            opts,
            places,
            fix,
        })
        .collect();
    match synth::synthesize_jointly(members) {
        Ok(Joint::Synthesized(v)) => Ok(Some(v.into_iter().map(Ok).collect())),
        Ok(Joint::NeedsSplit(_)) => Ok(None),
        Err(SynthError::Oracle(e)) => Ok(Some(inputs.iter().map(|_| Err(e.to_string())).collect())),
        Err(e) => Err(e.into()),
    }
}

/// A source place: the text edits (start, end, text) that write a barrier there, and
/// which of a kernel's labels with those edits it is (0 but for duplicates).
type PlaceKey = (Vec<(usize, usize, String)>, usize);

/// The source place of each candidate of `tree` that can be written into the text: the
/// text edits that write a barrier there alone (`rewrite::insert_at`), numbered by
/// their index in `table`, which the members of a group share. Two labels of one kernel
/// with the same edits (there should be none) are told apart by their order.
fn source_places(src: &Source, tree: &LabelTree, table: &mut Vec<PlaceKey>) -> BTreeMap<Label, usize> {
    let mut places = BTreeMap::new();
    let mut seen: BTreeMap<Vec<(usize, usize, String)>, usize> = BTreeMap::new();
    for l in tree.candidates() {
        let Ok(ins) = rewrite::insert_at(&src.text, tree, &[l], src.lang.barrier()) else {
            continue;
        };
        let edits: Vec<(usize, usize, String)> =
            ins.edits.into_iter().map(|e| (e.start, e.end, e.text)).collect();
        let n = seen.entry(edits.clone()).or_insert(0);
        let key = (edits, *n);
        *n += 1;
        let id = match table.iter().position(|k| *k == key) {
            Some(id) => id,
            None => {
                table.push(key);
                table.len() - 1
            }
        };
        places.insert(l, id);
    }
    places
}

/// One text serves all members: when some member to fix has no solution (races between
/// blocks, which the joint loop leaves to the others), none has, and the others say
/// why, naming it. (What the result of a member not to fix says is not used.)
fn all_or_none(kernels: &[&Kernel], fix: &[bool], done: &mut [Result<Synthesis, String>]) {
    let failed: Vec<(String, String)> = kernels
        .iter()
        .zip(done.iter())
        .zip(fix)
        .filter(|(_, fix)| **fix)
        .filter_map(|((k, s), _)| match s.as_ref().map(|s| &s.outcome) {
            Ok(Outcome::NoSolution(ns)) => Some((k.name.clone(), ns.reason.clone())),
            Err(e) => Some((k.name.clone(), e.clone())),
            _ => None,
        })
        .collect();
    let Some((name, why)) = failed.first() else {
        return;
    };
    for (k, s) in kernels.iter().zip(done.iter_mut()) {
        let Ok(s) = s else { continue };
        if matches!(s.outcome, Outcome::NoSolution(_)) || k.name == *name {
            continue;
        }
        s.outcome = Outcome::NoSolution(NoSolution {
            reason: format!(
                "`{}` and `{name}` are instantiations of one template and share one text, and `{name}` has \
                 no barrier-only solution: {why}",
                k.name
            ),
            races: Vec::new(),
        });
        s.inserted.clear();
    }
}

/// What the fix of a selected member says when its placement was found together with
/// the other members (`names`, in group order) and it is fixed: with whom, and the
/// summed cost the joint synthesis minimised (`total_cost`: every member's cost with the
/// placement, its existing barriers included).
pub(super) fn joint_note(name: &str, names: &[String], total_cost: f64) -> String {
    let others: Vec<String> = names
        .iter()
        .filter(|n| *n != name)
        .map(|n| format!("`{n}`"))
        .collect();
    format!(
        "placed together with {} (instantiations of one template share one text): the placement costs \
         {total_cost} summed over them",
        others.join(", ")
    )
}

/// Translates the fixed text again and checks every instantiation of each group in
/// which a selected kernel is fixed: a selected one must verify, one `--kernel` left
/// out must verify if it did before. Returns, for each kernel of `fix` (index) in a
/// group where that fails, why the placement must not be written.
pub(super) fn recheck(
    settings: &Settings,
    src: &Source,
    fix: &FileFix,
    groups: &[Group],
    chosen_at: &[usize],
    oracle: &mut dyn Oracle,
) -> Result<Vec<(usize, String)>> {
    let fixed = |i: usize| {
        fix.kernels
            .iter()
            .any(|k| k.name == src.kernels[i].name && k.status == FixStatus::Fixed)
    };
    let changed: Vec<&Group> = groups.iter().filter(|g| g.iter().any(|&i| fixed(i))).collect();
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    let opts = src.front_end(&settings.front_end);
    let translated = cuda::translate_each(&src.path, &fix.fixed_text, &opts);
    let mut failed = Vec::new();
    for g in changed {
        let why = match &translated {
            Err(e) => Some(format!(
                "the fixed text does not translate ({}:{}: {})",
                e.line, e.col, e.message
            )),
            Ok(t) => g.iter().find_map(|&i| {
                let old = &src.kernels[i];
                let Some(new) = t.kernels.iter().find(|l| l.kernel.name == old.name) else {
                    return Some(format!("`{}` is missing from the fixed text", old.name));
                };
                let worse = worse(oracle, old, &new.kernel, chosen_at.contains(&i))?;
                Some(format!("with the fixed text, `{}` {worse}", old.name))
            }),
        };
        let Some(why) = why else { continue };
        let names: Vec<String> = g.iter().map(|&i| format!("`{}`", src.kernels[i].name)).collect();
        for (n, k) in fix.kernels.iter().enumerate() {
            if g.iter().any(|&i| src.kernels[i].name == k.name) {
                failed.push((
                    n,
                    format!(
                        "{why}; {} are instantiations of one template and share one text, so the placement is \
                         not applied",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(failed)
}

/// What is wrong with instantiation `new` (translated from the fixed text), if anything:
/// it must verify when it was to be fixed (`selected`), else when `old` (as it was)
/// verified.
fn worse(oracle: &mut dyn Oracle, old: &Kernel, new: &Kernel, selected: bool) -> Option<String> {
    let defect = match oracle.check(new) {
        Ok(r) if r.is_clean() => return None,
        Ok(r) => {
            let mut found = Vec::new();
            if !r.races.is_empty() {
                found.push(format!("{} race(s)", r.races.len()));
            }
            if !r.divergences.is_empty() {
                found.push(format!("{} divergent barrier(s)", r.divergences.len()));
            }
            format!("has {}", found.join(" and "))
        }
        Err(e) => format!("cannot be checked: {e}"),
    };
    if !selected && oracle.check(old).is_ok_and(|r| !r.is_clean()) {
        // Not verified before either, and not to be fixed.
        return None;
    }
    Some(defect)
}
