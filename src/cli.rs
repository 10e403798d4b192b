//! The command line (exit codes and JSON output: docs/cli.md).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "autosync",
    version,
    about = "Finds data races and barrier divergence in GPU kernels, and synthesizes the cheapest \
             barrier placement that removes them.",
    long_about = "autosync checks GPU kernels for data races and barrier divergence, and inserts the \
                  cheapest set of barriers that makes them race-free (the AutoSync technique: the verifier \
                  judges each placement, and a constraint solver picks the cheapest placement that \
                  removes every race it reports).\n\n\
                  Exit codes: 0 = every kernel is correct (check) or was fixed (fix); 1 = a defect was \
                  found (check) or some kernel has no barrier-only fix (fix); 2 = error (bad input, \
                  unsupported construct, I/O)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Verify kernels: report every racing pair of accesses and every divergent barrier.
    Check(CheckArgs),
    /// Insert the cheapest barriers that make every kernel race- and divergence-free, and
    /// rewrite the file in place (atomically), or print a diff or the fixed file.
    Fix(FixArgs),
    /// Compare cost models: each existing barrier's static cost and measured executions,
    /// and the cheapest placement (of the kernel without its barriers) under each model.
    Cost(CostArgs),
    /// Run as a Language Server (LSP over stdin/stdout) for editors: diagnostics for the
    /// races and divergent barriers of open `.cu`/`.cuh`/`.kpl` files, checked on open
    /// and save, and the barriers `fix` would insert as a quick fix.
    Lsp(LspArgs),
}

#[derive(Args, Debug)]
pub struct LspArgs {
    #[command(flatten)]
    pub analysis: Analysis,

    /// Also check a document while it is edited, once it has not changed for
    /// --debounce milliseconds. Without it, a document is checked on open and save only.
    #[arg(long)]
    pub check_on_change: bool,

    /// With --check-on-change: how long a document must stay unchanged before it is
    /// checked (without --check-on-change it has no effect).
    #[arg(long, default_value_t = 500, value_name = "MS")]
    pub debounce: u64,

    /// Talk over stdin/stdout (the only transport; accepted because LSP clients pass it).
    /// Without it, the same: stdin/stdout by default.
    #[arg(long)]
    pub stdio: bool,

    /// Keep no results between checks: every kernel is checked from scratch each time.
    /// Without it (and without --cache), results are kept in $XDG_CACHE_HOME/autosync
    /// (else ~/.cache/autosync; ~/Library/Caches/autosync on macOS,
    /// %LOCALAPPDATA%\autosync on Windows), as with --cache.
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub common: Common,

    /// Output format: compiler-style text, one JSON document with every kernel's verdict,
    /// races and divergent barriers, or SARIF 2.1.0 (for code-scanning tools). Default:
    /// text.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,

    /// Print a stage's output for the selected kernels and exit 0 instead of the verdict:
    /// the file after the preprocessor (`preprocessed`), the lowered kernels as KPL
    /// (`kpl`), the places a barrier may go (`labels`: each statement's kind, enclosing
    /// loops and conditionals, candidate or not, line), the verifier's symbolic summary (`summary`: each access's
    /// index and condition, each loop's trip count and proved invariants), the race and
    /// divergence queries it would ask (`queries`), or the rounds of `fix`'s synthesis
    /// (`rounds`: each placement tried and the races left; this one runs the synthesis,
    /// with `fix`'s options when given to `fix`, and writes nothing). Without it, the
    /// verdict is printed.
    #[arg(long, value_enum, value_name = "STAGE")]
    pub show: Option<Show>,

    /// Which findings make the exit code 1. Every reported race and divergence is replayed
    /// on the interpreter: `confirmed` ones happen in a run of the kernel, `possible` ones
    /// were not reproduced (the verifier over-approximates; they may be artefacts or
    /// happen only in runs the replay did not try). `any` (the default): every finding
    /// fails, confirmed or possible, since the verifier is sound and a possible race may
    /// be real. `confirmed`: only confirmed findings fail (a CI gate that tolerates
    /// unreproduced reports); possible ones are still reported.
    #[arg(long, value_enum, value_name = "WHICH", default_value_t = FailOn::Any)]
    pub fail_on: FailOn,
}

/// `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Any,
    Confirmed,
}

/// `--show`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Show {
    Preprocessed,
    Kpl,
    Labels,
    Summary,
    Queries,
    Rounds,
}

