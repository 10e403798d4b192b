//! The static verifier: proves kernels free of data races and barrier divergence under
//! the semantics of `docs/semantics.md`, or reports every racing pair of statements and every
//! divergent barrier with a witness from the SMT model. Sound: "clean" means no race and
//! no divergence exists under the semantics, for every launch the options allow, every
//! parameter value the `requires` clauses allow and every memory content.
//!
//! The pipeline, one module each:
//! 1. [`symbolic`] runs one symbolic thread over the kernel (predicated execution, with
//!    `return`/`break`/`continue` as flags) and records, for every access, barrier and
//!    `assume`, index and predicate terms over the thread id, the launch, the parameters
//!    and the iteration numbers of the enclosing loops. Loops need no invariants:
//!    induction variables get closed forms (also with a loop-invariant conditional
//!    step), geometric steps are tabulated, powers of two with an exponent linear in the
//!    iteration numbers, or bounded unknowns,
//!    other loop-carried values are per-iteration unknowns, and trip counts are
//!    constants when the guard folds at every iteration, else unknowns shared by the
//!    threads of a block when the loop's guard is uniform.
//! 2. [`term`] holds those terms and their uniformity classes (the uniformity analysis:
//!    which values all threads of a block or grid agree on).
//! 3. [`encode`] instantiates terms for one thread copy at chosen iteration numbers in Z3.
//! 4. [`queries`] (with the digit lemmas of [`radix`]) asks, per pair of accesses and per race type (same iteration of all
//!    common loops; different iterations of common loop `j`), whether two threads can
//!    touch the same element with no barrier executing in between, and per barrier
//!    whether two threads of a block can disagree on reaching it. Across iterations both
//!    directions (the first access's iteration earlier, or the second's) are queried
//!    until one races; under `CheckOptions::race_directions` (for synthesis) both
//!    always, so that `Race::forward_only` says which only race forward. Before any query,
//!    [`affine`] compares indices that are affine in the ids, the launch sizes and the
//!    parameters without the solver (gcd, bounds, mixed-radix and exact tests): a pair
//!    that no two distinct threads can ever access at one element needs no query (its
//!    race types would all be unsatisfiable, so the verdict is the same). With a fixed
//!    block, [`unrolled`] decides a pair's race types within a block by enumerating
//!    its loops' iterations and the block's threads (a stage of a sorting network is a
//!    permutation at every stride): unsatisfiable when no two threads meet, or, for the
//!    same-iteration type, when barrier counts separate every meeting. Once the
//!    solver has found a few race types of a check satisfiable, `concrete` runs the
//!    kernel in the interpreter and answers the race types the run shows (satisfiable,
//!    with the run's instance as witness) without the solver; a "cannot race" is always
//!    the solver's proof or an enumeration's.
//!
//! Per kernel, what does not depend on barriers (which race types of a pair can happen
//! at all, cross-block races) is cached, since the synthesizer checks one kernel many
//! times with different barriers; race types that an unconditional barrier always
//! separates need no query.
//!
//! # Deviations and shortcuts (each has a test in `tests/it/verifier_semantics.rs`)
//!
//! - **Memory is abstract.** Every read (and the value an atomic returns) is an arbitrary
//!   value, also when the thread wrote the element before. So Faial's Test 5 DRF kernel
//!   (`A[tid] = tid; x = A[tid]; A[x] = 0;`) is reported racy, as Faial does. Values are
//!   never followed through memory: what thread 0 stores in a shared variable is not
//!   what the others read from it after the barrier (only that they all read the same).
//! - **Values all threads read alike** (seed 000's equality abstraction, restricted to
//!   what needs no invariant; [`symbolic`]'s `read_class` and `ReadCache`, tests in
//!   `tests/it/verifier_uniform.rs`). Two refinements of "every read is arbitrary":
//!   1. *One read instance, one value per block.* A read whose index is block-uniform
//!      (`s_tile[0]`, `lens[bid]`) is an unknown shared by the threads of a block at
//!      each instance (the same iterations of its loops): a block-class atom, so the
//!      uniformity analysis sees `if (tile >= n) break;` or `for (b = 0; b < len; ...)`
//!      after `if (tid == 0) tile = ..; barrier;` as uniform and the barriers under them
//!      need no divergence query.
//!   3. *Input arrays.* A global array that no statement writes or updates atomically
//!      has contents fixed for the launch: every read of it, whatever its index, is
//!      one uninterpreted function of the index (`AtomKind::Input`), shared by both
//!      thread copies, every block and iteration, and by the `assume`s that state
//!      preconditions about it (same index, same value; tests in
//!      `tests/it/verifier_preconditions.rs`). KPL names the memory a front end cannot
//!      tell apart with one array (the CUDA front end merges the pointers a pointer
//!      may choose between, and under `--alias` every global pointer parameter), so a
//!      write through any alias makes the array written. This is exact in the
//!      interpreter's semantics (the memory contents are fixed per run).
//!   2. *Value numbering.* A read of an element that an earlier read named with the
//!      same index term, within one iteration of the innermost loop and with no write
//!      or atomic on the array anywhere in between (on any path), gets the earlier
//!      read's value (`base + tid` and `base + bdim + tid` with `base` read twice from
//!      shared memory stay apart; `if (tid == 0) x = s[0]; else x = s[0];` is one
//!      value). A thread that did not execute the earlier read (another branch) has no
//!      value of its own there, so the earlier read's unknown may stand for the
//!      element's contents at the later one.
//!
//!   Soundness: in the lock-step trace (the interpreter's execution) the threads that
//!   execute one read instance read one element at one step, and between two reads of
//!   a thread with no write statement on the array in between no thread writes it, so
//!   both are exact, races or not; blocks are never interleaved there. Under delayed
//!   visibility (or on hardware, where threads drift apart within a barrier interval)
//!   two such reads can differ only through a write to the element by another thread,
//!   or by the reader, in the same barrier interval as one of the reads (a write in an
//!   earlier interval is visible to both; value numbering never spans a loop iteration,
//!   so reads in different instances of an interval are not equated), and that write
//!   races with a read of a thread other than the writer, with no barrier between them:
//!   a race that the unchanged race queries report. A thread's own earlier write in the
//!   interval (seen by it, not by the other) is such a race too. Global arrays: threads
//!   of other blocks are unordered, so their writes to an element a block reads are
//!   cross-block races, reported by the cross-block queries, which never share a
//!   block-class value between their copies (`--only-intra-group` assumes there are
//!   none; the SDV model never makes another block's writes visible anyway). Atomics:
//!   only plain reads are refined; the value an atomic returns stays arbitrary per
//!   thread (the repetition-free counters need that), and an atomic on an element in
//!   the interval of a plain read of it races with that read. Warps: lock step inside a
//!   warp (`--warp-size`) or `__syncwarp()` changes nothing here, since the two reads
//!   of one instance are one step, and value numbering is about one thread. So the
//!   refinement can only hide a race whose indices depend on values that an earlier
//!   race changed; the earlier race is reported (the verdict is `race` either way), and
//!   the hidden one shows once it is fixed. Not refined (reads stay separate
//!   unknowns): reads of one element through different index terms (`s[0]` and
//!   `s[tid - tid]`), reads with a write to the array between them (even one that
//!   cannot touch the element), reads across a loop boundary or in different
//!   iterations of a loop even when nothing writes the array in between, and reads
//!   with a thread-varying index in different threads.
//! - **Two-thread assumptions** (GPUVerify's `__other_int`, `__uniform_int`,
//!   `__distinct_int`, tests in `tests/it/verifier_preconditions.rs`): `assume p;` with
//!   `other(e)` in `p`, outside loops, holds for every ordered pair of distinct threads
//!   (of one block or two) that both reach it. A query asserts it for its two thread
//!   copies in both orders, when both reach it (both predicates) before their
//!   occurrences; the screening query leaves it out (more pairs: sound). Inside a loop
//!   the two threads of a query may be at different iterations, so there `other(e)`
//!   is an arbitrary value (an assumption then constrains less: sound), while the
//!   interpreter checks each pair at each execution. A precondition whose reads are of
//!   an array the kernel writes reads an arbitrary value (the CUDA front end: another
//!   block may have written it before this one reads it). Preconditions (`requires`
//!   and `assume`s outside loops before the first write, atomic or barrier) that no
//!   launch satisfies, or no two distinct threads
//!   of one when some `assume` is two-thread, are an error (`NoFeasibleRun`), never a
//!   vacuous "verified".
//! - **Divergent barriers synchronize nothing.** A barrier orders two accesses only when
//!   it is proved never divergent; then being enabled for one thread means being enabled
//!   for the block. This is the interpreter's rule (a barrier not reached by all threads
//!   of the block is reported and does not clear the access logs). Divergence is checked
//!   first and reported on its own.
//! - **Which barrier instances count** is under-approximated: for a pair of occurrences,
//!   each never-divergent barrier is tried in the iterations of the earlier occurrence, in
//!   those of the later one, and in the next iteration of each loop around the earlier
//!   one, always in the *first* iteration of the barrier's own other loops. A barrier
//!   that executes between the two only at some other iteration (for instance
//!   `if (j == 3) barrier;` inside an inner loop) is not credited: a possible false
//!   alarm, never a missed race.
//! - **Loop-carried values** without a closed form are arbitrary at every iteration but
//!   the first, constrained only by the loop guard (and, for geometric sequences with a
//!   symbolic start, by monotonicity and one-step relations between the iterations a
//!   query mentions), and by the loop invariants [`invariants`] proves (candidates
//!   generated from the loop and the kernel's `invariant` statements, GPUVerify's
//!   `__invariant`: base case and inductive step over one thread with every read
//!   arbitrary, Houdini-style, within `Limits::invariants` units; an annotated one not
//!   proved, or not at the head of a loop body, is reported in a note and ignored,
//!   never assumed: tests in `tests/it/verifier_invariants.rs`). Generated invariants are
//!   proved only when a check without them finds a possible defect (they only add
//!   assumptions, so a check that finds none without them finds none with them;
//!   `tests/it/verifier_lazy_invariants.rs`). Symbolic doubling from a
//!   non-constant start is exact (`init · 2^(m·k)`, unbounded arithmetic). Possible
//!   false alarms, never missed races.
//! - **Values after a loop** are the closed form at the thread's trip count, which is
//!   not tied to the guard becoming false (so `i` after `while (i < n) i++;` is any
//!   value `≥ 0`; a guard that is a constant at every iteration, as in
//!   `while (i < 3) i++;`, gives the exact count), constrained by the proved invariants
//!   (which hold at every loop head, the exit one included), and arbitrary after a loop
//!   left by `break` unless no `break` follows an assignment to the variable (then the
//!   head value of the iteration the thread left in: `trip - 1` when it broke out). This keeps **non-terminating loops** sound: nothing assumes that a loop
//!   exits.
//! - **Bitwise operations of two variables** (`tid ^ n`) are unknowns with sound bounds;
//!   with one constant operand they are exact, and so are they when one operand is
//!   built from constants and one power-of-two loop counter (`tid & (s - 1)`,
//!   `tid & ~(s - 1)`, `tid ^ j` for `s`, `j` halved or doubled from a power of two):
//!   split per exponent, or bit by bit for thread/block ids of a concrete launch below
//!   2^16. Exponents that no thread inside the loops reaches (past a loop's constant
//!   trip count) and above 40 give arbitrary values instead (possible false alarms).
//!   Equal indices of a race query also get equal low 24 bits when both are built from
//!   such ids, constants, powers of two and `+ - * & | ^ ~ << >>` (implied facts that
//!   make sorting networks and butterflies fast to refute), and, when both accesses
//!   have the same index and it is a mixed-radix number (`tid + 32·bid + 16384·bx`,
//!   each digit's coefficient above what the smaller digits reach over their ranges),
//!   equal digits (`affine::mixed_radix_digits`; implied, so exact;
//!   `tests/it/verifier_digits.rs`). With symbolic extents (`b*T*V + t*V + v` from
//!   `b = i / (T*V)`, `t = (i / V) % T`, `v = i % V`, permuted layouts, loop variables
//!   below their bound, grid-stride steps) the digit lemmas of [`radix`] say the same:
//!   implications whose premises (nonzero extents, digits in range, the access's
//!   predicate) are part of the fact, so exact too (`tests/it/verifier_radix.rs`).
//!   A race query whose index or predicate multiplies or divides by parameters is
//!   first asked in small instances (the parameters pinned to small values,
//!   `Checker::small_instances`): a witness there is one of the query, and an
//!   instance without one proves nothing, so only the time to a witness changes.
//! - **`assume`** constrains an occurrence only through the `assume`s before it in the
//!   same iterations of its loops; an `assume` that fails later in the run is ignored,
//!   so races before it are still reported.
//! - **Parameters** range over their C type (`Term::Param` carries it; untyped `.kpl`
//!   parameters are `u32`); under `Wrap32` (untyped `.kpl` with `--wrap`) only narrow
//!   unsigned types are bounded, every value being a 32-bit unsigned one. **Launch sizes**
//!   are `≥ 1` and within CUDA's limits (1024 threads per block in x/y, 64 in z, and
//!   1024, or the launch bounds, in all: that product is added to a query lazily, when a
//!   model breaks it; 2^31 - 1 blocks in x, 65535 in y/z). Under `Wrap32`, iteration numbers are 64-bit and below
//!   `2^62` (loops with more iterations are not modelled).
//! - **No overflow** (the stated assumption of the default mode, `docs/semantics.md`):
//!   `+ - * <<` are exact on integers. Conversions (`Term::Cast`) are exact: dropped when
//!   [`term::Builder::range`] shows the operand in the type, one `ite` when it can wrap
//!   at most once, `x - 2^w·k` for a fresh `k` otherwise. A grid index
//!   `blockIdx.d * blockDim.d (+ threadIdx.d)` is assumed below 2^31, and the grid's
//!   width `blockDim.d * gridDim.d` (a grid-stride loop's stride) too
//!   ([`term::MAX_GRID_THREADS`]) unless a concrete launch is larger, and with it
//!   `gridDim.d * y` and `blockIdx.d * y` for `0 <= y <= blockDim.d` (a warp's index in
//!   the grid, `blockIdx.x * meta_group_size()`, and the number of warps in the grid;
//!   twins `tests/corpus/indices/warpRowsGridStride*.cu`); a loop counter's
//!   conversion back to its type after a step is taken as the identity (`linear_in`),
//!   which is the same assumption for the counter.
//! - **Undefined operations**: `x / 0` and `x % 0` are an uninterpreted function of the
//!   dividend (the same value in every thread for the same dividend; the interpreter
//!   draws one such function per run), shifts by a negative amount or by 63 or more
//!   under `Unbounded` give arbitrary values.
//! - **Preconditions that can never hold** are an error (`OracleError::NoFeasibleRun`),
//!   decided once per kernel on a solver of its own before any other query.
//! - **Atomics** (seed 000, Sec. 4; tests in `tests/it/verifier_atomics.rs`): atomic/atomic
//!   pairs never race; an atomic and a plain access of the same element do. Memory that
//!   atomics update is read adversarially (any value, as all memory). Repetition-free
//!   counters: on an array that only `atomic_add`s of amounts that are never negative
//!   modify (syntactically: built from ids, sizes, parameters, iteration numbers,
//!   non-negative constants and conversions to unsigned types, which include values
//!   read through an unsigned type; the CUDA front end also converts the operand of an
//!   atomic on an unsigned element to its type), two distinct
//!   executions with positive amounts on one element claim disjoint ranges
//!   `[old, old + amount)`; likewise `(old - amount, old]` for arrays only such
//!   `atomic_sub`s modify, and `atomic_inc` with the largest bound (`0xffffffff`, which
//!   wraps only where an add of 1 would) counts as an add of 1 on arrays only such
//!   `atomic_inc`s modify. Plain writes of a `__shared__` counter are allowed when they
//!   set it up: outside loops, with a barrier every thread reaches (top level, nothing
//!   conditional before it) between them and every atomic of the counter. A shared
//!   counter is one per block: executions in two blocks are not apart. Unbounded
//!   arithmetic only, and assuming the counter never wraps around (seed 000 makes the
//!   same assumption): off under `Wrap32` and under `--wrap` on a CUDA file
//!   (`CheckOptions::wrapping`, where the front end wraps every value in its type and a
//!   counter may hand out one slot twice; `tests/it/semantics.rs`,
//!   `wrap_turns_off_the_repetition_free_counter_rule`). Every other atomic returns an arbitrary
//!   value: `atomic_inc` with another bound and `atomic_dec` wrap, and `atomic_exch`,
//!   `atomic_cas`, `atomic_min`/`max`, the bitwise ones, and counters mixing operations
//!   are not repetition-free (false alarms where the values happen to be distinct). The
//!   result of an atomic and a value read from memory have the type they are read
//!   through (`x = u32(A[i]);`, see *Typed reads* below); `unsigned long long` elements
//!   stay untyped (a count read from one may exceed its type: false alarm).
//! - **Typed reads** (`kpl::StmtKind::Read::ty`, `Atomic::ty`): the value is an atom
//!   with the facts `min(ty) <= v <= max(ty)`, encoded without a wrap-around unknown
//!   (`Cast(ty, atom)` is the atom itself, `AtomInfo::ty`); the old value of a
//!   repetition-free counter gets only `min(ty) <= v` (its lemma spreads executions
//!   apart, which an upper bound could make unsatisfiable). This is C's reading of an
//!   lvalue of the type: exact for memory written through it (the front end converts
//!   every store to the element type) and, since memory values are arbitrary anyway, a
//!   read through another type than the stores' is an arbitrary value of its own type
//!   (the read cache and the input functions are keyed by the type, so a punned read
//!   never shares a term with a read through another type). Under `Wrap32` the read is
//!   the masked value (`Builder::cast`). Tests: `tests/corpus/typed/`,
//!   `atomics/histogram_slots.cu`.
//! - **Benign write-write races are not races** (GPUVerify's default;
//!   `CheckOptions::no_benign_tolerance` turns it off): two plain writes of one element
//!   race only when the values they store may differ. A race query of two writes that
//!   is satisfiable is asked again with the two value terms, each instantiated for its
//!   own thread copy, required to differ; unsat means every race of that type stores
//!   equal values ([`queries::Outcome::Benign`], listed in `Report::benign`). Values read
//!   from memory are separate unknowns per thread (so `out[b] = s[0]` stays a race until
//!   reads of one element in one barrier interval are known equal). The interpreter
//!   applies the same rule to the values it computes.
//! - **Uninterpreted functions** (`@f(..)` in KPL, `AtomKind::Function`; tests
//!   `deviation_uninterpreted_functions_*` in `tests/it/verifier_semantics.rs`): one
//!   function per name for the launch, shared by both thread copies, every block and
//!   iteration, of which the verifier knows only congruence (equal arguments, equal
//!   values); the interpreter runs one fixed interpretation (a hash of the arguments,
//!   folded to a few values so that distinct arguments sometimes agree). The CUDA front
//!   end names floating-point values with them (`cuda/src/lower/float.rs`), under one
//!   assumption: each operation is a function of its operands at its place in the code
//!   (IEEE 754 rounding; `+ - * /` get functions of their own place, since the compiler
//!   may contract `a * b + c` differently at two places). Values it cannot name (a
//!   shuffle, an atomic's result) stay per-thread unknowns.
//! - **Warps** (seed 000, the re-sync method). Under `--warp-size N`, two threads of one
//!   warp race only within one write instruction, or when the later one is disabled at
//!   the earlier access (a divergent path); other re-sync points between them are not
//!   credited (possible false alarms). `__syncwarp()` (`warp_barrier`, warps of the
//!   `--warp-size` or 32) orders only threads of one warp, and is divergent when two
//!   threads of one warp disagree on reaching it. The screening queries ignore warps
//!   (more candidate pairs, never fewer).
//! - **Grid barriers** (`grid_barrier`, CUDA's `this_grid().sync()`; tests in
//!   `tests/it/grid.rs`, `tests/corpus/grid/`): the kernel is taken to be launched
//!   cooperatively (a grid sync is undefined otherwise). A grid barrier orders threads
//!   of different blocks only when it is proved never divergent over the whole grid
//!   (two threads of one block, then of two blocks); its instances are credited as for
//!   block barriers (the same under-approximation: possible false alarms only). The
//!   interpreter runs blocks one after another and separates their global accesses by
//!   grid phase; a block that runs later reads what earlier blocks wrote in later
//!   phases too (values only: memory contents are arbitrary here anyway), and when the
//!   blocks disagree on their grid barriers it reports the divergence and may see fewer
//!   races than the verifier, which orders nothing by a divergent barrier.
//! - **Last-block tickets** (`ticket_barrier`, which only the CUDA front end writes,
//!   `cuda/src/lower/ticket.rs`; tests `deviation_a_ticket_barrier_*` in
//!   `tests/it/grid.rs`, twins in `tests/corpus/ticket/`): ordered as a grid barrier
//!   where it is never divergent, and no divergence where it is (a block that skips
//!   its ticket leaves no block last; then it orders nothing). The front end writes it
//!   only where a fence, a one-thread ticket per block and a branch on the last ticket
//!   are proved, under a guard on the launch, *assuming* the counter is 0 when the
//!   kernel starts and that the last block's reads see what the other blocks fenced
//!   (the CUDA Programming Guide's pattern, without a fence on the reader's side).
//! - **Cooperative groups and surfaces** (the CUDA front end, `cuda/src/lower/builtins/`;
//!   tests in `tests/corpus/coop/` and `tests/corpus/language/surface*.cu`): a grid sync
//!   is a grid barrier (above); the sync of a tile smaller than a warp (or of a group of
//!   unknown size) is no synchronization and its divergence is not checked; texture
//!   fetches have no memory effect (a kernel writing what a texture reads in the same
//!   launch is not reported); all surfaces are one array, indexed
//!   `x + 2^20·(y + 2^20·z)` (distinct texels may share cells only in rows over 2^20
//!   bytes: more races, never fewer).
//! - **The launch comes from the file** (`cuda/src/host.rs`, `kpl::launch`; twins in
//!   `tests/corpus/launch/`): when a kernel is launched in the translation unit's host
//!   code, it is checked only for those launches (sizes, pinned parameters, relations,
//!   the conditions around them), the values host functions' callers in the file pass
//!   included. Unsound for a kernel or host function also called from another file;
//!   `--launch symbolic` checks every launch. Host arithmetic is assumed not to overflow
//!   (unsigned wrap-around included), and `assert`s before a launch to hold (even when
//!   `NDEBUG` removes them). A kernel with a grid sync that the file launches without a
//!   cooperative launch has its grid sync as no synchronization for that launch (CUDA
//!   leaves it undefined); one launched in ways not read is assumed launched
//!   cooperatively.
//! - **What the CUDA front end cannot see** (`cuda/src/lower/call.rs`, `lower/call/unknown.rs`,
//!   `lower/ptx.rs`; twins in `tests/corpus/soundness/`, lowering in `cuda/tests/it/lower.rs`,
//!   the differential property test `driver/tests/it/opaque_effects.rs`; the exact rules are
//!   in `docs/semantics.md`, "Soundness"):
//!   1. *Functions the file does not define* return arbitrary values and read and write
//!      some element of every array a pointer in an argument points into (struct
//!      arguments' pointers, what `&x` holds). An l-value argument may be taken by
//!      non-`const` reference unless a declaration in the file says otherwise: its place
//!      (every cell of an object) is read and written with an arbitrary value. A method
//!      declared but not defined, or of a type the file does not define, does the same
//!      to its object (read only for a `const` method); an object of such a type holds
//!      what its constructor and methods were given, over all assignments; one whose
//!      holdings are unknown reaches every shared and global array. *Assumed*: exactly
//!      the referent (a reference is not used to reach its neighbours); the callee does
//!      not name the file's global variables nor keep hidden shared memory; a pointer
//!      passed without a declaration saying `T *&` keeps its value (a declared `T *&`
//!      moves within its array), while an integer held as a constant (a never-assigned
//!      parameter of an inlined function) becomes a variable the call may change
//!      (unsupported across a loop); `__`-named intrinsics and a
//!      list of library value functions (`cg::reduce`, `std::min`, ...) only read.
//!      CUB's block-wide collectives are modelled by CUB's documented contract (atomic
//!      updates of some slot, a barrier, reads of some slot); *assumed*: blocks of more
//!      than one warp (CUB's one-warp specializations have no barrier inside).
//!   2. *Inline PTX* is modelled per instruction (loads, stores, atomics as
//!      `atomic_exch`, block and warp barriers, fences that vanish, register-only
//!      instructions); collective and unsized accesses, and addresses that are not a
//!      pointer into a known array, touch some element of every array the address may
//!      point into (of the instruction's state space); guard predicates are dropped for
//!      everything but barriers (a predicated barrier, a barrier number that is not a
//!      constant, `::cluster`, `mapa`, a `.local` store through an unknown address and
//!      any instruction not modelled make the kernel unsupported, with its opcode named).
//!      *Assumed*: a named barrier without a thread count is waited for by every thread
//!      of the block.
//!   3. *Names* resolve as C++ lookup does, by namespace and number of arguments; by
//!      argument types only to rule out what surely cannot be called, a CUDA vector type
//!      for a scalar or another vector type (`dim3` aside; `lower/call/overload.rs`; the
//!      file's structs, template and unknown types are never ruled out). The file's
//!      operators are called when an operand is a struct: the one that may take the
//!      operands, or the one exact match among several (else unsupported); a file struct
//!      operand that no operator autosync sees takes (a friend defined in its class) is
//!      unsupported unless it converts to a scalar, and `a = b` of one struct is the copy
//!      assignment unless the file's `operator=` takes that struct. And
//!      the file's declarations hide builtins of the same name (except
//!      `atomicAdd`-like and `make_*` functions, which files overload, and reserved
//!      `__` names), qualified calls reach builtins only through CUDA's namespaces and
//!      the file's functions only through the file's namespaces and structs.
//!   4. *`__syncthreads_or/and/count`* return a block-uniform value: a read, after the
//!      barrier, of a cell of its own in a shared array nothing writes (one read
//!      instance is one value per block, as for every block-uniform read).
//!   5. *Class templates* (`cuda/src/lower/types.rs`, `lower/call.rs`; twins in
//!      `tests/corpus/packed/`, errors in `cuda/tests/it/errors.rs`): a struct's `static
//!      const`/`constexpr` integer members are constants of each instantiation when
//!      their initializers evaluate (else `T::c` and `obj.c` read as arbitrary, with a
//!      note; the host reads them alike, `host.rs`). The contents of a member array of a
//!      thread's own struct are not tracked (its elements read as arbitrary); copying a
//!      struct with a member array from or to shared or global memory reads or writes
//!      every element (arbitrary values), and a member array of unknown length (or over
//!      1,024 elements) copied whole is unsupported. A call of a function returning a
//!      reference (`T &operator[](int)`, an accessor) is the place its final `return`
//!      names; a non-`const` reference returned from more than one `return`, and a
//!      non-`const` reference bound to the result of a function the file does not
//!      define, are unsupported. `__nv_bfloat16` and the fp8 types are untracked values
//!      of their real size (2 and 1 bytes).
//!   6. *Parts of the file that are not read* (`cuda/src/preprocess.rs`,
//!      `program.rs::check_syntax`, `host.rs`; twins in `tests/corpus/files/`, tests in
//!      `cuda/tests/it/files.rs`): an `#include "..."` that is not found and an `#error`
//!      are notes, and the file is read on; then a kernel naming anything nothing
//!      declares is unsupported, every syntax error fails the file, and the kernels are
//!      checked for every launch, and device code under an `#if` on a macro nothing
//!      read defines is unsupported. A syntax error in code without device code is a note
//!      (a kernel named there: every launch; a template kernel: unsupported).
//!      *Assumed*: `#include <...>` headers that are not found define no macro the
//!      kernels use (as before: a library header autosync skips).
//!   7. *Dynamic allocation* (`cuda/src/lower/alloc.rs`; twins in `tests/corpus/alloc/`):
//!      `malloc`/`new` memory is the thread's own private array, sound because a pointer
//!      loaded from memory is unsupported.
//!   8. *Tensor cores* (`cuda/src/lower/builtins/wmma.rs`; twins in `tests/corpus/wmma/`):
//!      `load_matrix_sync` is each lane's read of an arbitrary element of the tile, and
//!      `store_matrix_sync` each lane's write of an arbitrary element of its own part of
//!      it, the parts of the lanes disjoint and assigned by one unknown rotation per
//!      warp (unsupported: shapes, layouts or element types not written out in the
//!      fragment's type, sub-byte elements, a pointer to elements of another size).
//!      *Assumed*: the whole warp executes them (a call under a warp-splitting condition
//!      is not reported), warps of 32 threads; two stores of one warp are not known to
//!      partition the tile alike (possible false alarms).
//!   9. *Asynchronous copies* (`cuda/src/lower/in_flight.rs`, `lower/builtins/async_copy.rs`;
//!      twins in `tests/corpus/async/`, unsupported cases in `cuda/tests/it/errors.rs`):
//!      a copy's reads of its source and writes (arbitrary values) of its destination
//!      are in every barrier interval from the call to the wait that completes it (they
//!      are repeated after each barrier while it is pending, and `fix` places no barrier
//!      there). A group's copy gives each thread one arbitrary destination cell that it
//!      copies when an unknown function of the cell and of a value the group shares at
//!      that call names its rank (any thread may copy any cell, two threads never one
//!      cell). Completion follows CUDA's batches (`wait_prior<N>`, `__pipeline_wait_prior`),
//!      a `cuda::pipeline`'s oldest stage (`consumer_wait`) and a `cuda::barrier`'s phase
//!      (`arrive_and_wait`, a block barrier when `init` gave it the block's thread count);
//!      a wait completes a copy only where it is certain to follow the call and its
//!      commit. A copy in flight into the next iteration of a counted loop (double
//!      buffering) is pending again from the top of the next body, with its arguments at
//!      the previous counter value (only a call in the body itself, whose arguments change
//!      only with the counter; the group's share-out keyed by the counter, so the call and
//!      its continuation agree). Unsupported: a copy in flight at a jump, at the end of
//!      any other loop's iteration, two iterations after its call, or at the kernel's end;
//!      a split `arrive`/`wait`; `__mbarrier_*`. A `__shared__ cuda::barrier`'s `init` is
//!      a write of it and arrivals atomic updates (so a use not ordered after `init`
//!      races); its count is used only when thread 0 surely runs the `init` at the
//!      kernel's top level.
//!      *Not reported*: a thread reading the destination of its own copy before waiting
//!      for it (not a race between threads). *Assumed*: every thread of the group calls a
//!      group's copy with the same arguments (CUDA requires it). A pipeline shared by a
//!      block is taken as one per thread (possible false alarms).
//! - **`--only-intra-group`** (`CheckOptions::only_intra_group`, from a GPUVerify
//!   header): races between threads of different blocks are not checked, by request;
//!   the CLI notes it in every report of such a file.
//! - **Symbolic launches are one-dimensional** in the dimensions the kernel never names:
//!   without `--block-dim`, a kernel that only uses `tid`/`tid.x` is checked for blocks
//!   of any size `bdim.x × 1 × 1` (as the interpreter's default launches are). Sizes and
//!   parameters that a `requires` pins (`requires bdim == 256`) count as given.
//! - **Solver gave up** (out of its resource units, `unknown`, or the check's budget
//!   of units is spent; see [`Limits`]): the pair (or barrier) is reported as a defect
//!   without a witness, with a note. Limits are Z3 resource units, not time, and each
//!   kernel has a Z3 context of its own, so the answer depends on the kernel and the
//!   options only (`tests/it/solver_limits.rs` checks it under load). Known residue: a
//!   few term tables are keyed by the address of a term, so which Z3 terms a kernel
//!   creates first can still differ between two checks of it in one process; the unit
//!   counts of a query may then differ slightly (seen once, on a 1 M-unit sorting
//!   network query). Nothing is ever `Unsupported`: every construct of the IR is
//!   encoded exactly or over-approximated.

