//! Jumps that skip the rest of a statement list: forward `goto`s and the early
//! `return`s of inlined functions ([`Ret::Flag`]), both lowered to flags.
//!
//! A forward `goto L` whose label `L:` stands on a statement of an enclosing list, later
//! than the statement that holds the `goto`, sets a flag `_goto_L` (declared 0 at the top
//! of the label's list) and leaves the loops it is in (relative to the label's list)
//! with `break`; after a loop that holds it, `if (_goto_L) break;` leaves the next one.
//! In the lists in between, the statements after the one holding the `goto` are guarded
//! by `if (!_goto_L) { ... }`; in the label's list the guard ends at the label, where the
//! flag is cleared (the list may be a loop body that runs again). This is the C
//! semantics exactly: the statements skipped are those the jump skips. A backward `goto`
//! (to a label before it, or on the statement that holds it) and a `goto` into a nested
//! block stay unsupported.
//!
//! Barrier places: a barrier written after a statement that holds a jump would be
//! skipped by the threads that jump, while in the KPL it would stand before the guard
//! (or the `if (flag) break;`) and be executed by all: such statements lose their place.

use tree_sitter::Node;

use super::{contains, is_loop_like};
use crate::lower::{Lowerer, R, Ret, fold};
use crate::program::{Program, named_children};
use kpl::ir::{BinOp, Expr, Place, Span, StmtKind};

/// A label that forward `goto`s may jump to while its list is being lowered.
#[derive(Clone, Debug)]
pub(in crate::lower) struct GotoTarget {
    pub label: String,
    /// The KPL local set by the `goto`s and cleared at the label.
    pub flag: String,
    /// `Frame::loops` in the label's list: a `goto` inside more loops leaves them.
    pub loops: usize,
    /// `Lowerer::frames.len()` of the function that holds the label.
    pub frame: usize,
}

/// A jump that may have happened: the statements after it are skipped while `flag` is
/// set, up to the label at index `end` of the list (`None`: to the end of the list).
#[derive(Clone, Debug)]
struct Pending {
    flag: String,
    end: Option<usize>,
    /// The statement that may have jumped (the guard's span, for diagnostics).
    from: Span,
}

/// The labels a statement carries (`a: b: s` has two).
fn labels(prog: &Program, mut n: Node) -> Vec<String> {
    let mut out = Vec::new();
    while n.kind() == "labeled_statement" {
        if let Some(l) = n.child_by_field_name("label") {
            out.push(prog.text(l).to_string());
        }
        match named_children(n)
            .into_iter()
            .rev()
            .find(|c| c.kind() != "statement_identifier" && c.kind() != "comment")
        {
            Some(s) => n = s,
            None => break,
        }
    }
    out
}

/// Whether `n` holds a `goto label` (not counting lambdas).
fn jumps_to(prog: &Program, n: Node, label: &str) -> bool {
    match n.kind() {
        "goto_statement" => n
            .child_by_field_name("label")
            .is_some_and(|l| prog.text(l) == label),
        "lambda_expression" => false,
        _ => named_children(n).into_iter().any(|c| jumps_to(prog, c, label)),
    }
}

