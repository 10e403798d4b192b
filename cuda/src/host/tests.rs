//! Launches read from host code, end to end through `crate::translate`.

use std::path::Path;

use kpl::Launch;

use crate::Options;

/// Each kernel's name and launch.
fn launches(src: &str, opts: &Options) -> Vec<(String, Launch)> {
    crate::translate(Path::new("host.cu"), src, opts)
        .expect("translates")
        .kernels
        .into_iter()
        .map(|l| (l.kernel.name, l.launch))
        .collect()
}

fn rel(l: &Launch) -> Vec<String> {
    l.relations.iter().map(kpl::syntax::print_expr).collect()
}

const KERNEL: &str = "__global__ void k(int *a, int n) { a[threadIdx.x] = n; }\n";

#[test]
fn constants_macros_and_ceil_div_pin_sizes_and_parameters() {
    let src = format!(
        "{KERNEL}#define N 4096
template <class T> T ceil_div(T a, T b) {{ return (a + b - 1) / b; }}
void run(int *d) {{ const int bs = 128; int grid = ceil_div(N, bs); k<<<grid, bs>>>(d, N); }}"
    );
    let ls = launches(&src, &Options::default());
    assert_eq!(ls.len(), 1);
    let (name, l) = &ls[0];
    assert_eq!(name, "k");
    assert_eq!(l.block, [Some(128), Some(1), Some(1)]);
    assert_eq!(l.grid, [Some(32), Some(1), Some(1)]);
    assert_eq!(l.params.get("n"), Some(&4096));
    assert_eq!(l.sites.len(), 1);
    assert_eq!(l.sites[0].line, 4);
}

#[test]
fn a_static_constant_of_a_struct_template_is_evaluated_with_its_arguments() {
    // `Pack<E>::count` through typedefs, `sizeof` of a template parameter read as an
    // expression, and of a CUDA type; a narrow member and a non-const one are not
    // constants, nor is a variable that shares a type's name.
    let src = format!(
        "{KERNEL}typedef unsigned short bf;
template <class E> struct Pack {{ static constexpr const int count = sizeof(int4) / sizeof(E);
  static const short narrow = 300; static int counter; E v[count]; }};
typedef Pack<bf> pk;
using pf = Pack<float>;
void run(int *d) {{ k<<<pk::count, pf::count>>>(d, 1); k<<<pk::narrow, 32>>>(d, 2); k<<<pk::counter, 32>>>(d, 3);
  int int4 = 3; k<<<sizeof(int4), 32>>>(d, 4); }}"
    );
    let ls = launches(&src, &Options::default());
    assert_eq!(ls.len(), 4);
    assert_eq!(ls[0].1.grid, [Some(8), Some(1), Some(1)]);
    assert_eq!(ls[0].1.block, [Some(4), Some(1), Some(1)]);
    assert_eq!(ls[1].1.grid[0], None);
    assert_eq!(ls[2].1.grid[0], None);
    assert_eq!(ls[3].1.grid[0], None);
}

#[test]
fn each_declarator_of_a_declaration_has_its_own_initializer() {
    // `int n = 64, bs = 128;`: `bs` is 128, not the first declarator's 64; a
    // declarator without an initializer is no value at all.
    let src = format!(
        "{KERNEL}void run(int *d) {{ int n = 64, bs = 128; int m, g = 3; k<<<g, bs>>>(d, n); k<<<1, bs>>>(d, m); }}"
    );
    let ls = launches(&src, &Options::default());
    assert_eq!(ls.len(), 2);
    assert_eq!(ls[0].1.block, [Some(128), Some(1), Some(1)]);
    assert_eq!(ls[0].1.grid, [Some(3), Some(1), Some(1)]);
    assert_eq!(ls[0].1.params.get("n"), Some(&64));
    assert_eq!(ls[1].1.params.get("n"), None);
}

