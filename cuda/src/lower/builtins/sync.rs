//! Synchronization: `__syncthreads()` (and `cg::sync`/`.sync()` of a thread block) is a
//! barrier; `__syncwarp()` with the full mask (or none) is a warp barrier, with a
//! partial mask no synchronization (sound: fewer barriers means more races); fences
//! (`__threadfence*`) order nothing between threads in the SDV semantics and vanish.
//!
//! Cooperative groups (see [`GroupKind`]): a `thread_block`'s sync is a barrier; a
//! `grid_group`'s sync is a grid barrier ([`StmtKind::GridBarrier`]: it orders every
//! thread of the grid, and must be reached by all of them); a `thread_block_tile<32>`'s sync is a warp barrier
//! when warps have 32 threads (the tile is then the warp: same threads, same
//! divergence rule); the sync of any other group (smaller tiles, `coalesced_group`, a
//! `thread_group` whose size is not known here) synchronizes nothing, which can only
//! add reports (its divergence is not checked).

use tree_sitter::Node;

use super::Call;
use crate::lower::expr::dim3;
use crate::lower::{Lowerer, R, V, Value, fold};
use crate::program::named_children;
use crate::types::Ty;
use kpl::ir::{BinOp, Builtin, Dim, Expr, StmtKind};

/// Barriers, warp barriers, fences, and the cooperative groups' free functions.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let span = l.span(c.n);
    Ok(Some(match c.name {
        "__syncthreads" | "__barrier_sync" => {
            l.emit(StmtKind::Barrier, span);
            Value::void()
        }
        "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
            l.eval_args(c.args)?;
            l.emit(StmtKind::Barrier, span);
            l.block_uniform_result(span)
        }
        "__syncwarp" => {
            // A warp barrier for the full warp; a partial mask synchronizes only
            // some lanes, which is modelled as no synchronization (sound).
            let vals = l.eval_args(c.args)?;
            let full = match vals.first().map(|v| &v.v) {
                None => true,
                Some(V::Int(e)) => fold::int(e).is_some_and(fold::full_warp_mask),
                Some(_) => false,
            };
            if full {
                l.emit(StmtKind::WarpBarrier, span);
            }
            Value::void()
        }
        "__threadfence" | "__threadfence_block" | "__threadfence_system" => {
            l.eval_args(c.args)?;
            // A fence of the device (or wider) may release a last-block ticket.
            if c.name != "__threadfence_block" {
                l.fence_marker(l.span(c.n));
            }
            Value::void()
        }
        "sync" if c.scope.contains("::") || l.frame().this.is_none() => {
            let vals = l.eval_args(c.args)?;
            match vals.first().map(|v| v.ty.to_string()) {
                Some(group) if is_group(&group) => l.group_sync(&group, c.n)?,
                // Not a group: not `cooperative_groups::sync`, some function the file
                // does not define.
                _ => l.unknown_function(c.name, &vals, c.n),
            }
        }
        "this_thread_block" => Value::arb(Ty::Opaque("thread_block".into())),
        "this_grid" => Value::arb(Ty::Opaque("grid_group".into())),
        "tiled_partition" => {
            // `tiled_partition<N>(g)` is a `thread_block_tile<N>`; `tiled_partition(g, n)`
            // a `thread_group` of n threads (its size unknown to the type).
            let vals = l.eval_args(c.args)?;
            let Some(parent) = vals.first().map(|v| v.ty.to_string()).filter(|t| is_group(t)) else {
                return Ok(Some(l.unknown_function(c.name, &vals, c.n)));
            };
            let parent: String = parent.chars().filter(|c| !c.is_whitespace()).collect();
            let n = c.targs.and_then(|t| named_children(t).into_iter().next());
            match n.and_then(|n| l.const_eval(n)) {
                Some(v) => Value::arb(Ty::Opaque(format!("thread_block_tile<{v},{parent}>"))),
                None => Value::arb(Ty::Opaque("thread_group".into())),
            }
        }
        "coalesced_threads" => Value::arb(Ty::Opaque("coalesced_group".into())),
        "reduce" if c.args.len() >= 2 => {
            let group = l.rvalue(c.args[0])?;
            if !is_group(&group.ty.to_string()) {
                // Not `cooperative_groups::reduce(group, value, op)`.
                let mut vals = vec![group];
                vals.extend(l.eval_args(&c.args[1..])?);
                return Ok(Some(l.unknown_function(c.name, &vals, c.n)));
            }
            let value = l.rvalue(c.args[1])?;
            for op in &c.args[2..] {
                l.expr(*op)?;
            }
            let op = c.args.get(2).map(|o| l.text(*o).to_string()).unwrap_or_default();
            if !exactly_commutative(&op, &value.ty) {
                return Ok(Some(Value::arb(value.ty)));
            }
            l.warp_collective_result(&group.ty.to_string(), value.ty, span)
        }
        _ => return Ok(None),
    }))
}