impl Show {
    pub fn stage(self) -> driver::Stage {
        match self {
            Show::Preprocessed => driver::Stage::Preprocessed,
            Show::Kpl => driver::Stage::Kpl,
            Show::Labels => driver::Stage::Labels,
            Show::Summary => driver::Stage::Summary,
            Show::Queries => driver::Stage::Queries,
            Show::Rounds => driver::Stage::Rounds,
        }
    }
}

#[derive(Args, Debug)]
pub struct FixArgs {
    #[command(flatten)]
    pub common: Common,

    /// Output format of the report (the file is still rewritten unless --diff or --stdout):
    /// text, one JSON document with every kernel's status and barriers, or GitHub pull-request
    /// review comments with ```suggestion blocks (a JSON array; the files are not written).
    /// Default: text.
    #[arg(long, value_enum, default_value_t = FixFormat::Text)]
    pub format: FixFormat,

    /// As for `check`: print a stage's output and exit 0 without fixing anything. Without
    /// it, the files are fixed.
    #[arg(long, value_enum, value_name = "STAGE")]
    pub show: Option<Show>,

    /// Say why each barrier is where it is: the races it removes, and the cheaper places
    /// that were rejected (divergence, race still there). Without it, the report lists the
    /// barriers only.
    #[arg(long)]
    pub explain: bool,

    /// Print a unified diff (for `git apply` / `patch -p1`) instead of writing the file.
    /// Without it (and without --stdout or --check), the file is rewritten in place.
    #[arg(long, conflicts_with = "stdout")]
    pub diff: bool,

    /// Print the fixed file instead of writing it. Without it (and without --diff or
    /// --check), the file is rewritten in place.
    #[arg(long)]
    pub stdout: bool,

    /// CI gate, as `rustfmt --check`: write nothing; print the diff of every file that
    /// would change and exit 1 if any would, 0 if every file is already correctly
    /// synchronized (2 on errors, as always). The report goes to stderr. Without it, the
    /// files are rewritten.
    #[arg(long, conflicts_with_all = ["stdout", "diff"])]
    pub check: bool,

    /// Write the file even when a kernel keeps races between blocks that no barrier can
    /// fix, with barriers for its other races (the kernel is still reported
    /// `no-solution`, exit 1). Without it such a file is not written; --diff and
    /// --stdout show the partial fix either way.
    #[arg(long, conflicts_with_all = ["stdout", "diff", "check"])]
    pub partial: bool,

    /// Remove the existing barriers first, then synthesize from scratch. Without it, the
    /// existing barriers are kept and only missing ones are added; a warning names each
    /// existing barrier that a cheaper placement would remove or move.
    #[arg(long)]
    pub strip: bool,

    /// Keep the existing barriers as they are: the synthesis only adds barriers, and
    /// barriers that a cheaper placement would remove or move are not reported. Without it,
    /// they are kept too, with a warning for each (the placement from scratch is compared).
    #[arg(long, conflicts_with = "strip")]
    pub keep_existing: bool,

    /// Use the naive baseline (a barrier everywhere, then drop each one that is not needed)
    /// instead of the default: a constraint solver's search for the cheapest placement.
    #[arg(long)]
    pub naive: bool,

    // Its help is made from the registry `driver::cost::MODELS` (see `main::command`).
    #[arg(long, default_value = "paper", value_name = "MODEL", value_parser = driver::cost::parse_model)]
    pub cost_model: driver::ModelChoice,

    /// Cost model: the weight of one enclosing loop (LC in C(ℓ) = LC^loops · IC^conds).
    #[arg(long, default_value_t = driver::report::PaperCost::DEFAULT_LC, value_name = "LC")]
    pub loop_cost: f64,

    /// Cost model: the weight of one enclosing conditional (IC).
    #[arg(long, default_value_t = driver::report::PaperCost::DEFAULT_IC, value_name = "IC")]
    pub cond_cost: f64,

    /// Synthesize as the published AutoSync algorithm does: every race may be fixed by a
    /// barrier anywhere between its two accesses, without using what the verifier reports
    /// about it (within one loop iteration or across iterations) to narrow the places.
    /// Slower; for comparison. Without it, those reports narrow the places.
    #[arg(long)]
    pub faithful: bool,

    /// Also place warp barriers: `__syncwarp()` (`warp_barrier;` in .kpl) where every race
    /// a barrier must remove is between threads of one warp (warps of --warp-size, else
    /// 32 threads), priced at --warp-cost times a block barrier at the same place. Without
    /// it, only block barriers (`__syncthreads()`) are placed.
    #[arg(long, conflicts_with = "naive")]
    pub warp_barriers: bool,