pub mod affine;
mod candidates;
mod concrete;
pub mod encode;
mod fingerprint;
pub mod invariants;
mod lanes;
pub mod queries;
pub mod radix;
mod solver;
pub mod symbolic;
pub mod term;
mod unrolled;

use std::collections::{BTreeSet, HashMap, HashSet};

use kpl::{Kernel, Space, StmtId};

use crate::{Access, BenignPair, CheckOptions, Divergence, Oracle, OracleError, Race, Report, Witness};
pub use queries::{Attempt, Limits};
use queries::{Checker, Meter, Order, Outcome, Scope, Separation};
use symbolic::{AccessFact, Origin, Summary};
use term::Class;

/// The static verifier (the `static` oracle).
pub struct StaticVerifier {
    pub opts: CheckOptions,
    /// Solver limits in resource units: an undecided query counts as a possible defect.
    /// Race types are first tried within [`Limits::first`], and only the ones still
    /// undecided and still relevant get [`Limits::query`].
    pub limits: Limits,
    /// Screen the accesses of arrays whose per-pair queries take long with grouped
    /// queries ([`Checker::may_race`]); off only to measure what it saves.
    pub screening: bool,
    /// Rule out pairs with the solver-free dependence test ([`affine`]) before any
    /// query; off only to check that it changes no verdict.
    pub dependence_test: bool,
    /// Rule out race types of a pair within a block by enumerating its iterations and
    /// the block's threads ([`unrolled`]); off only to check that it changes no
    /// verdict.
    pub unrolled_test: bool,
    /// Under `--warp-size`, ask threads of different warps and threads of one warp in
    /// two queries (seed 000's two-pass method) instead of one (its re-sync method, the
    /// default: measured faster on the warp-synchronous reductions, see
    /// `benches/README.md`).
    pub warp_two_pass: bool,
    /// Prove the loop invariants only once a check without them finds a possible
    /// defect ([`Oracle::check`]); off only to check that it changes no verdict.
    pub lazy_invariants: bool,
    /// Ask the race queries of a kernel on two threads ([`lanes`]) once its pairs have
    /// at least this many race types (`usize::MAX`: never; tests set 0 to exercise the
    /// second lane on small kernels).
    pub lane_min_types: usize,
    /// Run the kernel once the solver has found this many race types of a check
    /// satisfiable, and answer the race types the run shows without the solver
    /// ([`concrete`]); `usize::MAX`: never (only to check that it changes no verdict;
    /// tests set 1 to run small kernels).
    pub concrete_after: usize,
    cache: Option<Cache>,
}