/// Whether a type is one of the cooperative groups (`thread_block`, `grid_group`,
/// `thread_block_tile<32>`, `coalesced_group`, `thread_group`, ...), by its name: the
/// argument types that `cooperative_groups::sync` and `tiled_partition` take.
pub(in crate::lower) fn is_group(ty: &str) -> bool {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let base = t.split('<').next().unwrap_or(&t);
    let name = base.rsplit("::").next().unwrap_or(base);
    matches!(
        name,
        "thread_block"
            | "grid_group"
            | "multi_grid_group"
            | "thread_block_tile"
            | "coalesced_group"
            | "thread_group"
            | "cluster_group"
    )
}

/// What kind of cooperative group a value of a (C++) type is, by the type's name, and
/// how its threads are numbered as far as the type says.
///
/// The front end names the groups it creates after what they are partitioned from:
/// `tiled_partition<N>(g)` has the type `thread_block_tile<N,P>` with `P` the type of
/// `g`, so the rank of a thread in the tile is known from `P`'s (a tile partitions its
/// parent by the parent's ranks). A tile declared as `thread_block_tile<N>` (a parameter,
/// a variable) takes the type of its initializer when that is a group ([`refine`]); a
/// tile whose parent is not known (`thread_block_tile<32>` with a type-erased parent, a
/// tile of a `coalesced_group`) has only its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::lower) enum GroupKind {
    /// `thread_block`: the threads of one block.
    Block,
    /// `grid_group`, `multi_grid_group`.
    Grid,
    /// `thread_block_tile<N, P>`: `size` when `N` is written as a number, `parent` when
    /// `P` is written and is itself a group.
    Tile {
        size: Option<u32>,
        parent: Option<Box<GroupKind>>,
    },
    /// `coalesced_group`, `thread_group` (any size), anything else.
    Other,
}

