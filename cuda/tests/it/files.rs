//! A file is more than its kernels ([modern] class 8): headers that are not on this
//! machine, `#error`s of other platforms and host code the parser cannot read are notes,
//! and the kernels are checked anyway, over-approximating what the missing parts could
//! do; kernels of the project's own headers are checked where the file launches them.

use crate::common;

use cuda::{ErrorKind, Translation};

fn translated(src: &str) -> Translation {
    common::translate_text(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn notes(t: &Translation, kernel: &str) -> Vec<String> {
    t.kernels
        .iter()
        .find(|l| l.kernel.name == kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel}"))
        .notes
        .clone()
}

/// The KPL arrays a kernel writes (statements `a[i] = ..`), by their KPL names, sorted.
fn written(t: &Translation, kernel: &str) -> Vec<String> {
    let k = &t
        .kernels
        .iter()
        .find(|l| l.kernel.name == kernel)
        .expect("kernel")
        .kernel;
    let text = kpl::print(std::slice::from_ref(k));
    let mut out: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().split_once('[').map(|(a, _)| a.trim().to_string()))
        .filter(|a| !a.contains(' ') && !a.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

const REVERSE: &str = "__global__ void rev(int *a) {\n  __shared__ int s[64];\n  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n  a[threadIdx.x] = s[63 - threadIdx.x];\n}\n";

#[test]
fn a_header_that_is_not_found_is_a_note_naming_it() {
    let src = format!(
        "#include \"cudaEGL.h\"\n#include \"nowhere/cudla.h\"\n{REVERSE}int main() {{ rev<<<1, 64>>>(0); }}\n"
    );
    let t = translated(&src);
    assert_eq!(
        t.map.unread,
        [
            "the header \"cudaEGL.h\", which was not found",
            "the header \"nowhere/cudla.h\", which was not found"
        ]
    );
    let n = notes(&t, "rev");
    assert!(n[0].ends_with("snippet.cu:1: cannot find the included file \"cudaEGL.h\": a kernel that uses a name nothing declares (which may be one of its macros) is unsupported, and the kernels are checked for every launch (one may be in its macros); pass its folder with `-I DIR` to read it"), "{n:?}");
    assert!(
        n[1].contains("snippet.cu:2: cannot find the included file \"nowhere/cudla.h\""),
        "{n:?}"
    );
    // A launch may hide in one of its macros: the launch read is not all there is.
    let l = t.kernels.iter().find(|l| l.kernel.name == "rev").expect("rev");
    assert_eq!(l.launch.grid, [None, None, None], "{:?}", l.launch);
    assert!(n.iter().any(|x| x == "the host code may launch `rev` through a macro of the header \"cudaEGL.h\", which was not found: checked for every launch"), "{n:?}");
}

#[test]
fn an_error_directive_is_a_note_and_the_file_is_read_on() {
    let src = format!("#ifndef _WIN32\n#error \"this sample runs on Windows only\"\n#endif\n{REVERSE}");
    let t = translated(&src);
    let n = notes(&t, "rev");
    assert!(n[0].ends_with("snippet.cu:2: the file stops compilation here under autosync's macros (`#error \"this sample runs on Windows only\"`); the rest of the file is read as if the directive were not there, and a kernel that uses a name nothing declares is unsupported (pass the `-D` flags of the real build to take the intended path)"), "{n:?}");
}

#[test]
fn a_name_nothing_declares_may_be_a_macro_of_what_was_not_read() {
    // Each kernel names something nothing declares: a call, a value, a type. With a
    // header missing (or an `#error` read past) it may be a macro of it, expanding to
    // an access of `tile`, a barrier, `__shared__`: unsupported. With the whole file
    // read, it is a library function, constant or type autosync skips.
    let kernels = [
        ("STAGE(a);", "STAGE"),
        ("a[0] = READ_NEXT;", "READ_NEXT"),
        ("if (threadIdx.x < 16) (SYNC);", "SYNC"),
        ("Vec3 v; a[0] = 1;", "Vec3"),
    ];
    for (stmt, name) in kernels {
        let body = format!(
            "__global__ void k(int *a, int *b) {{\n  __shared__ int tile[128];\n  tile[threadIdx.x] = b[threadIdx.x];\n  {stmt}\n}}\n"
        );
        for head in [
            "#include \"kernel_macros.h\"\n",
            "#ifndef FAST\n#error \"pass -DFAST\"\n#endif\n",
        ] {
            let e = common::translate_text(&format!("{head}{body}")).expect_err("unsupported");
            assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
            assert!(
                e.message.contains(&format!(
                    "`{name}` is declared nowhere: it may be a macro of the "
                )),
                "{e}"
            );
        }
        assert!(common::translate_text(&body).is_ok(), "{body}");
    }
    // A declared function is a function, header or not.
    let t = translated(
        "#include \"kernel_macros.h\"\n__device__ void STAGE(int *p);\n__global__ void k(int *a) {\n  STAGE(a);\n}\n",
    );
    assert_eq!(written(&t, "k"), ["a"]);
    // `SHMEM unsigned s[64]` is not C++ whatever the file: a macro autosync did not read.
    let e = common::translate_text(
        "__global__ void k(int *a) {\n  SHMEM unsigned s[64];\n  s[threadIdx.x] = 1;\n}\n",
    )
    .expect_err("unsupported");
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Unsupported, 2, 3), "{e}");
}

#[test]
fn device_code_under_a_conditional_on_a_macro_not_read_is_not_checked() {
    // `config.h` may define `WARP_BLOCK`, and then the real kernel has no barrier.
    let kernel = "__global__ void rev(float *d) {\n  __shared__ float t[64];\n  t[threadIdx.x] = d[threadIdx.x];\n#ifndef WARP_BLOCK\n  __syncthreads();\n#endif\n  d[threadIdx.x] = t[63 - threadIdx.x];\n}\n";
    let e = common::translate_text(&format!("#include \"config.h\"\n{kernel}")).expect_err("error");
    assert_eq!((e.kind, e.line), (ErrorKind::Unsupported, 2), "{e}");
    assert!(e.message.contains("device code under the conditional at "), "{e}");
    assert!(
        e.message
            .contains("snippet.cu:5, which tests a macro that the header \"config.h\""),
        "{e}"
    );
    // Which kernel is compiled, likewise.
    let e = common::translate_text(&format!(
        "#include \"config.h\"\n#ifdef FAST\n__global__ void k(int *a) {{ a[0] = threadIdx.x; }}\n#else\n{kernel}#endif\n"
    ))
    .expect_err("error");
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    // With the whole file read, or a conditional on a macro the file defines, or an
    // include guard, or a conditional before the missing header: checked.
    assert!(common::translate_text(kernel).is_ok());
    let defined = format!("#define WARP_BLOCK 0\n#include \"config.h\"\n{kernel}");
    assert!(common::translate_text(&defined).is_ok());
    let plain = kernel.replace(
        "#ifndef WARP_BLOCK\n  __syncthreads();\n#endif\n",
        "  __syncthreads();\n",
    );
    let guarded = format!("#include \"config.h\"\n#ifndef REV_CU\n#define REV_CU\n{plain}#endif\n");
    assert!(common::translate_text(&guarded).is_ok());
    let before = format!("#ifndef WARP_BLOCK\n#define TILE 64\n#endif\n#include \"config.h\"\n{plain}");
    assert!(common::translate_text(&before).is_ok());
}

#[test]
fn device_code_without_device_qualifiers_is_an_error() {
    // `#define KERNEL(n) __global__ void n` in a header autosync did not read: without
    // this error the kernel would silently not be checked.
    let e = common::translate_text(
        "#include <kernel_macros.h>\nKERNEL(k)(int *a) {\n  __shared__ int s[64];\n  s[threadIdx.x] = a[threadIdx.x];\n}\n",
    )
    .expect_err("error");
    assert_eq!((e.kind, e.line), (ErrorKind::Unsupported, 2), "{e}");
    assert!(
        e.message
            .contains("a function that uses `threadIdx` without `__global__` or `__device__`"),
        "{e}"
    );
    // A host function with a variable named like a builtin's field is host code.
    assert!(common::translate_text("void host() { int blockDim = 3; }\n").is_ok());
    // A kernel of a header that was not found, launched here: an error, not "nothing checked".
    let e = common::translate_text("#include \"kernels.cuh\"\nint main() { shift<<<1, 64>>>(0); }\n")
        .expect_err("error");
    assert!(
        e.message
            .contains("`shift` is launched here but defined nowhere autosync read"),
        "{e}"
    );
}

#[test]
fn a_statement_that_is_only_an_undeclared_name_is_unsupported() {
    // `SYNC;` can only be a macro: a barrier, a store? Unknown, so not guessed.
    let e = common::translate_text(
        "__global__ void k(int *a) {\n  __shared__ int t[32];\n  t[threadIdx.x] = 1;\n  SYNC;\n  a[0] = t[31 - threadIdx.x];\n}\n",
    )
    .expect_err("unsupported");
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Unsupported, 4, 3), "{e}");
    assert!(
        e.message
            .contains("a statement that is only a name nothing declares"),
        "{e}"
    );
    // A name that is declared is an ordinary (useless) statement.
    assert!(
        common::translate_text("__global__ void k(int *a) {\n  int x = 1;\n  x;\n  a[0] = x;\n}\n").is_ok()
    );
}

