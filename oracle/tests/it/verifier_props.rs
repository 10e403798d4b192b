//! The static verifier against the dynamic SDV interpreter on random kernels: whatever
//! the interpreter observes (a race on an array between two lines, of a type, maybe
//! unfixable; a divergent barrier) the verifier must report, since it claims soundness.
//! In particular, when the verifier says "clean", the interpreter finds nothing.
//!
//! Kernels are generated as `.kpl` text: loops (counted, strided, geometric, with
//! thread-dependent bounds), `if`/`else` on thread ids, parameters, loop variables and
//! read values, reads, writes and atomics on a shared and a global array with affine,
//! modular and bitwise indices, atomics on a counter whose results become indices
//! (repetition-free or not: `atomic_inc` with the largest bound too), writes of values
//! that threads often agree on (benign write-write pairs), a shared scalar `P[0]` that
//! thread 0 (or every thread) publishes, with or without a barrier after it, and that
//! all threads then read and branch on or index with (values all threads read alike),
//! barriers anywhere (inside conditionals too, so that
//! divergence occurs), grid barriers and last-block ticket barriers (also under a
//! block-dependent condition, so that they diverge across blocks), `return`, `break`, `continue`, `havoc`, `assume`; with or
//! without a precondition, in either arithmetic; reads of a global input array `I`
//! that nothing writes (one function of the index), whose values become indices, and
//! two-thread assumptions (`assume e != other(e);`, `==`, a monotone input); with concrete or symbolic launches;
//! the parameter `n` is untyped (`u32`) or of a C integer type (negative values too),
//! and expressions contain C conversions (`i8(e)`, `u32(e)`, ...); loop-carried counters
//! `y`, `z` that go up and down, updated under thread-dependent conditions (the shape of
//! the verifier's conditional closed forms and loop invariants) and used in indices,
//! loops left by `break`, `while` loops stepping by a thread-dependent amount
//! (`w = w + (tid + 1)`), products whose factors may be negative, and uninterpreted
//! functions `@f(a)`, `@g(a, b)` (the front end's floating-point values) in values
//! written and in indices.
//!
//! `cargo test -p oracle --test it -- verifier_props::` runs 500 cases; the `#[ignore]`d
//! variant runs 5000 (`-- verifier_props:: --ignored`). `AUTOSYNC_PROPS_SEED` (a number, or `random`)
//! picks other kernels, `AUTOSYNC_PROPS_CASES` another count, and
//! `AUTOSYNC_PROPS_SLOW=MS` prints the kernels slower than MS milliseconds.

use std::fmt::Write as _;

use oracle::dynamic::Interpreter;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, OracleError, Report};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

/// An integer expression over the thread id, the parameter `n`, the loop variable of
/// some depth and the last value read.
#[derive(Clone, Debug)]
enum E {
    Tid,
    /// The block id: with `tid` and constants, indices such as `tid + 4 * bid` that are
    /// mixed-radix numbers (the race queries' digit facts, `tests/it/verifier_digits.rs`).
    Bid,
    N,
    X,
    Bdim,
    /// The variable of the loop at this depth (clamped to the loops in scope).
    Var(u8),
    Const(i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, i64),
    Mul(Box<E>, i64),
    Rem(Box<E>, i64),
    Div(Box<E>, i64),
    And(Box<E>, i64),
    Xor(Box<E>, i64),
    /// A C conversion (`i8(e)`, `u32(e)`, ...).
    Cast(kpl::IntTy, Box<E>),
    /// `a op b` for a bitwise `op` (`&`, `|`, `^`) of two expressions (`tid ^ j` with a
    /// power-of-two loop variable `j`).
    Bits(char, Box<E>, Box<E>),
    /// `a & (b - 1)` (`a % b` for a power of two `b`) and `a & ~(b - 1)`.
    LowMask(Box<E>, Box<E>),
    HighMask(Box<E>, Box<E>),
    /// The global index `bid * bdim + tid` taken apart by `/` and `%` with the
    /// parameter `n` (and 3) as extents and put together again (`verifier::radix`'s
    /// digit lemmas): in the same order, permuted, with a wrong weight, without its
    /// highest digit, or through `% (n * 3)` then `/ n`. The first two are one thread's
    /// own cell for `n ≠ 0`; the others collide. Also with a row stride of `n * 6`
    /// (a gap of ratio 2 above the middle digit) and an offset `n * 3` (a slice in the
    /// gap: `radix::gap_digits`) or `n * 6` (past the gap: the next row's).
    Digits(u8),
    /// `a >> c`, `a << c`.
    Shr(Box<E>, i64),
    Shl(Box<E>, i64),
    /// A loop-carried counter `y` (false) or `z` (true), updated by [`S::Bump`].
    Carried(bool),
    /// `a * b`: a product of two expressions, where a factor may be negative
    /// (`(tid + 1) * (k - 1)`).
    Prod(Box<E>, Box<E>),
    /// `@f(a)` (no second operand) or `@g(a, b)`: an uninterpreted function (the
    /// front end's floating-point operations), equal for equal arguments only.
    Fun(Box<E>, Option<Box<E>>),
}

#[derive(Clone, Debug)]
enum Cond {
    Lt(E, E),
    Eq(E, E),
    Ne(E, E),
}