#[test]
fn a_local_reassigned_in_straight_line_code_has_its_last_value() {
    let src = format!(
        "{KERNEL}void run(int *d) {{
  int total = 4096;
  int blocks = total / 128;
  k<<<blocks, 128>>>(d, total);
  total = 512;
  blocks = total / 128;
  k<<<blocks, 128>>>(d, total);
}}"
    );
    let ls = launches(&src, &Options::default());
    assert_eq!(ls.len(), 2);
    assert_eq!(ls[0].1.grid, [Some(32), Some(1), Some(1)]);
    assert_eq!(ls[0].1.params.get("n"), Some(&4096));
    assert_eq!(ls[1].1.grid, [Some(4), Some(1), Some(1)]);
    assert_eq!(ls[1].1.params.get("n"), Some(&512));
    // Assigned in a branch or a loop, or incremented: unknown.
    for change in [
        "if (*d) total = 512;",
        "for (;;) { total = 512; break; }",
        "total += 1;",
        "total++;",
    ] {
        let src = format!(
            "{KERNEL}void run(int *d) {{ int total = 4096; {change} k<<<total / 128, 128>>>(d, total); }}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.grid[0], None, "{change}");
        assert_eq!(l.params.get("n"), None, "{change}");
    }
    // An assignment after the launch does not reach it, even when a loop holds it.
    let src = format!(
        "{KERNEL}void run(int *d) {{ int total = 64; total = 256; for (int i = 0; i < 2; i++) {{ k<<<1, total>>>(d, 0); }} total = 1024; }}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block[0], Some(256));
}

#[test]
fn an_assignment_alone_under_an_if_is_taken_when_its_condition_holds() {
    let run = |body: &str| {
        let src = format!(
            "{KERNEL}void run(int *d, int bs) {{ {body} k<<<1, bs>>>(d, 0); }}\nvoid go(int *d) {{ run(d, 64); run(d, 512); }}"
        );
        launches(&src, &Options::default())
            .into_iter()
            .map(|(_, l)| l.block[0])
            .collect::<Vec<_>>()
    };
    assert_eq!(run("if (bs > 256) bs = 256;"), [Some(64), Some(256)]);
    // 64 becomes 256, 512 becomes 256 too: one context.
    assert_eq!(
        run("if (bs < 256) { bs = 256; } if (bs > 300) bs = bs / 2;"),
        [Some(256)]
    );
    // Not followed: an `else`, two statements under the `if`, a nested `if`, an
    // unknown condition (both calls then have the same unknown context).
    for change in [
        "if (bs > 256) bs = 256; else bs = 32;",
        "if (bs > 256) { bs = 256; bs = bs + 1; }",
        "if (*d) { if (bs > 256) bs = 256; }",
        "if (*d > 2) bs = 256;",
    ] {
        assert_eq!(run(change), [None], "{change}");
    }
}

#[test]
fn a_size_passed_to_a_c_library_or_a_math_function_is_unchanged() {
    let body = |call: &str| {
        let src = format!("{KERNEL}void run(int *d) {{ int bs = 128; {call} k<<<1, bs>>>(d, 0); }}");
        launches(&src, &Options::default())[0].1.block[0]
    };
    assert_eq!(body("cublasSscal(h, bs, &a, d, 1);"), Some(128));
    assert_eq!(body("float s = 1.0f / sqrtf(bs);"), Some(128));
    assert_eq!(body("float s = std::pow(bs, 2);"), Some(128));
    // A pointer to it, a C++ library, a lower-case name, the file's own declaration.
    assert_eq!(body("cudaOccupancyMaxPotentialBlockSize(&g, &bs, k);"), None);
    assert_eq!(body("cub::DeviceScan::ExclusiveSum(t, bs, d, d, 4);"), None);
    assert_eq!(body("cudatune(bs);"), None);
    let own = format!(
        "{KERNEL}void cudaTune(int &n);\nvoid run(int *d) {{ int bs = 128; cudaTune(bs); k<<<1, bs>>>(d, 0); }}"
    );
    assert_eq!(launches(&own, &Options::default())[0].1.block[0], None);
}

#[test]
fn a_narrow_type_converts_its_initializer() {
    // 288 in an `unsigned char` is 32: not the literal's value (a fixed unknown).
    let src = format!(
        "{KERNEL}void run(int *d) {{ unsigned char bs = 288; short n = 70000; k<<<1, bs>>>(d, n); }}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block, [None, Some(1), Some(1)]);
    assert_eq!(l.params.get("n"), None);
}

#[test]
fn unknown_but_fixed_values_become_relations() {
    let src = format!(
        "{KERNEL}void run(int *d, int bs, int n) {{
  dim3 threads(bs, bs);
  assert(bs % 32 == 0);
  k<<<(n + 255) / 256, threads>>>(d, n);
}}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block, [None, None, Some(1)]);
    assert_eq!(
        rel(l),
        vec!["bdim.y == bdim", "gdim == (n + 255) / 256", "bdim % 32 == 0"]
    );
}

