//! Issue #18: SARIF that code scanning takes as it is — valid against the SARIF 2.1.0
//! schema (`tests/data/sarif-schema-2.1.0.json`, the schema `serde-sarif` generates its
//! types from), rules with documentation in the repository, fingerprints that survive
//! unrelated edits, locations relative to `%SRCROOT%` whatever the form of the paths,
//! and invocations with notifications for files that could not be read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{autosync_in, root};

/// `check --format sarif ARGS` in `dir`: the exit code and the log, validated against
/// the schema.
pub(crate) fn sarif_in(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut a = vec!["check", "--format", "sarif"];
    a.extend_from_slice(args);
    let o = autosync_in(dir, &a);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("a JSON document on stdout");
    assert_valid(&doc);
    (o.status.code().expect("exit code"), doc)
}

fn assert_valid(doc: &Value) {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    // Formats (`uri`, `date-time`, ...) are checked too.
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0: {errors:#?}\n{doc:#}");
}

/// A race on a shared array, a divergent barrier, and a barrier that verifies.
const RACY: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void shift(float *out) {\n\
    __shared__ float s[64];\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
}\n\
\n\
__global__ void half(float *out) {\n\
    if (threadIdx.x < 16) {\n\
        __syncthreads();\n\
    }\n\
    out[threadIdx.x] = 0;\n\
}\n";

const CLEAN: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void shift(float *out) {\n\
    __shared__ float s[64];\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    __syncthreads();\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
}\n";

/// One kernel races across blocks, one cannot be lowered (a backward goto).
const MIXED: &str = "//--blockDim=32 --gridDim=4\n\
__global__ void total(int *out) {\n\
    out[0] = out[0] + threadIdx.x;\n\
}\n\
\n\
__global__ void back(int *out) {\n\
  again:\n\
    out[threadIdx.x] = 1;\n\
    if (out[threadIdx.x] == 0) goto again;\n\
}\n";

fn results(doc: &Value) -> &Vec<Value> {
    doc["runs"][0]["results"].as_array().expect("results")
}

fn uri_of(r: &Value) -> (String, Option<String>) {
    let a = &r["locations"][0]["physicalLocation"]["artifactLocation"];
    (
        a["uri"].as_str().unwrap().to_string(),
        a["uriBaseId"].as_str().map(str::to_string),
    )
}

fn fingerprint(r: &Value) -> String {
    r["partialFingerprints"]["autosync/v1"]
        .as_str()
        .expect("a fingerprint")
        .to_string()
}

fn line(r: &Value) -> u64 {
    r["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_log_is_valid_sarif_with_documented_rules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("racy.cu"), RACY).unwrap();
    std::fs::write(dir.path().join("mixed.cu"), MIXED).unwrap();
    std::fs::write(dir.path().join("bad.cu"), "__global__ void k( {\n").unwrap();
    let (code, doc) = sarif_in(dir.path(), &["racy.cu", "mixed.cu", "bad.cu", "missing.cu"]);
    assert_eq!(code, 2);
    assert_eq!(doc["version"], "2.1.0");
    let driver = &doc["runs"][0]["tool"]["driver"];
    let repo = env!("CARGO_PKG_REPOSITORY");
    assert!(repo.starts_with("https://"), "{repo}");
    assert_eq!(driver["informationUri"], repo);
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    // Every rule: descriptions, and a helpUri to its section of docs/rules.md.
    let rules_md = std::fs::read_to_string(root().join("docs/rules.md")).unwrap();
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "data-race",
            "cross-block-race",
            "barrier-divergence",
            "unsupported"
        ]
    );
    for r in rules {
        let id = r["id"].as_str().unwrap();
        assert_eq!(r["helpUri"], format!("{repo}/blob/main/docs/rules.md#{id}"));
        assert!(
            rules_md.contains(&format!("\n## {id}\n")),
            "docs/rules.md lacks `## {id}`"
        );
        assert!(r["shortDescription"]["text"].as_str().unwrap().len() > 20);
        assert!(r["fullDescription"]["text"].as_str().unwrap().len() > 100);
        assert_eq!(r["defaultConfiguration"]["level"], "error");
    }
    // One result per finding, each with a fingerprint and a rule index that matches.
    let got: Vec<(String, String, u64)> = results(&doc)
        .iter()
        .map(|r| {
            assert_eq!(
                rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
                r["ruleId"]
            );
            assert!(fingerprint(r).contains(':'));
            (r["ruleId"].as_str().unwrap().to_string(), uri_of(r).0, line(r))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("data-race".to_string(), "racy.cu".to_string(), 4),
            ("barrier-divergence".to_string(), "racy.cu".to_string(), 10),
            // `out[0] = out[0] + ...`: read-write and write-write, across blocks.
            ("cross-block-race".to_string(), "mixed.cu".to_string(), 3),
            ("cross-block-race".to_string(), "mixed.cu".to_string(), 3),
            ("unsupported".to_string(), "mixed.cu".to_string(), 9),
            ("unsupported".to_string(), "bad.cu".to_string(), 1),
        ]
    );
    // The files that could not be read or parsed: notifications; the run was not a
    // complete success.
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes: Vec<&str> = inv["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            assert_eq!(n["level"], "error");
            n["message"]["text"].as_str().unwrap()
        })
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("bad.cu: "), "{notes:?}");
    assert!(notes[1].starts_with("missing.cu: cannot read"), "{notes:?}");
}

#[test]
fn a_clean_run_is_successful_and_empty() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("clean.cu"), CLEAN).unwrap();
    let (code, doc) = sarif_in(dir.path(), &["clean.cu"]);
    assert_eq!(code, 0);
    assert_eq!(results(&doc).len(), 0);
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    assert!(inv.get("toolExecutionNotifications").is_none(), "{inv}");
}

