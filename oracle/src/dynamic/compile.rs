//! Lowers a [`Kernel`] to the interpreter's form once per check: variable names become
//! slots in a flat per-thread frame (resolved with the block scoping of the source, so
//! even a shadowing front end is interpreted correctly), array names become indices, and
//! every statement gets a dense index with what race reports need (its id, span, text
//! order position, enclosing loops).

use kpl::{AtomicOp, BinOp, Builtin, Expr, Kernel, LabelTree, Space, Span, Stmt, StmtId, StmtKind, UnOp};

use crate::{AccessKind, OracleError};

/// A variable's position in a thread's frame.
pub(super) type Slot = usize;

/// Index of a statement in [`Program::stmts`].
pub(super) type StmtIx = u32;

#[derive(Clone, Debug)]
pub(super) enum CExpr {
    Const(i64),
    Var(Slot),
    Builtin(Builtin),
    Unary(UnOp, Box<CExpr>),
    Binary(BinOp, Box<CExpr>, Box<CExpr>),
    Cast(kpl::IntTy, Box<CExpr>),
    /// `other(e)`: `e` in the other thread of a pair (two-thread `assume`s).
    Other(Box<CExpr>),
    /// `@f(args)`: the uninterpreted function `f` (by a hash of its name).
    Apply(u64, Vec<CExpr>),
}

impl CExpr {
    fn any(&self, f: &mut impl FnMut(&CExpr) -> bool) -> bool {
        f(self)
            || match self {
                CExpr::Const(_) | CExpr::Var(_) | CExpr::Builtin(_) => false,
                CExpr::Unary(_, a) | CExpr::Cast(_, a) | CExpr::Other(a) => a.any(f),
                CExpr::Binary(_, a, b) => a.any(f) || b.any(f),
                CExpr::Apply(_, args) => args.iter().any(|a| a.any(f)),
            }
    }

    /// Whether evaluating this expression may divide by zero (whose result is arbitrary).
    fn may_divide_by_zero(&self) -> bool {
        self.any(&mut |e| {
            matches!(e, CExpr::Binary(BinOp::Div | BinOp::Rem, _, d)
                if !matches!(**d, CExpr::Const(c) if c != 0))
        })
    }

    fn reads_slot(&self, pred: &impl Fn(Slot) -> bool) -> bool {
        self.any(&mut |e| matches!(e, CExpr::Var(s) if pred(*s)))
    }

    /// Whether the expression names the other thread of a pair (`other(e)`).
    pub(super) fn has_other(&self) -> bool {
        self.any(&mut |e| matches!(e, CExpr::Other(_)))
    }

    /// Whether the value differs between threads of one launch for a reason other
    /// than variables (`tid`, `bid`).
    pub(super) fn reads_thread_ids(&self) -> bool {
        self.any(&mut |e| matches!(e, CExpr::Builtin(Builtin::Tid(_) | Builtin::Bid(_))))
    }
}

#[derive(Clone, Debug)]
pub(super) struct CStmt {
    pub ix: StmtIx,
    pub kind: CKind,
}

#[derive(Clone, Debug)]
pub(super) enum CKind {
    /// `local x = e;` and `x = e;`
    Assign {
        slot: Slot,
        value: CExpr,
    },
    /// `local x;` and `havoc x;`; `warp_havoc x;` (`warp`): one value per warp.
    Arbitrary {
        slot: Slot,
        warp: bool,
    },
    Read {
        slot: Slot,
        array: u32,
        index: CExpr,
        /// The type the element is read through (the value is converted to it).
        ty: Option<kpl::IntTy>,
    },
    Write {
        array: u32,
        index: CExpr,
        value: CExpr,
    },
    Atomic {
        slot: Option<Slot>,
        op: AtomicOp,
        array: u32,
        index: CExpr,
        value: CExpr,
        /// The type the old value is read through.
        ty: Option<kpl::IntTy>,
    },
    Barrier,
    /// `__syncwarp()`.
    WarpBarrier,
    /// A grid barrier (`this_grid().sync()`).
    GridBarrier,
    If {
        cond: CExpr,
        then_blk: Vec<CStmt>,
        else_blk: Vec<CStmt>,
    },
    Loop(Box<CLoop>),
    Assume(CExpr),
    /// `invariant e;`: a hint for the static verifier, no effect on executions (the
    /// interpreter never assumes it).
    Nop,
    Return,
    Break,
    Continue,
}

/// `while` and `for` share one shape: `for` adds a variable with an init and a step.
#[derive(Clone, Debug)]
pub(super) struct CLoop {
    pub var: Option<(Slot, CExpr, CExpr)>,
    pub cond: CExpr,
    pub body: Vec<CStmt>,
}

