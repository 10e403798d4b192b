//! One kernel the front end cannot lower does not sink its file: `check` reports it as
//! `unsupported` and checks the others; `fix` fixes the others but does not write the
//! file (exit 2 either way).

use serde_json::Value;

use crate::common::{autosync_in, dir_with};

/// `good` races on `s` (a barrier after line 3 fixes it); `bad` arrives on an `mbarrier`
/// through inline PTX, which autosync does not model.
const TWO: &str = "__global__ void good(int *a) {
    __shared__ int s[64];
    s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
    a[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x + 1];
}

__global__ void bad(unsigned *p) {
    unsigned x;
    asm(\"mbarrier.arrive.b64 %0, [%1];\" : \"=r\"(x) : \"l\"(p));
    p[threadIdx.x] = x;
}
";

const ERROR: &str = "two.cu:9:5: unsupported: inline PTX `mbarrier.arrive.b64` (an `mbarrier` operation) \
                     (in `asm(\"mbarrier.arrive.b64 %0, [%1];\" : \"=r\"(x) : \"l\"(p))`)";
const HELP: &str = "  help: autosync models loads, stores, atomics, fences, block and warp barriers and register \
                    arithmetic in inline PTX; write this with CUDA builtins, or check the kernel without it";

fn setup() -> tempfile::TempDir {
    dir_with("two.cu", TWO).0
}

/// The report lines without the timings (`[12.3 ms]`, `, 4.5 ms)`).
fn text_lines(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| l.starts_with("two.cu: ") || l.starts_with("  help") || l.starts_with("checked"))
        .map(|l| match l.rfind(" [") {
            Some(i) if l.ends_with(" ms]") => l[..i].to_string(),
            _ => l.to_string(),
        })
        .collect()
}

#[test]
fn check_reports_the_bad_kernel_and_checks_the_other() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["check", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text_lines(&out.stdout),
        [
            "two.cu: kernel `good`: race (1 race(s), 0 divergent barrier(s))".to_string(),
            format!("two.cu: kernel `bad`: unsupported ({ERROR})"),
            HELP.to_string(),
            "checked 1 file, 2 kernels: 0 verified, 1 with races, 1 unsupported".to_string(),
        ]
    );
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn check_json_gives_each_kernel_its_verdict() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["check", "--format", "json", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ks = doc["files"][0]["kernels"].as_array().expect("kernels");
    let got: Vec<(&str, &str)> = ks
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or(""),
                k["verdict"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(got, [("good", "race"), ("bad", "unsupported")]);
    assert_eq!(ks[0]["races"][0]["first"]["line"], 3);
    assert_eq!(ks[0]["races"][0]["second"]["line"], 4);
    assert_eq!(ks[1]["error"], format!("{ERROR}\n{HELP}"));
    assert!(doc["files"][0].get("error").is_none());
}

#[test]
fn check_sarif_locates_the_bad_kernel_at_its_error() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["check", "--format", "sarif", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("SARIF");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    let bad = results
        .iter()
        .find(|r| r["ruleId"] == "unsupported")
        .expect("an unsupported result");
    let region = &bad["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(9), Some(5))
    );
}

#[test]
fn fix_fixes_the_others_but_does_not_write_the_file() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["fix", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("two.cu: kernel `good`: inserted 1 barrier(s) at line(s) 4;"),
        "{text}"
    );
    assert!(
        text.contains("error[unsupported]: kernel `bad`: cannot be checked"),
        "{text}"
    );
    assert!(
        text.contains("two.cu: not written: some kernel has no fix"),
        "{text}"
    );
    assert!(
        text.contains("processed 1 file, 2 kernels: 1 fixed, 1 unsupported"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("two.cu")).expect("read"),
        TWO
    );
    // The JSON report has both, in file order.
    let out = autosync_in(dir.path(), &["fix", "--format", "json", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ks = doc["files"][0]["kernels"].as_array().expect("kernels");
    let got: Vec<(&str, &str)> = ks
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or(""),
                k["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(got, [("good", "fixed"), ("bad", "unsupported")]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("two.cu")).expect("read"),
        TWO
    );
    // --diff shows the partial fix; the file stays as it was.
    let out = autosync_in(dir.path(), &["fix", "--diff", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+    __syncthreads();"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("two.cu")).expect("read"),
        TWO
    );
}

#[test]
fn kernel_filter_selects_the_bad_kernel_alone() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["check", "--kernel", "bad", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text_lines(&out.stdout),
        [
            format!("two.cu: kernel `bad`: unsupported ({ERROR})"),
            HELP.to_string(),
            "checked 1 file, 1 kernel: 0 verified, 1 unsupported".to_string(),
        ]
    );
    let out = autosync_in(dir.path(), &["check", "--kernel", "good", "two.cu"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn show_prints_the_others_and_names_the_bad_kernel() {
    let dir = setup();
    let out = autosync_in(dir.path(), &["check", "--show", "labels", "two.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().next(), Some("two.cu: kernel `good`"));
    assert!(!stdout.contains("`bad`"), "{stdout}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("autosync: error: kernel `bad`: {ERROR}\n{HELP}\n")
    );
}