#[test]
fn each_caller_context_is_a_launch_and_dead_branches_are_checked_for_what_holds_there() {
    let src = format!(
        "{KERNEL}void run(int *d, int bs) {{
  if (bs == 16) {{ k<<<1, 16>>>(d, 0); }} else {{ k<<<1, bs>>>(d, bs); }}
}}
int main() {{ int *d; run(d, 32); run(d, 64); }}"
    );
    let ls = launches(&src, &Options::default());
    let names: Vec<&str> = ls.iter().map(|(n, _)| n.as_str()).collect();
    // The then-branch launch is made by no caller: it is checked for itself (16
    // threads); the else-branch launch once per caller.
    assert_eq!(names, vec!["k#1", "k#2", "k#3"]);
    assert_eq!(ls[0].1.block[0], Some(16));
    assert_eq!(ls[0].1.params.get("n"), Some(&0));
    assert_eq!(ls[1].1.block[0], Some(32));
    assert_eq!(ls[1].1.params.get("n"), Some(&32));
    assert_eq!(ls[2].1.block[0], Some(64));
}

#[test]
fn a_launch_made_in_no_caller_context_keeps_its_condition() {
    let src = format!(
        "{KERNEL}void run(int *d, int bs) {{
  dim3 t(bs);
  if (bs == 16) k<<<1, t>>>(d, 1);
}}
int main() {{ int *d; run(d, 32); run(d, 64); }}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block[0], Some(16));
    assert!(rel(l).is_empty());
}

#[test]
fn a_size_taken_from_a_table_is_one_context_per_entry() {
    let src = format!(
        "{KERNEL}void run(int *d, int bs) {{ k<<<(4096 + bs - 1) / bs, bs>>>(d, 4096); }}
int main() {{
  int *d;
  int sizes[] = {{32, 64, 32, 128}};
  for (int j = 0; j < 4; j++) {{ int block_size = sizes[j]; run(d, block_size); }}
}}"
    );
    let ls = launches(&src, &Options::default());
    let blocks: Vec<_> = ls.iter().map(|(_, l)| (l.block[0], l.grid[0])).collect();
    // Each distinct entry once.
    assert_eq!(
        blocks,
        vec![(Some(32), Some(128)), (Some(64), Some(64)), (Some(128), Some(32))]
    );
}

#[test]
fn a_table_in_the_launching_function_or_a_const_global_forks_it_too() {
    let src = format!(
        "{KERNEL}const int SIZES[] = {{256, 512}};
void run(int *d) {{
  int threads[2] = {{16, 8}};
  for (int a = 0; a < 2; a++) {{
for (int b = 0; b < 2; b++) {{
  int t = threads[a];
  int w = SIZES[b];
  int g = w / t;
  k<<<g, t>>>(d, w);
}}
  }}
}}"
    );
    let ls = launches(&src, &Options::default());
    let got: Vec<_> = ls
        .iter()
        .map(|(_, l)| (l.block[0], l.grid[0], l.params.get("n").copied()))
        .collect();
    assert_eq!(got.len(), 4);
    for want in [
        (Some(16), Some(16), Some(256)),
        (Some(16), Some(32), Some(512)),
        (Some(8), Some(32), Some(256)),
        (Some(8), Some(64), Some(512)),
    ] {
        assert!(got.contains(&want), "{want:?} in {got:?}");
    }
}

