//! `switch`: the cases are collected (labels merged where a case is empty and falls
//! into the next), then lowered by one of three strategies, the simplest that fits:
//! [`Lowerer::switch_if_chain`], [`Lowerer::switch_flagged_chain`],
//! [`Lowerer::switch_loop`].

use tree_sitter::Node;

use super::{binds, items};
use crate::lower::{Lowerer, R, V, fold};
use kpl::ir::{BinOp, Block, Expr, Span, StmtKind};

/// One case of a `switch`: its labels (`None` for `default`), its statements, and the
/// `case` node.
type Case<'t> = (Vec<Option<Expr>>, Vec<Node<'t>>, Node<'t>);

/// A `switch` ready to lower: the value switched on and its cases.
struct Switch<'t> {
    sw: Expr,
    cases: Vec<Case<'t>>,
    /// Every label value, for `default`.
    all_labels: Vec<Expr>,
    span: Span,
}

impl Switch<'_> {
    /// When a case with `labels` is entered.
    fn matches(&self, labels: &[Option<Expr>]) -> Expr {
        let sw = &self.sw;
        labels
            .iter()
            .map(|l| match l {
                Some(v) => fold::bin(BinOp::Eq, sw.clone(), v.clone()),
                None => self
                    .all_labels
                    .iter()
                    .map(|v| fold::bin(BinOp::Ne, sw.clone(), v.clone()))
                    .reduce(|a, b| fold::bin(BinOp::And, a, b))
                    .unwrap_or(Expr::Int(1)),
            })
            .reduce(|a, b| fold::bin(BinOp::Or, a, b))
            .unwrap_or(Expr::Int(0))
    }
}

/// Whether a `break` occurs before the last statement of a case (directly, or in a
/// nested statement other than a loop or switch).
fn inner_break(stmts: &[Node]) -> bool {
    stmts[..stmts.len().saturating_sub(1)]
        .iter()
        .any(|s| s.kind() == "break_statement" || binds(*s, "break_statement", false))
}

/// The statements of a case without its `break`s.
fn without_breaks<'t>(stmts: &[Node<'t>]) -> Vec<Node<'t>> {
    stmts
        .iter()
        .copied()
        .filter(|s| s.kind() != "break_statement")
        .collect()
}