#[test]
fn syntax_errors_outside_device_code_are_a_note() {
    // Vulkan in a class, a Windows calling convention macro: neither parses, neither
    // is device code.
    let src = format!(
        "{REVERSE}int main() {{ rev<<<1, 64>>>(0); }}\nclass Renderer {{ VkInstance inst; public: void draw() {{ vkCreateInstance(nullptr, nullptr, &inst) }} }};\nvoid WINAPI_CB done(void *p) {{ }}\n"
    );
    let t = translated(&src);
    let n = notes(&t, "rev");
    assert!(
        n[0].contains("snippet.cu:8:") && n[0].contains("syntax error"),
        "{n:?}"
    );
    assert!(n[0].contains("read past, as no device code is in it"), "{n:?}");
    // The launch outside the damaged text is read.
    assert!(
        n.iter().any(|x| x == "launch from line 7: 64 threads, 1 block"),
        "{n:?}"
    );
    // `CUDART_CB` (empty on Linux) is predefined: no error at all.
    let t = translated(&format!(
        "{REVERSE}void CUDART_CB done(cudaStream_t s, cudaError_t e, void *p) {{ }}\n"
    ));
    assert!(notes(&t, "rev").iter().all(|x| !x.contains("syntax error")));
    // A stray `}` that ends a kernel early: the rest of its body is device code.
    let e = common::translate_text(
        "__global__ void k(int *a) {\n  __shared__ int s[64];\n  if (threadIdx.x == 0) { s[0] = 1; }}\n  int v = s[0];\n  s[threadIdx.x] = v;\n}\n",
    )
    .expect_err("error");
    assert_eq!((e.kind, e.line), (ErrorKind::Syntax, 6), "{e}");
    // With a header missing, a macro of it may be what broke the parse: every error counts.
    let e = common::translate_text(&format!(
        "#include \"config.h\"\n{REVERSE}class Renderer {{ VkInstance inst; public: void draw() {{ vkCreateInstance(0, 0, &inst) }} }};\n"
    ))
    .expect_err("error");
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
    // An error that touches device code still fails the file.
    let e =
        common::translate_text("__global__ void k(int *a) {\n  a[threadIdx.x] = ;\n}\nclass C { int x }\n")
            .expect_err("error");
    assert_eq!((e.kind, e.line), (ErrorKind::Syntax, 2));
}

