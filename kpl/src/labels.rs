//! The label tree of the AutoSync paper (Sec. III-A): statement labels arranged by their
//! enclosing blocks, with a start node as the leftmost child of every block, the
//! program text order `≺` (post-order), and label intervals `[ℓ1, ℓ2)`.
//!
//! A barrier "after label ℓ" is a barrier inserted as ℓ's right sibling; after a start
//! node it is a barrier at the top of the block. `if e A else B` is treated as the
//! paper's desugaring `if e A; if !e B`: the else branch is its own block, a sibling
//! right after the `if`, so a barrier after the `if` node would sit between the two
//! branches, which has no place in the source and is never a candidate.

use crate::ir::{Block, Kernel, Place, Span, Stmt, StmtId, StmtKind};

/// A node of the label tree. Stable only for the kernel the tree was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The kernel body, `main`.
    Main,
    /// The start node `ℓs` of the block whose label is the given one.
    Start(Label),
    /// A statement (for an `if`, it doubles as the label of its then-branch).
    Stmt(StmtId),
    /// The else branch of the given `if` statement.
    Else(StmtId),
}

/// What kind of block a block label opens (the paper's loops/conds split).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    Main,
    Cond,
    Loop,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    pub parent: Option<Label>,
    /// Children in program order; for a block, its start node comes first.
    pub children: Vec<Label>,
    /// Position in the post-order (the paper's `≺`).
    pub post: u32,
    /// Set when this node labels a block.
    pub block: Option<BlockKind>,
    /// Where the statement (or, for blocks, the braces) is in the source.
    pub span: Span,
    /// For block labels, the span of the block's braces (the then-branch for an `if`).
    pub span_block: Option<Span>,
    /// Whether a barrier may be placed after this label (a candidate for synthesis):
    /// the source has a place for it ([`Place`], [`Block::top`]) and it is not a barrier.
    pub candidate: bool,
    /// The statement is a barrier.
    pub barrier: bool,
    /// For statements and else branches: where a barrier after it is written (for an
    /// else branch, the place of its `if` statement: after the whole statement).
    pub place: Place,
    /// For block labels: whether the block (the then-branch for an `if`) has braces in
    /// the source ([`Block::braces`]).
    pub braces: bool,
}

#[derive(Clone, Debug)]
pub struct LabelTree {
    nodes: Vec<Node>,
    by_post: Vec<Label>,
}

impl LabelTree {
    pub fn new(kernel: &Kernel) -> LabelTree {
        let mut t = LabelTree {
            nodes: Vec::new(),
            by_post: Vec::new(),
        };
        let main = t.push(NodeKind::Main, None, Some(BlockKind::Main), kernel.body.span);
        t.add_block(main, &kernel.body);
        let mut post = 0;
        t.number(main, &mut post);
        t.by_post = vec![Label(0); t.nodes.len()];
        for (i, n) in t.nodes.iter().enumerate() {
            t.by_post[n.post as usize] = Label(i as u32);
        }
        t
    }

    fn push(&mut self, kind: NodeKind, parent: Option<Label>, block: Option<BlockKind>, span: Span) -> Label {
        let l = Label(self.nodes.len() as u32);
        self.nodes.push(Node {
            kind,
            parent,
            children: Vec::new(),
            post: 0,
            block,
            span,
            span_block: None,
            candidate: false,
            barrier: false,
            place: Place::After,
            braces: true,
        });
        if let Some(p) = parent {
            self.nodes[p.0 as usize].children.push(l);
        }
        l
    }

    fn add_block(&mut self, owner: Label, block: &Block) {
        self.nodes[owner.0 as usize].span_block = Some(block.span);
        self.nodes[owner.0 as usize].braces = block.braces;
        let start = self.push(NodeKind::Start(owner), Some(owner), None, block.span);
        self.nodes[start.0 as usize].candidate = block.top;
        for s in &block.stmts {
            self.add_stmt(owner, s);
        }
    }

