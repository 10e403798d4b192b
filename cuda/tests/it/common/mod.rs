//! Helpers shared by the CUDA front-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cuda::{CudaError, Options, Translation, translate};
use kpl::{Kernel, print};

/// The folder of the test kernels.
pub fn cuda_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("cuda")
}

pub fn options() -> Options {
    Options {
        include_dirs: vec![cuda_dir().join("include")],
        ..Options::default()
    }
}

/// Translates `src` as if it were a file of the test folder.
pub fn translate_text(src: &str) -> Result<Translation, CudaError> {
    translate(&cuda_dir().join("snippet.cu"), src, &options())
}

pub fn kernels(src: &str) -> Vec<Kernel> {
    match translate_text(src) {
        Ok(t) => t.kernels.into_iter().map(|l| l.kernel).collect(),
        Err(e) => panic!("{e}"),
    }
}

/// The KPL of every kernel of `src`.
pub fn lower_text(src: &str) -> String {
    print(&kernels(src))
}

/// Translates a file of the test folder.
pub fn translate_file(name: &str) -> Translation {
    let path = cuda_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    translate(&path, &text, &options()).unwrap_or_else(|e| panic!("{e}"))
}

/// `insta::assert_snapshot!` with the snapshots where they were before the tests became
/// one binary: `tests/snapshots/` beside this binary's folder (insta's default would be
/// `tests/it/snapshots/`), named `it__MODULE__NAME.snap` after the module path.
macro_rules! assert_snapshot {
    ($($arg:tt)*) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.bind(|| insta::assert_snapshot!($($arg)*));
    }};
}
pub(crate) use assert_snapshot;
