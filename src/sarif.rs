//! `check --format sarif`: one SARIF 2.1.0 log (one run, a rule per defect kind), built
//! with the `serde-sarif` crate's types.

use std::path::Path;

use serde_json::{Value, json};
use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region,
    ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, SCHEMA_URL, Sarif,
    Tool, ToolComponent,
};

use crate::output::{race_sentence, remedy};
use driver::source::InputError;
use driver::{KernelCheck, Source, Verdict};

/// The rules, in the order of `tool.driver.rules` (a result's `ruleIndex`).
const RULES: [(&str, &str, &str); 4] = [
    (
        "data-race",
        "DataRace",
        "Two threads of a block access the same array element, at least one writes, and no barrier \
         orders the accesses.",
    ),
    (
        "cross-block-race",
        "CrossBlockRace",
        "Threads of different blocks access the same global array element and at least one writes: \
         no block barrier can order them (a grid-wide barrier in a cooperative launch can).",
    ),
    (
        "barrier-divergence",
        "BarrierDivergence",
        "Some threads of a block reach a barrier and others do not (undefined behaviour).",
    ),
    (
        "unsupported",
        "Unsupported",
        "The file or kernel could not be checked (syntax error, unsupported construct, timeout).",
    ),
];

fn rule_index(id: &str) -> i64 {
    RULES.iter().position(|r| r.0 == id).unwrap_or(0) as i64
}

/// The path as a URI relative to the current directory when it is below it.
pub fn uri(path: &Path) -> String {
    crate::suggest::repo_path(path)
        .replace('%', "%25")
        .replace(' ', "%20")
}

fn message(text: String) -> Message {
    Message::builder().text(text).build()
}

fn location(uri: &str, text: &str, span: kpl::Span, msg: Option<String>) -> Location {
    let mut region = Region::builder()
        .start_line(i64::from(span.line.max(1)))
        .start_column(i64::from(span.col.max(1)))
        .build();
    if span.end > span.start && span.end <= text.len() {
        let end_line = kpl::rewrite::line_at(text, span.end);
        let line_start = text[..span.end].rfind('\n').map_or(0, |i| i + 1);
        region.end_line = Some(i64::from(end_line));
        region.end_column = Some((text[line_start..span.end].chars().count() + 1) as i64);
    }
    let physical = PhysicalLocation::builder()
        .artifact_location(ArtifactLocation::builder().uri(uri.to_string()).build())
        .region(region)
        .build();
    let mut loc = Location::builder().physical_location(physical).build();
    loc.message = msg.map(message);
    loc
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

/// The results of one checked file.
pub fn file_results(src: &Source, results: &[KernelCheck]) -> Vec<SarifResult> {
    let uri = uri(&src.path);
    let text = &src.text;
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
                    ": {} reaches the barrier at line {} while {}{whose} does not{why}",
                    w.threads[0], d.span.line, w.threads[1]
                ));
            }
            msg.push('.');
            out.push(result(
                "barrier-divergence",
                msg,
                vec![location(&uri, text, d.span, None)],
                Vec::new(),
            ));
        }
        for (n, r) in k.report.races.iter().enumerate() {
            let rule = if r.fixable {
                "data-race"
            } else {
                "cross-block-race"
            };
            let help = match remedy(src, r) {
                Ok(h) | Err(h) => h,
            };
            let msg = format!(
                "{} race on array `{}` in kernel `{}`: {}. {}{}.",
                r.kind(),
                r.array,
                k.name,
                race_sentence(r),
                help[..1].to_uppercase(),
                &help[1..]
            );
            let mut related = location(
                &uri,
                text,
                r.second.span,
                Some(format!(
                    "{} of `{}` (second access)",
                    r.second.kind.word(),
                    r.array
                )),
            );
            related.id = Some(n as i64);
            out.push(result(
                rule,
                msg,
                vec![location(
                    &uri,
                    text,
                    r.first.span,
                    Some(format!("{} of `{}` (first access)", r.first.kind.word(), r.array)),
                )],
                vec![related],
            ));
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
                    Some(kpl::Span {
                        line: f.error.line,
                        col: f.error.col,
                        ..kpl::Span::NONE
                    })
                })
                .unwrap_or(kpl::Span::NONE);
            out.push(result(
                "unsupported",
                format!(
                    "Kernel `{}` could not be checked ({}): {}",
                    k.name,
                    k.verdict.word(),
                    k.error.clone().unwrap_or_default()
                ),
                vec![location(&uri, text, span, None)],
                Vec::new(),
            ));
        }
    }
    out
}

/// A file that could not be loaded or checked at all.
pub fn error_result(path: &Path, e: &anyhow::Error) -> SarifResult {
    let (uri, span) = match e.downcast_ref::<InputError>() {
        Some(ie) => (
            uri(Path::new(&ie.path)),
            kpl::Span {
                line: ie.line,
                col: ie.col,
                ..kpl::Span::NONE
            },
        ),
        None => (
            uri(path),
            kpl::Span {
                line: 1,
                col: 1,
                ..kpl::Span::NONE
            },
        ),
    };
    let text = match e.downcast_ref::<InputError>() {
        Some(ie) => ie.message.clone(),
        None => format!("{e:#}"),
    };
    result(
        "unsupported",
        text,
        vec![location(&uri, "", span, None)],
        Vec::new(),
    )
}

/// The whole log.
pub fn document(results: Vec<SarifResult>) -> Value {
    let rules: Vec<ReportingDescriptor> = RULES
        .iter()
        .map(|(id, name, desc)| {
            ReportingDescriptor::builder()
                .id(id.to_string())
                .name(name.to_string())
                .short_description(MultiformatMessageString::builder().text(desc.to_string()).build())
                .default_configuration(ReportingConfiguration::builder().level(json!("error")).build())
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("autosync".to_string())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .information_uri("https://github.com/autosync/autosync".to_string())
        .rules(rules)
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build();
    let log = Sarif::builder()
        .schema(SCHEMA_URL.to_string())
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_value(log).unwrap_or_else(|e| json!({"error": e.to_string()}))
}