/// [`Cache::seen`]: the pairs asked once, and those of the second lane.
type Seen = (
    HashSet<(StmtId, StmtId, Order)>,
    Option<HashSet<(StmtId, StmtId, Order)>>,
);

/// Answers that stay true while only barriers change, with the resource limit they
/// were computed under (an `Unknown` may be decided with more units).
struct Cache {
    /// The kernel without its block and grid barriers.
    key: Kernel,
    /// What the answers below depend on beyond the kernel's text ([`fingerprint`]): a
    /// barrier can change it, and then they are dropped.
    facts: u64,
    /// The kernel's own Z3 context and incremental solver: a context's history (the
    /// terms it has seen) steers the solver, so a kernel's answers would otherwise
    /// depend on the kernels checked before it on the same thread.
    z3: std::rc::Rc<Z3Session>,
    /// Same-block race types of a pair, ignoring barriers (unsat: impossible whatever
    /// the barriers).
    same: HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    /// Cross-block race types of a pair, ignoring (grid) barriers.
    cross: HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    /// Same-block race types already checked once with barriers.
    seen: HashSet<(StmtId, StmtId, Order)>,
    /// Per race type of a pair, where the unrolled test ([`unrolled`]) found two
    /// threads meeting (`None`: the test does not apply, or met too often).
    unrolled: HashMap<(StmtId, StmtId, Order), Option<unrolled::Meetings>>,
    /// Pairs whose same-iteration race type the unrolled test found separated by the
    /// barriers of the current check.
    separated: usize,
    /// Race types ruled out with the barriers of the current check (unsat, same block
    /// then across blocks): a check without loop invariants leaves them to the check
    /// with them (see [`Cache::after_first_pass`]). Emptied at the start of every check,
    /// since the barriers may have changed.
    synced: HashSet<(StmtId, StmtId, Order, Scope)>,
    /// Pairs that cannot race at all (see [`Checker::may_race`]), per array screened.
    screen: Option<Screen>,
    /// Whether the preconditions can hold (barriers do not change them).
    feasible: Option<bool>,
    /// What became of each loop's candidate invariants (barriers do not change them).
    invariants: Option<Vec<Vec<invariants::Verdict>>>,
    /// The answers of the second lane's arrays, with its own Z3 session, when the
    /// kernel's race queries run on two threads ([`lanes`]).
    lane: Option<Box<Cache>>,
    /// Race types the last check answered from runs of the kernel ([`concrete`]).
    shown: usize,
    /// The share of satisfiable answers runs gave in the last check of this kernel
    /// that ran it (barriers do not change the kernel's runs much, so a kernel whose
    /// runs missed its races is not run again: [`concrete::RUN_WORTH`]).
    run_yield: Option<usize>,
}

