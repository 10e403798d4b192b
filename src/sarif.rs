//! `check --format sarif`: one SARIF 2.1.0 log (one run, a rule per defect kind), built
//! with the `serde-sarif` crate's types, in the shape code scanning takes as it is:
//!
//! - `tool.driver.informationUri` is the repository of `Cargo.toml`, and every rule has a
//!   `helpUri` into `docs/rules.md` there, a `shortDescription` and a `fullDescription`;
//! - file locations are relative to `%SRCROOT%` (`run.originalUriBaseIds`): the git work
//!   tree around the current directory, else the current directory, whatever form the
//!   paths had on the command line (a file outside it gets an absolute `file://` URI);
//! - each result has `partialFingerprints` made of what the defect is, not where it is
//!   (kernel, array, the two accesses' text with white space collapsed), so an alert
//!   keeps its identity when unrelated lines above it move;
//! - `invocations[0]` says whether every file could be read and parsed
//!   (`executionSuccessful`) and has a notification per file that could not.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};
use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location, Message, MultiformatMessageString, Notification,
    PhysicalLocation, PropertyBag, Region, ReportingConfiguration, ReportingDescriptor,
    Result as SarifResult, ResultLevel, Run, SCHEMA_URL, Sarif, Tool, ToolComponent,
};
use sha2::{Digest, Sha256};

use crate::output::{race_sentence, remedy};
use driver::source::InputError;
use driver::{KernelCheck, Source, Verdict};

/// The base id of every relative location.
pub const SRCROOT: &str = "%SRCROOT%";

/// The key of autosync's fingerprint in `partialFingerprints` (the version changes when
/// what goes into it does).
pub const FINGERPRINT: &str = "autosync/v1";

/// A rule: id, name, short and full description.
struct Rule {
    id: &'static str,
    name: &'static str,
    short: &'static str,
    full: &'static str,
}

/// The rules, in the order of `tool.driver.rules` (a result's `ruleIndex`); each has a
/// section `docs/rules.md#<id>`.
const RULES: [Rule; 4] = [
    Rule {
        id: "data-race",
        name: "DataRace",
        short: "Two threads of a block access the same array element, at least one writes, and no \
                barrier orders the accesses.",
        full: "Two threads of one block access the same element of a shared or global array, at \
               least one of the accesses is a write (or the two are a plain access and an atomic), \
               and no __syncthreads() is executed between them: the result depends on the order in \
               which the threads run. The message names both accesses and a witness (the two \
               threads, the element, the launch). A barrier between the two accesses fixes it: \
               `autosync fix` inserts the cheapest such barriers.",
    },
    Rule {
        id: "cross-block-race",
        name: "CrossBlockRace",
        short: "Threads of different blocks access the same global array element and at least one \
                writes: no block barrier can order them (a grid-wide barrier in a cooperative launch \
                can).",
        full: "Two threads of different blocks access the same element of a global array and at \
               least one writes. __syncthreads() only orders the threads of one block, so no barrier \
               placement fixes this: give each block its own part of the array, use atomics, \
               split the kernel into two launches, or launch it cooperatively with a grid-wide \
               barrier (`autosync fix --cooperative` places it).",
    },
    Rule {
        id: "barrier-divergence",
        name: "BarrierDivergence",
        short: "Some threads of a block reach a barrier and others do not (undefined behaviour).",
        full: "A __syncthreads() is reached by some threads of a block and not by others (it stands \
               under a condition, in a loop or after an early return that threads of one block \
               disagree on). CUDA leaves this undefined: the kernel may hang or go on with memory \
               that is not synchronized. Move the barrier to where every thread of the block \
               reaches it, or make the condition the same for the whole block.",
    },
    Rule {
        id: "unsupported",
        name: "Unsupported",
        short: "The file or kernel could not be checked (syntax error, unsupported construct, \
                timeout).",
        full: "autosync could not check this kernel or file: a syntax or preprocessing error, a \
               construct it does not model (a backward goto, recursion, inline assembly that \
               accesses memory, ...), or a question the solver could not decide within its budget. \
               Nothing is claimed about the kernel: it may or may not race. The message says what \
               and where; --solver-budget raises the solver's limits.",
    },
];

