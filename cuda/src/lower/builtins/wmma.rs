//! Tensor-core matrix operations of `nvcuda::wmma` ([modern] class 6), by their
//! documented effect on memory: the warp as a whole reads (`load_matrix_sync`) or writes
//! (`store_matrix_sync`) the tile the pointer, the leading dimension and the fragment's
//! shape and layout name; `fill_fragment` and `mma_sync` change only fragments (the
//! lanes' registers).
//!
//! A tile of `outer × inner` elements (rows × columns for a row-major layout) starts at
//! `p` and has element `(r, c)` at `p[r * ldm + c]`. A load is one read per lane of an
//! arbitrary element of the tile: reads never race with each other, so which lane reads
//! what does not matter, and every element is covered. A store is one write per lane of
//! an arbitrary element of the lane's part of the tile: CUDA leaves the partition of a
//! fragment among the lanes unspecified, so it is modelled as the `k`-th elements (in
//! row order) with `k ≡ lane + w (mod 32)`, `w` one unknown per warp (`warp_havoc`):
//! the lanes' parts are disjoint, and any lane may own any element. *Assumed*: the whole
//! warp executes the operation (CUDA requires it), with warps of 32 threads.
//!
//! A fragment type the front end cannot read (a template parameter, an alias) takes
//! every tile of up to 32 × 32 elements, and its store is one arbitrary element per lane
//! (more races, never fewer).

use kpl::ir::{BinOp, Expr, StmtKind};
use tree_sitter::Node;

use super::Call;
use super::sync::block_rank;
use crate::lower::expr::{Ref, arbitrary};
use crate::lower::{Lowerer, R, Value, fold};
use crate::types::Ty;

/// The largest dimension of any wmma shape (`m32n8k16`).
const MAX_DIM: i64 = 32;

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let in_wmma = c.scope == c.name || c.scope.ends_with(&format!("wmma::{}", c.name));
    if !in_wmma {
        return Ok(None);
    }
    match (c.name, c.args) {
        ("load_matrix_sync", [frag, ptr, ldm, rest @ ..]) => {
            let tile = l.tile(*frag, rest.first().copied())?;
            l.tile_access(*ptr, *ldm, tile, false, c.n)?;
            l.set_fragment(*frag, c.n)?;
        }
        ("store_matrix_sync", [ptr, frag, ldm, rest @ ..]) => {
            let tile = l.tile(*frag, rest.first().copied())?;
            l.tile_access(*ptr, *ldm, tile, true, c.n)?;
        }
        ("fill_fragment", [frag, value]) => {
            l.rvalue(*value)?;
            l.set_fragment(*frag, c.n)?;
        }
        ("mma_sync" | "bmma_sync", [d, a, b, acc, ..]) => {
            for x in [a, b, acc] {
                l.expr(*x)?;
            }
            l.set_fragment(*d, c.n)?;
        }
        _ => return Ok(None),
    }
    Ok(Some(Value::arb(Ty::Void)))
}

/// The tile a fragment covers in memory: `outer × inner` elements, and whether the
/// shape was read from the fragment's type (else the 32 × 32 bound).
#[derive(Clone, Copy, Debug)]
struct Tile {
    outer: i64,
    inner: i64,
    exact: bool,
}

