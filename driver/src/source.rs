//! Loading an input file: pick the front end by extension, parse, and read the launch
//! configuration the file carries in a GPUVerify-style header comment.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use kpl::Kernel;
use kpl::Launch;

/// The languages autosync reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Kpl,
    /// CUDA C++ (`.cu`, `.cuh`), through `cuda`.
    Cuda,
}

impl Lang {
    /// The language a file's extension names (`.kpl`, `.cu`, `.cuh`).
    pub fn of(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "kpl" => Some(Lang::Kpl),
            "cu" | "cuh" => Some(Lang::Cuda),
            _ => None,
        }
    }

    /// The statement a barrier is written as in this language.
    pub fn barrier(self) -> &'static str {
        match self {
            Lang::Kpl => "barrier;",
            Lang::Cuda => "__syncthreads();",
        }
    }

    /// The statement a warp barrier is written as in this language.
    pub fn warp_barrier(self) -> &'static str {
        match self {
            Lang::Kpl => "warp_barrier;",
            Lang::Cuda => "__syncwarp();",
        }
    }
}

/// How to read a file, from the command line: `-I`, `-D`, `-U`, `-include`, `--alias`,
/// `--wrap`, and the launch the flags give (`--block-dim`, `--grid-dim`, `--param`,
/// `--warp-size`, `--launch symbolic`): the CUDA front end's own options, which `.kpl`
/// files use for the launch only.
pub type FrontEnd = cuda::Options;

/// A parsed input file.
pub struct Source {
    pub path: PathBuf,
    pub text: String,
    /// How `text` maps back to the file's bytes (for writing the fixed file).
    pub encoding: Encoding,
    pub lang: Lang,
    pub kernels: Vec<Kernel>,
    /// What the front end wants the user to know about each kernel (same order).
    pub notes: Vec<Vec<String>>,
    /// The user's names of each kernel's arrays (same order; empty for `.kpl`, whose
    /// names are the user's): reports use them, see [`Source::user_names`].
    pub arrays: Vec<Vec<cuda::ArrayOrigin>>,
    /// Kernels the front end could not lower (an unsupported construct in one kernel):
    /// reported as `unsupported`, while the others are checked and fixed.
    pub failed: Vec<FailedKernel>,
    /// The launch each kernel is checked for (same order as `kernels`): the flags over
    /// the header comment (`//--blockDim=... --gridDim=... --warp-sync=N`) over what the
    /// host code and `__launch_bounds__` say (CUDA). See [`Source::launch_of`].
    pub launches: Vec<Launch>,
    /// The launch given from outside the host code: the flags over the header comment.
    pub given: Launch,
    /// `--only-intra-group` in the same comment.
    pub only_intra_group: bool,
    /// The headers the file includes, in the front end's order (file 1, 2, ...): the
    /// files [`kpl::ir::FileSpan`]s of device code defined there point into, for
    /// reports at their real lines. Empty for `.kpl`.
    pub headers: Vec<Header>,
}

/// An included file as the front end read it.
#[derive(Clone, Debug)]
pub struct Header {
    /// As the include was resolved: next to the including file, or under an `-I` folder.
    pub path: PathBuf,
    pub text: String,
}

impl Source {
    /// The header a [`kpl::ir::FileSpan`] points into (`None` for the main file, 0).
    pub fn header(&self, file: u32) -> Option<&Header> {
        let i = usize::try_from(file).ok()?.checked_sub(1)?;
        self.headers.get(i)
    }
}

/// A kernel of the file that the front end could not lower.
#[derive(Debug)]
pub struct FailedKernel {
    pub name: String,
    pub error: InputError,
    /// How many of [`Source::kernels`] come before it in the file.
    pub position: usize,
}

/// A problem with the input, located in the file (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}:{col}: {message}")]
pub struct InputError {
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Loads a file: the front end its extension names, then the launch configuration of its
/// header comment. Errors are the file's (exit 2).
///
/// A file that is not UTF-8 (Latin-1 comments with `©` or `µ`, as old SDK files have) is
/// read as Latin-1: one character per byte, so columns are byte columns and
/// [`encode`] gives the bytes back unchanged outside autosync's edits.
pub fn load(path: &Path, front: &FrontEnd) -> Result<Source> {
    let Some(lang) = Lang::of(path) else {
        bail!(
            "{}: unknown file type (autosync reads CUDA `.cu`/`.cuh` files and `.kpl` kernels)",
            path.display()
        );
    };
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if is_binary(&bytes) {
        bail!(
            "{}: not a text file (it has a NUL byte in its first 8 KB)",
            path.display()
        );
    }
    let (text, encoding) = decode(bytes);
    parse(path, text, encoding, lang, front)
}

/// How much of a file is looked at for a NUL byte, as git and ripgrep do.
const BINARY_PROBE: usize = 8 << 10;

/// Whether a file's bytes are binary: a NUL byte in the first 8 KB (git's and ripgrep's
/// test). No source file has one; reading such a file as Latin-1 would echo raw bytes in
/// messages and call an object file "no kernel here".
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE)].contains(&0)
}

