//! `autosync`: the command line over the `kpl`, `oracle` and `synth` crates.
//!
//! `check` verifies; `fix` synthesizes barriers and writes them back into the file.
//! Exit codes (DESIGN §6): 0 correct / fixed, 1 defect found / no solution, 2 error.

mod cli;
mod output;
mod run;
mod source;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use serde_json::json;

use cli::{Cli, Command, Format};
use run::Verdict;

/// The outcome of a command, from best to worst; the exit code is the worst one seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Ok = 0,
    Defect = 1,
    Error = 2,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Check(args) => check(&args),
        Command::Fix(args) => fix(&args),
    };
    ExitCode::from(status as u8)
}

/// Writes to stdout; a reader that went away (`autosync ... | head`) ends the process
/// quietly instead of with a panic.
fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("autosync: error: cannot write to stdout: {e}");
        }
        std::process::exit(Status::Error as i32);
    }
}

/// Prints an error for the user (as `autosync: error: ...` with its causes).
fn report_error(e: &anyhow::Error) {
    eprintln!("autosync: error: {e}");
    for cause in e.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
}

fn check(args: &cli::CheckArgs) -> Status {
    let mut status = Status::Ok;
    let mut files = Vec::new();
    let mut out = output::stdout();
    for path in &args.common.files {
        let result = (|| -> Result<(source::Source, Vec<run::KernelCheck>)> {
            let src = source::load(path, &args.common.front_end())?;
            let mut oracle = run::make_oracle(args.common.oracle, run::check_options(&args.common, &src));
            let results = run::selected(&args.common, &src)?
                .into_iter()
                .map(|k| run::check_kernel(oracle.as_mut(), k, src.notes_of(&k.name)))
                .collect();
            Ok((src, results))
        })();
        match result {
            Ok((src, results)) => {
                for k in &results {
                    status = status.max(match k.verdict {
                        Verdict::Verified => Status::Ok,
                        Verdict::Race | Verdict::Divergence => Status::Defect,
                        Verdict::Unsupported | Verdict::Timeout => Status::Error,
                    });
                }
                match args.format {
                    Format::Json => files.push(output::check_json(&src, &results)),
                    Format::Text => {
                        if let Err(e) = output::check_text(&mut out, &src, &results) {
                            report_error(&e.into());
                            return Status::Error;
                        }
                    }
                }
            }
            Err(e) => {
                report_error(&e);
                status = Status::Error;
                if args.format == Format::Json {
                    files.push(
                        json!({"path": path.display().to_string(), "error": e.to_string(), "kernels": []}),
                    );
                }
            }
        }
    }
    if args.format == Format::Json {
        print_stdout(&format!("{}\n", json!({ "files": files })));
    }
    status
}

fn fix(args: &cli::FixArgs) -> Status {
    let mut status = Status::Ok;
    let mut files = Vec::new();
    let mut out = output::stdout();
    for path in &args.common.files {
        let result = (|| -> Result<(source::Source, run::FileFix)> {
            let src = source::load(path, &args.common.front_end())?;
            let mut oracle = run::make_oracle(args.common.oracle, run::check_options(&args.common, &src));
            let fix = run::fix_file(args, &src, oracle.as_mut())?;
            Ok((src, fix))
        })();
        let (src, fix) = match result {
            Ok(x) => x,
            Err(e) => {
                report_error(&e);
                status = Status::Error;
                if args.format == Format::Json {
                    files.push(
                        json!({"path": path.display().to_string(), "error": e.to_string(), "kernels": []}),
                    );
                }
                continue;
            }
        };
        for k in &fix.kernels {
            status = status.max(match k.status {
                run::FixStatus::Unchanged | run::FixStatus::Fixed => Status::Ok,
                run::FixStatus::NoSolution => Status::Defect,
                run::FixStatus::Unsupported => Status::Error,
            });
        }
        if let Err(e) = emit_fix(args, &src, &fix, &mut out, &mut files) {
            report_error(&e);
            status = Status::Error;
        }
    }
    if args.format == Format::Json {
        print_stdout(&format!("{}\n", json!({ "files": files })));
    }
    status
}

/// Writes or prints the fixed file and the report for one file.
fn emit_fix(
    args: &cli::FixArgs,
    src: &source::Source,
    fix: &run::FileFix,
    out: &mut codespan_reporting::term::termcolor::StandardStream,
    files: &mut Vec<serde_json::Value>,
) -> Result<()> {
    let json = args.format == Format::Json;
    if args.diff {
        if fix.changed() {
            print_stdout(&unified_diff(&src.path, &src.text, &fix.fixed_text));
        }
    } else if args.stdout {
        // With --format json the document carries the file instead (stdout holds one JSON).
        if !json {
            print_stdout(&fix.fixed_text);
        }
    } else if fix.changed() && fix.complete() {
        write_atomically(&src.path, &fix.fixed_text)?;
    }
    if json {
        let mut v = output::fix_json(src, fix);
        if args.stdout {
            v["fixed_source"] = json!(fix.fixed_text);
        }
        files.push(v);
    } else {
        // Keep stdout for the diff or the file; the report goes to stderr then.
        if args.diff || args.stdout {
            let mut err = codespan_reporting::term::termcolor::StandardStream::stderr(
                codespan_reporting::term::termcolor::ColorChoice::Never,
            );
            output::fix_text(&mut err, src, fix)?;
        } else {
            output::fix_text(out, src, fix)?;
            if fix.changed() && !fix.complete() {
                writeln!(out, "{}: not written: some kernel has no fix", src.path.display())?;
            } else if fix.changed() {
                writeln!(out, "{}: written", src.path.display())?;
            }
        }
    }
    Ok(())
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
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let perms = std::fs::metadata(path)
        .with_context(|| format!("cannot read the permissions of {}", path.display()))?
        .permissions();
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write the new contents of {}", path.display()))?;
    std::fs::set_permissions(tmp.path(), perms)
        .with_context(|| format!("cannot set permissions on the new {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