impl<'t> Lowerer<'_, 't> {
    pub(super) fn switch_stmt(&mut self, n: Node<'t>) -> R<()> {
        let span = self.span(n);
        let c = n
            .child_by_field_name("condition")
            .ok_or_else(|| self.unsupported(n, "switch", ""))?;
        let body = n
            .child_by_field_name("body")
            .ok_or_else(|| self.unsupported(n, "switch", ""))?;
        self.push_scope();
        let c = self.condition(c)?;
        let v = self.rvalue(c)?;
        let sw = match v.v {
            V::Int(e @ (Expr::Var(_) | Expr::Int(_) | Expr::Builtin(_))) => e,
            V::Int(e) => Expr::Var(self.local("_sw", Some(e), span)),
            _ => Expr::Var(self.local("_sw", None, span)),
        };
        let cases = self.switch_cases(body)?;
        let all_labels: Vec<Expr> = cases
            .iter()
            .flat_map(|(l, _, _)| l.iter().flatten().cloned())
            .collect();
        let s = Switch {
            sw,
            cases,
            all_labels,
            span,
        };
        // No fallthrough and no inner `break`.
        let simple = s.cases.iter().enumerate().all(|(i, (_, stmts, _))| {
            let ends = stmts.last().is_some_and(|s| s.kind() == "break_statement");
            (ends || i + 1 == s.cases.len()) && !inner_break(stmts)
        });
        // Fallthrough, but every `break` ends its case.
        let trailing_breaks_only = s.cases.iter().all(|(_, stmts, _)| !inner_break(stmts));
        let r = if simple {
            self.switch_if_chain(&s)
        } else if trailing_breaks_only {
            self.switch_flagged_chain(&s)
        } else {
            self.switch_loop(&s, n, body)
        };
        self.pop_scope();
        r
    }

    /// The cases of a `switch` body, in order; a case with no statements shares the
    /// next one's.
    fn switch_cases(&mut self, body: Node<'t>) -> R<Vec<Case<'t>>> {
        let mut cases: Vec<Case<'t>> = Vec::new();
        for case in items(body) {
            if case.kind() != "case_statement" {
                return Err(self.unsupported(case, "statement before the first `case`", ""));
            }
            let value = case.child_by_field_name("value");
            let label = match value {
                Some(v) => Some(match self.const_eval(v) {
                    Some(k) => Expr::Int(k),
                    None => return Err(self.unsupported(v, "a `case` label that is not a constant", "")),
                }),
                None => None,
            };
            let mut stmts: Vec<Node> = items(case).into_iter().filter(|s| Some(*s) != value).collect();
            // `case X: { ...; break; }`: the block's statements, so that the case ends
            // with its `break` (an if chain rather than a one-trip loop).
            if let Some(last) = stmts.last().copied()
                && last.kind() == "compound_statement"
            {
                let inner = items(last);
                if inner.last().is_some_and(|s| s.kind() == "break_statement") {
                    stmts.pop();
                    stmts.extend(inner);
                }
            }
            match cases.last_mut() {
                Some((labels, prev, _)) if prev.is_empty() => {
                    labels.push(label);
                    *prev = stmts;
                }
                _ => cases.push((vec![label], stmts, case)),
            }
        }
        Ok(cases)
    }

    /// The statements of one case, lowered in a scope of their own.
    fn case_body(&mut self, body: &[Node<'t>]) -> R<Vec<kpl::ir::Stmt>> {
        let ((), lowered) = self.in_block(|l| {
            l.push_scope();
            let r = l.stmt_list(body);
            l.pop_scope();
            r
        })?;
        Ok(lowered)
    }

    /// Chosen when no case falls through into the next (each ends with `break`, but
    /// the last may just end) and no `break` stands anywhere else: an `if … else if …`
    /// chain, `default` last.
    fn switch_if_chain(&mut self, s: &Switch<'t>) -> R<()> {
        let (cases, span) = (&s.cases, s.span);
        let mut chain: Option<Block> = None;
        // Build from the last case backwards; `default` goes last.
        let mut order: Vec<usize> = (0..cases.len()).collect();
        order.sort_by_key(|&i| cases[i].0.contains(&None));
        let mut blocks = Vec::new();
        for &i in &order {
            let (labels, stmts, case) = &cases[i];
            let lowered = self.case_body(&without_breaks(stmts))?;
            blocks.push((
                s.matches(labels),
                labels.contains(&None),
                lowered,
                self.span(*case),
            ));
        }
        for (cond, is_default, lowered, cspan) in blocks.into_iter().rev() {
            if is_default && lowered.is_empty() {
                continue;
            }
            let blk = Block {
                stmts: lowered,
                span: cspan,
                braces: true,
                top: false,
            };
            chain = Some(match chain {
                None if is_default => blk,
                None => self.made_block(
                    vec![self.made_stmt(
                        StmtKind::If {
                            cond,
                            then_blk: blk,
                            else_blk: None,
                        },
                        span,
                    )],
                    span,
                ),
                Some(rest) => self.made_block(
                    vec![self.made_stmt(
                        StmtKind::If {
                            cond,
                            then_blk: blk,
                            else_blk: Some(rest),
                        },
                        span,
                    )],
                    span,
                ),
            });
        }
        if let Some(b) = chain {
            self.extend(b.stmts);
        }
        Ok(())
    }

    /// `if (m || labels) { m = 1; body; [m = 0 if the case breaks] }` for one case of
    /// a flagged chain or loop, `m` the flag "a case was entered".
    fn flagged_case(
        &mut self,
        s: &Switch<'t>,
        m: &str,
        case: &Case<'t>,
        body: &[Node<'t>],
        breaks: bool,
    ) -> R<StmtKind> {
        let (labels, _, node) = case;
        let span = s.span;
        let cond = fold::bin(BinOp::Or, Expr::Var(m.to_string()), s.matches(labels));
        let mut lowered = self.case_body(body)?;
        let mut inner = vec![self.made_stmt(
            StmtKind::Assign {
                var: m.to_string(),
                value: Expr::Int(1),
            },
            span,
        )];
        inner.append(&mut lowered);
        if breaks {
            inner.push(self.made_stmt(
                StmtKind::Assign {
                    var: m.to_string(),
                    value: Expr::Int(0),
                },
                span,
            ));
        }
        Ok(StmtKind::If {
            cond,
            then_blk: Block {
                stmts: inner,
                span: self.span(*node),
                braces: true,
                top: false,
            },
            else_blk: None,
        })
    }

    /// Chosen when cases fall through but every `break` ends its case: a flag `m` set
    /// by the case entered and cleared by its `break`, each case an `if (m || labels)`;
    /// no loop. Labels are distinct, so once a case breaks no later label (nor
    /// `default`) can match.
    fn switch_flagged_chain(&mut self, s: &Switch<'t>) -> R<()> {
        let m = self.mutable_local("_m", Some(Expr::Int(0)), s.span);
        for case in &s.cases {
            let breaks = case.1.last().is_some_and(|s| s.kind() == "break_statement");
            let kind = self.flagged_case(s, &m, case, &without_breaks(&case.1), breaks)?;
            self.emit(kind, s.span);
        }
        Ok(())
    }

    /// Chosen otherwise (a `break` inside a case, before its end): the flagged cases in
    /// a one-trip `while (1) { …; break; }` that the `break`s leave. A `continue` in
    /// such a `switch` is unsupported (it would continue the one-trip loop).
    fn switch_loop(&mut self, s: &Switch<'t>, n: Node<'t>, body: Node<'t>) -> R<()> {
        let span = s.span;
        if binds(body, "continue_statement", false) {
            return Err(self.unsupported(
                n,
                "`continue` inside a `switch` whose cases fall through",
                "end every case with `break`",
            ));
        }
        let m = self.mutable_local("_m", Some(Expr::Int(0)), span);
        self.frame_mut().loops += 1;
        let mut stmts = Vec::new();
        for case in &s.cases {
            let kind = self.flagged_case(s, &m, case, &case.1, false)?;
            stmts.push(self.made_stmt(kind, span));
        }
        self.frame_mut().loops -= 1;
        stmts.push(self.made_stmt(StmtKind::Break, span));
        let blk = self.made_block(stmts, span);
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