fn rule_index(id: &str) -> i64 {
    RULES.iter().position(|r| r.id == id).unwrap_or(0) as i64
}

/// Where a rule is documented: its section of `docs/rules.md` in the repository.
pub fn help_uri(id: &str) -> String {
    format!("{}/blob/main/docs/rules.md#{id}", env!("CARGO_PKG_REPOSITORY"))
}

// ---------------------------------------------------------------- paths

/// `%SRCROOT%`: the git work tree around the current directory, else the current
/// directory (absolute, symbolic links resolved).
pub fn src_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf()
}

/// The absolute form of `path` without `.` and `..` (symbolic links resolved when the
/// file exists).
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes what may not stand in a URI path.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// An artifact location: relative to `%SRCROOT%` when the file is below it, else an
/// absolute `file://` URI.
pub fn artifact(path: &Path, root: &Path) -> ArtifactLocation {
    let abs = absolute(path);
    match abs.strip_prefix(root) {
        Ok(rel) => {
            let rel = rel.to_string_lossy().replace('\\', "/");
            ArtifactLocation::builder()
                .uri(encode(&rel))
                .uri_base_id(SRCROOT.to_string())
                .build()
        }
        Err(_) => {
            let p = abs.to_string_lossy().replace('\\', "/");
            let p = if p.starts_with('/') { p } else { format!("/{p}") };
            ArtifactLocation::builder()
                .uri(format!("file://{}", encode(&p)))
                .build()
        }
    }
}

/// `%SRCROOT%` as a `file://` URI ending in `/`, as `originalUriBaseIds` wants it.
fn root_uri(root: &Path) -> String {
    let p = root.to_string_lossy().replace('\\', "/");
    let p = if p.starts_with('/') { p } else { format!("/{p}") };
    let p = if p.ends_with('/') { p } else { format!("{p}/") };
    format!("file://{}", encode(&p))
}

// ---------------------------------------------------------------- results

fn message(text: String) -> Message {
    Message::builder().text(text).build()
}

fn location(
    file: &ArtifactLocation,
    text: &str,
    span: driver::report::Span,
    msg: Option<String>,
) -> Location {
    let mut region = Region::builder()
        .start_line(i64::from(span.line.max(1)))
        .start_column(i64::from(span.col.max(1)))
        .build();
    if span.end > span.start && span.end <= text.len() && text.is_char_boundary(span.end) {
        let end_line = driver::report::line_at(text, span.end);
        let line_start = text[..span.end].rfind('\n').map_or(0, |i| i + 1);
        region.end_line = Some(i64::from(end_line));
        region.end_column = Some((text[line_start..span.end].chars().count() + 1) as i64);
    }
    let physical = PhysicalLocation::builder()
        .artifact_location(file.clone())
        .region(region)
        .build();
    let mut loc = Location::builder().physical_location(physical).build();
    loc.message = msg.map(message);
    loc
}

/// Where a span really is, for a location: its file (the checked one, or the header that
/// defines the device code), that file's text, and the span in it (the last statement of
/// an inlined function at its own line, not at the call).
fn real(src: &Source, span: driver::report::Span) -> (&Path, &str, driver::report::Span) {
    let e = span.real();
    let at = |e: driver::report::FileSpan| driver::report::Span {
        start: e.start,
        end: e.end,
        line: e.line,
        col: e.col,
        end_line: e.line,
        ..driver::report::Span::NONE
    };
    match src.header(e.file) {
        Some(h) => (h.path.as_path(), h.text.as_str(), at(e)),
        None if e.file == 0 && span.elsewhere.is_some() => (src.path.as_path(), src.text.as_str(), at(e)),
        None => (src.path.as_path(), src.text.as_str(), span),
    }
}

