//! Statements: declarations, control flow (with the places barriers can go), and the
//! kernel's parameters.
//!
//! Loops map to KPL `for` when they have the shape `for (int i = e; c; i = s)` with a
//! pure condition and step and a body that leaves `i` alone, and to `while` otherwise.
//! A condition that needs statements (a memory read, a call) is evaluated at the top
//! of the KPL loop body, followed by `if (!c) break;`, which is where the source body
//! starts (its place is [`Place::BlockTop`]). Loops whose `continue` must still run the
//! step or the condition get a `first` flag. `switch` (module `switch`) becomes an `if`
//! chain when no case falls through, a chain of cases guarded by an "entered" flag when
//! every `break` ends its case, else a one-iteration `while` that `break` leaves.

mod butterfly;
mod device_ptr;
mod jumps;
mod misparse;
mod switch;

pub(super) use jumps::GotoTarget;

use std::collections::HashSet;

use tree_sitter::Node;

use super::expr::strip_parens;
use super::fold;
use super::in_flight::Counted;
use super::{ArrayKey, ArraySpace, LVal, Lowerer, Offset, R, Ret, Target, V, Value, VarKind};
use crate::program::{FuncDef, Program, declarator_name, named_children};
use crate::types::Ty;
use kpl::ir::{Block, Expr, Param, Place, Stmt, StmtKind};

