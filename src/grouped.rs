//! The text and JSON of a kernel's races grouped by the barrier that separates them
//! (issue #32 item 4, [`driver::group`]): one diagnostic per group of racing pairs, a
//! group of one race as [`race_diagnostic`] shows it, and the JSON `groups` entries.

use codespan_reporting::diagnostic::{Diagnostic, Label as CsLabel};
use driver::KernelCheck;
use driver::Source;
use driver::report::Race;
use serde_json::{Value, json};

use crate::output::{
    add_call_labels, calls_phrase, file_of, first_line, host_launch_note, join, launch_note, line_of, place,
    race_diagnostic, race_sentence, real_span, verb,
};

/// How many pairs a grouped report lists before it says how many more there are (the
/// JSON report lists every one).
const LISTED_PAIRS: usize = 20;

/// `` `a` `` , `` `a` and `b` ``, `` `a`, `b` and `c` ``.
fn names_phrase(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// One line of a group's list of pairs: "write-read on `s`: line 15 and line 22 (across
/// loop iterations, depth 1)", "; possible" when no run confirmed it.
pub fn pair_line(src: &Source, kernel: &str, r: &Race) -> String {
    let how = match (r.intra, r.inter.as_slice()) {
        (_, []) => String::new(),
        (true, d) => format!(
            " (within one loop iteration and across iterations, depth {})",
            join(d)
        ),
        (false, d) => format!(" (across loop iterations, depth {})", join(d)),
    };
    // "line 9 (in `g`, called at line 15)": the calls in parentheses, so that "and"
    // joins the two places.
    let at = |span| match calls_phrase(src, kernel, span) {
        Some(c) => format!("{} ({c})", line_of(src, span)),
        None => line_of(src, span),
    };
    let status = if driver::report::possible(&r.replay).is_some() {
        "; possible"
    } else {
        ""
    };
    format!(
        "{} on `{}`: {} and {}{how}{status}",
        r.kind(),
        r.array,
        at(r.first.span),
        at(r.second.span)
    )
}

/// The title of a group of racing pairs one barrier separates: "15 racing pairs on
/// shared array `s` between lines 15–26; a barrier after line 16 separates them all"
/// ("possible racing pairs" when no run confirmed any).
pub fn group_title(src: &Source, members: &[&Race], place: &str) -> String {
    let Some(first) = members.first() else {
        return String::new();
    };
    let n = members.len();
    let all_possible = members
        .iter()
        .all(|r| driver::report::possible(&r.replay).is_some());
    let mut arrays: Vec<&str> = Vec::new();
    for r in members {
        if !arrays.contains(&r.array.as_str()) {
            arrays.push(&r.array);
        }
    }
    let space = |r: &Race| match r.space {
        driver::report::Space::Shared => "shared",
        driver::report::Space::Global => "global",
    };
    let spaces = if members.iter().all(|r| space(r) == space(first)) {
        format!("{} ", space(first))
    } else {
        String::new()
    };
    let word = if arrays.len() == 1 { "array" } else { "arrays" };
    // The lines of the accesses in the checked file.
    let lines: Vec<u32> = members
        .iter()
        .flat_map(|r| [r.first.span, r.second.span])
        .filter_map(|s| match real_span(src, s) {
            (0, e) => Some(e.line),
            _ => None,
        })
        .collect();
    let between = match (lines.iter().min(), lines.iter().max()) {
        (Some(a), Some(b)) if a < b => format!(" between lines {a}–{b}"),
        (Some(a), Some(_)) => format!(" at line {a}"),
        _ => String::new(),
    };
    let n_possible = members
        .iter()
        .filter(|r| driver::report::possible(&r.replay).is_some())
        .count();
    let n_confirmed = members
        .iter()
        .filter(|r| driver::report::confirmed(&r.replay))
        .count();
    // A mix: how many of each, in the title (an error because some are confirmed).
    let mix = if n_possible > 0 && !all_possible {
        format!(" ({n_confirmed} confirmed, {n_possible} possible)")
    } else {
        String::new()
    };
    format!(
        "{n} {}racing pairs{mix} on {spaces}{word} {}{between}; a barrier {} separates them all",
        if all_possible { "possible " } else { "" },
        names_phrase(&arrays),
        place
    )
}

/// The diagnostics of a kernel's races: one per group of races one barrier separates
/// ([`driver::group`]); a group of one race is [`race_diagnostic`], as it always was.
pub fn race_diagnostics(src: &Source, k: &KernelCheck) -> Vec<Diagnostic<usize>> {
    driver::group::groups_or_each(&k.groups, k.report.races.len())
        .iter()
        .filter_map(|g| group_diagnostic(src, &k.name, &k.report.races, g))
        .collect()
}

/// An access of a group as a label: where it starts (file, byte), its range, and what
/// the pairs do there ("reads `s`").
type AccessLabel = ((usize, usize), std::ops::Range<usize>, Vec<String>);

/// A group of racing pairs as the text report shows it: the title says how many pairs,
/// on which arrays, between which lines, and where one barrier separates them all (the
/// primary label); each access is a secondary label; the notes list the pairs, show one
/// witness, say how many a run confirmed and why the others are only possible. An error
/// when a run confirmed any member, else a warning. `None` for a group naming no race.
pub fn group_diagnostic(
    src: &Source,
    kernel: &str,
    races: &[Race],
    g: &driver::group::RaceGroup,
) -> Option<Diagnostic<usize>> {
    let members: Vec<&Race> = g.members.iter().filter_map(|i| races.get(*i)).collect();
    let (barrier, [first, _, ..]) = (&g.barrier, members.as_slice()) else {
        return members.first().map(|r| race_diagnostic(src, kernel, r));
    };
    let Some(barrier) = barrier else {
        return Some(race_diagnostic(src, kernel, first));
    };
    use driver::report::possible;
    let n = members.len();
    let n_possible = members.iter().filter(|r| possible(&r.replay).is_some()).count();
    let n_confirmed = members
        .iter()
        .filter(|r| driver::report::confirmed(&r.replay))
        .count();
    let all_possible = n_possible == n;
    let message = group_title(src, &members, &barrier.place);

    // The barrier's place first, then each access once.
    let (fb, rb) = place(src, barrier.anchor);
    let rb = first_line(rb, file_of(src, fb).0);
    let mut labels = vec![CsLabel::primary(fb, rb).with_message(format!(
        "a barrier {} would separate the two accesses of {}",
        barrier.place,
        if n == 2 {
            "both pairs".to_string()
        } else {
            format!("all {n} pairs")
        }
    ))];
    // Each access once, by where it starts (statements the front end made of one access
    // may differ in their extent).
    let mut accesses: Vec<AccessLabel> = Vec::new();
    for r in &members {
        for a in [&r.first, &r.second] {
            let what = format!("{} `{}`", verb(a.kind), r.array);
            let (file, range) = place(src, a.span);
            match accesses.iter_mut().find(|(p, _, _)| *p == (file, range.start)) {
                Some((_, _, whats)) if !whats.contains(&what) => whats.push(what),
                Some(_) => {}
                None => accesses.push(((file, range.start), range, vec![what])),
            }
        }
    }
    for ((f, _), range, whats) in accesses {
        labels.push(CsLabel::secondary(f, range).with_message(whats.join(", ")));
    }
    let spans: Vec<driver::report::Span> = members
        .iter()
        .flat_map(|r| [r.second.span, r.first.span])
        .collect();
    add_call_labels(src, kernel, &spans, &mut labels);
    let confirmed = match (n_confirmed, n_possible) {
        (c, 0) if c == n => ", each confirmed by a run".to_string(),
        (0, p) if p == n => ", none confirmed by a run".to_string(),
        (0, 0) => String::new(),
        (c, p) => format!(", {c} confirmed by a run and {p} possible"),
    };
    let mut list =
        format!("in kernel `{kernel}`: {n} pairs of accesses with no barrier between them{confirmed}:");
    // Pairs that read alike (statements the front end made of one access at the same
    // lines) once, with how many they are.
    let mut shown: Vec<(String, usize)> = Vec::new();
    for r in &members {
        let line = pair_line(src, kernel, r);
        match shown.iter_mut().find(|(l, _)| *l == line) {
            Some((_, count)) => *count += 1,
            None => shown.push((line, 1)),
        }
    }
    for (line, count) in shown.iter().take(LISTED_PAIRS) {
        let times = if *count > 1 {
            format!(" ({count} pairs)")
        } else {
            String::new()
        };
        list.push_str(&format!("\n  {line}{times}"));
    }
    if shown.len() > LISTED_PAIRS {
        let more: usize = shown[LISTED_PAIRS..].iter().map(|(_, c)| c).sum();
        list.push_str(&format!("\n  and {more} more (`--format json` lists every pair)"));
    }
    let mut notes = vec![list];
    // One witness, of a confirmed pair when there is one.
    let example = members
        .iter()
        .find(|r| driver::report::confirmed(&r.replay))
        .unwrap_or(first);
    notes.push(format!("for example, {}", race_sentence(src, kernel, example)));
    if let Some(w) = &example.witness {
        notes.push(launch_note(w));
    }
    notes.extend(host_launch_note(src, kernel));
    let mut whys: Vec<(&str, usize)> = Vec::new();
    for why in members.iter().filter_map(|r| possible(&r.replay)) {
        match whys.iter_mut().find(|(w, _)| *w == why) {
            Some((_, count)) => *count += 1,
            None => whys.push((why, 1)),
        }
    }
    for (why, count) in whys {
        let pairs = if count == 1 { "pair" } else { "pairs" };
        notes.push(format!("possible, not confirmed ({count} {pairs}): {why}"));
    }
    notes.push(format!(
        "help: a barrier {} lies between the two accesses of each pair on the paths that race; \
         `autosync fix {}` places barriers and checks that every thread of a block reaches them",
        barrier.place,
        src.path.display()
    ));
    let d = if all_possible {
        Diagnostic::warning().with_code("possible-race")
    } else {
        Diagnostic::error().with_code("race")
    };
    Some(d.with_message(message).with_labels(labels).with_notes(notes))
}

/// A group of races one barrier separates (docs/cli.md, `GROUP`): the indices of its
/// races in the kernel's `races`, and the barrier's place (`null`: a race alone, which no
/// one barrier position separates).
pub fn group_json(g: &driver::group::RaceGroup) -> Value {
    json!({
        "races": g.members,
        "barrier": g.barrier.as_ref().map(|b| json!({"after_line": b.after_line, "place": b.place})),
    })
}