/// The call sites of the inlined calls that reach the code at `spans` in kernel
/// `kernel`, as related locations ("`g` is called here"), each once, innermost first.
fn call_sites(src: &Source, root: &Path, kernel: &str, spans: &[driver::report::Span]) -> Vec<Location> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for span in spans {
        for f in driver::report::call_chain(src, kernel, *span) {
            let at = f.site.real();
            if seen.contains(&at) {
                continue;
            }
            seen.push(at);
            out.push(real_location(
                src,
                root,
                f.site,
                Some(format!("`{}` is called here", f.callee)),
            ));
        }
    }
    out
}

/// A location at the real place of `span` (see [`real`]): a header's lines are in the
/// header's artifact.
fn real_location(src: &Source, root: &Path, span: driver::report::Span, msg: Option<String>) -> Location {
    let (path, text, span) = real(src, span);
    location(&artifact(path, root), text, span, msg)
}

/// The text of a span at its real place, normalized for a fingerprint.
fn real_normalized(src: &Source, span: driver::report::Span) -> String {
    let (_, text, span) = real(src, span);
    normalized(text, span)
}

/// The launch a defect was found for (the `launch` object of the JSON report), as a
/// result property: a race may hold only for the launch the file makes.
fn launch_property(src: &Source, kernel: &str) -> PropertyBag {
    PropertyBag::builder()
        .additional_properties(BTreeMap::from([(
            "launch".to_string(),
            crate::output::launch_json(&src.launch_of(kernel)),
        )]))
        .build()
}

fn result(rule: &str, text: String, locations: Vec<Location>, related: Vec<Location>) -> SarifResult {
    let mut r = SarifResult::builder()
        .rule_id(rule.to_string())
        .rule_index(rule_index(rule))
        .level(ResultLevel::Error)
        .message(message(text))
        .locations(locations)
        .build();
    if !related.is_empty() {
        r.related_locations = Some(related);
    }
    r
}

/// A finding a run did not confirm is a `warning` (confirmed ones are `error`s).
fn possible_level(r: &mut SarifResult, replay: &Option<driver::report::Replay>) {
    if driver::report::possible(replay).is_some() {
        r.level = Some(ResultLevel::Warning);
    }
}

/// The text of a span with white space collapsed (what a fingerprint is made of: moving
/// or re-indenting a statement keeps it).
fn normalized(text: &str, span: driver::report::Span) -> String {
    text.get(span.start..span.end)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line of `text` that contains `span`, normalized (for locations without extent).
fn line_text(text: &str, line: u32) -> String {
    text.lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Gives each result its fingerprint: the hash of `parts` (no line numbers), with the
/// number of earlier results of the file with the same hash (`<hash>:<n>`), so that two
/// identical defects in one file stay apart.
struct Fingerprints(BTreeMap<String, usize>);

impl Fingerprints {
    fn set(&mut self, r: &mut SarifResult, parts: &[&str]) {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p.as_bytes());
            h.update([0u8]);
        }
        let hex: String = h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect();
        let n = self.0.entry(hex.clone()).or_insert(0);
        *n += 1;
        r.partial_fingerprints = Some(BTreeMap::from([(FINGERPRINT.to_string(), format!("{hex}:{n}"))]));
    }
}

/// A message's text without a leading `path:line:col: ` (which moves with the file).
fn without_location(msg: &str) -> &str {
    let mut it = msg.splitn(4, ':');
    match (it.next(), it.next(), it.next(), it.next()) {
        (Some(_), Some(l), Some(c), Some(rest))
            if l.trim().parse::<u32>().is_ok() && c.trim().parse::<u32>().is_ok() =>
        {
            rest.trim_start()
        }
        _ => msg,
    }
}