    fn add_stmt(&mut self, parent: Label, s: &Stmt) {
        let kind = match &s.kind {
            StmtKind::If { .. } => Some(BlockKind::Cond),
            StmtKind::While { .. } | StmtKind::For { .. } => Some(BlockKind::Loop),
            _ => None,
        };
        let l = self.push(NodeKind::Stmt(s.id), Some(parent), kind, s.span);
        // Barriers are never candidates: one after another adds nothing.
        let placed = s.place != Place::Nowhere;
        self.nodes[l.0 as usize].candidate = !s.kind.is_barrier() && placed;
        self.nodes[l.0 as usize].barrier = s.kind.is_barrier();
        self.nodes[l.0 as usize].place = s.place;
        match &s.kind {
            StmtKind::If {
                then_blk, else_blk, ..
            } => {
                self.add_block(l, then_blk);
                if let Some(e) = else_blk {
                    // Between the branches is not a place in the source.
                    self.nodes[l.0 as usize].candidate = false;
                    let el = self.push(NodeKind::Else(s.id), Some(parent), kind, e.span);
                    self.nodes[el.0 as usize].candidate = placed;
                    self.nodes[el.0 as usize].place = s.place;
                    self.add_block(el, e);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => self.add_block(l, body),
            _ => {}
        }
    }

    fn number(&mut self, l: Label, post: &mut u32) {
        let children = self.nodes[l.0 as usize].children.clone();
        for c in children {
            self.number(c, post);
        }
        self.nodes[l.0 as usize].post = *post;
        *post += 1;
    }

    pub fn node(&self, l: Label) -> &Node {
        &self.nodes[l.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn main(&self) -> Label {
        Label(0)
    }

    /// All labels in program text order (`≺`).
    pub fn in_order(&self) -> impl Iterator<Item = Label> + '_ {
        self.by_post.iter().copied()
    }

    /// The label of a statement.
    pub fn label_of(&self, id: StmtId) -> Option<Label> {
        self.find(NodeKind::Stmt(id))
    }

    /// The label of the else branch of an `if` statement.
    pub fn else_of(&self, id: StmtId) -> Option<Label> {
        self.find(NodeKind::Else(id))
    }

    fn find(&self, kind: NodeKind) -> Option<Label> {
        self.nodes
            .iter()
            .position(|n| n.kind == kind)
            .map(|i| Label(i as u32))
    }

    /// The start node of a block label.
    pub fn start(&self, block: Label) -> Label {
        self.node(block).children[0]
    }

    /// `blks(ℓ)`: the enclosing blocks of ℓ (its ancestors), root first.
    pub fn blks(&self, l: Label) -> Vec<Label> {
        let mut out = Vec::new();
        let mut cur = self.node(l).parent;
        while let Some(p) = cur {
            out.push(p);
            cur = self.node(p).parent;
        }
        out.reverse();
        out
    }

    /// `loops(ℓ)`: the enclosing loops, outermost first.
    pub fn loops(&self, l: Label) -> Vec<Label> {
        self.blks_of_kind(l, BlockKind::Loop)
    }

    /// `conds(ℓ)`: the enclosing conditionals (then and else branches), outermost first.
    pub fn conds(&self, l: Label) -> Vec<Label> {
        self.blks_of_kind(l, BlockKind::Cond)
    }

    fn blks_of_kind(&self, l: Label, kind: BlockKind) -> Vec<Label> {
        self.blks(l)
            .into_iter()
            .filter(|b| self.node(*b).block == Some(kind))
            .collect()
    }

    /// The innermost enclosing block, `last(blks(ℓ))`.
    pub fn parent(&self, l: Label) -> Option<Label> {
        self.node(l).parent
    }

    /// `ℓ1 ≺ ℓ2` in program text order.
    pub fn precedes(&self, a: Label, b: Label) -> bool {
        self.node(a).post < self.node(b).post
    }

    /// The interval `[ℓ1, ℓ2)`: labels ℓ with `ℓ1 ⪯ ℓ ≺ ℓ2` whose enclosing blocks are
    /// all enclosing blocks of ℓ1 or of ℓ2. Labels are returned in program order.
    pub fn interval(&self, l1: Label, l2: Label) -> Vec<Label> {
        let lo = self.node(l1).post;
        let hi = self.node(l2).post;
        let mut allowed = self.blks(l1);
        allowed.extend(self.blks(l2));
        (lo..hi.max(lo))
            .map(|p| self.by_post[p as usize])
            .filter(|l| self.blks(*l).iter().all(|b| allowed.contains(b)))
            .collect()
    }

    /// The children of a block, `[ℓs, ℓ)`.
    pub fn children_of(&self, block: Label) -> Vec<Label> {
        self.interval(self.start(block), block)
    }

    /// The label of `other` (a tree of a kernel with the same statement ids, e.g. the
    /// same kernel with or without barriers) that stands for the same place as `l`.
    pub fn same_place(&self, other: &LabelTree, l: Label) -> Option<Label> {
        match other.node(l).kind {
            NodeKind::Main => Some(self.main()),
            NodeKind::Stmt(id) => self.label_of(id),
            NodeKind::Else(id) => self.else_of(id),
            NodeKind::Start(b) => self.same_place(other, b).map(|b| self.start(b)),
        }
    }

    /// Where the barrier labelled `l` stands: the label it is the right sibling of,
    /// skipping barriers right before it (so `a; barrier; barrier;` gives `a` twice).
    pub fn position_of_barrier(&self, l: Label) -> Option<Label> {
        let parent = self.parent(l)?;
        let siblings = &self.node(parent).children;
        let i = siblings.iter().position(|c| *c == l)?;
        siblings[..i]
            .iter()
            .rev()
            .copied()
            .find(|c| !self.node(*c).barrier)
    }

    /// Labels after which a barrier may be inserted, in program order.
    pub fn candidates(&self) -> Vec<Label> {
        self.in_order().filter(|l| self.node(*l).candidate).collect()
    }

    /// The statement a label stands for (start nodes and `main` stand for none).
    pub fn stmt_id(&self, l: Label) -> Option<StmtId> {
        match self.node(l).kind {
            NodeKind::Stmt(id) => Some(id),
            _ => None,
        }
    }

    /// The source line that names this label in reports: the statement's first line,
    /// the block's opening line for start nodes and else branches.
    pub fn line(&self, l: Label) -> u32 {
        self.node(l).span.line
    }

    /// A human name for a label, like the paper's (`3`, `2:4`, `5:7s`, `main`).
    pub fn name(&self, l: Label) -> String {
        let n = self.node(l);
        let lines = |s: Span| {
            if s.end_line > s.line {
                format!("{}:{}", s.line, s.end_line)
            } else {
                s.line.to_string()
            }
        };
        match n.kind {
            NodeKind::Main => "main".to_string(),
            NodeKind::Start(b) => format!("{}s", self.name(b)),
            NodeKind::Stmt(_) => lines(n.span),
            NodeKind::Else(_) => format!("else:{}", lines(n.span)),
        }
    }
}

impl LabelTree {
    /// One line per label, in program order (`autosync check --show labels`): its name,
    /// its kind, the enclosing loops and conditionals (by name), whether it is a
    /// candidate for a barrier after it, and its source line.
    pub fn describe(&self) -> Vec<String> {
        let names = |ls: Vec<Label>| ls.iter().map(|l| self.name(*l)).collect::<Vec<_>>().join(" ");
        self.in_order()
            .map(|l| {
                let n = self.node(l);
                let kind = match (n.kind, n.block) {
                    (NodeKind::Main, _) => "main",
                    (NodeKind::Start(_), _) => "start",
                    (NodeKind::Else(_), _) => "else",
                    (NodeKind::Stmt(_), Some(BlockKind::Loop)) => "loop",
                    (NodeKind::Stmt(_), Some(_)) => "if",
                    (NodeKind::Stmt(_), None) if n.barrier => "barrier",
                    (NodeKind::Stmt(_), None) => "stmt",
                };
                format!(
                    "{} {kind} line {} loops [{}] conds [{}] {}",
                    self.name(l),
                    self.line(l),
                    names(self.loops(l)),
                    names(self.conds(l)),
                    if n.candidate { "candidate" } else { "-" }
                )
            })
            .collect()
    }
}

/// Inserts a barrier as the right sibling of every label in `after` (at the top of the
/// block for start nodes). Existing statements keep their ids; the new barriers get
/// fresh ids, returned in the order of `after`.
pub fn insert_barriers(kernel: &Kernel, tree: &LabelTree, after: &[Label]) -> (Kernel, Vec<StmtId>) {
    insert_barriers_of(kernel, tree, after, &[])
}

/// [`insert_barriers`], where the labels of `warp` get a warp barrier
/// ([`StmtKind::WarpBarrier`]) instead of a block barrier.
pub fn insert_barriers_of(
    kernel: &Kernel,
    tree: &LabelTree,
    after: &[Label],
    warp: &[Label],
) -> (Kernel, Vec<StmtId>) {
    insert_barriers_kinds(kernel, tree, after, warp, &[])
}

/// [`insert_barriers_of`], where the labels of `grid` get a grid barrier
/// ([`StmtKind::GridBarrier`]).
pub fn insert_barriers_kinds(
    kernel: &Kernel,
    tree: &LabelTree,
    after: &[Label],
    warp: &[Label],
    grid: &[Label],
) -> (Kernel, Vec<StmtId>) {
    let mut k = kernel.clone();
    let first_free = kernel.max_id().map_or(0, |m| m.0 + 1);
    let mut ids = Vec::with_capacity(after.len());
    for (id, &l) in (first_free..).map(StmtId).zip(after) {
        ids.push(id);
        let kind = if grid.contains(&l) {
            StmtKind::GridBarrier
        } else if warp.contains(&l) {
            StmtKind::WarpBarrier
        } else {
            StmtKind::Barrier
        };
        let barrier = Stmt::new(id, kind, Span::NONE);
        let node = tree.node(l);
        let done = match node.kind {
            NodeKind::Main => false,
            NodeKind::Start(block) => with_block(&mut k, tree, block, &mut |b: &mut Block| {
                b.stmts.insert(0, barrier.clone())
            }),
            NodeKind::Stmt(sid) | NodeKind::Else(sid) => {
                let parent = node.parent.expect("statements have a parent block");
                with_block(&mut k, tree, parent, &mut |b: &mut Block| {
                    if let Some(pos) = b.stmts.iter().position(|s| s.id == sid) {
                        b.stmts.insert(pos + 1, barrier.clone());
                    }
                })
            }
        };
        debug_assert!(done, "label {l:?} has no place in the kernel");
    }
    (k, ids)
}

/// Runs `f` on the block a block label stands for.
fn with_block(k: &mut Kernel, tree: &LabelTree, block: Label, f: &mut dyn FnMut(&mut Block)) -> bool {
    match tree.node(block).kind {
        NodeKind::Main => {
            f(&mut k.body);
            true
        }
        NodeKind::Stmt(id) => find_block(&mut k.body, id, 0, f),
        NodeKind::Else(id) => find_block(&mut k.body, id, 1, f),
        NodeKind::Start(_) => false,
    }
}

fn find_block(b: &mut Block, id: StmtId, which: usize, f: &mut dyn FnMut(&mut Block)) -> bool {
    for s in &mut b.stmts {
        if s.id == id {
            if let Some(inner) = s.blocks_mut().into_iter().nth(which) {
                f(inner);
                return true;
            }
            return false;
        }
        for inner in s.blocks_mut() {
            if find_block(inner, id, which, f) {
                return true;
            }
        }
    }
    false
}
