//! Issue #34, interruption (`oracle::interrupt`): cancelling a run's token interrupts the
//! verifier inside a solver query, and an interrupted check is no answer (never
//! "verified", never a race), while other runs go on untouched.

use std::time::{Duration, Instant};

use oracle::interrupt::Cancel;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, OracleError};

use crate::common::kernel;

/// Race-free, but proving it takes the solver one long query (seconds): with 32-bit
/// wrapping, `tid * p * q` is one-to-one only because `p` and `q` are odd.
const SLOW: &str = "kernel slow(shared A[], p, q) requires p % 2 == 1 && q % 2 == 1 {\n\
                    A[tid * p * q + p] = tid;\n\
                    }\n";

fn wrapping() -> CheckOptions {
    CheckOptions {
        arith: kpl::Arith::Wrap32,
        ..CheckOptions::default()
    }
}

#[test]
fn a_cancelled_check_stops_inside_its_query_and_is_no_answer() {
    let k = kernel(SLOW);
    let token = Cancel::new();
    let mut v = StaticVerifier::new(wrapping());
    // Cancelled from another thread (as a signal handler or the editor server does)
    // while this one is in the check.
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            token.cancel();
            Instant::now()
        })
    };
    let out = token.run(|| v.check(&k));
    let done = Instant::now();
    let cancelled = canceller.join().expect("the canceller does not panic");
    let took = done.saturating_duration_since(cancelled);
    assert!(matches!(out, Err(OracleError::Interrupted)), "{out:?}");
    assert!(
        took < Duration::from_millis(500),
        "the check went on for {took:?} after the cancel"
    );
    // The same verifier, asked again for another run, answers as a fresh one: nothing of
    // the interrupted check was kept.
    let started = Instant::now();
    let again = Cancel::new().run(|| v.check(&k)).expect("the verifier answers");
    let whole = started.elapsed();
    assert!(again.is_clean(), "{again:?}");
    // Else the cancel above did not come in the middle of the query.
    assert!(
        whole > Duration::from_millis(500),
        "the kernel is checked in {whole:?}: not slow enough"
    );
}

#[test]
fn a_check_under_a_cancelled_token_asks_nothing() {
    let k = kernel(SLOW);
    let token = Cancel::new();
    token.cancel();
    let started = Instant::now();
    let out = token.run(|| StaticVerifier::new(wrapping()).check(&k));
    assert!(matches!(out, Err(OracleError::Interrupted)), "{out:?}");
    assert!(started.elapsed() < Duration::from_millis(500));
    // The interpreter too.
    let out = token.run(|| oracle::dynamic::Interpreter::new(wrapping()).check(&k));
    assert!(matches!(out, Err(OracleError::Interrupted)), "{out:?}");
    // Another run is not cancelled with it.
    let fig2 = kernel("kernel fig2(shared A[]) {\n local x;\n x = A[tid + 1];\n A[tid] = x;\n}\n");
    let r = Cancel::new()
        .run(|| StaticVerifier::new(CheckOptions::default()).check(&fig2))
        .expect("the verifier answers");
    assert_eq!(r.races.len(), 1, "{r:?}");
}