/// The results of one checked file.
pub fn file_results(src: &Source, results: &[KernelCheck], root: &Path) -> Vec<SarifResult> {
    let file = artifact(&src.path, root);
    let text = &src.text;
    let mut prints = Fingerprints(BTreeMap::new());
    let mut out = Vec::new();
    for k in results {
        for d in &k.report.divergences {
            let mut msg = format!("Barrier divergence in kernel `{}`", k.name);
            if let Some(w) = &d.witness {
                let (whose, why) = if w.threads[0].bid == w.threads[1].bid {
                    (" of the same block", "")
                } else {
                    (
                        "",
                        " (a grid barrier must be reached by every thread of the grid)",
                    )
                };
                msg.push_str(&format!(
                    ": {} reaches the barrier at {} while {}{whose} does not{why}",
                    w.threads[0],
                    crate::output::at_phrase(src, &k.name, d.span),
                    w.threads[1]
                ));
            } else if let Some(c) = crate::output::calls_phrase(src, &k.name, d.span) {
                msg.push_str(&format!(" (the barrier is {c})"));
            }
            msg.push('.');
            if let Some(why) = driver::report::possible(&d.replay) {
                msg.push_str(&format!(" Possible, not confirmed: {why}."));
            }
            let mut r = result(
                "barrier-divergence",
                msg,
                vec![real_location(src, root, d.span, None)],
                call_sites(src, root, &k.name, &[d.span]),
            );
            possible_level(&mut r, &d.replay);
            let barrier = real_normalized(src, d.span);
            prints.set(&mut r, &["barrier-divergence", &k.name, &barrier]);
            r.properties = Some(launch_property(src, &k.name));
            out.push(r);
        }
        for g in driver::group::groups_or_each(&k.groups, k.report.races.len()) {
            let members: Vec<(usize, &driver::report::Race)> = g
                .members
                .iter()
                .filter_map(|i| Some((*i, k.report.races.get(*i)?)))
                .collect();
            let r = match (&g.barrier, members.as_slice()) {
                (Some(b), [_, _, ..]) => {
                    let races: Vec<&driver::report::Race> = members.iter().map(|(_, r)| *r).collect();
                    group_result(src, root, &k.name, &races, b, &mut prints)
                }
                (_, [(n, race), ..]) => race_result(src, root, &k.name, *n, race, &mut prints),
                (_, []) => continue,
            };
            out.push(r);
        }
        if matches!(k.verdict, Verdict::Unsupported | Verdict::Timeout) {
            let span = src
                .kernels
                .iter()
                .find(|x| x.name == k.name)
                .map(|x| x.body.span)
                .or_else(|| {
                    // A kernel the front end could not lower: where the error is.
                    let f = src.failed.iter().find(|f| f.name == k.name)?;
                    Some(driver::report::Span {
                        line: f.error.line,
                        col: f.error.col,
                        ..driver::report::Span::NONE
                    })
                })
                .unwrap_or(driver::report::Span::NONE);
            let error = k.error.clone().unwrap_or_default();
            let mut r = result(
                "unsupported",
                format!(
                    "Kernel `{}` could not be checked ({}): {error}",
                    k.name,
                    k.verdict.word(),
                ),
                vec![location(&file, text, span, None)],
                Vec::new(),
            );
            let why = without_location(&error).to_string();
            prints.set(&mut r, &["unsupported", &k.name, k.verdict.word(), &why]);
            out.push(r);
        }
    }
    out
}

/// The result of one race (a group of one, or a race no barrier position separates):
/// `n` is its index in the kernel's races (the id of its related location).
fn race_result(
    src: &Source,
    root: &Path,
    kernel: &str,
    n: usize,
    race: &driver::report::Race,
    prints: &mut Fingerprints,
) -> SarifResult {
    let rule = if race.fixable {
        "data-race"
    } else {
        "cross-block-race"
    };
    let help = match remedy(src, kernel, race) {
        Ok(h) | Err(h) => h,
    };
    let mut msg = format!(
        "{} race on array `{}` in kernel `{}`: {}. {}{}.",
        race.kind(),
        race.array,
        kernel,
        race_sentence(src, kernel, race),
        help[..1].to_uppercase(),
        &help[1..]
    );
    if let Some(why) = driver::report::possible(&race.replay) {
        msg = format!("Possible {msg} Not confirmed: {why}.");
    }
    let mut related = real_location(
        src,
        root,
        race.second.span,
        Some(format!(
            "{} of `{}` (second access)",
            race.second.kind.word(),
            race.array
        )),
    );
    related.id = Some(n as i64);
    let mut related = vec![related];
    related.extend(call_sites(
        src,
        root,
        kernel,
        &[race.first.span, race.second.span],
    ));
    let mut r = result(
        rule,
        msg,
        vec![real_location(
            src,
            root,
            race.first.span,
            Some(format!(
                "{} of `{}` (first access)",
                race.first.kind.word(),
                race.array
            )),
        )],
        related,
    );
    possible_level(&mut r, &race.replay);
    let (a, b) = (
        real_normalized(src, race.first.span),
        real_normalized(src, race.second.span),
    );
    prints.set(&mut r, &[rule, kernel, &race.array, &race.kind(), &a, &b]);
    r.properties = Some(launch_property(src, kernel));
    r
}

