//! Compilation databases (`compile_commands.json`, as CMake's
//! `CMAKE_EXPORT_COMPILE_COMMANDS` and Bear write them, and clang-tidy and clangd read
//! them): for each source file, the front-end flags of its compiler command line.
//!
//! Entries have `directory`, `file`, and either `arguments` (a list) or `command` (one
//! string, split as a POSIX shell would). From nvcc and clang command lines we take
//! `-I`, `-isystem`, `--include-path` (`-I DIR`), `-D`/`--define-macro`,
//! `-U`/`--undefine-macro` and `-include`/`--pre-include`/`-pre-include`; every other
//! flag (`-std`, `-arch`, `-O2`, ...) is ignored, since the front end has one dialect.
//! Relative paths are relative to the entry's `directory`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::FrontEnd;

/// One entry as it is in the file.
#[derive(Deserialize)]
struct RawEntry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
}

/// One source file's flags.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// The file, absolute when the database's `directory` is.
    pub file: PathBuf,
    /// Its `-I`, `-D`, `-U` and `-include` flags (the other fields stay empty).
    pub flags: FrontEnd,
}

/// A loaded compilation database.
#[derive(Clone, Debug, Default)]
pub struct Database {
    pub entries: Vec<Entry>,
}

impl Database {
    /// `-p BUILD_DIR`: `BUILD_DIR/compile_commands.json`.
    pub fn load_dir(dir: &Path) -> Result<Database> {
        Database::load(&dir.join("compile_commands.json"))
    }

    /// `--compile-commands FILE`.
    pub fn load(path: &Path) -> Result<Database> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the compilation database {}", path.display()))?;
        Database::parse(&text).with_context(|| format!("in the compilation database {}", path.display()))
    }

    /// Parses the JSON text of a database.
    pub fn parse(text: &str) -> Result<Database> {
        let raw: Vec<RawEntry> =
            serde_json::from_str(text).context("not a JSON array of compile commands")?;
        let entries = raw.into_iter().map(entry).collect::<Result<Vec<_>>>()?;
        Ok(Database { entries })
    }

    /// The entry of `path` (compared after making both absolute and canonical), if any.
    pub fn lookup(&self, path: &Path) -> Option<&Entry> {
        let key = canonical(path);
        self.entries.iter().find(|e| canonical(&e.file) == key)
    }

    /// The `.cu` files of the database, in its order, each once.
    pub fn cu_files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for e in &self.entries {
            if e.file.extension().is_some_and(|x| x == "cu") && !out.contains(&e.file) {
                out.push(e.file.clone());
            }
        }
        out
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn entry(raw: RawEntry) -> Result<Entry> {
    let args = match (raw.arguments, raw.command) {
        (Some(a), _) => a,
        (None, Some(c)) => split_command(&c)?,
        (None, None) => bail!(
            "entry for {} has neither `arguments` nor `command`",
            raw.file.display()
        ),
    };
    let dir = &raw.directory;
    Ok(Entry {
        file: dir.join(&raw.file),
        flags: flags(&args, dir),
    })
}

/// The front-end flags of a compiler command line (the compiler itself is `args[0]`).
pub fn flags(args: &[String], dir: &Path) -> FrontEnd {
    let mut f = FrontEnd::default();
    let mut arch = None;
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        // (flag spellings, takes the next argument when not attached)
        let (value, used) = match option_value(a, args.get(i + 1)) {
            Some(x) => x,
            None => {
                i += 1;
                continue;
            }
        };
        let (kind, v) = value;
        match kind {
            Kind::Include => f.include_dirs.push(dir.join(v)),
            Kind::Define => {
                let (n, val) = v.split_once('=').unwrap_or((v.as_str(), "1"));
                f.defines.push((n.to_string(), val.to_string()));
            }
            Kind::Undefine => f.undefines.push(v),
            Kind::ForcedInclude => f.forced_includes.push(dir.join(v)),
            Kind::Arch => arch = arch_macro(&v).or(arch),
        }
        i += used;
    }
    // The target's `__CUDA_ARCH__` comes first: an explicit `-D__CUDA_ARCH__` wins.
    if let Some(a) = arch {
        f.defines.insert(0, ("__CUDA_ARCH__".to_string(), a));
    }
    f
}

/// `__CUDA_ARCH__` for an `-arch` value: `sm_80`, `compute_90`, `sm_90a` give 800 and
/// 900. `native`, `all` and lists name no single target: the predefined default stays.
fn arch_macro(v: &str) -> Option<String> {
    let digits = v.strip_prefix("sm_").or_else(|| v.strip_prefix("compute_"))?;
    let digits = digits.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u32 = digits.parse().ok()?;
    Some((n * 10).to_string())
}

#[derive(Clone, Copy)]
enum Kind {
    Include,
    Define,
    Undefine,
    ForcedInclude,
    /// The GPU target (`-arch=sm_80`): sets `__CUDA_ARCH__`.
    Arch,
}