/// What reports need to know about a statement.
#[derive(Clone, Debug)]
pub(super) struct StmtInfo {
    pub id: StmtId,
    pub span: Span,
    /// Position in the program text order `≺` (post-order of the label tree).
    pub post: u32,
    /// Enclosing loop statements, outermost first.
    pub loops: Vec<StmtIx>,
    pub access: Option<AccessKind>,
    /// A last-block ticket's ordering point (`ticket_barrier;`): run as a grid barrier,
    /// but a block that skips it is no divergence (then no block is last).
    pub ticket: bool,
}

#[derive(Clone, Debug)]
pub(super) struct ArrayInfo {
    pub name: String,
    pub space: Space,
}

#[derive(Clone, Debug)]
pub(super) struct ScalarParam {
    pub name: String,
    pub ty: kpl::IntTy,
    pub slot: Slot,
    /// Mentioned by the body or the preconditions (unused ones need not be enumerated).
    pub used: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Program {
    pub slots: usize,
    pub params: Vec<ScalarParam>,
    pub arrays: Vec<ArrayInfo>,
    pub requires: Vec<CExpr>,
    pub body: Vec<CStmt>,
    pub stmts: Vec<StmtInfo>,
    /// Whether an arbitrary value (memory content, havoc, ...) can reach a condition or
    /// an index: only then do different memory seeds give different runs.
    pub seeds_matter: bool,
}

impl Program {
    pub(super) fn compile(kernel: &Kernel) -> Result<Program, OracleError> {
        let tree = LabelTree::new(kernel);
        let mut c = Compiler {
            tree: &tree,
            scopes: vec![Vec::new()],
            slots: 0,
            arrays: kernel
                .arrays()
                .map(|(name, space)| ArrayInfo {
                    name: name.to_string(),
                    space,
                })
                .collect(),
            stmts: Vec::new(),
            loops: Vec::new(),
        };
        let mut params = Vec::new();
        for (name, ty) in kernel.typed_scalars() {
            let slot = c.declare(name);
            params.push(ScalarParam {
                name: name.to_string(),
                ty,
                slot,
                used: false,
            });
        }
        let requires = kernel
            .requires
            .iter()
            .map(|e| c.expr(e, kernel.span))
            .collect::<Result<Vec<_>, _>>()?;
        let body = c.block(&kernel.body.stmts)?;
        let mut prog = Program {
            slots: c.slots,
            params,
            arrays: c.arrays,
            requires,
            body,
            stmts: c.stmts,
            seeds_matter: false,
        };
        prog.mark_used_params();
        prog.seeds_matter = prog.arbitrary_values_matter();
        Ok(prog)
    }

    fn mark_used_params(&mut self) {
        let mut used = vec![false; self.slots];
        let mut note = |e: &CExpr| {
            e.any(&mut |x| {
                if let CExpr::Var(s) = x {
                    used[*s] = true;
                }
                false
            });
        };
        self.requires.iter().for_each(&mut note);
        for_each_expr(&self.body, &mut note);
        for p in &mut self.params {
            p.used = used[p.slot];
        }
    }

    /// A flow-insensitive taint analysis: which slots may hold an arbitrary value, and
    /// does one of them (or a division by zero) reach a branch condition, an `assume`
    /// or an index? Values that are only stored to memory do not change which accesses
    /// happen, so then one memory seed is as good as many.
    fn arbitrary_values_matter(&self) -> bool {
        let mut tainted = vec![false; self.slots];
        loop {
            let mut changed = false;
            taint_block(&self.body, &mut tainted, &mut changed);
            if !changed {
                break;
            }
        }
        let bad = |e: &CExpr| e.may_divide_by_zero() || e.reads_slot(&|s| tainted[s]);
        let mut matters = false;
        visit_control(&self.body, &mut |e| matters |= bad(e));
        matters
    }
}

/// Calls `f` on every expression of the statements.
fn for_each_expr(stmts: &[CStmt], f: &mut impl FnMut(&CExpr)) {
    for s in stmts {
        match &s.kind {
            CKind::Assign { value, .. } => f(value),
            CKind::Arbitrary { .. }
            | CKind::Barrier
            | CKind::WarpBarrier
            | CKind::Nop
            | CKind::GridBarrier
            | CKind::Return
            | CKind::Break
            | CKind::Continue => {}
            CKind::Read { index, .. } => f(index),
            CKind::Write { index, value, .. } | CKind::Atomic { index, value, .. } => {
                f(index);
                f(value);
            }
            CKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                f(cond);
                for_each_expr(then_blk, f);
                for_each_expr(else_blk, f);
            }
            CKind::Loop(l) => {
                if let Some((_, init, step)) = &l.var {
                    f(init);
                    f(step);
                }
                f(&l.cond);
                for_each_expr(&l.body, f);
            }
            CKind::Assume(e) => f(e),
        }
    }
}

