//! `fix` on one file: for each selected kernel a synthesis (the *plan*: the
//! instantiations of a template together, [`templates`], every other kernel alone), the
//! text edits that write it into the file (*edits*), and what the report says about it
//! (*report*); then every kernel's edits applied at once ([`assemble`]), and split
//! statements and the instantiations of changed templates checked again as written.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use kpl::{Kernel, Label, LabelTree, rewrite};
use oracle::{Oracle, Report};
use synth::{CostModel, Outcome, Stats, SynthOptions, Synthesis};

use super::explain::{Explained, explained_in_source, races_phrase};
use super::{check_options, make_oracle, selected, templates};
use crate::source::{Lang, Source};
use crate::{FixSettings, Settings, cost};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixStatus {
    Unchanged,
    Fixed,
    NoSolution,
    Unsupported,
}

impl FixStatus {
    pub fn word(self) -> &'static str {
        match self {
            FixStatus::Unchanged => "unchanged",
            FixStatus::Fixed => "fixed",
            FixStatus::NoSolution => "no-solution",
            FixStatus::Unsupported => "unsupported",
        }
    }
}

/// An inserted barrier: its line in the fixed file, and the line of the statement it
/// follows (or of the block it opens) in the original.
#[derive(Clone, Debug, PartialEq)]
pub struct Inserted {
    pub line: u32,
    pub after_line: u32,
    /// The barrier splits the statement at `after_line` (its racing operands are read
    /// into locals before it, the rest of the statement follows it).
    pub split: bool,
    /// A warp barrier (`__syncwarp()`, `fix --warp-barriers`), not a block barrier.
    pub warp: bool,
    /// A grid barrier (`cooperative_groups::this_grid().sync()`, `fix --cooperative`).
    pub grid: bool,
    /// Why it is there (AutoSync synthesis only).
    pub why: Option<Explained>,
}

/// One text edit of the fixed file, with what it does (for review suggestions).
#[derive(Clone, Debug)]
pub struct EditInfo {
    pub edit: rewrite::Edit,
    pub what: String,
}

pub struct KernelFix {
    pub name: String,
    pub status: FixStatus,
    pub inserted: Vec<Inserted>,
    /// Lines (of the original file) of removed barriers.
    pub removed: Vec<u32>,
    pub barriers: usize,
    pub cost: f64,
    pub original_cost: f64,
    pub stats: Stats,
    /// For no-solution and unsupported: why, and the races left.
    pub reason: Option<String>,
    pub races: Report,
    pub notes: Vec<String>,
    /// Lines (of the original file) of the statements split around a barrier.
    pub split: Vec<u32>,
    /// Cost of the cheapest placement from scratch, when it was computed: with `--strip`
    /// (then it is `cost`), and without it when cheaper than what the kernel has.
    pub optimal_cost: Option<f64>,
    /// Lines (original file) of existing barriers the cheapest placement does without
    /// (removed with `--strip`; only reported otherwise).
    pub redundant: Vec<u32>,
    /// Without `--strip`: lines after which the cheapest placement puts barriers the
    /// kernel does not have.
    pub optimal_instead: Vec<u32>,
    /// No solution because of races between blocks: lines after which barriers fix
    /// all the other races.
    pub partial: Vec<u32>,
    /// Those barriers as written into the fixed text (their lines in it): the fixable
    /// part of a no-solution kernel, which `--diff` and `--stdout` show and `fix
    /// --partial` writes. Empty when the partial placement is only reported: it splits a
    /// statement, `--strip` is given, or the kernel shares its text with other
    /// instantiations of its template.
    pub partial_inserted: Vec<Inserted>,
    /// Synthesized with `--warp-barriers` (the JSON report then gives each inserted
    /// barrier's `kind`).
    pub warp_barriers: bool,
    /// Synthesized with `--cooperative` (grid barriers; the JSON report then gives each
    /// inserted barrier's `kind`).
    pub cooperative: bool,
    /// The other instantiations of its template that it was synthesized together with
    /// (one placement for their shared text); empty for a kernel synthesized alone.
    pub together_with: Vec<String>,
}

pub struct FileFix {
    pub kernels: Vec<KernelFix>,
    pub fixed_text: String,
    /// The edits that turn the original text into `fixed_text`.
    pub edits: Vec<EditInfo>,
}

impl FileFix {
    /// Whether `fixed_text` differs from the file: some kernel is fixed, or some
    /// no-solution kernel has its fixable races fixed ([`FileFix::partial`]).
    pub fn changed(&self) -> bool {
        self.kernels.iter().any(|k| k.status == FixStatus::Fixed) || self.partial()
    }

    /// Whether `fixed_text` holds barriers of a partial placement: a kernel that stays
    /// `no-solution` (races between blocks remain) with its other races fixed. Such a
    /// text is never called fixed; only `fix --partial` writes it.
    pub fn partial(&self) -> bool {
        self.kernels.iter().any(|k| !k.partial_inserted.is_empty())
    }