#[test]
fn a_kernel_named_in_unparsed_host_code_is_checked_for_every_launch() {
    // The second launch is in host code the parser cannot read: checking only the
    // first one (64 threads, 1 block) would be unsound.
    let src = format!(
        "{REVERSE}void run() {{ rev<<<1, 64>>>(0); }}\nvoid other() {{ if (x) {{ rev<<<8, 64>>>(0) }} }}\n"
    );
    let t = translated(&src);
    let l = t.kernels.iter().find(|l| l.kernel.name == "rev").expect("rev");
    assert_eq!(l.launch.grid, [None, None, None], "{:?}", l.launch);
    assert!(
        l.notes.iter().any(
            |n| n.starts_with("the host code names `rev` in text it could not parse (")
                && n.ends_with(":8): checked for every launch")
        ),
        "{:?}",
        l.notes
    );
}

#[test]
fn a_template_kernel_named_in_unparsed_host_code_is_unsupported() {
    // Its instances come from its launches, and one of them is in the broken text.
    let src = "template <int N>\n__global__ void k(int *a) { a[threadIdx.x % N] = threadIdx.x; }\nvoid run() { k<32><<<1, 32>>>(0); }\nvoid other() { if (x) { k<64><<<1, 64>>>(0) } }\n";
    let t =
        cuda::translate_each(&common::cuda_dir().join("snippet.cu"), src, &common::options()).expect("file");
    assert!(t.kernels.is_empty());
    assert_eq!(t.failed.len(), 1);
    assert!(
        t.failed[0]
            .error
            .message
            .contains("the template kernel `k` is named in host code autosync could not parse"),
        "{}",
        t.failed[0].error
    );
}

#[test]
fn kernels_of_a_header_are_checked_where_the_file_launches_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("kern.cuh"),
        format!("#pragma once\n{REVERSE}__global__ void unused(int *a) {{ a[0] = threadIdx.x; }}\n"),
    )
    .expect("write");
    let main = dir.path().join("main.cu");
    let src = "#include \"kern.cuh\"\nint main() {\n  rev<<<2, 64>>>(0);\n}\n";
    let t = cuda::translate(&main, src, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = t.kernels.iter().map(|l| l.kernel.name.as_str()).collect();
    assert_eq!(names, ["rev"]);
    let n = &t.kernels[0].notes;
    assert!(
        n.iter().any(|x| x.starts_with("`rev` is defined in ")
            && x.contains("kern.cuh:2, a header this file includes")),
        "{n:?}"
    );
    assert_eq!(t.kernels[0].launch.grid[0], Some(2));
    // Not launched here: the header's kernels are the header's.
    let t = cuda::translate(&main, "#include \"kern.cuh\"\n", &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(t.kernels.is_empty());
}
