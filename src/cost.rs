//! `autosync cost`: runs `driver::cost::compare_file` on each file and prints the
//! comparison (a table per kernel, or one JSON document).

use std::io::Write;

use anyhow::Result;
use driver::Source;
use driver::cost::{KernelCost, read_table};
use serde_json::{Value, json};

use crate::cli::{CostArgs, CostFormat};
use crate::{FileOutput, Status, buffer, flush, for_each_file, print_stdout};
use driver::inputs;

pub fn command(args: &CostArgs) -> Status {
    let (inputs, db) = match crate::plan(&args.common) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let color = args
        .common
        .color
        .enabled(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let (mut status, mut tally) = (Status::Ok, crate::Tally::default());
    let (mut files, mut items) = (Vec::new(), Vec::new());
    // A bad table is the same error for every file: say it once.
    if let Some(Err(e)) = args.table.as_deref().map(read_table) {
        eprint!("{}", crate::error_text(&e));
        return Status::Error;
    }
    for_each_file(
        &inputs,
        |input| cost_file(args, db.as_ref(), input, color),
        |out| flush(out, &mut status, &mut tally, &mut files, &mut items),
    );
    if args.format == CostFormat::Json {
        print_stdout(format!("{}\n", crate::output::json_document(files)).as_bytes());
    }
    status
}

fn cost_file(
    args: &CostArgs,
    db: Option<&driver::compdb::Database>,
    input: &inputs::Input,
    color: bool,
) -> FileOutput {
    let mut o = FileOutput::default();
    o.tally.files = 1;
    let json = args.format == CostFormat::Json;
    let result = (|| -> Result<(Source, Vec<KernelCost>)> {
        let path = inputs::path(input)?;
        let settings = args.common.settings_for(db, &input.0);
        let src = driver::source::load(path, &settings.front_end)?;
        let paper = driver::report::PaperCost {
            loop_cost: args.loop_cost,
            cond_cost: args.cond_cost,
        };
        // A kernel the front end could not lower has no costs: the file is an error.
        if let Some((_, f)) = driver::selected_failed(&settings, &src).first() {
            anyhow::bail!("kernel `{}`: {}", f.name, f.error);
        }
        let ks = driver::cost::compare_file(&settings, paper, args.table.as_deref(), &src)?;
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
