//! `parse(print(k)) == k` on generated kernels, and parse errors that say where and what.

use kpl::*;
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (0i64..40).prop_map(Expr::Int),
        prop::sample::select(vec!["x", "y", "n", "m"]).prop_map(Expr::var),
        prop::sample::select(vec![
            Builtin::Tid(Dim::X),
            Builtin::Tid(Dim::Y),
            Builtin::Bid(Dim::X),
            Builtin::Bdim(Dim::X),
            Builtin::Gdim(Dim::Z),
        ])
        .prop_map(Expr::Builtin),
    ]
}

const BINOPS: [BinOp; 18] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
];

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (
                prop::sample::select(vec![UnOp::Neg, UnOp::Not, UnOp::BitNot]),
                inner.clone()
            )
                .prop_map(|(o, a)| Expr::un(o, a)),
            (
                prop::sample::select(BINOPS.to_vec()),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(o, a, b)| Expr::bin(o, a, b)),
            (prop::sample::select(IntTy::ALL.to_vec()), inner.clone()).prop_map(|(t, a)| Expr::cast(t, a)),
            (
                prop::sample::select(vec!["f", "fadd3", "cvt_f32"]),
                prop::collection::vec(inner, 0..3)
            )
                .prop_map(|(f, args)| Expr::Apply(f.to_string(), args)),
        ]
    })
}

fn simple_stmt() -> impl Strategy<Value = StmtKind> {
    let var = prop::sample::select(vec!["x", "y"]).prop_map(String::from);
    let arr = prop::sample::select(vec!["A", "B"]).prop_map(String::from);
    prop_oneof![
        (var.clone(), expr()).prop_map(|(var, value)| StmtKind::Assign { var, value }),
        (
            var.clone(),
            arr.clone(),
            expr(),
            prop::option::of(prop::sample::select(IntTy::ALL.to_vec()))
        )
            .prop_map(|(var, array, index, ty)| StmtKind::Read {
                var,
                array,
                index,
                ty
            }),
        (arr.clone(), expr(), expr()).prop_map(|(array, index, value)| StmtKind::Write {
            array,
            index,
            value
        }),
        (
            prop::option::of(var.clone()),
            prop::sample::select(AtomicOp::ALL.to_vec()),
            arr,
            expr(),
            expr(),
            prop::option::of(prop::sample::select(IntTy::ALL.to_vec()))
        )
            .prop_map(|(var, op, array, index, value, ty)| StmtKind::Atomic {
                var,
                op,
                array,
                index,
                value,
                ty
            }),
        Just(StmtKind::Barrier),
        Just(StmtKind::WarpBarrier),
        Just(StmtKind::GridBarrier),
        Just(StmtKind::TicketBarrier),
        Just(StmtKind::Return),
        (var, any::<bool>()).prop_map(|(var, warp)| StmtKind::Havoc { var, warp }),
        expr().prop_map(StmtKind::Assume),
        // Two-thread assumptions: `other(e)`, only allowed in `assume`.
        (expr(), expr()).prop_map(|(a, b)| StmtKind::Assume(Expr::bin(BinOp::Le, a, Expr::other(b)))),
        expr().prop_map(StmtKind::Invariant),
    ]
}

fn stmt(depth: u32, in_loop: bool) -> BoxedStrategy<Stmt> {
    let mk = |kind| Stmt::new(StmtId(0), kind, Span::NONE);
    let mut leaves = vec![simple_stmt().boxed()];
    if in_loop {
        leaves.push(prop_oneof![Just(StmtKind::Break), Just(StmtKind::Continue)].boxed());
    }
    let leaf = prop::strategy::Union::new(leaves).prop_map(mk);
    if depth == 0 {
        return leaf.boxed();
    }
    let body = move |in_loop| prop::collection::vec(stmt(depth - 1, in_loop), 0..4).prop_map(Block::new);
    let compound = prop_oneof![
        (expr(), body(in_loop), prop::option::of(body(in_loop))).prop_map(|(cond, then_blk, else_blk)| {
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            }
        }),
        (expr(), body(true)).prop_map(|(cond, body)| StmtKind::While { cond, body }),
        (expr(), expr(), expr(), body(true)).prop_map(move |(init, cond, step, body)| StmtKind::For {
            var: format!("i{depth}"),
            init,
            cond,
            step,
            body
        }),
    ]
    .prop_map(mk);
    prop_oneof![3 => leaf, 1 => compound].boxed()
}

