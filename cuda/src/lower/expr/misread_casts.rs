//! `(i) + (j)`: casts that are not casts. tree-sitter reads a parenthesized name before
//! a unary operator as a cast; when the name is not a type, the chain of operators is
//! flattened and reparsed with C's precedences.

use tree_sitter::Node;

use super::Ref;
use crate::lower::{Lowerer, R, Value};
use crate::types::{Binding, Ty, vector_type};

/// An item of a flattened chain of binary operators.
#[derive(Clone, Copy, Debug)]
enum Flat<'t> {
    Operand(Node<'t>),
    Op(&'t str),
}

/// C precedence of the binary operators a chain is flattened over (higher binds tighter).
fn precedence(op: &str) -> u8 {
    match op {
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => 0,
    }
}

impl<'p, 't> Lowerer<'p, 't> {
    /// Whether `name` names a type here.
    pub(super) fn is_type_name(&self, name: &str) -> bool {
        matches!(self.binding(name), Some(Binding::Type(_)))
            || self.lookup_alias(name).is_some()
            || self.prog.aliases.contains_key(name)
            || self.prog.structs_by_name.contains_key(name)
            || crate::types::builtin_scalar(name).is_some()
            || vector_type(name).is_some()
    }

    /// `(i) + x`, `(i) - x`, `(i) * x`, `(i) & x` where `i` is not a type: the parser,
    /// which does not know which names are types, read a binary operator as a cast of a
    /// unary one (macros like `#define IDX(i, j) ((i) + (j) * W)` write this a lot).
    /// Returns the name, the operator and its right operand.
    fn mistaken_cast(&self, n: Node<'t>) -> Option<(Node<'t>, &'t str, Node<'t>)> {
        if n.kind() != "cast_expression" {
            return None;
        }
        let td = n.child_by_field_name("type")?;
        if td.child_by_field_name("declarator").is_some() {
            return None;
        }
        let name = td.child_by_field_name("type")?;
        if name.kind() != "type_identifier" || self.is_type_name(self.text(name)) {
            return None;
        }
        let value = n.child_by_field_name("value")?;
        if !matches!(value.kind(), "unary_expression" | "pointer_expression") {
            return None;
        }
        let op = self.text(value.child_by_field_name("operator")?);
        if !matches!(op, "+" | "-" | "*" | "&") {
            return None;
        }
        Some((name, op, value.child_by_field_name("argument")?))
    }

    pub(super) fn has_mistaken_cast(&self, n: Node<'t>) -> bool {
        match n.kind() {
            "cast_expression" => self.mistaken_cast(n).is_some(),
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map_or("", |o| self.text(o));
                op != "&&"
                    && op != "||"
                    && [n.child_by_field_name("left"), n.child_by_field_name("right")]
                        .into_iter()
                        .flatten()
                        .any(|c| self.has_mistaken_cast(c))
            }
            _ => false,
        }
    }

    /// The operands and operators of a chain of binary operators, undoing mistaken casts.
    fn flatten(&self, n: Node<'t>, out: &mut Vec<Flat<'t>>) {
        if let Some((name, op, arg)) = self.mistaken_cast(n) {
            out.push(Flat::Operand(name));
            out.push(Flat::Op(op));
            return self.flatten(arg, out);
        }
        let op = n.child_by_field_name("operator").map_or("", |o| self.text(o));
        match (
            n.kind(),
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) {
            ("binary_expression", Some(l), Some(r)) if op != "&&" && op != "||" => {
                self.flatten(l, out);
                out.push(Flat::Op(op));
                self.flatten(r, out);
            }
            _ => out.push(Flat::Operand(n)),
        }
    }

    /// Evaluates a chain of binary operators with C precedence.
    pub(super) fn reparse(&mut self, n: Node<'t>) -> R<Value> {
        let mut items = Vec::new();
        self.flatten(n, &mut items);
        let mut operands: Vec<Value> = Vec::new();
        let mut ops: Vec<&str> = Vec::new();
        for item in items {
            match item {
                Flat::Operand(x) if x.kind() == "type_identifier" => {
                    let name = self.text(x).to_string();
                    let v = match self.name(&name, x)? {
                        Ref::V(v) => v,
                        Ref::L(lv) => self.read(&lv, x)?,
                    };
                    operands.push(v);
                }
                Flat::Operand(x) => {
                    let v = self.rvalue(x)?;
                    operands.push(v);
                }
                Flat::Op(op) => {
                    while let Some(top) = ops.last() {
                        if precedence(top) < precedence(op) {
                            break;
                        }
                        let top = ops.pop().unwrap_or("+");
                        self.reduce(top, &mut operands);
                    }
                    ops.push(op);
                }
            }
        }
        while let Some(top) = ops.pop() {
            self.reduce(top, &mut operands);
        }
        operands
            .pop()
            .ok_or_else(|| self.unsupported(n, "expression", ""))
    }

    fn reduce(&mut self, op: &str, operands: &mut Vec<Value>) {
        let b = operands.pop().unwrap_or(Value::arb(Ty::INT));
        let a = operands.pop().unwrap_or(Value::arb(Ty::INT));
        operands.push(self.binary(op, a, b));
    }
}