#[derive(Clone, Debug)]
enum Loop {
    /// `for (i = 0; i < bound; i++)`
    Count(E),
    /// `for (i = 0; i <= bound; i++)` (a causal loop over the keys up to `tid`, bounded
    /// by another digit: `verifier::radix`'s extents through a bound).
    CountTo(E),
    /// `for (i = tid; i < bound; i += bdim)`
    Stride(E),
    /// `for (i = 1; i < bound; i *= 2)`
    Double(E),
    /// `for (i = bdim / 2; i > 0; i >>= 1)`
    Halve,
    /// `for (i = c; i > 0; i >>= 1)` for a constant power of two `c`, or (`None`) from
    /// half the enclosing loop's variable (bitonic sort's `j = k / 2`).
    HalveFrom(Option<i64>),
    /// `for (i = 2; i <= bound; i <<= 1)`
    ShlUp(E),
    /// `w = 0; while (w < bound) { body; w = w + step; }` (a `continue` skips the step,
    /// which may make the loop run until the interpreter's bound)
    While(E, E),
    /// `w = 0; while (w < 16) { if (!(w < bound)) { break; } body; w = w + step; }`: a
    /// loop left by `break` (the values after it are those of the breaking iteration).
    Until(E, E),
}

#[derive(Clone, Copy, Debug)]
enum TakeOp {
    Add,
    Sub,
    Inc,
    /// `atomic_inc` with the largest bound (a counter).
    IncMax,
    Write,
}

#[derive(Clone, Debug)]
enum S {
    Read(bool, E),
    /// `A[e] = v;`: the value is often the same in several threads (a constant, `n`,
    /// a loop variable), which makes benign write-write pairs.
    Write(bool, E, E),
    Atomic(bool, E),
    /// On the counter array `C`: `x = atomic_add(C[0], e);` (`Add`), `atomic_sub`
    /// (`Sub`), `x = atomic_inc(C[0], e);` (`Inc`) or a plain `C[0] = e;` (`Write`), so
    /// that atomics' results flow into indices and counters are sometimes not
    /// repetition-free.
    Take(TakeOp, E),
    Assign(E),
    /// `if (tid == 0) { P[0] = e; }` (every thread writes when the flag is set), then
    /// `barrier;` when the second flag is set, then `x = P[0];`.
    Publish(bool, bool, E),
    /// `x = P[0];`
    ReadP,
    /// `x = P[0]; if (x < e) { body }`: a branch on the shared scalar.
    Guard(E, Vec<S>),
    Barrier,
    /// `warp_barrier;` (warps of 2 or 4 threads, or of 32 without `--warp-size`).
    WarpBarrier,
    /// `grid_barrier;`, or (flag set) `if (bid == 0) { grid_barrier; }` (divergent
    /// across blocks).
    GridBarrier(bool),
    /// `ticket_barrier;`, or (flag set) `if (bid == 0) { ticket_barrier; }`: ordered as
    /// a grid barrier where it is never divergent, and no divergence when it is.
    TicketBarrier(bool),
    If(Cond, Vec<S>, Option<Vec<S>>),
    For(Loop, Vec<S>),
    Return,
    Break,
    Continue,
    /// `havoc x;`, or (flag set) `warp_havoc x;`: one value per warp.
    Havoc(bool),
    Assume(Cond),
    /// `x = I[e];` from the global input array `I`, which nothing writes (its reads are
    /// one function of the index), so that its values become indices.
    ReadInput(E),
    /// A two-thread assumption: `assume e != other(e);` (0), `assume e == other(e);` (1)
    /// or `assume !(tid < other(tid)) || x < other(x);` (2, a monotone input).
    AssumePair(u8, E),
    /// `y = y + e;` (op 0), `y = y - e;` (1) or `y = e;` (2) on the carried counter `y`
    /// (false) or `z` (true): inside loops, and under a thread-dependent `if` (see
    /// [`S::CondBump`]), the loop-carried values without a closed form that the
    /// verifier's conditional closed forms and invariants are for.
    Bump(bool, u8, E),
    /// `if (c) { y = y + s; } else { z = z + t; }` (no else: `t` is `None`): a
    /// conditional update (Haar levels, bisection).
    CondBump(Cond, E, Option<E>),
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        4 => Just(E::Tid),
        2 => Just(E::N),
        1 => Just(E::X),
        1 => Just(E::Bdim),
        1 => Just(E::Bid),
        3 => (0u8..3).prop_map(E::Var),
        2 => (0i64..5).prop_map(E::Const),
        2 => any::<bool>().prop_map(E::Carried),
    ];
    // `(a ± c) * (b ± c)` over ids, `n`, loop and carried variables: a product whose
    // factors may be negative (`(tid + 1) * (k - 1)`), kept small (a product of
    // conversions and bitwise terms can take the solver minutes).
    let factor = (
        prop_oneof![
            Just(E::Tid),
            Just(E::N),
            (0u8..3).prop_map(E::Var),
            any::<bool>().prop_map(E::Carried)
        ],
        -2i64..3,
    )
        .prop_map(|(a, c)| match c {
            0 => a,
            c if c > 0 => E::Add(Box::new(a), Box::new(E::Const(c))),
            c => E::Sub(Box::new(a), -c),
        });
    let leaf = prop_oneof![
        12 => leaf,
        1 => (factor.clone(), factor).prop_map(|(a, b)| E::Prod(Box::new(a), Box::new(b))),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(Box::new(a), Box::new(b))),
            1 => (inner.clone(), 1i64..3).prop_map(|(a, c)| E::Sub(Box::new(a), c)),
            2 => (inner.clone(), -3i64..4).prop_map(|(a, c)| E::Mul(Box::new(a), c)),

            2 => (inner.clone(), 1i64..5).prop_map(|(a, c)| E::Rem(Box::new(a), c)),
            1 => (inner.clone(), 1i64..4).prop_map(|(a, c)| E::Div(Box::new(a), c)),
            1 => (inner.clone(), 0i64..8).prop_map(|(a, c)| E::And(Box::new(a), c)),
            1 => (inner.clone(), 0i64..4).prop_map(|(a, c)| E::Xor(Box::new(a), c)),
            1 => (int_ty(), inner.clone()).prop_map(|(t, a)| E::Cast(t, Box::new(a))),
            2 => (prop_oneof![Just('&'), Just('|'), Just('^')], inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| E::Bits(op, Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::LowMask(Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::HighMask(Box::new(a), Box::new(b))),
            1 => (inner.clone(), 0i64..3).prop_map(|(a, c)| E::Shr(Box::new(a), c)),
            1 => (inner.clone(), 0i64..3).prop_map(|(a, c)| E::Shl(Box::new(a), c)),
            1 => (inner.clone(), prop::option::of(inner)).prop_map(|(a, b)| E::Fun(Box::new(a), b.map(Box::new))),
        ]
    })
}

