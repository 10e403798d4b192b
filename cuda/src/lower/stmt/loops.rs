//! Loops: `while`, `do` and `for` to KPL `for` or `while`, with the condition's
//! statements at the top of the body and `if (!c) break;` where the source body starts
//! (see the module `stmt`).

use tree_sitter::Node;

use super::{assigned_names, binds, contains};
use crate::lower::expr::strip_parens;
use crate::lower::fold;
use crate::lower::in_flight::Counted;
use crate::lower::{Lowerer, R, Ret, V, VarKind};
use crate::program::Program;
use kpl::ir::{Block, Expr, Place, Stmt, StmtKind};

/// Whether a body assigns (or increments, or takes the address of) a name.
fn assigns(prog: &Program, body: Node, name: &str) -> bool {
    assigned_names(prog, body).contains(name)
}

/// The `invariant` statements at the front of a loop condition's statements
/// (`__invariant(e), c`), and the others.
fn invariants_first(stmts: Vec<Stmt>) -> (Vec<Stmt>, Vec<Stmt>) {
    let n = stmts
        .iter()
        .take_while(|s| matches!(s.kind, StmtKind::Invariant(_)))
        .count();
    let mut invs = stmts;
    let rest = invs.split_off(n);
    (invs, rest)
}

impl<'p, 't> Lowerer<'p, 't> {
    /// `if (!c) break;` at the top of a desugared loop body, where the source body
    /// starts.
    fn exit_unless(&self, c: Expr, body: &Block, span: kpl::ir::Span) -> Stmt {
        let brk = self.made_stmt(StmtKind::Break, span);
        let mut s = self.made_stmt(
            StmtKind::If {
                cond: fold::not(c),
                then_blk: self.made_block(vec![brk], span),
                else_blk: None,
            },
            span,
        );
        if body.top {
            s.place = Place::BlockTop;
        }
        s
    }

    /// A loop's body; `counted` when the loop is `for (v = init; ..; v += c)`, whose
    /// iterations may leave an asynchronous copy in flight for the next one (`in_flight`).
    fn loop_body(&mut self, body: Node<'t>, counted: Option<Counted>) -> R<Block> {
        self.frame_mut().loops += 1;
        let twins = self.carry_into(body.id(), counted.as_ref());
        let mark = self.copies.mark(self.block_ids.len());
        let r = self.body_block(body);
        self.frame_mut().loops -= 1;
        let mut blk = r?;
        if let Err(what) = self.carry_out(body.id(), mark, twins, &mut blk, counted.as_ref()) {
            return Err(self.unsupported(
                body,
                what,
                "autosync follows a copy from its call to its wait, within one iteration or into the next \
                 iteration of a `for` loop over a counter",
            ));
        }
        Ok(blk)
    }