    pub fn complete(&self) -> bool {
        self.kernels
            .iter()
            .all(|k| matches!(k.status, FixStatus::Fixed | FixStatus::Unchanged))
    }

    /// Whether `fixed_text` fixes everything barriers can fix: every kernel is fixed or
    /// unchanged, or has no solution only because of races between blocks with barriers
    /// for all its other races in the text. What `fix --partial` writes.
    pub fn fixable_part_fixed(&self) -> bool {
        self.kernels.iter().all(KernelFix::fixable_part_fixed)
    }
}

impl KernelFix {
    /// Fixed, unchanged, or left only with races between blocks, every other race fixed
    /// in the file's new text.
    pub fn fixable_part_fixed(&self) -> bool {
        match self.status {
            FixStatus::Fixed | FixStatus::Unchanged => true,
            FixStatus::Unsupported => false,
            FixStatus::NoSolution => {
                !self.races.races.is_empty()
                    && self.races.races.iter().all(|r| !r.fixable)
                    && self.races.divergences.is_empty()
                    && self.partial_inserted.len() == self.partial.len()
            }
        }
    }
}

/// The edits one kernel's synthesis makes to the file, before lines are known.
struct KernelEdits {
    /// Inserted barriers with the line they follow in the original, and the braces they
    /// need (`None`), in the order they must be applied.
    insert: Vec<(rewrite::Edit, Option<u32>)>,
    /// For each of `insert`: the edit splits a statement (the line is the statement's).
    split: Vec<bool>,
    /// For each of `insert`: the barrier is a warp barrier.
    warp: Vec<bool>,
    /// For each of `insert`: the barrier is a grid barrier.
    grid: Vec<bool>,
    /// For each of `insert`: why the barrier is there.
    why: Vec<Option<Explained>>,
    remove: Vec<(rewrite::Edit, u32)>,
}

impl KernelEdits {
    fn new() -> Self {
        KernelEdits {
            insert: Vec::new(),
            split: Vec::new(),
            warp: Vec::new(),
            grid: Vec::new(),
            why: Vec::new(),
            remove: Vec::new(),
        }
    }

    /// No edits for this kernel after all.
    fn clear(&mut self) {
        *self = KernelEdits::new();
    }
}

/// Fixes the selected kernels of a file with fresh oracles (asked to classify warps
/// under `--warp-barriers`, and the directions of races across loop iterations).
pub fn fix(settings: &Settings, fix: &FixSettings, src: &Source) -> Result<FileFix> {
    let mut opts = check_options(settings, src, &src.given);
    opts.classify_warps = fix.warp_barriers;
    opts.race_directions = true;
    fix_file(settings, fix, src, &|| make_oracle(settings, src, opts.clone()))
}

/// Fixes the selected kernels of a file with oracles from `oracles`: the fixed text, the
/// edits, and a report per kernel. Nothing is written. A run cancelled
/// ([`crate::interrupt`]) before this returns is the error [`crate::Interrupted`].
///
/// One oracle serves the file; the instantiations of a template are synthesized
/// together ([`templates`]), each with an oracle of its own (an oracle keeps answers
/// about the kernel it was last asked about, and the joint rounds ask about each in
/// turn).
pub fn fix_file(
    settings: &Settings,
    args: &FixSettings,
    src: &Source,
    oracles: &dyn Fn() -> Box<dyn Oracle>,
) -> Result<FileFix> {
    crate::unless_interrupted(fix_file_uninterrupted(settings, args, src, oracles))
}