fn int_ty() -> impl Strategy<Value = kpl::IntTy> {
    use kpl::IntTy;
    prop::sample::select(vec![
        IntTy::I8,
        IntTy::U8,
        IntTy::I16,
        IntTy::I32,
        IntTy::U32,
        IntTy::I64,
    ])
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![
        3 => (expr(), expr()).prop_map(|(a, b)| Cond::Lt(a, b)),
        1 => (expr(), expr()).prop_map(|(a, b)| Cond::Eq(a, b)),
        1 => (expr(), expr()).prop_map(|(a, b)| Cond::Ne(a, b)),
    ]
}

fn small2() -> impl Strategy<Value = E> {
    prop_oneof![(1i64..4).prop_map(E::Const), Just(E::N), Just(E::Tid)]
}

fn looph() -> impl Strategy<Value = Loop> {
    let small = prop_oneof![
        (1i64..4).prop_map(E::Const),
        Just(E::N),
        Just(E::Tid),
        Just(E::Bdim),
        Just(E::Add(Box::new(E::Tid), Box::new(E::Const(1)))),
    ];
    prop_oneof![
        4 => small.clone().prop_map(Loop::Count),
        1 => small.clone().prop_map(Loop::CountTo),
        1 => small.clone().prop_map(|b| Loop::Stride(E::Add(Box::new(b), Box::new(E::Bdim)))),
        1 => small.prop_map(Loop::Double),
        1 => Just(Loop::Halve),
        1 => prop::option::weighted(0.6, prop_oneof![Just(1i64), Just(2), Just(4), Just(8)]).prop_map(Loop::HalveFrom),
        1 => (1i64..9).prop_map(|c| Loop::ShlUp(E::Const(c))),
        1 => (small2(), step()).prop_map(|(b, st)| Loop::While(b, st)),
        1 => (small2(), step()).prop_map(|(b, st)| Loop::Until(b, st)),
    ]
}

/// The step of a `while` loop or of a carried counter: a constant, or a thread-dependent
/// amount (`w = w + (tid + 1)`).
fn step() -> impl Strategy<Value = E> {
    prop_oneof![
        2 => Just(E::Const(1)),
        1 => Just(E::Const(2)),
        2 => Just(E::Add(Box::new(E::Tid), Box::new(E::Const(1)))),
        1 => Just(E::Add(Box::new(E::Rem(Box::new(E::Tid), 2)), Box::new(E::Const(1)))),
    ]
}

/// The amount a carried counter changes by: a step, a loop variable, or an amount that
/// may be negative (`tid - 1`).
fn bump() -> impl Strategy<Value = E> {
    prop_oneof![
        3 => step(),
        1 => (0u8..3).prop_map(E::Var),
        1 => Just(E::Sub(Box::new(E::Tid), 1)),
        1 => Just(E::Mul(Box::new(E::Var(2)), -1)),
    ]
}

/// The value a write stores: the last value read plus one, or an expression that
/// threads often agree on.
fn value() -> impl Strategy<Value = E> {
    prop_oneof![
        3 => Just(E::Add(Box::new(E::X), Box::new(E::Const(1)))),
        2 => (0i64..3).prop_map(E::Const),
        1 => Just(E::N),
        1 => (0u8..3).prop_map(E::Var),
        2 => expr(),
        // A value computed alike by the threads that agree on the arguments (the
        // front end's floating-point values): `@f(n)`, `@g(tid / 2, 1)`, `@f(x)`.
        2 => (
            prop_oneof![Just(E::N), Just(E::X), Just(E::Div(Box::new(E::Tid), 2)), (0u8..3).prop_map(E::Var)],
            prop::option::of((0i64..2).prop_map(E::Const)),
        )
            .prop_map(|(a, b)| E::Fun(Box::new(a), b.map(Box::new))),
    ]
}

/// The index of an access: an expression, or a flat-index decomposition as a whole
/// (only there: inside conditions, `%` or bitwise operations its divisions by `n` make
/// queries the solver spends minutes on).
fn index() -> impl Strategy<Value = E> {
    prop_oneof![
        8 => expr(),
        1 => (0u8..8).prop_map(E::Digits),
    ]
}