/// Named children that are not comments.
pub(super) fn items(n: Node) -> Vec<Node> {
    named_children(n)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// C++ names a function body assigns, increments or takes the address of.
pub(super) fn assigned_names(prog: &Program, body: Node) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "assignment_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    root_name(prog, l, &mut out);
                }
            }
            "update_expression" => {
                if let Some(a) = n.child_by_field_name("argument") {
                    root_name(prog, a, &mut out);
                }
            }
            // Inline PTX writes its output operands.
            "gnu_asm_output_operand" => {
                if let Some(v) = n.child_by_field_name("value") {
                    root_name(prog, v, &mut out);
                }
            }
            "pointer_expression" if prog.text(n).trim_start().starts_with('&') => {
                if let Some(a) = n.child_by_field_name("argument") {
                    root_name(prog, a, &mut out);
                }
            }
            // `T &r = x;`: assignments to `r` change `x`.
            "init_declarator"
                if n.child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "reference_declarator") =>
            {
                if let Some(v) = n.child_by_field_name("value") {
                    root_name(prog, v, &mut out);
                }
            }
            "call_expression" => {
                // Arguments passed to reference parameters.
                let callee = n
                    .child_by_field_name("function")
                    .map(|f| crate::program::last_name(f, prog.src));
                let args = n.child_by_field_name("arguments").map(items).unwrap_or_default();
                if let Some(name) = callee {
                    for &fi in prog.funcs_by_name.get(&name).into_iter().flatten() {
                        for (i, p) in prog.funcs[fi].params().iter().enumerate() {
                            if prog.text(*p).contains('&')
                                && let Some(a) = args.get(i)
                            {
                                root_name(prog, *a, &mut out);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        stack.extend(named_children(n));
    }
    out
}

/// The variable an assignment changes (`x`, `v.x`; not `p` in `p[i] = ...`).
fn root_name(prog: &Program, n: Node, out: &mut HashSet<String>) {
    let n = strip_parens(n);
    match n.kind() {
        "identifier" => {
            out.insert(prog.text(n).to_string());
        }
        "field_expression"
            if n.child_by_field_name("operator")
                .is_some_and(|o| prog.text(o) == ".") =>
        {
            if let Some(a) = n.child_by_field_name("argument") {
                root_name(prog, a, out);
            }
        }
        _ => {}
    }
}

/// Whether a statement contains `kind` (not counting nested functions).
fn contains(n: Node, kind: &str) -> bool {
    n.kind() == kind || named_children(n).into_iter().any(|c| contains(c, kind))
}

/// Whether a loop body has a `break`/`continue` that binds to the loop itself.
fn binds(n: Node, kind: &str, in_switch_too: bool) -> bool {
    named_children(n).into_iter().any(|c| match c.kind() {
        k if k == kind => true,
        "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => false,
        "switch_statement" if !in_switch_too => false,
        _ => binds(c, kind, in_switch_too),
    })
}

fn is_loop_like(n: Node) -> bool {
    matches!(
        n.kind(),
        "for_statement" | "while_statement" | "do_statement" | "switch_statement"
    )
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The statements of a `{ ... }` in a new scope.
    pub fn compound_items(&mut self, block: Node<'t>) -> R<()> {
        self.push_scope();
        let list = items(block);
        let r = self.stmt_list(&list);
        self.pop_scope();
        r
    }

    /// The statements of a list; jumps out of them (forward `goto`, early `return`s
    /// of inlined functions) skip the rest (module `jumps`).
    fn stmt_list(&mut self, list: &[Node<'t>]) -> R<()> {
        self.jump_list(list)
    }

    /// One statement; the KPL statements it becomes get their places.
    pub fn stmt(&mut self, n: Node<'t>) -> R<()> {
        let start = self.mark();
        match n.kind() {
            "compound_statement" => return self.compound_items(n),
            "expression_statement" => {
                if let Some(e) = items(n).into_iter().next()
                    && !self.misparsed_declaration(e)?
                {
                    // `SYNC;`: a name alone is a statement only as a macro, whose
                    // expansion (a barrier? a store?) is unknown.
                    if e.kind() == "identifier" && self.names_nothing(self.text(e), e)? {
                        return Err(self.unsupported(
                            e,
                            "a statement that is only a name nothing declares (a macro of a header that was not read?)",
                            "pass the header's folder with -I, or define the macro with -D",
                        ));
                    }
                    // A call whose result nobody uses.
                    self.discard = e.kind() == "call_expression";
                    self.rvalue(e)?;
                    self.discard = false;
                }
            }
            "declaration" => self.declaration(n)?,
            // A branch or body lowered in place keeps the places of its own statements.
            "if_statement" => {
                if !self.if_stmt(n)? {
                    return Ok(());
                }
            }
            "while_statement" => self.while_stmt(n)?,
            "for_statement" => {
                self.for_stmt(n)?;
                self.after_butterfly(n);
            }
            "do_statement" => {
                if !self.do_stmt(n)? {
                    return Ok(());
                }
            }
            "switch_statement" => self.switch_stmt(n)?,
            "return_statement" => self.return_stmt(n)?,
            "break_statement" => {
                self.no_copy_in_flight(n, "`break`")?;
                self.emit(StmtKind::Break, self.span(n))
            }
            "continue_statement" => {
                self.no_copy_in_flight(n, "`continue`")?;
                self.emit(StmtKind::Continue, self.span(n))
            }
            "labeled_statement" | "attributed_statement" => {
                if let Some(s) = items(n)
                    .into_iter()
                    .rev()
                    .find(|c| c.kind() != "statement_identifier")
                {
                    return self.stmt(s);
                }
            }
            "type_definition" => {
                if let Some(t) = n.child_by_field_name("type") {
                    let mut c = n.walk();
                    let ds: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                    for d in ds {
                        let decl = self.declared(t, Some(d))?;
                        if let Some(name) = decl.name {
                            self.add_alias(&name, decl.ty);
                        }
                    }
                }
            }
            "alias_declaration" => {
                if let (Some(name), Some(t)) = (n.child_by_field_name("name"), n.child_by_field_name("type"))
                {
                    let ty = self.type_descriptor(t)?;
                    let name = self.text(name).to_string();
                    self.add_alias(&name, ty);
                }
            }
            "static_assert_declaration"
            | "using_declaration"
            | "namespace_alias_definition"
            | "empty_statement" => {}
            "struct_specifier" | "class_specifier" | "enum_specifier" | "union_specifier" => {}
            // No place: a barrier after a `goto` is never reached.
            "goto_statement" => {
                self.no_copy_in_flight(n, "`goto`")?;
                return self.goto_stmt(n);
            }
            "for_range_loop" => {
                return Err(self.unsupported(n, "range-based `for`", "write an index loop"));
            }
            "try_statement" | "throw_statement" => return Err(self.unsupported(n, "exceptions", "")),
            "co_return_statement" | "co_yield_statement" => {
                return Err(self.unsupported(n, "coroutines", ""));
            }
            "case_statement" => {
                return Err(self.unsupported(n, "`case` outside a `switch` body", ""));
            }
            other => return Err(self.unsupported(n, &format!("statement `{other}`"), "")),
        }
        self.finalize(start, n);
        Ok(())
    }

    /// A block from a loop or branch body: braces, or a single statement.
    pub fn body_block(&mut self, n: Node<'t>) -> R<Block> {
        let span = self.span(n);
        if n.kind() == "compound_statement" {
            let top = self.placeable()
                && self
                    .prog
                    .map
                    .main_range(n.start_byte()..n.start_byte() + 1)
                    .is_some();
            let ((), stmts) = self.in_block(|l| l.compound_items(n))?;
            return Ok(Block {
                stmts,
                span,
                braces: true,
                top,
            });
        }
        let exact = self.prog.map.main_range(n.byte_range()).is_some();
        let top = self.placeable() && exact;
        if !exact {
            self.unplaceable_blocks += 1;
        }
        let r = self.in_block(|l| {
            l.push_scope();
            let r = l.stmt(n);
            l.pop_scope();
            r
        });
        if !exact {
            self.unplaceable_blocks -= 1;
        }
        let ((), stmts) = r?;
        Ok(Block {
            stmts,
            span,
            braces: false,
            top,
        })
    }

    /// The expression of a `condition_clause` (declaring its variable, if any).
    fn condition(&mut self, c: Node<'t>) -> R<Node<'t>> {
        let c = if c.kind() == "condition_clause" {
            let mut value = c.child_by_field_name("value");
            if let Some(init) = c.child_by_field_name("initializer") {
                self.stmt(init)?;
            }
            if let Some(v) = value
                && v.kind() == "declaration"
            {
                self.declaration(v)?;
                let d = v
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d, self.prog.src));
                let Some(name) = d else {
                    return Err(self.unsupported(v, "condition", ""));
                };
                // The condition is the declared variable.
                let Some(id) = v.child_by_field_name("declarator") else {
                    return Err(self.unsupported(v, "condition", ""));
                };
                let _ = name;
                value = Some(id.child_by_field_name("declarator").unwrap_or(id));
            }
            value.ok_or_else(|| self.unsupported(c, "condition", ""))?
        } else {
            c
        };
        Ok(c)
    }

    fn cond_expr(&mut self, n: Node<'t>) -> R<Expr> {
        let v = self.rvalue(n)?;
        Ok(self.truth(v, n))
    }

    /// Returns false when the condition is constant and a branch was lowered in place.
    fn if_stmt(&mut self, n: Node<'t>) -> R<bool> {
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(n, "if", ""))?;
        self.push_scope();
        let r = self.if_inner(n, c);
        self.pop_scope();
        r
    }

    fn if_inner(&mut self, n: Node<'t>, c: Node<'t>) -> R<bool> {
        let c = self.condition(c)?;
        let cond = self.cond_expr(c)?;
        let then = n
            .child_by_field_name("consequence")
            .ok_or_else(|| self.unsupported(n, "if", ""))?;
        let alt = n.child_by_field_name("alternative").and_then(|e| {
            if e.kind() == "else_clause" {
                items(e).into_iter().next()
            } else {
                Some(e)
            }
        });
        if let Some(k) = fold::int(&cond) {
            // A condition fixed by constants or template arguments: only one branch exists.
            let live = if k != 0 { Some(then) } else { alt };
            if let Some(b) = live {
                self.push_scope();
                let r = self.stmt(b);
                self.pop_scope();
                r?;
            }
            return Ok(false);
        }
        // The then-block's number, for what is known to run in thread 0 (`in_flight`).
        self.copies.conditions.insert(self.blocks_made, cond.clone());
        let then_blk = self.body_block(then)?;
        let else_blk = match alt {
            Some(e) => Some(self.body_block(e)?),
            None => None,
        };
        self.emit(
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            },
            self.span(n),
        );
        Ok(true)
    }

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

    fn while_stmt(&mut self, n: Node<'t>) -> R<()> {
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
    fn do_stmt(&mut self, n: Node<'t>) -> R<bool> {
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

    fn for_stmt(&mut self, n: Node<'t>) -> R<()> {
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

    fn return_stmt(&mut self, n: Node<'t>) -> R<()> {
        // An early return of an inlined function guards the rest of the function (later
        // waits complete nothing for sure), but one inside a loop leaves the loop.
        let jumps = match self.frame().ret {
            Ret::Kernel => true,
            Ret::Last => false,
            Ret::Flag { .. } => self.frame().loops > 0,
        };
        if jumps {
            self.no_copy_in_flight(n, "`return`")?;
        }
        let value = items(n).into_iter().next();
        let span = self.span(n);
        match self.frame().ret.clone() {
            Ret::Kernel => {
                if let Some(v) = value {
                    self.rvalue(v)?;
                }
                self.emit(StmtKind::Return, span);
            }
            Ret::Last => {
                let v = match value {
                    // A function returning a reference returns the place.
                    Some(v) if self.frame().returns_ref => match self.expr(v)? {
                        super::expr::Ref::L(place) => {
                            self.frame_mut().ret_place = Some(place);
                            return Ok(());
                        }
                        super::expr::Ref::V(v) => v,
                    },
                    Some(v) => self.rvalue(v)?,
                    None => Value::void(),
                };
                self.frame_mut().ret_value = Some(v);
            }
            Ret::Flag { done, result } => {
                if let (Some(v), Some(r)) = (value, result) {
                    let val = self.rvalue(v)?;
                    self.write(&LVal::Var(r), val, n)?;
                } else if let Some(v) = value {
                    self.rvalue(v)?;
                }
                self.emit(
                    StmtKind::Assign {
                        var: done,
                        value: Expr::Int(1),
                    },
                    span,
                );
                if self.frame().loops > 0 {
                    self.emit(StmtKind::Break, span);
                }
            }
        }
        Ok(())
    }

    // ---- declarations ------------------------------------------------------------

    pub fn declaration(&mut self, n: Node<'t>) -> R<()> {
        let quals = self.quals(n);
        let Some(ty_node) = n.child_by_field_name("type") else {
            return Ok(());
        };
        let ds: Vec<Node> = {
            let mut c = n.walk();
            n.children_by_field_name("declarator", &mut c).collect()
        };
        for d in ds {
            let decl = self.declared(ty_node, Some(d))?;
            // `SHMEM unsigned s[64];` with `#define SHMEM __shared__` in a header that
            // was not read: an unknown type name may hide a storage class.
            if ty_node.kind() == "type_identifier" && matches!(self.base_type(ty_node)?, Ty::Opaque(_)) {
                self.undeclared_in_incomplete_file(self.text(ty_node), ty_node)?;
            }
            // `SHMEM unsigned s[64]` is not C++ (a type name before `unsigned`): a macro
            // autosync did not read, of a header it skipped.
            if ty_node.kind() == "sized_type_specifier"
                && let Some(t) = named_children(ty_node)
                    .into_iter()
                    .find(|c| c.kind() == "type_identifier")
            {
                return Err(self.unsupported(
                    t,
                    &format!(
                        "`{}` before a C++ type (a macro autosync did not read?)",
                        self.text(t)
                    ),
                    "pass the folder of the header that defines it with -I",
                ));
            }
            if decl.function {
                if crate::program::innermost_function_declarator(d).is_none() {
                    return Err(self.unsupported(d, "function pointers", "call the function directly"));
                }
                if let Some(args) = self.misread_constructor_args(d) {
                    self.declare_constructed(ty_node, d, &args, quals)?;
                }
                continue; // a prototype
            }
            let Some(name) = decl.name.clone() else { continue };
            let init = if d.kind() == "init_declarator" {
                d.child_by_field_name("value")
            } else {
                None
            };
            self.declare(&name, decl, quals, init, d)?;
        }
        Ok(())
    }

    /// `T obj(a, b);` with `a` and `b` naming variables: the parser, which does not know
    /// which names are types, reads a prototype; C++ reads an object constructed from
    /// them. The argument nodes (the "parameter types") when it is such an object.
    fn misread_constructor_args(&self, d: Node<'t>) -> Option<Vec<Node<'t>>> {
        let f = crate::program::innermost_function_declarator(d)?;
        let params = named_children(f.child_by_field_name("parameters")?);
        if params.is_empty() {
            return None;
        }
        params
            .into_iter()
            .map(|p| {
                let t = p.child_by_field_name("type")?;
                let name = self.text(t);
                let is_variable = t.kind() == "type_identifier"
                    && p.child_by_field_name("declarator").is_none()
                    && (self.lookup(name).is_some() || self.prog.globals.contains_key(name));
                is_variable.then_some(t)
            })
            .collect()
    }

    /// Declares the object of a misread `T obj(a, b);` and constructs it from its
    /// arguments, as `T obj = T(a, b);`.
    fn declare_constructed(
        &mut self,
        ty_node: Node<'t>,
        d: Node<'t>,
        args: &[Node<'t>],
        quals: super::types::Quals,
    ) -> R<()> {
        let Some(f) = crate::program::innermost_function_declarator(d) else {
            return Ok(());
        };
        let Some(name) = f
            .child_by_field_name("declarator")
            .map(|x| self.text(x).to_string())
        else {
            return Ok(());
        };
        let ty = self.base_type(ty_node)?;
        let value = self.construct(ty.clone(), args, d)?;
        let decl = super::types::Declared {
            ty,
            name: Some(name.clone()),
            reference: false,
            restrict: false,
            function: false,
        };
        self.declare(&name, decl, quals, None, d)?;
        if let Some(id) = self.lookup(&name) {
            self.write(&LVal::Var(id), value, d)?;
        }
        Ok(())
    }

    /// Declares one local `name` of the declared type, by what it declares: shared
    /// arrays and references by their qualifiers, the rest by its type.
    fn declare(
        &mut self,
        name: &str,
        decl: super::types::Declared,
        quals: super::types::Quals,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let ty = decl.ty.clone();
        if quals.shared {
            self.declare_shared(name, ty, quals.external, d);
            return Ok(());
        }
        if decl.reference {
            return self.declare_reference(name, ty, quals.constant_value, init, d);
        }
        match &ty {
            Ty::Opaque(a) if a == "auto" => self.declare_auto(name, &ty, init, d),
            Ty::Int { .. } | Ty::Bool => self.declare_int(name, ty, init, d),
            Ty::Float { .. } => self.declare_float(name, ty, init, d),
            Ty::Ptr(pointee) => {
                let unit = pointee.cell_bytes();
                self.declare_pointer(name, ty, unit, init, d)
            }
            Ty::Array(..) => self.declare_array(name, ty, quals.constant, init, d),
            Ty::Struct(_) => self.declare_struct(name, &ty, init, d),
            Ty::Texture => {
                self.add_var(name, ty, VarKind::Texture);
                Ok(())
            }
            _ => {
                // Anything else is opaque: its initializer still runs. A group never
                // assigned keeps the kind of group it is initialized with.
                let v = self.init_value(init, &ty)?;
                let assigned = self.frame().assigned.contains(name);
                let ty = match v {
                    Some(v) if !assigned => super::builtins::refine_group(&ty, &v.ty),
                    _ => ty.clone(),
                };
                self.add_var(name, ty, VarKind::Arb);
                Ok(())
            }
        }
    }

    /// A `__shared__` array (or scalar): one array of the block, per declaration (its
    /// size from the type), or the one `extern __shared__` array of unknown size that
    /// every such declaration names.
    fn declare_shared(&mut self, name: &str, ty: Ty, external: bool, d: Node<'t>) {
        let key = if external {
            ArrayKey::ExternShared
        } else {
            ArrayKey::Decl(d.start_byte())
        };
        let cell = ty.cell_bytes();
        let cells = (!external).then(|| ty.cells());
        let (a, base) = self.array_at(key, name, ArraySpace::Shared, cell, cells);
        let kind = self.array_var(a, base, &ty);
        self.add_var(name, ty, kind);
    }

    /// A reference: another name for the place its initializer denotes, or a copy when
    /// it binds a temporary (a const reference).
    fn declare_reference(
        &mut self,
        name: &str,
        ty: Ty,
        constant: bool,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let Some(init) = init else {
            return Err(self.unsupported(d, "a reference without initializer", ""));
        };
        // C++ makes `c ? x : y`, `(a, x)`, `x = v` and `++x` l-values that a reference
        // names; the lowering computes their values, so a copy would miss every later
        // write through the reference or to the variable it names.
        if matches!(
            strip_parens(init).kind(),
            "conditional_expression" | "comma_expression" | "assignment_expression" | "update_expression"
        ) {
            return Err(self.unsupported(
                init,
                "a reference bound to a conditional, comma, assignment or increment expression",
                "bind the reference to a variable or an element, or use a pointer",
            ));
        }
        let lv = match self.expr(init)? {
            super::expr::Ref::L(lv) => lv,
            // A call whose place is unknown (a function the file does not define that
            // returns a reference): writes through the reference could not be followed.
            super::expr::Ref::V(_) if !constant && strip_parens(init).kind() == "call_expression" => {
                return Err(self.unsupported(
                    init,
                    "a reference bound to the result of a call whose target autosync does not know",
                    "use a pointer, or a function defined in the file",
                ));
            }
            super::expr::Ref::V(v) => {
                // A const reference to a temporary: a copy.
                let id = self.new_var(name, &v.ty.clone(), self.span(d))?;
                self.write(&LVal::Var(id), v, d)?;
                return Ok(());
            }
        };
        self.add_var(name, ty, VarKind::Ref(lv));
        Ok(())
    }

    /// The value of an initializer converted to the declared type (`None` without
    /// one): `T v(args)` is a functional cast for a scalar and an arbitrary value for
    /// a constructor, `int x = {5}` is `5`.
    fn init_value(&mut self, init: Option<Node<'t>>, target_ty: &Ty) -> R<Option<Value>> {
        match init {
            None => Ok(None),
            Some(i) if i.kind() == "argument_list" => {
                // T v(args): a constructor (struct) or a functional cast (scalar).
                let args = items(i);
                let mut vals = Vec::new();
                for a in &args {
                    vals.push(self.rvalue(*a)?);
                }
                match (vals.len(), target_ty) {
                    (1, t) if t.as_struct().is_none() => {
                        let v = vals.pop().expect("one value");
                        self.initialize(v, target_ty, i).map(Some)
                    }
                    _ => Ok(Some(super::expr::arbitrary(target_ty))),
                }
            }
            Some(i) => {
                let v = self.rvalue(i)?;
                let v = match (&v.v, target_ty) {
                    // `int x = {5};`
                    (V::Struct(vals), t) if t.as_struct().is_none() && !t.is_array() && vals.len() == 1 => {
                        vals[0].clone()
                    }
                    _ => v,
                };
                self.initialize(v, target_ty, i).map(Some)
            }
        }
    }

    /// The value an object of type `ty` is initialized with: `v` converted, except that
    /// a group initialized with a group is the group it is (`thread_block_tile<32> w =
    /// tiled_partition<32>(block)` is a tile of the block, see `builtins::sync`).
    fn initialize(&mut self, v: Value, ty: &Ty, n: Node<'t>) -> R<Value> {
        let from = v.ty.clone();
        let mut out = self.convert(v, ty, n)?;
        if super::builtins::is_group(&ty.to_string()) && super::builtins::is_group(&from.to_string()) {
            out.ty = super::builtins::refine_group(ty, &from);
        }
        Ok(out)
    }

    /// `auto x = e`: a variable of the initializer's type.
    fn declare_auto(&mut self, name: &str, ty: &Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let Some(v) = self.init_value(init, ty)? else {
            return Err(self.unsupported(d, "`auto` without initializer", ""));
        };
        let vty = v.ty.clone();
        let id = self.new_var(name, &vty, self.span(d))?;
        self.write(&LVal::Var(id), v, d)
    }

    /// A floating-point variable: a KPL local holding its value's term (see
    /// `lower::float`), mutable only if the function assigns it.
    fn declare_float(&mut self, name: &str, ty: Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let assigned = self.frame().assigned.contains(name);
        let init = match self.init_value(init, &ty)?.map(|v| v.v) {
            Some(V::Float(e)) => Some(e),
            Some(V::Uniform) => Some(self.uniform_value()),
            _ => None,
        };
        let kpl = if assigned {
            self.mutable_local(name, init, span)
        } else {
            self.local(name, init, span)
        };
        self.add_var(name, ty, VarKind::Float(kpl));
        Ok(())
    }

    /// An integer (or `bool`): a KPL local (mutable only if the function assigns it),
    /// read straight from memory when initialized by a read, or no local at all when it
    /// is a constant never assigned.
    fn declare_int(&mut self, name: &str, ty: Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let assigned = self.frame().assigned.contains(name);
        let plain = init.filter(|i| !matches!(i.kind(), "argument_list" | "initializer_list"));
        let memory_read = plain.is_some_and(|i| {
            matches!(
                strip_parens(i).kind(),
                "subscript_expression" | "field_expression" | "pointer_expression"
            )
        });
        if let (Some(i), true) = (plain, memory_read) {
            return self.declare_int_read(name, ty, assigned, i, d);
        }
        let v = match plain {
            Some(i) => {
                let v = self.rvalue(i)?;
                Some(self.convert(v, &ty, d)?)
            }
            None => self.init_value(init, &ty)?,
        };
        match v.map(|v| v.v) {
            Some(V::Int(e)) if !assigned && fold::int(&e).is_some() => {
                // Never assigned and constant: no local needed.
                self.add_var(name, ty, VarKind::Fixed(e));
            }
            v => {
                let init = match v {
                    Some(V::Int(e)) => Some(e),
                    _ => None,
                };
                let kpl = if assigned {
                    self.mutable_local(name, init, span)
                } else {
                    self.local(name, init, span)
                };
                self.add_var(name, ty, VarKind::Int(kpl));
            }
        }
        Ok(())
    }

    /// `int x = A[i];`: the local is declared first and the read goes straight into
    /// it (no temporary), converted afterwards if the read gave another value.
    fn declare_int_read(&mut self, name: &str, ty: Ty, assigned: bool, i: Node<'t>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let kpl = self.fresh(name);
        if assigned {
            self.mutable.insert(kpl.clone());
        }
        let at = self.mark();
        self.emit(
            StmtKind::Local {
                var: kpl.clone(),
                init: None,
            },
            span,
        );
        let v = match self.read_into(i, &kpl)? {
            Some(v) => v,
            None => self.rvalue(i)?,
        };
        if !matches!(&v.v, V::Int(Expr::Var(x)) if *x == kpl) {
            let v = self.convert(v, &ty, d)?;
            self.set_init(at, &kpl, v, span);
        }
        self.add_var(name, ty, VarKind::Int(kpl));
        Ok(())
    }

    /// A pointer: its target and offset, the offset a fixed term when it is never
    /// assigned and stable, else a mutable local. `0` is the null pointer, another
    /// non-pointer an unknown target; uninitialized, its unit is `unit` (the pointee's
    /// cell size).
    fn declare_pointer(
        &mut self,
        name: &str,
        ty: Ty,
        unit: u32,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let v = self.init_value(init, &ty)?;
        let assigned = self.frame().assigned.contains(name);
        let (target, off, unit) = match v.map(|v| v.v) {
            Some(V::Ptr(p)) => (Some(p.target), Some(p.off), p.unit),
            Some(V::Int(e)) if fold::int(&e) == Some(0) => (Some(Target::Null), Some(Expr::Int(0)), 1),
            Some(_) => (Some(Target::Unknown), Some(Expr::Int(0)), 1),
            None => (None, None, unit),
        };
        let kind = match (&off, assigned) {
            (Some(o), false) if self.stable(o) => VarKind::Ptr {
                target,
                off: Offset::Fixed(o.clone()),
                unit,
            },
            _ => {
                let l = self.mutable_local(name, off, self.span(d));
                VarKind::Ptr {
                    target,
                    off: Offset::Local(l),
                    unit,
                }
            }
        };
        self.add_var(name, ty, kind);
        Ok(())
    }

    /// A local array: a private array of the thread, or a `__constant__` one (a
    /// declaration's own array). Its initializer is evaluated for its effects only.
    fn declare_array(
        &mut self,
        name: &str,
        ty: Ty,
        constant: bool,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        if let Some(i) = init {
            self.rvalue(i)?;
        }
        let (key, space) = if constant {
            (ArrayKey::Decl(d.start_byte()), ArraySpace::Constant)
        } else {
            (ArrayKey::Private(d.start_byte()), ArraySpace::Private)
        };
        let a = self.array(key, name, space, ty.cell_bytes());
        self.add_var(name, ty, VarKind::Array(Target::Array(a)));
        Ok(())
    }

    /// A struct: one variable per field. Initialized by an expression, the fields are
    /// declared first so that a load goes straight into them.
    fn declare_struct(&mut self, name: &str, ty: &Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        if let Some(i) = init.filter(|i| !matches!(i.kind(), "argument_list" | "initializer_list")) {
            // Declare the fields first, so a load goes straight into them.
            let id = self.new_var(name, ty, span)?;
            self.pop_var_binding(name);
            if !self.load_struct(id, i)? {
                let v = self.rvalue(i)?;
                let v = self.convert(v, ty, d)?;
                self.write(&LVal::Var(id), v, d)?;
            }
            self.bind_var(name, id);
            return Ok(());
        }
        let v = self.init_value(init, ty)?;
        let id = self.new_var(name, ty, span)?;
        if let Some(v) = v {
            self.write(&LVal::Var(id), v, d)?;
        }
        Ok(())
    }

    /// Sets the initial value of the local declared at `at` (or assigns it).
    fn set_init(&mut self, at: usize, kpl: &str, v: Value, span: kpl::ir::Span) {
        let last = self.mark() == at + 1;
        match v.v {
            V::Int(e) if last => {
                if let Some(Stmt {
                    kind: StmtKind::Local { init, .. },
                    ..
                }) = self.blocks.last_mut().and_then(|b| b.get_mut(at))
                {
                    *init = Some(e);
                }
            }
            V::Int(e) => self.emit(
                StmtKind::Assign {
                    var: kpl.to_string(),
                    value: e,
                },
                span,
            ),
            // `local x;` is already arbitrary, unless statements in between assigned it.
            _ if last => {}
            _ => self.emit(StmtKind::havoc(kpl.to_string()), span),
        }
    }

    /// A fresh C++ variable of a type (KPL locals for its integer parts).
    pub fn new_var(&mut self, name: &str, ty: &Ty, span: kpl::ir::Span) -> R<usize> {
        let kind = self.var_kind(name, ty, span);
        Ok(self.add_var(name, ty.clone(), kind))
    }

    fn var_kind(&mut self, name: &str, ty: &Ty, span: kpl::ir::Span) -> VarKind {
        match ty {
            Ty::Int { .. } | Ty::Bool => VarKind::Int(self.mutable_local(name, None, span)),
            Ty::Float { .. } => VarKind::Float(self.mutable_local(name, None, span)),
            Ty::Ptr(p) => {
                let l = self.mutable_local(name, None, span);
                VarKind::Ptr {
                    target: None,
                    off: Offset::Local(l),
                    unit: p.cell_bytes(),
                }
            }
            Ty::Struct(s) => {
                let mut fields = Vec::new();
                for (f, fty) in &s.fields {
                    let fname = format!("{name}_{f}");
                    let k = self.var_kind(&fname, fty, span);
                    fields.push(self.hidden_var(&fname, fty.clone(), k));
                }
                VarKind::Struct(fields)
            }
            Ty::Array(..) => {
                let a = self.array(
                    ArrayKey::Private(self.vars.len()),
                    name,
                    ArraySpace::Private,
                    ty.cell_bytes(),
                );
                VarKind::Array(Target::Array(a))
            }
            Ty::Texture => VarKind::Texture,
            _ => VarKind::Arb,
        }
    }

    /// Whether an expression reads only values that never change.
    pub fn stable(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.for_each_var(&mut |v| ok &= !self.mutable.contains(v));
        ok
    }

    // ---- kernel parameters -------------------------------------------------------

    pub fn kernel_params(&mut self, def: &FuncDef<'t>) -> R<()> {
        let mut decls = Vec::new();
        for (i, p) in def.params().into_iter().enumerate() {
            let Some(t) = p.child_by_field_name("type") else {
                continue;
            };
            let d = self.declared(t, p.child_by_field_name("declarator"))?;
            let name = d.name.clone().unwrap_or_else(|| format!("arg{i}"));
            decls.push((p, d, name));
        }
        let pointers: Vec<&str> = decls
            .iter()
            .filter(|(_, d, _)| d.ty.is_pointer_like() && !d.restrict)
            .map(|(_, _, n)| n.as_str())
            .collect();
        if pointers.len() >= 2 {
            if self.opts.alias {
                self.note(format!(
                    "--alias: the pointer parameters {} may alias each other and the `__device__` arrays (all \
                     are one byte-addressed array)",
                    pointers.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ));
            } else {
                self.note(format!(
                    "assuming the pointer parameters {} do not alias each other, as GPUVerify does; pass --alias to \
                     drop this assumption (or mark them __restrict__ to state it)",
                    pointers.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        let mut copies = Vec::new();
        for (p, d, name) in decls {
            let span = self.span(p);
            let assigned = self.frame().assigned.contains(&name);
            let ty = d.ty.clone();
            let kind = match &ty {
                Ty::Ptr(pointee) | Ty::Array(pointee, _) => {
                    let cell = pointee.cell_bytes();
                    let (a, base) = if self.opts.alias && !d.restrict {
                        self.aliased(&name)
                    } else {
                        let key = ArrayKey::Param(name.clone());
                        let merged = self.merge.contains(&key);
                        let n_arrays = self.arrays.len();
                        let (a, base) = self.array_at(key, &name, ArraySpace::Global, cell, None);
                        if !merged || self.arrays.len() > n_arrays {
                            let kpl = self.arrays[a].kpl.clone();
                            self.params.push(Param::Array {
                                name: kpl,
                                space: kpl::ir::Space::Global,
                            });
                        }
                        (a, base)
                    };
                    let unit = self.arrays[a].cell;
                    let off = if assigned {
                        let l = self.fresh(&name);
                        self.mutable.insert(l.clone());
                        copies.push(self.made_stmt(
                            StmtKind::Local {
                                var: l.clone(),
                                init: Some(base),
                            },
                            span,
                        ));
                        Offset::Local(l)
                    } else {
                        Offset::Fixed(base)
                    };
                    VarKind::Ptr {
                        target: Some(Target::Array(a)),
                        off,
                        unit,
                    }
                }
                Ty::Int { .. } | Ty::Bool => {
                    let range = match p.child_by_field_name("type").and_then(|t| self.enum_of(t)) {
                        Some(e) => self.enum_range(e),
                        None => None,
                    };
                    self.int_param(&name, &ty, range, assigned, span, &mut copies)
                }
                Ty::Struct(_) => self.struct_param(&name, &ty, assigned, span, &mut copies),
                Ty::Texture => VarKind::Texture,
                // One value per launch, whatever its type (a `float` scale factor).
                Ty::Float { .. } | Ty::Opaque(_) if !assigned => VarKind::Uniform,
                _ => VarKind::Arb,
            };
            self.add_var(&name, ty, kind);
        }
        // Copies of assigned parameters come before the body: a barrier after the last
        // one is at the top of the source body.
        if let Some(last) = copies.last_mut() {
            last.place = Place::BlockTop;
        }
        self.extend(copies);
        Ok(())
    }

    /// An integer kernel parameter: a scalar parameter of the KPL kernel of its C type
    /// (one value per launch, anywhere in the type, or in `range`: a `bool`'s 0 and 1, an
    /// unscoped enum's values), read through a local copy when the kernel assigns it
    /// (KPL parameters are read-only).
    fn int_param(
        &mut self,
        name: &str,
        ty: &Ty,
        range: Option<(i64, i64)>,
        assigned: bool,
        span: kpl::ir::Span,
        copies: &mut Vec<Stmt>,
    ) -> VarKind {
        let range = if *ty == Ty::Bool { Some((0, 1)) } else { range };
        let kpl = self.scalar_param(name, ty.int_ty().unwrap_or_default(), range);
        if !assigned {
            return VarKind::Int(kpl);
        }
        let l = self.fresh(name);
        self.mutable.insert(l.clone());
        copies.push(self.made_stmt(
            StmtKind::Local {
                var: l.clone(),
                init: Some(Expr::Var(kpl)),
            },
            span,
        ));
        VarKind::Int(l)
    }

    /// A struct passed by value to the kernel: its integers are scalar parameters, its
    /// pointers global arrays.
    fn struct_param(
        &mut self,
        name: &str,
        ty: &Ty,
        assigned: bool,
        span: kpl::ir::Span,
        copies: &mut Vec<Stmt>,
    ) -> VarKind {
        let Some(s) = ty.as_struct().cloned() else {
            return VarKind::Arb;
        };
        let mut fields = Vec::new();
        for (f, fty) in &s.fields {
            let fname = format!("{name}_{f}");
            let kind = match fty {
                Ty::Int { .. } | Ty::Bool => self.int_param(&fname, fty, None, assigned, span, copies),
                Ty::Ptr(p) => {
                    let a = self.array(
                        ArrayKey::Param(fname.clone()),
                        &fname,
                        ArraySpace::Global,
                        p.cell_bytes(),
                    );
                    let kpl = self.arrays[a].kpl.clone();
                    self.params.push(Param::Array {
                        name: kpl,
                        space: kpl::ir::Space::Global,
                    });
                    VarKind::Ptr {
                        target: Some(Target::Array(a)),
                        off: Offset::Fixed(Expr::Int(0)),
                        unit: self.arrays[a].cell,
                    }
                }
                Ty::Struct(_) => self.struct_param(&fname, fty, assigned, span, copies),
                // An array inside the struct: the thread's own copy (reads arbitrary).
                Ty::Array(..) => {
                    let a = self.array(
                        ArrayKey::Param(fname.clone()),
                        &fname,
                        ArraySpace::Private,
                        fty.cell_bytes(),
                    );
                    VarKind::Array(Target::Array(a))
                }
                _ => VarKind::Arb,
            };
            fields.push(self.hidden_var(&fname, fty.clone(), kind));
        }
        VarKind::Struct(fields)
    }

    /// A file-scope variable, bound on first use.
    pub fn global(&mut self, name: &str, n: Node<'t>) -> R<Option<LVal>> {
        let Some(g) = self.prog.globals.get(name).cloned() else {
            return Ok(None);
        };
        let quals = self.quals(g.decl);
        let Some(t) = g.decl.child_by_field_name("type") else {
            return Ok(None);
        };
        // Resolve in the kernel's context (file scope has no template arguments).
        let saved = std::mem::take(&mut self.frame_mut().bindings);
        let decl = self.declared(t, Some(g.declarator));
        self.frame_mut().bindings = saved;
        let decl = decl?;
        let ty = decl.ty.clone();
        let init = (g.declarator.kind() == "init_declarator")
            .then(|| g.declarator.child_by_field_name("value"))
            .flatten();
        let space = if quals.shared {
            Some(ArraySpace::Shared)
        } else if quals.constant {
            Some(ArraySpace::Constant)
        } else if quals.device {
            Some(ArraySpace::Global)
        } else {
            None
        };
        let kind = match (space, &ty) {
            (_, Ty::Texture) => VarKind::Texture,
            (None, Ty::Int { .. } | Ty::Bool) if quals.constant_value => {
                match init.and_then(|i| self.const_eval(i)) {
                    Some(k) => VarKind::Fixed(Expr::Int(k)),
                    None => VarKind::Arb,
                }
            }
            (None, _) if quals.constant_value => VarKind::Arb,
            (None, _) => {
                return Err(self.unsupported(
                    n,
                    &format!("host variable `{name}` used in device code"),
                    "declare it `__device__`, `__constant__` or `__shared__`",
                ));
            }
            // A pointer in `__device__`/`__constant__` memory that device code never
            // assigns: the host set it, to memory of its own (module `device_ptr`).
            (Some(ArraySpace::Global | ArraySpace::Constant), Ty::Ptr(pointee))
                if !self.device_code_assigns(name) =>
            {
                self.device_pointer(name, pointee.cell_bytes())
            }
            // Under `--alias`, pointer parameters may point into `__device__` arrays: they
            // are all one byte-addressed array.
            (Some(ArraySpace::Global), _) if self.opts.alias => {
                let (a, base) = self.aliased(name);
                self.array_var(a, base, &ty)
            }
            (Some(space), _) => {
                let key = if quals.external && quals.shared {
                    ArrayKey::ExternShared
                } else {
                    ArrayKey::Global(name.to_string())
                };
                let cells = (key != ArrayKey::ExternShared).then(|| ty.cells());
                let (a, base) = self.array_at(key, name, space, ty.cell_bytes(), cells);
                self.array_var(a, base, &ty)
            }
        };
        let id = self.add_global_var(name, ty, kind);
        Ok(Some(LVal::Var(id)))
    }
}

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