/// [`fix_file`] but for interruption (which it notices before each kernel).
fn fix_file_uninterrupted(
    settings: &Settings,
    args: &FixSettings,
    src: &Source,
    oracles: &dyn Fn() -> Box<dyn Oracle>,
) -> Result<FileFix> {
    let paper = args.paper();
    // A bad table is the file's error, before any kernel is synthesized.
    cost::validate(&args.cost_model)?;
    let split_check = |site: &kpl::split::SplitSite| cuda::split::check(&src.text, site);
    let chosen = selected(settings, src)?;
    let chosen_at: Vec<usize> = (0..src.kernels.len())
        .filter(|&i| chosen.iter().any(|k| std::ptr::eq(*k, &src.kernels[i])))
        .collect();
    let groups = templates::groups(src, &chosen_at);
    // Cost models of every kernel synthesized: the selected ones and the other
    // instantiations of their templates.
    let mut costs: BTreeMap<usize, Box<dyn CostModel>> = BTreeMap::new();
    for &i in chosen_at.iter().chain(groups.iter().flatten()) {
        if let std::collections::btree_map::Entry::Vacant(e) = costs.entry(i) {
            let check = check_options(settings, src, &src.launches[i]);
            e.insert(args.cost_model.build(&src.kernels[i], paper, &check)?);
        }
    }
    let opts_of = |i: usize| {
        let mut opts = SynthOptions::new(costs[&i].as_ref());
        opts.use_race_types = !args.faithful;
        opts.warp_barriers = args.warp_barriers;
        opts.warp_cost = args.warp_cost;
        // A kernel the host code launches cooperatively may get grid barriers.
        opts.grid_barriers = args.cooperative || src.launches[i].cooperative;
        opts.grid_cost = args.grid_cost;
        opts.rounds = args.rounds.as_deref();
        if src.lang == Lang::Cuda {
            opts.split_check = Some(&split_check);
        }
        opts
    };
    let mut oracle = oracles();
    let (mut planned, joint) = plan_templates(args, src, &groups, &chosen_at, &opts_of, oracles)?;
    let mut kernels = Vec::new();
    let mut all_edits: Vec<KernelEdits> = Vec::new();
    let mut names = cuda::split::Names::default();
    // Per kernel of `kernels` synthesized with the other instantiations of its template,
    // what it says when fixed.
    let mut joint_notes: BTreeMap<usize, String> = BTreeMap::new();
    for (&i, k) in chosen_at.iter().zip(&chosen) {
        crate::stop_if_interrupted()?;
        let opts = opts_of(i);
        let cost = costs[&i].as_ref();
        names.next_kernel();
        let (fix, edits) = match planned.remove(&i) {
            Some(p) => {
                joint_notes.insert(kernels.len(), p.note);
                let mut scratch = p.scratch;
                let (mut fix, edits) = fix_kernel(
                    args,
                    src,
                    k,
                    p.synthesis,
                    &mut || scratch.take(),
                    &opts,
                    cost,
                    &mut names,
                )?;
                fix.together_with = p.together_with;
                (fix, edits)
            }
            None => {
                let s = plan(args, k, oracle.as_mut(), &opts)?;
                let mut scratch =
                    || synth::synthesize(&k.without_movable_barriers(), oracle.as_mut(), &opts).ok();
                fix_kernel(args, src, k, s, &mut scratch, &opts, cost, &mut names)?
            }
        };
        kernels.push(fix);
        all_edits.push(edits);
    }
    shared_source(
        args,
        &chosen_at,
        &joint,
        &src.kernels,
        &mut kernels,
        &mut all_edits,
    );
    // A partial placement is written only into a text no other kernel shares: the
    // other instantiations of a template are not checked against it.
    for (n, &i) in chosen_at.iter().enumerate() {
        if kernels[n].status == FixStatus::NoSolution && groups.iter().any(|g| g.contains(&i)) {
            all_edits[n].clear();
        }
    }
    let mut fix = assemble(src, kernels, &all_edits);
    // A split statement is checked once more as written: the fixed text goes through the
    // front end again and each kernel with a split must verify. (The synthesis already
    // verified the prepared KPL; this guards the rewriting itself.)
    if fix.kernels.iter().any(|k| !k.split.is_empty()) {
        let failed = recheck_splits(settings, src, &fix, oracle.as_mut())?;
        fix = withdraw(src, fix, &mut all_edits, failed);
    }
    // Every instantiation of a template whose text changed must verify as written.
    let failed = templates::recheck(settings, src, &fix, &groups, &chosen_at, oracle.as_mut())?;
    fix = withdraw(src, fix, &mut all_edits, failed);
    for (n, note) in joint_notes {
        if fix.kernels[n].status == FixStatus::Fixed {
            fix.kernels[n].notes.push(note);
        }
    }
    // Kernels the front end could not lower are `unsupported`: the others are fixed, but
    // the file is not complete, so it is not written.
    fix.kernels = super::interleave(fix.kernels, &super::selected_failed(settings, src), |f| {
        let mut k = initial_report_of(&f.name);
        k.status = FixStatus::Unsupported;
        k.reason = Some(f.error.to_string());
        k
    });
    Ok(fix)
}

/// The kernels of `failed` (indices into `fix.kernels`, with why) get no solution and
/// no edits; the rest is assembled again.
fn withdraw(
    src: &Source,
    fix: FileFix,
    all_edits: &mut [KernelEdits],
    failed: Vec<(usize, String)>,
) -> FileFix {
    if failed.is_empty() {
        return fix;
    }
    let mut kernels = fix.kernels;
    for (i, why) in failed {
        let k = &mut kernels[i];
        k.status = FixStatus::NoSolution;
        k.reason = Some(why);
        k.inserted.clear();
        k.removed.clear();
        k.split.clear();
        all_edits[i].clear();
    }
    assemble(src, kernels, all_edits)
}