impl Cache {
    fn new(key: Kernel, facts: u64, z3: std::rc::Rc<Z3Session>) -> Cache {
        Cache {
            key,
            facts,
            z3,
            same: HashMap::new(),
            cross: HashMap::new(),
            seen: HashSet::new(),
            unrolled: HashMap::new(),
            separated: 0,
            synced: HashSet::new(),
            screen: None,
            feasible: None,
            invariants: None,
            lane: None,
            shown: 0,
            run_yield: None,
        }
    }

    /// Keeps, of a check without the loop invariants, only what holds with them too:
    /// the unsatisfiable answers (the invariants only add assumptions; the barrier
    /// answers of the check are in `synced`). Satisfiable and undecided answers are
    /// dropped, the pairs asked once are as they were before it (`seen`), and the Z3
    /// session is a fresh one, so that the check with the invariants runs as if the
    /// first had not been (but for the queries it need not ask again). The first pass
    /// screens no array, so the screens are as they were.
    fn after_first_pass(&mut self, seen: Seen) {
        self.z3 = std::rc::Rc::new(Z3Session::new());
        self.same.retain(|_, (out, _)| matches!(out, Outcome::Unsat));
        self.cross.retain(|_, (out, _)| matches!(out, Outcome::Unsat));
        self.seen = seen.0;
        if let Some(lane) = &mut self.lane {
            lane.after_first_pass((seen.1.unwrap_or_default(), None));
        }
    }

    /// The pairs asked once so far, of this cache and of its second lane's.
    fn seen(&self) -> Seen {
        (self.seen.clone(), self.lane.as_ref().map(|l| l.seen.clone()))
    }
}

fn with_notes(mut report: Report, notes: Vec<String>) -> Report {
    report.notes.extend(notes);
    report
}

/// Pairs of accesses (smaller statement id first) that the screening queries proved
/// unable to race, within a block and across blocks.
#[derive(Default)]
struct Screen {
    /// The arrays whose screen was weighed ([`RacePhase::screen_if_worth`]).
    arrays: HashSet<String>,
    /// Those of them that were screened.
    ran: BTreeSet<String>,
    same: HashSet<(StmtId, StmtId)>,
    cross: HashSet<(StmtId, StmtId)>,
}

