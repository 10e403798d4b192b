//! Emission: appending lowered statements to the current block, locals, opaque
//! accesses of code autosync cannot see, and the places statements get
//! ([`Lowerer::finalize`]); at the kernel's end, the last-block ticket pass.

use std::collections::HashSet;

use tree_sitter::Node;

use super::{ArrayKey, ArraySpace, LVal, Lowerer, R, SCRATCH, V, Value, VarId, ticket};
use kpl::ir::{Block, Expr, Param, Place, Space, Span, Stmt, StmtId, StmtKind};

/// The span of a statement whose place becomes `at` (a barrier after it is written after
/// `at`) while reports keep showing where it really is: the last statement of an
/// inlined function takes the call's place (barriers go after the call) and keeps its
/// own text and call chain ([`Span::elsewhere`], file 0 in the main file, and
/// [`Span::call`]); a statement of the code being lowered keeps the header place of its
/// text, if any.
pub(super) fn placed_span(own: Span, at: Span) -> Span {
    if own.call.is_some() && own.call != at.call {
        Span {
            elsewhere: Some(own.real()),
            call: own.call,
            ..at
        }
    } else {
        Span {
            elsewhere: own.elsewhere.filter(|_| at.elsewhere.is_none()),
            ..at
        }
    }
}

impl<'p, 't> Lowerer<'p, 't> {
    /// Appends a statement to the current block. It has no place until
    /// [`finalize`](Self::finalize) gives one to the last statement of a source statement.
    pub fn emit(&mut self, kind: StmtKind, span: Span) {
        let barrier = matches!(
            kind,
            StmtKind::Barrier | StmtKind::WarpBarrier | StmtKind::GridBarrier
        );
        if let Some(b) = self.blocks.last_mut() {
            b.push(Stmt {
                id: StmtId(0),
                kind,
                span,
                place: Place::Nowhere,
            });
        }
        // A copy in flight goes on in the interval the barrier opens.
        if barrier && !self.copies.is_empty() {
            self.repeat_pending();
        }
    }

    /// `__threadfence()`: a marker for [`ticket`] where the statement was (nothing
    /// while a copy is in flight: a statement there repeats the copy's accesses).
    pub fn fence_marker(&mut self, span: Span) {
        if self.copies.is_empty() {
            let var = self.fresh("_fence");
            self.fences.insert(var.clone());
            self.emit(StmtKind::Local { var, init: None }, span);
        }
    }