/// The joint syntheses of the template groups: per kernel (index into
/// `Source::kernels`) that is selected, what it was given; and the kernels planned
/// jointly (indices), each with its group (index into `groups`). A group the joint
/// synthesis does not handle ([`templates::plan_group`] gives `None`) is left to the
/// per-kernel synthesis.
#[allow(clippy::type_complexity)]
fn plan_templates<'a>(
    args: &FixSettings,
    src: &Source,
    groups: &[templates::Group],
    chosen_at: &[usize],
    opts_of: &dyn Fn(usize) -> SynthOptions<'a>,
    oracles: &dyn Fn() -> Box<dyn Oracle>,
) -> Result<(BTreeMap<usize, templates::Planned>, BTreeMap<usize, usize>)> {
    let mut planned = BTreeMap::new();
    let mut joint = BTreeMap::new();
    for (g, group) in groups.iter().enumerate() {
        let kernels: Vec<&Kernel> = group.iter().map(|&i| &src.kernels[i]).collect();
        let opts: Vec<SynthOptions> = group.iter().map(|&i| opts_of(i)).collect();
        let opts: Vec<&SynthOptions> = opts.iter().collect();
        let fix: Vec<bool> = group.iter().map(|i| chosen_at.contains(i)).collect();
        let Some(done) = templates::plan_group(args, src, &kernels, &opts, &fix, oracles)? else {
            continue;
        };
        for (&i, p) in group.iter().zip(done) {
            joint.insert(i, g);
            if chosen_at.contains(&i) {
                planned.insert(i, p);
            }
        }
    }
    Ok((planned, joint))
}

/// Re-translates the fixed text and checks every kernel that had a statement split;
/// returns the kernels (indices) that do not verify, with why.
fn recheck_splits(
    settings: &Settings,
    src: &Source,
    fix: &FileFix,
    oracle: &mut dyn Oracle,
) -> Result<Vec<(usize, String)>> {
    let opts = src.front_end(&settings.front_end);
    let fail = |why: String| -> Vec<(usize, String)> {
        fix.kernels
            .iter()
            .enumerate()
            .filter(|(_, k)| !k.split.is_empty())
            .map(|(i, _)| (i, why.clone()))
            .collect()
    };
    let t = match cuda::translate_each(&src.path, &fix.fixed_text, &opts) {
        Ok(t) => t,
        Err(e) => {
            return Ok(fail(format!(
                "splitting the statement produced text the front end rejects ({}:{}: {}); not applied",
                e.line, e.col, e.message
            )));
        }
    };
    let mut failed = Vec::new();
    for (i, k) in fix
        .kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| !k.split.is_empty() && k.status == FixStatus::Fixed)
    {
        let Some(new) = t.kernels.iter().find(|l| l.kernel.name == k.name) else {
            failed.push((
                i,
                "the split kernel is missing from the rewritten file; not applied".to_string(),
            ));
            continue;
        };
        let ok = oracle.check(&new.kernel).map(|r| r.is_clean());
        if !matches!(ok, Ok(true)) {
            failed.push((
                i,
                "the kernel with its statement split does not verify as rewritten; not applied".to_string(),
            ));
        }
    }
    Ok(failed)
}

/// Applies every kernel's edits at once and reads back where the barriers landed.
fn assemble(src: &Source, mut kernels: Vec<KernelFix>, all_edits: &[KernelEdits]) -> FileFix {
    // Apply every kernel's edits at once (instantiations of one template share their
    // text, and their edits: each distinct edit once), then read back where the
    // barriers landed.
    let mut edits: Vec<rewrite::Edit> = Vec::new();
    let index = |e: &rewrite::Edit, edits: &mut Vec<rewrite::Edit>| match edits.iter().position(|x| x == e) {
        Some(i) => i,
        None => {
            edits.push(e.clone());
            edits.len() - 1
        }
    };
    let mut at: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    // A grid barrier written into a CUDA file needs its header.
    let header = all_edits
        .iter()
        .any(|e| e.grid.contains(&true))
        .then(|| super::grid::include_edit(src))
        .flatten()
        .map(|e| index(&e, &mut edits));
    for e in all_edits {
        let ins = e.insert.iter().map(|(x, _)| index(x, &mut edits)).collect();
        let rem = e.remove.iter().map(|(x, _)| index(x, &mut edits)).collect();
        at.push((ins, rem));
    }
    let edits = rewrite::with_line_ending(edits, rewrite::line_ending(&src.text));
    let (fixed_text, lines) = rewrite::apply(&src.text, &edits);
    let mut what = vec![String::new(); edits.len()];
    if let Some(i) = header {
        what[i] = "Include <cooperative_groups.h> for the grid barrier (`this_grid().sync()`).".to_string();
    }
    let grid_text = super::grid::statement(src);
    for ((fix, e), (ins, rem)) in kernels.iter_mut().zip(all_edits).zip(&at) {
        fix.inserted.clear();
        let warps = e.warp.iter().copied().chain(std::iter::repeat(false));
        let grids = e.grid.iter().copied().chain(std::iter::repeat(false));
        for ((((((_, after_line), why), split), i), warp), grid) in e
            .insert
            .iter()
            .zip(&e.why)
            .zip(&e.split)
            .zip(ins)
            .zip(warps)
            .zip(grids)
        {
            let barrier = if grid {
                grid_text.as_str()
            } else if warp {
                src.lang.warp_barrier()
            } else {
                src.lang.barrier()
            };
            if let Some(after_line) = after_line {
                if what[*i].is_empty() && *split {
                    what[*i] = format!(
                        "Split the statement at line {after_line}: read the racing operand into a local, then \
                         `{barrier}`, then the rest of the statement (kernel `{}`).",
                        fix.name
                    );
                }
                if what[*i].is_empty() {
                    what[*i] = match why.as_ref().filter(|w| !w.fixes.is_empty()) {
                        Some(w) => format!(
                            "Insert `{barrier}` {}: it removes {}.",
                            w.place,
                            races_phrase(&w.fixes)
                        ),
                        None => format!(
                            "Insert `{barrier}` after line {after_line} (kernel `{}`).",
                            fix.name
                        ),
                    };
                }
                fix.inserted.push(Inserted {
                    line: lines[*i],
                    after_line: *after_line,
                    split: *split,
                    warp,
                    grid,
                    why: why.clone(),
                });
            } else if what[*i].is_empty() {
                what[*i] = "Add braces around the body so that a barrier can go into it.".to_string();
            }
        }
        for ((_, l), i) in e.remove.iter().zip(rem) {
            what[*i] = format!(
                "Remove the barrier at line {l}: kernel `{}` is race-free without it.",
                fix.name
            );
        }
        fix.removed = e.remove.iter().map(|(_, l)| *l).collect();
        fix.inserted.sort_by_key(|i| i.line);
        if fix.status == FixStatus::NoSolution {
            // A partial placement: the kernel is not fixed, its barriers are reported apart.
            fix.partial_inserted = std::mem::take(&mut fix.inserted);
        }
    }
    let edits = edits
        .into_iter()
        .zip(what)
        .map(|(edit, what)| EditInfo { edit, what })
        .collect();
    FileFix {
        kernels,
        fixed_text,
        edits,
    }
}

