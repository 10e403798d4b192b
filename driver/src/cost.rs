//! Cost models: the registry ([`MODELS`], one entry per model, keyed by name) that
//! `fix --cost-model` parses against, `--help` describes, `autosync cost` compares and the
//! cost study of `benches/` runs; and the comparison of the models on one file
//! ([`compare_file`]).
//!
//! Adding a model: implement `synth::CostModel` in `synth/src/cost/`, add one
//! [`ModelInfo`] to [`MODELS`] here, and extend the registry test below.

use std::cell::OnceCell;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use kpl::{Kernel, LabelTree};
use oracle::CheckOptions;
use oracle::dynamic::{Interpreter, profile};
use synth::{BoundsCost, CostModel, Launch, Outcome, PaperCost, ProfileCost, SynthOptions, TableCost};

use crate::Settings;
use crate::run::{check_options, make_oracle, selected};
use crate::source::Source;

/// A cost model of the registry.
pub struct ModelInfo {
    /// What `--cost-model` calls it (and the row name in `autosync cost`).
    pub name: &'static str,
    /// The argument of a parameterised entry, written `name:ARG` (e.g. `FILE`).
    pub param: Option<&'static str>,
    /// One sentence for `--help`.
    pub summary: &'static str,
    /// Whether `autosync cost` compares it on every kernel (a parameterised entry is
    /// compared when its argument is given).
    pub compared: bool,
    /// Builds the model for one kernel.
    pub build: fn(&ModelInput) -> Result<Box<dyn CostModel>>,
}

/// What a model may look at when it is built for one kernel.
pub struct ModelInput<'a> {
    pub kernel: &'a Kernel,
    /// The paper model with this run's LC and IC (the others fall back to it).
    pub paper: PaperCost,
    /// The oracle options of the file (launch, `--param`, warp size).
    pub check: &'a CheckOptions,
    /// The argument of a parameterised entry.
    pub arg: Option<&'a str>,
    /// The barrier-execution profile, measured once per kernel when first asked for.
    profile: OnceCell<std::result::Result<(ProfileCost, profile::Profile), String>>,
}

impl<'a> ModelInput<'a> {
    pub fn new(kernel: &'a Kernel, paper: PaperCost, check: &'a CheckOptions, arg: Option<&'a str>) -> Self {
        ModelInput {
            kernel,
            paper,
            check,
            arg,
            profile: OnceCell::new(),
        }
    }

    /// What the bounds model may assume: the launch the oracles use.
    pub fn launch(&self) -> &Launch {
        &self.check.launch
    }