fn kernel() -> impl Strategy<Value = Kernel> {
    let req = prop::option::of((prop::sample::select(BINOPS.to_vec()), 0i64..10)).prop_map(|r| {
        r.map(|(op, c)| {
            Expr::bin(
                op,
                Expr::var("n"),
                Expr::bin(BinOp::Add, Expr::var("m"), Expr::Int(c)),
            )
        })
    });
    let ty = prop::sample::select(IntTy::ALL.to_vec());
    (prop::collection::vec(stmt(2, false), 0..6), req, ty.clone(), ty).prop_map(|(stmts, req, tn, tm)| {
        let decl = |v: &str| {
            Stmt::new(
                StmtId(0),
                StmtKind::Local {
                    var: v.to_string(),
                    init: None,
                },
                Span::NONE,
            )
        };
        let mut all = vec![decl("x"), decl("y")];
        all.extend(stmts);
        let mut k = Kernel {
            name: "gen".into(),
            params: vec![
                Param::Array {
                    name: "A".into(),
                    space: Space::Shared,
                },
                Param::Array {
                    name: "B".into(),
                    space: Space::Global,
                },
                Param::Scalar {
                    name: "n".into(),
                    ty: tn,
                },
                Param::Scalar {
                    name: "m".into(),
                    ty: tm,
                },
            ],
            requires: req.into_iter().collect(),
            body: Block::new(all),
            span: Span::NONE,
            calls: Vec::new(),
        };
        k.renumber();
        k
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn parse_print_roundtrip(k in kernel()) {
        let text = print(std::slice::from_ref(&k));
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.len(), 1);
        prop_assert_eq!(back[0].without_spans(), k.without_spans(), "{}", text);
    }
}

fn error_of(src: &str) -> ParseError {
    parse(src).expect_err("should not parse")
}

#[test]
fn syntax_errors_name_line_column_and_expectation() {
    let e = error_of("kernel k(shared A[]) {\n    x = A[tid]\n}\n");
    assert_eq!(e.to_string(), "3:1: syntax error: expected `;`, found `}`");
    let e = error_of("kernel k(shared A[]) {\n    if tid < 2 { }\n}\n");
    assert_eq!(e.to_string(), "2:8: syntax error: expected `(`, found `t`");
}

#[test]
fn scope_errors() {
    let e = error_of("kernel k(shared A[]) {\n    x = 1;\n}\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("unknown variable `x`"), "{}", e.message);
    let e = error_of("kernel k(shared A[], n) {\n    n = 1;\n}\n");
    assert!(
        e.message.contains("cannot assign to parameter `n`"),
        "{}",
        e.message
    );
    let e = error_of("kernel k(shared A[]) {\n    local x = A;\n}\n");
    assert!(e.message.contains("array `A` used as a value"), "{}", e.message);
    let e = error_of("kernel k(shared A[]) {\n    local x;\n    if (1) {\n        local x;\n    }\n}\n");
    assert_eq!(e.line, 4);
    assert!(e.message.contains("shadowing"), "{}", e.message);
    let e = error_of("kernel k(shared A[]) {\n    break;\n}\n");
    assert!(e.message.contains("inside a loop"), "{}", e.message);
    let e = error_of("kernel k(shared A[]) {\n    C[0] = 1;\n}\n");
    assert!(e.message.contains("unknown array `C`"), "{}", e.message);
    let e = error_of("kernel k(shared A[]) {\n    for (i = 0; i < 4; j = i + 1) { }\n}\n");
    assert!(e.message.contains("loop variable is `i`"), "{}", e.message);
    let e = error_of("kernel k() { }\nkernel k() { }\n");
    assert!(e.message.contains("defined twice"), "{}", e.message);
}

#[test]
fn precedence_follows_c() {
    let k = parse("kernel k(shared A[], n) {\n    A[tid] = 1 + 2 * 3 << 1 & 7 == 1 || n;\n}\n").unwrap();
    let StmtKind::Write { value, .. } = &k[0].body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(syntax::print_expr(value), "1 + 2 * 3 << 1 & 7 == 1 || n");
    let e = Expr::bin(
        BinOp::Sub,
        Expr::Int(1),
        Expr::bin(BinOp::Sub, Expr::Int(2), Expr::Int(3)),
    );
    assert_eq!(syntax::print_expr(&e), "1 - (2 - 3)");
    let StmtKind::Write { value, .. } = &parse("kernel k(shared A[]) {\n A[0] = 1 + 2 * 3 << 1;\n}").unwrap()
        [0]
    .body
    .stmts[0]
        .kind
    else {
        panic!()
    };
    assert_eq!(
        *value,
        Expr::bin(
            BinOp::Shl,
            Expr::bin(
                BinOp::Add,
                Expr::Int(1),
                Expr::bin(BinOp::Mul, Expr::Int(2), Expr::Int(3))
            ),
            Expr::Int(1)
        )
    );
}

#[test]
fn other_is_only_allowed_in_assume() {
    let ok = "kernel k(global A[]) {\n    local x;\n    x = A[tid];\n    assume !(tid < other(tid)) || x <= other(x + 1);\n}\n";
    let ks = kpl::parse(ok).expect("parses");
    let printed = kpl::print(std::slice::from_ref(&ks[0]));
    assert!(printed.contains("other(x + 1)"), "{printed}");
    assert_eq!(
        kpl::parse(&printed).expect("reparses")[0].without_spans(),
        ks[0].without_spans()
    );
    for bad in [
        "kernel k(global A[]) {\n    A[other(tid)] = 1;\n}\n",
        "kernel k(global A[]) {\n    local y = other(tid);\n}\n",
        "kernel k(global A[]) {\n    if (other(tid) == 0) {\n    }\n}\n",
        "kernel k(global A[], n) requires other(n) == n {\n    A[0] = 1;\n}\n",
    ] {
        let err = kpl::parse(bad).expect_err(bad).to_string();
        assert!(err.contains("only allowed in `assume`"), "{bad}: {err}");
    }
}