fn stmt() -> impl Strategy<Value = S> {
    let leaf = prop_oneof![
        4 => (any::<bool>(), index()).prop_map(|(g, e)| S::Read(g, e)),
        4 => (any::<bool>(), index(), value()).prop_map(|(g, e, v)| S::Write(g, e, v)),
        1 => (any::<bool>(), expr()).prop_map(|(g, e)| S::Atomic(g, e)),
        2 => (prop_oneof![5 => Just(TakeOp::Add), 2 => Just(TakeOp::Sub), 1 => Just(TakeOp::Inc), 1 => Just(TakeOp::IncMax), 1 => Just(TakeOp::Write)], expr())
            .prop_map(|(op, e)| S::Take(op, e)),
        1 => expr().prop_map(S::Assign),
        2 => (prop::bool::weighted(0.2), prop::bool::weighted(0.8), expr())
            .prop_map(|(all, sync, e)| S::Publish(all, sync, e)),
        1 => Just(S::ReadP),
        4 => Just(S::Barrier),
        1 => Just(S::WarpBarrier),
        2 => prop::bool::weighted(0.25).prop_map(S::GridBarrier),
        1 => prop::bool::weighted(0.25).prop_map(S::TicketBarrier),
        1 => Just(S::Return),
        1 => Just(S::Break),
        1 => Just(S::Continue),
        2 => any::<bool>().prop_map(S::Havoc),
        1 => cond().prop_map(S::Assume),
        3 => expr().prop_map(S::ReadInput),
        1 => (0u8..3, expr()).prop_map(|(k, e)| S::AssumePair(k, e)),
        2 => (any::<bool>(), prop_oneof![3 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)], bump())
            .prop_map(|(z, op, e)| S::Bump(z, op, e)),
        2 => (cond(), bump(), prop::option::weighted(0.4, bump())).prop_map(|(c, s, t)| S::CondBump(c, s, t)),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let body = prop::collection::vec(inner, 1..4);
        prop_oneof![
            2 => (cond(), body.clone(), prop::option::weighted(0.3, body.clone()))
                .prop_map(|(c, t, e)| S::If(c, t, e)),
            2 => (looph(), body.clone()).prop_map(|(l, b)| S::For(l, b)),
            1 => (small2(), body).prop_map(|(e, b)| S::Guard(e, b)),
        ]
    })
}

fn kernel_body() -> impl Strategy<Value = Vec<S>> {
    prop::collection::vec(stmt(), 1..5)
}

/// `e` with every product replaced by its first factor: the operand of a conversion,
/// `%`, `/`, a shift or a bitwise operation stays linear (the solver can spend minutes,
/// beyond its resource limit, on a product under a modulus, as `u32((n + 2) * (n - 2))`).
fn linear(e: &E) -> E {
    let b = |x: &E| Box::new(linear(x));
    match e {
        E::Prod(a, _) => linear(a),
        E::Add(x, y) => E::Add(b(x), b(y)),
        E::Sub(x, c) => E::Sub(b(x), *c),
        E::Mul(x, c) => E::Mul(b(x), *c),
        E::Rem(x, c) => E::Rem(b(x), *c),
        E::Div(x, c) => E::Div(b(x), *c),
        E::And(x, c) => E::And(b(x), *c),
        E::Xor(x, c) => E::Xor(b(x), *c),
        E::Cast(t, x) => E::Cast(*t, b(x)),
        E::Bits(op, x, y) => E::Bits(*op, b(x), b(y)),
        E::LowMask(x, y) => E::LowMask(b(x), b(y)),
        E::HighMask(x, y) => E::HighMask(b(x), b(y)),
        E::Shr(x, c) => E::Shr(b(x), *c),
        E::Shl(x, c) => E::Shl(b(x), *c),
        E::Digits(_) => E::Tid,
        E::Fun(x, y) => E::Fun(b(x), y.as_deref().map(b)),
        E::Tid | E::Bid | E::N | E::X | E::Bdim | E::Var(_) | E::Const(_) | E::Carried(_) => e.clone(),
    }
}

/// Renders a generated kernel as `.kpl`, one statement per line.
struct Render {
    out: String,
    /// The variables of the enclosing loops, outermost first.
    vars: Vec<String>,
    /// Indentation level.
    indent: usize,
}

impl Render {
    fn expr(&self, e: &E) -> String {
        match e {
            E::Tid => "tid".into(),
            E::N => "n".into(),
            E::X => "x".into(),
            E::Bdim => "bdim".into(),
            E::Bid => "bid".into(),
            E::Var(d) => match self.vars.len() {
                0 => "0".into(),
                n => self.vars[(*d as usize).min(n - 1)].clone(),
            },
            E::Const(c) => c.to_string(),
            E::Add(a, b) => format!("({} + {})", self.expr(a), self.expr(b)),
            E::Sub(a, c) => format!("({} - {c})", self.expr(a)),
            E::Mul(a, c) => format!("({} * {c})", self.expr(a)),
            E::Rem(a, c) => format!("({} % {c})", self.expr(&linear(a))),
            E::Div(a, c) => format!("({} / {c})", self.expr(&linear(a))),
            E::And(a, c) => format!("({} & {c})", self.expr(&linear(a))),
            E::Xor(a, c) => format!("({} ^ {c})", self.expr(&linear(a))),
            E::Cast(t, a) => format!("{t}({})", self.expr(&linear(a))),
            E::Bits(op, a, b) => format!("({} {op} {})", self.expr(&linear(a)), self.expr(&linear(b))),
            E::LowMask(a, b) => format!("({} & ({} - 1))", self.expr(&linear(a)), self.expr(&linear(b))),
            E::HighMask(a, b) => format!("({} & ~({} - 1))", self.expr(&linear(a)), self.expr(&linear(b))),
            E::Shr(a, c) => format!("({} >> {c})", self.expr(&linear(a))),
            E::Shl(a, c) => format!("({} << {c})", self.expr(&linear(a))),
            E::Carried(z) => if *z { "z" } else { "y" }.into(),
            E::Prod(a, b) => format!("({} * {})", self.expr(a), self.expr(b)),
            E::Fun(a, None) => format!("@f({})", self.expr(a)),
            E::Fun(a, Some(b)) => format!("@g({}, {})", self.expr(a), self.expr(b)),
            E::Digits(k) => {
                let g = "(bid * bdim + tid)";
                let (top, mid, low) = (
                    format!("({g} / (n * 3))"),
                    format!("(({g} / n) % 3)"),
                    format!("({g} % n)"),
                );
                match k {
                    0 => format!("({top} * (n * 3) + {mid} * n + {low})"),
                    1 => format!("({top} * (n * 3) + {low} * 3 + {mid})"),
                    2 => format!("({top} * (n * 3) + {mid} * 3 + {low})"),
                    3 => format!("({mid} * n + {low})"),
                    4 => format!("(((({g} % (n * 3)) / n) * n) + {low})"),
                    5 => format!("({top} * (n * 6) + {mid} * n + {low})"),
                    6 => format!("({top} * (n * 6) + {mid} * n + {low} + n * 3)"),
                    _ => format!("({top} * (n * 6) + {mid} * n + {low} + n * 6)"),
                }
            }
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::Lt(a, b) => format!("{} < {}", self.expr(a), self.expr(b)),
            Cond::Eq(a, b) => format!("{} == {}", self.expr(a), self.expr(b)),
            Cond::Ne(a, b) => format!("{} != {}", self.expr(a), self.expr(b)),
        }
    }

