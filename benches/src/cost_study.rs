//! The cost-model study (`--cost-study`): do the models pick different placements, and
//! how well do static costs rank placements compared with measured barrier executions?
//!
//! Per kernel (barriers stripped as `fix --strip` does):
//! - AutoSync under the paper model, the bounds model and the profile model (the static
//!   verifier as oracle), and the naive baseline: their placements;
//! - a pool of valid placements: those, the original one, and random supersets of them
//!   (1–3 extra barriers at random candidate places) that the static verifier accepts
//!   (race- and divergence-free);
//! - for each placement of the pool: its paper cost, its bounds cost, and its measured
//!   barrier executions (the interpreter run on the kernel with those barriers, whole
//!   grid, the file's launch, parameters pinned by `requires`);
//! - Spearman's rank correlation between each static cost and the measured counts.

use std::collections::BTreeSet;

use kpl::{Kernel, Label, LabelTree};
use oracle::dynamic::{Interpreter, profile};
use oracle::{CheckOptions, Oracle};
use synth::{BoundsCost, CostModel, Outcome, PaperCost, SynthOptions};

use crate::suite::{self, Entry};

/// One placement of the pool, with its costs.
#[derive(Clone, Debug)]
pub struct Point {
    /// Where it comes from: `paper`, `bounds`, `profile`, `naive`, `original`, `random`.
    pub origin: &'static str,
    pub lines: Vec<u32>,
    pub paper: f64,
    pub bounds: f64,
    pub measured: f64,
}

/// A model's optimal placement on one kernel.
#[derive(Clone, Debug)]
pub struct Choice {
    pub model: &'static str,
    /// After-lines of the inserted barriers, or why there is none.
    pub result: Result<(Vec<u32>, f64), String>,
}

#[derive(Clone, Debug)]
pub struct KernelStudy {
    pub name: String,
    pub choices: Vec<Choice>,
    pub points: Vec<Point>,
    pub error: Option<String>,
}

impl KernelStudy {
    /// Spearman's ρ of (static cost, measured) over the pool; `None` when undefined
    /// (fewer than 3 placements, or one side constant).
    pub fn spearman(&self, cost: impl Fn(&Point) -> f64) -> Option<f64> {
        let xs: Vec<f64> = self.points.iter().map(&cost).collect();
        let ys: Vec<f64> = self.points.iter().map(|p| p.measured).collect();
        spearman(&xs, &ys)
    }
}

/// Ranks with ties averaged (1-based).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|a, b| v[*a].total_cmp(&v[*b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's ρ: Pearson's correlation of the ranks (ties averaged).
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() < 3 || xs.len() != ys.len() {
        return None;
    }
    let (rx, ry) = (ranks(xs), ranks(ys));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

/// A small deterministic generator (xorshift64*), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// How many placements the pool aims for, and how many random tries it makes.
const POOL: usize = 24;
const TRIES: usize = 80;

