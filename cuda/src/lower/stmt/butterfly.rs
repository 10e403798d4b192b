//! Warp butterflies: `for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);`
//! leaves every lane of the warp with the same value.
//!
//! Each step combines a lane's value with that of the lane `o` apart (`lane ^ o`) by a
//! commutative operation, so the two lanes of each pair hold equal values after it;
//! the offsets 16, 8, 4, 2, 1 pair every lane with every other through the steps, so
//! after the loop all 32 lanes hold one value. The shuffles themselves stay unknown
//! values of each thread (`builtins::warp`); what the loop adds is only that equality:
//! the variable becomes one arbitrary value per warp (`warp_havoc`, see
//! `docs/semantics.md`, "Warp-wide results"), which lets the lanes store it into one
//! element as a benign race. Recognised only when warps have 32 threads, the mask is
//! the full warp (`__shfl_xor_sync` with another mask is not a butterfly of the
//! warp), the width is 32, the kernel has no `return` (a lane that has exited is
//! still named by the mask, and a shuffle from it reads an undefined value) and the
//! operation is exactly commutative on the GPU: `+`,
//! `*`, `&`, `|`, `^` (integer or floating point; GPU arithmetic returns one canonical
//! NaN, so `a + b` and `b + a` agree bit for bit).

use tree_sitter::Node;

use crate::lower::{Lowerer, VarKind};
use crate::program::named_children;
use kpl::ir::StmtKind;

/// The shuffle's offsets, from the first: every bit of a 32-lane index once.
const OFFSETS: [i64; 5] = [16, 8, 4, 2, 1];