    fn line(&mut self, s: &str) {
        let indent = "    ".repeat(self.indent + 1);
        let _ = writeln!(self.out, "{indent}{s}");
    }

    fn block(&mut self, ss: &[S], in_loop: bool) {
        for s in ss {
            self.stmt(s, in_loop);
        }
    }

    fn stmt(&mut self, s: &S, in_loop: bool) {
        let arr = |g: bool| if g { "G" } else { "A" };
        match s {
            S::Read(g, e) => {
                let element = format!("{}[{}]", arr(*g), self.expr(e));
                let l = format!("x = {};", typed(&element));
                self.line(&l);
            }
            S::Write(g, e, v) => {
                let l = format!("{}[{}] = {};", arr(*g), self.expr(e), self.expr(v));
                self.line(&l);
            }
            S::Atomic(g, e) => {
                let l = format!("atomic_add({}[{}], 1);", arr(*g), self.expr(e));
                self.line(&l);
            }
            S::Take(op, e) => {
                let l = match op {
                    TakeOp::Add => format!("x = {};", typed(&format!("atomic_add(C[0], {})", self.expr(e)))),
                    TakeOp::Sub => format!("x = atomic_sub(C[0], {});", self.expr(e)),
                    TakeOp::Inc => format!("x = atomic_inc(C[0], {});", self.expr(e)),
                    TakeOp::IncMax => "x = atomic_inc(C[0], 4294967295);".to_string(),
                    TakeOp::Write => format!("C[0] = {};", self.expr(e)),
                };
                self.line(&l);
            }
            S::Assign(e) => {
                let l = format!("x = {};", self.expr(e));
                self.line(&l);
            }
            S::Publish(all, sync, e) => {
                let w = format!("P[0] = {};", self.expr(e));
                if *all {
                    self.line(&w);
                } else {
                    self.line("if (tid == 0) {");
                    self.indent += 1;
                    self.line(&w);
                    self.indent -= 1;
                    self.line("}");
                }
                if *sync {
                    self.line("barrier;");
                }
                self.line("x = P[0];");
            }
            S::ReadP => self.line("x = P[0];"),
            S::Guard(e, body) => {
                self.line("x = P[0];");
                let l = format!("if (x < {}) {{", self.expr(e));
                self.line(&l);
                self.nested(body, in_loop);
                self.line("}");
            }
            S::Barrier => self.line("barrier;"),
            S::WarpBarrier => self.line("warp_barrier;"),
            S::GridBarrier(false) => self.line("grid_barrier;"),
            S::GridBarrier(true) => {
                self.line("if (bid == 0) {");
                self.line("    grid_barrier;");
                self.line("}");
            }
            S::TicketBarrier(false) => self.line("ticket_barrier;"),
            S::TicketBarrier(true) => {
                self.line("if (bid == 0) {");
                self.line("    ticket_barrier;");
                self.line("}");
            }
            S::Return => self.line("return;"),
            S::Break if in_loop => self.line("break;"),
            S::Continue if in_loop => self.line("continue;"),
            S::Break | S::Continue => self.line("x = x + 1;"),
            S::Havoc(false) => self.line("havoc x;"),
            S::Havoc(true) => self.line("warp_havoc x;"),
            S::ReadInput(e) => {
                let l = format!("x = I[{}];", self.expr(e));
                self.line(&l);
            }
            S::AssumePair(k, e) => {
                let e = self.expr(e);
                let l = match k {
                    0 => format!("assume {e} != other({e});"),
                    1 => format!("assume {e} == other({e});"),
                    _ => "assume !(tid < other(tid)) || x < other(x);".to_string(),
                };
                self.line(&l);
            }
            S::Bump(z, op, e) => {
                let v = if *z { "z" } else { "y" };
                let e = self.expr(e);
                let l = match op {
                    0 => format!("{v} = {v} + {e};"),
                    1 => format!("{v} = {v} - {e};"),
                    _ => format!("{v} = {e};"),
                };
                self.line(&l);
            }
            S::CondBump(c, s, t) => {
                let l = format!("if ({}) {{", self.cond(c));
                self.line(&l);
                let l = format!("    y = y + {};", self.expr(s));
                self.line(&l);
                if let Some(t) = t {
                    self.line("} else {");
                    let l = format!("    z = z + {};", self.expr(t));
                    self.line(&l);
                }
                self.line("}");
            }
            S::Assume(c) => {
                let l = format!("assume {};", self.cond(c));
                self.line(&l);
            }
            S::If(c, t, e) => {
                let l = format!("if ({}) {{", self.cond(c));
                self.line(&l);
                self.nested(t, in_loop);
                if let Some(e) = e {
                    self.line("} else {");
                    self.nested(e, in_loop);
                }
                self.line("}");
            }
            S::For(lp @ (Loop::While(..) | Loop::Until(..)), body) => self.while_loop(lp, body),
            S::For(lp, body) => self.for_loop(lp, body),
        }
    }

