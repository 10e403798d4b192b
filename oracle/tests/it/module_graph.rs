//! The static verifier's modules form no cycle (issue #29): each module of
//! `oracle/src/verifier/` uses only modules below it in the pipeline, so a reader can go
//! through them in order. A module is a file directly under `verifier/` with its
//! submodules (`symbolic/exec.rs` belongs to `symbolic`); `mod.rs` is the root and may
//! use every module. Test code (`#[cfg(test)]` modules) and comments do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The `.rs` files under `dir`, with their path relative to `dir`.
fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir).expect("read verifier dir").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            sources(&path, &rel, out);
        } else if name.ends_with(".rs") {
            out.push((rel, fs::read_to_string(&path).expect("read source")));
        }
    }
}

/// The code of a file without its test module and without comments.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The sibling modules a file of module depth `depth` (0: directly under `verifier/`)
/// names: `super::X` climbing to `verifier/`, `crate::verifier::X`, and the names of a
/// `use super::{X, Y::Z}` list there.
fn named(code: &str, depth: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let up = "super::".repeat(depth + 1);
    for (i, _) in code.match_indices(&up) {
        // Not a longer `super::` chain than the one to `verifier/`.
        if code[..i].ends_with("super::") {
            continue;
        }
        let rest = &code[i + up.len()..];
        if rest.starts_with("super::") {
            continue;
        }
        if let Some(list) = rest.strip_prefix('{') {
            let list = &list[..list.find('}').unwrap_or(list.len())];
            out.extend(list.split(',').map(|x| ident(x.trim()).to_string()));
        } else {
            out.insert(ident(rest).to_string());
        }
    }
    for (i, _) in code.match_indices("crate::verifier::") {
        out.insert(ident(&code[i + "crate::verifier::".len()..]).to_string());
    }
    out
}

/// Module → the sibling modules it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/verifier");
    let mut files = Vec::new();
    sources(&dir, "", &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter(|(rel, _)| !rel.contains('/') && rel != "mod.rs")
        .map(|(rel, _)| rel.trim_end_matches(".rs").to_string())
        .collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in &files {
        if rel == "mod.rs" {
            continue;
        }
        let module = rel
            .split('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        let depth = rel.matches('/').count();
        let uses: Vec<String> = named(&code(text), depth)
            .into_iter()
            .filter(|n| modules.contains(n) && *n != module)
            .collect();
        g.entry(module).or_default().extend(uses);
    }
    g
}

/// A cycle of `g`, if it has one (depth-first search).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(n, g, &mut Vec::new(), &mut done))
}

#[test]
fn the_verifier_modules_form_no_cycle() {
    let g = graph();
    // The scan sees the uses it must: the pipeline's main edges.
    assert!(g["queries"].contains("encode"), "{g:?}");
    assert!(g["encode"].contains("symbolic"), "{g:?}");
    assert!(g["symbolic"].contains("candidates"), "{g:?}");
    assert!(g["invariants"].contains("encode"), "{g:?}");
    assert_eq!(cycle(&g), None, "{g:?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g = graph();
    g.entry("term".to_string())
        .or_default()
        .insert("queries".to_string());
    let c = cycle(&g).expect("term → queries → … → term is a cycle");
    assert_eq!(c.first(), c.last());
}