/// A type's text without spaces, and its base name without namespaces and its template
/// arguments split at the top-level commas.
fn split_type(ty: &str) -> (String, Vec<String>) {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let (base, args) = match t.find('<') {
        Some(i) => (&t[..i], t[i + 1..].strip_suffix('>').unwrap_or(&t[i + 1..])),
        None => (t.as_str(), ""),
    };
    let name = base.rsplit("::").next().unwrap_or(base).to_string();
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(args[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !args.is_empty() {
        parts.push(args[start..].to_string());
    }
    (name, parts)
}

/// A group type as the user wrote it: a tile without the parent the front end records
/// (`thread_block_tile<8,thread_block>` is `thread_block_tile<8>`).
fn as_written(ty: &str) -> String {
    let (name, args) = split_type(ty);
    match (name.as_str(), args.first()) {
        ("thread_block_tile", Some(n)) => format!("thread_block_tile<{n}>"),
        _ => ty.to_string(),
    }
}

impl GroupKind {
    /// The kind of a group type's name (`cg::thread_block_tile<32>`, `thread_block`,
    /// `thread_block_tile<4,thread_block_tile<32,thread_block>>`).
    pub(in crate::lower) fn of(ty: &str) -> GroupKind {
        let (name, args) = split_type(ty);
        match name.as_str() {
            "thread_block" => GroupKind::Block,
            "grid_group" | "multi_grid_group" => GroupKind::Grid,
            "thread_block_tile" => GroupKind::Tile {
                size: args.first().and_then(|a| a.parse().ok()).filter(|n| *n > 0),
                parent: args
                    .get(1)
                    .filter(|p| is_group(p))
                    .map(|p| Box::new(GroupKind::of(p))),
            },
            _ => GroupKind::Other,
        }
    }

    /// The rank of the calling thread in the group (`thread_rank()`), when the type says
    /// it: a block's threads by `x`, then `y`, then `z`; the grid's by block rank, then
    /// rank in the block; a tile's by its parent's rank modulo its size.
    pub(super) fn rank(&self) -> Option<Expr> {
        match self {
            GroupKind::Block => Some(block_rank()),
            GroupKind::Grid => Some(fold::add(
                fold::mul(grid_block_rank(), block_size()),
                block_rank(),
            )),
            GroupKind::Tile {
                size: Some(n),
                parent: Some(p),
            } => Some(fold::bin(BinOp::Rem, p.rank()?, Expr::Int(i64::from(*n)))),
            _ => None,
        }
    }

    /// The number of threads of the group (`size()`, `num_threads()`): a tile's is its
    /// template argument, whatever its parent (`thread_block_tile<N>::num_threads()` is a
    /// constant).
    fn size(&self) -> Option<Expr> {
        match self {
            GroupKind::Block => Some(block_size()),
            GroupKind::Grid => Some(fold::mul(grid_size(), block_size())),
            GroupKind::Tile { size: Some(n), .. } => Some(Expr::Int(i64::from(*n))),
            _ => None,
        }
    }

    /// A tile's index among the tiles its parent was partitioned into
    /// (`meta_group_rank()`): the parent's rank divided by the tile size.
    fn meta_group_rank(&self) -> Option<Expr> {
        match self {
            GroupKind::Tile {
                size: Some(n),
                parent: Some(p),
            } => Some(fold::bin(BinOp::Div, p.rank()?, Expr::Int(i64::from(*n)))),
            _ => None,
        }
    }

    /// How many tiles the parent was partitioned into (`meta_group_size()`): the
    /// parent's size divided by the tile size, rounded up (a last, partial tile counts).
    fn meta_group_size(&self) -> Option<Expr> {
        match self {
            GroupKind::Tile {
                size: Some(n),
                parent: Some(p),
            } => {
                let n = i64::from(*n);
                Some(fold::div(fold::add(p.size()?, Expr::Int(n - 1)), Expr::Int(n)))
            }
            _ => None,
        }
    }
}

/// The type a declared group (a variable or parameter of type `thread_block_tile<32>`,
/// `thread_group`, `auto`) gets from the group it is initialized with: the initializer's
/// when both are groups, since a group's methods answer for the group it is, whatever
/// the static type it is seen through; the declared type otherwise.
pub(in crate::lower) fn refine(declared: &Ty, init: &Ty) -> Ty {
    match (declared, init) {
        (Ty::Opaque(d), Ty::Opaque(i)) if is_group(d) && is_group(i) => init.clone(),
        _ => declared.clone(),
    }
}

/// Whether `cg::reduce`'s operator (as written) gives the same result in either
/// order, bit for bit, on values of type `ty`: `plus`, `bit_and`, `bit_or`,
/// `bit_xor`, and `less`/`greater` on integers (on floating point they tell `+0` and
/// `-0` or NaNs apart by order). A lane of the butterfly computes `op(mine, other)`,
/// its partner `op(other, mine)`.
fn exactly_commutative(op: &str, ty: &Ty) -> bool {
    let name = op.split('<').next().unwrap_or(op);
    let name = name.rsplit("::").next().unwrap_or(name).trim();
    match name {
        "plus" | "bit_and" | "bit_or" | "bit_xor" => true,
        "less" | "greater" => ty.is_int(),
        _ => false,
    }
}

fn dims(b: fn(Dim) -> Builtin) -> [Expr; 3] {
    Dim::ALL.map(|d| Expr::Builtin(b(d)))
}

/// `threadIdx` as one number: `x + blockDim.x * (y + blockDim.y * z)`.
pub(super) fn block_rank() -> Expr {
    let [tx, ty, tz] = dims(Builtin::Tid);
    let [bx, by, _] = dims(Builtin::Bdim);
    fold::add(tx, fold::mul(bx, fold::add(ty, fold::mul(by, tz))))
}

/// `blockIdx` as one number, likewise over `gridDim`.
fn grid_block_rank() -> Expr {
    let [x, y, z] = dims(Builtin::Bid);
    let [gx, gy, _] = dims(Builtin::Gdim);
    fold::add(x, fold::mul(gx, fold::add(y, fold::mul(gy, z))))
}

fn block_size() -> Expr {
    let [x, y, z] = dims(Builtin::Bdim);
    fold::mul(fold::mul(x, y), z)
}

fn grid_size() -> Expr {
    let [x, y, z] = dims(Builtin::Gdim);
    fold::mul(fold::mul(x, y), z)
}

impl<'t> Lowerer<'_, 't> {
    /// The result of `__syncthreads_or/and/count`: the same value in every thread of
    /// the block (the barrier combines every thread's predicate), so a barrier under
    /// `if (__syncthreads_or(done))` does not diverge. Modelled as a read, after the
    /// barrier, of a cell of its own in a shared array nothing writes: one read instance
    /// by all threads of a block is one value (the verifier's `read_class`), a new one
    /// at every call and loop iteration.
    pub(in crate::lower) fn block_uniform_result(&mut self, span: kpl::ir::Span) -> Value {
        let a = self.array(
            crate::lower::ArrayKey::SyncResults,
            "__syncthreads_result",
            crate::lower::ArraySpace::Shared,
            4,
        );
        let array = self.arrays[a].kpl.clone();
        let k = self.sync_results;
        self.sync_results += 1;
        let var = self.local("_synced", None, span);
        self.emit(
            StmtKind::Read {
                var: var.clone(),
                array,
                index: Expr::Int(k),
                ty: Some(kpl::IntTy::I32),
            },
            span,
        );
        Value::int(Expr::Var(var), Ty::INT)
    }

    /// The result of a collective of group `group` that every thread of the group
    /// receives alike (`cg::reduce`): of a tile of one 32-thread warp, one value per
    /// warp ([`Lowerer::warp_uniform_value`]); of any other group an arbitrary value
    /// per thread.
    fn warp_collective_result(&mut self, group: &str, ty: Ty, span: kpl::ir::Span) -> Value {
        // A tile of 32 threads cut from the block (or from such a tile): one warp. A
        // tile of a coalesced group is 32 of the active threads, not a warp.
        let kind = GroupKind::of(group);
        if !matches!(kind, GroupKind::Tile { size: Some(32), .. }) || kind.rank().is_none() {
            return Value::arb(ty);
        }
        self.warp_uniform_value(ty, span)
    }

    /// One arbitrary value per warp of 32 threads (`warp_havoc`): of an integer or
    /// floating-point type, when warps have 32 threads; else a value of each thread's own.
    pub(in crate::lower) fn warp_uniform_value(&mut self, ty: Ty, span: kpl::ir::Span) -> Value {
        let warp = self.opts.launch.warp_size.is_none_or(|w| w == 32);
        if !warp || !(ty.is_int() || matches!(ty, Ty::Float { .. })) {
            return Value::arb(ty);
        }
        let var = self.local("_warp", None, span);
        self.emit(
            StmtKind::Havoc {
                var: var.clone(),
                warp: true,
            },
            span,
        );
        match ty {
            Ty::Float { .. } => Value::float(Expr::Var(var), ty),
            _ => Value::int(Expr::Var(var), ty),
        }
    }

    /// `cg::sync(g)` or `g.sync()` for a cooperative group of type `group`.
    pub(super) fn group_sync(&mut self, group: &str, n: Node<'t>) -> R<Value> {
        let span = self.span(n);
        match GroupKind::of(group) {
            GroupKind::Block => self.emit(StmtKind::Barrier, span),
            // A grid-wide barrier (the kernel is launched cooperatively, or the sync
            // is undefined): it orders every thread of the grid.
            GroupKind::Grid => self.emit(StmtKind::GridBarrier, span),
            GroupKind::Tile { size: Some(32), .. } if self.opts.launch.warp_size.is_none_or(|w| w == 32) => {
                self.emit(StmtKind::WarpBarrier, span);
            }
            GroupKind::Tile { .. } | GroupKind::Other => self.note(format!(
                "the sync() of a `{}` (a group other than a thread block, a grid or a tile of one 32-thread \
                 warp) is taken as no synchronization: it may report races that the sync orders",
                as_written(group)
            )),
        }
        Ok(Value::void())
    }

    /// Methods of cooperative groups (an opaque `thread_block`, tile, ...).
    pub(in crate::lower) fn group_method(
        &mut self,
        group: &str,
        method: &str,
        args: &[Node<'t>],
        n: Node<'t>,
    ) -> R<Value> {
        self.eval_args(args)?;
        let kind = GroupKind::of(group);
        let block = kind == GroupKind::Block;
        let grid = kind == GroupKind::Grid;
        let ull = Ty::Int {
            bytes: 8,
            signed: false,
        };
        let known = |e: Option<Expr>, ty: Ty| match e {
            Some(e) => Value::int(e, ty),
            None => Value::arb(ty),
        };
        Ok(match method {
            "sync" => return self.group_sync(group, n),
            "thread_rank" if grid => known(kind.rank(), ull),
            "size" | "num_threads" if grid => known(kind.size(), ull),
            "thread_rank" => known(kind.rank(), Ty::UINT),
            "size" | "num_threads" => known(kind.size(), Ty::UINT),
            "meta_group_rank" => known(kind.meta_group_rank(), Ty::UINT),
            "meta_group_size" => known(kind.meta_group_size(), Ty::UINT),
            "block_rank" if grid => Value::int(grid_block_rank(), ull),
            "num_blocks" if grid => Value::int(grid_size(), ull),
            "thread_index" if block => dim3(Builtin::Tid),
            "group_index" if block => dim3(Builtin::Bid),
            "group_dim" | "dim_threads" if block => dim3(Builtin::Bdim),
            "block_index" if grid => dim3(Builtin::Bid),
            "dim_blocks" if grid => dim3(Builtin::Gdim),
            _ => Value::arb(Ty::UINT),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_knows_its_parent_chain_down_to_the_block() {
        let warp = GroupKind::of("thread_block_tile<32,thread_block>");
        assert_eq!(
            warp,
            GroupKind::Tile {
                size: Some(32),
                parent: Some(Box::new(GroupKind::Block))
            }
        );
        let quad = GroupKind::of("cg::thread_block_tile<4, cg::thread_block_tile<32, cg::thread_block>>");
        assert_eq!(
            quad,
            GroupKind::Tile {
                size: Some(4),
                parent: Some(Box::new(warp.clone()))
            }
        );
        let rank = quad.rank().map(|e| kpl::syntax::print_expr(&e));
        assert_eq!(
            rank.as_deref(),
            Some("(tid + bdim * (tid.y + bdim.y * tid.z)) % 32 % 4")
        );
        let meta = quad.meta_group_rank().map(|e| kpl::syntax::print_expr(&e));
        assert_eq!(
            meta.as_deref(),
            Some("(tid + bdim * (tid.y + bdim.y * tid.z)) % 32 / 4")
        );
        assert_eq!(
            quad.meta_group_size()
                .map(|e| kpl::syntax::print_expr(&e))
                .as_deref(),
            Some("8")
        );
    }

    #[test]
    fn a_tile_without_a_known_parent_has_only_its_size() {
        for ty in [
            "thread_block_tile<32>",
            "thread_block_tile<4,coalesced_group>",
            "thread_group",
        ] {
            let g = GroupKind::of(ty);
            assert_eq!(g.rank(), None, "{ty}");
            assert_eq!(g.meta_group_rank(), None, "{ty}");
        }
        assert_eq!(GroupKind::of("thread_block_tile<32>").size(), Some(Expr::Int(32)));
        assert_eq!(GroupKind::of("thread_group").size(), None);
    }

    #[test]
    fn a_group_seen_through_another_group_type_keeps_its_own() {
        let tile = Ty::Opaque("thread_block_tile<32,thread_block>".into());
        let declared = Ty::Opaque("cg::thread_block_tile<32>".into());
        assert_eq!(refine(&declared, &tile), tile);
        assert_eq!(refine(&Ty::INT, &tile), Ty::INT);
        assert_eq!(refine(&declared, &Ty::INT), declared);
    }
}