    /// A loop whose counter `w<depth>` steps by an expression: `while` with the bound in
    /// its guard, or a `while` of at most 16 iterations left by `break` at the bound.
    fn while_loop(&mut self, lp: &Loop, body: &[S]) {
        let (Loop::While(bound, step) | Loop::Until(bound, step)) = lp else {
            return;
        };
        let w = format!("w{}", self.vars.len());
        let l = format!("{w} = 0;");
        self.line(&l);
        let bound = self.expr(bound);
        if matches!(lp, Loop::While(..)) {
            let l = format!("while ({w} < {bound}) {{");
            self.line(&l);
        } else {
            let l = format!("while ({w} < 16) {{");
            self.line(&l);
            let l = format!("    if (!({w} < {bound})) {{");
            self.line(&l);
            self.line("        break;");
            self.line("    }");
        }
        self.vars.push(w.clone());
        self.nested(body, true);
        let l = format!("    {w} = {w} + {};", self.expr(step));
        self.line(&l);
        self.vars.pop();
        self.line("}");
    }

    /// A `for` loop of one of the counted shapes, counter `i<depth>`.
    fn for_loop(&mut self, lp: &Loop, body: &[S]) {
        let i = format!("i{}", self.vars.len());
        let head = match lp {
            Loop::Count(b) => format!("for ({i} = 0; {i} < {}; {i} = {i} + 1) {{", self.expr(b)),
            Loop::CountTo(b) => format!("for ({i} = 0; {i} <= {}; {i} = {i} + 1) {{", self.expr(b)),
            Loop::Stride(b) => {
                format!("for ({i} = tid; {i} < {}; {i} = {i} + bdim) {{", self.expr(b))
            }
            Loop::Double(b) => format!("for ({i} = 1; {i} < {}; {i} = {i} * 2) {{", self.expr(b)),
            Loop::HalveFrom(Some(c)) => format!("for ({i} = {c}; {i} > 0; {i} = {i} >> 1) {{"),
            Loop::HalveFrom(None) => {
                let outer = self.vars.last().cloned().unwrap_or_else(|| "8".into());
                format!("for ({i} = {outer} / 2; {i} > 0; {i} = {i} >> 1) {{")
            }
            Loop::ShlUp(b) => format!("for ({i} = 2; {i} <= {}; {i} = {i} << 1) {{", self.expr(b)),
            Loop::Halve | Loop::While(..) | Loop::Until(..) => {
                format!("for ({i} = bdim / 2; {i} > 0; {i} = {i} >> 1) {{")
            }
        };
        self.line(&head);
        self.vars.push(i);
        self.nested(body, true);
        self.vars.pop();
        self.line("}");
    }

    /// A nested block, one level of indentation deeper.
    fn nested(&mut self, ss: &[S], in_loop: bool) {
        self.indent += 1;
        self.block(ss, in_loop);
        self.indent -= 1;
    }
}

/// One generated case: the kernel body, an optional precondition on `n`, the
/// arithmetic, and the launch (`None`: symbolic for the verifier, the interpreter's
/// default launches).
#[derive(Clone, Debug)]
struct Case {
    body: Vec<S>,
    requires: Option<i64>,
    wrap: bool,
    launch: Option<(u32, u32)>,
    /// Warp lock step (`--warp-size`), with warps smaller than the blocks.
    warp: Option<u32>,
    /// The type of the parameter `n` (`None`: untyped, `u32`).
    param_ty: Option<kpl::IntTy>,
    /// `__launch_bounds__`: at most this many threads per block.
    max_threads: Option<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        kernel_body(),
        prop::option::weighted(0.2, -3i64..4),
        prop::bool::weighted(0.2),
        prop::option::weighted(
            0.8,
            prop_oneof![Just((4, 2)), Just((3, 2)), Just((8, 1)), Just((2, 3))],
        ),
        prop::option::weighted(0.25, prop_oneof![Just(2u32), Just(4u32)]),
        prop::option::weighted(0.4, int_ty()),
        prop::option::weighted(0.2, 2u32..5),
    )
        .prop_map(
            |(body, requires, wrap, launch, warp, param_ty, max_threads)| Case {
                body,
                requires,
                wrap,
                launch,
                warp,
                param_ty,
                max_threads,
            },
        )
}

fn render(case: &Case) -> String {
    let mut r = Render {
        out: String::new(),
        vars: Vec::new(),
        indent: 0,
    };
    r.block(&case.body, false);
    let requires = case.requires.map_or(String::new(), |c| match c {
        c if c < 0 => format!(" requires n < -{}", -c),
        c => format!(" requires n < {c}"),
    });
    let n = case.param_ty.map_or("n".to_string(), |t| format!("{t} n"));
    let locals = "    local x = 0;\n    local y = 0;\n    local z = 0;\n    local w0 = 0;\n    local w1 = 0;\n    local w2 = 0;\n    local w3 = 0;\n";
    format!(
        "kernel gen(shared A[], global G[], global C[], shared P[], global I[], {n}){requires} {{\n{locals}{}}}\n",
        r.out
    )
}

/// (array, first line, second line) with intra, inter and fixable.
type Key = (String, u32, u32);