    /// With --warp-barriers: the cost of a warp barrier as a fraction of the cost of a
    /// block barrier at the same place (without --warp-barriers it has no effect).
    #[arg(long, default_value_t = driver::report::DEFAULT_WARP_COST, value_name = "FACTOR", requires = "warp_barriers", value_parser = parse_warp_cost)]
    pub warp_cost: f64,

    /// The kernels are launched cooperatively (`cudaLaunchCooperativeKernel`): also place
    /// grid-wide barriers, `cooperative_groups::this_grid().sync()` (`grid_barrier;` in
    /// .kpl), for races between threads of different blocks, priced at --grid-cost times
    /// a block barrier at the same place (a block barrier wherever one suffices). Adds
    /// `#include <cooperative_groups.h>` where missing; with --strip, existing grid syncs
    /// are removed and placed again too. Without it, no grid barrier is placed, and a race
    /// between blocks is reported as having no barrier-only fix.
    #[arg(long, conflicts_with = "naive")]
    pub cooperative: bool,

    /// With --cooperative: the cost of a grid barrier as a multiple of the cost of a
    /// block barrier at the same place (without --cooperative it has no effect).
    #[arg(long, default_value_t = driver::report::DEFAULT_GRID_COST, value_name = "FACTOR", requires = "cooperative", value_parser = parse_warp_cost)]
    pub grid_cost: f64,
}

#[derive(Args, Debug)]
pub struct Common {
    /// Input files (CUDA `.cu`/`.cuh`, or `.kpl`) and directories (searched recursively
    /// for those extensions, in sorted order). Files are processed in parallel; reports
    /// come out in the order of the files.
    /// With `-p`/`--compile-commands` and no file, every `.cu` file of the database.
    #[arg(required_unless_present_any = ["build_dir", "compile_commands"], value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Colors in text reports: `auto` (the default) colors only when stdout is a terminal
    /// and `NO_COLOR` is not set.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,

    /// Also walk hidden files and folders (names starting with `.`) of the directories
    /// given; without it they are skipped, as ripgrep does. Files named are always read.
    #[arg(long)]
    pub hidden: bool,

    /// Do not skip what `.gitignore` (inside a git work tree), `.ignore`,
    /// `.git/info/exclude` and git's global excludes file ignore when walking a
    /// directory; without it, ignored build folders and files are skipped.
    #[arg(long)]
    pub no_ignore: bool,

    /// Skip files and folders matching GLOB when walking a directory (`.gitignore`
    /// syntax, relative to the directory given: `build`, `*.cuh`, `third_party/**`);
    /// repeatable. Files named on the command line are read even if they match. Without
    /// it, only hidden and ignored files are skipped.
    #[arg(long, value_name = "GLOB", value_parser = driver::inputs::parse_exclude)]
    pub exclude: Vec<String>,

    #[command(flatten)]
    pub analysis: Analysis,
}

/// How to read and check a file: the options of every command that checks files, and of
/// `lsp` (which applies them to every document).
#[derive(Args, Debug)]
pub struct Analysis {
    /// Folder searched for `#include "..."` (after the file's own folder) and `<...>`.
    /// Without it, only the file's own folder (and the compilation database's `-I`).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,

    /// Define a macro for the CUDA preprocessor, as nvcc and clang do (`-D NAME`,
    /// `-DNAME=VALUE`; a bare NAME is defined as 1). Command-line macros win over the
    /// `-D` flags of the file's `//--blockDim=...` header comment. Without it, only the
    /// predefined macros and those of the header comment (and of the database) are defined.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = parse_define)]
    pub defines: Vec<(String, String)>,

    /// Undefine a macro (predefined, from the file's header comment, or from `-D`):
    /// applied after every `-D`, whatever the order on the command line. Without it,
    /// nothing is undefined.
    #[arg(short = 'U', value_name = "NAME", value_parser = parse_macro_name)]
    pub undefines: Vec<String>,

    /// Read the compilation database `BUILD_DIR/compile_commands.json` (CMake's
    /// CMAKE_EXPORT_COMPILE_COMMANDS, Bear), as clang-tidy does: each file listed there is
    /// read with the `-I`, `-D`, `-U` and `-include` flags of its entry (after those of
    /// the command line). With no FILE, every `.cu` file of the database is checked.
    /// Without it (and without --compile-commands), only the command line's flags apply.
    #[arg(short = 'p', value_name = "BUILD_DIR", conflicts_with = "compile_commands")]
    pub build_dir: Option<PathBuf>,

