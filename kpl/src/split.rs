//! Splitting a source statement that races with itself across threads
//! (`A[tid] = A[tid] + A[tid + 1];`: thread t reads `A[t+1]` while thread t+1 writes it).
//!
//! A front end lowers such a statement to several KPL statements: reads into
//! temporaries, then the write. Only the last one has a [`Place`], so no barrier can go
//! between the racing read and the write, and the race looks unfixable. [`prepare`]
//! makes that place exist: it moves the racing reads (the *operands*) to the front of the
//! statement's KPL statements, each into a fresh local that is copied back where the read
//! was, and gives the last moved read the place [`Place::Split`]. The prepared kernel
//! means exactly what the original means (reads of one thread in one barrier interval
//! commute, and the copies keep every value where it was); a barrier after the split
//! label is what the source gets when the rewriter turns
//! `A[tid] = A[tid] + A[tid + 1];` into `int a = A[tid + 1]; __syncthreads(); A[tid] = A[tid] + a;`.

use std::collections::BTreeSet;

use crate::ir::{Block, Expr, Kernel, Place, Span, Stmt, StmtId, StmtKind};

/// One statement to split: the write that ends it and the spans of its racing operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitSite {
    /// The KPL write the source statement ends with.
    pub write: StmtId,
    /// The whole source statement (the write's span).
    pub statement: Span,
    /// The source operands read before the barrier, in text order (no overlaps).
    pub operands: Vec<Span>,
    /// Their arrays (KPL names), same order.
    pub arrays: Vec<String>,
    /// The statement that gets [`Place::Split`] in the prepared kernel (the last moved read).
    pub split_at: StmtId,
}

/// The statements of the source statement ending with `write` (at `block.stmts[w]`): the
/// placeless statements right before it whose spans lie inside the write's span.
fn group_start(block: &Block, w: usize) -> usize {
    let ws = block.stmts[w].span;
    let mut g = w;
    while g > 0 {
        let s = &block.stmts[g - 1];
        if s.place != Place::Nowhere || s.span.start < ws.start || s.span.end > ws.end || s.span.end == 0 {
            break;
        }
        g -= 1;
    }
    g
}

/// Finds the block and index of a statement.
fn locate(b: &Block, id: StmtId) -> Option<(&Block, usize)> {
    for (i, s) in b.stmts.iter().enumerate() {
        if s.id == id {
            return Some((b, i));
        }
        for inner in s.blocks() {
            if let Some(r) = locate(inner, id) {
                return Some(r);
            }
        }
    }
    None
}

fn locate_mut(b: &mut Block, id: StmtId) -> Option<&mut Block> {
    if b.stmts.iter().any(|s| s.id == id) {
        return Some(b);
    }
    for s in &mut b.stmts {
        for inner in s.blocks_mut() {
            if let Some(r) = locate_mut(inner, id) {
                return Some(r);
            }
        }
    }
    None
}

/// If `read` and `write` are a read and the write of one source statement (the read
/// lowered from an operand of the statement that ends with the write), the write.
pub fn same_statement(kernel: &Kernel, a: StmtId, b: StmtId) -> Option<(StmtId, StmtId)> {
    let is_write = |id| {
        kernel
            .stmt(id)
            .is_some_and(|s| matches!(s.kind, StmtKind::Write { .. }) && s.place == Place::After)
    };
    let (read, write) = if is_write(b) { (a, b) } else { (b, a) };
    if read == write || !is_write(write) {
        return None;
    }
    let (block, w) = locate(&kernel.body, write)?;
    let g = group_start(block, w);
    let is_read = kernel
        .stmt(read)
        .is_some_and(|s| matches!(s.kind, StmtKind::Read { .. }));
    // Directly in the statement, or nested in control flow the statement lowered to
    // (`c ? A[i + 1] : 0`), which `prepare` then refuses with a reason.
    let within = block.stmts[g..w]
        .iter()
        .any(|s| s.id == read || s.blocks().iter().any(|b| locate(b, read).is_some()));
    (is_read && within).then_some((read, write))
}

