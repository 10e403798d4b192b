//! Ctrl-C (SIGINT) and SIGTERM (and SIGHUP): the run stops within a second, exit code
//! 130.
//!
//! On the first signal the process-wide token of `driver::interrupt` is cancelled: the
//! Z3 queries running are interrupted and no new solver work starts, so the files in
//! flight come back at once as unfinished (the driver's `Interrupted`), and the files
//! not started are not started. What was finished is printed as usual (in file order,
//! with the summary over those files), then a note on stderr, and the process exits
//! with 130. Should the work not come back within [`DEADLINE`] (a long step that does
//! not look at the token), the process exits from here all the same, with what was
//! printed by then. A second signal exits at once.
//!
//! `fix` writes a file only through [`write_unless_interrupted`]: never once the
//! interrupt is noticed, and never half (the write is atomic, and an exit waits for a
//! write in flight). A file is left as it was or completely fixed.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use driver::interrupt::Cancel;

/// The exit code of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: i32 = 130;

/// How long the work has to come back after the first signal.
const DEADLINE: Duration = Duration::from_millis(800);

/// How long an exit waits for output or a file write in flight before it goes anyway
/// (a write to a full pipe may never end).
const GRACE: Duration = Duration::from_millis(300);

/// Held (shared) while a file is written; an exit takes it for good.
static WRITES: RwLock<()> = RwLock::new(());

/// Held while a file's report is printed, so that an exit does not cut one.
pub static OUTPUT: Mutex<()> = Mutex::new(());

/// Signals received.
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

/// Files of the command, and the ones not finished when it was interrupted.
static FILES: AtomicUsize = AtomicUsize::new(0);
static UNFINISHED: AtomicUsize = AtomicUsize::new(0);

/// Handles SIGINT, SIGTERM and SIGHUP from now on (not for `lsp`, whose client ends it).
pub fn install() {
    let handled = ctrlc::set_handler(|| {
        if SIGNALS.fetch_add(1, Ordering::SeqCst) == 0 {
            Cancel::process().cancel();
            // The handler returns at once: a second signal must get through.
            let deadline = std::thread::Builder::new()
                .name("autosync-deadline".to_string())
                .spawn(|| {
                    std::thread::sleep(DEADLINE);
                    exit(
                        "autosync: interrupted: stopped the work still running (files not reported \
                          above were left as they were)\n",
                    );
                });
            if deadline.is_err() {
                exit("autosync: interrupted\n");
            }
        } else {
            exit("autosync: interrupted again: stopped at once\n");
        }
    });
    if let Err(e) = handled {
        // The run goes on, as it would without the handler.
        crate::print_stderr(format!("autosync: warning: cannot handle Ctrl-C: {e}\n").as_bytes());
    }
}

/// Whether the run was interrupted.
pub fn interrupted() -> bool {
    Cancel::process().is_cancelled()
}

/// Runs `write` (a file's write) unless the run was interrupted: `None` then, and
/// nothing was written.
pub fn write_unless_interrupted<T>(write: impl FnOnce() -> T) -> Option<T> {
    let _writing = WRITES.read().unwrap_or_else(|e| e.into_inner());
    if interrupted() {
        return None;
    }
    Some(write())
}

/// The command has `n` files.
pub fn set_files(n: usize) {
    FILES.store(n, Ordering::SeqCst);
}

/// One more file was not finished.
pub fn unfinished() {
    UNFINISHED.fetch_add(1, Ordering::SeqCst);
}

/// After a command that was interrupted: the note (how many files were finished), exit
/// code 130.
pub fn finish(fix_writes: bool) -> ! {
    let (files, unfinished) = (FILES.load(Ordering::SeqCst), UNFINISHED.load(Ordering::SeqCst));
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut note = format!(
        "autosync: interrupted: {} of {files} file{} finished",
        files.saturating_sub(unfinished),
        plural(files)
    );
    if fix_writes && unfinished > 0 {
        note.push_str(&format!(
            "; the {unfinished} other{} left as {} {}",
            plural(unfinished),
            if unfinished == 1 { "it" } else { "they" },
            if unfinished == 1 { "was" } else { "were" }
        ));
    }
    note.push('\n');
    exit(&note)
}

/// Prints `note` on stderr and exits with 130, once no file is being written (and none
/// will be) and no report is half printed, or after [`GRACE`].
fn exit(note: &str) -> ! {
    let until = Instant::now() + GRACE;
    let _no_writes = loop {
        match WRITES.try_write() {
            Ok(g) => break Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => break Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::sync::TryLockError::WouldBlock) => break None,
        }
    };
    let _no_output = loop {
        match OUTPUT.try_lock() {
            Ok(g) => break Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => break Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::sync::TryLockError::WouldBlock) => break None,
        }
    };
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(note.as_bytes()).and_then(|_| err.flush());
    // `process::exit` lets one thread exit; another one calling it waits.
    std::process::exit(EXIT_CODE)
}