fn race_map(r: &Report) -> Vec<(Key, bool, Vec<usize>, bool)> {
    r.races
        .iter()
        .map(|x| {
            (
                (x.array.clone(), x.first.span.line, x.second.span.line),
                x.intra,
                x.inter.clone(),
                x.fixable,
            )
        })
        .collect()
}

/// A read through a type (`u32(A[i])`, docs/semantics.md, typed reads) or untyped,
/// chosen by the text so that every kind shows up without a strategy of its own.
fn typed(read: &str) -> String {
    match ["", "u32", "i8", "u8", "i32", "u16"][read.len() % 6] {
        "" => read.to_string(),
        ty => format!("{ty}({read})"),
    }
}

/// Everything the interpreter saw, the verifier reports.
fn compare(case: &Case) -> Result<(), TestCaseError> {
    let src = &render(case);
    let kernel = match kpl::parse(src) {
        Ok(mut ks) => ks.remove(0),
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "generated kernel does not parse: {e}\n{src}"
            )));
        }
    };
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(case.launch.map(|(b, _)| [b, 1, 1])),
            grid: kpl::launch::dims(case.launch.map(|(_, g)| [g, 1, 1])),
            warp_size: case.warp,
            // Only where the launch is symbolic: a fixed block over the bound is not a
            // launch at all.
            max_threads: case.max_threads.filter(|_| case.launch.is_none()),
            ..kpl::Launch::default()
        },
        arith: if case.wrap {
            kpl::Arith::Wrap32
        } else {
            kpl::Arith::Unbounded
        },
        ..CheckOptions::default()
    };
    let dynamic = match Interpreter::new(opts.clone()).check(&kernel) {
        Ok(r) => r,
        Err(OracleError::NoFeasibleRun(_)) => return Ok(()),
        Err(e) => return Err(TestCaseError::fail(format!("interpreter: {e}"))),
    };
    let mut verifier = StaticVerifier::new(opts.clone());
    // Every other kernel has its arrays asked on two threads (`verifier::lanes`),
    // however few its pairs.
    if src.len().is_multiple_of(2) {
        verifier.lane_min_types = 0;
    }
    // The solver's answers alone are checked against the interpreter; answers taken
    // from runs of the kernel (`verifier::concrete`) are compared with them below.
    verifier.concrete_after = usize::MAX;
    let stat = match verifier.check(&kernel) {
        Ok(r) => r,
        // Two-thread assumptions no two threads satisfy (`assume n != other(n);`) leave
        // only launches of one thread, where nothing races or diverges.
        Err(OracleError::NoFeasibleRun(_)) if dynamic.races.is_empty() && dynamic.divergences.is_empty() => {
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("verifier: {e}\n{src}"))),
    };
    let srace = race_map(&stat);
    for (key, intra, inter, fixable) in race_map(&dynamic) {
        let Some((_, si, sinter, sfix)) = srace.iter().find(|(k, ..)| *k == key) else {
            return Err(TestCaseError::fail(format!(
                "missed race {key:?}\n{src}\nstatic: {srace:?}\ndynamic: {:?}",
                race_map(&dynamic)
            )));
        };
        let ok = (!intra || *si) && inter.iter().all(|d| sinter.contains(d)) && (fixable || !sfix);
        if !ok {
            return Err(TestCaseError::fail(format!(
                "race {key:?}: dynamic intra {intra} inter {inter:?} fixable {fixable}, \
                 static intra {si} inter {sinter:?} fixable {sfix}\n{src}"
            )));
        }
    }
    // Every third kernel: running the kernel after the solver's first satisfiable
    // answer replaces answers by the same ones.
    if src.len().is_multiple_of(3) {
        let mut with_runs = StaticVerifier::new(opts.clone());
        with_runs.concrete_after = 1;
        if let Ok(r) = with_runs.check(&kernel)
            && race_map(&r) != srace
        {
            return Err(TestCaseError::fail(format!(
                "answers from runs differ\n{src}\nsolver only: {srace:?}\nwith runs: {:?}",
                race_map(&r)
            )));
        }
    }
    // Every third kernel (another third): the same-iteration answers of the unrolled
    // test (`verifier::unrolled`) are the solver's.
    if src.len() % 3 == 1 {
        let mut solver = StaticVerifier::new(opts.clone());
        solver.concrete_after = usize::MAX;
        solver.unrolled_test = false;
        if let Ok(r) = solver.check(&kernel)
            && race_map(&r) != srace
        {
            return Err(TestCaseError::fail(format!(
                "unrolled answers differ\n{src}\nsolver only: {:?}\nwith the test: {srace:?}",
                race_map(&r)
            )));
        }
    }
    // Every eighth kernel (replay is the slowest check of this test, and CI has a
    // time limit): what a replay confirms, the interpreter finds.
    if src.len() % 8 == 2 {
        replayed_findings_are_the_interpreters(&kernel, &opts, &mut verifier, &stat, src)?;
    }
    let sdiv: Vec<u32> = stat.divergences.iter().map(|d| d.span.line).collect();
    for d in &dynamic.divergences {
        if !sdiv.contains(&d.span.line) {
            return Err(TestCaseError::fail(format!(
                "missed divergence at line {}\n{src}\nstatic: {sdiv:?}",
                d.span.line
            )));
        }
    }
    Ok(())
}