    /// The compilation database file itself (as `-p`, for a file not named
    /// `compile_commands.json` or not in a build folder). Without it, see `-p`.
    #[arg(long, value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,

    /// Do not assume that distinct pointer parameters point to distinct arrays (the
    /// default assumption, as in GPUVerify): lower all non-`__restrict__` pointer
    /// parameters with the same element size to one array. Without it, distinct pointer
    /// parameters are distinct arrays.
    #[arg(long)]
    pub alias: bool,

    /// Where the launch comes from when no flag or header comment gives it: `host`
    /// (default) reads the kernel's launches in the file's host code (`k<<<g, b>>>(...)`,
    /// `cudaLaunchKernel`, ...) and checks the kernel as it is launched there; `symbolic`
    /// checks every launch (library kernels whose callers are in other files).
    /// `__launch_bounds__` hold either way.
    #[arg(long, value_enum, default_value_t = LaunchSource::Host, value_name = "FROM")]
    pub launch: LaunchSource,

    /// Threads per block, X[,Y[,Z]] (overrides the file's `//--blockDim=` comment).
    /// Within CUDA's limits: at most 1024 threads, 64 in z. Without it, the header
    /// comment's, else the host code's launch (see --launch), else any block size.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_block_dim)]
    pub block_dim: Option<driver::report::Dim3>,

    /// Blocks per grid, X[,Y[,Z]] (overrides the file's `//--gridDim=` comment).
    /// Within CUDA's limits: x below 2^31, y and z at most 65535. Without it, the header
    /// comment's, else the host code's launch (see --launch), else any grid size.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_grid_dim)]
    pub grid_dim: Option<driver::report::Dim3>,

    /// Only this kernel. Without it, every kernel of each file.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,

    /// The checker that judges each kernel and each placement `fix` tries: `static` (the
    /// default) proves race freedom for every launch, `dynamic` runs the kernel on small
    /// launches.
    #[arg(long, value_enum, default_value_t = OracleKind::Static)]
    pub oracle: OracleKind,

    /// Fix a scalar parameter. Without it, the static checker allows every value and the
    /// dynamic one (`--oracle dynamic`) tries 0..=4.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,

    /// Legacy warp-synchronous code: threads of one warp of N threads run in lock step
    /// (overrides the file's `//--warp-sync=N` comment). Without it, only barriers
    /// order the threads of a block.
    #[arg(long, value_name = "N", value_parser = parse_warp)]
    pub warp_size: Option<u32>,

    /// Bit-precise integer arithmetic: every operation wraps in its C type (CUDA files;
    /// untyped `.kpl` files wrap at 32 bits unsigned), instead of the default assumption
    /// that arithmetic does not overflow. Conversions are exact either way.
    #[arg(long)]
    pub wrap: bool,

    /// Solver effort, as a multiple of the default limits. Every limit is counted in
    /// solver steps (the solver's own count of work), never in time, so a verdict depends
    /// only on the file and the options, not on the machine or its load. Default (1):
    /// a race query is probed with 200 k steps on the kernel's incremental solver and 50 k
    /// on a fresh one, then gets 1 M, then 10 M (any other query: 10 M); 120 M for all the
    /// queries of one kernel. A question left undecided is reported as a possible defect
    /// with a note ("the solver could not decide ..."); raise this to decide it.
    #[arg(long, value_name = "FACTOR", value_parser = parse_budget)]
    pub solver_budget: Option<f64>,

    /// Report every write-write pair of distinct threads on one element, as GPUVerify's
    /// option of the same name. By default (as GPUVerify) two plain writes race only
    /// when the values they store may differ: every thread writing `flag[0] = 1` is a
    /// benign race, not reported (the report counts such pairs in a note). Read-write
    /// pairs, and a plain write with an atomic, race whatever the values.
    #[arg(long)]
    pub no_benign_tolerance: bool,

