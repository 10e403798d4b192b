//! Cross-checks the interpreter's compressed race detection (`races::AccessLog` keeps
//! a few accesses per group, `races::History` a prefix trie) against brute force over
//! every pair of traced accesses, on random kernels.

use std::collections::BTreeMap;

use kpl::{Arith, LabelTree, Space, StmtId};

use super::compile::{Program, StmtIx};
use super::exec::{Machine, RunSpec};
use super::races::{Entry, Findings, Loc};
use super::values::mix;
use crate::AccessKind;

/// One access as the interpreter performed it.
#[derive(Clone, Debug)]
pub(super) struct Traced {
    pub entry: Entry,
    pub loc: Loc,
    pub iters: Vec<u64>,
    /// The value a write stores (whatever the tolerance).
    pub value: i64,
    /// Full barriers its block had completed before it.
    pub epoch: u32,
}

/// Per racing statement pair (text order): intra, inter depths, fixable.
type Classes = BTreeMap<(StmtId, StmtId), (bool, Vec<usize>, bool)>;

fn brute_force(prog: &Program, trace: &[Traced], benign: bool) -> Classes {
    let mut out: BTreeMap<(StmtId, StmtId), (bool, Vec<usize>, bool)> = BTreeMap::new();
    for (i, a) in trace.iter().enumerate() {
        for b in &trace[i + 1..] {
            let (ea, eb) = (&a.entry, &b.entry);
            if a.loc != b.loc || (ea.block, ea.thread) == (eb.block, eb.thread) {
                continue;
            }
            if matches!(
                (ea.kind, eb.kind),
                (AccessKind::Read, AccessKind::Read) | (AccessKind::Atomic, AccessKind::Atomic)
            ) {
                continue;
            }
            // Under benign tolerance, plain writes of equal values do not race.
            let writes = (ea.kind, eb.kind) == (AccessKind::Write, AccessKind::Write);
            if benign && writes && a.value == b.value {
                continue;
            }
            let cross = ea.block != eb.block;
            let global = prog.arrays[a.loc.0 as usize].space == Space::Global;
            if (cross && !global) || (!cross && a.epoch != b.epoch) {
                continue;
            }
            let (la, lb) = (
                &prog.stmts[ea.stmt as usize].loops,
                &prog.stmts[eb.stmt as usize].loops,
            );
            let common = la.iter().zip(lb).take_while(|(x, y)| x == y).count();
            let class = (0..common).find(|&k| a.iters[k] != b.iters[k]);
            let post = |s: StmtIx| prog.stmts[s as usize].post;
            let id = |s: StmtIx| prog.stmts[s as usize].id;
            let key = if post(eb.stmt) < post(ea.stmt) {
                (id(eb.stmt), id(ea.stmt))
            } else {
                (id(ea.stmt), id(eb.stmt))
            };
            let e = out.entry(key).or_insert((false, Vec::new(), true));
            match class {
                None => e.0 = true,
                Some(k) => {
                    if !e.1.contains(&(k + 1)) {
                        e.1.push(k + 1);
                        e.1.sort_unstable();
                    }
                }
            }
            e.2 &= !cross;
        }
    }
    out
}

/// A deterministic generator of random `.kpl` kernels with loops, conditionals,
/// barriers, jumps and accesses to a shared and a global array.
struct Gen {
    state: u64,
    loops: Vec<String>,
    next_loop: usize,
}

impl Gen {
    fn pick(&mut self, n: usize) -> usize {
        self.state = mix(self.state);
        (self.state % n as u64) as usize
    }

    fn choose(&mut self, options: &[String]) -> String {
        options[self.pick(options.len())].clone()
    }

    fn loop_var(&mut self) -> String {
        match self.loops.len() {
            0 => "1".to_string(),
            n => {
                let k = self.pick(n);
                self.loops[k].clone()
            }
        }
    }

    fn index(&mut self) -> String {
        let lv = self.loop_var();
        self.choose(&[
            "tid".into(),
            "tid + 1".into(),
            "0".into(),
            lv.clone(),
            format!("tid + {lv}"),
            "x % 4".into(),
            "(tid * 2) % 5".into(),
            "bid * bdim + tid".into(),
            "bdim - tid".into(),
        ])
    }

    fn cond(&mut self) -> String {
        let lv = self.loop_var();
        self.choose(&[
            "tid % 2 == 0".into(),
            "tid < n".into(),
            "x > 3".into(),
            "tid == 1".into(),
            format!("{lv} == tid"),
        ])
    }

    fn block(&mut self, depth: usize, indent: usize, out: &mut String) {
        for _ in 0..1 + self.pick(4) {
            self.stmt(depth, indent, out);
        }
    }