#[test]
fn a_table_that_is_written_or_not_constant_is_no_choice() {
    for body in [
        "int sizes[] = {32, 64}; sizes[1] = 96; int bs = sizes[i];",
        "int sizes[] = {32, n}; int bs = sizes[i];",
        "int sizes[] = {32, 64}; int bs = sizes[i]; bs += 32;",
        "int *sizes = 0; int bs = sizes[i];",
    ] {
        let src = format!("{KERNEL}void run(int *d, int n, int i) {{ {body} k<<<1, bs>>>(d, 1); }}");
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 1, "{body}");
        assert_eq!(ls[0].1.block[0], None, "{body}");
    }
}

#[test]
fn reassigned_or_address_taken_values_are_unknown() {
    let src = format!(
        "{KERNEL}void run(int *d) {{
  int bs = 64; bs *= 2;
  int n = 10; void *p = &n;
  k<<<1, bs>>>(d, n);
}}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block, [None, Some(1), Some(1)]);
    assert!(l.params.is_empty());
    assert!(l.relations.is_empty());
}

#[test]
fn values_that_may_change_unseen_are_unknown() {
    // A reference parameter, a reference bound to it, `std::swap`, a `dim3 &`
    // out-parameter: none is a plain assignment, each may change the value.
    let src = format!(
        "{KERNEL}void widen(int &n);
void shape(dim3 &b) {{ b = dim3(512); }}
void run(int *d) {{
  int a = 64; widen(a);
  int b = 64; int &r = b; r = 7;
  int c = 64, e = 1; std::swap(c, e);
  dim3 t(64); shape(t);
  k<<<1, a>>>(d, 1); k<<<1, b>>>(d, 2); k<<<1, c>>>(d, 3); k<<<1, t>>>(d, 4);
}}"
    );
    for (_, l) in launches(&src, &Options::default()) {
        assert_eq!(l.block[0], None, "{l}");
    }
    // Only read: a `const` reference, a by-value call, the runtime's allocation.
    let src = format!(
        "{KERNEL}int show(const int &n);
void run(int *d) {{
  int a = 64; show(a); cudaMalloc(&d, a * 4);
  k<<<1, a>>>(d, 1);
}}"
    );
    assert_eq!(launches(&src, &Options::default())[0].1.block[0], Some(64));
}

#[test]
fn a_dim3_field_is_followed_only_when_assigned_in_the_declarations_block() {
    let launch = |body: &str| {
        let src = format!("{KERNEL}void run(int *d, int c) {{ {body} }}");
        launches(&src, &Options::default())[0].1.block[0]
    };
    assert_eq!(
        launch("dim3 t(64); t.x = 32; k<<<1, t>>>(d, 1); t.x = 8;"),
        Some(32)
    );
    assert_eq!(launch("dim3 t(64); if (c) t.x = 32; k<<<1, t>>>(d, 1);"), None);
    assert_eq!(launch("dim3 t(64); t.x *= 2; k<<<1, t>>>(d, 1);"), None);
    assert_eq!(launch("static dim3 t(64); k<<<1, t>>>(d, 1); t.x = 8;"), None);
}

#[test]
fn template_arguments_are_evaluated_in_each_context() {
    // A const local, a host template's parameter bound by its call, and a
    // `switch` case that pins the block size.
    let src = "template <int N> __global__ void k(int *a) { a[threadIdx.x % N] = 1; }
template <int BS> void run(int *d) { k<BS><<<1, BS>>>(d); }
void pick(int *d, int threads) {
  switch (threads) {
  case 256: k<256><<<1, threads>>>(d); break;
  case 64: case 32: k<64><<<1, threads>>>(d); break;
  default: break;
  }
}
int main() { int *d; const int w = 16; k<w><<<1, w>>>(d); run<128>(d); pick(d, 100); }";
    let got: Vec<(String, Option<u32>, Vec<String>)> = launches(src, &Options::default())
        .into_iter()
        .map(|(name, l)| (name, l.block[0], rel(&l)))
        .collect();
    let want =
        |n: &str, b: Option<u32>, r: &[&str]| (n.to_string(), b, r.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        got,
        vec![
            want("k<128>", Some(128), &[]),
            want("k<256>", Some(256), &[]),
            want("k<64>", None, &["bdim == 32 || bdim == 64"]),
            want("k<16>", Some(16), &[]),
        ]
    );
}