/// `matrix_a, 16, 16, 16, half, row_major` → the tile of a fragment of that type, with
/// the layout given at the call for an accumulator (`mem_row_major`).
fn tile_of(type_text: &str, call_layout: Option<&str>) -> Option<Tile> {
    let inner_args = type_text.split_once('<')?.1.rsplit_once('>')?.0;
    let args: Vec<&str> = inner_args.split(',').map(str::trim).collect();
    let last = |s: &str| s.rsplit("::").next().unwrap_or(s).trim().to_string();
    let usage = last(args.first()?);
    let dims: Vec<i64> = args
        .get(1..4)?
        .iter()
        .map(|a| a.parse().ok())
        .collect::<Option<_>>()?;
    let (m, n, k) = (dims[0], dims[1], dims[2]);
    let layout = match usage.as_str() {
        "accumulator" => match call_layout.map(last).as_deref() {
            Some("mem_row_major") => "row_major".to_string(),
            Some("mem_col_major") => "col_major".to_string(),
            _ => return None,
        },
        _ => last(args.get(5)?),
    };
    let (rows, cols) = match usage.as_str() {
        "matrix_a" => (m, k),
        "matrix_b" => (k, n),
        "accumulator" => (m, n),
        _ => return None,
    };
    let (outer, inner) = match layout.as_str() {
        "row_major" => (rows, cols),
        "col_major" => (cols, rows),
        _ => return None,
    };
    let ok = (1..=MAX_DIM).contains(&outer) && (1..=MAX_DIM).contains(&inner) && (outer * inner) % 32 == 0;
    ok.then_some(Tile {
        outer,
        inner,
        exact: true,
    })
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The tile of the fragment argument `frag` (its declared type), with the layout
    /// argument of the call for accumulators.
    fn tile(&mut self, frag: Node<'t>, layout: Option<Node<'t>>) -> R<Tile> {
        let ty = match self.expr(frag)? {
            Ref::L(lv) => self.lval_type(&lv),
            Ref::V(v) => v.ty,
        };
        let layout = match layout {
            Some(x) => {
                // `wmma::mem_row_major` is a constant of the header; anything else may
                // have effects.
                if !matches!(x.kind(), "identifier" | "qualified_identifier") {
                    self.rvalue(x)?;
                }
                Some(self.text(x).to_string())
            }
            None => None,
        };
        let text = match &ty {
            Ty::Opaque(t) => t.clone(),
            _ => String::new(),
        };
        Ok(tile_of(&text, layout.as_deref()).unwrap_or(Tile {
            outer: MAX_DIM,
            inner: MAX_DIM,
            exact: false,
        }))
    }

    /// A fragment argument gets arbitrary contents (a lane's registers).
    fn set_fragment(&mut self, frag: Node<'t>, n: Node<'t>) -> R<()> {
        if let Ref::L(lv) = self.expr(frag)? {
            let ty = self.lval_type(&lv);
            self.write(&lv, arbitrary(&ty), n)?;
        }
        Ok(())
    }

    /// One lane's access of the tile at `ptr` with leading dimension `ldm`: see the
    /// module documentation.
    fn tile_access(&mut self, ptr: Node<'t>, ldm: Node<'t>, tile: Tile, write: bool, n: Node<'t>) -> R<()> {
        let span = self.span(n);
        let base = self.rvalue(ptr)?;
        let ldm = self.rvalue(ldm)?;
        let (r, c) = if write && tile.exact && self.opts.launch.warp_size.is_none_or(|w| w == 32) {
            // The `j`-th element of this lane's part: `k = 32 j + (lane + w) % 32`.
            let w = self.local("_wmma_w", None, span);
            self.emit(
                StmtKind::Havoc {
                    var: w.clone(),
                    warp: true,
                },
                span,
            );
            let j = self.local("_wmma_j", None, span);
            let parts = tile.outer * tile.inner / 32;
            self.bound(&j, parts, span);
            self.bound(&w, 32, span);
            // Lanes are consecutive runs of 32 of `threadIdx` as one number.
            let lane = rem(fold::add(block_rank(), Expr::Var(w)), Expr::Int(32));
            let k = fold::add(fold::mul(Expr::Int(32), Expr::Var(j)), lane);
            (
                fold::div(k.clone(), Expr::Int(tile.inner)),
                rem(k, Expr::Int(tile.inner)),
            )
        } else {
            let r = self.local("_wmma_r", None, span);
            let c = self.local("_wmma_c", None, span);
            self.bound(&r, tile.outer, span);
            self.bound(&c, tile.inner, span);
            (Expr::Var(r), Expr::Var(c))
        };
        let row = self.binary("*", Value::int(r, Ty::INT), ldm);
        let off = self.binary("+", row, Value::int(c, Ty::INT));
        let p = self.binary("+", base, off);
        let lv = self.deref_value(p, n)?;
        if write {
            let ty = self.lval_type(&lv);
            self.write(&lv, arbitrary(&ty), n)
        } else {
            self.read(&lv, n).map(|_| ())
        }
    }

    /// `assume 0 <= x < k`.
    fn bound(&mut self, x: &str, k: i64, span: kpl::ir::Span) {
        let v = Expr::Var(x.to_string());
        let e = fold::bin(
            BinOp::And,
            fold::bin(BinOp::Le, Expr::Int(0), v.clone()),
            fold::bin(BinOp::Lt, v, Expr::Int(k)),
        );
        self.emit(StmtKind::Assume(e), span);
    }
}

fn rem(a: Expr, b: Expr) -> Expr {
    fold::bin(BinOp::Rem, a, b)
}

#[cfg(test)]
mod tests {
    use super::tile_of;

    #[test]
    fn tiles_follow_the_fragment_and_the_layout() {
        let t = |ty: &str, l| tile_of(ty, l).map(|t| (t.outer, t.inner));
        let a = "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major>";
        assert_eq!(t(a, None), Some((16, 16)));
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major>",
                None
            ),
            Some((32, 16))
        );
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major>",
                None
            ),
            Some((16, 32))
        );
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major>",
                None
            ),
            Some((16, 8))
        );
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major>",
                None
            ),
            Some((8, 16))
        );
        let acc = "wmma::fragment<wmma::accumulator, 8, 32, 16, float>";
        assert_eq!(t(acc, Some("wmma::mem_row_major")), Some((8, 32)));
        assert_eq!(t(acc, Some("nvcuda::wmma::mem_col_major")), Some((32, 8)));
        // A layout only known at run time, a template parameter, an alias: unknown.
        assert_eq!(t(acc, Some("layout")), None);
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_a, M, N, K, half, wmma::row_major>",
                None
            ),
            None
        );
        assert_eq!(t("FragA", None), None);
    }
}
