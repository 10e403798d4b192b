//! The front end's diagnostics: a location in the user's files, the construct at fault,
//! what went wrong and what to do about it.

use std::fmt;
use std::path::PathBuf;

/// What kind of problem a [`CudaError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The file does not parse as CUDA C++.
    Syntax,
    /// A preprocessor problem (a malformed directive or `#if` expression,
    /// runaway macro expansion).
    Preprocessor,
    /// Valid CUDA that the front end cannot lower soundly.
    Unsupported,
    /// The file cannot be read.
    Io,
}

/// A problem with the input, located in the file the user wrote (or the header it
/// includes). Never a panic: every path of the front end reports one of these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CudaError {
    pub kind: ErrorKind,
    /// The file the location is in (the main file or a header).
    pub file: PathBuf,
    /// 1-based line and column.
    pub line: u32,
    pub col: u32,
    /// The construct at fault, as written (shortened), e.g. `goto`, `#include "x.h"`.
    pub construct: String,
    pub message: String,
    /// What the user can do about it.
    pub help: Option<String>,
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )?;
        if !self.construct.is_empty() {
            write!(f, " (`{}`)", self.construct)?;
        }
        if let Some(h) = &self.help {
            write!(f, "; help: {h}")?;
        }
        Ok(())
    }
}

impl CudaError {
    pub fn new(
        kind: ErrorKind,
        file: PathBuf,
        (line, col): (u32, u32),
        construct: &str,
        message: impl Into<String>,
    ) -> CudaError {
        CudaError {
            kind,
            file,
            line,
            col,
            construct: shorten(construct),
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> CudaError {
        self.help = Some(help.into());
        self
    }
}

/// The first line of a construct, at most 60 characters.
pub fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 60 {
        format!("{}...", line.chars().take(57).collect::<String>())
    } else if text.trim().lines().count() > 1 {
        format!("{line} ...")
    } else {
        line.to_string()
    }
}
