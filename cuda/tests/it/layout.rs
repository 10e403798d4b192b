//! `sizeof` and `alignof` follow CUDA's layout (vector types, padded structs, arrays,
//! expressions without array decay), and adjacent bit-fields share one cell.

use crate::common::lower_text;

/// The constants stored by `out[k] = EXPR;` for each of `exprs`, in order.
fn constants(decls: &str, exprs: &[&str]) -> Vec<String> {
    let mut src = format!("{decls}\n__global__ void k(unsigned long *out, int *g) {{\n");
    src.push_str(
        "    int a[10];\n    __shared__ float s[33];\n    int x = 0;\n    int *p = g;\n    float4 v;\n",
    );
    for (i, e) in exprs.iter().enumerate() {
        src.push_str(&format!("    out[{i}] = {e};\n"));
    }
    src.push_str("}\n");
    let text = lower_text(&src);
    assert!(!text.contains("arbitrary"), "{text}");
    exprs
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let prefix = format!("out[{i}] = ");
            let line = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("no store for `{e}` in\n{text}"));
            line[prefix.len()..].trim_end_matches(';').to_string()
        })
        .collect()
}

#[test]
fn sizeof_of_vector_types() {
    let exprs = [
        "sizeof(double2)",
        "sizeof(float4)",
        "sizeof(char3)",
        "sizeof(short3)",
        "sizeof(uchar4)",
        "sizeof(int3)",
        "sizeof(double4)",
        "sizeof(dim3)",
        "sizeof(__half)",
        "alignof(double2)",
        "__alignof__(float3)",
        "alignof(short4)",
        "__alignof__(double3)",
        "alignof(char3)",
    ];
    assert_eq!(
        constants("", &exprs),
        [
            "16", "16", "3", "6", "4", "12", "32", "12", "2", "16", "4", "8", "8", "1"
        ]
    );
}

#[test]
fn sizeof_of_structs() {
    let decls = "struct P3 { char a; int b; char c; };\nstruct Q { char a; char b; int c; };\n\
                 struct R { double d; char c; };\nstruct N { char c; R r; };\nstruct V { char c; float4 v; };";
    let exprs = [
        "sizeof(P3)",
        "sizeof(struct P3)",
        "alignof(P3)",
        "sizeof(Q)",
        "sizeof(R)",
        "alignof(R)",
        "sizeof(N)",
        "sizeof(V)",
    ];
    assert_eq!(
        constants(decls, &exprs),
        ["12", "12", "4", "8", "16", "8", "24", "32"]
    );
}

#[test]
fn sizeof_of_expressions() {
    let exprs = [
        "sizeof(a)",
        "sizeof(a) / sizeof(a[0])",
        "sizeof(s)",
        "sizeof(s) / sizeof(s[0])",
        "sizeof(p)",
        "sizeof(x)",
        "sizeof x",
        "sizeof a",
        "sizeof(v)",
        "sizeof(v.x)",
        "sizeof(*p)",
        "sizeof(x + 1L)",
    ];
    assert_eq!(
        constants("", &exprs),
        ["40", "10", "132", "33", "8", "4", "4", "40", "16", "4", "4", "8"]
    );
}

#[test]
fn bit_fields_share_a_cell() {
    let src = r#"struct S { unsigned lo : 4; unsigned hi : 4; int z; unsigned a : 3, b : 5; };
__global__ void k(unsigned long *out, S *p) {
    int i = threadIdx.x;
    out[0] = sizeof(S);
    if (i == 0) p[0].lo = 1;
    if (i == 1) p[0].hi = 2;
    if (i == 2) p[0].z = 3;
    if (i == 3) p[0].b = 4;
    if (i == 4) p[1].a = 5;
}
"#;
    let text = lower_text(src);
    let stores: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("p["))
        .collect();
    // `lo` and `hi` are cell 0, `z` cell 1, `a` and `b` cell 2; a struct is 3 cells.
    assert_eq!(
        stores,
        ["p[0] = _;", "p[0] = _;", "p[1] = 3;", "p[2] = _;", "p[5] = _;"],
        "{text}"
    );
    assert!(text.contains("out[0] = 12;"), "{text}");
}
