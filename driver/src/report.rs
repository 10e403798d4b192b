//! What the driver hands the binary to render: the report types of the oracle, the spans,
//! edits and launch of KPL, the synthesis defaults, and the one fact about a kernel's
//! structure a report needs (the guard of a divergent barrier). The binary depends on
//! this crate alone, so it renders what the pipeline returns and never walks a kernel.

pub use kpl::header::{parse_block_dim, parse_dim3, parse_grid_dim, parse_warp_size};
pub use kpl::ir::FileSpan;
pub use kpl::launch::{Dim3, Origin, dims};
pub use kpl::rewrite::{Edit, apply, line_at};
pub use kpl::{Launch, Space, Span};
pub use oracle::{AccessKind, BenignPair, Divergence, Race, Replay, Report, ThreadId, Witness};
pub use synth::{
    DEFAULT_GRID_COST, DEFAULT_WARP_COST, GRID_HINT, ONE_STATEMENT_HINT, PaperCost, cross_block_hint,
};

use kpl::{Kernel, Stmt, StmtId, StmtKind};

use crate::source::Source;

/// Whether a replay of the finding failed to show it (`Some(why)`): a possible race or
/// divergence, the verifier's over-approximation perhaps its cause. A confirmed finding,
/// or one not replayed (`fix`'s reports), is not.
pub fn possible(replay: &Option<Replay>) -> Option<&str> {
    match replay {
        Some(r) if !r.confirmed => Some(r.why.as_deref().unwrap_or("a run does not show it")),
        _ => None,
    }
}

/// Whether a run showed the finding.
pub fn confirmed(replay: &Option<Replay>) -> bool {
    replay.as_ref().is_some_and(|r| r.confirmed)
}

/// The relations a launch states between sizes and parameters, as KPL text.
pub fn relations_text(l: &Launch) -> Vec<String> {
    l.relations.iter().map(kpl::syntax::print_expr).collect()
}

/// What decides whether a thread reaches a divergent barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardKind {
    /// An enclosing `if`: "this condition".
    Condition,
    /// An enclosing loop: "this loop's trip count".
    TripCount,
    /// A `return`, `break` or `continue` before it: "whether they get past this".
    Exit,
}

/// The statement around a barrier that decides whether a thread reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub span: Span,
    pub kind: GuardKind,
}

/// The guard of barrier `stmt` of kernel `kernel` in `src`: the innermost enclosing
/// conditional or loop, or else the last `return`/`break`/`continue` before it; `None`
/// when the guard has no place in the source (an inserted statement) or there is none.
pub fn divergence_guard(src: &Source, kernel: &str, stmt: StmtId) -> Option<Guard> {
    let k = src.kernels.iter().find(|k| k.name == kernel)?;
    let st = guard_of(k, stmt)?;
    let kind = match st.kind {
        StmtKind::If { .. } => GuardKind::Condition,
        StmtKind::While { .. } | StmtKind::For { .. } => GuardKind::TripCount,
        _ => GuardKind::Exit,
    };
    Some(Guard { span: st.span, kind }).filter(|g| g.span != Span::NONE)
}

fn guard_of(k: &Kernel, id: StmtId) -> Option<&Stmt> {
    fn walk<'k>(stmts: &'k [Stmt], id: StmtId, exits: &mut Vec<&'k Stmt>) -> Option<Option<&'k Stmt>> {
        for st in stmts {
            if st.id == id {
                return Some(None);
            }
            let blocks: Vec<&kpl::Block> = match &st.kind {
                StmtKind::If {
                    then_blk, else_blk, ..
                } => std::iter::once(then_blk).chain(else_blk.as_ref()).collect(),
                StmtKind::While { body, .. } | StmtKind::For { body, .. } => vec![body],
                StmtKind::Return | StmtKind::Break | StmtKind::Continue => {
                    exits.push(st);
                    continue;
                }
                _ => continue,
            };
            for b in blocks {
                if let Some(inner) = walk(&b.stmts, id, exits) {
                    return Some(inner.or(Some(st)));
                }
            }
        }
        None
    }
    let mut exits = Vec::new();
    match walk(&k.body.stmts, id, &mut exits)? {
        Some(g) => Some(g),
        None => exits.last().copied(),
    }
}
