//! `Oracle::uniform_places` of the static verifier: which places would hold a barrier
//! that every thread of a block reaches alike, by the uniformity classes alone.

use kpl::LabelTree;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

#[test]
fn uniform_places_follow_the_uniformity_classes() {
    let k = kpl::parse(
        "kernel k(shared A[], n) {
    local y = 0;
    if (bid == 0) {
        y = 1;
        for (i = 0; i < n; i = i + 1) {
            y = y + i;
        }
    }
    if (tid < 4) {
        y = 2;
    }
    if (n > 4 && tid % 2 == 0) {
        y = 3;
    }
    for (j = 0; j < tid; j = j + 1) {
        y = y + 1;
    }
    if (tid == 0) {
        return;
    }
    if (n > 4) {
        y = 4;
    }
}",
    )
    .unwrap()
    .remove(0);
    let t = LabelTree::new(&k);
    let at = |name: &str| t.in_order().find(|l| t.name(*l) == name).unwrap();
    let places = ["4", "6", "10", "13", "16", "22", "21:23s"];
    let labels: Vec<_> = places.iter().map(|p| at(p)).collect();
    let mut v = StaticVerifier::new(CheckOptions::default());
    let uniform = v.uniform_places(&k, &t, &labels).unwrap();
    let got: Vec<(&str, bool)> = places.iter().copied().zip(uniform).collect();
    assert_eq!(
        got,
        [
            ("4", true),
            ("6", true),
            ("10", false),
            ("13", false),
            ("16", false),
            // After `if (tid == 0) return;` the threads that returned are not there.
            ("22", false),
            ("21:23s", false),
        ]
    );
    // The interpreter has no such analysis.
    let mut d = oracle::dynamic::Interpreter::new(CheckOptions::default());
    assert_eq!(d.uniform_places(&k, &t, &labels), None);
}
