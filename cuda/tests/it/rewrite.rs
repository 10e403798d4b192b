//! Writing barriers back into CUDA sources: indentation, braces for brace-less bodies,
//! barriers at the top of desugared loop bodies, removal of exactly the barriers; and
//! for every kernel of the test folder and every candidate place, the rewritten file
//! lowers to the same kernel with the barrier inserted.

use crate::common;

use std::path::Path;

use kpl::rewrite::{apply, insert_at, remove_stmt};
use kpl::{Kernel, Label, LabelTree, NodeKind, insert_barriers, print};

const SYNC: &str = "__syncthreads();";

/// The candidate label of the statement whose text (trimmed) starts with `text`, or
/// the start node of the block whose first statement does (with `top`).
fn label(src: &str, tree: &LabelTree, text: &str, top: bool) -> Label {
    let found = tree.candidates().into_iter().find(|&l| {
        let n = tree.node(l);
        let at = |s: kpl::Span| {
            src.get(s.start..s.end)
                .unwrap_or("")
                .trim_start()
                .starts_with(text)
        };
        match n.kind {
            NodeKind::Start(b) if top => tree.node(b).span_block.is_some_and(|s| {
                let body = src.get(s.start..s.end).unwrap_or("").trim_start();
                at(s)
                    || body
                        .strip_prefix('{')
                        .is_some_and(|b| b.trim_start().starts_with(text))
            }),
            NodeKind::Stmt(_) if !top => at(n.span),
            _ => false,
        }
    });
    found.unwrap_or_else(|| panic!("no candidate for `{text}` (top: {top})"))
}

/// Inserts barriers after the statements (or at the top of the blocks) named by their
/// text, checks that the result lowers to the kernel with those barriers, and returns it.
fn place(src: &str, at: &[(&str, bool)]) -> String {
    let k = common::kernels(src).remove(0);
    let tree = LabelTree::new(&k);
    let labels: Vec<Label> = at.iter().map(|(t, top)| label(src, &tree, t, *top)).collect();
    let ins =
        insert_at(src, &tree, &labels, SYNC).unwrap_or_else(|l| panic!("no place for {}", tree.name(l)));
    let (out, _) = apply(src, &ins.edits);
    let (expected, _) = insert_barriers(&k, &tree, &labels);
    let again = common::kernels(&out).remove(0);
    assert_eq!(print(&[again]), print(&[expected]), "rewritten:\n{out}");
    out
}

#[test]
fn after_a_statement_with_its_indentation() {
    let src = "__global__ void k(int *out) {
    __shared__ int s[9];
    unsigned int t = threadIdx.x;
    int x = s[t + 1]; // the neighbour
    x = x + 1;
\ts[t] = x;
}
";
    assert_eq!(
        place(src, &[("int x = s[t + 1];", false), ("x = x + 1;", false)]),
        "__global__ void k(int *out) {
    __shared__ int s[9];
    unsigned int t = threadIdx.x;
    int x = s[t + 1]; // the neighbour
    __syncthreads();
    x = x + 1;
    __syncthreads();
\ts[t] = x;
}
"
    );
}

#[test]
fn braces_around_a_brace_less_body_on_its_own_line() {
    let src = "__global__ void k(int *out, int n) {
    __shared__ int s[64];
    for (int i = 0; i < n; i++)
        s[threadIdx.x] += s[threadIdx.x + 1];
    if (threadIdx.x < 32)
        out[threadIdx.x] = s[threadIdx.x];
    else
        out[threadIdx.x] = 0;
}
";
    assert_eq!(
        place(
            src,
            &[
                ("s[threadIdx.x] += s[threadIdx.x + 1];", true),
                ("s[threadIdx.x] += s[threadIdx.x + 1];", false)
            ]
        ),
        "__global__ void k(int *out, int n) {
    __shared__ int s[64];
    for (int i = 0; i < n; i++) {
        __syncthreads();
        s[threadIdx.x] += s[threadIdx.x + 1];
        __syncthreads();
    }
    if (threadIdx.x < 32)
        out[threadIdx.x] = s[threadIdx.x];
    else
        out[threadIdx.x] = 0;
}
"
    );
    assert_eq!(
        place(src, &[("out[threadIdx.x] = 0;", false)]),
        "__global__ void k(int *out, int n) {
    __shared__ int s[64];
    for (int i = 0; i < n; i++)
        s[threadIdx.x] += s[threadIdx.x + 1];
    if (threadIdx.x < 32)
        out[threadIdx.x] = s[threadIdx.x];
    else {
        out[threadIdx.x] = 0;
        __syncthreads();
    }
}
"
    );
}

#[test]
fn braces_on_one_line_and_after_a_comment() {
    let src = "__global__ void k(int *out) {
    __shared__ int s[64];
    if (threadIdx.x < 32) s[threadIdx.x] = out[threadIdx.x];
    if (threadIdx.x < 16) // first half
        s[threadIdx.x + 32] = 1;
}
";
    assert_eq!(
        place(
            src,
            &[
                ("s[threadIdx.x] = out[threadIdx.x];", false),
                ("s[threadIdx.x + 32] = 1;", true)
            ]
        ),
        "__global__ void k(int *out) {
    __shared__ int s[64];
    if (threadIdx.x < 32) { s[threadIdx.x] = out[threadIdx.x]; __syncthreads(); }
    if (threadIdx.x < 16) // first half
    {
        __syncthreads();
        s[threadIdx.x + 32] = 1;
    }
}
"
    );
}