/// Loads a file from text that is not (or not yet) on disk: an editor's buffer
/// (`autosync lsp`). `path` is where the file is (includes are searched next to it, and
/// reports name it); `lang` its language. Everything else is as [`load`].
pub fn from_text(path: &Path, text: String, lang: Lang, front: &FrontEnd) -> Result<Source> {
    parse(path, text, Encoding::Utf8, lang, front)
}

/// The front end of `lang` on a file's text, then the launch configuration of its
/// header comment.
fn parse(path: &Path, text: String, encoding: Encoding, lang: Lang, front: &FrontEnd) -> Result<Source> {
    let mut failed = Vec::new();
    let mut arrays = Vec::new();
    let mut launches = Vec::new();
    let mut headers = Vec::new();
    let header = header_launch(&text).map_err(|message| InputError {
        path: path.display().to_string(),
        line: kpl::header::header_line_number(&text).unwrap_or(1),
        col: 1,
        message,
    })?;
    // The launch given from outside the host code: the flags win over the header.
    let given = front.launch.clone().over(&header);
    let (kernels, notes) = match lang {
        Lang::Kpl => {
            let ks = kpl::parse(&text).map_err(|e| InputError {
                path: path.display().to_string(),
                line: e.line,
                col: e.col,
                message: e.message,
            })?;
            let notes = vec![Vec::new(); ks.len()];
            launches = vec![given.clone(); ks.len()];
            (ks, notes)
        }
        Lang::Cuda => {
            let mut opts = front.clone();
            opts.launch = given.clone();
            // File-level errors (preprocessing, syntax) fail the file; a kernel that cannot
            // be lowered fails only itself.
            let t = cuda::translate_each(path, &text, &opts).map_err(|e| input_error(&e))?;
            headers = t
                .map
                .files
                .iter()
                .skip(1)
                .map(|f| Header {
                    path: f.path.clone(),
                    text: f.text.clone(),
                })
                .collect();
            failed = t
                .failed
                .iter()
                .map(|f| FailedKernel {
                    name: f.name.clone(),
                    error: input_error(&f.error),
                    position: f.position,
                })
                .collect();
            t.kernels
                .into_iter()
                .map(|l| {
                    arrays.push(l.arrays);
                    launches.push(l.launch);
                    (l.kernel, l.notes)
                })
                .unzip()
        }
    };
    let only_intra_group = kpl::header::header_only_intra_group(&text);
    let mut notes = notes;
    if only_intra_group {
        for n in &mut notes {
            n.push(
                "the file's header says `--only-intra-group` (GPUVerify): races between threads of \
                 different blocks are not checked"
                    .to_string(),
            );
        }
    }
    Ok(Source {
        path: path.to_path_buf(),
        text,
        encoding,
        lang,
        kernels,
        notes,
        arrays,
        failed,
        launches,
        given,
        only_intra_group,
        headers,
    })
}

fn input_error(e: &cuda::CudaError) -> InputError {
    InputError {
        path: e.file.display().to_string(),
        line: e.line,
        col: e.col,
        message: cuda_message(e),
    }
}

/// A front-end error as one message: what is wrong, the construct, what to do.
fn cuda_message(e: &cuda::CudaError) -> String {
    let mut m = e.message.clone();
    if !e.construct.is_empty() {
        m.push_str(&format!(" (in `{}`)", e.construct));
    }
    if let Some(h) = e.help.as_ref().filter(|h| !h.is_empty()) {
        m.push_str(&format!("\n  help: {h}"));
    }
    m
}

impl Source {
    /// The front end's notes about a kernel.
    /// Renames the arrays of a kernel's report to the user's names (a part of a merged
    /// array with its own index, the pointer variable of a helper's reserved name).
    pub fn user_names(&self, kernel: &str, report: &mut oracle::Report) {
        let Some(origins) = self.origins(kernel) else {
            return;
        };
        let find = |a: &str| origins.iter().find(|o| o.array == a);
        for r in &mut report.races {
            if let Some(o) = find(&r.array) {
                let index = r.witness.as_ref().and_then(|w| w.index);
                let (name, index) = o.user(index);
                r.array = name;
                if let Some(w) = &mut r.witness {
                    w.index = index;
                }
            }
        }
        for p in &mut report.benign {
            if let Some(o) = find(&p.array) {
                p.array = o.user(None).0;
            }
        }
        for n in &mut report.notes {
            *n = self.user_text(kernel, n);
        }
    }

