//! Interruption: stopping a run in the middle of its solver work.
//!
//! A run (a `check` or `fix` of the command line, a check of the editor server) works
//! under a cancellation token, a [`Cancel`]. The token is the thread's *current* one
//! ([`Cancel::run`] makes it so for a closure; threads a run starts take it along): a
//! thread with none works under the process-wide token ([`Cancel::process`]), the one
//! the command line's signal handler cancels. Every token is cancelled when the
//! process-wide one is.
//!
//! Cancelling a token ([`Cancel::cancel`]):
//! - sets its flag, which the verifier and the synthesizer look at before each solver
//!   query ([`cancelled`]), so the run starts no new solver work;
//! - interrupts the Z3 contexts that work for it (`Z3_interrupt`, thread-safe): each
//!   context registers itself with the current token while it lives ([`Registration`]).
//!   Z3 drops an interrupt that comes while no query runs on the context, so the
//!   contexts of a cancelled token are interrupted again every few milliseconds until
//!   none is left (a query started between a look at the flag and the interrupt stops
//!   too).
//!
//! An interrupted query answers "unknown", which the verifier would take for a possible
//! defect: the answers of an interrupted run are never kept or shown. The verifier's
//! check returns [`crate::OracleError::Interrupted`] when the token was cancelled at
//! any time before it returns (and forgets its cache), and the callers drop the run.
//! A token stays cancelled for good.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::Duration;

/// A run's cancellation token: clones are the same token.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

/// The process-wide token (what a thread without a current token works under).
static PROCESS: LazyLock<Cancel> = LazyLock::new(Cancel::new);

thread_local! {
    /// The thread's current token; `None`: the process-wide one.
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// How often the contexts of a cancelled token are interrupted again.
const AGAIN: Duration = Duration::from_millis(10);

impl Cancel {
    /// A new token, not cancelled (but cancelled with the process-wide one).
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// The process-wide token: cancelling it cancels every run.
    pub fn process() -> &'static Cancel {
        &PROCESS
    }

    fn is_process(&self) -> bool {
        Arc::ptr_eq(&self.0, &PROCESS.0)
    }

    /// Whether this token (or the process-wide one) was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst) || PROCESS.0.load(Ordering::SeqCst)
    }

    /// Cancels the token: sets its flag and interrupts the Z3 contexts working for it
    /// (for the process-wide token: every context), now and every few milliseconds
    /// while any is left. Cancelling again does nothing more.
    pub fn cancel(&self) {
        if self.0.swap(true, Ordering::SeqCst) {
            return;
        }
        if interrupt_contexts(self) == 0 && !self.is_process() {
            return;
        }
        let token = self.clone();
        // No thread: the flag and the first interrupt still stop the run; only a query
        // that starts just as the flag is set would run to its limits.
        let _ = std::thread::Builder::new()
            .name("autosync-interrupt".to_string())
            .spawn(move || {
                loop {
                    std::thread::sleep(AGAIN);
                    // The process-wide token's thread goes on until the process ends:
                    // contexts made after the cancel are interrupted too.
                    if interrupt_contexts(&token) == 0 && !token.is_process() {
                        break;
                    }
                }
            });
    }

    /// Runs `f` with this token as the thread's current one (the previous one is back
    /// afterwards, also when `f` panics).
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Cancel>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        f()
    }
}

/// The thread's current token (the process-wide one when none was set).
pub fn current() -> Cancel {
    CURRENT
        .with(|c| c.borrow().clone())
        .unwrap_or_else(|| PROCESS.clone())
}

/// Whether the thread's current run was cancelled: no new solver work should start, and
/// what the run found so far is not an answer.
pub fn cancelled() -> bool {
    CURRENT.with(|c| match &*c.borrow() {
        Some(t) => t.is_cancelled(),
        None => PROCESS.is_cancelled(),
    })
}

/// A Z3 context registered with a token.
struct Entry {
    id: u64,
    /// The raw `Z3_context` (an address, so that the registry is `Send`).
    ctx: usize,
    token: Cancel,
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn registry() -> MutexGuard<'static, Vec<Entry>> {
    // The registry is plain data: a panic elsewhere leaves it usable.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Interrupts the contexts registered with `token` (every one for the process-wide
/// token); how many there were.
fn interrupt_contexts(token: &Cancel) -> usize {
    let entries = registry();
    let mut n = 0;
    for e in entries.iter() {
        if token.is_process() || Arc::ptr_eq(&e.token.0, &token.0) {
            interrupt(e.ctx);
            n += 1;
        }
    }
    n
}

fn interrupt(ctx: usize) {
    if let Some(ctx) = std::ptr::NonNull::new(ctx as *mut z3_sys::_Z3_context) {
        // SAFETY: `ctx` is a live context: it is registered (the registry's lock is held
        // by the caller) and a `Registration` is dropped, under the same lock, before
        // the context it holds can be deleted. `Z3_interrupt` may be called from any
        // thread while another one uses the context.
        unsafe { z3_sys::Z3_interrupt(ctx) };
    }
}

/// A Z3 context working for the thread's current token while this lives: cancelling the
/// token interrupts it. Holds a clone of the context, so the context outlives it.
pub struct Registration {
    id: u64,
    /// Keeps the context alive (a `z3::Context` is a counted reference) until the
    /// registration is gone.
    _ctx: z3::Context,
}

impl Registration {
    /// Registers `ctx` with the thread's current token (interrupted at once if the token
    /// is cancelled already).
    pub fn new(ctx: &z3::Context) -> Registration {
        let token = current();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let raw = ctx.get_z3_context().as_ptr() as usize;
        let mut entries = registry();
        // Under the lock, after the push: a cancel either sees the entry or came before.
        entries.push(Entry {
            id,
            ctx: raw,
            token: token.clone(),
        });
        if token.is_cancelled() {
            interrupt(raw);
        }
        drop(entries);
        Registration {
            id,
            _ctx: ctx.clone(),
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Before `_ctx` (and with it, maybe, the context) goes.
        registry().retain(|e| e.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_current_inside_run_only_and_cancels_for_good() {
        let t = Cancel::new();
        assert!(!cancelled());
        t.run(|| {
            assert!(Arc::ptr_eq(&current().0, &t.0));
            assert!(!cancelled());
            t.cancel();
            assert!(cancelled());
            // Another token is not cancelled with it.
            Cancel::new().run(|| assert!(!cancelled()));
        });
        assert!(!cancelled(), "the process-wide token is untouched");
        assert!(t.is_cancelled());
        t.cancel();
        assert!(t.is_cancelled());
    }

    #[test]
    fn a_registration_is_gone_with_its_guard() {
        let t = Cancel::new();
        let ctx = z3::Context::thread_local();
        let count = |t: &Cancel| {
            registry()
                .iter()
                .filter(|e| Arc::ptr_eq(&e.token.0, &t.0))
                .count()
        };
        let r = t.run(|| Registration::new(&ctx));
        assert_eq!(count(&t), 1);
        drop(r);
        assert_eq!(count(&t), 0);
    }
}