fn study_kernel(name: String, k: &Kernel, opts: &CheckOptions) -> KernelStudy {
    let mut out = KernelStudy {
        name,
        choices: Vec::new(),
        points: Vec::new(),
        error: None,
    };
    let stripped = k.without_movable_barriers();
    let tree = LabelTree::new(&stripped);
    let paper = PaperCost::default();
    let bounds = BoundsCost::new(k, &opts.launch, paper);
    // The models of the registry that `autosync cost` compares, built for this kernel
    // (the profile measured once).
    let input = driver::cost::ModelInput::new(k, paper, opts, None);
    let interp = Interpreter::new(opts.clone());
    let mut verifier = oracle::verifier::StaticVerifier::new(opts.clone());
    let mut pool: Vec<(&'static str, Vec<Label>)> = Vec::new();
    let mut models: Vec<(&'static str, Box<dyn CostModel>)> = Vec::new();
    for m in driver::cost::MODELS.iter().filter(|m| m.compared) {
        match (m.build)(&input) {
            Ok(b) => models.push((m.name, b)),
            Err(e) => out.error = Some(format!("no {}: {e:#}", m.name)),
        }
    }
    for (model, m) in &models {
        let (model, m) = (*model, m.as_ref());
        let o = SynthOptions::new(m);
        let result = match synth::synthesize(&stripped, &mut verifier, &o) {
            Ok(s) => match s.outcome {
                Outcome::NoSolution(ns) => Err(ns.reason),
                _ => {
                    pool.push((model, s.inserted.clone()));
                    Ok((s.inserted.iter().map(|l| tree.line(*l)).collect(), s.cost))
                }
            },
            Err(e) => Err(e.to_string()),
        };
        out.choices.push(Choice { model, result });
    }
    let naive = synth::naive(&stripped, &mut verifier, &SynthOptions::new(&paper));
    if let Some(s) = naive
        .ok()
        .filter(|s| !matches!(s.outcome, Outcome::NoSolution(_)))
    {
        pool.push(("naive", s.inserted));
    }
    // The original placement, as places of the stripped kernel.
    let orig_tree = LabelTree::new(k);
    let original: Vec<Label> = k
        .stmts()
        .into_iter()
        .filter(|s| s.is_movable_barrier())
        .filter_map(|s| orig_tree.label_of(s.id))
        .filter_map(|l| orig_tree.position_of_barrier(l))
        .filter_map(|p| tree.same_place(&orig_tree, p))
        .collect();
    let clean = |v: &mut oracle::verifier::StaticVerifier, ls: &[Label]| {
        let (kk, _) = kpl::insert_barriers(&stripped, &tree, ls);
        v.check(&kk).is_ok_and(|r| r.is_clean())
    };
    if !original.is_empty() && clean(&mut verifier, &original) {
        pool.push(("original", original));
    }
    if pool.is_empty() {
        out.error.get_or_insert_with(|| "no valid placement".to_string());
        return out;
    }
    let candidates = tree.candidates();
    let mut seen: BTreeSet<Vec<Label>> = BTreeSet::new();
    let mut placements: Vec<(&'static str, Vec<Label>)> = Vec::new();
    for (o, mut ls) in pool.clone() {
        ls.sort();
        if seen.insert(ls.clone()) {
            placements.push((o, ls));
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ k.name.len() as u64);
    for _ in 0..TRIES {
        if placements.len() >= POOL || candidates.is_empty() {
            break;
        }
        let mut ls = pool[rng.below(pool.len())].1.clone();
        for _ in 0..1 + rng.below(3) {
            let c = candidates[rng.below(candidates.len())];
            if !ls.contains(&c) {
                ls.push(c);
            }
        }
        ls.sort();
        if seen.contains(&ls) {
            continue;
        }
        seen.insert(ls.clone());
        if clean(&mut verifier, &ls) {
            placements.push(("random", ls));
        }
    }
    for (origin, ls) in placements {
        let (kk, _) = kpl::insert_barriers(&stripped, &tree, &ls);
        let measured = match profile::barrier_executions(&interp, &kk) {
            Ok(p) => p.total(),
            Err(e) => {
                out.error = Some(format!("measurement failed: {e}"));
                continue;
            }
        };
        let mut lines: Vec<u32> = ls.iter().map(|l| tree.line(*l)).collect();
        lines.sort();
        out.points.push(Point {
            origin,
            lines,
            paper: synth::placement_cost(&kk, &paper),
            bounds: synth::placement_cost(&kk, &bounds),
            measured,
        });
    }
    out
}

/// Studies every kernel of the entries.
pub fn study(entries: &[Entry]) -> Vec<KernelStudy> {
    let mut out = Vec::new();
    for e in entries {
        let stem = e
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match suite::load(&e.path) {
            Ok((kernels, opts)) => {
                let several = kernels.len() > 1;
                for k in &kernels {
                    let name = if several {
                        format!("{stem}/{}", k.name)
                    } else {
                        stem.clone()
                    };
                    eprintln!("cost study: {name}");
                    out.push(study_kernel(name, k, &opts));
                }
            }
            Err(err) => out.push(KernelStudy {
                name: stem,
                choices: Vec::new(),
                points: Vec::new(),
                error: Some(err.to_string()),
            }),
        }
    }
    out
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn rho(r: Option<f64>) -> String {
    r.map_or("–".to_string(), |r| format!("{r:.2}"))
}

/// The two Markdown tables: the models' choices, and the rank correlations.
pub fn tables(rows: &[KernelStudy]) -> String {
    let mut s = String::from(
        "| kernel | paper: after lines (cost) | bounds: after lines (cost) | profile: after lines (executions) | differ |\n|---|---|---|---|---|\n",
    );
    for r in rows {
        let cell = |m: &str| match r.choices.iter().find(|c| c.model == m).map(|c| &c.result) {
            Some(Ok((lines, cost))) => {
                let l: Vec<String> = lines.iter().map(u32::to_string).collect();
                format!(
                    "{} ({})",
                    if l.is_empty() { "–".into() } else { l.join(", ") },
                    num(*cost)
                )
            }
            Some(Err(_)) => "no solution".to_string(),
            None => "–".to_string(),
        };
        let lines: BTreeSet<Vec<u32>> = r
            .choices
            .iter()
            .filter_map(|c| c.result.as_ref().ok().map(|(l, _)| l.clone()))
            .collect();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            r.name,
            cell("paper"),
            cell("bounds"),
            cell("profile"),
            if lines.len() > 1 { "yes" } else { "" }
        ));
    }
    s.push_str(
        "\n| kernel | placements | measured min–max | ρ paper | ρ bounds | note |\n|---|---:|---|---:|---:|---|\n",
    );
    for r in rows {
        let (lo, hi) = r.points.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
            (a.min(p.measured), b.max(p.measured))
        });
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.name,
            r.points.len(),
            if r.points.is_empty() {
                "–".to_string()
            } else {
                format!("{}–{}", num(lo), num(hi))
            },
            rho(r.spearman(|p| p.paper)),
            rho(r.spearman(|p| p.bounds)),
            r.error.as_deref().unwrap_or("")
        ));
    }
    let all = |f: &dyn Fn(&KernelStudy) -> Option<f64>| {
        let v: Vec<f64> = rows.iter().filter_map(f).collect();
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        (v.len(), sorted.get(sorted.len() / 2).copied())
    };
    let (np, mp) = all(&|r| r.spearman(|p| p.paper));
    let (nb, mb) = all(&|r| r.spearman(|p| p.bounds));
    s.push_str(&format!(
        "\nρ defined on {np} kernels (paper) / {nb} (bounds); median ρ paper {}, bounds {}.\n",
        rho(mp),
        rho(mb)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::spearman;

    #[test]
    fn spearman_with_ties_and_undefined_cases() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        // Ranks (1.5, 1.5, 3) against (1, 2, 3): ρ = 0.866...
        let r = spearman(&[5.0, 5.0, 9.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((r - 0.75f64.sqrt()).abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
    }
}
