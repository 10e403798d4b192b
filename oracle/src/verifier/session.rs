//! The kernel's own Z3 context and incremental solver: a context's history steers the
//! solver, so each kernel gets one, and every term of a check is made inside it.

/// A Z3 context of one kernel, with its incremental solver. The context works for the
/// run that made the session: cancelling the run's token interrupts it
/// (`crate::interrupt`).
pub(super) struct Z3Session {
    pub(super) ctx: z3::Context,
    pub(super) solver: z3::Solver,
    _interruptible: crate::interrupt::Registration,
}

impl Z3Session {
    pub(super) fn new() -> Z3Session {
        let ctx = fresh_context();
        let solver = in_context(&ctx, z3::Solver::new);
        let _interruptible = crate::interrupt::Registration::new(&ctx);
        Z3Session {
            ctx,
            solver,
            _interruptible,
        }
    }
}

/// Moves values across `z3::with_z3_context`'s `Send + Sync` bound. That bound keeps Z3
/// objects of one context out of threads that use another; here everything stays on
/// the calling thread (the closure runs synchronously on it, and the values come back
/// to it), so nothing is shared across threads.
pub(super) struct SameThread<T>(T);
// SAFETY: see above; the value never leaves the thread that created it.
unsafe impl<T> Send for SameThread<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for SameThread<T> {}

/// A new Z3 context (the `z3` crate only makes them through `with_z3_config`).
pub(super) fn fresh_context() -> z3::Context {
    z3::with_z3_config(&z3::Config::new(), || SameThread(z3::Context::thread_local())).0
}

/// Runs `f` with `ctx` as the thread's Z3 context: every term and solver made inside
/// belongs to it.
pub(super) fn in_context<R>(ctx: &z3::Context, f: impl FnOnce() -> R) -> R {
    let f = SameThread(f);
    z3::with_z3_context(ctx, move || {
        let f = f;
        SameThread((f.0)())
    })
    .0
}