    /// Measured executions of a barrier at every place of the kernel (the interpreter
    /// with the oracle options of the file), measured once.
    pub fn profile(&self) -> Result<&(ProfileCost, profile::Profile)> {
        self.profile
            .get_or_init(|| {
                let it = Interpreter::new(self.check.clone());
                profile::place_executions(&it, self.kernel)
                    .with_context(|| {
                        format!("kernel `{}`: cannot profile barrier executions", self.kernel.name)
                    })
                    .map(|(counts, p)| (ProfileCost::from_counts(LabelTree::new(self.kernel), counts), p))
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow!("{e}"))
    }
}

/// The cost models, in the order `autosync cost` shows them.
pub static MODELS: &[ModelInfo] = &[
    ModelInfo {
        name: "paper",
        param: None,
        summary: "LC^loops · IC^conds",
        compared: true,
        build: |m| Ok(Box::new(m.paper)),
    },
    ModelInfo {
        name: "bounds",
        param: None,
        summary: "loop trip counts computed from constant bounds and the launch, LC/IC where unknown",
        compared: true,
        build: |m| Ok(Box::new(BoundsCost::new(m.kernel, m.launch(), m.paper))),
    },
    ModelInfo {
        name: "profile",
        param: None,
        summary: "barrier executions measured by the interpreter for the launch and --param values",
        compared: true,
        build: |m| Ok(Box::new(m.profile()?.0.clone())),
    },
    ModelInfo {
        name: "table",
        param: Some("FILE"),
        summary: "JSON `{\"weights\": {\"<line>\": <weight>, ...}, \"default\": <weight>}`: the weight of a \
                  barrier placed after that line",
        compared: false,
        build: |m| {
            read_table(Path::new(m.arg.unwrap_or_default())).map(|t| Box::new(t) as Box<dyn CostModel>)
        },
    },
];

/// A registry entry by name.
pub fn find(name: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().find(|m| m.name == name)
}

/// How an entry is written on the command line: `paper`, `table:FILE`.
pub fn spelling(m: &ModelInfo) -> String {
    match m.param {
        Some(p) => format!("{}:{p}", m.name),
        None => m.name.to_string(),
    }
}

/// The long help of `--cost-model`, from the registry.
pub fn help() -> String {
    let models: Vec<String> = MODELS
        .iter()
        .map(|m| format!("`{}` ({})", spelling(m), m.summary))
        .collect();
    format!("Cost model: {}.", or_list(&models))
}

/// "a, b, c or d".
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// `--cost-model`: a registry entry and its argument.
#[derive(Clone, Debug)]
pub struct ModelChoice {
    pub name: &'static str,
    pub arg: Option<String>,
}

impl Default for ModelChoice {
    fn default() -> Self {
        ModelChoice {
            name: "paper",
            arg: None,
        }
    }
}

impl PartialEq for ModelChoice {
    fn eq(&self, o: &Self) -> bool {
        (self.name, &self.arg) == (o.name, &o.arg)
    }
}

impl ModelChoice {
    fn info(&self) -> Result<&'static ModelInfo> {
        find(self.name).ok_or_else(|| anyhow!("no cost model `{}`", self.name))
    }

    /// The model for kernel `k` (with the file's oracle options `check`).
    pub fn build(&self, k: &Kernel, paper: PaperCost, check: &CheckOptions) -> Result<Box<dyn CostModel>> {
        let input = ModelInput::new(k, paper, check, self.arg.as_deref());
        (self.info()?.build)(&input)
    }
}

/// Parses `--cost-model` against the registry.
pub fn parse_model(s: &str) -> std::result::Result<ModelChoice, String> {
    let (name, arg) = match s.split_once(':') {
        Some((n, a)) => (n, Some(a)),
        None => (s, None),
    };
    match (find(name), arg) {
        (Some(m), None) if m.param.is_none() => Ok(ModelChoice {
            name: m.name,
            arg: None,
        }),
        (Some(m), Some(a)) if m.param.is_some() && !a.is_empty() => Ok(ModelChoice {
            name: m.name,
            arg: Some(a.to_string()),
        }),
        _ => {
            let all: Vec<String> = MODELS.iter().map(spelling).collect();
            Err(format!("`{s}`: expected {}", or_list(&all)))
        }
    }
}

/// Reads a cost table file (exit 2 with the reason when it is missing or malformed).
pub fn read_table(path: &Path) -> Result<TableCost> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the cost table {}", path.display()))?;
    TableCost::from_json(&text).map_err(|e| anyhow!("{}: bad cost table: {e}", path.display()))
}

/// Checks a choice's argument once per file (a missing or malformed table is the
/// file's error, reported before any kernel is synthesized).
pub fn validate(choice: &ModelChoice) -> Result<()> {
    if let Some(a) = &choice.arg
        && choice.name == "table"
    {
        read_table(Path::new(a))?;
    }
    Ok(())
}

/// An existing barrier of a kernel, priced.
pub struct BarrierCost {
    pub line: u32,
    /// The line after which it stands.
    pub after_line: u32,
    pub static_cost: f64,
    pub bounds_cost: f64,
    /// Measured executions (`None` without a profile).
    pub executions: Option<f64>,
}