/// Everything named in the kernel (parameters, locals, loop variables).
fn names(k: &Kernel) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = k.params.iter().map(|p| p.name().to_string()).collect();
    for s in k.stmts() {
        match &s.kind {
            StmtKind::Local { var, .. }
            | StmtKind::Assign { var, .. }
            | StmtKind::Havoc { var, .. }
            | StmtKind::Read { var, .. }
            | StmtKind::For { var, .. } => {
                out.insert(var.clone());
            }
            _ => {}
        }
    }
    out
}

fn fresh(used: &mut BTreeSet<String>) -> String {
    let mut i = 0;
    loop {
        let n = if i == 0 {
            "_split".to_string()
        } else {
            format!("_split_{i}")
        };
        if used.insert(n.clone()) {
            return n;
        }
        i += 1;
    }
}

fn vars(e: &Expr) -> Vec<String> {
    let mut v = Vec::new();
    e.for_each_var(&mut |x| v.push(x.to_string()));
    v
}

/// Variables a statement of a group assigns.
fn defines(s: &Stmt) -> Option<&str> {
    match &s.kind {
        StmtKind::Local { var, .. }
        | StmtKind::Assign { var, .. }
        | StmtKind::Havoc { var, .. }
        | StmtKind::Read { var, .. } => Some(var),
        _ => None,
    }
}

/// Prepares the kernel for splitting the statements that end with each write of `sites`
/// (`write`, racing `reads`), see the module comment. Returns the prepared kernel and
/// one [`SplitSite`] per write, or why a statement cannot be split.
pub fn prepare(kernel: &Kernel, sites: &[(StmtId, Vec<StmtId>)]) -> Result<(Kernel, Vec<SplitSite>), String> {
    let mut k = kernel.clone();
    let mut used = names(kernel);
    let mut next_id = kernel.max_id().map_or(0, |m| m.0 + 1);
    let mut out = Vec::new();
    for (write, reads) in sites {
        let block = locate_mut(&mut k.body, *write).ok_or("the statement is not in the kernel")?;
        let w = block
            .stmts
            .iter()
            .position(|s| s.id == *write)
            .ok_or("the statement is not in the kernel")?;
        let g = group_start(block, w);
        let wspan = block.stmts[w].span;
        let line = wspan.line;
        only_reads_and_locals(&block.stmts[g..w], line)?;
        let operands = racing_operands(&block.stmts[g..w], reads, line)?;
        let moved = moved_reads(&block.stmts, g, w, &operands, line)?;
        independent_of_statement(&block.stmts, g, &moved, line)?;
        let rebuilt = rebuild_group(&block.stmts[g..w], g, &moved, &mut used, &mut next_id);
        block.stmts.splice(g..w, rebuilt.stmts);
        out.push(SplitSite {
            write: *write,
            statement: wspan,
            operands,
            arrays: rebuilt.arrays,
            split_at: rebuilt.split_at,
        });
    }
    Ok((k, out))
}

/// Every statement the source statement lowers to must be a read or a computation on
/// locals: no other write, atomic, call with control flow or barrier.
fn only_reads_and_locals(group: &[Stmt], line: u32) -> Result<(), String> {
    for s in group {
        if !matches!(
            s.kind,
            StmtKind::Local { .. } | StmtKind::Read { .. } | StmtKind::Assign { .. } | StmtKind::Havoc { .. }
        ) {
            return Err(format!(
                "line {line} does more than read memory and then write it (it has control flow, a call, \
                 an atomic or another write)"
            ));
        }
    }
    Ok(())
}

/// The operands: the spans of the racing reads, outermost only, in text order; an
/// error when there is none or one contains another.
fn racing_operands(group: &[Stmt], reads: &[StmtId], line: u32) -> Result<Vec<Span>, String> {
    let mut operands: Vec<Span> = group
        .iter()
        .filter(|s| reads.contains(&s.id))
        .map(|s| s.span)
        .collect();
    operands.sort_by_key(|s| (s.start, s.end));
    operands.dedup();
    if operands.is_empty() {
        return Err(format!(
            "line {line}: the racing read is not part of the statement"
        ));
    }
    for pair in operands.windows(2) {
        if pair[1].start < pair[0].end {
            return Err(format!(
                "line {line}: one racing operand contains another (a read whose index reads memory)"
            ));
        }
    }
    Ok(operands)
}

