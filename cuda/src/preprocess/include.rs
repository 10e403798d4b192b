//! `#include` and forced includes: finding the header in the file's folder and the
//! `-I` folders, skipping well-known system headers not found, `#pragma once`, and
//! noting what was not read.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::{CudaError, ErrorKind};
use crate::source_map::SourceFile;

use super::lexer::{Kind, Tok};
use super::{MAX_INCLUDE_DEPTH, Preprocessor, canonical, is_known_header};

impl Preprocessor<'_> {
    pub(super) fn include(
        &mut self,
        file: usize,
        line: &str,
        range: Range<usize>,
        rest: &[Tok],
    ) -> Result<(), CudaError> {
        let expanded;
        let rest = if rest.first().is_some_and(|t| t.kind == Kind::Ident) {
            expanded = self
                .expand_list(rest.to_vec(), &[], 0)
                .map_err(|m| self.error(ErrorKind::Preprocessor, file, range.start, line, m))?;
            &expanded[..]
        } else {
            rest
        };
        let (name, quoted) = match rest.first() {
            Some(t) if t.kind == Kind::Literal && t.text.starts_with('"') => {
                (t.text.trim_matches('"').to_string(), true)
            }
            Some(t) if t.is("<") => {
                let inner: String = rest[1..]
                    .iter()
                    .take_while(|t| !t.is(">"))
                    .map(|t| t.text.as_str())
                    .collect();
                (inner, false)
            }
            _ => {
                return Err(self
                    .error(
                        ErrorKind::Preprocessor,
                        file,
                        range.start,
                        line,
                        "malformed `#include`",
                    )
                    .with_help("write `#include \"file.h\"` or `#include <file.h>`"));
            }
        };
        let here = self.files[file]
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs: Vec<PathBuf> = Vec::new();
        if quoted {
            dirs.push(here.clone());
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        if !quoted && !is_known_header(&name) {
            // `#include <common.h>` for a header next to the file (benchmark collections
            // are built with `-I` of their own folders): the including file's folder last.
            dirs.push(here);
        }
        let found = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file());
        let Some(path) = found else {
            if !quoted || is_known_header(&name) || is_known_header(name.rsplit('/').next().unwrap_or("")) {
                return Ok(());
            }
            // A header of the project or a library that is not on this machine
            // (`cudaEGL.h`, a generated config): what it declares is unknown, which the
            // lowering over-approximates (unknown calls, arbitrary values).
            let place = self.place(file, range.start);
            self.notes.push(format!(
                "{place}: cannot find the included file \"{name}\": a kernel that uses a name nothing \
                 declares (which may be one of its macros) is unsupported, and the kernels are checked for \
                 every launch (one may be in its macros); pass its folder with `-I DIR` to read it"
            ));
            self.missing
                .push(format!("the header \"{name}\", which was not found"));
            return Ok(());
        };
        let key = canonical(&path);
        if self.once.contains(&key) {
            return Ok(());
        }
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(self.error(
                ErrorKind::Preprocessor,
                file,
                range.start,
                line,
                "`#include` nested too deeply (does the header include itself without a guard?)",
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            self.error(
                ErrorKind::Io,
                file,
                range.start,
                line,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.files.push(SourceFile::new(path, text, Some((file, range))));
        let index = self.files.len() - 1;
        self.depth += 1;
        let r = self.run_file(index);
        self.depth -= 1;
        // Keep the last line of the header apart from what follows the directive.
        if !self.out.ends_with('\n') {
            let at = self.files[index].text.len();
            self.emit_newline(index, at);
        }
        r
    }

    /// `-include FILE`: the file is read as if the main file began with an `#include`
    /// of it (its errors are located at the main file's start when it cannot be read).
    pub(super) fn force_include(&mut self, path: &Path) -> Result<(), CudaError> {
        let bytes = std::fs::read(path).map_err(|e| {
            self.error(
                ErrorKind::Io,
                0,
                0,
                "-include",
                format!("cannot read the forced include {}: {e}", path.display()),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.files
            .push(SourceFile::new(path.to_path_buf(), text, Some((0, 0..0))));
        let index = self.files.len() - 1;
        self.depth += 1;
        let r = self.run_file(index);
        self.depth -= 1;
        if !self.out.ends_with('\n') {
            let at = self.files[index].text.len();
            self.emit_newline(index, at);
        }
        r
    }
}