    /// Makes a last-block ticket's ordering explicit ([`ticket`]), with a note saying
    /// so (or why a ticket orders nothing), and removes the fence markers.
    pub(super) fn last_block_ticket(&mut self, stmts: &mut Vec<Stmt>) {
        let space_of = |name: &str| {
            self.arrays
                .iter()
                .find(|a| a.kpl == name)
                .map(|a| a.space)
                .or_else(|| {
                    self.params.iter().find_map(|p| match p {
                        Param::Array { name: n, space } if n == name => Some(match space {
                            Space::Shared => ArraySpace::Shared,
                            Space::Global => ArraySpace::Global,
                        }),
                        _ => None,
                    })
                })
        };
        let global = |a: &str| space_of(a) == Some(ArraySpace::Global);
        let shared = |a: &str| space_of(a) == Some(ArraySpace::Shared);
        let scalars: HashSet<String> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Scalar { name, .. } => Some(name.clone()),
                Param::Array { .. } => None,
            })
            .collect();
        // Reads autosync cannot see into go to the scratch local.
        let mut noncoherent = self.noncoherent.clone();
        noncoherent.insert(SCRATCH.to_string());
        let cx = ticket::Context {
            fences: &self.fences,
            global: &global,
            shared: &shared,
            scalars: &scalars,
            block_scoped: &self.block_scoped,
            noncoherent: &noncoherent,
        };
        let note = ticket::order_last_block(stmts, &cx);
        ticket::remove_fences(stmts, &self.fences);
        if let Some(n) = note {
            self.note(n);
        }
    }

    /// Adds to what the object variable `id` holds (see [`Lowerer::held`]).
    pub fn hold(&mut self, id: VarId, parts: Vec<Value>) {
        let ty = self.vars[id].ty.clone();
        let entry = self.held.entry(id).or_insert_with(|| Value {
            v: V::Struct(Vec::new()),
            ty,
        });
        if let V::Struct(have) = &mut entry.v {
            for p in parts {
                let known =
                    matches!(&p.v, V::Ptr(q) if have.iter().any(|h| matches!(&h.v, V::Ptr(r) if r == q)));
                if !known {
                    have.push(p);
                }
            }
        }
    }

    /// The arrays code autosync cannot see may reach in shared and/or global memory
    /// (never the hidden results of `__syncthreads_or`).
    pub fn reachable_arrays(&self, shared: bool, global: bool) -> Vec<usize> {
        (0..self.arrays.len())
            .filter(|&a| self.arrays[a].key != ArrayKey::SyncResults)
            .filter(|&a| match self.arrays[a].space {
                ArraySpace::Shared => shared,
                ArraySpace::Global => global,
                ArraySpace::Constant | ArraySpace::Private => false,
            })
            .collect()
    }

    /// The innermost function being lowered (not the kernel's own frame).
    pub fn current_function(&self) -> Option<usize> {
        self.frames.iter().rev().find_map(|f| f.func)
    }

    /// A read of `array[index]` whose value nobody uses: an access the lowering must keep
    /// (of code it cannot see: inline PTX, a function the file does not define).
    pub fn emit_opaque_read(&mut self, array: &str, index: Expr, span: Span) {
        let s = self.scratch();
        self.emit(
            StmtKind::Read {
                var: s,
                array: array.to_string(),
                index,
                ty: None,
            },
            span,
        );
    }

    /// [`Lowerer::read`] through a cache a fence does not reach (`__ldg`, a surface
    /// read): the locals it reads into are recorded for [`ticket`].
    pub fn noncoherent_read(&mut self, lv: &LVal, n: Node<'t>) -> R<Value> {
        let start = self.mark();
        let v = self.read(lv, n)?;
        let reads: Vec<String> = self
            .blocks
            .last()
            .map(|b| &b[start.min(b.len())..])
            .unwrap_or_default()
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Read { var, .. } => Some(var.clone()),
                _ => None,
            })
            .collect();
        self.noncoherent.extend(reads);
        Ok(v)
    }

    /// A write of an arbitrary value to `array[index]` (as [`Self::emit_opaque_read`]).
    pub fn emit_opaque_write(&mut self, array: &str, index: Expr, span: Span) {
        let s = self.scratch();
        self.emit(StmtKind::havoc(s.clone()), span);
        self.emit(
            StmtKind::Write {
                array: array.to_string(),
                index,
                value: Expr::Var(s),
            },
            span,
        );
    }

    /// Declares a fresh KPL local that will be assigned again.
    pub fn mutable_local(&mut self, base: &str, init: Option<Expr>, span: Span) -> String {
        let name = self.local(base, init, span);
        self.mutable.insert(name.clone());
        name
    }

    /// Declares a fresh KPL local and returns its name.
    pub fn local(&mut self, base: &str, init: Option<Expr>, span: Span) -> String {
        let name = self.fresh(base);
        self.emit(
            StmtKind::Local {
                var: name.clone(),
                init,
            },
            span,
        );
        name
    }

    /// Number of statements in the current block (to finalize a statement later).
    pub fn mark(&self) -> usize {
        self.blocks.last().map_or(0, Vec::len)
    }

    /// Gives the statements lowered from one source statement their places: only the
    /// last can have a barrier written after it, and only when the statement's text is
    /// exactly in the main file.
    ///
    /// While an asynchronous copy is in flight, the copy's accesses follow the place (see
    /// [`in_flight`](super::in_flight)): a barrier placed there does not end the copy's interval.
    pub fn finalize(&mut self, start: usize, n: Node<'t>) {
        let exact = self.frame().placeable
            && self.unplaceable_blocks == 0
            && self.prog.map.main_range(n.byte_range()).is_some();
        let span = self.span(n);
        let mut placed = false;
        if let Some(b) = self.blocks.last_mut() {
            let len = b.len();
            // A barrier is the statement's own only when it is all the statement does
            // (`__syncthreads();`): then `--strip` may delete the statement's text.
            let own_barrier = len == start + 1;
            for (i, s) in b.iter_mut().enumerate().skip(start) {
                if i + 1 == len && exact && (own_barrier || !s.kind.is_barrier()) {
                    s.place = Place::After;
                    s.span = placed_span(s.span, span);
                    placed = true;
                    // "After the else branch" is after the whole statement.
                    if let StmtKind::If {
                        else_blk: Some(e), ..
                    } = &mut s.kind
                    {
                        e.span.end = span.end;
                        e.span.end_line = span.end_line;
                    }
                } else {
                    s.place = Place::Nowhere;
                }
            }
        }
        if placed && !self.copies.is_empty() {
            self.repeat_pending();
        }
    }

    /// Lowers into a new block; returns the statements.
    pub fn in_block<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<(T, Vec<Stmt>)> {
        self.blocks.push(Vec::new());
        self.block_ids.push(self.blocks_made);
        self.blocks_made += 1;
        let r = f(self);
        self.block_ids.pop();
        let stmts = self.blocks.pop().unwrap_or_default();
        Ok((r?, stmts))
    }

    /// The number of the block statements go to now (see `block_ids`).
    pub fn block(&self) -> usize {
        self.block_ids.last().copied().unwrap_or(0)
    }

    /// Appends already lowered statements to the current block.
    pub fn extend(&mut self, stmts: Vec<Stmt>) {
        if let Some(b) = self.blocks.last_mut() {
            b.extend(stmts);
        }
    }

    /// Whether a barrier may be placed at the top of a block or label lowered now: not
    /// in text a macro hides, nor while an asynchronous copy is in flight (a barrier
    /// placed there would not repeat the copy's accesses, see [`in_flight`](super::in_flight); places after
    /// statements do, [`Lowerer::finalize`]).
    pub fn placeable(&self) -> bool {
        self.frame().placeable && self.unplaceable_blocks == 0 && self.copies.is_empty()
    }

    /// A block built from statements (made up by the lowering: no place at its top).
    pub fn made_block(&self, stmts: Vec<Stmt>, span: Span) -> Block {
        Block {
            stmts,
            span,
            braces: true,
            top: false,
        }
    }
}
