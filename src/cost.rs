//! Cost models on the command line: `fix --cost-model paper|bounds|profile|table:FILE`,
//! and the `autosync cost` subcommand, which compares the models on each kernel.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use kpl::{Kernel, LabelTree};
use oracle::dynamic::{Interpreter, profile};
use serde_json::{Value, json};
use synth::{BoundsCost, CostModel, Launch, Outcome, PaperCost, ProfileCost, SynthOptions, TableCost};

use crate::cli::Common;
use crate::source::Source;
use crate::{FileOutput, Status, buffer, flush, for_each_file, inputs, print_stdout, run};

/// `--cost-model`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    Paper,
    Bounds,
    Profile,
    Table(PathBuf),
}

pub fn parse_model(s: &str) -> Result<ModelChoice, String> {
    match s {
        "paper" => Ok(ModelChoice::Paper),
        "bounds" => Ok(ModelChoice::Bounds),
        "profile" => Ok(ModelChoice::Profile),
        _ => match s.strip_prefix("table:") {
            Some(f) if !f.is_empty() => Ok(ModelChoice::Table(PathBuf::from(f))),
            _ => Err(format!("`{s}`: expected paper, bounds, profile or table:FILE")),
        },
    }
}

/// Reads a cost table file (exit 2 with the reason when it is missing or malformed).
pub fn read_table(path: &std::path::Path) -> Result<TableCost> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the cost table {}", path.display()))?;
    TableCost::from_json(&text).map_err(|e| anyhow::anyhow!("{}: bad cost table: {e}", path.display()))
}

/// The table of `table:FILE`, read once per file processed.
pub fn load_table(choice: &ModelChoice) -> Result<Option<TableCost>> {
    match choice {
        ModelChoice::Table(p) => read_table(p).map(Some),
        _ => Ok(None),
    }
}

/// What the bounds model may assume: the launch the oracles use, the `--param` values.
fn launch(common: &Common, src: &Source) -> Launch {
    let o = run::check_options(common, src);
    Launch {
        block_dim: o.block_dim,
        grid_dim: o.grid_dim,
        params: o.params,
    }
}

/// Measured executions of a barrier at every place of `k` (the interpreter with the
/// oracle options of the file: launch, `--param`, warp size).
fn measure(common: &Common, src: &Source, k: &Kernel) -> Result<(ProfileCost, profile::Profile)> {
    let it = Interpreter::new(run::check_options(common, src));
    let (counts, p) = profile::place_executions(&it, k)
        .with_context(|| format!("kernel `{}`: cannot profile barrier executions", k.name))?;
    Ok((ProfileCost::from_counts(LabelTree::new(k), counts), p))
}

/// The cost model `choice` for kernel `k` of `src`.
pub fn model(
    choice: &ModelChoice,
    paper: PaperCost,
    table: Option<&TableCost>,
    common: &Common,
    src: &Source,
    k: &Kernel,
) -> Result<Box<dyn CostModel>> {
    Ok(match choice {
        ModelChoice::Paper => Box::new(paper),
        ModelChoice::Bounds => Box::new(BoundsCost::new(k, &launch(common, src), paper)),
        ModelChoice::Profile => Box::new(measure(common, src, k)?.0),
        ModelChoice::Table(p) => match table {
            Some(t) => Box::new(t.clone()),
            None => Box::new(read_table(p)?),
        },
    })
}

#[derive(Args, Debug)]
pub struct CostArgs {
    #[command(flatten)]
    pub common: Common,

    /// Output format: a readable table per kernel, or one JSON document.
    #[arg(long, value_enum, default_value_t = CostFormat::Text)]
    pub format: CostFormat,

    /// Also compare a user table (the `table:FILE` model of `fix --cost-model`).
    #[arg(long, value_name = "FILE")]
    pub table: Option<PathBuf>,

    /// The paper model's weight of one enclosing loop (LC), also the bounds model's
    /// fallback for loops whose trip count is unknown.
    #[arg(long, default_value_t = PaperCost::DEFAULT_LC, value_name = "LC")]
    pub loop_cost: f64,

