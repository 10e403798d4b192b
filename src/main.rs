//! `autosync`: the command line over the `driver` crate (which runs the `kpl`, `cuda`,
//! `oracle` and `synth` pipeline on one file).
//!
//! `check` verifies; `fix` synthesizes barriers and writes them back into the file. This
//! crate parses arguments (`cli`), runs files in parallel and renders what the driver
//! returns (`output`, `sarif`, `suggest`, `cost`), and writes files.
//! Exit codes (docs/cli.md): 0 correct / fixed, 1 defect found / no solution, 2 error,
//! 130 interrupted (Ctrl-C or SIGTERM: `interrupt`).

mod cli;
mod cost;
mod grouped;
mod interrupt;
mod lsp;
mod output;
mod sarif;
mod suggest;

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches};
use codespan_reporting::term::termcolor::Buffer;
use rayon::prelude::*;
use serde_json::{Value, json};

use cli::{CheckFormat, Cli, Command, FixFormat};
use driver::{FixStatus, Verdict, inputs, source};

/// The outcome of a command, from best to worst; the exit code is the worst one seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    #[default]
    Ok = 0,
    Defect = 1,
    Error = 2,
}

/// Stack of the threads that check files: expressions thousands of operators deep are
/// handled by recursive code in the front ends and oracles.
const WORKER_STACK: usize = 512 << 20;

fn main() -> ExitCode {
    // If a pool exists already (it cannot here), its stacks are what they are.
    // The global pool is built nowhere else, so this cannot fail in a way that matters.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(WORKER_STACK)
        .build_global();
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if !matches!(cli.command, Command::Lsp(_)) {
        interrupt::install();
    }
    // `fix` writing files: the note of an interrupt says the others were left alone.
    let writes =
        matches!(&cli.command, Command::Fix(a) if a.show.is_none() && !(a.diff || a.check || a.stdout));
    let status = match cli.command {
        Command::Check(mut args) => {
            let cache = open_cache(&mut args.common.analysis);
            let status = match args.show {
                Some(s) => show(&args.common, &driver::FixSettings::default(), s),
                None => check(&args),
            };
            cache_summary(cache.as_deref(), args.show.is_none());
            status
        }
        Command::Fix(mut args) => {
            let cache = open_cache(&mut args.common.analysis);
            let status = match args.show {
                Some(s) => show(&args.common, &args.fix_settings(), s),
                None => fix(&args),
            };
            cache_summary(cache.as_deref(), args.show.is_none());
            status
        }
        Command::Cost(mut args) => {
            let cache = open_cache(&mut args.common.analysis);
            let status = cost::command(&args);
            cache_summary(cache.as_deref(), true);
            status
        }
        Command::Lsp(args) => lsp::run(args),
    };
    if interrupt::interrupted() {
        interrupt::finish(writes);
    }
    ExitCode::from(status as u8)
}

/// Opens the result cache of `--cache` for every file; a folder that cannot be used is
/// a warning, and the command runs without the cache.
fn open_cache(analysis: &mut cli::Analysis) -> Option<std::sync::Arc<driver::cache::ResultCache>> {
    analysis.open_cache(None).unwrap_or_else(|e| {
        print_stderr(
            format!("autosync: warning: cannot use the cache: {e:#}; going on without it\n").as_bytes(),
        );
        None
    })
}

/// The last line on stderr with `--cache`: how many results were reused (hits) and
/// computed (misses), and why some could not be stored. `always`: also when the cache
/// was not used (`--show` prints it only when a stage asked the verifier).
fn cache_summary(cache: Option<&driver::cache::ResultCache>, always: bool) {
    let Some(cache) = cache else { return };
    let n = cache.counts();
    if !always && n.hits + n.misses == 0 {
        return;
    }
    let word = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = format!(
        "autosync: cache {}: {}, {}",
        cache.dir().display(),
        word(n.hits, "hit", "hits"),
        word(n.misses, "miss", "misses")
    );
    if n.unstored > 0 {
        line.push_str(&format!(
            "; {} not stored ({})",
            word(n.unstored, "result", "results"),
            n.store_error.unwrap_or_default()
        ));
    }
    line.push('\n');
    print_stderr(line.as_bytes());
}