fn pair_key(a: &AccessFact, b: &AccessFact) -> (StmtId, StmtId) {
    (a.stmt.min(b.stmt), a.stmt.max(b.stmt))
}

/// Screens one array's accesses (one grouped query per scope, plus one per pair that
/// may race): the pairs left unnamed need no per-pair query.
fn screen_array(ck: &Checker, sum: &Summary, array: &str, many_blocks: bool, budget: u64, out: &mut Screen) {
    let accs: Vec<&AccessFact> = sum.accesses.iter().filter(|a| a.array == array).collect();
    let global = accs.first().is_some_and(|a| a.space == Space::Global);
    // Many pairs racing without barriers (a synchronized kernel): the screen cannot
    // pay off, give up early.
    let limit = 1 + accs.len() / 16;
    let mut scopes = vec![(Scope::SameBlock, &mut out.same)];
    if global && many_blocks {
        scopes.push((Scope::CrossBlock, &mut out.cross));
    }
    for (scope, proved) in scopes {
        // The indices alone often keep threads apart (`A[tid + c * bdim]`): a cheap
        // query over them first, the full one only when it names a pair.
        let named = match ck.may_race(&accs, scope, 0, budget / 4, true) {
            Some(none) => Some(none),
            None => ck.may_race(&accs, scope, limit, budget, false),
        };
        let Some(named) = named else {
            continue;
        };
        for (i, a) in accs.iter().enumerate() {
            for (j, b) in accs.iter().enumerate().skip(i) {
                if conflicting(a, b) && !named.contains(&(i, j)) {
                    proved.insert(pair_key(a, b));
                }
            }
        }
    }
}

/// An array's accesses are screened once its remaining pair queries are expected (at
/// the rate of the ones done so far) to take more resource units than this: small
/// kernels never pay for a grouped query (much harder than a pair query when barriers
/// synchronize the array), large ones grow much more slowly. Measured in units, not
/// time, so that whether an array is screened (and so the verdict) never depends on
/// the machine.
const SCREEN_WORTH: f64 = 400_000.0;

/// The budget of a screen: a third of what it may save, within these bounds (a screen
/// that gives up must cost little next to the pair queries that follow it).
const SCREEN_BUDGET: (f64, f64) = (300_000.0, 3_000_000.0);

/// Race types of an array its rate is measured on before screening is considered.
const SCREEN_SAMPLE: usize = 4;

/// The share of an array's race types asked so far that may race above which its
/// screen waits (a screen pays when most pairs cannot race: it gives up once it has
/// named a few racing pairs).
const SCREEN_RACING: f64 = 0.25;

/// Per array: race types of its conflicting pairs, those asked so far, those of them
/// found racing, resource units spent on them (deep pairs have more race types, so they
/// count for more).
#[derive(Default)]
struct PairProgress {
    total: usize,
    done: usize,
    racing: usize,
    spent: u64,
}

impl PairProgress {
    /// Expected resource units for the pairs not asked yet.
    fn remaining(&self) -> f64 {
        if self.done < SCREEN_SAMPLE {
            return 0.0;
        }
        let rate = self.spent as f64 / self.done as f64;
        rate * self.total.saturating_sub(self.done) as f64
    }

    /// More than [`SCREEN_RACING`] of the race types asked so far may race: an
    /// unsynchronized array (a kernel stripped of its barriers), whose screen would only
    /// name pairs until it gives up.
    fn mostly_racing(&self) -> bool {
        self.racing as f64 > SCREEN_RACING * self.done as f64
    }
}

/// The cached outcome for `key`, or a fresh one from `run` when there is none yet or
/// the cached one is undecided under a smaller resource limit.
fn cached(
    map: &mut HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    key: (StmtId, StmtId, Order),
    limit: Attempt,
    run: impl FnOnce() -> Outcome,
) -> Outcome {
    if let Some((out, l)) = map.get(&key)
        && (!matches!(out, Outcome::Unknown(_)) || l.covers(limit))
    {
        return out.clone();
    }
    let out = run();
    map.insert(key, (out.clone(), limit));
    out
}

/// `run`'s outcome, or unsat when `ruled_out` says so (from an earlier pass of the same
/// check); an unsat outcome is added to it.
fn synced(
    ruled_out: &mut HashSet<(StmtId, StmtId, Order, Scope)>,
    key: (StmtId, StmtId, Order, Scope),
    run: impl FnOnce() -> Outcome,
) -> Outcome {
    if ruled_out.contains(&key) {
        return Outcome::Unsat;
    }
    let out = run();
    if matches!(out, Outcome::Unsat) {
        ruled_out.insert(key);
    }
    out
}

/// A Z3 context of one kernel, with its incremental solver.
struct Z3Session {
    ctx: z3::Context,
    solver: z3::Solver,
}

impl Z3Session {
    fn new() -> Z3Session {
        let ctx = fresh_context();
        let solver = in_context(&ctx, z3::Solver::new);
        Z3Session { ctx, solver }
    }
}

/// Moves values across `z3::with_z3_context`'s `Send + Sync` bound. That bound keeps Z3
/// objects of one context out of threads that use another; here everything stays on
/// the calling thread (the closure runs synchronously on it, and the values come back
/// to it), so nothing is shared across threads.
struct SameThread<T>(T);
// SAFETY: see above; the value never leaves the thread that created it.
unsafe impl<T> Send for SameThread<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for SameThread<T> {}

/// A new Z3 context (the `z3` crate only makes them through `with_z3_config`).
fn fresh_context() -> z3::Context {
    z3::with_z3_config(&z3::Config::new(), || SameThread(z3::Context::thread_local())).0
}

/// Runs `f` with `ctx` as the thread's Z3 context: every term and solver made inside
/// belongs to it.
fn in_context<R>(ctx: &z3::Context, f: impl FnOnce() -> R) -> R {
    let f = SameThread(f);
    z3::with_z3_context(ctx, move || {
        let f = f;
        SameThread((f.0)())
    })
    .0
}

impl StaticVerifier {
    pub fn new(opts: CheckOptions) -> StaticVerifier {
        StaticVerifier {
            opts,
            limits: Limits::DEFAULT,
            screening: true,
            dependence_test: true,
            unrolled_test: true,
            warp_two_pass: false,
            lazy_invariants: true,
            lane_min_types: lanes::LANE_MIN_TYPES,
            concrete_after: concrete::RUN_AFTER,
            cache: None,
        }
    }

    /// How many race types the last check answered from runs of the kernel instead of
    /// the solver ([`concrete`]), in both lanes.
    pub fn shown_by_runs(&self) -> usize {
        self.cache
            .as_ref()
            .map_or(0, |c| c.shown + c.lane.as_ref().map_or(0, |l| l.shown))
    }

    /// What the unrolled test ([`unrolled`]) ruled out for the last kernel checked
    /// (both lanes): race types within a block at which no two threads meet at all (in
    /// any check of the kernel so far), and pairs whose same-iteration meetings the
    /// barriers of the last check all separate.
    pub fn unrolled(&self) -> (usize, usize) {
        let count = |c: &Cache| {
            let apart = c
                .unrolled
                .values()
                .filter(|m| m.as_ref().is_some_and(Vec::is_empty))
                .count();
            (apart, c.separated)
        };
        self.cache.as_ref().map_or((0, 0), |c| {
            let (x, y) = count(c);
            let (p, q) = c.lane.as_ref().map_or((0, 0), |l| count(l));
            (x + p, y + q)
        })
    }