/// Kernels that share their source (instantiations of one template) and were each
/// synthesized alone (`joint` lists the kernels synthesized together, which share one
/// placement by construction) must agree on the edits: the file has one text for all of
/// them. When they do not, none is written. (`chosen_at`: the indices into
/// `all_kernels` of the selected kernels, which `kernels` and `all_edits` are about.)
fn shared_source(
    args: &FixSettings,
    chosen_at: &[usize],
    joint: &BTreeMap<usize, usize>,
    all_kernels: &[Kernel],
    kernels: &mut [KernelFix],
    all_edits: &mut [KernelEdits],
) {
    let key = |e: &KernelEdits| {
        let mut v: Vec<(usize, usize, String)> = e
            .insert
            .iter()
            .map(|(x, _)| x)
            .chain(e.remove.iter().map(|(x, _)| x))
            .map(|x| (x.start, x.end, x.text.clone()))
            .collect();
        v.sort();
        v
    };
    let span = |n: usize| all_kernels[chosen_at[n]].body.span;
    let alone = if args.naive {
        "the naive baseline synthesizes each alone (without --naive they are synthesized together)"
    } else {
        "a statement split is synthesized for each alone"
    };
    for i in 0..chosen_at.len() {
        for j in i + 1..chosen_at.len() {
            if span(i) != span(j) || span(i) == kpl::Span::NONE {
                continue;
            }
            let together = joint
                .get(&chosen_at[i])
                .is_some_and(|g| joint.get(&chosen_at[j]) == Some(g));
            if together || key(&all_edits[i]) == key(&all_edits[j]) {
                continue;
            }
            for (a, b) in [(i, j), (j, i)] {
                let other = kernels[b].name.clone();
                let fix = &mut kernels[a];
                fix.split.clear();
                if matches!(fix.status, FixStatus::Fixed | FixStatus::Unchanged) {
                    fix.status = FixStatus::NoSolution;
                    fix.reason = Some(format!(
                        "`{}` and `{other}` are instantiations of one template and share one text, but need \
                         different barriers: {alone}",
                        fix.name
                    ));
                }
                all_edits[a].clear();
            }
        }
    }
}

