//! The realistic SDK-style kernels of `tests/cuda/` (reductions with `SharedMemory<T>()`
//! and templates, tiled matrixMul, a padded transpose, histogram merges, scans,
//! separable convolution with an apron, Sobol numbers, NLM denoising, sums, and a file
//! of odd constructs) all lower, to the kernels and barriers the source has.

use crate::common;

use kpl::{Param, Space};

/// (file, kernel, barriers in the lowered kernel, shared arrays)
const KERNELS: &[(&str, &str, usize, &[&str])] = &[
    ("constructs.cu", "structs_and_methods", 2, &["cache"]),
    (
        "constructs.cu",
        "groups_and_atomics",
        2,
        &["s_count", "__syncthreads_result"],
    ),
    ("constructs.cu", "control_flow", 0, &["s"]),
    ("constructs.cu", "early_returns", 1, &["pos"]),
    ("constructs.cu", "conditional_kernel", 1, &["tile"]),
    ("convolution.cu", "convolutionRowsKernel", 1, &["s_Data"]),
    ("convolution.cu", "convolutionColumnsKernel", 1, &["s_Data"]),
    ("histogram.cu", "mergeHistogram256Kernel", 1, &["data"]),
    ("histogram.cu", "mergeHistogram64Kernel", 1, &["data"]),
    ("histogram.cu", "histogram256Kernel", 2, &["s_Hist"]),
    ("imageDenoising.cu", "NLM2", 1, &["fWeights"]),
    ("ispass.cu", "GPU_laplace3d", 2, &["u1"]),
    ("ispass.cu", "cenergy", 0, &[]),
    ("ispass.cu", "hash_chunks", 0, &["chunk"]),
    ("matrixMul.cu", "matrixMul", 2, &["As", "Bs"]),
    ("reduction.cu", "reduce0<int>", 2, &["__smem"]),
    ("reduction.cu", "reduce1<int>", 2, &["__smem"]),
    ("reduction.cu", "reduce2<int>", 2, &["__smem"]),
    ("reduction.cu", "reduce3<float>", 2, &["__smem"]),
    ("reduction.cu", "reduce5<int,128>", 2, &["__smem"]),
    ("reduction.cu", "reduce6<double,128,true>", 2, &["__smem_d"]),
    ("scan.cu", "scan_naive", 3, &["temp"]),
    ("scan.cu", "scan_workefficient", 3, &["temp"]),
    ("scan.cu", "uniformUpdate", 1, &["buf"]),
    ("scan.cu", "scanExclusiveShared", 2, &["s_Data"]),
    ("scanLargeArray.cu", "uniform_add", 1, &["uni"]),
    ("scanLargeArray.cu", "prescan<true>", 3, &["s_data"]),
    ("sobol.cu", "sobolGPU_kernel", 1, &["v"]),
    ("sum.cu", "sum0", 2, &["tile"]),
    ("sum.cu", "sum1", 2, &["tile"]),
    ("templates.cu", "testKernel<int>", 1, &["s_int"]),
    ("templates.cu", "bitonic", 1, &["s_key", "s_val"]),
    ("templates.cu", "apply<Add>", 1, &["s"]),
    ("transpose.cu", "d_transpose", 1, &["block"]),
    ("transpose.cu", "transposeCoalesced", 1, &["tile"]),
];

#[test]
fn every_test_kernel_lowers_with_its_barriers_and_shared_arrays() {
    let mut files: Vec<&str> = KERNELS.iter().map(|k| k.0).collect();
    files.dedup();
    assert!(files.len() >= 10 && KERNELS.len() >= 24);
    for file in files {
        let t = common::translate_file(file);
        let expected: Vec<_> = KERNELS.iter().filter(|k| k.0 == file).collect();
        let names: Vec<&str> = t.kernels.iter().map(|l| l.kernel.name.as_str()).collect();
        assert_eq!(names, expected.iter().map(|k| k.1).collect::<Vec<_>>(), "{file}");
        for (l, (_, name, barriers, shared)) in t.kernels.iter().zip(expected) {
            let k = &l.kernel;
            assert_eq!(k.barrier_count(), *barriers, "{file}: {name}");
            let arrays: Vec<&str> = k
                .params
                .iter()
                .filter_map(|p| match p {
                    Param::Array {
                        name,
                        space: Space::Shared,
                    } => Some(name.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(arrays, *shared, "{file}: {name}");
            // Every `__syncthreads();` statement of the kernel's own text can be moved by
            // --strip; barriers in inlined functions, or with a result, cannot.
            let movable = k.stmts().iter().filter(|s| s.is_movable_barrier()).count();
            let kept = match *name {
                "prescan<true>" | "scanExclusiveShared" => 2,
                "groups_and_atomics" => 1, // `int all = __syncthreads_count(...)`
                _ => 0,
            };
            assert_eq!(movable, barriers - kept, "{file}: {name}");
        }
    }
}

#[test]
fn the_sdk_reduction_idioms() {
    let t = common::translate_file("reduction.cu");
    let k = |name: &str| &t.kernels.iter().find(|l| l.kernel.name == name).unwrap().kernel;
    // reduce5<int,128>: `if (blockSize >= 512)` and `>= 256` are folded away, the
    // warp-synchronous tail has no barrier.
    let text = kpl::print(std::slice::from_ref(k("reduce5<int,128>")));
    assert!(!text.contains("256]"), "{text}");
    assert!(
        text.contains("__smem[tid_1 + 64]") && text.contains("__smem[tid_1 + 1]"),
        "{text}"
    );
    // reduce6 on doubles uses the SharedMemory<double> specialization's array.
    assert!(k("reduce6<double,128,true>").array_space("__smem_d").is_some());
    // Each instantiation notes the aliasing assumption on its two pointer parameters.
    for l in &t.kernels {
        assert!(
            l.notes
                .iter()
                .any(|n| n.contains("`g_idata`, `g_odata` do not alias")),
            "{:?}",
            l.notes
        );
    }
}