#[test]
fn a_parameter_the_host_function_assigns_holds_the_assigned_value_or_none() {
    // A plain assignment of the body's top block is followed (its right side sees the
    // caller's value); a `dim3` parameter's field assignment is not.
    let src = format!(
        "{KERNEL}void run(int *d, int bs, dim3 g) {{ bs = bs * 2; g.x = 3; k<<<g, bs>>>(d, 1); }}
int main() {{ int *d; run(d, 32, dim3(5)); }}"
    );
    let (_, l) = &launches(&src, &Options::default())[0];
    assert_eq!(l.block[0], Some(64));
    assert_eq!(l.grid[0], None);
    assert_eq!(l.params.get("n"), Some(&1));
    // Alone under an `if` whose condition holds: the assigned value; after the launch:
    // the caller's value (the launch before the assignment); changed through a
    // reference: not followed.
    let src = format!(
        "{KERNEL}void run(int *d, int bs, int n) {{ if (n > 4) bs = 64; k<<<1, bs>>>(d, 1); }}
void late(int *d, int bs) {{ k<<<1, bs>>>(d, 1); bs = 256; }}
int main() {{ int *d; run(d, 32, 8); late(d, 32); }}"
    );
    let blocks: Vec<Option<u32>> = launches(&src, &Options::default())
        .iter()
        .map(|(_, l)| l.block[0])
        .collect();
    assert_eq!(blocks, vec![Some(64), Some(32)]);
    let src = format!(
        "{KERNEL}void grow(int &x) {{ x = 512; }}
void byref(int *d, int bs) {{ bs = 16; grow(bs); k<<<1, bs>>>(d, 1); }}
int main() {{ int *d; byref(d, 32); }}"
    );
    assert_eq!(launches(&src, &Options::default())[0].1.block[0], None);
}

#[test]
fn a_constant_argument_is_pinned_as_the_parameter_receives_it() {
    let src = "__global__ void k(int *a, unsigned char n) { a[threadIdx.x] = n; }
void run(int *d) { k<<<1, 32>>>(d, 300); }";
    let (_, l) = &launches(src, &Options::default())[0];
    assert_eq!(l.params.get("n"), Some(&44));
}

#[test]
fn flags_and_header_win_and_symbolic_turns_reading_off() {
    let src = format!("{KERNEL}void run(int *d) {{ k<<<4, 128>>>(d, 7); }}");
    let given = Options {
        launch: Launch::fixed([64, 1, 1], [1, 1, 1]),
        ..Options::default()
    };
    let (_, l) = &launches(&src, &given)[0];
    assert_eq!(l.block_dim(), Some([64, 1, 1]));
    assert!(l.params.is_empty());
    let off = Options {
        symbolic_launch: true,
        ..Options::default()
    };
    assert!(launches(&src, &off)[0].1.is_symbolic());
}

#[test]
fn a_kernel_named_outside_a_launch_is_checked_for_every_launch() {
    let src = format!(
        "{KERNEL}typedef void (*kern)(int *, int);
void run(int *d) {{ k<<<1, 32>>>(d, 1); kern f = k; f<<<4, 64>>>(d, 2); }}"
    );
    let ls = crate::translate(Path::new("host.cu"), &src, &Options::default())
        .expect("translates")
        .kernels;
    assert!(ls[0].launch.is_symbolic());
    assert!(
        ls[0]
            .notes
            .iter()
            .any(|n| n.contains("other than by launching it"))
    );
}

