//! The label tree on the AutoSync paper's examples (Sec. III-A).

use kpl::{Label, LabelTree, NodeKind, insert_barriers, parse};

/// Fig. 6 (left) of the paper. The header takes line 1, so paper line n is line n + 1
/// here: the paper's `3` is `4`, `2:4` is `3:5`, `5:7s` is `6:8s`.
const FIG6: &str = "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
    }
    if (tid % 6 == 0) {
        A[tid] = x;
    }
}
";

fn tree(src: &str) -> (kpl::Kernel, LabelTree) {
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    (k, t)
}

fn by_name(t: &LabelTree, name: &str) -> Label {
    t.in_order()
        .find(|l| t.name(*l) == name)
        .unwrap_or_else(|| panic!("no label {name}"))
}

fn names(t: &LabelTree, ls: &[Label]) -> Vec<String> {
    ls.iter().map(|l| t.name(*l)).collect()
}

#[test]
fn fig6_blks() {
    let (_, t) = tree(FIG6);
    assert_eq!(names(&t, &t.blks(by_name(&t, "4"))), ["main", "3:5"]);
    assert_eq!(names(&t, &t.blks(by_name(&t, "6:8"))), ["main"]);
    assert_eq!(names(&t, &t.conds(by_name(&t, "7"))), ["6:8"]);
    assert!(t.loops(by_name(&t, "7")).is_empty());
}

#[test]
fn fig6_intervals() {
    let (_, t) = tree(FIG6);
    let three = by_name(&t, "4");
    let six = by_name(&t, "7");
    let five_seven = by_name(&t, "6:8");
    assert_eq!(names(&t, &t.interval(three, six)), ["4", "3:5", "6:8s"]);
    assert_eq!(names(&t, &t.interval(three, five_seven)), ["4", "3:5"]);
}

#[test]
fn post_order_is_program_text_order() {
    let (_, t) = tree(FIG6);
    let order: Vec<String> = t.in_order().map(|l| t.name(l)).collect();
    assert_eq!(
        order,
        ["mains", "2", "3:5s", "4", "3:5", "6:8s", "7", "6:8", "main"]
    );
    assert!(t.precedes(by_name(&t, "4"), by_name(&t, "7")));
}

#[test]
fn children_of_a_block_is_the_interval_from_its_start() {
    let (_, t) = tree(FIG6);
    let b = by_name(&t, "6:8");
    assert_eq!(names(&t, &t.children_of(b)), ["6:8s", "7"]);
}

#[test]
fn else_branch_is_a_sibling_block_and_between_branches_is_no_candidate() {
    let src = "kernel k(shared A[]) {
    if (tid < 2) {
        A[tid] = 1;
    } else {
        A[tid] = 2;
    }
}
";
    let (_, t) = tree(src);
    let if_label = by_name(&t, "2:6");
    assert!(!t.node(if_label).candidate);
    let else_label = t
        .in_order()
        .find(|l| matches!(t.node(*l).kind, NodeKind::Else(_)))
        .unwrap();
    assert!(t.node(else_label).candidate);
    assert_eq!(
        names(&t, &t.blks(by_name(&t, "5"))),
        ["main", &t.name(else_label)]
    );
    assert_eq!(t.conds(by_name(&t, "5")).len(), 1);
}

#[test]
fn loops_and_candidates() {
    let src = "kernel fig4(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        x = x + i;
        A[tid] = x;
    }
}
";
    let (_, t) = tree(src);
    assert_eq!(names(&t, &t.loops(by_name(&t, "5"))), ["3:7"]);
    assert_eq!(names(&t, &t.loops(by_name(&t, "3:7s"))), ["3:7"]);
    assert!(t.loops(by_name(&t, "3:7")).is_empty());
    assert_eq!(
        names(&t, &t.candidates()),
        ["mains", "2", "3:7s", "4", "5", "6", "3:7"]
    );
}

#[test]
fn inserting_barriers_keeps_ids_and_adds_fresh_ones() {
    let (k, t) = tree(FIG6);
    let l4 = by_name(&t, "4");
    let l35 = by_name(&t, "3:5");
    let start = by_name(&t, "6:8s");
    let (k2, ids) = insert_barriers(&k, &t, &[l4, l35, start]);
    assert_eq!(k2.barrier_count(), 3);
    let old: Vec<_> = k.stmts().iter().map(|s| s.id).collect();
    for id in &old {
        assert!(k2.stmt(*id).is_some());
    }
    for id in &ids {
        assert!(!old.contains(id));
        assert!(k2.stmt(*id).unwrap().kind.is_barrier());
    }
    let printed = kpl::print(&[k2]);
    assert_eq!(
        printed,
        "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
        barrier;
    }
    barrier;
    if (tid % 6 == 0) {
        barrier;
        A[tid] = x;
    }
}
"
    );
}