    /// The paper model's weight of one enclosing conditional (IC), also the bounds
    /// model's fallback.
    #[arg(long, default_value_t = PaperCost::DEFAULT_IC, value_name = "IC")]
    pub cond_cost: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CostFormat {
    Text,
    Json,
}

/// An existing barrier of a kernel.
struct BarrierCost {
    line: u32,
    after_line: u32,
    static_cost: f64,
    bounds_cost: f64,
    executions: Option<f64>,
}

/// One model on one kernel.
struct ModelResult {
    name: String,
    current_cost: f64,
    optimal_cost: Option<f64>,
    optimal_lines: Vec<u32>,
    error: Option<String>,
}

struct KernelCost {
    name: String,
    barriers: Vec<BarrierCost>,
    models: Vec<ModelResult>,
    notes: Vec<String>,
}

pub fn command(args: &CostArgs) -> Status {
    let inputs = inputs::expand(&args.common.files);
    let color = args
        .common
        .color
        .enabled(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let (mut status, mut tally) = (Status::Ok, crate::Tally::default());
    let (mut files, mut items) = (Vec::new(), Vec::new());
    // A bad table is the same error for every file: say it once.
    let table = match args.table.as_deref().map(read_table).transpose() {
        Ok(t) => t,
        Err(e) => {
            eprint!("{}", crate::error_text(&e));
            return Status::Error;
        }
    };
    for_each_file(
        &inputs,
        |input| cost_file(args, table.as_ref(), input, color),
        |out| flush(out, &mut status, &mut tally, &mut files, &mut items),
    );
    if args.format == CostFormat::Json {
        print_stdout(format!("{}\n", json!({ "files": files })).as_bytes());
    }
    status
}

fn cost_file(args: &CostArgs, table: Option<&TableCost>, input: &inputs::Input, color: bool) -> FileOutput {
    let mut o = FileOutput::default();
    o.tally.files = 1;
    let json = args.format == CostFormat::Json;
    let result = (|| -> Result<(Source, Vec<KernelCost>)> {
        let path = inputs::path(input)?;
        let src = crate::source::load(path, &args.common.front_end())?;
        let mut oracle = run::make_oracle(args.common.oracle, run::check_options(&args.common, &src));
        let ks = run::selected(&args.common, &src)?
            .into_iter()
            .map(|k| kernel_cost(args, table, &src, k, oracle.as_mut()))
            .collect::<Result<Vec<_>>>()?;
        Ok((src, ks))
    })();
    let (src, kernels) = match result {
        Ok(x) => x,
        Err(e) => {
            o.failed(&input.0, &e, json);
            return o;
        }
    };
    o.tally.kernels = kernels.len();
    if kernels
        .iter()
        .any(|k| k.models.iter().any(|m| m.optimal_cost.is_none()))
    {
        o.status = Status::Defect;
    }
    if json {
        o.json = Some(json!({
            "path": src.path.display().to_string(),
            "kernels": kernels.iter().map(kernel_json).collect::<Vec<_>>(),
        }));
    } else {
        let mut buf = buffer(color);
        if let Err(e) = text(&mut buf, &src, &kernels) {
            o.failed(&src.path, &e.into(), false);
        }
        o.stdout = buf.into_inner();
    }
    o
}

fn kernel_cost(
    args: &CostArgs,
    table: Option<&TableCost>,
    src: &Source,
    k: &Kernel,
    oracle: &mut dyn oracle::Oracle,
) -> Result<KernelCost> {
    let paper = PaperCost {
        loop_cost: args.loop_cost,
        cond_cost: args.cond_cost,
    };
    let bounds = BoundsCost::new(k, &launch(&args.common, src), paper);
    let mut notes = Vec::new();
    let profiled = match measure(&args.common, src, k) {
        Ok((m, p)) => {
            notes.extend(p.notes.iter().map(|n| format!("profile: {n}")));
            Some((m, p))
        }
        Err(e) => {
            notes.push(format!("no profile: {e:#}"));
            None
        }
    };
    let tree = LabelTree::new(k);
    let static_costs = synth::cost::barrier_costs(&tree, k, &paper);
    let bounds_costs = synth::cost::barrier_costs(&tree, k, &bounds);
    let barriers = static_costs
        .iter()
        .zip(&bounds_costs)
        .filter_map(|(&(id, static_cost), &(_, bounds_cost))| {
            let st = k.stmt(id)?;
            let after_line = tree
                .label_of(id)
                .and_then(|l| tree.position_of_barrier(l))
                .map_or(st.span.line, |l| tree.line(l));
            Some(BarrierCost {
                line: st.span.line,
                after_line,
                static_cost,
                bounds_cost,
                executions: profiled
                    .as_ref()
                    .map(|(_, p)| p.barriers.get(&id).copied().unwrap_or(0.0)),
            })
        })
        .collect();
    let mut models: Vec<(&str, Box<dyn CostModel>)> =
        vec![("paper", Box::new(paper)), ("bounds", Box::new(bounds))];
    if let Some((m, _)) = profiled {
        models.push(("profile", Box::new(m)));
    }
    if let Some(t) = table {
        models.push(("table", Box::new(t.clone())));
    }
    let stripped = k.without_movable_barriers();
    let stripped_tree = LabelTree::new(&stripped);
    let mut results = Vec::new();
    for (name, m) in &models {
        let current_cost = synth::cost::existing_cost(&tree, k, m.as_ref());
        let opts = SynthOptions::new(m.as_ref());
        let mut r = ModelResult {
            name: name.to_string(),
            current_cost,
            optimal_cost: None,
            optimal_lines: Vec::new(),
            error: None,
        };
        match synth::synthesize(&stripped, oracle, &opts) {
            Ok(s) => match s.outcome {
                Outcome::NoSolution(ns) => r.error = Some(ns.reason),
                Outcome::Fixed | Outcome::AlreadyCorrect => {
                    r.optimal_cost = Some(s.cost);
                    r.optimal_lines = s.inserted.iter().map(|l| stripped_tree.line(*l)).collect();
                }
            },
            Err(e) => r.error = Some(e.to_string()),
        }
        results.push(r);
    }
    Ok(KernelCost {
        name: k.name.clone(),
        barriers,
        models: results,
        notes,
    })
}

fn kernel_json(k: &KernelCost) -> Value {
    json!({
        "name": k.name,
        "barriers": k.barriers.iter().map(|b| json!({
            "line": b.line,
            "after_line": b.after_line,
            "static_cost": b.static_cost,
            "bounds_cost": b.bounds_cost,
            "executions": b.executions,
        })).collect::<Vec<_>>(),
        "models": k.models.iter().map(|m| json!({
            "name": m.name,
            "current_cost": m.current_cost,
            "optimal_cost": m.optimal_cost,
            "optimal_lines": m.optimal_lines,
            "error": m.error,
        })).collect::<Vec<_>>(),
        "notes": k.notes,
    })
}

/// A number for the table: integers without decimals, others with up to 3.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn text(w: &mut impl Write, src: &Source, kernels: &[KernelCost]) -> std::io::Result<()> {
    for k in kernels {
        writeln!(w, "{}: kernel `{}`", src.path.display(), k.name)?;
        if k.barriers.is_empty() {
            writeln!(w, "  no barriers")?;
        } else {
            writeln!(
                w,
                "  {:<8} {:>6} {:>12} {:>12} {:>12}",
                "barrier", "after", "static", "bounds", "executions"
            )?;
            for b in &k.barriers {
                writeln!(
                    w,
                    "  {:<8} {:>6} {:>12} {:>12} {:>12}",
                    format!("line {}", b.line),
                    b.after_line,
                    num(b.static_cost),
                    num(b.bounds_cost),
                    b.executions.map_or("–".to_string(), num)
                )?;
            }
        }
        writeln!(
            w,
            "  {:<8} {:>12} {:>12}  optimal placement (after lines)",
            "model", "current", "optimal"
        )?;
        for m in &k.models {
            let (opt, lines) = match (m.optimal_cost, &m.error) {
                (Some(c), _) => (
                    num(c),
                    if m.optimal_lines.is_empty() {
                        "none needed".to_string()
                    } else {
                        m.optimal_lines
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                ),
                (None, e) => (
                    "–".to_string(),
                    format!("no placement: {}", e.as_deref().unwrap_or("?")),
                ),
            };
            writeln!(
                w,
                "  {:<8} {:>12} {:>12}  {}",
                m.name,
                num(m.current_cost),
                opt,
                lines
            )?;
        }
        for n in &k.notes {
            writeln!(w, "  note: {n}")?;
        }
    }
    Ok(())
}