    /// The arrays of the last kernel checked whose accesses were screened, in any of
    /// its checks (what a screen saves or costs is only seen in resource units; this
    /// says whether one ran).
    pub fn screened(&self) -> Vec<String> {
        let screen = self.cache.as_ref().and_then(|c| c.screen.as_ref());
        screen
            .map(|s| s.ran.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl StaticVerifier {
    /// The queries [`Oracle::check`] would ask about `kernel`, one line each, without
    /// asking them (`autosync check --show queries`): a divergence query per barrier
    /// whose guard is not block-uniform, then for each pair of conflicting accesses (in
    /// program order) one query per race type and scope. Screening, which may spare some
    /// pair queries depending on solver time, is not applied; verdict paths are untouched.
    pub fn describe_queries(&self, kernel: &Kernel) -> Vec<String> {
        let sum = symbolic::summarize(kernel, &self.opts);
        let many_blocks = many_blocks(&sum) && !self.opts.only_intra_group;
        let mut out = Vec::new();
        for bar in &sum.barriers {
            if bar.grid && sum.class(&bar.pred) > Class::Grid {
                out.push(format!(
                    "divergence: grid barrier at {}:{} (threads of the grid)",
                    bar.span.line, bar.span.col
                ));
            } else if sum.class(&bar.pred) > Class::Block {
                out.push(format!(
                    "divergence: barrier at {}:{}",
                    bar.span.line, bar.span.col
                ));
            }
        }
        for (a, b) in conflicting_pairs(&sum.accesses) {
            let mut scopes = vec!["same block"];
            if a.space == Space::Global && many_blocks {
                scopes.push("different blocks");
            }
            for order in orders(a, b) {
                let order = match order {
                    Order::Intra => "same iteration".to_string(),
                    Order::Inter { depth, forward } => format!(
                        "different iterations at loop depth {depth} ({} first)",
                        if forward { "earlier" } else { "later" }
                    ),
                };
                for scope in &scopes {
                    out.push(format!(
                        "race on `{}`: {} {}:{} / {} {}:{}, {order}, {scope}",
                        a.array,
                        a.kind.word(),
                        a.span.line,
                        a.span.col,
                        b.kind.word(),
                        b.span.line,
                        b.span.col
                    ));
                }
            }
        }
        out
    }
}

/// Whether the launch can have two blocks (grids are one block wide in the dimensions a
/// symbolic launch leaves at 1).
fn many_blocks(sum: &Summary) -> bool {
    let mut known: i64 = 1;
    for d in 0..3 {
        match sum.grid_dim[d] {
            Some(g) => known = known.saturating_mul(g),
            None if sum.dims_used[d] => return true,
            None => {}
        }
    }
    known >= 2
}

/// Two accesses can race: same array, at least one writes, not both atomic.
fn conflicting(a: &AccessFact, b: &AccessFact) -> bool {
    a.array == b.array && a.kind.conflicts_with(b.kind)
}

fn access(a: &AccessFact) -> Access {
    Access {
        stmt: a.stmt,
        kind: a.kind,
        span: a.span,
    }
}

/// The race types of a pair: the same iteration of all common loops, and different
/// iterations of each common loop in either direction (one direction suffices for a
/// statement with itself, by symmetry of the two threads).
fn orders(a: &AccessFact, b: &AccessFact) -> Vec<Order> {
    let mut out = vec![Order::Intra];
    for depth in 1..=Summary::common_loops(&a.loops, &b.loops) {
        out.push(Order::Inter { depth, forward: true });
        if a.stmt != b.stmt {
            out.push(Order::Inter {
                depth,
                forward: false,
            });
        }
    }
    out
}

impl Oracle for StaticVerifier {
    fn name(&self) -> &'static str {
        "static"
    }

    /// Summarizes the kernel, then: preconditions, divergence, race queries per pair,
    /// report order. The per-kernel cache goes back into `self` on every return.
    ///
    /// Loop invariants are proved only when they can matter: a kernel whose
    /// queries are all unsatisfiable without them is verified without them (they only
    /// add assumptions, so every such answer stands with them too). Otherwise the check
    /// stops at its first possible defect, proves the invariants, and starts again
    /// with the unsatisfiable answers kept. A kernel with `invariant` statements has
    /// them proved first, since the user is told which were not.
    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        let mut sum = symbolic::summarize(kernel, &self.opts);
        let mut cache = self.cache_for(kernel, fingerprint::of(&sum));
        cache.synced.clear();
        cache.separated = 0;
        if let Some(lane) = &mut cache.lane {
            lane.synced.clear();
            lane.separated = 0;
        }
        let annotated = sum.invariants.iter().any(|l| {
            l.candidates
                .iter()
                .any(|c| matches!(c.origin, Origin::Annotated(_)))
        });
        if self.lazy_invariants
            && cache.invariants.is_none()
            && !annotated
            && !sum.invariants.is_empty()
            && let Some(out) = self.without_invariants(kernel, &sum, &mut cache)
        {
            self.cache = Some(cache);
            return out;
        }
        let z3 = cache.z3.clone();
        let out = in_context(&z3.ctx, || {
            // Loop invariants do not depend on barriers: proved once per kernel, before
            // any other query of its context.
            let budget = self.limits.invariants;
            let verdicts = cache
                .invariants
                .get_or_insert_with(|| invariants::prove(&sum, budget))
                .clone();
            invariants::apply(&mut sum, &verdicts);
            let notes = invariants::notes(&sum, &verdicts);
            self.check_in(kernel, &sum, Some(&verdicts), &mut cache, &z3.solver, false)
                .map(|r| with_notes(r, notes))
        });
        self.cache = Some(cache);
        out
    }

    /// The uniformity analysis of [`term`] on the kernel with a barrier after each label
    /// of `after`: a barrier whose predicate is of class grid or block needs no
    /// divergence query (the rule of [`divergences`]). No solver is involved.
    fn uniform_places(
        &mut self,
        kernel: &Kernel,
        tree: &kpl::LabelTree,
        after: &[kpl::Label],
    ) -> Option<Vec<bool>> {
        let (probe, ids) = kpl::insert_barriers(kernel, tree, after);
        let sum = symbolic::summarize(&probe, &self.opts);
        let uniform: HashSet<StmtId> = sum
            .barriers
            .iter()
            .filter(|b| sum.class(&b.pred) <= Class::Block)
            .map(|b| b.stmt)
            .collect();
        Some(ids.iter().map(|id| uniform.contains(id)).collect())
    }
}

impl StaticVerifier {
    /// The first pass of a check whose loop invariants are not proved yet: the
    /// answer when it finds no possible defect (or an error), else `None`, with the
    /// cache left for the check with the invariants ([`Cache::after_first_pass`]).
    fn without_invariants(
        &self,
        kernel: &Kernel,
        sum: &Summary,
        cache: &mut Cache,
    ) -> Option<Result<Report, OracleError>> {
        let seen = cache.seen();
        let z3 = cache.z3.clone();
        let first = in_context(&z3.ctx, || {
            self.check_in(kernel, sum, None, cache, &z3.solver, true)
        });
        match first {
            Ok(r) if r.is_clean() && r.benign.is_empty() => {
                Some(Ok(with_notes(r, invariants::notes(sum, &[]))))
            }
            Err(e) => Some(Err(e)),
            Ok(_) => {
                cache.after_first_pass(seen);
                None
            }
        }
    }

    /// The phases of a check, in the kernel's Z3 context: preconditions, divergence,
    /// race queries per pair, report order.
    /// With `first_defect`, stops at the first barrier that may diverge or pair that
    /// may race (or is benign): the report then only says whether there is one.
    /// `verdicts`: those of the loop invariants applied to `sum` (`None` in a first
    /// pass), for the second lane's summary ([`lanes`]).
    fn check_in(
        &self,
        kernel: &Kernel,
        sum: &Summary,
        verdicts: Option<&Vec<Vec<invariants::Verdict>>>,
        cache: &mut Cache,
        solver: &z3::Solver,
        first_defect: bool,
    ) -> Result<Report, OracleError> {
        let mut report = Report::default();
        let mut checker = self.checker(sum, solver);
        preconditions(&checker, kernel, cache)?;
        divergences(&mut checker, &mut report);
        if first_defect && !report.divergences.is_empty() {
            return Ok(report);
        }
        let mut lane = cache.lane.take();
        let mut races = RacePhase::new(self, &checker, cache, kernel);
        races.first_defect = first_defect;
        let split = lanes::split(&races.progress, self.lane_min_types);
        match &split {
            None => races.run(&mut report),
            Some(split) => {
                let input = lanes::LaneInput {
                    kernel,
                    verifier: lanes::Settings::of(self),
                    verdicts: verdicts.cloned(),
                    uniform: checker.uniform.clone(),
                    first_defect,
                };
                let theirs = lane.take().unwrap_or_else(|| lanes::fresh(races.cache));
                races.lane = lanes::Lane::First(split);
                lane = Some(lanes::run_two(input, split, theirs, &mut report, |r| {
                    races.run(r)
                }));
            }
        }
        races.finish();
        cache.lane = lane;
        order_races(&mut report);
        Ok(report)
    }
}

impl StaticVerifier {
    /// The cache for `kernel`: the previous check's when it was about the same kernel
    /// but for its barriers (the synthesizer asks again after each barrier it places,
    /// and answers that ignore barriers still hold) and the barriers did not change
    /// what the answers are about (`facts`), else an empty one. The Z3 session stays
    /// with the kernel either way.
    fn cache_for(&mut self, kernel: &Kernel, facts: u64) -> Cache {
        let key = kernel.without_any_barriers();
        match self.cache.take() {
            Some(c) if c.key == key && c.facts == facts => c,
            Some(c) if c.key == key => Cache::new(key, facts, c.z3),
            _ => Cache::new(key, facts, std::rc::Rc::new(Z3Session::new())),
        }
    }

    /// The query maker of one check: its solver budget starts now.
    fn checker<'s>(&'s self, sum: &'s Summary, solver: &'s z3::Solver) -> Checker<'s> {
        Checker {
            sum,
            opts: &self.opts,
            uniform: Vec::new(),
            limits: self.limits,
            two_pass: self.warp_two_pass,
            meter: Meter::new(solver, self.limits.check),
            solver,
            limit_set: std::cell::Cell::new(0),
        }
    }
}

/// Preconditions that can never hold would make every answer below vacuous: an error
/// instead of a report (undecided counts as feasible).
fn preconditions(checker: &Checker, kernel: &Kernel, cache: &mut Cache) -> Result<(), OracleError> {
    if checker.sum.requires.is_empty() && checker.sum.assumes.iter().all(|a| !a.loops.is_empty()) {
        return Ok(());
    }
    let feasible = *cache
        .feasible
        .get_or_insert_with(|| checker.preconditions_hold() != Ok(false));
    if !feasible {
        return Err(OracleError::NoFeasibleRun(format!(
            "the preconditions of `{}` can never hold (with the launch and the parameters' types, \
             for two distinct threads when they relate two threads); \
             nothing would be verified",
            kernel.name
        )));
    }
    Ok(())
}

/// Divergence first, since only never-divergent barriers order accesses: fills
/// `checker.uniform` (one entry per barrier) for the race queries, and reports the
/// barriers that may diverge (undecided ones too, with a note).
fn divergences(checker: &mut Checker, report: &mut Report) {
    let sum = checker.sum;
    for bar in &sum.barriers {
        let out = if bar.grid {
            grid_divergence(checker, bar)
        } else if sum.class(&bar.pred) <= Class::Block {
            Outcome::Unsat
        } else {
            checker.divergence(bar)
        };
        checker.uniform.push(!out.possible());
        // A block that skips a last-block ticket is not an error: then no block is
        // last, and the ticket orders nothing (it is not uniform, above).
        if bar.ticket {
            continue;
        }
        match out {
            Outcome::Unsat | Outcome::Benign => {}
            Outcome::Sat(w) => report.divergences.push(Divergence {
                stmt: bar.stmt,
                span: bar.span,
                witness: Some(*w),
            }),
            Outcome::Unknown(why) => {
                report.notes.push(format!(
                    "line {}: the solver could not decide whether this barrier diverges ({why}); \
                     reported as divergent",
                    bar.span.line
                ));
                report.divergences.push(Divergence {
                    stmt: bar.stmt,
                    span: bar.span,
                    witness: None,
                });
            }
        }
    }
}