    /// Keep the verifier's results in DIR (created if missing) and reuse them: a kernel
    /// whose lowered form (its code and the lines it is at), launch and options are those
    /// of an earlier run by the same build of autosync is not checked again, nor is a
    /// placement `fix` tried before; a kernel moved by an edit before it is checked again.
    /// The summary on stderr counts the results reused (hits) and computed (misses).
    /// Nothing is ever deleted from DIR: remove it to empty the cache. Without it, every
    /// kernel is checked from scratch (`autosync lsp` keeps results in a default folder
    /// unless --no-cache).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// The cache of `--cache` (or `lsp`'s default) once opened ([`Analysis::open_cache`]):
    /// shared by the settings of every file.
    #[arg(skip)]
    pub results: Option<std::sync::Arc<driver::cache::ResultCache>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FixFormat {
    Text,
    Json,
    /// GitHub review comments with suggestions, for the "create a review" REST API.
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Whether to color a stream that is (`tty`) or is not a terminal.
    pub fn enabled(self, tty: bool) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

/// Where the launch of a kernel comes from (`--launch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LaunchSource {
    /// The file's host code launches of the kernel, when it has some.
    Host,
    /// Any launch.
    Symbolic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OracleKind {
    /// The static verifier: sound for every launch and parameter the kernel allows
    /// ("verified" is a proof under its model of execution), reports every racing pair
    /// otherwise.
    Static,
    /// The interpreter: runs the kernel, its threads in lock step, on small launches,
    /// parameters and memory contents (finds real races; can miss races outside the runs
    /// it tries).
    Dynamic,
}

impl Common {
    /// How the directories given are walked.
    pub fn walk(&self) -> driver::inputs::WalkOptions {
        driver::inputs::WalkOptions {
            hidden: self.hidden,
            no_ignore: self.no_ignore,
            exclude: self.exclude.clone(),
        }
    }

    /// The compilation database of `-p`/`--compile-commands`, if given.
    pub fn database(&self) -> anyhow::Result<Option<driver::compdb::Database>> {
        self.analysis.database()
    }

    /// The settings for one file (see [`Analysis::settings_for`]).
    pub fn settings_for(
        &self,
        db: Option<&driver::compdb::Database>,
        path: &std::path::Path,
    ) -> driver::Settings {
        self.analysis.settings_for(db, path)
    }
}

impl Analysis {
    /// What the driver needs of the common options (all but the files and colors).
    pub fn settings(&self) -> driver::Settings {
        driver::Settings {
            front_end: driver::FrontEnd {
                include_dirs: self.include.clone(),
                defines: self.defines.clone(),
                undefines: self.undefines.clone(),
                forced_includes: Vec::new(),
                alias: self.alias,
                wrap: self.wrap,
                launch: self.flags_launch(),
                symbolic_launch: self.launch == LaunchSource::Symbolic,
            },
            kernel: self.kernel.clone(),
            oracle: match self.oracle {
                OracleKind::Static => driver::OracleKind::Static,
                OracleKind::Dynamic => driver::OracleKind::Dynamic,
            },
            solver_budget: self.solver_budget,
            no_benign_tolerance: self.no_benign_tolerance,
            cache: self.results.clone(),
        }
    }

    /// Opens the cache of `--cache`, else `default`, for every file's settings (none of
    /// either: no cache). A folder that cannot be used is an error for the caller to
    /// report as a warning: the run goes on without the cache.
    pub fn open_cache(
        &mut self,
        default: Option<PathBuf>,
    ) -> anyhow::Result<Option<std::sync::Arc<driver::cache::ResultCache>>> {
        let Some(dir) = self.cache.clone().or(default) else {
            return Ok(None);
        };
        let cache = std::sync::Arc::new(driver::cache::ResultCache::open(&dir)?);
        self.results = Some(std::sync::Arc::clone(&cache));
        Ok(Some(cache))
    }
}

impl Analysis {
    /// The launch the flags give (the layer of highest precedence).
    fn flags_launch(&self) -> driver::report::Launch {
        driver::report::Launch {
            block: driver::report::dims(self.block_dim),
            grid: driver::report::dims(self.grid_dim),
            warp_size: self.warp_size,
            params: self.params.iter().cloned().collect(),
            ..driver::report::Launch::default()
        }
        .from(driver::report::Origin::Flags)
    }

    /// The compilation database of `-p`/`--compile-commands`, if given.
    pub fn database(&self) -> anyhow::Result<Option<driver::compdb::Database>> {
        match (&self.build_dir, &self.compile_commands) {
            (Some(d), _) => driver::compdb::Database::load_dir(d).map(Some),
            (None, Some(f)) => driver::compdb::Database::load(f).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// The settings for one file: its database entry's `-I`, `-D`, `-U` and `-include`
    /// first, then the command line's (whose macros win).
    pub fn settings_for(
        &self,
        db: Option<&driver::compdb::Database>,
        path: &std::path::Path,
    ) -> driver::Settings {
        let mut s = self.settings();
        if let Some(e) = db.and_then(|db| db.lookup(path)) {
            let f = &mut s.front_end;
            let mut inc = e.flags.include_dirs.clone();
            inc.append(&mut f.include_dirs);
            f.include_dirs = inc;
            let mut defs = e.flags.defines.clone();
            defs.append(&mut f.defines);
            f.defines = defs;
            f.undefines.extend(e.flags.undefines.iter().cloned());
            f.forced_includes = e.flags.forced_includes.clone();
        }
        s
    }
}

impl FixArgs {
    /// Refuses the options whose output cannot share stdout: `--format github` prints one
    /// JSON array of review comments, with no place for a diff or a fixed file (clap
    /// cannot say "conflicts with one value of --format").
    pub fn check_combination(&self) -> Result<(), clap::Error> {
        if self.format != FixFormat::Github {
            return Ok(());
        }
        let flag = [(self.diff, "--diff"), (self.stdout, "--stdout")]
            .into_iter()
            .find_map(|(on, name)| on.then_some(name));
        match flag {
            None => Ok(()),
            Some(flag) => {
                let mut cmd = <Cli as clap::CommandFactory>::command();
                let fix = cmd.find_subcommand_mut("fix").cloned();
                let mut fix = fix.unwrap_or(cmd).bin_name("autosync fix");
                Err(fix.error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "the argument '{flag}' cannot be used with '--format github' (stdout holds \
                         one JSON array of review comments; use --format json {flag} for one JSON \
                         document with the {})",
                        if flag == "--diff" { "diff" } else { "fixed file" }
                    ),
                ))
            }
        }
    }

    /// What the driver needs of `fix`'s own options.
    pub fn fix_settings(&self) -> driver::FixSettings {
        driver::FixSettings {
            strip: self.strip,
            keep_existing: self.keep_existing,
            naive: self.naive,
            cost_model: self.cost_model.clone(),
            loop_cost: self.loop_cost,
            cond_cost: self.cond_cost,
            faithful: self.faithful,
            warp_barriers: self.warp_barriers,
            warp_cost: self.warp_cost,
            cooperative: self.cooperative,
            grid_cost: self.grid_cost,
            rounds: None,
        }
    }
}

#[derive(Args, Debug)]
pub struct CostArgs {
    #[command(flatten)]
    pub common: Common,

    /// Output format: a readable table per kernel, or one JSON document. Default: text.
    #[arg(long, value_enum, default_value_t = CostFormat::Text)]
    pub format: CostFormat,

    /// Also compare a user table (the `table:FILE` model of `fix --cost-model`). Without
    /// it, the built-in models only.
    #[arg(long, value_name = "FILE")]
    pub table: Option<PathBuf>,

    /// The `paper` model's weight of one enclosing loop (LC), also the `bounds` model's
    /// fallback for loops whose trip count is unknown.
    #[arg(long, default_value_t = driver::report::PaperCost::DEFAULT_LC, value_name = "LC")]
    pub loop_cost: f64,

    /// The `paper` model's weight of one enclosing conditional (IC), also the `bounds`
    /// model's fallback.
    #[arg(long, default_value_t = driver::report::PaperCost::DEFAULT_IC, value_name = "IC")]
    pub cond_cost: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CostFormat {
    Text,
    Json,
}

fn parse_block_dim(s: &str) -> Result<driver::report::Dim3, String> {
    driver::report::parse_block_dim(s)
}

fn parse_grid_dim(s: &str) -> Result<driver::report::Dim3, String> {
    driver::report::parse_grid_dim(s)
}

fn parse_budget(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 1e4 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a factor between 0 and 10000 (1 is the default effort)"
        )),
    }
}

fn parse_warp(s: &str) -> Result<u32, String> {
    driver::report::parse_warp_size(s)
}

fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    let v = value
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("`{s}`: `{value}` is not an integer"))?;
    Ok((name.trim().to_string(), v))
}

/// `-D NAME` or `-D NAME=VALUE` (a bare name is `1`, as for nvcc and clang).
pub fn parse_define(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once('=').unwrap_or((s, "1"));
    let name = parse_macro_name(name)?;
    Ok((name, value.to_string()))
}

/// A macro name: an identifier.
pub fn parse_macro_name(s: &str) -> Result<String, String> {
    let ok = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}` is not a macro name (letters, digits and `_`, not starting with a digit)"
        ))
    }
}

/// A cost factor (`--warp-cost`, `--grid-cost`): a positive number.
fn parse_warp_cost(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("`{s}` is not a positive number")),
    }
}