/// Flags taking a value: the spellings that take it as the next argument, and the
/// prefixes that carry it attached (`-DX`, `--define-macro=X`).
const FLAGS: &[(Kind, &[&str], &[&str])] = &[
    (
        Kind::Include,
        &["-I", "-isystem", "--include-path", "-iquote"],
        &["-I", "-isystem", "--include-path=", "-iquote"],
    ),
    (
        Kind::Define,
        &["-D", "--define-macro"],
        &["-D", "--define-macro="],
    ),
    (
        Kind::Undefine,
        &["-U", "--undefine-macro"],
        &["-U", "--undefine-macro="],
    ),
    (
        Kind::ForcedInclude,
        &["-include", "--pre-include", "-pre-include"],
        &["--pre-include="],
    ),
    (
        Kind::Arch,
        &["-arch", "--gpu-architecture"],
        &["-arch=", "--gpu-architecture="],
    ),
];

/// The value of a flag at `a` (with `next` the following argument): the kind, the value,
/// and how many arguments it used; `None` for a flag we ignore.
fn option_value(a: &str, next: Option<&String>) -> Option<((Kind, String), usize)> {
    for (kind, separate, attached) in FLAGS {
        if separate.contains(&a) {
            return next.map(|n| ((*kind, n.clone()), 2));
        }
        for p in *attached {
            if let Some(v) = a.strip_prefix(p).filter(|v| !v.is_empty()) {
                // `-include` and `-isystem` start with `-I`: they are matched above
                // only when spelled alone; `-includeFOO` is not a flag we know.
                if *p == "-I"
                    && (a.starts_with("-include") || a.starts_with("-isystem") || a.starts_with("-iquote"))
                {
                    continue;
                }
                return Some(((*kind, v.to_string()), 1));
            }
        }
    }
    None
}

/// Splits a command string as a POSIX shell does (quotes and backslashes; no
/// expansions), which is how clang reads the `command` field.
pub fn split_command(s: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => bail!("unterminated ' in the command `{s}`"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => bail!("unterminated \" in the command `{s}`"),
                        },
                        Some(x) => cur.push(x),
                        None => bail!("unterminated \" in the command `{s}`"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split_command(r#"nvcc -DNAME="a b" -I 'x y' a\ b.cu"#).unwrap(),
            strings(&["nvcc", "-DNAME=a b", "-I", "x y", "a b.cu"])
        );
        assert!(split_command("nvcc '-DX").is_err());
    }

    #[test]
    fn nvcc_and_clang_flags() {
        let args = strings(&[
            "/usr/local/cuda/bin/nvcc",
            "-Iinc",
            "-isystem",
            "/sys",
            "--include-path=p",
            "-DA",
            "-D",
            "B=2",
            "--define-macro=C=3",
            "-UD",
            "--undefine-macro",
            "E",
            "-include",
            "pre.h",
            "-std=c++17",
            "-arch=sm_70",
            "-o",
            "k.o",
            "-c",
            "k.cu",
        ]);
        let f = flags(&args, Path::new("/b"));
        assert_eq!(
            f.include_dirs,
            vec![
                PathBuf::from("/b/inc"),
                PathBuf::from("/sys"),
                PathBuf::from("/b/p")
            ]
        );
        assert_eq!(
            f.defines,
            vec![
                ("__CUDA_ARCH__".to_string(), "700".to_string()),
                ("A".to_string(), "1".to_string()),
                ("B".to_string(), "2".to_string()),
                ("C".to_string(), "3".to_string())
            ]
        );
        assert_eq!(f.undefines, strings(&["D", "E"]));
        assert_eq!(f.forced_includes, vec![PathBuf::from("/b/pre.h")]);
    }

    #[test]
    fn the_target_architecture_sets_cuda_arch_unless_a_define_does() {
        let defines = |args: &[&str]| flags(&strings(args), Path::new("/b")).defines;
        let arch = |v: &str| ("__CUDA_ARCH__".to_string(), v.to_string());
        assert_eq!(defines(&["nvcc", "-arch=sm_80", "k.cu"]), vec![arch("800")]);
        assert_eq!(defines(&["nvcc", "-arch", "sm_90a", "k.cu"]), vec![arch("900")]);
        assert_eq!(
            defines(&["nvcc", "--gpu-architecture=compute_86", "k.cu"]),
            vec![arch("860")]
        );
        assert_eq!(defines(&["nvcc", "-arch=native", "k.cu"]), vec![]);
        // The define comes later, so it wins in the preprocessor.
        assert_eq!(
            defines(&["nvcc", "-D__CUDA_ARCH__=700", "-arch=sm_80", "k.cu"]),
            vec![arch("800"), arch("700")]
        );
    }

    #[test]
    fn entries_with_command_or_arguments() {
        let db = Database::parse(
            r#"[{"directory": "/b", "file": "a.cu", "command": "clang++ -DX=1 -c a.cu"},
                {"directory": "/b", "file": "/src/b.cu", "arguments": ["nvcc", "-UY", "b.cu"]},
                {"directory": "/b", "file": "c.cpp", "arguments": ["g++", "c.cpp"]}]"#,
        )
        .unwrap();
        assert_eq!(
            db.cu_files(),
            vec![PathBuf::from("/b/a.cu"), PathBuf::from("/src/b.cu")]
        );
        assert_eq!(
            db.entries[0].flags.defines,
            vec![("X".to_string(), "1".to_string())]
        );
        assert_eq!(db.entries[1].flags.undefines, strings(&["Y"]));
        assert!(Database::parse(r#"[{"directory": "/b", "file": "a.cu"}]"#).is_err());
        assert!(Database::parse("{}").is_err());
    }
}