/// The command line, with the long help of `--cost-model` made from the registry of cost
/// models (so a new model is described where it is defined).
fn command() -> clap::Command {
    Cli::command().mut_subcommand("fix", |c| {
        c.mut_arg("cost_model", |a| a.help(driver::cost::help()))
    })
}

/// Writes to stdout. A reader that went away (`autosync check dir | head -1`) ends the
/// process at once, quietly and with exit code 0, as ripgrep does: the reader had what
/// it wanted. Any other write error is exit 2.
fn print_stdout(text: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(Status::Ok as i32);
        }
        eprintln!("autosync: error: cannot write to stdout: {e}");
        std::process::exit(Status::Error as i32);
    }
}

/// Writes to stderr, ignoring errors (a closed stderr must not panic as `eprint!` does).
fn print_stderr(text: &[u8]) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text).and_then(|_| err.flush());
}

/// The inputs of a command (the files given, or every `.cu` file of the compilation
/// database when none is) and the database; an unreadable database is exit 2.
fn plan(common: &cli::Common) -> Result<(Vec<inputs::Input>, Option<driver::compdb::Database>), Status> {
    let db = common.database().map_err(|e| {
        print_stderr(error_text(&e).as_bytes());
        Status::Error
    })?;
    let inputs = match &db {
        Some(db) if common.files.is_empty() => db.cu_files().into_iter().map(|p| (p, None)).collect(),
        _ => {
            let found = inputs::expand(&common.files, &common.walk());
            // Loops skipped, folders without CUDA files: warnings, not errors.
            for note in &found.notes {
                print_stderr(format!("{note}\n").as_bytes());
            }
            found.inputs
        }
    };
    Ok((inputs, db))
}

/// An error for the user (as `autosync: error: ...` with its causes).
fn error_text(e: &anyhow::Error) -> String {
    let mut s = format!("autosync: error: {e}\n");
    for cause in e.chain().skip(1) {
        s.push_str(&format!("  caused by: {cause}\n"));
    }
    s
}

/// A text buffer, with colors or without.
fn buffer(color: bool) -> Buffer {
    if color { Buffer::ansi() } else { Buffer::no_color() }
}

/// Kernels and files by outcome, for the summary line.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    files: usize,
    file_errors: usize,
    kernels: usize,
    verified: usize,
    races: usize,
    divergences: usize,
    unsupported: usize,
    timeouts: usize,
    fixed: usize,
    unchanged: usize,
    no_solution: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.files += o.files;
        self.file_errors += o.file_errors;
        self.kernels += o.kernels;
        self.verified += o.verified;
        self.races += o.races;
        self.divergences += o.divergences;
        self.unsupported += o.unsupported;
        self.timeouts += o.timeouts;
        self.fixed += o.fixed;
        self.unchanged += o.unchanged;
        self.no_solution += o.no_solution;
    }

    fn counts(&self, what: &str, parts: Vec<(usize, &str)>) -> String {
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let mut first = true;
        let parts: Vec<String> = parts
            .into_iter()
            .filter(|(n, _)| std::mem::take(&mut first) || *n > 0)
            .map(|(n, w)| format!("{n} {w}"))
            .collect();
        let mut line = format!(
            "{what} {}, {}: {}",
            plural(self.files, "file"),
            plural(self.kernels, "kernel"),
            parts.join(", ")
        );
        if self.file_errors > 0 {
            line.push_str(&format!("; {} with errors", plural(self.file_errors, "file")));
        }
        line.push('\n');
        line
    }

    fn check_summary(&self) -> String {
        self.counts(
            "checked",
            vec![
                (self.verified, "verified"),
                (self.races, "with races"),
                (self.divergences, "with divergence"),
                (self.unsupported, "unsupported"),
                (self.timeouts, "timed out"),
            ],
        )
    }

    /// `dry`: `fix --check`, which writes nothing.
    fn fix_summary(&self, dry: bool) -> String {
        self.counts(
            "processed",
            vec![
                (self.fixed, if dry { "would be fixed" } else { "fixed" }),
                (self.unchanged, "unchanged"),
                (self.no_solution, "no-solution"),
                (self.unsupported, "unsupported"),
            ],
        )
    }
}