/// One model on one kernel.
pub struct ModelResult {
    pub name: String,
    /// The kernel's barriers as they are, priced by the model.
    pub current_cost: f64,
    /// The cheapest placement of the kernel without its movable barriers.
    pub optimal_cost: Option<f64>,
    pub optimal_lines: Vec<u32>,
    pub error: Option<String>,
}

/// `autosync cost` on one kernel.
pub struct KernelCost {
    pub name: String,
    pub barriers: Vec<BarrierCost>,
    pub models: Vec<ModelResult>,
    pub notes: Vec<String>,
}

/// Compares the cost models on the selected kernels of a file: the registry's compared
/// entries, and `table` (a `table:FILE` argument) when given.
pub fn compare_file(
    settings: &Settings,
    paper: PaperCost,
    table: Option<&Path>,
    src: &Source,
) -> Result<Vec<KernelCost>> {
    let check = check_options(settings, src, &src.given);
    let mut oracle = make_oracle(
        settings,
        src,
        CheckOptions {
            race_directions: true,
            ..check
        },
    );
    let compared = selected(settings, src)?
        .into_iter()
        .map(|k| {
            crate::stop_if_interrupted()?;
            let check = check_options(settings, src, &src.launch_of(&k.name));
            let mut c = compare_kernel(paper, table, &check, k, oracle.as_mut())?;
            // The synthesis's reasons name KPL arrays: the report uses the user's names.
            for m in &mut c.models {
                m.error = m.error.take().map(|e| src.user_text(&k.name, &e));
            }
            for n in &mut c.notes {
                *n = src.user_text(&k.name, n);
            }
            Ok(c)
        })
        .collect();
    // A cancelled run ([`crate::interrupt`]) is [`crate::Interrupted`].
    crate::unless_interrupted(compared)
}

fn compare_kernel(
    paper: PaperCost,
    table: Option<&Path>,
    check: &CheckOptions,
    k: &Kernel,
    oracle: &mut dyn oracle::Oracle,
) -> Result<KernelCost> {
    let table_arg = table.map(|p| p.to_string_lossy().into_owned());
    // One input for every model: the profile is measured once, for the barrier table
    // and the profile model.
    let mut input = ModelInput::new(k, paper, check, None);
    let bounds = BoundsCost::new(k, input.launch(), paper);
    let mut notes = Vec::new();
    let profiled = input.profile().ok().map(|(_, p)| p.clone());
    if let Some(p) = &profiled {
        notes.extend(p.notes.iter().map(|n| format!("profile: {n}")));
    }
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
                    .map(|p| p.barriers.get(&id).copied().unwrap_or(0.0)),
            })
        })
        .collect();
    let mut models: Vec<(&str, Box<dyn CostModel>)> = Vec::new();
    for m in MODELS {
        input.arg = match (m.param, &table_arg) {
            (None, _) if m.compared => None,
            (Some(_), Some(a)) if m.name == "table" => Some(a.as_str()),
            _ => continue,
        };
        match (m.build)(&input) {
            Ok(b) => models.push((m.name, b)),
            Err(e) => notes.push(format!("no {}: {e:#}", m.name)),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry parses by its spelling, is in the help text, and a misspelling names
    /// them all.
    #[test]
    fn registry_drives_parsing_and_help() {
        let names: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
        assert_eq!(names, ["paper", "bounds", "profile", "table"]);
        let help = help();
        for m in MODELS {
            let arg = m.param.map(|_| "x.json");
            let s = match arg {
                Some(a) => format!("{}:{a}", m.name),
                None => m.name.to_string(),
            };
            let c = parse_model(&s).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((c.name, c.arg.as_deref()), (m.name, arg));
            assert!(help.contains(&format!("`{}`", spelling(m))), "{help}");
        }
        assert_eq!(
            parse_model("nope").err().as_deref(),
            Some("`nope`: expected paper, bounds, profile or table:FILE")
        );
        assert!(parse_model("table:").is_err());
        assert!(parse_model("paper:x").is_err());
    }
}