/// A race found for the launch the file's host code makes says so in its properties.
#[test]
fn a_result_carries_the_launch_it_was_found_for() {
    let dir = tempfile::tempdir().unwrap();
    let src = "__global__ void rev(int *a) {
  __shared__ int s[256];
  s[threadIdx.x] = a[threadIdx.x];
  a[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
int main() { int *d; rev<<<1, 128>>>(d); }
";
    std::fs::write(dir.path().join("rev.cu"), src).unwrap();
    let (code, doc) = sarif_in(dir.path(), &["rev.cu"]);
    assert_eq!(code, 1);
    let launch = &results(&doc)[0]["properties"]["launch"];
    assert_eq!(launch["source"], "host");
    assert_eq!(launch["block"], serde_json::json!([128, 1, 1]));
    assert_eq!(launch["grid"], serde_json::json!([1, 1, 1]));
    assert_eq!(launch["sites"][0]["line"], 6);
}

#[test]
fn fingerprints_survive_edits_above_and_change_with_the_race() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.cu"), RACY).unwrap();
    let (_, before) = sarif_in(d, &["k.cu"]);
    // Lines inserted above, the kernel re-indented: same defects, new lines.
    let moved = RACY.replacen(
        "__global__ void shift",
        "// a comment\n\n\n#define UNUSED 1\n__global__   void shift",
        1,
    );
    let moved = moved.replace("s[(threadIdx.x + 1) % 64]", "s[(threadIdx.x  +  1)\n      % 64]");
    assert!(moved.contains("1)\n      % 64]"));
    std::fs::write(d.join("k.cu"), &moved).unwrap();
    let (_, after) = sarif_in(d, &["k.cu"]);
    let (b, a) = (results(&before), results(&after));
    assert_eq!(b.len(), 2);
    assert_eq!(a.len(), 2);
    for (x, y) in b.iter().zip(a) {
        assert_eq!(x["ruleId"], y["ruleId"]);
        assert!(line(x) + 4 <= line(y), "{x}\n{y}");
        assert_eq!(fingerprint(x), fingerprint(y));
    }
    // The two findings differ from each other.
    assert_ne!(fingerprint(&b[0]), fingerprint(&b[1]));
    // Another racing statement is another alert.
    let other = RACY.replace("% 64]", "% 32]");
    std::fs::write(d.join("k.cu"), other).unwrap();
    let (_, changed) = sarif_in(d, &["k.cu"]);
    assert_ne!(fingerprint(&results(&changed)[0]), fingerprint(&b[0]));
    assert_eq!(fingerprint(&results(&changed)[1]), fingerprint(&b[1]));
}

#[test]
fn two_identical_races_in_a_file_get_distinct_fingerprints() {
    let twice = "//--blockDim=64 --gridDim=1\n\
__global__ void twice(float *out) {\n\
    __shared__ float s[64];\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
    __syncthreads();\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
}\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), twice).unwrap();
    let (_, doc) = sarif_in(dir.path(), &["k.cu"]);
    let prints: Vec<String> = results(&doc).iter().map(fingerprint).collect();
    let lines: Vec<u64> = results(&doc).iter().map(line).collect();
    assert_eq!(lines, [4, 7]);
    let (hash, n) = prints[0].split_once(':').unwrap();
    assert_eq!(n, "1");
    assert_eq!(prints[1], format!("{hash}:2"));
}

/// `%SRCROOT%` is the git work tree (here: a folder with `.git`); every spelling of a
/// path below it gives the same relative URI, one outside it an absolute `file://` URI.
#[test]
fn locations_are_relative_to_srcroot_whatever_the_path_form() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let repo = top.join("repo");
    let sub = repo.join("src/kernels");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(sub.join("k.cu"), RACY).unwrap();
    std::fs::write(top.join("outside.cu"), RACY).unwrap();
    let abs: PathBuf = sub.join("k.cu");
    let abs = abs.to_str().unwrap();
    let cases: [(&Path, &str); 5] = [
        (&repo, "src/kernels/k.cu"),
        (&repo, "./src/kernels/k.cu"),
        (&repo, abs),
        (&sub, "../kernels/k.cu"),
        (&sub, "k.cu"),
    ];
    for (cwd, path) in cases {
        let (_, doc) = sarif_in(cwd, &[path]);
        let run = &doc["runs"][0];
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            format!("file://{}/", repo.display()),
            "from {cwd:?}"
        );
        for r in results(&doc) {
            assert_eq!(
                uri_of(r),
                ("src/kernels/k.cu".to_string(), Some("%SRCROOT%".to_string())),
                "{path} from {cwd:?}"
            );
            let related = &r["relatedLocations"][0]["physicalLocation"]["artifactLocation"];
            if !related.is_null() {
                assert_eq!(related["uri"], "src/kernels/k.cu");
                assert_eq!(related["uriBaseId"], "%SRCROOT%");
            }
        }
    }
    // A file outside the work tree: an absolute URI without a base.
    let (_, doc) = sarif_in(&repo, &["../outside.cu"]);
    for r in results(&doc) {
        assert_eq!(uri_of(r), (format!("file://{}/outside.cu", top.display()), None));
    }
}

#[test]
fn the_repository_examples_give_valid_sarif() {
    let (code, doc) = sarif_in(
        root(),
        &["examples/", "micro-benchmarks/", "tests/corpus/atomics/"],
    );
    assert!(code == 1 || code == 2, "{code}");
    assert!(!results(&doc).is_empty());
    for r in results(&doc) {
        let (uri, base) = uri_of(r);
        assert_eq!(base.as_deref(), Some("%SRCROOT%"));
        assert!(root().join(&uri).is_file(), "{uri}");
    }
}