/// What processing one file produced: printed in file order once every file before it
/// is done, so parallel runs print like sequential ones.
#[derive(Default)]
struct FileOutput {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The file's entry of the JSON document.
    json: Option<Value>,
    /// SARIF results, or GitHub review comments.
    items: Vec<Value>,
    sarif: sarif::Part,
    status: Status,
    tally: Tally,
    /// The run was interrupted before the file was done (`interrupt`): nothing of it is
    /// printed, and `fix` did not write it.
    unfinished: bool,
}

impl FileOutput {
    /// The file failed with `e`; or, when the run was interrupted, it is unfinished
    /// (the driver's error then is the interruption, or may be caused by it).
    fn failed(&mut self, path: &Path, e: &anyhow::Error, json: bool) {
        if e.is::<driver::Interrupted>() || interrupt::interrupted() {
            self.unfinished = true;
            return;
        }
        self.stderr.extend(error_text(e).into_bytes());
        self.status = Status::Error;
        self.tally.file_errors += 1;
        if json {
            self.json =
                Some(json!({"path": path.display().to_string(), "error": e.to_string(), "kernels": []}));
        }
    }
}

/// Runs `job` on every input in parallel (rayon) and hands the outputs to `sink` in
/// input order as soon as they are ready. A progress bar on stderr counts the files when
/// stderr is a terminal and there are several. Once the run is interrupted, no new file
/// is started, and the files not finished are not handed to `sink` (`interrupt`).
fn for_each_file(
    inputs: &[inputs::Input],
    job: impl Fn(&inputs::Input) -> FileOutput + Sync,
    mut sink: impl FnMut(FileOutput),
) {
    let bar = if inputs.len() > 1 && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(inputs.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    interrupt::set_files(inputs.len());
    let (tx, rx) = std::sync::mpsc::channel::<(usize, FileOutput)>();
    let job = &job;
    std::thread::scope(|s| {
        // Rayon runs a file it does not split off on this thread: it gets a worker's stack.
        let spawned = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(s, move || {
                inputs.par_iter().enumerate().for_each_with(tx, |tx, (i, input)| {
                    let out = if interrupt::interrupted() {
                        FileOutput {
                            unfinished: true,
                            ..FileOutput::default()
                        }
                    } else {
                        job(input)
                    };
                    // The receiver only goes away if the main thread panicked.
                    let _ = tx.send((i, out));
                });
            });
        if let Err(e) = spawned {
            eprintln!("autosync: error: cannot start a worker thread: {e}");
        }
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, out) in rx {
            bar.inc(1);
            if let Some(p) = inputs.get(i) {
                bar.set_message(p.0.display().to_string());
            }
            pending.insert(i, out);
            while let Some(out) = pending.remove(&next) {
                if out.unfinished {
                    interrupt::unfinished();
                } else {
                    bar.suspend(|| sink(out));
                }
                next += 1;
            }
        }
    });
    bar.finish_and_clear();
}

/// Prints one file's output and folds it into the totals.
fn flush(
    out: FileOutput,
    status: &mut Status,
    tally: &mut Tally,
    json: &mut Vec<Value>,
    items: &mut Vec<Value>,
) {
    // An exit on a signal waits for the file's report to be printed whole.
    let _printing = interrupt::OUTPUT.lock().unwrap_or_else(|e| e.into_inner());
    if !out.stdout.is_empty() {
        print_stdout(&out.stdout);
    }
    if !out.stderr.is_empty() {
        print_stderr(&out.stderr);
    }
    *status = (*status).max(out.status);
    tally.add(&out.tally);
    json.extend(out.json);
    items.extend(out.items);
}