    /// The user's names of a kernel's arrays, if it is one of the file's kernels.
    fn origins(&self, kernel: &str) -> Option<&[cuda::ArrayOrigin]> {
        self.kernels
            .iter()
            .position(|k| k.name == kernel)
            .and_then(|i| self.arrays.get(i))
            .map(Vec::as_slice)
    }

    /// `text` (a reason or note of the synthesis or the verifier, which name the KPL
    /// arrays in backquotes) in the user's names: each backquoted KPL array name, alone
    /// or indexed (`` `__smem` ``, `` `__smem[3]` ``), becomes the user's name
    /// (`` `sharedPos` ``). One pass over the text, so that a user's name that is another
    /// array's KPL name is not renamed twice. Merged arrays keep their KPL name (their
    /// first part's): the text does not say which part it means, and the front end's
    /// notes about them already name every part.
    pub fn user_text(&self, kernel: &str, text: &str) -> String {
        let Some(origins) = self.origins(kernel) else {
            return text.to_string();
        };
        let rename = |quoted: &str| {
            let end = quoted
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(quoted.len());
            match origins.iter().find(|o| o.array == quoted[..end]) {
                Some(o) if o.parts.len() == 1 => format!("{}{}", o.parts[0].0, &quoted[end..]),
                _ => quoted.to_string(),
            }
        };
        text.split('`')
            .enumerate()
            .map(|(i, piece)| {
                if i % 2 == 1 {
                    rename(piece)
                } else {
                    piece.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("`")
    }

    /// The user's name of a kernel's array (as [`Source::user_names`], without an index).
    pub fn user_array(&self, kernel: &str, array: &str) -> String {
        self.kernels
            .iter()
            .position(|k| k.name == kernel)
            .and_then(|i| self.arrays.get(i))
            .and_then(|os| os.iter().find(|o| o.array == array))
            .map_or_else(|| array.to_string(), |o| o.user(None).0)
    }

    /// The front end's options to read this file again (its fixed text): `front` with
    /// the launch the file was read with, flags over header.
    pub fn front_end(&self, front: &FrontEnd) -> FrontEnd {
        FrontEnd {
            launch: self.given.clone(),
            ..front.clone()
        }
    }

    /// The launch kernel `kernel` is checked for (the file's given launch for a name
    /// that is not one of its kernels: a kernel the synthesizer derived keeps its name).
    pub fn launch_of(&self, kernel: &str) -> Launch {
        match self.kernels.iter().position(|k| k.name == kernel) {
            Some(i) => self.launches[i].clone(),
            None => self.given.clone(),
        }
    }

    pub fn notes_of(&self, kernel: &str) -> &[String] {
        self.kernels
            .iter()
            .position(|k| k.name == kernel)
            .and_then(|i| self.notes.get(i))
            .map_or(&[], Vec::as_slice)
    }
}

pub use kpl::header::{header_launch, parse_block_dim, parse_dim3, parse_grid_dim};

/// The text encoding a source file was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// ISO 8859-1: every byte is the character of the same number.
    Latin1,
}

/// The text of a file's bytes: UTF-8 when they are, else Latin-1 (which any bytes are).
pub fn decode(bytes: Vec<u8>) -> (String, Encoding) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, Encoding::Utf8),
        Err(e) => (
            e.into_bytes().iter().map(|&b| char::from(b)).collect(),
            Encoding::Latin1,
        ),
    }
}

/// The bytes to write for `text` in `encoding`. A character Latin-1 cannot hold (none
/// that autosync inserts) is written as UTF-8.
pub fn encode(text: &str, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Latin1 => {
            let mut out = Vec::with_capacity(text.len());
            for c in text.chars() {
                match u8::try_from(u32::from(c)) {
                    Ok(b) => out.push(b),
                    Err(_) => out.extend_from_slice(c.to_string().as_bytes()),
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    #[test]
    fn latin1_round_trips_byte_for_byte() {
        let bytes = b"// \xa9 2010 \xb5s\nint x;\n".to_vec();
        let (text, enc) = decode(bytes.clone());
        assert_eq!(enc, Encoding::Latin1);
        assert!(text.contains('\u{a9}') && text.contains('\u{b5}'));
        assert_eq!(encode(&text, enc), bytes);
        let utf8 = "// \u{a9}\n".as_bytes().to_vec();
        assert_eq!(decode(utf8.clone()).1, Encoding::Utf8);
        assert_eq!(encode(&decode(utf8.clone()).0, Encoding::Utf8), utf8);
    }
}