impl<'t> Lowerer<'_, 't> {
    /// After the `for` statement `n`: when it is a warp butterfly of variable `v`, `v`
    /// becomes one value per warp.
    pub(super) fn after_butterfly(&mut self, n: Node<'t>) {
        if self.opts.launch.warp_size.is_some_and(|w| w != 32) {
            return;
        }
        if self.kernel_may_exit() {
            // A lane that has returned is still named by the full mask, and a shuffle
            // from it reads an undefined value: the survivors need not agree.
            return;
        }
        let Some(v) = self.butterfly_var(n) else {
            return;
        };
        let Some(id) = self.lookup(&v) else {
            return;
        };
        let (VarKind::Float(local) | VarKind::Int(local)) = &self.vars[id].kind else {
            return;
        };
        let var = local.clone();
        self.emit(StmtKind::Havoc { var, warp: true }, self.span(n));
    }

    /// The variable a butterfly loop reduces, if `n` is one.
    fn butterfly_var(&mut self, n: Node<'t>) -> Option<String> {
        let init = n.child_by_field_name("initializer")?;
        let cond = n.child_by_field_name("condition")?;
        let update = n.child_by_field_name("update")?;
        let body = n.child_by_field_name("body")?;
        // `int o = 16`, declaring nothing else (a second declarator could shadow `v`)
        let ds: Vec<Node> = {
            let mut c = init.walk();
            init.children_by_field_name("declarator", &mut c).collect()
        };
        let [d] = ds.as_slice() else {
            return None;
        };
        let d = *d;
        if d.kind() != "init_declarator" {
            return None;
        }
        let o = self.text(d.child_by_field_name("declarator")?).to_string();
        let first = self.const_eval(d.child_by_field_name("value")?)?;
        // `o > 0`, `o >= 1`, `o != 0`
        let (l, op, r) = binary(self, cond)?;
        let last = match (self.text(l) == o, op.as_str(), self.const_eval(r)?) {
            (true, ">", 0) | (true, ">=", 1) | (true, "!=", 0) => 1,
            _ => return None,
        };
        // `o /= 2`, `o >>= 1`, `o = o / 2`, `o = o >> 1`
        if !self.halves(update, &o) || first != OFFSETS[0] || last != OFFSETS[OFFSETS.len() - 1] {
            return None;
        }
        let stmt = single_statement(body)?;
        let e = named_children(stmt).into_iter().next()?;
        self.combines_with_shuffle(e, &o)
    }

    /// Whether `update` halves `o`.
    fn halves(&mut self, update: Node<'t>, o: &str) -> bool {
        let Some(left) = update.child_by_field_name("left") else {
            return false;
        };
        if update.kind() != "assignment_expression" || self.text(left) != o {
            return false;
        }
        let Some(right) = update.child_by_field_name("right") else {
            return false;
        };
        let op = self
            .text(update.child_by_field_name("operator").unwrap_or(update))
            .to_string();
        match op.as_str() {
            "/=" => self.const_eval(right) == Some(2),
            ">>=" => self.const_eval(right) == Some(1),
            "=" => match binary(self, right) {
                Some((l, op, r)) if self.text(l) == o => {
                    let k = self.const_eval(r);
                    (op == "/" && k == Some(2)) || (op == ">>" && k == Some(1))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// `v op= S`, `v = v op S` or `v = S op v` with a commutative `op` and `S` the
    /// full-warp shuffle `__shfl_xor_sync(0xffffffff, v, o[, 32])`: `v`.
    fn combines_with_shuffle(&mut self, e: Node<'t>, o: &str) -> Option<String> {
        if e.kind() != "assignment_expression" {
            return None;
        }
        let v = self.text(e.child_by_field_name("left")?).to_string();
        if e.child_by_field_name("left")?.kind() != "identifier" {
            return None;
        }
        let right = e.child_by_field_name("right")?;
        let assign = self.text(e.child_by_field_name("operator")?).to_string();
        let shuffle = match assign.as_str() {
            "+=" | "*=" | "&=" | "|=" | "^=" => right,
            "=" => {
                let (l, op, r) = binary(self, right)?;
                if !commutative(&op) {
                    return None;
                }
                match (self.text(l) == v, self.text(r) == v) {
                    (true, _) => r,
                    (_, true) => l,
                    _ => return None,
                }
            }
            _ => return None,
        };
        self.is_full_xor_shuffle(shuffle, &v, o).then_some(v)
    }

    fn is_full_xor_shuffle(&mut self, s: Node<'t>, v: &str, o: &str) -> bool {
        if s.kind() != "call_expression" {
            return false;
        }
        let (Some(f), Some(args)) = (
            s.child_by_field_name("function"),
            s.child_by_field_name("arguments"),
        ) else {
            return false;
        };
        let args: Vec<Node> = named_children(args)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let (mask, value, offset, width) = match args.as_slice() {
            [m, x, k] => (*m, *x, *k, None),
            [m, x, k, w] => (*m, *x, *k, Some(*w)),
            _ => return false,
        };
        self.text(f) == "__shfl_xor_sync"
            && self.lookup("__shfl_xor_sync").is_none()
            && self.prog.functions("__shfl_xor_sync", None).is_empty()
            && self
                .const_eval(mask)
                .is_some_and(crate::lower::fold::full_warp_mask)
            && self.text(value) == v
            && self.text(offset) == o
            && width.is_none_or(|w| self.const_eval(w) == Some(32))
    }
}

impl Lowerer<'_, '_> {
    /// Whether the kernel's own body has a `return` (a thread may have exited before a
    /// warp-wide operation; the returns of inlined functions do not end the thread).
    pub(in crate::lower) fn kernel_may_exit(&self) -> bool {
        let Some(body) = self
            .frames
            .first()
            .and_then(|f| f.func)
            .and_then(|k| self.prog.funcs[k].body)
        else {
            return true;
        };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "return_statement" {
                return true;
            }
            stack.extend(named_children(n));
        }
        false
    }
}

/// The operands and operator of a binary expression (through parentheses).
fn binary<'t>(l: &Lowerer<'_, 't>, mut n: Node<'t>) -> Option<(Node<'t>, String, Node<'t>)> {
    while n.kind() == "parenthesized_expression" {
        n = *named_children(n).first()?;
    }
    if n.kind() != "binary_expression" {
        return None;
    }
    let op = l.text(n.child_by_field_name("operator")?).to_string();
    Some((
        n.child_by_field_name("left")?,
        op,
        n.child_by_field_name("right")?,
    ))
}

fn commutative(op: &str) -> bool {
    matches!(op, "+" | "*" | "&" | "|" | "^")
}

/// The one statement of a loop body (`{ s; }` or `s;`), an expression statement.
fn single_statement(body: Node) -> Option<Node> {
    let s = if body.kind() == "compound_statement" {
        let items: Vec<Node> = named_children(body)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        match items.as_slice() {
            [one] => *one,
            _ => return None,
        }
    } else {
        body
    };
    (s.kind() == "expression_statement").then_some(s)
}