    pub(super) fn while_stmt(&mut self, n: Node<'t>) -> R<()> {
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(n, "while", ""))?;
        let body = n
            .child_by_field_name("body")
            .ok_or_else(|| self.unsupported(n, "while", ""))?;
        self.push_scope();
        let span = self.span(n);
        let r = (|| -> R<()> {
            let (cond, cstmts) = self.in_block(|l| {
                let c = l.condition(c)?;
                l.cond_expr(c)
            })?;
            if cstmts.is_empty() && fold::int(&cond) == Some(0) {
                return Ok(());
            }
            let mut blk = self.loop_body(body, None)?;
            let (invs, rest) = invariants_first(cstmts);
            if rest.is_empty() {
                // `while (__invariant(e), c)`: the invariants go to the top of the body.
                blk.stmts.splice(0..0, invs);
                self.emit(StmtKind::While { cond, body: blk }, span);
                return Ok(());
            }
            let cstmts: Vec<Stmt> = invs.into_iter().chain(rest).collect();
            let mut stmts = cstmts;
            stmts.push(self.exit_unless(cond, &blk, span));
            stmts.append(&mut blk.stmts);
            blk.stmts = stmts;
            blk.top = false;
            self.emit(
                StmtKind::While {
                    cond: Expr::Int(1),
                    body: blk,
                },
                span,
            );
            Ok(())
        })();
        self.pop_scope();
        r
    }

    /// Returns false for `do { ... } while (0)`, whose body is lowered in place.
    pub(super) fn do_stmt(&mut self, n: Node<'t>) -> R<bool> {
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(n, "do", ""))?;
        let body = n
            .child_by_field_name("body")
            .ok_or_else(|| self.unsupported(n, "do", ""))?;
        let span = self.span(n);
        let has_continue = binds(body, "continue_statement", true);
        let mut blk = self.loop_body(body, None)?;
        let (cond, mut cstmts) = self.in_block(|l| l.cond_expr(strip_parens(c)))?;
        // Jumps out of the body (`goto`, early `return`s of inlined functions) may
        // `break`, which needs the loop.
        let jumps = contains(body, "goto_statement")
            || (matches!(self.frame().ret, Ret::Flag { .. }) && contains(body, "return_statement"));
        if fold::int(&cond) == Some(0)
            && cstmts.is_empty()
            && !has_continue
            && !jumps
            && !binds(body, "break_statement", false)
        {
            // `do { ... } while (0)`: the body, once.
            self.extend(blk.stmts);
            return Ok(false);
        }
        if !has_continue {
            let brk = self.made_stmt(StmtKind::Break, span);
            cstmts.push(self.made_stmt(
                StmtKind::If {
                    cond: fold::not(cond),
                    then_blk: self.made_block(vec![brk], span),
                    else_blk: None,
                },
                span,
            ));
            blk.stmts.append(&mut cstmts);
        } else {
            // `continue` goes to the condition: evaluate it at the top from the second
            // iteration on.
            let first = self.mutable_local("_first", Some(Expr::Int(1)), span);
            let brk = self.made_stmt(StmtKind::Break, span);
            cstmts.push(self.made_stmt(
                StmtKind::If {
                    cond: fold::not(cond),
                    then_blk: self.made_block(vec![brk], span),
                    else_blk: None,
                },
                span,
            ));
            let check = self.made_stmt(
                StmtKind::If {
                    cond: fold::not(Expr::Var(first.clone())),
                    then_blk: self.made_block(cstmts, span),
                    else_blk: None,
                },
                span,
            );
            let mut clear = self.made_stmt(
                StmtKind::Assign {
                    var: first,
                    value: Expr::Int(0),
                },
                span,
            );
            if blk.top {
                clear.place = Place::BlockTop;
            }
            let mut stmts = vec![check, clear];
            stmts.append(&mut blk.stmts);
            blk.stmts = stmts;
            blk.top = false;
        }
        self.emit(
            StmtKind::While {
                cond: Expr::Int(1),
                body: blk,
            },
            span,
        );
        Ok(true)
    }

    pub(super) fn for_stmt(&mut self, n: Node<'t>) -> R<()> {
        self.push_scope();
        let r = match self.simple_for(n)? {
            true => Ok(()),
            false => {
                self.pop_scope();
                self.push_scope();
                self.general_for(n)
            }
        };
        self.pop_scope();
        r
    }

    /// `for (int i = e; c; i = s) body` as a KPL `for`, when it has that shape.
    fn simple_for(&mut self, n: Node<'t>) -> R<bool> {
        let span = self.span(n);
        let (Some(init), Some(update), Some(body)) = (
            n.child_by_field_name("initializer"),
            n.child_by_field_name("update"),
            n.child_by_field_name("body"),
        ) else {
            return Ok(false);
        };
        if init.kind() != "declaration" {
            return Ok(false);
        }
        let ds: Vec<Node> = {
            let mut c = init.walk();
            init.children_by_field_name("declarator", &mut c).collect()
        };
        let [d] = ds.as_slice() else {
            return Ok(false);
        };
        let Some(ty_node) = init.child_by_field_name("type") else {
            return Ok(false);
        };
        let decl = self.declared(ty_node, Some(*d))?;
        let (Some(name), true, Some(value)) = (
            decl.name.clone(),
            decl.ty.is_int(),
            d.child_by_field_name("value"),
        ) else {
            return Ok(false);
        };
        if self.quals(init).shared || assigns(self.prog, body, &name) {
            return Ok(false);
        }
        let updated = match update.kind() {
            "update_expression" | "assignment_expression" => {
                let target = update
                    .child_by_field_name("argument")
                    .or_else(|| update.child_by_field_name("left"));
                target.is_some_and(|t| t.kind() == "identifier" && self.text(t) == name)
            }
            _ => false,
        };
        if !updated {
            return Ok(false);
        }
        let (v, istmts) = self.in_block(|l| l.rvalue(value))?;
        let V::Int(init_e) = v.v else { return Ok(false) };
        if !istmts.is_empty() {
            return Ok(false);
        }
        let var = self.fresh(&name);
        self.mutable.insert(var.clone());
        self.add_var(&name, decl.ty.clone(), VarKind::Int(var.clone()));
        let (cond, cstmts) = match n.child_by_field_name("condition") {
            Some(c) => self.in_block(|l| l.cond_expr(c))?,
            None => (Expr::Int(1), Vec::new()),
        };
        let (invs, rest) = invariants_first(cstmts);
        if !rest.is_empty() {
            return Ok(false);
        }
        let ((), sstmts) = self.in_block(|l| l.rvalue(update).map(|_| ()))?;
        let step = match sstmts.as_slice() {
            [
                Stmt {
                    kind: StmtKind::Assign { var: v, value },
                    ..
                },
            ] if *v == var => value.clone(),
            _ => return Ok(false),
        };
        let counted = Counted::of(&var, &init_e, &step);
        let mut blk = self.loop_body(body, counted)?;
        // `for (..; __invariant(e), c; ..)`: the invariants go to the top of the body.
        blk.stmts.splice(0..0, invs);
        self.emit(
            StmtKind::For {
                var,
                init: init_e,
                cond,
                step,
                body: blk,
            },
            span,
        );
        Ok(true)
    }

    fn general_for(&mut self, n: Node<'t>) -> R<()> {
        let span = self.span(n);
        let body = n
            .child_by_field_name("body")
            .ok_or_else(|| self.unsupported(n, "for", ""))?;
        if let Some(init) = n.child_by_field_name("initializer") {
            if init.kind() == "declaration" {
                self.declaration(init)?;
            } else {
                self.rvalue(init)?;
            }
        }
        let (cond, cstmts) = match n.child_by_field_name("condition") {
            Some(c) => self.in_block(|l| l.cond_expr(c))?,
            None => (Expr::Int(1), Vec::new()),
        };
        if cstmts.is_empty() && fold::int(&cond) == Some(0) {
            return Ok(());
        }
        let has_continue = binds(body, "continue_statement", true);
        let mut blk = self.loop_body(body, None)?;
        let (invs, rest) = invariants_first(cstmts);
        let cstmts = if rest.is_empty() {
            blk.stmts.splice(0..0, invs);
            rest
        } else {
            invs.into_iter().chain(rest).collect()
        };
        let ((), mut ustmts) = match n.child_by_field_name("update") {
            Some(u) => self.in_block(|l| l.rvalue(u).map(|_| ()))?,
            None => ((), Vec::new()),
        };
        if !has_continue {
            if cstmts.is_empty() {
                blk.stmts.append(&mut ustmts);
                self.emit(StmtKind::While { cond, body: blk }, span);
            } else {
                let mut stmts = cstmts;
                stmts.push(self.exit_unless(cond, &blk, span));
                stmts.append(&mut blk.stmts);
                stmts.append(&mut ustmts);
                blk.stmts = stmts;
                blk.top = false;
                self.emit(
                    StmtKind::While {
                        cond: Expr::Int(1),
                        body: blk,
                    },
                    span,
                );
            }
            return Ok(());
        }
        // `continue` must still run the update: do it at the top from the second
        // iteration on, then test the condition.
        let first = self.mutable_local("_first", Some(Expr::Int(1)), span);
        let check = self.made_stmt(
            StmtKind::If {
                cond: fold::not(Expr::Var(first.clone())),
                then_blk: self.made_block(ustmts, span),
                else_blk: None,
            },
            span,
        );
        let mut clear = self.made_stmt(
            StmtKind::Assign {
                var: first,
                value: Expr::Int(0),
            },
            span,
        );
        let mut stmts = vec![check];
        if cstmts.is_empty() && fold::int(&cond).is_some_and(|c| c != 0) {
            if blk.top {
                clear.place = Place::BlockTop;
            }
            stmts.push(clear);
        } else {
            stmts.push(clear);
            stmts.extend(cstmts);
            stmts.push(self.exit_unless(cond, &blk, span));
        }
        stmts.append(&mut blk.stmts);
        blk.stmts = stmts;
        blk.top = false;
        self.emit(
            StmtKind::While {
                cond: Expr::Int(1),
                body: blk,
            },
            span,
        );
        Ok(())
    }
}
