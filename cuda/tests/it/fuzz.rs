//! The front end never panics: random bytes, and the test kernels mutated at random
//! (characters deleted, duplicated, swapped, tokens inserted), go through
//! preprocessing, parsing, lowering and (when they lower) barrier insertion at every
//! candidate place and removal of every barrier. Crashes found this way are kept in
//! `tests/cuda/fuzz-corpus/` and replayed by `corpus_does_not_panic`.

use crate::common;

use proptest::prelude::*;

use kpl::LabelTree;
use kpl::rewrite::{apply, insert_at, remove_stmt};

/// Everything the front end and the rewriter do with a file.
fn exercise(text: &str) {
    let path = common::cuda_dir().join("fuzz.cu");
    let Ok(t) = cuda::translate(&path, text, &common::options()) else {
        return;
    };
    for l in &t.kernels {
        let k = &l.kernel;
        let tree = LabelTree::new(k);
        let cands = tree.candidates();
        if let Ok(ins) = insert_at(text, &tree, &cands, "__syncthreads();") {
            let (out, _) = apply(text, &ins.edits);
            let _ = cuda::translate(&path, &out, &common::options());
        }
        let removals: Vec<_> = k
            .stmts()
            .into_iter()
            .filter(|s| s.is_movable_barrier())
            .filter_map(|s| tree.label_of(s.id))
            .map(|l| remove_stmt(text, &tree, l))
            .collect();
        let (out, _) = apply(text, &removals);
        let _ = cuda::translate(&path, &out, &common::options());
    }
}

fn seeds() -> Vec<String> {
    let dir = common::cuda_dir();
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    v.sort();
    v
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "*",
    "&",
    "<",
    ">",
    "<<",
    ">>",
    "?",
    ":",
    "::",
    "\"",
    "'",
    "/*",
    "*/",
    "//",
    "\\\n",
    "\n#if 0\n",
    "\n#endif\n",
    "\n#define X(a) a##a\n",
    "\n#include \"x.h\"\n",
    "__syncthreads();",
    "goto l;",
    "return;",
    "break;",
    "continue;",
    "template <class T>",
    "__shared__ ",
    "__device__ ",
    "extern ",
    "volatile ",
    "int ",
    "float4 ",
    "x",
    "0",
    "-1",
    "1e30",
    "0x7fffffffffffffff",
    "99999999999999999999",
    "threadIdx.x",
    "atomicAdd(",
    "SharedMemory<T>()",
    "switch (x) { case 1: ",
    "do ",
    "while (1) ",
    "for (;;) ",
    "else ",
    "sizeof(",
    "(float*)",
    "->",
    ".",
    "é",
    "\u{0}",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, usize),
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0usize..60).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), 0usize..TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

/// Applies a mutation at char boundaries.
fn mutate(text: &str, m: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return text.to_string();
    }
    let at = |x: usize| x % chars.len();
    let mut out = chars.clone();
    match *m {
        Mutation::Delete(a, n) => {
            let a = at(a);
            out.drain(a..(a + n).min(chars.len()));
        }
        Mutation::Duplicate(a, n) => {
            let a = at(a);
            let piece: Vec<char> = chars[a..(a + n).min(chars.len())].to_vec();
            out.splice(a..a, piece);
        }
        Mutation::Insert(a, t) => {
            let a = at(a);
            out.splice(a..a, TOKENS[t].chars());
        }
        Mutation::Swap(a, b) => out.swap(at(a), at(b)),
    }
    out.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_do_not_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_does_not_panic(toks in prop::collection::vec(0usize..TOKENS.len(), 0..80)) {
        let text: String = toks.iter().map(|&t| TOKENS[t]).collect::<Vec<_>>().join(" ");
        exercise(&format!("__global__ void k(int *a) {{ {text} }}"));
        exercise(&text);
    }

    #[test]
    fn mutated_kernels_do_not_panic(seed in any::<usize>(), ms in prop::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let mut text = seeds[seed % seeds.len()].clone();
        for m in &ms {
            text = mutate(&text, m);
        }
        exercise(&text);
    }
}

#[test]
fn corpus_does_not_panic() {
    let dir = common::cuda_dir().join("fuzz-corpus");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        exercise(&String::from_utf8_lossy(&bytes));
        n += 1;
    }
    assert!(n > 0);
}
