//! Faial's five synthetic scalability patterns (seed 003, Fig. 17), as `.kpl` text with
//! `n` repetitions. Every generated kernel is race-free; the verifier's time per call as
//! `n` grows is what is measured.

/// The five categories of Fig. 17.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `rd[tid + n1*T]; wr[tid + 1*T]; rd[tid + n2*T]; wr[tid + 2*T]; ...`
    Accesses,
    /// `wr[tid]; sync; wr[tid]; sync; ...`
    Barriers,
    /// `if (tid == 0) {wr[tid]}; if (tid == 1) {wr[tid]}; ...`
    Conditionals,
    /// `for i1 in 0..N { wr[tid]; for i2 in 0..N { wr[tid]; ... } }`, no barriers.
    UnsyncLoops,
    /// `for i1 in 0..N { wr[tid]; sync; for i2 in 0..N { wr[tid]; sync; ... } }`.
    SyncLoops,
}

impl Pattern {
    pub const ALL: [Pattern; 5] = [
        Pattern::Accesses,
        Pattern::Barriers,
        Pattern::Conditionals,
        Pattern::UnsyncLoops,
        Pattern::SyncLoops,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Pattern::Accesses => "accesses",
            Pattern::Barriers => "barriers",
            Pattern::Conditionals => "conditionals",
            Pattern::UnsyncLoops => "unsync-loops",
            Pattern::SyncLoops => "sync-loops",
        }
    }

    /// The kernel with `n ≥ 1` repetitions of the pattern.
    pub fn kernel(self, n: usize) -> String {
        let mut body = String::new();
        let line = |depth: usize, s: &str, out: &mut String| {
            out.push_str(&"    ".repeat(depth + 1));
            out.push_str(s);
            out.push('\n');
        };
        match self {
            Pattern::Accesses => {
                line(0, "local x;", &mut body);
                for i in 1..=n {
                    // Reads of the part written later never overlap the writes: the
                    // read offsets are beyond every write offset.
                    line(0, &format!("x = A[tid + {} * bdim];", n + i), &mut body);
                    line(0, &format!("A[tid + {i} * bdim] = x;"), &mut body);
                }
            }
            Pattern::Barriers => {
                for _ in 0..n {
                    line(0, "A[tid] = 1;", &mut body);
                    line(0, "barrier;", &mut body);
                }
            }
            Pattern::Conditionals => {
                for i in 0..n {
                    line(0, &format!("if (tid == {i}) {{"), &mut body);
                    line(1, "A[tid] = 1;", &mut body);
                    line(0, "}", &mut body);
                }
            }
            Pattern::UnsyncLoops | Pattern::SyncLoops => {
                for d in 0..n {
                    line(
                        d,
                        &format!("for (i{d} = 0; i{d} < N; i{d} = i{d} + 1) {{"),
                        &mut body,
                    );
                    line(d + 1, "A[tid] = 1;", &mut body);
                    if self == Pattern::SyncLoops {
                        line(d + 1, "barrier;", &mut body);
                    }
                }
                for d in (0..n).rev() {
                    line(d, "}", &mut body);
                }
            }
        }
        format!(
            "kernel {}_{n}(shared A[], N) {{\n{body}}}\n",
            self.name().replace('-', "_")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_parses_at_every_size() {
        for p in Pattern::ALL {
            for n in [1, 2, 7, 50] {
                let k =
                    kpl::parse(&p.kernel(n)).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.name(), p.kernel(n)));
                assert_eq!(k.len(), 1);
            }
        }
        assert_eq!(
            Pattern::SyncLoops.kernel(2),
            "kernel sync_loops_2(shared A[], N) {
    for (i0 = 0; i0 < N; i0 = i0 + 1) {
        A[tid] = 1;
        barrier;
        for (i1 = 0; i1 < N; i1 = i1 + 1) {
            A[tid] = 1;
            barrier;
        }
    }
}
"
        );
    }
}