/// The result of a group of racing pairs one barrier separates (docs/cli.md, "SARIF"):
/// located at the first access of its first pair; every other access, and the place of
/// the barrier, are related locations. A warning when no run confirmed any pair. Its
/// fingerprint is the hash of its pairs' fingerprint parts, in sorted order.
fn group_result(
    src: &Source,
    root: &Path,
    kernel: &str,
    races: &[&driver::report::Race],
    barrier: &driver::group::BarrierPlace,
    prints: &mut Fingerprints,
) -> SarifResult {
    let Some(first) = races.first() else {
        return result("data-race", String::new(), Vec::new(), Vec::new());
    };
    let all_possible = races
        .iter()
        .all(|r| driver::report::possible(&r.replay).is_some());
    let pairs: Vec<String> = races
        .iter()
        .map(|r| crate::grouped::pair_line(src, kernel, r))
        .collect();
    let example = races
        .iter()
        .find(|r| driver::report::confirmed(&r.replay))
        .unwrap_or(first);
    let mut msg = format!(
        "{} (kernel `{kernel}`). The pairs: {}. For example, {}. A barrier {} lies between the two accesses of \
         each pair on the paths that race; `autosync fix` places barriers and checks that every thread of \
         a block reaches them.",
        crate::grouped::group_title(src, races, &barrier.place),
        pairs.join("; "),
        race_sentence(src, kernel, example),
        barrier.place
    );
    let mut whys: Vec<&str> = Vec::new();
    for why in races.iter().filter_map(|r| driver::report::possible(&r.replay)) {
        if !whys.contains(&why) {
            whys.push(why);
        }
    }
    for why in whys {
        msg.push_str(&format!(" Not confirmed: {why}."));
    }
    if all_possible {
        msg = format!("Possible: {msg}");
    }
    // Every access once, then the barrier's place, then the calls that reach them.
    let mut seen: Vec<(String, u32, u32)> = vec![crate::output::real_position(src, first.first.span)];
    let mut related: Vec<Location> = Vec::new();
    let mut spans = Vec::new();
    for r in races {
        for a in [&r.first, &r.second] {
            spans.push(a.span);
            let at = crate::output::real_position(src, a.span);
            if seen.contains(&at) {
                continue;
            }
            seen.push(at);
            let mut loc = real_location(
                src,
                root,
                a.span,
                Some(format!("{} of `{}`", a.kind.word(), r.array)),
            );
            loc.id = Some(related.len() as i64);
            related.push(loc);
        }
    }
    let mut at_barrier = real_location(
        src,
        root,
        barrier.anchor,
        Some(format!(
            "a barrier {} would separate the two accesses of every pair",
            barrier.place
        )),
    );
    at_barrier.id = Some(related.len() as i64);
    related.push(at_barrier);
    related.extend(call_sites(src, root, kernel, &spans));
    let mut r = result(
        "data-race",
        msg,
        vec![real_location(
            src,
            root,
            first.first.span,
            Some(format!(
                "{} of `{}` (first access)",
                first.first.kind.word(),
                first.array
            )),
        )],
        related,
    );
    if all_possible {
        r.level = Some(ResultLevel::Warning);
    }
    let mut parts: Vec<String> = races
        .iter()
        .map(|r| {
            format!(
                "{}\u{0}{}\u{0}{}\u{0}{}",
                r.array,
                r.kind(),
                real_normalized(src, r.first.span),
                real_normalized(src, r.second.span)
            )
        })
        .collect();
    parts.sort();
    parts.dedup();
    let mut all = vec!["data-race-group", kernel];
    all.extend(parts.iter().map(String::as_str));
    prints.set(&mut r, &all);
    r.properties = Some(launch_property(src, kernel));
    r
}

