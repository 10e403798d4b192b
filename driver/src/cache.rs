//! The persistent result cache (`--cache DIR`): the verifier's answers kept on disk, so
//! that checking an unchanged kernel again costs only loading its file (the front end
//! still runs: the key is what it produces).
//!
//! # What is cached
//!
//! Every answer of [`Oracle::check`]: the report (races, divergent barriers, notes,
//! benign pairs) or the error, exactly as the oracle returned it, before anything of
//! the source is applied to it (the front end's notes, the user's array names, merging
//! races at one place: [`crate::run::check_kernel`] does that on every run, from the
//! file as it is now). `check` asks one answer per kernel; `fix` one per placement its
//! synthesis tries (and the checks of the fixed text), so a `fix` of unchanged kernels
//! replays its earlier synthesis from the cache and only the placement solver runs.
//!
//! # The key
//!
//! An answer is stored under the SHA-256 of, in order (each part length-prefixed or
//! hashed to a fixed length, so no two lists of parts run together):
//!
//! 1. [`FORMAT`], the layout of the entries;
//! 2. the build of autosync: its version and the SHA-256 of the running executable's
//!    bytes ([`build_id`]), so that any rebuild (a changed verifier, front end or
//!    dependency) reads none of the entries an earlier build wrote;
//! 3. the oracle's configuration: the `Debug` form of everything of [`crate::Settings`]
//!    that the oracle is built from (which oracle, the solver budget) and of the whole
//!    [`oracle::CheckOptions`]: the launch (block and grid sizes, pinned parameters,
//!    relations, warp size, cooperative, where each fact came from), the arithmetic,
//!    `--no-benign-tolerance`, whether warps and race directions are worked out
//!    (`crate::run::oracle_config`, which names every field of `Settings`, so that a new
//!    one cannot be left out by accident, and takes `CheckOptions` whole);
//! 4. the key of the previous check of the same kernel by the same oracle, when the
//!    previous check was of the same kernel up to its barriers (see *History* below);
//! 5. the `Debug` form of the kernel asked about: the whole lowered KPL kernel (name,
//!    parameters, `requires`, every statement with its id, span and barrier place), not
//!    only its printed text, since reports carry the spans (lines, columns, byte offsets,
//!    the header a statement is in) of the statements they name.
//!
//! What is not in the key cannot change the answer: the file's text outside the kernel
//! matters through the kernel only (its spans move when text before it changes length,
//! and then it is a miss: answers carry positions, and the verifier's notes name lines
//! in their text, so an answer cannot be moved with the kernel); `fix`'s own options (cost model,
//! `--strip`, ...) choose which placements are asked about, and each placement is its
//! own kernel in the key.
//!
//! # History
//!
//! The static verifier keeps answers across the checks of one kernel with different
//! barriers (`oracle/src/verifier/cache.rs`), and through its resource limits an answer
//! may depend on what was asked before (an undecided query decided later, the share of
//! answers concrete runs gave). So a check's key includes the checks of the same kernel
//! (up to barriers: `Kernel::without_any_barriers`, the verifier's own cache key) that
//! came before it in the same oracle, through the previous key (4 above): the *n*-th
//! placement of a synthesis is the same entry only after the same *n − 1* placements.
//! When a kernel without barriers differs from the previous one, the verifier starts
//! afresh (its answers do not depend on the kernels checked before, ARCHITECTURE.md),
//! and so does the chain. On a miss after hits, the oracle behind the cache has not
//! seen the answers read from the cache: a fresh one is made and asked them again first
//! (their answers are not used), so that the miss is answered as a run without the
//! cache would answer it. A run that reads every answer from the cache asks nothing.
//!
//! # Entries
//!
//! `DIR/ab/cdef….json` (the key in hex, its first two digits a folder), a JSON object
//! with the format, the key and the answer. Written to a temporary file in the same
//! folder and renamed into place, so a reader sees a whole entry or none, and processes
//! sharing a folder at once only ever replace an entry by an equal one. An entry that
//! cannot be read, parsed, or is of another format or key is a miss (and written
//! again); an entry that cannot be written is counted ([`Counts::unstored`]) and the
//! run goes on. A hit sets the entry's modification time to now, so that entries not
//! used since a given time can be deleted (`find DIR -type f ! -newer MARK -delete`:
//! the GitHub Action keeps only what its last run used). Nothing else is ever deleted.

use std::fmt::{self, Debug, Write as _};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, Result};
use kpl::{Kernel, Label, LabelTree};
use oracle::{Oracle, OracleError, Report};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

/// The layout of the entries; part of every key.
pub const FORMAT: &str = "autosync result cache 1";

/// A folder of cached answers, shared by every file of a run (and by processes).
pub struct ResultCache {
    dir: PathBuf,
    build: String,
    hits: AtomicUsize,
    misses: AtomicUsize,
    unstored: AtomicUsize,
    /// Why the first entry that could not be written was not.
    store_error: Mutex<Option<String>>,
}