/// Calls `f` on the expressions that decide control flow or addresses.
fn visit_control(stmts: &[CStmt], f: &mut impl FnMut(&CExpr)) {
    for s in stmts {
        match &s.kind {
            CKind::Read { index, .. } | CKind::Write { index, .. } | CKind::Atomic { index, .. } => f(index),
            CKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                f(cond);
                visit_control(then_blk, f);
                visit_control(else_blk, f);
            }
            CKind::Loop(l) => {
                f(&l.cond);
                visit_control(&l.body, f);
            }
            CKind::Assume(e) => f(e),
            _ => {}
        }
    }
}

fn taint_block(stmts: &[CStmt], tainted: &mut [bool], changed: &mut bool) {
    let is_tainted = |e: &CExpr, tainted: &[bool]| e.may_divide_by_zero() || e.reads_slot(&|x| tainted[x]);
    for s in stmts {
        let (slot, t) = match &s.kind {
            CKind::Assign { slot, value } => (*slot, is_tainted(value, tainted)),
            CKind::Arbitrary { slot, .. } | CKind::Read { slot, .. } => (*slot, true),
            CKind::Atomic { slot: Some(slot), .. } => (*slot, true),
            CKind::Loop(l) => {
                taint_block(&l.body, tainted, changed);
                match &l.var {
                    Some((slot, init, step)) => {
                        (*slot, is_tainted(init, tainted) || is_tainted(step, tainted))
                    }
                    None => continue,
                }
            }
            CKind::If {
                then_blk, else_blk, ..
            } => {
                taint_block(then_blk, tainted, changed);
                taint_block(else_blk, tainted, changed);
                continue;
            }
            _ => continue,
        };
        if t && !tainted[slot] {
            tainted[slot] = true;
            *changed = true;
        }
    }
}

struct Compiler<'t> {
    tree: &'t LabelTree,
    scopes: Vec<Vec<(String, Slot)>>,
    slots: usize,
    arrays: Vec<ArrayInfo>,
    stmts: Vec<StmtInfo>,
    /// The loops around the statement being compiled.
    loops: Vec<StmtIx>,
}