/// Every race and divergence a replay confirms ([`oracle::replay`]) the interpreter
/// finds too, checking the kernel on the configuration the replay ran with every memory
/// seed (grids of up to eight blocks, which both run whole); a confirmed witness's
/// threads lie inside its launch.
fn replayed_findings_are_the_interpreters(
    kernel: &kpl::Kernel,
    opts: &CheckOptions,
    verifier: &mut StaticVerifier,
    stat: &Report,
    src: &str,
) -> Result<(), TestCaseError> {
    let mut replayed = stat.clone();
    verifier.replay(kernel, &mut replayed);
    let mut seen_on: Vec<(oracle::replay::RunConfig, Report)> = Vec::new();
    let findings = replayed
        .races
        .iter()
        .map(|r| {
            (
                &r.replay,
                &r.witness,
                Some((r.first.stmt, r.second.stmt)),
                r.first.stmt,
            )
        })
        .chain(
            replayed
                .divergences
                .iter()
                .map(|d| (&d.replay, &d.witness, None, d.stmt)),
        );
    for (replay, witness, pair, stmt) in findings {
        let Some(replay) = replay else {
            return Err(TestCaseError::fail(format!("a finding was not replayed\n{src}")));
        };
        let Some(run) = replay.run.as_ref().filter(|_| replay.confirmed) else {
            continue;
        };
        let Some(w) = witness else {
            return Err(TestCaseError::fail(format!(
                "a confirmed finding has no witness\n{src}"
            )));
        };
        let inside =
            |t: &oracle::ThreadId| (0..3).all(|i| t.tid[i] < w.block_dim[i] && t.bid[i] < w.grid_dim[i]);
        if !w.threads.iter().all(inside) {
            return Err(TestCaseError::fail(format!(
                "a confirmed witness lies outside its launch {w:?}\n{src}"
            )));
        }
        if run.grid_dim.iter().product::<u32>() > 8 {
            continue;
        }
        let pinned = CheckOptions {
            launch: kpl::Launch {
                params: run.params.iter().cloned().collect(),
                ..kpl::Launch {
                    warp_size: opts.launch.warp_size,
                    ..kpl::Launch::fixed(run.block_dim, run.grid_dim)
                }
            },
            ..opts.clone()
        };
        // Once per configuration (the findings of a kernel mostly share one).
        let seen = match seen_on.iter().find(|(c, _)| c == run) {
            Some((_, r)) => r.clone(),
            None => {
                let r = Interpreter::with_config(pinned, oracle::replay::config_of(true))
                    .check(kernel)
                    .map_err(|e| {
                        TestCaseError::fail(format!("interpreter on a replayed configuration: {e}\n{src}"))
                    })?;
                seen_on.push((run.clone(), r.clone()));
                r
            }
        };
        let found = match pair {
            Some((a, b)) => seen
                .races
                .iter()
                .any(|r| (r.first.stmt, r.second.stmt) == (a, b) || (r.first.stmt, r.second.stmt) == (b, a)),
            None => seen.divergences.iter().any(|d| d.stmt == stmt),
        };
        if !found {
            return Err(TestCaseError::fail(format!(
                "confirmed by a replay on {run:?}, not found by the interpreter there\n{src}"
            )));
        }
    }
    Ok(())
}

/// Runs `cases` random kernels. The seed is fixed unless `AUTOSYNC_PROPS_SEED` names one
/// (a number; `random` draws one and prints it): CI sees the same kernels every time, and
/// a session hunting for bugs can sweep fresh ones and replay any failure.
fn run(cases: u32, default_seed: u64) {
    let seed = match std::env::var("AUTOSYNC_PROPS_SEED").ok().as_deref() {
        None => default_seed,
        Some("random") => {
            let s = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            eprintln!("AUTOSYNC_PROPS_SEED={s}");
            s
        }
        Some(n) => n
            .parse()
            .unwrap_or_else(|_| panic!("AUTOSYNC_PROPS_SEED={n}: not a number")),
    };
    let algorithm = proptest::test_runner::RngAlgorithm::ChaCha;
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let cases = std::env::var("AUTOSYNC_PROPS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            rng_algorithm: algorithm,
            ..Config::default()
        },
        proptest::test_runner::TestRng::from_seed(algorithm, &bytes),
    );
    // `AUTOSYNC_PROPS_CASES=N` runs N cases instead; `AUTOSYNC_PROPS_SLOW=MS` prints the
    // kernels that take longer than MS milliseconds (both oracles) on stderr.
    let slow: Option<u128> = std::env::var("AUTOSYNC_PROPS_SLOW")
        .ok()
        .and_then(|v| v.parse().ok());
    let result = runner.run(&case(), |c| {
        let start = std::time::Instant::now();
        let r = compare(&c);
        let ms = start.elapsed().as_millis();
        if slow.is_some_and(|m| ms > m) {
            eprintln!("slow case ({ms} ms):\n{}", render(&c));
        }
        r
    });
    if let Err(e) = result {
        panic!("seed {seed}: {e}");
    }
}

#[test]
fn static_reports_everything_the_interpreter_sees() {
    run(500, 1);
}

#[test]
#[ignore = "long: 5000 random kernels"]
fn static_reports_everything_the_interpreter_sees_long() {
    run(5000, 2);
}

#[test]
fn the_generator_makes_parseable_kernels_with_loops_and_barriers() {
    let mut runner = TestRunner::deterministic();
    let mut loops = 0;
    let mut barriers = 0;
    for _ in 0..50 {
        let case = case().new_tree(&mut runner).expect("tree").current();
        let src = render(&case);
        let k = kpl::parse(&src)
            .unwrap_or_else(|e| panic!("{e}\n{src}"))
            .remove(0);
        loops += k.stmts().iter().filter(|s| s.kind.is_loop()).count();
        barriers += k.barrier_count();
    }
    assert!(loops > 10 && barriers > 10, "{loops} loops, {barriers} barriers");
}