/// `--show STAGE`: each file's stage output, in file order; exit 0 unless a file
/// cannot be loaded or a selected kernel could not be lowered (exit 2, as `check`).
fn show(common: &cli::Common, fix: &driver::FixSettings, stage: cli::Show) -> Status {
    let (inputs, db) = match plan(common) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let (mut status, mut tally) = (Status::Ok, Tally::default());
    let (mut files, mut items) = (Vec::new(), Vec::new());
    for_each_file(
        &inputs,
        |input| {
            let mut o = FileOutput::default();
            let result = (|| -> Result<(String, Vec<String>)> {
                let settings = common.settings_for(db.as_ref(), &input.0);
                let src = source::load(inputs::path(input)?, &settings.front_end)?;
                // Kernels the front end could not lower have no stage output: say so.
                let failed = driver::selected_failed(&settings, &src)
                    .into_iter()
                    .map(|(_, f)| format!("autosync: error: kernel `{}`: {}\n", f.name, f.error))
                    .collect();
                Ok((driver::show(&settings, fix, &src, stage.stage())?, failed))
            })();
            match result {
                Ok((text, failed)) => {
                    o.stdout = text.into_bytes();
                    if !failed.is_empty() {
                        o.status = Status::Error;
                        o.stderr = failed.concat().into_bytes();
                    }
                }
                Err(e) => o.failed(&input.0, &e, false),
            }
            o
        },
        |out| flush(out, &mut status, &mut tally, &mut files, &mut items),
    );
    status
}

fn check(args: &cli::CheckArgs) -> Status {
    let (inputs, db) = match plan(&args.common) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let color = args.common.color.enabled(std::io::stdout().is_terminal());
    let (mut status, mut tally) = (Status::Ok, Tally::default());
    let (mut files, mut results) = (Vec::new(), Vec::new());
    let mut sarif_log = sarif::Part::default();
    let root = sarif::src_root();
    for_each_file(
        &inputs,
        |input| check_file(args, db.as_ref(), input, color, &root),
        |mut out| {
            sarif_log.append(&mut out.sarif);
            flush(out, &mut status, &mut tally, &mut files, &mut results);
        },
    );
    match args.format {
        CheckFormat::Json => print_stdout(format!("{}\n", crate::output::json_document(files)).as_bytes()),
        CheckFormat::Sarif => {
            let doc = sarif::document(sarif_log, &root);
            let text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string());
            print_stdout(format!("{text}\n").as_bytes());
        }
        CheckFormat::Text => print_stdout(tally.check_summary().as_bytes()),
    }
    status
}

fn check_file(
    args: &cli::CheckArgs,
    db: Option<&driver::compdb::Database>,
    input: &inputs::Input,
    color: bool,
    root: &Path,
) -> FileOutput {
    let mut o = FileOutput::default();
    o.tally.files = 1;
    let result = (|| -> Result<(source::Source, Vec<driver::KernelCheck>)> {
        let path = inputs::path(input)?;
        let settings = args.common.settings_for(db, &input.0);
        let src = source::load(path, &settings.front_end)?;
        let results = driver::check_file(&settings, &src)?;
        Ok((src, results))
    })();
    let (src, results) = match result {
        Ok(x) => x,
        Err(e) => {
            o.failed(&input.0, &e, args.format == CheckFormat::Json);
            if args.format == CheckFormat::Sarif {
                let (result, note) = sarif::file_error(&input.0, &e, root);
                o.sarif.results.extend(result);
                o.sarif.notifications.push(note);
            }
            return o;
        }
    };
    for k in &results {
        o.tally.kernels += 1;
        let defect = if args.fail_on == cli::FailOn::Confirmed && !any_confirmed(&k.report) {
            Status::Ok
        } else {
            Status::Defect
        };
        let (count, status) = match k.verdict {
            Verdict::Verified => (&mut o.tally.verified, Status::Ok),
            Verdict::Race => (&mut o.tally.races, defect),
            Verdict::Divergence => (&mut o.tally.divergences, defect),
            Verdict::Unsupported => (&mut o.tally.unsupported, Status::Error),
            Verdict::Timeout => (&mut o.tally.timeouts, Status::Error),
        };
        *count += 1;
        o.status = o.status.max(status);
    }
    match args.format {
        CheckFormat::Json => o.json = Some(output::check_json(&src, &results)),
        CheckFormat::Sarif => o.sarif.results = sarif::file_results(&src, &results, root),
        CheckFormat::Text => {
            let mut buf = buffer(color);
            if let Err(e) = output::check_text(&mut buf, &src, &results) {
                o.failed(&src.path, &e.into(), false);
            }
            o.stdout = buf.into_inner();
        }
    }
    o
}

