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
//! A fragment type the front end cannot read (a template parameter, an alias), a layout
//! that is not `wmma::mem_row_major`/`mem_col_major` written out, sub-byte element types
//! (`precision::u4`, `b1`: tiles not of whole bytes) and a pointer to elements of
//! another size are unsupported.

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
            let tile = l.tile(*frag, rest.first().copied(), c.n)?;
            l.tile_access(*ptr, *ldm, tile, false, c.n)?;
            l.set_fragment(*frag, c.n)?;
        }
        ("store_matrix_sync", [ptr, frag, ldm, rest @ ..]) => {
            let tile = l.tile(*frag, rest.first().copied(), c.n)?;
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

/// The tile a fragment covers in memory: `outer × inner` elements.
#[derive(Clone, Copy, Debug)]
struct Tile {
    outer: i64,
    inner: i64,
}

/// A name of `nvcuda::wmma` as the file may write it: `row_major`, `wmma::row_major` or
/// `nvcuda::wmma::row_major` (anything else, `my::row_major`, is not known to be it).
fn wmma_name(text: &str) -> Option<&str> {
    let t = text.trim();
    let bare = t
        .strip_prefix("nvcuda::wmma::")
        .or_else(|| t.strip_prefix("wmma::"))
        .unwrap_or(t);
    (!bare.contains("::") && !bare.is_empty()).then_some(bare)
}

/// Bytes of a fragment's element type in memory, for the types whose tiles are arrays
/// of whole bytes (`precision::u4`, `s4`, `b1` pack several elements in a byte: none).
fn element_bytes(text: &str) -> Option<u64> {
    match text.trim() {
        "half" | "__half" | "__nv_bfloat16" | "nv_bfloat16" => Some(2),
        "float" | "int" | "unsigned" | "unsigned int" => Some(4),
        "double" => Some(8),
        "signed char" | "unsigned char" | "char" | "int8_t" | "uint8_t" => Some(1),
        t => match t.strip_prefix("nvcuda::").unwrap_or(t) {
            "wmma::precision::tf32" | "precision::tf32" => Some(4),
            "wmma::precision::bf16" | "precision::bf16" => Some(2),
            _ => None,
        },
    }
}

/// `matrix_a, 16, 16, 16, half, row_major` → the tile of a fragment of that type (its
/// element size in bytes, outer × inner), with the layout given at the call for an
/// accumulator (`mem_row_major`).
fn tile_of(type_text: &str, call_layout: Option<&str>) -> Option<(u64, Tile)> {
    let inner_args = type_text.split_once('<')?.1.rsplit_once('>')?.0;
    let args: Vec<&str> = inner_args.split(',').map(str::trim).collect();
    let usage = wmma_name(args.first()?)?;
    let dims: Vec<i64> = args
        .get(1..4)?
        .iter()
        .map(|a| a.parse().ok())
        .collect::<Option<_>>()?;
    let (m, n, k) = (dims[0], dims[1], dims[2]);
    let bytes = element_bytes(args.get(4)?)?;
    let layout = match usage {
        "accumulator" => match call_layout.and_then(wmma_name) {
            Some("mem_row_major") => "row_major",
            Some("mem_col_major") => "col_major",
            _ => return None,
        },
        _ => wmma_name(args.get(5)?)?,
    };
    let (rows, cols) = match usage {
        "matrix_a" => (m, k),
        "matrix_b" => (k, n),
        "accumulator" => (m, n),
        _ => return None,
    };
    let (outer, inner) = match layout {
        "row_major" => (rows, cols),
        "col_major" => (cols, rows),
        _ => return None,
    };
    let ok = (1..=MAX_DIM).contains(&outer) && (1..=MAX_DIM).contains(&inner) && (outer * inner) % 32 == 0;
    ok.then_some((bytes, Tile { outer, inner }))
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The tile of the fragment argument `frag` (its declared type), with the layout
    /// argument of the call for accumulators, and its element size in bytes.
    fn tile(&mut self, frag: Node<'t>, layout: Option<Node<'t>>, n: Node<'t>) -> R<(u64, Tile)> {
        let ty = match self.expr(frag)? {
            Ref::L(lv) => self.lval_type(&lv),
            Ref::V(v) => v.ty,
        };
        let layout = match layout {
            // `wmma::mem_row_major`, unless a variable of the file has that name.
            Some(x) if matches!(x.kind(), "identifier" | "qualified_identifier") => {
                let t = self.text(x).to_string();
                self.lookup(wmma_name(&t).unwrap_or("")).is_none().then_some(t)
            }
            Some(x) => {
                self.rvalue(x)?;
                None
            }
            None => None,
        };
        let text = match &ty {
            Ty::Opaque(t) => t.clone(),
            _ => String::new(),
        };
        tile_of(&text, layout.as_deref()).ok_or_else(|| {
            self.unsupported(
                n,
                "a tensor-core tile whose shape, layout or element type autosync cannot read from the \
                 fragment's type and the layout argument",
                "declare the fragment as `wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>` \
                 (numbers and `wmma::` names), with `wmma::mem_row_major`/`mem_col_major` at the call",
            )
        })
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
    /// module documentation. The pointer must be to elements of the fragment's size
    /// (`ldm` and the tile count elements).
    fn tile_access(
        &mut self,
        ptr: Node<'t>,
        ldm: Node<'t>,
        (bytes, tile): (u64, Tile),
        write: bool,
        n: Node<'t>,
    ) -> R<()> {
        let span = self.span(n);
        let base = self.rvalue(ptr)?;
        let ldm = self.rvalue(ldm)?;
        let pointee = match &base.ty {
            Ty::Ptr(t) => t.layout().0,
            _ => 0,
        };
        if pointee != bytes {
            return Err(self.unsupported(
                n,
                "a tensor-core tile through a pointer to elements of another size than the fragment's",
                "pass a pointer to the fragment's element type",
            ));
        }
        let (r, c) = if write {
            if self.opts.launch.warp_size.is_some_and(|w| w != 32) {
                return Err(self.unsupported(
                    n,
                    "a tensor-core store with warps of other than 32 threads",
                    "",
                ));
            }
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
        let t = |ty: &str, l| tile_of(ty, l).map(|(_, t)| (t.outer, t.inner));
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
        // Names that only end like wmma's, sub-byte elements, layouts that are not names.
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_a, 32, 8, 16, half, my::row_major>",
                None
            ),
            None
        );
        assert_eq!(
            t(
                "wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::u4, wmma::row_major>",
                None
            ),
            None
        );
        assert_eq!(
            t(acc, Some("t ? wmma::mem_col_major : wmma::mem_row_major")),
            None
        );
        assert_eq!(
            tile_of(
                "wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>",
                None
            )
            .map(|(b, _)| b),
            Some(4)
        );
        assert_eq!(
            tile_of(
                "wmma::fragment<wmma::accumulator, 8, 8, 4, double>",
                Some("wmma::mem_row_major")
            )
            .map(|(b, _)| b),
            Some(8)
        );
    }
}
