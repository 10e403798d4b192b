//! What the verifier computes, as text for a person, without deciding anything: the
//! queries a check would ask (`--show queries`) and the symbolic summary with its terms
//! printed infix, its loops' trip counts and the invariants proved (`--show summary`).

use std::collections::HashMap;

use kpl::{Kernel, Space, StmtId, UnOp};

use super::invariants::{self, Verdict};
use super::pairs::{conflicting_pairs, many_blocks, orders};
use super::queries::Order;
use super::session::{fresh_context, in_context};
use super::symbolic::{AtomKind, Summary};
use super::term::{Class, T, Term};
use super::{StaticVerifier, symbolic};

impl StaticVerifier {
    /// The queries [`Oracle::check`](crate::Oracle::check) would ask about `kernel`, one line each, without
    /// asking them (`autosync check --show queries`): a divergence query per barrier
    /// whose guard is not block-uniform, then for each pair of conflicting accesses (in
    /// program order) one query per race type and scope. Screening, which may spare some
    /// pair queries depending on solver time, is not applied; verdict paths are untouched.
    pub fn describe_queries(&self, kernel: &Kernel) -> Vec<String> {
        let sum = symbolic::summarize(kernel, &self.opts);
        let many_blocks = many_blocks(&sum) && !self.opts.only_intra_group;
        let mut out = Vec::new();
        for bar in &sum.barriers {
            if bar.grid && sum.class(&bar.pred) > Class::Grid {
                out.push(format!(
                    "divergence: grid barrier at {}:{} (threads of the grid)",
                    bar.span.line, bar.span.col
                ));
            } else if sum.class(&bar.pred) > Class::Block {
                out.push(format!(
                    "divergence: barrier at {}:{}",
                    bar.span.line, bar.span.col
                ));
            }
        }
        for (a, b) in conflicting_pairs(&sum.accesses) {
            let mut scopes = vec!["same block"];
            if a.space == Space::Global && many_blocks {
                scopes.push("different blocks");
            }
            for order in orders(a, b) {
                let order = match order {
                    Order::Intra => "same iteration".to_string(),
                    Order::Inter { depth, forward } => format!(
                        "different iterations at loop depth {depth} ({} first)",
                        if forward { "earlier" } else { "later" }
                    ),
                };
                for scope in &scopes {
                    out.push(format!(
                        "race on `{}`: {} {}:{} / {} {}:{}, {order}, {scope}",
                        a.array,
                        a.kind.word(),
                        a.span.line,
                        a.span.col,
                        b.kind.word(),
                        b.span.line,
                        b.span.col
                    ));
                }
            }
        }
        out
    }
}

impl StaticVerifier {
    /// The symbolic summary of `kernel`, one line per fact (`autosync check --show
    /// summary`): the launch as the verifier sees it, per loop its trip count, guard and
    /// candidate invariants with the proof's verdict, per barrier and access its
    /// condition (and index), and a legend of the unknowns (`a3`: the value read at
    /// line 12, ...). The invariants are proved as a check proves them (same budget).
    pub fn describe_summary(&self, kernel: &Kernel) -> Vec<String> {
        let mut sum = symbolic::summarize(kernel, &self.opts);
        let ctx = fresh_context();
        let _interruptible = crate::interrupt::Registration::new(&ctx);
        let verdicts = in_context(&ctx, || invariants::prove(&sum, self.limits.invariants));
        let lines = lines_of(kernel);
        let mut out = vec![launch_line(&sum)];
        for (lp, info) in sum.loops.iter().enumerate() {
            if let Some(info) = info {
                let at = lines
                    .get(&info.stmt)
                    .map_or(String::new(), |l| format!(" (line {l})"));
                out.push(format!(
                    "loop {lp}{at}: iteration k{lp}, trip count {}, guard {}{}",
                    show(&sum, &info.trip_term),
                    show(&sum, &info.guard),
                    if info.once { " (runs at most once)" } else { "" }
                ));
            }
        }
        for (l, vs) in sum.invariants.iter().zip(&verdicts) {
            for (c, v) in l.candidates.iter().zip(vs) {
                out.push(format!(
                    "loop {} invariant {}: {}",
                    l.lp,
                    show(&sum, &c.cond),
                    verdict_word(v)
                ));
            }
        }
        invariants::apply(&mut sum, &verdicts);
        for b in &sum.barriers {
            out.push(format!(
                "{} at {}:{} when {}",
                if b.grid { "grid barrier" } else { "barrier" },
                b.span.line,
                b.span.col,
                show(&sum, &b.pred)
            ));
        }
        for a in &sum.accesses {
            let loops = if a.loops.is_empty() {
                String::new()
            } else {
                let ls: Vec<String> = a.loops.iter().map(|l| format!("k{l}")).collect();
                format!(" (iterations {})", ls.join(", "))
            };
            out.push(format!(
                "{} {}:{} {}[{}] when {}{loops}",
                a.kind.word(),
                a.span.line,
                a.span.col,
                a.array,
                show(&sum, &a.index),
                show(&sum, &a.pred)
            ));
        }
        out.extend(legend(&sum, &lines));
        out
    }
}