#[test]
fn calls_through_a_forwarding_wrapper_are_caller_contexts() {
    let src = format!(
        "{KERNEL}template <class F, class... A> float bench(int reps, F f, A&&... a) {{
  for (int i = 0; i < reps; i++) f(std::forward<A>(a)...);
  return 0.0f;
}}
void run(int *d, int bs) {{ k<<<1, bs>>>(d, bs); }}
int main() {{ int *d; run(d, 64); bench(10, run, d, 64); }}"
    );
    let ls = launches(&src, &Options::default());
    assert_eq!(ls.len(), 1);
    assert_eq!(ls[0].1.block[0], Some(64));
    let other = src.replace("bench(10, run, d, 64)", "bench(10, run, d, 128)");
    assert_eq!(launches(&other, &Options::default()).len(), 2);
    // A local handed to the wrapper is read when the wrapped function takes it by
    // value, and may change when it takes it by reference.
    let local = src.replace("bench(10, run, d, 64)", "int bs = 32; bench(10, run, d, bs)");
    let sizes: Vec<Option<u32>> = launches(&local, &Options::default())
        .iter()
        .map(|(_, l)| l.block[0])
        .collect();
    assert_eq!(sizes, vec![Some(64), Some(32)]);
    let by_ref = local.replace("void run(int *d, int bs)", "void run(int *d, int &bs)");
    assert!(
        launches(&by_ref, &Options::default())
            .iter()
            .all(|(_, l)| l.block[0].is_none())
    );
}

#[test]
fn launch_bounds_and_launch_apis() {
    let src = "__global__ void __launch_bounds__(256) b(int *a) { a[threadIdx.x] = 0; }
__global__ void c(int *a) { a[threadIdx.x] = 0; }
__global__ void e(int *a, int n) { a[threadIdx.x] = n; }
void run(int *d) {
  void *args[] = {&d};
  cudaLaunchCooperativeKernel((void *)c, dim3(8), dim3(32, 2), args);
  cudaLaunchConfig_t cfg;
  cfg.gridDim = dim3(3);
  cfg.blockDim = 96;
  cudaLaunchKernelEx(&cfg, e, d, 5);
}";
    let ls = launches(src, &Options::default());
    assert_eq!(ls[0].1.max_threads, Some(256));
    assert!(ls[0].1.sites.is_empty());
    assert!(ls[1].1.cooperative);
    assert_eq!(ls[1].1.block_dim(), Some([32, 2, 1]));
    assert_eq!(ls[1].1.grid_dim(), Some([8, 1, 1]));
    assert_eq!(ls[2].1.block_dim(), Some([96, 1, 1]));
    assert_eq!(ls[2].1.grid_dim(), Some([3, 1, 1]));
    assert_eq!(ls[2].1.params.get("n"), Some(&5));
}

#[test]
fn a_launch_without_template_arguments_launches_the_instance_cpp_deduces() {
    // Types from a parameter, a local, a cast, `&x`, a literal and a global; values
    // from tags (evaluated like a launch's own template arguments); a template
    // parameter left to its default. What is not deduced (`auto`, a call's result, a
    // type the host function defines) is the open instance's.
    let src = "#include <type_traits>
typedef float real;
template <typename T, bool A, int N = 4>
__global__ void k(T *p, std::bool_constant<A>, T v) { p[threadIdx.x] = v; }
template <typename T, int W>
__global__ void w(const T *p, std::integral_constant<int, W>) { }
double g;
float *make();
void run(real *d, short *s, void *raw) {
  constexpr int width = 8;
  float *f = 0;
  k<<<1, 32>>>(d, std::true_type{}, 1.0f);
  k<<<1, 64>>>(f, std::bool_constant<false>(), 2.0f);
  w<<<1, 32>>>((unsigned int *)raw, std::integral_constant<int, width * 2>{});
  w<<<1, 16>>>(&g, std::integral_constant<int, -3>{});
  w<<<1, 8>>>(s, std::integral_constant<int, 1>{});
  auto *a = f;
  using local = short;
  local *l = s;
  w<<<2, 32>>>(a, std::integral_constant<int, 1>{});
  w<<<3, 32>>>(make(), std::integral_constant<int, 1>{});
  w<<<4, 32>>>(l, std::integral_constant<int, 1>{});
}";
    let names: Vec<(String, Option<u32>)> = launches(src, &Options::default())
        .into_iter()
        .map(|(n, l)| (n, l.grid[0]))
        .collect();
    let expect = [
        ("k<float,true>", Some(1)),
        ("k<float,false>", Some(1)),
        ("w<unsigned int,16>", Some(1)),
        ("w<double,-3>", Some(1)),
        ("w<short,1>", Some(1)),
    ];
    for (name, grid) in expect {
        assert!(
            names.contains(&(name.to_string(), grid)),
            "{name} missing from {names:?}"
        );
    }
    // The three launches not deduced go to the open instance, one context each.
    let open: Vec<Option<u32>> = names
        .iter()
        .filter(|(n, _)| n.starts_with("w#") || n == "w")
        .map(|(_, g)| *g)
        .collect();
    assert_eq!(open.len(), 3, "{names:?}");
    assert!(
        [Some(2), Some(3), Some(4)].iter().all(|g| open.contains(g)),
        "{names:?}"
    );
    assert_eq!(names.len(), 8, "{names:?}");
}