impl Debug for ResultCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultCache").field("dir", &self.dir).finish()
    }
}

/// What a run did with the cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Answers read from the cache.
    pub hits: usize,
    /// Answers computed (and stored, but for `unstored`).
    pub misses: usize,
    /// Computed answers that could not be written.
    pub unstored: usize,
    /// Why the first of those could not.
    pub store_error: Option<String>,
}

impl ResultCache {
    /// The cache in `dir` (created when missing) for this build of autosync.
    pub fn open(dir: &Path) -> Result<ResultCache> {
        let build = build_id().map_err(anyhow::Error::msg)?;
        ResultCache::for_build(dir, &build)
    }

    /// The cache in `dir` for the build named `build` (tests name their own builds).
    pub fn for_build(dir: &Path, build: &str) -> Result<ResultCache> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(ResultCache {
            dir: dir.to_path_buf(),
            build: build.to_string(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            unstored: AtomicUsize::new(0),
            store_error: Mutex::new(None),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The hits and misses so far.
    pub fn counts(&self) -> Counts {
        Counts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            unstored: self.unstored.load(Ordering::Relaxed),
            store_error: self.store_error.lock().ok().and_then(|e| e.clone()),
        }
    }

    /// The default folder of `autosync lsp`: `$XDG_CACHE_HOME/autosync` when that is
    /// set to an absolute path, else the platform's cache folder (`~/.cache/autosync`,
    /// `~/Library/Caches/autosync` on macOS, `%LOCALAPPDATA%\autosync` on Windows).
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let base = var("XDG_CACHE_HOME").or_else(|| {
            if cfg!(windows) {
                var("LOCALAPPDATA")
            } else if cfg!(target_os = "macos") {
                var("HOME").map(|h| h.join("Library").join("Caches"))
            } else {
                var("HOME").map(|h| h.join(".cache"))
            }
        })?;
        Some(base.join("autosync"))
    }

    /// A key's first parts: the format, the build and what is asked (`what`).
    fn key(&self, what: &str) -> KeyWriter {
        let mut k = KeyWriter(Sha256::new());
        k.text(FORMAT);
        k.text(&self.build);
        k.text(what);
        k
    }

    fn path(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir.join(&hex[..2]).join(format!("{}.json", &hex[2..]))
    }

    /// The answer stored under `key`, if a whole entry of this format and key is there
    /// (a hit, counted); anything else is `None` (not counted: the caller computes the
    /// answer and [`store`](Self::store)s it).
    fn load<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        let entry: Entry<T> = serde_json::from_slice(&bytes).ok()?;
        if entry.format != FORMAT || entry.key != key.hex() {
            return None;
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        // Marks the entry used (for pruning by age); a read-only cache is still read.
        if let Ok(f) = File::options().write(true).open(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Some(entry.value)
    }

    /// Stores a computed answer (a miss, counted) under `key`.
    fn store<T: Serialize>(&self, key: &Key, value: &T) {
        self.misses.fetch_add(1, Ordering::Relaxed);
        let entry = Entry {
            format: FORMAT.to_string(),
            key: key.hex(),
            value,
        };
        if let Err(e) = self.write(&self.path(key), &entry) {
            self.unstored.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut first) = self.store_error.lock() {
                first.get_or_insert_with(|| format!("{e:#}"));
            }
        }
    }

    /// Writes an entry through a temporary file in its folder and a rename.
    fn write<T: Serialize>(&self, path: &Path, entry: &Entry<&T>) -> Result<()> {
        let folder = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(folder)
            .with_context(|| format!("cannot create a file in {}", folder.display()))?;
        serde_json::to_writer(&mut tmp, entry).context("cannot write an entry")?;
        tmp.flush().context("cannot write an entry")?;
        tmp.persist(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

/// One file of the cache.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry<T> {
    format: String,
    key: String,
    value: T,
}

/// A SHA-256 key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key([u8; 32]);

impl Key {
    fn hex(&self) -> String {
        self.0.iter().fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }
}

/// A key being made: parts of text (length-prefixed) and `Debug` forms (hashed first,
/// so of fixed length too).
struct KeyWriter(Sha256);

impl KeyWriter {
    fn text(&mut self, s: &str) {
        self.0.update((s.len() as u64).to_le_bytes());
        self.0.update(s.as_bytes());
    }

    fn debug(&mut self, v: &dyn Debug) {
        self.0.update(digest_of(v).0);
    }

    fn key(&mut self, k: Option<&Key>) {
        match k {
            Some(k) => {
                self.0.update([1]);
                self.0.update(k.0);
            }
            None => self.0.update([0]),
        }
    }

    fn finish(self) -> Key {
        Key(self.0.finalize().into())
    }
}

/// The SHA-256 of `v`'s `Debug` form, streamed (a kernel's can be long).
fn digest_of(v: &dyn Debug) -> Key {
    struct Hashing(Sha256);
    impl fmt::Write for Hashing {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = Hashing(Sha256::new());
    let _ = write!(h, "{v:?}");
    Key(h.0.finalize().into())
}

/// This build of autosync: its version and the SHA-256 of the running executable,
/// read once per process. On Linux the executable is read through `/proc/self/exe`,
/// which is the file that runs even when a rebuild has replaced it on disk since.
pub fn build_id() -> Result<String, String> {
    static ID: OnceLock<Result<String, String>> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = match Path::new("/proc/self/exe") {
            p if cfg!(target_os = "linux") && p.exists() => p.to_path_buf(),
            _ => std::env::current_exe().map_err(|e| format!("cannot find the autosync executable: {e}"))?,
        };
        let mut file = File::open(&exe)
            .map_err(|e| format!("cannot read the autosync executable {}: {e}", exe.display()))?;
        let mut h = Sha256::new();
        std::io::copy(&mut file, &mut h)
            .map_err(|e| format!("cannot read the autosync executable {}: {e}", exe.display()))?;
        Ok(format!(
            "{} {}",
            env!("CARGO_PKG_VERSION"),
            Key(h.finalize().into()).hex()
        ))
    })
    .clone()
}

/// An oracle that answers from the cache what it can, and asks `make`'s oracles the
/// rest (see the module's doc: *History*).
pub(crate) struct CachedOracle {
    cache: Arc<ResultCache>,
    name: &'static str,
    /// The digest of the oracle's configuration (the key's part 3).
    config: Key,
    make: Box<dyn Fn() -> Box<dyn Oracle>>,
    /// The oracle asked on misses, and how many checks of `history` it has answered
    /// (in order, from fresh); `None` once the kernel changed (a fresh one is made).
    inner: Option<(Box<dyn Oracle>, usize)>,
    /// A second oracle for [`Oracle::uniform_places`], which the checks never share.
    aside: Option<Box<dyn Oracle>>,
    /// The digest of the kernel without barriers of the last check.
    base: Option<Key>,
    /// The checks of that kernel (up to barriers) so far, each with its key.
    history: Vec<(Kernel, Key)>,
}

impl CachedOracle {
    pub(crate) fn new(
        cache: Arc<ResultCache>,
        config: &dyn Debug,
        make: Box<dyn Fn() -> Box<dyn Oracle>>,
    ) -> CachedOracle {
        let first = make();
        CachedOracle {
            cache,
            name: first.name(),
            config: digest_of(config),
            make,
            inner: Some((first, 0)),
            aside: None,
            base: None,
            history: Vec::new(),
        }
    }

    /// The oracle that answers a miss, once it has been asked every check of
    /// `history` it has not answered (answers read from the cache, which it did not
    /// see): then it is where a run without the cache would be.
    fn behind(&mut self) -> &mut dyn Oracle {
        let (oracle, answered) = self.inner.get_or_insert_with(|| ((self.make)(), 0));
        for (k, _) in &self.history[*answered..] {
            // Only to bring the oracle where a run without the cache would be.
            let _ = oracle.check(k);
        }
        *answered = self.history.len();
        oracle.as_mut()
    }
}

impl Oracle for CachedOracle {
    fn name(&self) -> &'static str {
        self.name
    }

    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        let base = digest_of(&kernel.without_any_barriers());
        if self.base != Some(base) {
            // Another kernel: the oracle behind starts afresh (a run without the
            // cache would, its answers about one kernel not depending on the others),
            // and so does the chain of keys.
            self.base = Some(base);
            self.history.clear();
            if self.inner.as_ref().is_some_and(|(_, answered)| *answered > 0) {
                self.inner = None;
            }
        }
        let mut w = self.cache.key("check");
        w.0.update(self.config.0);
        w.key(self.history.last().map(|(_, k)| k));
        w.debug(kernel);
        let key = w.finish();
        let answer = match self.cache.load::<Result<Report, OracleError>>(&key) {
            Some(a) => a,
            None => {
                let a = self.behind().check(kernel);
                if let Some((_, answered)) = &mut self.inner {
                    *answered += 1;
                }
                self.cache.store(&key, &a);
                a
            }
        };
        self.history.push((kernel.clone(), key));
        answer
    }

    fn uniform_places(&mut self, kernel: &Kernel, tree: &LabelTree, after: &[Label]) -> Option<Vec<bool>> {
        self.aside
            .get_or_insert_with(|| (self.make)())
            .uniform_places(kernel, tree, after)
    }

    /// Replays are not cached: they depend on the kernel, the options and the report
    /// alone (no history), and run on every check, warm or cold.
    fn replay(&mut self, kernel: &Kernel, report: &mut Report) {
        self.aside
            .get_or_insert_with(|| (self.make)())
            .replay(kernel, report)
    }
}

#[cfg(test)]
mod tests;
