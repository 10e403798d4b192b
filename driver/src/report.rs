//! What the driver hands the binary to render: the report types of the oracle, the spans,
//! edits and launch of KPL, the synthesis defaults, and the one fact about a kernel's
//! structure a report needs (the guard of a divergent barrier). The binary depends on
//! this crate alone, so it renders what the pipeline returns and never walks a kernel.

pub use kpl::header::{parse_block_dim, parse_dim3, parse_grid_dim, parse_warp_size};
pub use kpl::ir::{CallFrame, FileSpan};
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

/// The inlined device-function calls through which kernel `kernel` of `src` reaches the
/// code at `span`, innermost first ([`kpl::Kernel::call_chain`]): the function the code
/// is in and where it is called, then the function that call is in, ..., up to the call
/// the kernel makes. Empty for the kernel's own code (and for `.kpl`).
pub fn call_chain(src: &Source, kernel: &str, span: Span) -> Vec<CallFrame> {
    src.kernels
        .iter()
        .find(|k| k.name == kernel)
        .map(|k| k.call_chain(span).into_iter().cloned().collect())
        .unwrap_or_default()
}

/// The inlined call inside which every barrier that could order race `race` of kernel
/// `kernel` of `src` would have to be, if any: the innermost call both accesses are in,
/// when the race happens within one iteration (or not at all) of the loops around that
/// call and, across iterations, only of loops inside it. `fix` places no barrier there
/// (device functions are inlined, and may be called elsewhere): the user must. `None`
/// when a barrier in the kernel's own text may order the accesses, or when the race's
/// statements are not in the kernel as the front end made it.
pub fn enclosing_call(src: &Source, kernel: &str, race: &Race) -> Option<CallFrame> {
    let k = src.kernels.iter().find(|k| k.name == kernel)?;
    let second = k.call_chain(race.second.span);
    let common = k
        .call_chain(race.first.span)
        .into_iter()
        .find(|f| second.contains(f))?;
    if !race.inter.is_empty() {
        let (a, b) = (
            loops_around(k, race.first.stmt)?,
            loops_around(k, race.second.stmt)?,
        );
        let shared: Vec<&Stmt> = a
            .iter()
            .zip(&b)
            .take_while(|(x, y)| x.id == y.id)
            .map(|(x, _)| *x)
            .collect();
        for depth in &race.inter {
            let lp = shared.get(depth.checked_sub(1)?)?;
            if !k.call_chain(lp.span).contains(&common) {
                return None;
            }
        }
    }
    Some(common.clone())
}

/// The loops around statement `id` of `k`, outermost first (`None`: no such statement).
fn loops_around(k: &Kernel, id: StmtId) -> Option<Vec<&Stmt>> {
    fn walk<'k>(stmts: &'k [Stmt], id: StmtId, path: &mut Vec<&'k Stmt>) -> bool {
        for st in stmts {
            if st.id == id {
                return true;
            }
            let is_loop = st.kind.is_loop();
            if is_loop {
                path.push(st);
            }
            if st.blocks().into_iter().any(|b| walk(&b.stmts, id, path)) {
                return true;
            }
            if is_loop {
                path.pop();
            }
        }
        false
    }
    let mut path = Vec::new();
    walk(&k.body.stmts, id, &mut path).then_some(path)
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