#[test]
fn top_of_a_loop_whose_condition_reads_memory() {
    let src = "__global__ void k(int *a) {
    __shared__ int s[64];
    int i = 0;
    while (s[i] != 0) {
        s[threadIdx.x] = i;
        i++;
    }
    do
        i--;
    while (s[i] > 0);
}
";
    let k = common::kernels(src).remove(0);
    let tree = LabelTree::new(&k);
    // The top of the KPL body is before the condition's read: no place in the source.
    let body = tree
        .node(label(src, &tree, "s[threadIdx.x] = i;", false))
        .parent
        .unwrap();
    assert!(!tree.node(tree.start(body)).candidate);
    // After `if (!c) break;` is the top of the source body.
    let exit = tree.node(body).children[3];
    assert_eq!(tree.node(exit).place, kpl::Place::BlockTop);
    let ins = insert_at(src, &tree, &[exit], SYNC).unwrap();
    let (out, _) = apply(src, &ins.edits);
    assert_eq!(
        out,
        "__global__ void k(int *a) {
    __shared__ int s[64];
    int i = 0;
    while (s[i] != 0) {
        __syncthreads();
        s[threadIdx.x] = i;
        i++;
    }
    do
        i--;
    while (s[i] > 0);
}
"
    );
    assert_eq!(
        place(src, &[("i--;", true), ("i--;", false)]),
        "__global__ void k(int *a) {
    __shared__ int s[64];
    int i = 0;
    while (s[i] != 0) {
        s[threadIdx.x] = i;
        i++;
    }
    do {
        __syncthreads();
        i--;
        __syncthreads();
    }
    while (s[i] > 0);
}
"
    );
}

#[test]
fn strip_removes_exactly_the_barriers() {
    let src = "#define SYNC __syncthreads()
__device__ void helper(int *s) { s[threadIdx.x] = 0; __syncthreads(); }
__global__ void k(int *a) {
    __shared__ int s[64];
    __syncthreads(); // start
    s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = s[0];
    SYNC;
    if (threadIdx.x == 0)
        __syncthreads();
    helper(s);
}
";
    let k = common::kernels(src).remove(0);
    assert_eq!(k.barrier_count(), 5);
    let tree = LabelTree::new(&k);
    let movable: Vec<_> = k
        .stmts()
        .into_iter()
        .filter(|s| s.is_movable_barrier())
        .map(|s| s.id)
        .collect();
    // The one inside the inlined `helper` is not the kernel's to remove.
    assert_eq!(movable.len(), 4);
    let edits: Vec<_> = movable
        .iter()
        .map(|id| remove_stmt(src, &tree, tree.label_of(*id).unwrap()))
        .collect();
    let (out, _) = apply(src, &edits);
    assert_eq!(
        out,
        "#define SYNC __syncthreads()
__device__ void helper(int *s) { s[threadIdx.x] = 0; __syncthreads(); }
__global__ void k(int *a) {
    __shared__ int s[64];
    s[threadIdx.x] = a[threadIdx.x]; a[threadIdx.x] = s[0];
    if (threadIdx.x == 0)
        ;
    helper(s);
}
"
    );
    let again = common::kernels(&out).remove(0);
    assert_eq!(print(&[again]), print(&[k.without_movable_barriers()]));
}

/// Every candidate of every kernel in the test folder, alone and all at once: the
/// rewritten file lowers to the kernel with the barriers inserted.
#[test]
fn every_candidate_place_round_trips() {
    let dir = common::cuda_dir();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    let mut checked = 0;
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let t = cuda::translate(&path, &src, &common::options()).unwrap();
        for l in &t.kernels {
            let k = &l.kernel;
            let tree = LabelTree::new(k);
            let cands = tree.candidates();
            for pick in cands
                .iter()
                .map(|c| vec![*c])
                .chain(std::iter::once(cands.clone()))
            {
                round_trip(&path, &src, k, &tree, &pick);
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

fn round_trip(path: &Path, src: &str, k: &Kernel, tree: &LabelTree, labels: &[Label]) {
    let ins = insert_at(src, tree, labels, SYNC)
        .unwrap_or_else(|l| panic!("{}: {}: no place for {}", path.display(), k.name, tree.name(l)));
    let (out, _) = apply(src, &ins.edits);
    let (expected, _) = insert_barriers(k, tree, labels);
    let again = cuda::translate(path, &out, &common::options()).unwrap_or_else(|e| {
        panic!(
            "{}: {}: rewritten file does not translate: {e}\n{out}",
            path.display(),
            k.name
        )
    });
    let again = again
        .kernels
        .into_iter()
        .find(|x| x.kernel.name == k.name)
        .unwrap_or_else(|| panic!("{}: {} is gone", path.display(), k.name));
    // Where the scratch local `_` is declared does not matter.
    let norm = |k: Kernel| print(&[k]).replace("    local _;\n", "");
    assert_eq!(
        norm(again.kernel),
        norm(expected),
        "{}: {}: barriers after {:?}:\n{out}",
        path.display(),
        k.name,
        labels.iter().map(|l| tree.name(*l)).collect::<Vec<_>>()
    );
}