impl<'t> Lowerer<'_, 't> {
    /// The statements of one list, with the jumps out of them lowered to flags.
    pub(super) fn jump_list(&mut self, list: &[Node<'t>]) -> R<()> {
        let targets = self.goto_targets(list);
        self.gotos.extend(targets.iter().map(|(_, t)| t.clone()));
        let r = self.jump_range(list, 0, list.len(), &targets, false);
        self.gotos
            .retain(|g| !targets.iter().any(|(_, t)| t.flag == g.flag));
        r.map(|_| ())
    }

    /// The labels of `list` that a `goto` in an earlier statement of the list jumps to,
    /// with their index; each gets its flag, declared here.
    fn goto_targets(&mut self, list: &[Node<'t>]) -> Vec<(usize, GotoTarget)> {
        let mut out = Vec::new();
        for (k, &item) in list.iter().enumerate() {
            for label in labels(self.prog, item) {
                if !list[..k].iter().any(|s| jumps_to(self.prog, *s, &label)) {
                    continue;
                }
                let span = self.span(item);
                let flag = self.mutable_local(&format!("_goto_{label}"), Some(Expr::Int(0)), span);
                let target = GotoTarget {
                    label,
                    flag,
                    loops: self.frame().loops,
                    frame: self.frames.len(),
                };
                out.push((k, target));
            }
        }
        out
    }

    /// Statements `lo..hi` of `list`; returns the jumps that may still skip statements
    /// after `hi`. `entered`: the labels at `lo` were handled by the caller.
    fn jump_range(
        &mut self,
        list: &[Node<'t>],
        lo: usize,
        hi: usize,
        targets: &[(usize, GotoTarget)],
        entered: bool,
    ) -> R<Vec<Pending>> {
        let mut pending: Vec<Pending> = Vec::new();
        let mut i = lo;
        let mut entered = entered;
        while i < hi {
            if !entered {
                self.enter_labels(list[i], i, targets);
            }
            entered = false;
            pending.retain(|p| p.end.is_none_or(|e| e > i));
            if !pending.is_empty() {
                // Skip up to the first label a pending jump goes to.
                let end = pending
                    .iter()
                    .filter_map(|p| p.end)
                    .min()
                    .map_or(hi, |e| e.min(hi));
                let span = pending[0].from;
                let cond = pending
                    .iter()
                    .map(|p| Expr::Var(p.flag.clone()))
                    .reduce(|a, b| fold::bin(BinOp::Or, a, b))
                    .unwrap_or(Expr::Int(0));
                let (inner, stmts) = self.in_block(|l| l.jump_range(list, i, end, targets, true))?;
                if !stmts.is_empty() {
                    let blk = self.made_block(stmts, span);
                    self.emit(
                        StmtKind::If {
                            cond: fold::not(cond),
                            then_blk: blk,
                            else_blk: None,
                        },
                        span,
                    );
                }
                for p in inner {
                    if !pending.iter().any(|q| q.flag == p.flag) {
                        pending.push(p);
                    }
                }
                i = end;
                continue;
            }
            let start = self.mark();
            self.stmt(list[i])?;
            let jumps = self.jumps_after(list[i], start, targets);
            pending.extend(jumps);
            i += 1;
        }
        Ok(pending)
    }

    /// At the statement with index `i` of the list: its labels are reached, so `goto`s
    /// to them from here on are backward, and their flags are cleared.
    fn enter_labels(&mut self, item: Node<'t>, i: usize, targets: &[(usize, GotoTarget)]) {
        let mut cleared = false;
        for (_, t) in targets.iter().filter(|(k, _)| *k == i) {
            self.gotos.retain(|g| g.flag != t.flag);
            let span = self.span(item);
            self.emit(
                StmtKind::Assign {
                    var: t.flag.clone(),
                    value: Expr::Int(0),
                },
                span,
            );
            cleared = true;
        }
        if cleared {
            self.place_after_labels(item);
        }
    }

    /// The statement just emitted (clearing the flags at a label) stands for the labels
    /// themselves: a barrier after it is written right after the last `label:`, where
    /// the threads that jumped and those that did not meet.
    fn place_after_labels(&mut self, item: Node<'t>) {
        let mut n = item;
        let mut colon = None;
        while n.kind() == "labeled_statement" {
            colon = crate::program::children(n)
                .into_iter()
                .find(|c| c.kind() == ":")
                .map(|c| c.end_byte());
            match named_children(n)
                .into_iter()
                .rev()
                .find(|c| c.kind() != "statement_identifier" && c.kind() != "comment")
            {
                Some(s) => n = s,
                None => break,
            }
        }
        let Some(end) = colon else { return };
        let range = item.start_byte()..end;
        if !self.placeable() || self.prog.map.main_range(range.clone()).is_none() {
            return;
        }
        let span = Span {
            call: self.frame().call,
            ..self.prog.map.span(range)
        };
        if let Some(s) = self.blocks.last_mut().and_then(|b| b.last_mut()) {
            s.place = Place::After;
            // The last statement of an inlined function keeps its real place for reports.
            let inlined = s.span.call.is_some() && s.span.call != span.call;
            s.span = if inlined {
                crate::lower::emission::placed_span(s.span, span)
            } else {
                span
            };
        }
    }

    /// After a statement of the list (its KPL statements from `start`): the jumps it
    /// may have made. Jumps that must leave an enclosing loop get `if (flag) break;`
    /// after a loop, the others skip the rest of the list (or up to their label).
    fn jumps_after(&mut self, item: Node<'t>, start: usize, targets: &[(usize, GotoTarget)]) -> Vec<Pending> {
        let loops = self.frame().loops;
        let from = self.span(item);
        let mut out = Vec::new();
        let mut breaks = Vec::new();
        if let Ret::Flag { done, .. } = self.frame().ret.clone()
            && contains(item, "return_statement")
        {
            if loops > 0 {
                breaks.push(done);
            } else {
                out.push(Pending {
                    flag: done,
                    end: None,
                    from,
                });
            }
        }
        let frame = self.frames.len();
        let reached: Vec<GotoTarget> = self
            .gotos
            .iter()
            .filter(|g| g.frame == frame && jumps_to(self.prog, item, &g.label))
            .cloned()
            .collect();
        for g in reached {
            if let Some((k, _)) = targets.iter().find(|(_, t)| t.flag == g.flag) {
                out.push(Pending {
                    flag: g.flag,
                    end: Some(*k),
                    from,
                });
            } else if loops > g.loops {
                breaks.push(g.flag);
            } else {
                out.push(Pending {
                    flag: g.flag,
                    end: None,
                    from,
                });
            }
        }
        if out.is_empty() && breaks.is_empty() {
            return out;
        }
        self.unplace_from(start);
        if is_loop_like(item) {
            let span = self.span(item);
            for flag in breaks {
                let brk = self.made_stmt(StmtKind::Break, span);
                let blk = self.made_block(vec![brk], span);
                self.emit(
                    StmtKind::If {
                        cond: Expr::Var(flag),
                        then_blk: blk,
                        else_blk: None,
                    },
                    span,
                );
            }
        }
        out
    }

    /// The KPL statements of the current block from `start` get no place: the threads
    /// that jumped would skip a barrier written after their source statement.
    fn unplace_from(&mut self, start: usize) {
        if let Some(b) = self.blocks.last_mut() {
            for s in b.iter_mut().skip(start) {
                if s.place == Place::After {
                    s.place = Place::Nowhere;
                }
            }
        }
    }

    /// `goto label`: a forward jump to a label of an enclosing list sets the label's
    /// flag and leaves the loops between; any other `goto` is unsupported.
    pub(super) fn goto_stmt(&mut self, n: Node<'t>) -> R<()> {
        let label = n
            .child_by_field_name("label")
            .map(|l| self.text(l).to_string())
            .unwrap_or_default();
        let frame = self.frames.len();
        let Some(g) = self
            .gotos
            .iter()
            .rev()
            .find(|g| g.frame == frame && g.label == label)
            .cloned()
        else {
            return Err(self.unsupported(
                n,
                "a backward `goto`, or a `goto` into a nested block",
                "only forward `goto`s to a label of an enclosing block are supported; restructure the code with a loop",
            ));
        };
        let span = self.span(n);
        self.emit(
            StmtKind::Assign {
                var: g.flag,
                value: Expr::Int(1),
            },
            span,
        );
        if self.frame().loops > g.loops {
            self.emit(StmtKind::Break, span);
        }
        Ok(())
    }
}