/// One kernel, given its plan (`planned`: the synthesis, or why the oracle could not
/// answer) and the way to the placement from scratch (`scratch`, asked only when the
/// report needs it): edits, report.
#[allow(clippy::too_many_arguments)]
fn fix_kernel(
    args: &FixSettings,
    src: &Source,
    k: &Kernel,
    planned: Result<Synthesis, String>,
    scratch: &mut dyn FnMut() -> Option<Synthesis>,
    opts: &SynthOptions,
    cost: &dyn CostModel,
    names: &mut cuda::split::Names,
) -> Result<(KernelFix, KernelEdits)> {
    let original_tree = LabelTree::new(k);
    let mut fix = initial_report(src, k, &original_tree, opts, cost);
    let mut edits = KernelEdits::new();
    let s = match planned {
        Ok(s) => s,
        Err(reason) => {
            fix.status = FixStatus::Unsupported;
            fix.reason = Some(src.user_text(&k.name, &reason));
            return Ok((fix, edits));
        }
    };
    fix.stats = s.stats.clone();
    // The synthesis's reasons and notes name KPL arrays: reports use the user's names.
    fix.notes
        .extend(s.notes.iter().map(|n| src.user_text(&k.name, n)));
    if let Outcome::NoSolution(ns) = &s.outcome {
        fix.status = FixStatus::NoSolution;
        fix.reason = Some(src.user_text(&k.name, &ns.reason));
        fix.races.races = ns.races.clone();
        src.user_names(&k.name, &mut fix.races);
        let tree = LabelTree::new(&s.input);
        let mut partial: Vec<u32> = s.inserted.iter().map(|l| tree.line(*l)).collect();
        partial.sort_unstable();
        fix.partial = partial;
        if partial_writable(args, &tree, &s) {
            let plain: Vec<(usize, Label)> = s.inserted.iter().copied().enumerate().collect();
            insert_edits(src, k, &tree, &s, &plain, &|_| None, &mut edits)?;
        }
        return Ok((fix, edits));
    }
    // The labels are those of the kernel the synthesis placed barriers into (the input,
    // or the input prepared for splitting a statement: same statement ids).
    let tree = LabelTree::new(&s.input);
    let inserted = strip_edits(args, src, k, &original_tree, &tree, &s, &mut edits);
    // Explanations name the user's arrays.
    let mut s = s;
    if let Some(t) = &mut s.trace {
        for rt in &mut t.races {
            rt.race.array = src.user_array(&k.name, &rt.race.array);
        }
    }
    let why_of = explanations(&tree, &s, &inserted, cost, opts);
    // Barriers that split a statement are a different edit from an insertion.
    type Numbered = Vec<(usize, Label)>;
    let (split, plain): (Numbered, Numbered) = inserted
        .iter()
        .copied()
        .enumerate()
        .partition(|(_, l)| tree.node(*l).place == kpl::Place::Split);
    split_edits(src, k, &tree, &s, &split, &why_of, names, &mut fix, &mut edits)?;
    insert_edits(src, k, &tree, &s, &plain, &why_of, &mut edits)?;
    report(args, k, &original_tree, scratch, &s, &edits, &mut fix);
    Ok((fix, edits))
}

/// Whether the partial placement of a no-solution synthesis `s` (the barriers that fix
/// every race but those between blocks) is written into the fixed text: only plain
/// barriers (a split statement is checked again as rewritten, which a kernel with races
/// left cannot pass), and not under `--strip` (whose removals belong to a fix).
fn partial_writable(args: &FixSettings, tree: &LabelTree, s: &Synthesis) -> bool {
    !args.strip
        && !s.inserted.is_empty()
        && s.inserted
            .iter()
            .all(|l| tree.node(*l).place != kpl::Place::Split)
}

/// An empty report about kernel `name`.
fn initial_report_of(name: &str) -> KernelFix {
    KernelFix {
        notes: Vec::new(),
        name: name.to_string(),
        status: FixStatus::Unchanged,
        inserted: Vec::new(),
        removed: Vec::new(),
        barriers: 0,
        cost: 0.0,
        original_cost: 0.0,
        stats: Stats::default(),
        reason: None,
        races: Report::default(),
        split: Vec::new(),
        optimal_cost: None,
        redundant: Vec::new(),
        optimal_instead: Vec::new(),
        partial: Vec::new(),
        partial_inserted: Vec::new(),
        warp_barriers: false,
        cooperative: false,
        together_with: Vec::new(),
    }
}

/// The report before synthesis: the kernel as it is, unchanged.
fn initial_report(
    src: &Source,
    k: &Kernel,
    original_tree: &LabelTree,
    opts: &SynthOptions,
    cost: &dyn CostModel,
) -> KernelFix {
    let mut original_cost = synth::cost::existing_cost(original_tree, k, cost);
    if opts.warp_barriers {
        original_cost += synth::warp_barrier_cost(k, cost, opts.warp_cost);
    }
    if opts.grid_barriers {
        original_cost += synth::grid_barrier_cost(k, cost, opts.grid_cost);
    }
    KernelFix {
        notes: src.notes_of(&k.name).to_vec(),
        barriers: k.barrier_count(),
        cost: original_cost,
        original_cost,
        warp_barriers: opts.warp_barriers,
        cooperative: opts.grid_barriers,
        ..initial_report_of(&k.name)
    }
}

