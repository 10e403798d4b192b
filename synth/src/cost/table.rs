//! A user-given table of costs, by source line: the weight of a barrier placed after
//! that line (the line `fix` reports as `after_line`: the statement a barrier follows,
//! or the line that opens the block whose top it is at).
//!
//! File shape (JSON):
//!
//! ```json
//! {"weights": {"12": 5, "17": 0.5}, "default": 1}
//! ```
//!
//! `default` (optional, 1 when absent) is the weight of every line not in `weights`.
//! Weights must be finite and non-negative.

use std::collections::BTreeMap;

use kpl::{Label, LabelTree};
use serde::Deserialize;

use super::CostModel;

#[derive(Clone, Debug, PartialEq)]
pub struct TableCost {
    pub weights: BTreeMap<u32, f64>,
    pub default: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    weights: BTreeMap<String, f64>,
    #[serde(default = "one")]
    default: f64,
}

fn one() -> f64 {
    1.0
}

impl TableCost {
    /// Reads the JSON shape described in the module documentation; the error says what
    /// is wrong in words.
    pub fn from_json(text: &str) -> Result<TableCost, String> {
        let f: TableFile = serde_json::from_str(text).map_err(|e| {
            format!("{e} (expected {{\"weights\": {{\"<line>\": <weight>, ...}}, \"default\": <weight>}})")
        })?;
        let check = |what: &str, w: f64| {
            if w.is_finite() && w >= 0.0 {
                Ok(w)
            } else {
                Err(format!(
                    "{what}: the weight {w} is not a finite non-negative number"
                ))
            }
        };
        let mut weights = BTreeMap::new();
        for (line, w) in f.weights {
            let n: u32 = line.trim().parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                format!("`{line}` is not a line number (keys of \"weights\" are lines, from 1)")
            })?;
            weights.insert(n, check(&format!("line {n}"), w)?);
        }
        Ok(TableCost {
            weights,
            default: check("default", f.default)?,
        })
    }
}

impl CostModel for TableCost {
    fn name(&self) -> &str {
        "table"
    }

    fn cost(&self, tree: &LabelTree, l: Label) -> f64 {
        self.weights.get(&tree.line(l)).copied().unwrap_or(self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_shape() {
        let t = TableCost::from_json(r#"{"weights": {"3": 5, "7": 0.25}, "default": 2}"#).unwrap();
        assert_eq!(t.weights, BTreeMap::from([(3, 5.0), (7, 0.25)]));
        assert_eq!(t.default, 2.0);
        let t = TableCost::from_json(r#"{"weights": {}}"#).unwrap();
        assert_eq!(t.default, 1.0);
    }

    #[test]
    fn rejects_bad_tables_in_words() {
        let e = TableCost::from_json(r#"{"weights": {"x": 1}}"#).unwrap_err();
        assert!(e.contains("`x` is not a line number"), "{e}");
        let e = TableCost::from_json(r#"{"weights": {"3": -1}}"#).unwrap_err();
        assert!(e.contains("line 3"), "{e}");
        let e = TableCost::from_json(r#"{"weight": {}}"#).unwrap_err();
        assert!(e.contains("expected {\"weights\""), "{e}");
        assert!(TableCost::from_json("not json").is_err());
    }

    #[test]
    fn costs_by_line() {
        let k = kpl::parse("kernel k(shared A[]) {\n    local x;\n    x = A[tid];\n    A[tid] = x;\n}")
            .unwrap()
            .remove(0);
        let tree = LabelTree::new(&k);
        let t = TableCost::from_json(r#"{"weights": {"3": 4}, "default": 9}"#).unwrap();
        let at = |line| {
            tree.label_of(k.body.stmts.iter().find(|s| s.span.line == line).unwrap().id)
                .unwrap()
        };
        assert_eq!(t.cost(&tree, at(3)), 4.0);
        assert_eq!(t.cost(&tree, at(4)), 9.0);
    }
}
