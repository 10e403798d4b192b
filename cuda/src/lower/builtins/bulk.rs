//! Bulk memory builtins with a length: `memcpy`/`memmove` read the source range and
//! write the destination range, `memset` writes the destination range. A range is a
//! KPL loop over the cells of the array its pointer points into, from the cell that
//! holds its first byte to the cell that holds its last: every cell the call touches
//! (a cell partly covered counts whole, as C code that writes part of it races with a
//! write of its other part only at the byte level; over-approximated). The values
//! written are arbitrary (0 for `memset(p, 0, n)`). A length the lowering does not
//! know (not an integer expression) is an arbitrary count per thread.

use super::Call;
use crate::lower::expr::arbitrary;
use crate::lower::{ArraySpace, LVal, Lowerer, Ptr, R, Target, V, Value, fold};
use kpl::ir::{Block, Expr, Span, StmtKind};

/// `memcpy`, `memmove`, `memset` (and their `__builtin_` spellings); "not mine"
/// otherwise. After the file's own functions: a file may define its own `memcpy`.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let name = c.name.strip_prefix("__builtin_").unwrap_or(c.name);
    let copy = matches!(name, "memcpy" | "memmove");
    if (!copy && name != "memset") || c.args.len() != 3 {
        return Ok(None);
    }
    let vals = l.eval_args(c.args)?;
    let len = l.index(vals[2].clone(), c.n);
    let dst = vals[0].clone();
    if copy {
        if let V::Ptr(p) = &vals[1].v {
            l.range_access(p, &len, None, l.span(c.n));
        }
    } else {
        // `memset(p, 0, n)` writes zeros, any other byte an arbitrary value.
        let zero = matches!(&vals[1].v, V::Int(e) if fold::int(e) == Some(0));
        if let V::Ptr(p) = &dst.v {
            let value = if zero { Some(Expr::Int(0)) } else { None };
            l.range_write(p, &len, value, c)?;
        }
        return Ok(Some(dst));
    }
    if let V::Ptr(p) = &dst.v {
        l.range_write(p, &len, None, c)?;
    }
    Ok(Some(dst))
}

impl<'t> Lowerer<'_, 't> {
    /// Writes `len` bytes at `p`: every cell of the range gets `value` (arbitrary for
    /// `None`); a variable (`memcpy(&x, ...)`) gets an arbitrary value.
    fn range_write(&mut self, p: &Ptr, len: &Expr, value: Option<Expr>, c: &Call<'_, 't>) -> R<()> {
        match p.target {
            Target::Var(id) => {
                let ty = self.vars[id].ty.clone();
                // A constant passed by address cannot change.
                let _ = self.write(&LVal::Var(id), arbitrary(&ty), c.n);
            }
            _ => self.range_access(p, len, Some(value), self.span(c.n)),
        }
        Ok(())
    }

    /// The loop over the cells of `len` bytes at `p`: reads (`write` is `None`) or
    /// writes of the given value (`Some(None)`: arbitrary). Private and constant
    /// memory are not modelled (nothing to do), nor are pointers the lowering cannot
    /// name (as for any function that receives them).
    pub(in crate::lower) fn range_access(
        &mut self,
        p: &Ptr,
        len: &Expr,
        write: Option<Option<Expr>>,
        span: Span,
    ) {
        let Target::Array(a) = p.target else {
            return;
        };
        if !matches!(self.arrays[a].space, ArraySpace::Shared | ArraySpace::Global) {
            return;
        }
        let cell = i64::from(self.arrays[a].cell.max(1));
        let unit = i64::from(p.unit.max(1));
        // The first cell and one past the last, in cells of the array.
        let (first, end) = if unit % cell == 0 {
            let first = fold::mul(p.off.clone(), Expr::Int(unit / cell));
            let count = fold::div(fold::add(len.clone(), Expr::Int(cell - 1)), Expr::Int(cell));
            if fold::int(&count) == Some(1) {
                // One cell: its access, without a loop (whose iterations reports would name).
                let array = self.arrays[a].kpl.clone();
                for s in self.cell_access(array, first, write) {
                    self.emit(s, span);
                }
                return;
            }
            (first.clone(), fold::add(first, count))
        } else {
            let byte = fold::mul(p.off.clone(), Expr::Int(unit));
            let first = fold::div(byte.clone(), Expr::Int(cell));
            let last = fold::div(
                fold::sub(fold::add(byte, len.clone()), Expr::Int(1)),
                Expr::Int(cell),
            );
            (first, fold::add(last, Expr::Int(1)))
        };
        let array = self.arrays[a].kpl.clone();
        let k = self.fresh("_k");
        self.mutable.insert(k.clone());
        let index = Expr::Var(k.clone());
        let stmts = self.cell_access(array, index, write);
        let body = Block {
            stmts: stmts.into_iter().map(|s| self.made_stmt(s, span)).collect(),
            span,
            braces: true,
            top: false,
        };
        self.emit(
            StmtKind::For {
                var: k.clone(),
                init: first,
                cond: fold::bin(kpl::ir::BinOp::Lt, Expr::Var(k.clone()), end),
                step: fold::add(Expr::Var(k), Expr::Int(1)),
                body,
            },
            span,
        );
    }

    /// The statements of one access of cell `index` of `array`: a read, or a write of
    /// the given value (`Some(None)`: a fresh arbitrary one).
    fn cell_access(&mut self, array: String, index: Expr, write: Option<Option<Expr>>) -> Vec<StmtKind> {
        match write {
            None => {
                let var = self.scratch();
                vec![StmtKind::Read {
                    var,
                    array,
                    index,
                    ty: None,
                }]
            }
            Some(Some(value)) => vec![StmtKind::Write { array, index, value }],
            Some(None) => {
                // A fresh arbitrary value for every cell.
                let s = self.scratch();
                vec![
                    StmtKind::havoc(s.clone()),
                    StmtKind::Write {
                        array,
                        index,
                        value: Expr::Var(s),
                    },
                ]
            }
        }
    }
}