#[test]
fn template_arguments_are_not_deduced_where_cpp_would_need_more_than_the_written_type() {
    // C++ would deduce `double[8]`, `long`, `unsigned int`, the class's `elem`, the
    // namespace's `V`, the lambda's capture and a derived class of the file's own
    // `false_type`: each launch is the open instance's (`k`), never an instance of a
    // type read the wrong way.
    let src = "#include <type_traits>
using elem = float;
struct V { float x; };
namespace tags { struct false_type : std::integral_constant<bool, true> {}; }
template <typename T> __global__ void k(T *p) { }
template <typename T> __global__ void v(int *p, T n) { }
template <bool B> __global__ void t(int *p, std::bool_constant<B>) { }
namespace wide { struct V { double x; }; void run(V *d) { k<<<1, 2>>>(d); } }
struct Host { using elem = double; void run(elem *d) { k<<<1, 3>>>(d); } };
void run(double d[][8], int *o, double *q) {
  k<<<1, 4>>>(d);
  v<<<1, 5>>>(o, 3000000000);
  v<<<1, 6>>>(o, 0xFFFFFFFF);
  auto go = [w = q]() { k<<<1, 7>>>(w); };
  t<<<1, 8>>>(o, tags::false_type{});
}";
    let names: Vec<(String, Option<u32>)> = launches(src, &Options::default())
        .into_iter()
        .map(|(n, l)| (n, l.block[0]))
        .collect();
    assert!(names.iter().all(|(n, _)| !n.contains('<')), "{names:?}");
    for b in [2, 3, 4, 7] {
        assert!(
            names.iter().any(|(n, x)| n.starts_with('k') && *x == Some(b)),
            "{b}: {names:?}"
        );
    }
    for b in [5, 6] {
        assert!(
            names.iter().any(|(n, x)| n.starts_with('v') && *x == Some(b)),
            "{b}: {names:?}"
        );
    }
    assert!(
        names.iter().any(|(n, x)| n.starts_with('t') && *x == Some(8)),
        "{names:?}"
    );
}

#[test]
fn a_launch_whose_deduced_arguments_cannot_be_bound_is_the_open_instance() {
    // `T` is deduced as the file's incomplete `struct T`, which the front end cannot
    // bind (it shares its name with the template parameter): the launch is checked as
    // the open instance, not dropped.
    let src = "struct T;
T *make();
template <typename T> __global__ void k(T *p, int *o) { o[0] = threadIdx.x; }
void a(T *w, int *o) { k<<<1, 256>>>(w, o); }
void b(int *o) { k<<<1, 1>>>(make(), o); }";
    let blocks: Vec<Option<u32>> = launches(src, &Options::default())
        .into_iter()
        .filter(|(n, _)| n.starts_with('k'))
        .map(|(_, l)| l.block[0])
        .collect();
    assert!(blocks.contains(&Some(256)), "{blocks:?}");
    assert!(blocks.contains(&Some(1)), "{blocks:?}");
}