/// Whether two threads of the grid can disagree on reaching a grid barrier: two threads
/// of one block (unless its guard is block-uniform), then two threads of different
/// blocks (unless it is grid-uniform, or the launch has one block).
fn grid_divergence(checker: &Checker, bar: &symbolic::BarrierFact) -> Outcome {
    let sum = checker.sum;
    let class = sum.class(&bar.pred);
    if class > Class::Block {
        let out = checker.divergence(bar);
        if out.possible() {
            return out;
        }
    }
    if class > Class::Grid && many_blocks(sum) {
        return checker.divergence_across_blocks(bar);
    }
    Outcome::Unsat
}

/// The pairs of conflicting accesses, each once (with itself too), the earlier in
/// program order first: the order in which their race queries are asked.
fn conflicting_pairs(accesses: &[AccessFact]) -> impl Iterator<Item = (&AccessFact, &AccessFact)> {
    conflicting_indices(accesses).map(|(i, j)| (&accesses[i], &accesses[j]))
}

/// [`conflicting_pairs`] as indices into `accesses`.
fn conflicting_indices(accesses: &[AccessFact]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..accesses.len())
        .flat_map(move |i| (i..accesses.len()).map(move |j| (i, j)))
        .map(|(i, j)| {
            if accesses[i].pos <= accesses[j].pos {
                (i, j)
            } else {
                (j, i)
            }
        })
        .filter(|&(i, j)| conflicting(&accesses[i], &accesses[j]))
}

/// Per access, its index as an affine form (when it is one), and what the launch allows:
/// the solver-free dependence test of [`affine`].
struct Apart {
    launch: affine::Launch,
    forms: Vec<Option<affine::Affine>>,
    many_blocks: bool,
}

impl Apart {
    fn new(sum: &Summary, many_blocks: bool) -> Apart {
        let launch = affine::Launch::of(sum);
        let forms = sum
            .accesses
            .iter()
            .map(|a| affine::affine(sum, &launch, &a.index))
            .collect();
        Apart {
            launch,
            forms,
            many_blocks,
        }
    }

    /// The scopes of accesses `i` and `j` that still need queries: those the test does
    /// not rule out (cross-block only for global arrays of a launch with many blocks).
    fn scopes(&self, sum: &Summary, i: usize, j: usize) -> Scopes {
        let a = &sum.accesses[i];
        let meet = |threads| match (&self.forms[i], &self.forms[j]) {
            (Some(x), Some(y)) => !affine::never_meet(&self.launch, x, y, threads),
            _ => true,
        };
        Scopes {
            same: meet(affine::Threads::SameBlock),
            cross: a.space == Space::Global && self.many_blocks && meet(affine::Threads::CrossBlock),
        }
    }
}

/// The shared state of one check's race queries: the per-pair loop, the arrays
/// screened, and the time spent per array that decides when screening pays.
struct RacePhase<'a, 's> {
    verifier: &'a StaticVerifier,
    checker: &'a Checker<'s>,
    cache: &'a mut Cache,
    /// Taken from the cache for the check, put back by [`RacePhase::finish`].
    screened: Screen,
    progress: HashMap<&'s str, PairProgress>,
    many_blocks: bool,
    /// Pairs no two threads can race on whatever the values (no query needed).
    apart: Apart,
    /// Stop at the first pair that may race or is benign (and screen no array: in a
    /// check without loop invariants the pair queries cost more, and so screens were
    /// started that then did not pay, measured on the corpus).
    first_defect: bool,
    /// The pairs this phase asks about (one lane's, see [`lanes`]).
    lane: lanes::Lane<'a>,
    /// Race types runs of the kernel showed ([`concrete`]).
    concrete: concrete::Concrete<'a>,
    /// The unrolled test's view of the kernel, when it applies ([`unrolled`]).
    unrolled: Option<unrolled::Unrolled<'s>>,
}

impl<'a, 's> RacePhase<'a, 's> {
    fn new(
        verifier: &'a StaticVerifier,
        checker: &'a Checker<'s>,
        cache: &'a mut Cache,
        kernel: &'a Kernel,
    ) -> Self {
        let sum = checker.sum;
        let last_yield = cache.run_yield;
        let many_blocks = many_blocks(sum) && !verifier.opts.only_intra_group;
        let mut apart = Apart::new(sum, many_blocks);
        if !verifier.dependence_test {
            apart.forms.iter_mut().for_each(|f| *f = None);
        }
        RacePhase {
            verifier,
            checker,
            screened: cache.screen.take().unwrap_or_default(),
            cache,
            progress: pair_progress(sum, &apart),
            many_blocks,
            apart,
            first_defect: false,
            lane: lanes::Lane::All,
            unrolled: if verifier.unrolled_test {
                unrolled::Unrolled::new(sum)
            } else {
                None
            },
            concrete: concrete::Concrete::new(
                kernel,
                &verifier.opts,
                sum,
                verifier.concrete_after,
                last_yield,
            ),
        }
    }

    /// Asks about every conflicting pair in program order, adding their races and notes
    /// to `report` (unordered: see [`order_races`]).
    fn run(&mut self, report: &mut Report) {
        let sum = self.checker.sum;
        for (nth, (i, j)) in conflicting_indices(&sum.accesses).enumerate() {
            let scopes = self.apart.scopes(sum, i, j);
            if !scopes.same && !scopes.cross {
                continue;
            }
            let (a, b) = (&sum.accesses[i], &sum.accesses[j]);
            if !self.lane.asks(&a.array, nth) {
                continue;
            }
            self.screen_if_worth(a);
            self.pair(a, b, scopes, report);
            if self.first_defect && !(report.races.is_empty() && report.benign.is_empty()) {
                return;
            }
        }
    }

    /// Screens `a`'s array once its remaining pair queries are expected to take more
    /// than [`SCREEN_WORTH`] units, unless most of its pairs asked so far race. That
    /// decision is taken once per array and kernel (a kernel checked again, as the
    /// synthesizer does, keeps it): an array racing when first weighed is one stripped
    /// of its barriers, and the placements checked next synchronize it, which makes a
    /// grouped query over it harder than its pair queries.
    fn screen_if_worth(&mut self, a: &AccessFact) {
        let Some(progress) = self.progress.get(a.array.as_str()) else {
            return;
        };
        let expected = progress.remaining();
        if self.verifier.screening
            && !self.first_defect
            && expected > SCREEN_WORTH
            && self.screened.arrays.insert(a.array.clone())
            && !progress.mostly_racing()
        {
            self.screened.ran.insert(a.array.clone());
            let budget = (expected / 3.0).clamp(SCREEN_BUDGET.0, SCREEN_BUDGET.1) as u64;
            let sum = self.checker.sum;
            screen_array(
                self.checker,
                sum,
                &a.array,
                self.many_blocks,
                budget,
                &mut self.screened,
            );
        }
    }

    /// The race queries of one pair (scopes the screen did not rule out, every race
    /// type), timed for [`PairProgress`]; a race found goes to `report`.
    fn pair(&mut self, a: &AccessFact, b: &AccessFact, scopes: Scopes, report: &mut Report) {
        let limits = self.verifier.limits;
        let spent_before = self.checker.meter.spent();
        let attempts = limits.attempts();
        let key = pair_key(a, b);
        let scopes = Scopes {
            same: scopes.same && !self.screened.same.contains(&key),
            cross: scopes.cross && !self.screened.cross.contains(&key),
        };
        if !scopes.same && !scopes.cross {
            return;
        }
        if scopes.same {
            self.unroll(a, b);
        }
        let found = PairRace::find(
            self.checker,
            self.cache,
            &mut self.concrete,
            a,
            b,
            scopes,
            &attempts,
        );
        if let Some(p) = self.progress.get_mut(a.array.as_str()) {
            p.done += race_types(a, b);
            p.racing += usize::from(found.intra) + found.inter.len() + found.backward.len();
            p.spent += self.checker.meter.spent() - spent_before;
        }
        report.notes.extend(found.notes);
        let warp_local = self.verifier.opts.classify_warps
            && found.fixable
            && warp_local(
                self.checker,
                a,
                b,
                found.intra,
                &found.inter,
                limits.last_attempt(),
            );
        let racing = found.intra || !found.inter.is_empty();
        if found.benign && !racing {
            report.benign.push(BenignPair {
                array: a.array.clone(),
                first: access(a),
                second: access(b),
            });
        }
        if racing {
            report.races.push(Race {
                array: a.array.clone(),
                space: a.space,
                first: access(a),
                second: access(b),
                intra: found.intra,
                forward_only: found
                    .inter
                    .iter()
                    .copied()
                    .filter(|j| {
                        self.verifier.opts.race_directions && a.stmt != b.stmt && !found.backward.contains(j)
                    })
                    .collect(),
                inter: found.inter,
                fixable: found.fixable,
                warp_local,
                witness: found.witness,
            });
        }
    }

    /// Rules out race types of the pair within a block by the unrolled test
    /// ([`unrolled`]): a type at which no two threads meet at all, as the barrier-free
    /// answer (the race queries take it from the cache, whatever the barriers); the
    /// same-iteration type, when the barriers of this check separate every meeting, for
    /// this check.
    fn unroll(&mut self, a: &AccessFact, b: &AccessFact) {
        let Some(u) = &self.unrolled else {
            return;
        };
        for order in orders(a, b) {
            let key = (a.stmt, b.stmt, order);
            // Types across iterations that the barriers always separate need no answer
            // (in a kernel with barriers in its loops, most of them).
            if matches!(self.cache.same.get(&key), Some((Outcome::Unsat, _)))
                || (order != Order::Intra && self.checker.separation(a, b, order) == Separation::Always)
            {
                continue;
            }
            // Meetings are kept for the barrier count of the same-iteration type only.
            let keep = if order == Order::Intra {
                unrolled::MAX_MEETINGS
            } else {
                0
            };
            let meetings = self
                .cache
                .unrolled
                .entry(key)
                .or_insert_with(|| u.meetings(a, b, order, keep));
            match meetings {
                Some(m) if m.is_empty() => {
                    let limit = self.verifier.limits.last_attempt();
                    self.cache.same.insert(key, (Outcome::Unsat, limit));
                }
                Some(m) if order == Order::Intra && u.all_separated(a, b, m) => {
                    self.cache
                        .synced
                        .insert((a.stmt, b.stmt, order, Scope::SameBlock));
                    self.cache.separated += 1;
                }
                _ => {}
            }
        }
    }