/// What a file that could not be read or parsed adds to the log: a tool notification
/// (the run was not fully successful), and, when the error is located in the file (a
/// syntax error), an `unsupported` result there.
pub fn file_error(path: &Path, e: &anyhow::Error, root: &Path) -> (Option<SarifResult>, Notification) {
    let located = e.downcast_ref::<InputError>();
    let text = match located {
        Some(ie) => ie.message.clone(),
        None => format!("{e:#}"),
    };
    let (file, span) = match located {
        Some(ie) => (
            artifact(Path::new(&ie.path), root),
            driver::report::Span {
                line: ie.line,
                col: ie.col,
                ..driver::report::Span::NONE
            },
        ),
        None => (
            artifact(path, root),
            driver::report::Span {
                line: 1,
                col: 1,
                ..driver::report::Span::NONE
            },
        ),
    };
    // A file that could not be read has no lines to point at.
    let place = match located {
        Some(_) => location(&file, "", span, None),
        None => Location::builder()
            .physical_location(
                PhysicalLocation::builder()
                    .artifact_location(file.clone())
                    .build(),
            )
            .build(),
    };
    let note = Notification::builder()
        .level(json!("error"))
        .message(message(format!("{}: {text}", path.display())))
        .locations(vec![place])
        .build();
    let result = located.map(|ie| {
        let mut r = result(
            "unsupported",
            text.clone(),
            vec![location(&file, "", span, None)],
            Vec::new(),
        );
        let line = std::fs::read_to_string(&ie.path)
            .map(|t| line_text(&t, ie.line))
            .unwrap_or_default();
        Fingerprints(BTreeMap::new()).set(&mut r, &["unsupported", &text, &line]);
        r
    });
    (result, note)
}

/// What the files of a run added to the log.
#[derive(Default)]
pub struct Part {
    pub results: Vec<SarifResult>,
    pub notifications: Vec<Notification>,
}

impl Part {
    pub fn append(&mut self, other: &mut Part) {
        self.results.append(&mut other.results);
        self.notifications.append(&mut other.notifications);
    }
}

/// The whole log.
pub fn document(part: Part, root: &Path) -> Value {
    let rules: Vec<ReportingDescriptor> = RULES
        .iter()
        .map(|r| {
            let text = |s: &str| MultiformatMessageString::builder().text(s.to_string()).build();
            let mut d = ReportingDescriptor::builder()
                .id(r.id.to_string())
                .name(r.name.to_string())
                .short_description(text(r.short))
                .full_description(text(r.full))
                .help_uri(help_uri(r.id))
                .default_configuration(ReportingConfiguration::builder().level(json!("error")).build())
                .build();
            d.help = Some(text(&format!("{} See {}", r.full, help_uri(r.id))));
            d.properties = Some(
                PropertyBag::builder()
                    .tags(vec!["concurrency".to_string(), "cuda".to_string()])
                    .additional_properties(BTreeMap::from([
                        ("precision".to_string(), json!("high")),
                        ("problem.severity".to_string(), json!("error")),
                    ]))
                    .build(),
            );
            d
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("autosync".to_string())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .semantic_version(env!("CARGO_PKG_VERSION").to_string())
        .information_uri(env!("CARGO_PKG_REPOSITORY").to_string())
        .rules(rules)
        .build();
    let mut invocation = Invocation::builder()
        .execution_successful(part.notifications.is_empty())
        .build();
    if !part.notifications.is_empty() {
        invocation.tool_execution_notifications = Some(part.notifications);
    }
    let base = ArtifactLocation::builder().uri(root_uri(root)).build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .original_uri_base_ids(BTreeMap::from([(SRCROOT.to_string(), base)]))
        .results(part.results)
        .build();
    let log = Sarif::builder()
        .schema(SCHEMA_URL.to_string())
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_value(log).unwrap_or_else(|e| json!({"error": e.to_string()}))
}