    fn line(indent: usize, text: &str, out: &mut String) {
        out.push_str(&"    ".repeat(indent));
        out.push_str(text);
        out.push('\n');
    }

    fn stmt(&mut self, depth: usize, indent: usize, out: &mut String) {
        let array = if self.pick(2) == 0 { "S" } else { "G" };
        match self.pick(20) {
            0..=4 => {
                let i = self.index();
                Self::line(indent, &format!("x = {array}[{i}];"), out);
            }
            5..=7 => {
                let i = self.index();
                Self::line(indent, &format!("{array}[{i}] = x + 1;"), out);
            }
            // Equal values in every thread: benign write-write pairs.
            8 | 9 => {
                let i = self.index();
                let v = self.choose(&["1".into(), "n".into(), "x".into()]);
                Self::line(indent, &format!("{array}[{i}] = {v};"), out);
            }
            10 => {
                let i = self.index();
                Self::line(indent, &format!("atomic_add({array}[{i}], 1);"), out);
            }
            11 | 12 => Self::line(indent, "barrier;", out),
            13 | 14 if depth < 3 => {
                let c = self.cond();
                Self::line(indent, &format!("if ({c}) {{"), out);
                self.block(depth + 1, indent + 1, out);
                Self::line(indent, "}", out);
            }
            15 | 16 if depth < 3 => {
                let v = format!("i{}", self.next_loop);
                self.next_loop += 1;
                let bound = self.choose(&["2".into(), "3".into(), "n".into(), "tid % 3".into()]);
                Self::line(
                    indent,
                    &format!("for ({v} = 0; {v} < {bound}; {v} = {v} + 1) {{"),
                    out,
                );
                self.loops.push(v);
                self.block(depth + 1, indent + 1, out);
                self.loops.pop();
                Self::line(indent, "}", out);
            }
            17 if !self.loops.is_empty() => {
                let jump = if self.pick(2) == 0 { "break;" } else { "continue;" };
                Self::line(indent, jump, out);
            }
            _ => {
                let lv = self.loop_var();
                Self::line(indent, &format!("x = x + {lv};"), out);
            }
        }
    }

    fn kernel(seed: u64) -> String {
        let mut g = Gen {
            state: seed,
            loops: Vec::new(),
            next_loop: 0,
        };
        let mut out = String::from("kernel random(shared S[], global G[], n) {\n    local x = 0;\n");
        g.block(0, 1, &mut out);
        // A few more statements at the top level.
        g.block(0, 1, &mut out);
        out.push_str("}\n");
        out
    }
}

#[test]
fn compressed_race_detection_matches_brute_force() {
    let mut compared = 0;
    for seed in 0..300u64 {
        let src = Gen::kernel(seed);
        let kernel = kpl::parse(&src)
            .unwrap_or_else(|e| panic!("{e}\n{src}"))
            .remove(0);
        let prog = Program::compile(&kernel).expect("compiles");
        let tree = LabelTree::new(&kernel);
        for (block_dim, grid_dim, benign) in [
            ([4, 1, 1], [2, 1, 1], false),
            ([4, 1, 1], [2, 1, 1], true),
            ([3, 1, 1], [1, 1, 1], true),
        ] {
            for (n, mem_seed) in [(0, 0), (2, 1), (3, 2)] {
                let params = [n];
                let spec = RunSpec {
                    block_dim,
                    grid_dim,
                    params: &params,
                    seed: mem_seed,
                };
                let mut machine = Machine::new(&prog, Arith::Unbounded, 100, 8);
                let opts = crate::CheckOptions {
                    no_benign_tolerance: !benign,
                    ..Default::default()
                };
                machine.configure(&opts, &kernel);
                let mut findings = Findings::new(&prog);
                machine
                    .run(&spec, &mut findings)
                    .unwrap_or_else(|e| panic!("{e:?}\n{src}"));
                let expected = brute_force(&prog, &machine.trace, benign);
                let report = findings.into_report(&prog, &tree);
                let got: Classes = report
                    .races
                    .iter()
                    .map(|r| {
                        (
                            (r.first.stmt, r.second.stmt),
                            (r.intra, r.inter.clone(), r.fixable),
                        )
                    })
                    .collect();
                assert_eq!(
                    got, expected,
                    "kernel (n = {n}, launch {block_dim:?} x {grid_dim:?}, benign {benign}):\n{src}"
                );
                compared += expected.len();
            }
        }
    }
    assert!(
        compared > 1000,
        "the generator should produce plenty of races ({compared})"
    );
}