    /// Keeps the screened pairs for the next check of the same kernel.
    fn finish(self) {
        self.cache.screen = Some(self.screened);
        self.cache.shown = self.concrete.shown;
        // A first pass stops at its first racing pair: its runs say nothing of
        // what they would save in a whole check.
        if !self.first_defect
            && let Some(y) = self.concrete.run_yield()
        {
            self.cache.run_yield = Some(y);
        }
    }
}

/// Per array, how many race types its conflicting pairs have (none asked yet), but for
/// the pairs the dependence test rules out.
fn pair_progress<'s>(sum: &'s Summary, apart: &Apart) -> HashMap<&'s str, PairProgress> {
    let mut progress: HashMap<&str, PairProgress> = HashMap::new();
    for (i, j) in conflicting_indices(&sum.accesses) {
        let scopes = apart.scopes(sum, i, j);
        if !scopes.same && !scopes.cross {
            continue;
        }
        let (a, b) = (&sum.accesses[i], &sum.accesses[j]);
        progress.entry(a.array.as_str()).or_default().total += race_types(a, b);
    }
    progress
}

/// `orders(a, b).len()` without building the list.
fn race_types(a: &AccessFact, b: &AccessFact) -> usize {
    let depth = Summary::common_loops(&a.loops, &b.loops);
    1 + depth * if a.stmt == b.stmt { 1 } else { 2 }
}

/// Races in source order (then statement order), whatever order they were found in.
fn order_races(report: &mut Report) {
    report.races.sort_by_key(|r| {
        (
            r.first.span.start,
            r.second.span.start,
            r.first.stmt,
            r.second.stmt,
        )
    });
    report.benign.sort_by_key(|p| {
        (
            p.first.span.start,
            p.second.span.start,
            p.first.stmt,
            p.second.stmt,
        )
    });
}

/// Whether every race type found for a same-block pair (`intra`, `inter` depths, each
/// in both directions) is impossible between threads of different warps, barriers
/// counted (`CheckOptions::classify_warps`). Undecided counts as not warp-local.
fn warp_local(
    ck: &Checker,
    a: &AccessFact,
    b: &AccessFact,
    intra: bool,
    inter: &[usize],
    limit: Attempt,
) -> bool {
    let warp = ck.opts.warp_barrier_size();
    let mut types: Vec<Order> = orders(a, b);
    types.retain(|o| match o {
        Order::Intra => intra,
        Order::Inter { depth, .. } => inter.contains(depth),
    });
    (intra || !inter.is_empty())
        && types
            .into_iter()
            .all(|order| !ck.race_across_warps(a, b, order, warp, limit).possible())
}

/// Which thread pairs of an access pair still need queries.
#[derive(Clone, Copy)]
struct Scopes {
    same: bool,
    cross: bool,
}

/// What the queries found about one pair of accesses.
struct PairRace {
    intra: bool,
    inter: Vec<usize>,
    /// Depths at which the second access's iteration may be the earlier one (decided
    /// racing or undecided); with `CheckOptions::race_directions` both directions are
    /// asked, so `inter` minus these is `Race::forward_only`.
    backward: Vec<usize>,
    fixable: bool,
    witness: Option<Witness>,
    notes: Vec<String>,
    /// Some race type is ruled out only by the values written being equal.
    benign: bool,
}

impl PairRace {
    fn new(fixable: bool) -> PairRace {
        PairRace {
            intra: false,
            inter: Vec::new(),
            backward: Vec::new(),
            fixable,
            witness: None,
            notes: Vec::new(),
            benign: false,
        }
    }

    /// Tries every race type of the pair, first within the first attempt's limit, then
    /// the types still undecided (and not already shown by the other direction) within
    /// the query limit.
    fn find(
        ck: &Checker,
        cache: &mut Cache,
        concrete: &mut concrete::Concrete,
        a: &AccessFact,
        b: &AccessFact,
        scopes: Scopes,
        attempts: &[Attempt],
    ) -> PairRace {
        let mut found = PairRace::new(true);
        let both = ck.opts.race_directions;
        // A race query of the pair: from a run of the kernel when one showed its type,
        // else the solver's.
        let ask =
            |concrete: &mut concrete::Concrete, scope: Scope, order: Order, sync: bool, limit: Attempt| {
                concrete.race(a, b, scope, order, || ck.race(a, b, scope, order, sync, limit))
            };
        if scopes.same {
            found.search(a, b, attempts, both, &mut |order, limit| {
                let key = (a.stmt, b.stmt, order);
                match ck.separation(a, b, order) {
                    Separation::Always => Outcome::Unsat,
                    Separation::Never => cached(&mut cache.same, key, limit, || {
                        ask(concrete, Scope::SameBlock, order, false, limit)
                    }),
                    // The query without barriers only pays when the pair is checked again
                    // (the synthesizer's loop): run it then, and skip the pair for good
                    // if it is unsatisfiable.
                    Separation::Maybe => {
                        // Ruled out already: with this check's barriers (the unrolled
                        // test), or without any barrier (in an earlier check, where
                        // none separated the pair).
                        if cache.synced.contains(&(a.stmt, b.stmt, order, Scope::SameBlock))
                            || matches!(cache.same.get(&key), Some((Outcome::Unsat, _)))
                        {
                            return Outcome::Unsat;
                        }
                        let synced = |cache: &mut Cache, concrete: &mut concrete::Concrete| {
                            synced(
                                &mut cache.synced,
                                (a.stmt, b.stmt, order, Scope::SameBlock),
                                || ask(concrete, Scope::SameBlock, order, true, limit),
                            )
                        };
                        if cache.seen.insert(key) {
                            return synced(cache, concrete);
                        }
                        let free = cached(&mut cache.same, key, limit, || {
                            ask(concrete, Scope::SameBlock, order, false, limit)
                        });
                        // Benign without barriers: barriers may still order them all
                        // (then the pair is not counted as benign).
                        if free.possible() || matches!(free, Outcome::Benign) {
                            synced(cache, concrete)
                        } else {
                            free
                        }
                    }
                }
            });
        }
        if scopes.cross {
            let mut cross = PairRace::new(false);
            let grid = ck.sum.barriers.iter().any(|b| b.grid);
            cross.search(a, b, attempts, both, &mut |order, limit| {
                let mut free = |concrete: &mut concrete::Concrete| {
                    cached(&mut cache.cross, (a.stmt, b.stmt, order), limit, || {
                        ask(concrete, Scope::CrossBlock, order, false, limit)
                    })
                };
                if !grid {
                    return free(concrete);
                }
                // Grid barriers order threads of different blocks: as for one block,
                // the query without them first (cached), then with them.
                match ck.separation_in(a, b, order, Scope::CrossBlock) {
                    Separation::Always => Outcome::Unsat,
                    Separation::Never => free(concrete),
                    Separation::Maybe => {
                        let f = free(concrete);
                        if f.possible() || matches!(f, Outcome::Benign) {
                            synced(
                                &mut cache.synced,
                                (a.stmt, b.stmt, order, Scope::CrossBlock),
                                || ask(concrete, Scope::CrossBlock, order, true, limit),
                            )
                        } else {
                            f
                        }
                    }
                }
            });
            if cross.intra || !cross.inter.is_empty() {
                // No barrier orders threads of different blocks: the pair is unfixable,
                // and its witness shows two blocks.
                found.fixable = false;
                found.intra |= cross.intra;
                found.inter.extend(cross.inter);
                found.inter.sort_unstable();
                found.inter.dedup();
                found.backward.extend(cross.backward);
                found.witness = cross.witness.or(found.witness);
            }
            found.benign |= cross.benign;
            found.notes.extend(cross.notes);
        }
        found
    }

    fn search(
        &mut self,
        a: &AccessFact,
        b: &AccessFact,
        attempts: &[Attempt],
        both_directions: bool,
        query: &mut dyn FnMut(Order, Attempt) -> Outcome,
    ) {
        let mut pending = orders(a, b);
        for (pass, &limit) in attempts.iter().enumerate() {
            let last = pass + 1 == attempts.len();
            let mut undecided = Vec::new();
            for order in pending {
                if let Order::Inter { depth, .. } = order
                    && self.inter.contains(&depth)
                    && !both_directions
                {
                    continue;
                }
                let out = query(order, limit);
                if matches!(out, Outcome::Unknown(_)) && !last {
                    undecided.push(order);
                } else {
                    self.add(a, b, order, out);
                }
            }
            pending = undecided;
        }
    }

    fn add(&mut self, a: &AccessFact, b: &AccessFact, order: Order, out: Outcome) {
        match out {
            Outcome::Unsat => return,
            Outcome::Benign => {
                self.benign = true;
                return;
            }
            Outcome::Sat(w) => {
                if self.witness.is_none() {
                    self.witness = Some(*w);
                }
            }
            Outcome::Unknown(why) => self.notes.push(format!(
                "lines {} and {}: the solver could not decide whether `{}` races ({why}); reported as racing",
                a.span.line, b.span.line, a.array
            )),
        }
        match order {
            Order::Intra => self.intra = true,
            Order::Inter { depth, forward } => {
                if !forward && !self.backward.contains(&depth) {
                    self.backward.push(depth);
                }
                if !self.inter.contains(&depth) {
                    self.inter.push(depth);
                    self.inter.sort_unstable();
                }
            }
        }
    }
}
