//! Arrays: the KPL arrays of a kernel by what they are in the source (`ArrayKey`),
//! aliased pointer parameters, merges of arrays a pointer chooses between, and the
//! user's names of each for reports (`ArrayOrigin`).

use super::{ArrayInfo, ArrayKey, ArrayOrigin, ArraySpace, Lowerer, MERGE_SLOT, Target};
use kpl::ir::{Expr, Param};

impl<'p, 't> Lowerer<'p, 't> {
    /// The array for `key`, created on first use.
    pub fn array(&mut self, key: ArrayKey, name: &str, space: ArraySpace, cell: u32) -> usize {
        if let Some(i) = self.arrays.iter().position(|a| a.key == key) {
            return i;
        }
        let kpl = if space == ArraySpace::Private {
            name.to_string()
        } else {
            self.fresh(name)
        };
        self.arrays.push(ArrayInfo {
            kpl,
            name: name.to_string(),
            alias: None,
            space,
            cell: cell.max(1),
            key,
        });
        self.arrays.len() - 1
    }

    /// Under `--alias`, the one byte-addressed array of the global memory that pointer
    /// parameters and `__device__` arrays may share, and where `name` starts in it: the
    /// first part at 0, every other one at an unknown offset (a fresh scalar parameter),
    /// so any two may overlap.
    pub fn aliased(&mut self, name: &str) -> (usize, Expr) {
        let first = !self.arrays.iter().any(|x| x.key == ArrayKey::Aliased);
        let a = self.array(ArrayKey::Aliased, name, ArraySpace::Global, 1);
        if first {
            self.params.push(Param::Array {
                name: self.arrays[a].kpl.clone(),
                space: kpl::ir::Space::Global,
            });
            return (a, Expr::Int(0));
        }
        let b = self.fresh(&format!("{name}_base"));
        self.params.push(Param::scalar(b.clone()));
        (a, Expr::Var(b))
    }

    /// Like [`Lowerer::array`], for an array of `cells` cells (`None`: unknown size), and
    /// where it starts in the KPL array: 0, or its base when it is merged with others.
    pub fn array_at(
        &mut self,
        key: ArrayKey,
        name: &str,
        space: ArraySpace,
        cell: u32,
        cells: Option<u64>,
    ) -> (usize, Expr) {
        if !self.merge.contains(&key) {
            return (self.array(key, name, space, cell), Expr::Int(0));
        }
        let group = format!("{space:?}-{}", cell.max(1));
        let a = self.array(ArrayKey::Merged(group.clone()), name, space, cell);
        if let Some(b) = self.merge_bases.get(&key) {
            return (a, b.clone());
        }
        let end = self.merge_end.get(&group).copied().unwrap_or(Some(0));
        let base = match (end, cells) {
            (Some(e), Some(n)) => {
                let n = i64::try_from(n).unwrap_or(i64::MAX / 4).max(1);
                self.merge_end.insert(group, Some(e.saturating_add(n)));
                Expr::Int(e)
            }
            _ => {
                // A part of unknown size (a parameter, dynamic shared memory), and every
                // part after one: a slot of its own, `MERGE_SLOT` cells after the
                // previous one. No allocation has that many cells, so in-bounds
                // accesses of distinct parts never meet (as for distinct parameters).
                self.merge_end.insert(group, None);
                if end == Some(0) {
                    Expr::Int(0)
                } else {
                    let used = self
                        .merge_bases
                        .values()
                        .filter(|b| matches!(b, Expr::Int(v) if *v >= MERGE_SLOT))
                        .count() as i64;
                    Expr::Int((used + 1) * MERGE_SLOT)
                }
            }
        };
        if let Expr::Int(start) = base {
            self.merge_parts.push((a, name.to_string(), start));
        }
        self.merge_bases.insert(key, base.clone());
        (a, base)
    }

    /// The user's names of the kernel's shared and global arrays.
    pub(super) fn array_origins(&self) -> Vec<ArrayOrigin> {
        let shown = |a: &ArrayInfo, name: &str| match &a.alias {
            Some(alias) if name == a.name => alias.clone(),
            _ => name.to_string(),
        };
        self.arrays
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a.space, ArraySpace::Shared | ArraySpace::Global))
            .map(|(i, a)| {
                let mut parts: Vec<(String, i64)> = self
                    .merge_parts
                    .iter()
                    .filter(|p| p.0 == i)
                    .map(|p| (shown(a, &p.1), p.2))
                    .collect();
                if parts.is_empty() {
                    parts.push((shown(a, &a.name), 0));
                }
                parts.sort_by_key(|p| p.1);
                ArrayOrigin {
                    array: a.kpl.clone(),
                    parts,
                }
            })
            .collect()
    }

    /// Records that a pointer chooses between arrays `a` and `b` when they can be merged
    /// (same space, same cell size, not private); the caller then fails.
    pub fn request_merge(&mut self, a: Target, b: Target) {
        if let (Target::Array(x), Target::Array(y)) = (a, b) {
            let (ax, ay) = (&self.arrays[x], &self.arrays[y]);
            if ax.space == ay.space && ax.cell == ay.cell && ax.space != ArraySpace::Private {
                self.merge_request = Some((ax.key.clone(), ay.key.clone()));
            }
        }
    }
}