impl Compiler<'_> {
    fn declare(&mut self, name: &str) -> Slot {
        let slot = self.slots;
        self.slots += 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), slot));
        }
        slot
    }

    fn lookup(&self, name: &str, span: Span) -> Result<Slot, OracleError> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, slot)| *slot)
            .ok_or_else(|| OracleError::Unsupported {
                what: format!("unknown variable `{name}`"),
                span,
            })
    }

    fn array(&self, name: &str, span: Span) -> Result<u32, OracleError> {
        self.arrays
            .iter()
            .position(|a| a.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| OracleError::Unsupported {
                what: format!("unknown array `{name}`"),
                span,
            })
    }

    fn expr(&self, e: &Expr, span: Span) -> Result<CExpr, OracleError> {
        Ok(match e {
            Expr::Int(v) => CExpr::Const(*v),
            Expr::Var(name) => CExpr::Var(self.lookup(name, span)?),
            Expr::Builtin(b) => CExpr::Builtin(*b),
            Expr::Unary(op, a) => CExpr::Unary(*op, Box::new(self.expr(a, span)?)),
            Expr::Cast(ty, a) => CExpr::Cast(*ty, Box::new(self.expr(a, span)?)),
            Expr::Other(a) => CExpr::Other(Box::new(self.expr(a, span)?)),
            Expr::Binary(op, a, b) => {
                CExpr::Binary(*op, Box::new(self.expr(a, span)?), Box::new(self.expr(b, span)?))
            }
            Expr::Apply(f, args) => CExpr::Apply(
                super::exec::function_seed(f),
                args.iter()
                    .map(|a| self.expr(a, span))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<CStmt>, OracleError> {
        self.scopes.push(Vec::new());
        let out = stmts.iter().map(|s| self.stmt(s)).collect();
        self.scopes.pop();
        out
    }

    fn stmt(&mut self, s: &Stmt) -> Result<CStmt, OracleError> {
        let ix = self.stmts.len() as StmtIx;
        let access = match s.kind {
            StmtKind::Read { .. } => Some(AccessKind::Read),
            StmtKind::Write { .. } => Some(AccessKind::Write),
            StmtKind::Atomic { .. } => Some(AccessKind::Atomic),
            _ => None,
        };
        self.stmts.push(StmtInfo {
            id: s.id,
            span: s.span,
            post: self
                .tree
                .label_of(s.id)
                .map_or(u32::MAX, |l| self.tree.node(l).post),
            loops: self.loops.clone(),
            access,
            ticket: matches!(s.kind, StmtKind::TicketBarrier),
        });
        let sp = s.span;
        let kind = match &s.kind {
            StmtKind::Local { var, init } => {
                let value = init.as_ref().map(|e| self.expr(e, sp)).transpose()?;
                let slot = self.declare(var);
                match value {
                    Some(value) => CKind::Assign { slot, value },
                    None => CKind::Arbitrary { slot, warp: false },
                }
            }
            StmtKind::Assign { var, value } => CKind::Assign {
                value: self.expr(value, sp)?,
                slot: self.lookup(var, sp)?,
            },
            StmtKind::Havoc { var, warp } => CKind::Arbitrary {
                slot: self.lookup(var, sp)?,
                warp: *warp,
            },
            StmtKind::Read {
                var,
                array,
                index,
                ty,
            } => CKind::Read {
                array: self.array(array, sp)?,
                index: self.expr(index, sp)?,
                slot: self.lookup(var, sp)?,
                ty: *ty,
            },
            StmtKind::Write { array, index, value } => CKind::Write {
                array: self.array(array, sp)?,
                index: self.expr(index, sp)?,
                value: self.expr(value, sp)?,
            },
            StmtKind::Atomic {
                var,
                op,
                array,
                index,
                value,
                ty,
            } => CKind::Atomic {
                array: self.array(array, sp)?,
                index: self.expr(index, sp)?,
                value: self.expr(value, sp)?,
                slot: var.as_ref().map(|v| self.lookup(v, sp)).transpose()?,
                op: *op,
                ty: *ty,
            },
            StmtKind::Barrier => CKind::Barrier,
            StmtKind::WarpBarrier => CKind::WarpBarrier,
            StmtKind::GridBarrier | StmtKind::TicketBarrier => CKind::GridBarrier,
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => CKind::If {
                cond: self.expr(cond, sp)?,
                then_blk: self.block(&then_blk.stmts)?,
                else_blk: match else_blk {
                    Some(b) => self.block(&b.stmts)?,
                    None => Vec::new(),
                },
            },
            StmtKind::While { cond, body } => {
                let cond = self.expr(cond, sp)?;
                let body = self.loop_body(ix, &body.stmts)?;
                CKind::Loop(Box::new(CLoop {
                    var: None,
                    cond,
                    body,
                }))
            }
            StmtKind::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let init = self.expr(init, sp)?;
                // The loop variable is visible in the header and the body only.
                self.scopes.push(Vec::new());
                let slot = self.declare(var);
                let cond = self.expr(cond, sp);
                let step = self.expr(step, sp);
                let body = self.loop_body(ix, &body.stmts);
                self.scopes.pop();
                CKind::Loop(Box::new(CLoop {
                    var: Some((slot, init, step?)),
                    cond: cond?,
                    body: body?,
                }))
            }
            StmtKind::Assume(e) => CKind::Assume(self.expr(e, sp)?),
            StmtKind::Invariant(_) => CKind::Nop,
            StmtKind::Return => CKind::Return,
            StmtKind::Break => CKind::Break,
            StmtKind::Continue => CKind::Continue,
        };
        Ok(CStmt { ix, kind })
    }

    fn loop_body(&mut self, ix: StmtIx, stmts: &[Stmt]) -> Result<Vec<CStmt>, OracleError> {
        self.loops.push(ix);
        let body = self.block(stmts);
        self.loops.pop();
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(src: &str) -> Program {
        let k = kpl::parse(src).expect("parses").remove(0);
        Program::compile(&k).expect("compiles")
    }

    #[test]
    fn seeds_do_not_matter_when_reads_only_flow_to_stored_values() {
        let p = compile("kernel k(shared A[]) { local x; x = A[tid + 1]; A[tid] = x; }");
        assert!(!p.seeds_matter);
    }

    #[test]
    fn seeds_matter_for_data_dependent_indices_and_branches() {
        let p = compile("kernel k(shared A[]) { local x; x = A[tid]; local y = x + 1; A[y] = 1; }");
        assert!(p.seeds_matter);
        let p = compile("kernel k(shared A[]) { local x; havoc x; if (x > 2) { A[0] = 1; } }");
        assert!(p.seeds_matter);
        let p = compile("kernel k(shared A[], n) { A[tid / n] = 1; }");
        assert!(p.seeds_matter, "tid / 0 is arbitrary");
    }

    #[test]
    fn loops_and_params_are_recorded() {
        let p = compile(
            "kernel k(shared A[], n, unused) {
    for (i = 0; i < n; i = i + 1) {
        while (i < 2) {
            A[i] = 1;
        }
    }
}",
        );
        let write = p
            .stmts
            .iter()
            .find(|s| s.access == Some(AccessKind::Write))
            .expect("write");
        assert_eq!(write.loops, vec![0, 1]);
        assert_eq!(p.params.iter().map(|p| p.used).collect::<Vec<_>>(), [true, false]);
    }
}