/// Whether a run confirmed some race or divergence of the report (`--fail-on confirmed`).
fn any_confirmed(r: &driver::report::Report) -> bool {
    use driver::report::confirmed;
    r.races.iter().any(|x| confirmed(&x.replay)) || r.divergences.iter().any(|d| confirmed(&d.replay))
}

fn fix(args: &cli::FixArgs) -> Status {
    if let Err(e) = args.check_combination() {
        e.exit();
    }
    let (inputs, db) = match plan(&args.common) {
        Ok(x) => x,
        Err(s) => return s,
    };
    // With --diff, --check or --stdout the report goes to stderr (stdout holds the diff
    // or file).
    let report_on_stderr = args.diff || args.check || args.stdout;
    let color = args.common.color.enabled(if report_on_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    });
    let (mut status, mut tally) = (Status::Ok, Tally::default());
    let (mut files, mut comments) = (Vec::new(), Vec::new());
    for_each_file(
        &inputs,
        |input| fix_file(args, db.as_ref(), input, color),
        |out| flush(out, &mut status, &mut tally, &mut files, &mut comments),
    );
    match args.format {
        FixFormat::Json => print_stdout(format!("{}\n", crate::output::json_document(files)).as_bytes()),
        FixFormat::Github => {
            let text = serde_json::to_string_pretty(&comments).unwrap_or_else(|_| "[]".to_string());
            print_stdout(format!("{text}\n").as_bytes());
        }
        FixFormat::Text if report_on_stderr => print_stderr(tally.fix_summary(args.check).as_bytes()),
        FixFormat::Text => print_stdout(tally.fix_summary(false).as_bytes()),
    }
    status
}

fn fix_file(
    args: &cli::FixArgs,
    db: Option<&driver::compdb::Database>,
    input: &inputs::Input,
    color: bool,
) -> FileOutput {
    let mut o = FileOutput::default();
    o.tally.files = 1;
    let result = (|| -> Result<(source::Source, driver::FileFix)> {
        let path = inputs::path(input)?;
        let settings = args.common.settings_for(db, &input.0);
        let src = source::load(path, &settings.front_end)?;
        let fix = driver::fix(&settings, &args.fix_settings(), &src)?;
        Ok((src, fix))
    })();
    let (src, fix) = match result {
        Ok(x) => x,
        Err(e) => {
            o.failed(&input.0, &e, args.format == FixFormat::Json);
            return o;
        }
    };
    for k in &fix.kernels {
        o.tally.kernels += 1;
        let (count, status) = match k.status {
            FixStatus::Unchanged => (&mut o.tally.unchanged, Status::Ok),
            FixStatus::Fixed => (&mut o.tally.fixed, Status::Ok),
            FixStatus::NoSolution => (&mut o.tally.no_solution, Status::Defect),
            FixStatus::Unsupported => (&mut o.tally.unsupported, Status::Error),
        };
        *count += 1;
        o.status = o.status.max(status);
    }
    if args.check && fix.changed() {
        // The file is not synchronized as `fix` would leave it.
        o.status = o.status.max(Status::Defect);
    }
    if let Err(e) = emit_fix(args, &src, &fix, color, &mut o) {
        o.failed(&src.path, &e, false);
    }
    o
}

