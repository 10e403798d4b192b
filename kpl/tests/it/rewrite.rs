//! Barrier insertion and removal as text edits: every other byte stays as it was.

use kpl::rewrite::{apply, insert_after, remove};
use kpl::{LabelTree, parse};

fn place(src: &str, names: &[&str]) -> (String, Vec<u32>) {
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let edits: Vec<_> = names
        .iter()
        .map(|n| {
            let l = t
                .in_order()
                .find(|l| t.name(*l) == *n)
                .unwrap_or_else(|| panic!("no label {n}"));
            insert_after(src, &t, l, "barrier;").unwrap()
        })
        .collect();
    apply(src, &edits)
}

const LOOP: &str = "kernel fig4(shared A[], n) {
    local x; // the value
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        A[tid] = x;
    }
}
";

#[test]
fn after_a_statement_and_at_the_top_of_a_block() {
    let (out, lines) = place(LOOP, &["3:6s", "4"]);
    assert_eq!(
        out,
        "kernel fig4(shared A[], n) {
    local x; // the value
    for (i = 0; i < n; i = i + 1) {
        barrier;
        x = A[tid + 1];
        barrier;
        A[tid] = x;
    }
}
"
    );
    assert_eq!(lines, [4, 6]);
}

#[test]
fn after_a_statement_with_a_trailing_comment_and_after_a_loop() {
    let (out, lines) = place(LOOP, &["2", "3:6"]);
    assert_eq!(
        out,
        "kernel fig4(shared A[], n) {
    local x; // the value
    barrier;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        A[tid] = x;
    }
    barrier;
}
"
    );
    assert_eq!(lines, [3, 8]);
}

#[test]
fn inline_when_the_line_holds_more_code() {
    let src = "kernel k(shared A[]) { local x; x = A[tid + 1]; A[tid] = x; }";
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let read = t.label_of(k.body.stmts[1].id).unwrap();
    let (out, lines) = apply(src, &[insert_after(src, &t, read, "barrier;").unwrap()]);
    assert_eq!(
        out,
        "kernel k(shared A[]) { local x; x = A[tid + 1]; barrier; A[tid] = x; }"
    );
    assert_eq!(lines, [1]);
    let k = parse(&out).unwrap();
    assert_eq!(k[0].barrier_count(), 1);
}

#[test]
fn tabs_and_last_line_without_newline() {
    let src = "kernel k(shared A[]) {\n\tlocal x;\n\tx = A[tid + 1];\n\tA[tid] = x;\n}";
    let (out, _) = place(src, &["mains", "4"]);
    assert_eq!(
        out,
        "kernel k(shared A[]) {\n\tbarrier;\n\tlocal x;\n\tx = A[tid + 1];\n\tA[tid] = x;\n\tbarrier;\n}"
    );
}

#[test]
fn after_an_if_else_goes_after_the_else_branch() {
    let src = "kernel k(shared A[]) {
    if (tid < 2) {
        A[tid] = 1;
    } else {
        A[tid] = 2;
    }
    local x;
}
";
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let else_label = t
        .candidates()
        .into_iter()
        .find(|l| matches!(t.node(*l).kind, kpl::NodeKind::Else(_)))
        .unwrap();
    let e = insert_after(src, &t, else_label, "barrier;").unwrap();
    let (out, lines) = apply(src, &[e]);
    assert!(out.contains("    }\n    barrier;\n    local x;"), "{out}");
    assert_eq!(lines, [7]);
}

#[test]
fn removing_barriers() {
    let src = "kernel k(shared A[]) {
    local x;
    barrier; // sync
    x = A[tid]; barrier; A[tid] = x;
}
";
    let k = parse(src).unwrap().remove(0);
    let spans: Vec<_> = k
        .stmts()
        .iter()
        .filter(|s| s.kind.is_barrier())
        .map(|s| s.span)
        .collect();
    let edits: Vec<_> = spans.iter().map(|s| remove(src, *s)).collect();
    let (out, _) = apply(src, &edits);
    assert_eq!(
        out,
        "kernel k(shared A[]) {
    local x;
    x = A[tid]; A[tid] = x;
}
"
    );
}
