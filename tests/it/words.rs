//! Issue #35 (items 7 and 9): words a CUDA programmer uses. `--help` explains what each
//! option does and what happens without it, with no jargon of the implementation left
//! unexplained; the README's set-up works as written; reports name arrays as the source
//! does, also when the shared memory is declared in a helper under a reserved name.

use crate::common::{autosync, autosync_in, code, dir_with, root, stderr, stdout};

/// The commands whose `--help` is read (`""`: the top level).
const COMMANDS: &[&str] = &["", "check", "fix", "cost", "lsp"];

/// Words of the implementation a CUDA programmer does not know, each with the phrases
/// that may contain it (the flag that names the checker, or the word explained in
/// the same breath). Matched without regard to case.
const BANNED: &[(&str, &[&str])] = &[
    ("oracle", &["--oracle <ORACLE>", "--oracle dynamic", "--oracle"]),
    ("maxsat", &[]),
    ("label tree", &[]),
    ("resource unit", &[]),
    ("z3", &[]),
];

/// `autosync COMMAND --help`.
fn help(command: &str) -> String {
    let mut args: Vec<&str> = command.split_whitespace().collect();
    args.push("--help");
    let o = autosync(&args);
    assert_eq!(code(&o), 0, "{command} --help: {}", stderr(&o));
    stdout(&o)
}

/// The banned words left in `text` once the allowed phrases are taken out.
fn jargon(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    BANNED
        .iter()
        .filter(|(word, allowed)| {
            let mut t = lower.clone();
            for a in allowed.iter() {
                t = t.replace(&a.to_lowercase(), "");
            }
            t.contains(word)
        })
        .map(|(word, _)| *word)
        .collect()
}

#[test]
fn help_uses_no_unexplained_jargon() {
    for c in COMMANDS {
        let h = help(c);
        assert_eq!(jargon(&h), Vec::<&str>::new(), "autosync {c} --help:\n{h}");
    }
    // The rule itself: each word is caught, and its allowed phrase is not.
    assert_eq!(
        jargon("placement solved as weighted MaxSAT by Z3"),
        ["maxsat", "z3"]
    );
    assert_eq!(jargon("The verifier used as oracle"), ["oracle"]);
    assert_eq!(jargon("      --oracle <ORACLE>"), Vec::<&str>::new());
}