/// The indices in `stmts[g..w]` of the reads that move: every read lowered from an
/// operand moves (all cells of it), and nothing else read in the statement may be inside
/// an operand.
fn moved_reads(
    stmts: &[Stmt],
    g: usize,
    w: usize,
    operands: &[Span],
    line: u32,
) -> Result<Vec<usize>, String> {
    let inside = |s: &Span, o: &Span| s.start >= o.start && s.end <= o.end;
    let mut moved: Vec<usize> = Vec::new();
    for (i, s) in stmts.iter().enumerate().take(w).skip(g) {
        let in_op = operands.iter().find(|o| inside(&s.span, o));
        match (&s.kind, in_op) {
            (StmtKind::Read { .. }, Some(o)) if s.span == *o => moved.push(i),
            (StmtKind::Read { .. }, Some(_)) => {
                return Err(format!(
                    "line {line}: a racing operand reads memory in its index; autosync splits only \
                     operands like `A[i + 1]`"
                ));
            }
            _ => {}
        }
    }
    Ok(moved)
}

/// A moved read must not depend on anything the statement computes before it (from
/// `stmts[g]` on).
fn independent_of_statement(stmts: &[Stmt], g: usize, moved: &[usize], line: u32) -> Result<(), String> {
    for &i in moved {
        let StmtKind::Read { index, .. } = &stmts[i].kind else {
            continue;
        };
        let deps = vars(index);
        let clash = stmts[g..i]
            .iter()
            .filter_map(defines)
            .any(|d| deps.iter().any(|v| v == d));
        if clash {
            return Err(format!(
                "line {line}: the index of a racing operand depends on a value the statement computes \
                 before it"
            ));
        }
    }
    Ok(())
}

/// A source statement's group of KPL statements, rebuilt for the split.
struct Rebuilt {
    /// The group's new statements (without the write).
    stmts: Vec<Stmt>,
    /// The last moved read, which has [`Place::Split`].
    split_at: StmtId,
    /// The arrays of the moved reads, in order of first appearance.
    arrays: Vec<String>,
}

/// Rebuilds the group `group` (which starts at `g` in its block): decls + moved reads
/// into fresh locals, then the rest with a copy where each moved read was, then the
/// write (which stays after the group).
fn rebuild_group(
    group: &[Stmt],
    g: usize,
    moved: &[usize],
    used: &mut BTreeSet<String>,
    next_id: &mut u32,
) -> Rebuilt {
    let mut front: Vec<Stmt> = Vec::new();
    let mut rest: Vec<Stmt> = Vec::new();
    let mut split_at = StmtId(0);
    let mut arrays = Vec::new();
    for (i, s) in group.iter().enumerate() {
        if !moved.contains(&(g + i)) {
            rest.push(s.clone());
            continue;
        }
        let StmtKind::Read {
            var,
            array,
            index,
            ty,
        } = &s.kind
        else {
            continue;
        };
        let f = fresh(used);
        let mk = |kind: StmtKind, id: u32| Stmt {
            id: StmtId(id),
            kind,
            span: s.span,
            place: Place::Nowhere,
        };
        front.push(mk(
            StmtKind::Local {
                var: f.clone(),
                init: None,
            },
            *next_id,
        ));
        *next_id += 1;
        front.push(Stmt {
            id: s.id,
            kind: StmtKind::Read {
                var: f.clone(),
                array: array.clone(),
                index: index.clone(),
                ty: *ty,
            },
            span: s.span,
            place: Place::Nowhere,
        });
        split_at = s.id;
        if !arrays.contains(array) {
            arrays.push(array.clone());
        }
        rest.push(mk(
            StmtKind::Assign {
                var: var.clone(),
                value: Expr::Var(f),
            },
            *next_id,
        ));
        *next_id += 1;
    }
    if let Some(last) = front.iter_mut().rev().find(|s| s.id == split_at) {
        last.place = Place::Split;
    }
    Rebuilt {
        stmts: front.into_iter().chain(rest).collect(),
        split_at,
        arrays,
    }
}
