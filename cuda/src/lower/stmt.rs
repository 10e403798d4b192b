//! Statements: declarations, control flow (with the places barriers can go), and the
//! kernel's parameters.
//!
//! Loops map to KPL `for` when they have the shape `for (int i = e; c; i = s)` with a
//! pure condition and step and a body that leaves `i` alone, and to `while` otherwise.
//! A condition that needs statements (a memory read, a call) is evaluated at the top
//! of the KPL loop body, followed by `if (!c) break;`, which is where the source body
//! starts (its place is [`Place::BlockTop`](kpl::ir::Place::BlockTop)). Loops whose `continue` must still run the
//! step or the condition get a `first` flag. `switch` (module `switch`) becomes an `if`
//! chain when no case falls through, a chain of cases guarded by an "entered" flag when
//! every `break` ends its case, else a one-iteration `while` that `break` leaves.
//! Loops are in `loops`, declarations in `declarations`, a kernel's parameters and the
//! file-scope variables it uses in `kernel_params`.

mod butterfly;
mod declarations;
mod device_ptr;
mod jumps;
mod kernel_params;
mod loops;
mod misparse;
mod switch;

pub(super) use jumps::GotoTarget;

use std::collections::HashSet;

use tree_sitter::Node;

use super::expr::strip_parens;
use super::fold;
use super::{ArrayKey, ArraySpace, LVal, Lowerer, Offset, R, Ret, Target, Value, VarKind};
use crate::program::{Program, declarator_name, named_children};
use kpl::ir::{Block, Expr, StmtKind};

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
}