/// Writes the fixed file (unless a format or flag shows the change instead) and renders
/// the report for one file.
fn emit_fix(
    args: &cli::FixArgs,
    src: &source::Source,
    fix: &driver::FileFix,
    color: bool,
    o: &mut FileOutput,
) -> Result<()> {
    if args.diff || args.check {
        // With --format json the diff goes into the document (stdout holds one JSON).
        if fix.changed() && args.format == FixFormat::Text {
            // In the file's encoding, so that it applies to the file's bytes.
            o.stdout = source::encode(&unified_diff(&src.path, &src.text, &fix.fixed_text), src.encoding);
        }
    } else if args.stdout {
        // With --format json the document carries the file instead (stdout holds one JSON).
        if args.format == FixFormat::Text {
            o.stdout = source::encode(&fix.fixed_text, src.encoding);
        }
    } else if args.format != FixFormat::Github && fix.changed() && written_whole(args, fix) {
        let bytes = source::encode(&fix.fixed_text, src.encoding);
        match interrupt::write_unless_interrupted(|| write_atomically(&src.path, &bytes)) {
            Some(written) => written?,
            // Interrupted: the file stays as it was, and is not reported.
            None => {
                o.unfinished = true;
                return Ok(());
            }
        }
    }
    match args.format {
        FixFormat::Json => {
            let mut v = output::fix_json(src, fix, args.explain);
            if args.stdout {
                v["fixed_source"] = json!(fix.fixed_text);
            }
            if args.diff || args.check {
                // Empty when the file would not change, as `git diff` prints nothing.
                let diff = if fix.changed() {
                    unified_diff(&src.path, &src.text, &fix.fixed_text)
                } else {
                    String::new()
                };
                v["diff"] = json!(diff);
            }
            o.json = Some(v);
        }
        FixFormat::Github => {
            if fix.changed() && fix.complete() {
                o.items = suggest::suggestions(&suggest::repo_path(&src.path), &src.text, &fix.edits);
            } else if fix.changed() {
                o.stderr.extend(
                    format!("{}: no suggestions: some kernel has no fix\n", src.path.display()).into_bytes(),
                );
            }
        }
        FixFormat::Text => {
            let mut buf = buffer(color);
            output::fix_text(&mut buf, src, fix, args.explain, args.check)?;
            if !(args.diff || args.check || args.stdout) {
                if fix.changed() && !written_whole(args, fix) {
                    writeln!(
                        buf,
                        "{}: not written: {}",
                        src.path.display(),
                        not_written_why(fix)
                    )?;
                } else if fix.changed() && !fix.complete() {
                    let races: usize = fix.kernels.iter().map(|k| k.races.races.len()).sum();
                    writeln!(
                        buf,
                        "{}: written partially fixed: {races} race(s) between blocks remain (see above)",
                        src.path.display()
                    )?;
                } else if fix.changed() {
                    writeln!(buf, "{}: written", src.path.display())?;
                }
                o.stdout = buf.into_inner();
            } else {
                o.stderr = buf.into_inner();
            }
        }
    }
    Ok(())
}

/// Whether `fix` writes the file's new text: when it fixes every kernel, or with
/// `--partial` when it fixes all that barriers can (races between blocks remain).
fn written_whole(args: &cli::FixArgs, fix: &driver::FileFix) -> bool {
    fix.complete() || (args.partial && fix.fixable_part_fixed())
}

/// Why a changed file is not written (without `--partial`, or when even that does not
/// apply).
fn not_written_why(fix: &driver::FileFix) -> &'static str {
    if fix.fixable_part_fixed() {
        "races between blocks remain that no barrier fixes; `fix --partial` writes the barriers for the \
         other races (`--diff` shows them)"
    } else {
        "some kernel has no fix"
    }
}

/// A unified diff with `a/` and `b/` prefixes, as `git apply` and `patch -p1` expect.
fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.to_string_lossy().trim_start_matches("./").to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// Replaces `path` with `text` through a temporary file in the same directory and a
/// rename, keeping the file's permissions: the file is either old or new, never half.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let perms = std::fs::metadata(path)
        .with_context(|| format!("cannot read the permissions of {}", path.display()))?
        .permissions();
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write the new contents of {}", path.display()))?;
    std::fs::set_permissions(tmp.path(), perms)
        .with_context(|| format!("cannot set permissions on the new {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
