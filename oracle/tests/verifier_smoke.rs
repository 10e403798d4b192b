mod common;
use common::*;

#[test]
fn smoke() {
    let srcs = [
        "kernel f2(shared A[]) {\n local x;\n x = A[tid + 1];\n A[tid] = x;\n}\n",
        "kernel red(shared A[]) {\n local a = 0;\n local b = 0;\n for (s = bdim / 2; s > 0; s = s >> 1) {\n  if (tid < s) {\n   a = A[tid];\n   b = A[tid + s];\n   A[tid] = a + b;\n  }\n  barrier;\n }\n}\n",
        "kernel red(shared A[]) {\n local a = 0;\n local b = 0;\n for (s = bdim / 2; s > 0; s = s >> 1) {\n  if (tid < s) {\n   a = A[tid];\n   b = A[tid + s];\n   A[tid] = a + b;\n  }\n }\n}\n",
    ];
    for s in srcs {
        let t = std::time::Instant::now();
        let r = check(s);
        eprintln!(
            "{:?}\n{:?} {:?}\n{:?}",
            races(&r),
            divergences(&r),
            r.notes,
            t.elapsed()
        );
    }
}