/// The plan: a synthesis (naive or AutoSync) from the kernel, or from it without its
/// movable barriers under `--strip`. `Ok(Err(why))` when the oracle cannot answer (the
/// kernel is unsupported); other synthesis errors fail the file.
fn plan(
    args: &FixSettings,
    k: &Kernel,
    oracle: &mut dyn Oracle,
    opts: &SynthOptions,
) -> Result<Result<Synthesis, String>> {
    let input = input_of(args, k);
    let result = if args.naive {
        synth::naive(&input, oracle, opts)
    } else {
        synth::synthesize(&input, oracle, opts)
    };
    match result {
        Ok(s) => Ok(Ok(s)),
        Err(synth::SynthError::Oracle(e)) => Ok(Err(e.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// What synthesis starts from: the kernel, or under `--strip` the kernel without its
/// movable barriers (and grid barriers, with `--cooperative`).
pub(super) fn input_of(args: &FixSettings, k: &Kernel) -> Kernel {
    if args.strip && args.cooperative {
        k.without_movable_syncs()
    } else if args.strip {
        k.without_movable_barriers()
    } else {
        k.clone()
    }
}

/// With `--strip`: removal edits for the existing barriers synthesis does not put back
/// (a barrier put back where it was stays untouched). Returns the labels still to insert.
fn strip_edits(
    args: &FixSettings,
    src: &Source,
    k: &Kernel,
    original_tree: &LabelTree,
    tree: &LabelTree,
    s: &Synthesis,
    edits: &mut KernelEdits,
) -> Vec<Label> {
    let mut inserted: Vec<Label> = s.inserted.clone();
    if args.strip {
        for (st, place) in existing_places(k, original_tree, tree, args.cooperative) {
            // A block (grid) barrier stays where synthesis puts a block (grid) barrier back.
            let grid = st.kind.is_grid_barrier();
            let same = |x: &Label| Some(*x) == place && !s.warp.contains(x) && s.grid.contains(x) == grid;
            if let Some(i) = inserted.iter().position(same) {
                inserted.remove(i);
            } else {
                let edit = match original_tree.label_of(st.id) {
                    Some(l) => rewrite::remove_stmt(&src.text, original_tree, l),
                    None => rewrite::remove(&src.text, st.span),
                };
                edits.remove.push((edit, st.span.line));
            }
        }
    }
    inserted
}

/// Why the `n`-th inserted barrier is there, in source terms (when the synthesis kept a
/// trace).
fn explanations<'a>(
    tree: &'a LabelTree,
    s: &'a Synthesis,
    inserted: &[Label],
    cost: &dyn CostModel,
    opts: &SynthOptions,
) -> impl Fn(usize) -> Option<Explained> + 'a {
    let explained = s
        .trace
        .as_ref()
        .map(|t| synth::explain::explain(tree, t, inserted, cost));
    let warp_cost = opts.warp_cost;
    let grid_cost = opts.grid_cost;
    move |n: usize| {
        explained
            .as_ref()
            .and_then(|e| e.get(n))
            .zip(s.trace.as_ref())
            .map(|(w, t)| {
                let mut e = explained_in_source(tree, t, w);
                if s.warp.contains(&w.at) {
                    e.cost *= warp_cost;
                }
                if s.grid.contains(&w.at) {
                    e.cost *= grid_cost;
                }
                e
            })
    }
}

/// The edits of barriers that split a statement (`T a = A[i+1]; barrier; A[i] = … a;`).
#[allow(clippy::too_many_arguments)]
fn split_edits(
    src: &Source,
    k: &Kernel,
    tree: &LabelTree,
    s: &Synthesis,
    split: &[(usize, Label)],
    why_of: &impl Fn(usize) -> Option<Explained>,
    names: &mut cuda::split::Names,
    fix: &mut KernelFix,
    edits: &mut KernelEdits,
) -> Result<()> {
    for &(n, l) in split {
        let site = tree
            .stmt_id(l)
            .and_then(|id| s.splits.iter().find(|x| x.split_at == id))
            .with_context(|| {
                format!(
                    "{}: kernel `{}`: a split without its statement",
                    src.path.display(),
                    k.name
                )
            })?;
        let warp = s.warp.contains(&l);
        let text = if warp {
            src.lang.warp_barrier()
        } else {
            src.lang.barrier()
        };
        let edit = cuda::split::rewrite(&src.text, site, text, names).map_err(|e| {
            anyhow::anyhow!(
                "{}: kernel `{}`: cannot split line {}: {e}",
                src.path.display(),
                k.name,
                site.statement.line
            )
        })?;
        fix.split.push(site.statement.line);
        edits.insert.push((edit, Some(site.statement.line)));
        edits.split.push(true);
        edits.warp.push(warp);
        edits.grid.push(false);
        edits.why.push(why_of(n));
    }
    Ok(())
}

/// The edits of plain barriers (block and warp), in one `rewrite::insert_at` pass.
fn insert_edits(
    src: &Source,
    k: &Kernel,
    tree: &LabelTree,
    s: &Synthesis,
    plain: &[(usize, Label)],
    why_of: &impl Fn(usize) -> Option<Explained>,
    edits: &mut KernelEdits,
) -> Result<()> {
    let plain_labels: Vec<Label> = plain.iter().map(|(_, l)| *l).collect();
    match rewrite::insert_at(&src.text, tree, &plain_labels, src.lang.barrier()) {
        Ok(mut ins) => {
            let mut line_of = vec![None; ins.edits.len()];
            let mut why = vec![None; ins.edits.len()];
            let mut warp = vec![false; ins.edits.len()];
            let mut grid = vec![false; ins.edits.len()];
            for (&(n, l), &i) in plain.iter().zip(&ins.of_label) {
                line_of[i] = Some(tree.line(l));
                why[i] = why_of(n);
                if s.grid.contains(&l) {
                    grid[i] = true;
                    let e = &mut ins.edits[i];
                    e.text = e.text.replace(src.lang.barrier(), &super::grid::statement(src));
                }
                if s.warp.contains(&l) {
                    // Written as a block barrier, then renamed: one pass places both kinds.
                    warp[i] = true;
                    let e = &mut ins.edits[i];
                    e.text = e.text.replace(src.lang.barrier(), src.lang.warp_barrier());
                }
            }
            edits.split.extend(std::iter::repeat_n(false, ins.edits.len()));
            edits.warp.extend(warp);
            edits.grid.extend(grid);
            edits.insert.extend(ins.edits.into_iter().zip(line_of));
            edits.why.extend(why);
            Ok(())
        }
        Err(l) => bail!(
            "{}: kernel `{}`: cannot write a barrier after {} into the source",
            src.path.display(),
            k.name,
            tree.name(l)
        ),
    }
}

/// The report after synthesis: barriers and cost, what the cheapest placement from
/// scratch says about the existing barriers, and whether the kernel changed.
#[allow(clippy::too_many_arguments)]
fn report(
    args: &FixSettings,
    k: &Kernel,
    original_tree: &LabelTree,
    scratch: &mut dyn FnMut() -> Option<Synthesis>,
    s: &Synthesis,
    edits: &KernelEdits,
    fix: &mut KernelFix,
) {
    fix.barriers = s.kernel.barrier_count();
    fix.cost = s.cost;
    if args.strip {
        fix.optimal_cost = Some(s.cost);
        fix.redundant = edits.remove.iter().map(|(_, l)| *l).collect();
    } else if !args.keep_existing && !args.naive && k.stmts().iter().any(|s| s.is_movable_barrier()) {
        // Would the kernel be cheaper with its barriers elsewhere (or without some)?
        if let Some(o) = scratch().and_then(|scratch| optimal_placement(k, original_tree, scratch, s.cost)) {
            fix.optimal_cost = Some(o.cost);
            fix.redundant = o.redundant;
            fix.optimal_instead = o.instead;
        }
    }
    if !edits.insert.is_empty() || !edits.remove.is_empty() {
        fix.status = FixStatus::Fixed;
    }
}

/// The barriers `--strip` may move, each with the label of `tree` (a tree of the same
/// kernel without them, or prepared for splitting: same statement ids) that stands for
/// its place.
fn existing_places<'k>(
    k: &'k Kernel,
    original: &LabelTree,
    tree: &LabelTree,
    grid: bool,
) -> Vec<(&'k kpl::Stmt, Option<Label>)> {
    k.stmts()
        .into_iter()
        .filter(|s| s.is_movable_barrier() || (grid && s.is_movable_grid_barrier()))
        .map(|st| {
            let place = original
                .label_of(st.id)
                .and_then(|l| original.position_of_barrier(l))
                .and_then(|p| tree.same_place(original, p));
            (st, place)
        })
        .collect()
}

/// What the cheapest placement from scratch says about the barriers a kernel has.
struct Optimal {
    cost: f64,
    /// Lines of existing barriers it does without.
    redundant: Vec<u32>,
    /// Lines after which it puts barriers that are not there (a split: the statement's).
    instead: Vec<u32>,
}

/// Compares the synthesis from scratch (`s`, from the kernel without its movable
/// barriers) with the kernel's placement: `None` when it failed or is not cheaper than
/// `cost_now`.
fn optimal_placement(k: &Kernel, original_tree: &LabelTree, s: Synthesis, cost_now: f64) -> Option<Optimal> {
    if matches!(s.outcome, Outcome::NoSolution(_)) || s.cost >= cost_now - 1e-9 {
        return None;
    }
    let tree = LabelTree::new(&s.input);
    let mut left: Vec<Label> = s.inserted.clone();
    let mut redundant = Vec::new();
    for (st, place) in existing_places(k, original_tree, &tree, false) {
        match place.and_then(|p| left.iter().position(|x| *x == p)) {
            Some(i) => {
                left.remove(i);
            }
            None => redundant.push(st.span.line),
        }
    }
    let mut instead: Vec<u32> = left.iter().map(|l| tree.line(*l)).collect();
    instead.sort_unstable();
    Some(Optimal {
        cost: s.cost,
        redundant,
        instead,
    })
}