/// The launch and parameters the summary was made for.
fn launch_line(sum: &Summary) -> String {
    let dims = |d: &[Option<i64>; 3]| {
        d.iter()
            .map(|x| x.map_or("?".to_string(), |v| v.to_string()))
            .collect::<Vec<_>>()
            .join("×")
    };
    let mut line = format!(
        "launch: block {}, grid {}, at most {} threads per block, warp size {}",
        dims(&sum.block_dim),
        dims(&sum.grid_dim),
        sum.max_threads,
        sum.warp_size
    );
    if !sum.params.is_empty() {
        line.push_str(&format!("; symbolic parameters {}", sum.params.join(", ")));
    }
    if !sum.fixed_params.is_empty() {
        let fixed: Vec<String> = sum
            .fixed_params
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        line.push_str(&format!("; fixed {}", fixed.join(", ")));
    }
    line
}

fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::NotInitially => "false before the first iteration",
        Verdict::NotInductive => "not preserved by an iteration",
        Verdict::Undecided => "undecided (solver budget)",
    }
}

/// Each statement's line in the source.
fn lines_of(kernel: &Kernel) -> HashMap<StmtId, u32> {
    let mut lines = HashMap::new();
    kpl::for_each_stmt(&kernel.body.stmts, &mut |s| {
        lines.insert(s.id, s.span.line);
    });
    lines
}

/// What each unknown of the summary stands for.
fn legend(sum: &Summary, lines: &HashMap<StmtId, u32>) -> Vec<String> {
    let at = |s: &StmtId| {
        lines
            .get(s)
            .map_or("an inserted statement".to_string(), |l| format!("line {l}"))
    };
    sum.atoms
        .iter()
        .enumerate()
        .map(|(id, info)| {
            let what = match &info.kind {
                AtomKind::Read(s) => format!("the value read (or returned by an atomic) at {}", at(s)),
                AtomKind::Arbitrary(s) => format!("an arbitrary value at {}", at(s)),
                AtomKind::Unknown(v) => format!("`{v}` before any assignment"),
                AtomKind::Start(lp, v) => format!("`{v}` at the start of an iteration of loop {lp}"),
                AtomKind::Carried(lp, v) => format!("`{v}` carried by loop {lp} (no closed form)"),
                AtomKind::Geo { lp, op, c, init } => format!(
                    "a geometric sequence of loop {lp}: `x {} {c}` from {}",
                    op.symbol(),
                    show(sum, init)
                ),
                AtomKind::Tail { op, c, last } => {
                    format!(
                        "a geometric sequence (`x {} {c}`) past its table's last entry {last}",
                        op.symbol()
                    )
                }
                AtomKind::Trip(lp) => format!("the trip count of loop {lp}"),
                AtomKind::After(lp, v) => format!("`{v}` after loop {lp} left by `break`"),
                AtomKind::Returned(lp) => format!("whether the thread returned inside loop {lp}"),
                AtomKind::Input(a) => format!("the contents of the never-written array `{a}`"),
                AtomKind::Other => "the other thread's value (`other(..)`)".to_string(),
                AtomKind::Function(f) => format!("the uninterpreted function `@{f}`"),
            };
            format!(
                "a{id}: {what}; one value per {}",
                format!("{:?}", info.class).to_lowercase()
            )
        })
        .collect()
}

/// A term as infix text: `tid.x`, `k0` for loop 0's iteration, `a3(k0)` for an unknown
/// of the iterations, `p0` for a symbolic parameter.
fn show(sum: &Summary, t: &T) -> String {
    infix(sum, t, 0)
}

fn infix(sum: &Summary, t: &T, outer: u8) -> String {
    let text = match &**t {
        Term::Const(v) => return v.to_string(),
        Term::Builtin(b) => return format!("{}.{}", b.keyword(), b.dim().suffix()),
        Term::Param(i, _) => return sum.params.get(*i).cloned().unwrap_or_else(|| format!("p{i}")),
        Term::Iter(lp) => return format!("k{lp}"),
        Term::InLoop(lp) => return format!("in_loop{lp}"),
        Term::IterAdd(k, off) => (format!("{} + {off}", infix(sum, k, 9)), 9),
        Term::Atom(id, args) => return format!("a{id}{}", arguments(sum, args)),
        Term::Un(op, e) => {
            let sym = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
                UnOp::BitNot => "~",
            };
            return format!("{sym}{}", infix(sum, e, 11));
        }
        Term::Bin(op, a, b) => {
            let p = op.precedence();
            (
                format!("{} {} {}", infix(sum, a, p), op.symbol(), infix(sum, b, p + 1)),
                p,
            )
        }
        Term::Ite(c, a, b) => (
            format!(
                "{} ? {} : {}",
                infix(sum, c, 1),
                infix(sum, a, 1),
                infix(sum, b, 0)
            ),
            0,
        ),
        Term::Table(k, entries, tail) => {
            let es: Vec<String> = entries.iter().map(|e| infix(sum, e, 0)).collect();
            return format!(
                "table({}; [{}] else {})",
                infix(sum, k, 0),
                es.join(", "),
                infix(sum, tail, 0)
            );
        }
        Term::Pow2(e) => return format!("2^({})", infix(sum, e, 0)),
        Term::Cast(ty, e) => return format!("({ty}){}", infix(sum, e, 11)),
    };
    let (s, p) = text;
    if p < outer { format!("({s})") } else { s }
}

fn arguments(sum: &Summary, args: &[T]) -> String {
    if args.is_empty() {
        return String::new();
    }
    let xs: Vec<String> = args.iter().map(|a| infix(sum, a, 0)).collect();
    format!("({})", xs.join(", "))
}