/// The options of a long `--help`: (the option's first line, its whole text).
fn options(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_options = false;
    for line in help.lines() {
        if line.ends_with(':') && !line.starts_with(' ') {
            in_options = line == "Options:";
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let is_head = (indent == 2 || indent == 6) && line.trim_start().starts_with('-');
        match out.last_mut() {
            _ if in_options && is_head => out.push((line.trim().to_string(), String::new())),
            Some((_, text)) if in_options => {
                text.push_str(line);
                text.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// Whether an option's help says what happens without it: clap's `[default: ...]`, or
/// the doc comment's "default" or "without".
fn says_without(text: &str) -> bool {
    let t = text.to_lowercase();
    t.contains("default") || t.contains("without")
}

#[test]
fn every_option_says_what_happens_without_it() {
    let mut missing = Vec::new();
    for c in COMMANDS.iter().filter(|c| !c.is_empty()) {
        let opts = options(&help(c));
        assert!(opts.len() > 10, "autosync {c} --help: options not found");
        for (head, text) in opts {
            let builtin = head.starts_with("-h, --help") || head.starts_with("-V, --version");
            if !builtin && !says_without(&text) {
                missing.push(format!("autosync {c} {head}"));
            }
        }
    }
    assert_eq!(missing, Vec::<String>::new());
    assert!(says_without("  [default: auto]") && says_without("Without it, only ..."));
    assert!(!says_without("Only this kernel."));
}

/// The README's text between the heading `## name` and the next `## `.
fn readme_section(name: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme
        .find(&format!("\n## {name}\n"))
        .unwrap_or_else(|| panic!("README has no section {name}"));
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

/// The words of the commands in the fenced code blocks of `text`.
fn code_words(text: &str) -> Vec<String> {
    text.split("```")
        .skip(1)
        .step_by(2)
        .flat_map(|block| block.lines().skip(1))
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[test]
fn the_readme_set_up_uses_paths_that_exist() {
    let setup = readme_section("Set-up");
    let paths: Vec<String> = code_words(&setup)
        .into_iter()
        .filter(|w| w.contains('/') || w.ends_with(".kpl") || w.ends_with(".cu"))
        .collect();
    assert!(paths.contains(&"examples/fig4.kpl".to_string()), "{paths:?}");
    for p in &paths {
        assert!(
            root().join(p).exists(),
            "README's set-up uses {p}, which does not exist"
        );
    }
    // What `cargo install` needs, and how long the tests take.
    let version = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let rust = version
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("rust-version");
    assert!(setup.contains(&format!("Rust ({rust}+)")), "{setup}");
    for needed in [
        "libz3-dev",
        "a C compiler",
        "about 20 minutes",
        "about 10 of them compiling",
    ] {
        assert!(setup.contains(needed), "README's set-up does not say {needed}");
    }
}

#[test]
fn the_readme_neovim_snippet_names_the_version_it_needs() {
    let editors = readme_section("Editors");
    let at = editors.find("**Neovim**").expect("a Neovim paragraph");
    let neovim = &editors[at..];
    // `vim.lsp.start`, `vim.fs.find` and the autocommand's `ev.buf` are Neovim 0.8's.
    assert!(neovim.contains("vim.lsp.start("));
    assert!(neovim.starts_with("**Neovim** (0.8 or later)"), "{neovim}");
}

/// An n-body step as the CUDA SDK writes it: the dynamic shared memory comes from the
/// `SharedMemory<T>` helper (declared there as `__smem`) and is called `sharedPos` in
/// the kernel. `barriers` is put where the tile is loaded.
fn nbody(barriers: &str) -> String {
    format!(
        "//--blockDim=64 --gridDim=4\n\
template <class T> struct SharedMemory {{\n\
  __device__ inline operator T *() {{\n\
    extern __shared__ int __smem[];\n\
    return (T *)__smem;\n\
  }}\n\
}};\n\
\n\
__global__ void integrate(float4 *pos, float4 *acc) {{\n\
  float4 *sharedPos = SharedMemory<float4>();\n\
  float4 me = pos[blockIdx.x * blockDim.x + threadIdx.x];\n\
  float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n\
  for (int tile = 0; tile < 4; tile++) {{\n\
    sharedPos[threadIdx.x] = pos[tile * blockDim.x + threadIdx.x];\n\
{barriers}\
    for (int j = 0; j < blockDim.x; j++) {{\n\
      float4 o = sharedPos[j];\n\
      a.x += o.x - me.x;\n\
    }}\n\
    __syncthreads();\n\
  }}\n\
  acc[blockIdx.x * blockDim.x + threadIdx.x] = a;\n\
}}\n"
    )
}

/// The same in a `__device__` function the kernel calls (where `fix` places no barrier:
/// the synthesis gives up with a reason that names the array).
const NBODY_IN_A_FUNCTION: &str = "//--blockDim=64 --gridDim=4\n\
template <class T> struct SharedMemory {\n\
  __device__ inline T *getPointer() {\n\
    extern __shared__ int __smem[];\n\
    return (T *)__smem;\n\
  }\n\
};\n\
\n\
__device__ float4 accel(float4 me, float4 *pos, int tiles) {\n\
  SharedMemory<float4> smem;\n\
  float4 *sharedPos = smem.getPointer();\n\
  float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n\
  for (int tile = 0; tile < tiles; tile++) {\n\
    sharedPos[threadIdx.x] = pos[tile * blockDim.x + threadIdx.x];\n\
    for (int j = 0; j < blockDim.x; j++) {\n\
      float4 o = sharedPos[j];\n\
      a.x += o.x - me.x;\n\
    }\n\
  }\n\
  return a;\n\
}\n\
\n\
__global__ void integrate(float4 *pos, float4 *acc) {\n\
  float4 me = pos[blockIdx.x * blockDim.x + threadIdx.x];\n\
  acc[blockIdx.x * blockDim.x + threadIdx.x] = accel(me, pos, 4);\n\
}\n";

/// Every line of the output of `autosync ARGS nbody.cu` on `text` (stdout, then stderr).
fn report_lines(text: &str, args: &[&str]) -> (i32, Vec<String>) {
    let (dir, _) = dir_with("nbody.cu", text);
    let mut a = args.to_vec();
    a.push("nbody.cu");
    let o = autosync_in(dir.path(), &a);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    (code(&o), all.lines().map(str::to_string).collect())
}

fn has(lines: &[String], line: &str) -> bool {
    lines.iter().any(|l| l == line)
}

/// No report line names the helper's array, except source lines quoted in it.
fn no_reserved_name(lines: &[String]) {
    for l in lines {
        let quoted_source =
            l.contains(" │ ") || l.starts_with("+") || l.starts_with(" ") && l.contains("__smem[]");
        assert!(quoted_source || !l.contains("__smem"), "{l}");
    }
}

#[test]
fn a_helper_shared_array_is_reported_by_the_kernel_name() {
    let racy = nbody("");
    let (c, lines) = report_lines(&racy, &["check"]);
    assert_eq!(c, 1);
    assert!(
        has(
            &lines,
            "error[race]: 2 racing pairs on shared array `sharedPos` between lines 14–16; a barrier after line \
             14 separates them all"
        ),
        "{lines:#?}"
    );
    no_reserved_name(&lines);
    let (c, lines) = report_lines(&racy, &["fix", "--explain", "--diff"]);
    assert_eq!(c, 0);
    let removes = "        - the write-read race on `sharedPos` between line 14 and line 16, within one \
                   iteration of the loop at line 13";
    assert!(has(&lines, removes), "{lines:#?}");
    no_reserved_name(&lines);
    // A barrier that a cheaper placement removes: the report and its reasons.
    let doubled = nbody("    __syncthreads();\n    __syncthreads();\n");
    for args in [
        &["fix", "--explain", "--diff", "--strip"][..],
        &["fix", "--explain", "--diff"],
    ] {
        let (c, lines) = report_lines(&doubled, args);
        assert_eq!(c, 0, "{args:?}");
        no_reserved_name(&lines);
    }
    let (_, lines) = report_lines(&doubled, &["fix", "--explain", "--diff", "--strip"]);
    assert!(
        has(
            &lines,
            "  note: the barrier at original line 16 was removed: the kernel is race-free without it"
        ),
        "{lines:#?}"
    );
}

#[test]
fn a_reason_of_the_synthesis_uses_the_kernel_name() {
    let reason = "no barrier placement removes the race between line 14 and line 16 on `sharedPos`: `fix` \
                  places no barrier inside a device function it inlines";
    let (c, lines) = report_lines(NBODY_IN_A_FUNCTION, &["fix", "--diff"]);
    assert_eq!(c, 1);
    assert!(has(&lines, &format!("   = {reason}")), "{lines:#?}");
    no_reserved_name(&lines);
    // `cost` exits 1: no model has a placement for this kernel.
    let (c, lines) = report_lines(NBODY_IN_A_FUNCTION, &["cost"]);
    assert_eq!(c, 1);
    let paper = format!("  paper               0            –  no placement: {reason}");
    assert!(has(&lines, &paper), "{lines:#?}");
    no_reserved_name(&lines);
    let (c, lines) = report_lines(NBODY_IN_A_FUNCTION, &["check", "--show", "rounds"]);
    assert_eq!(c, 0);
    assert!(
        has(
            &lines,
            &format!("  outcome: no-solution, cost 0 (was 0): {reason}")
        ),
        "{lines:#?}"
    );
    // The JSON report too.
    let (dir, _) = dir_with("nbody.cu", NBODY_IN_A_FUNCTION);
    let o = autosync_in(dir.path(), &["fix", "--format", "json", "--diff", "nbody.cu"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(doc["files"][0]["kernels"][0]["reason"], reason);
}
