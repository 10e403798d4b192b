//! The deviations from the interpreter's semantics (`docs/semantics.md`) and the verifier's
//! shortcuts, apart from the pipeline so that each has an id, a rule and tests: the rules
//! below, in the order of [`DEVIATIONS`], the one list of ids and of the tests that fail
//! when a rule changes (`oracle/tests/it/deviations.rs` checks both against each other).
//!
//! - **Memory is abstract.** Every read (and the value an atomic returns) is an arbitrary
//!   value, also when the thread wrote the element before. So Faial's Test 5 DRF kernel
//!   (`A[tid] = tid; x = A[tid]; A[x] = 0;`) is reported racy, as Faial does. Values are
//!   never followed through memory: what thread 0 stores in a shared variable is not
//!   what the others read from it after the barrier (only that they all read the same).
//! - **Values all threads read alike** (seed 000's equality abstraction, restricted to
//!   what needs no invariant; [`symbolic`](super::symbolic)'s `read_class` and `ReadCache`, tests in
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
//!   query mentions), and by the loop invariants [`invariants`](super::invariants) proves (candidates
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
//!   below their bound, grid-stride steps) the digit lemmas of [`radix`](super::radix) say the same:
//!   implications whose premises (nonzero extents, digits in range, the access's
//!   predicate) are part of the fact, so exact too (`tests/it/verifier_radix.rs`);
//!   offsets of two accesses that fall in a gap of the chain (`row + H*D` beside `row`
//!   with a row stride of `3*H*D`: q/k/v slices) are constant digits of extent the
//!   gap's ratio (`radix::gap_digits`), the same implication.
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
//!   [`term::Builder::range`](super::term::Builder::range) shows the operand in the type, one `ite` when it can wrap
//!   at most once, `x - 2^w·k` for a fresh `k` otherwise. A grid index
//!   `blockIdx.d * blockDim.d (+ threadIdx.d)` is assumed below 2^31, and the grid's
//!   width `blockDim.d * gridDim.d` (a grid-stride loop's stride) too
//!   ([`term::MAX_GRID_THREADS`](super::term::MAX_GRID_THREADS)) unless a concrete launch is larger, and with it
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
//!   equal values ([`queries::Outcome::Benign`](super::queries::Outcome::Benign), listed in `Report::benign`). Values read
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
//!   `NDEBUG` removes them). A call of a function the file does not declare whose name
//!   is that of the toolkit's C libraries (`cuda…`, `cublas…`, `curand…`, `cufft…`,
//!   `cusparse…`, `cusolver…`, `cudnn…`, `nccl…`, `nvtx…`) is assumed to be the
//!   library's: a scalar argument is a copy (C interfaces have no references), so it
//!   leaves the variable as it was (`tests/corpus/launch/cLibraryArguments*.cu`); so
//!   does a math function the file does not declare (`sqrtf(hs)`, `mathArguments*.cu`). A
//!   template kernel launched without template arguments is checked as the instance
//!   C++ deduces from the argument types the host code declares (`host/deduce.rs`,
//!   `tests/corpus/launch/deduced*.cu`); where they are not deduced, as the open
//!   instance, whose unknown types are `int` (4 bytes): a race that only a wider type
//!   makes is missed there (the note says which launch was not deduced). A kernel with a grid sync that the file launches without a
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
//!   of units is spent; see [`Limits`](super::Limits)): the pair (or barrier) is reported as a defect
//!   without a witness, with a note. Limits are Z3 resource units, not time, and each
//!   kernel has a Z3 context of its own, so the answer depends on the kernel and the
//!   options only (`tests/it/solver_limits.rs` checks it under load). Known residue: a
//!   few term tables are keyed by the address of a term, so which Z3 terms a kernel
//!   creates first can still differ between two checks of it in one process; the unit
//!   counts of a query may then differ slightly (seen once, on a 1 M-unit sorting
//!   network query). Nothing is ever `Unsupported`: every construct of the IR is
//!   encoded exactly or over-approximated.

/// One deviation or shortcut: its id, the heading of its rule in the list above, and
/// the tests that fail when the rule changes.
#[derive(Debug, Clone, Copy)]
pub struct Deviation {
    /// A short kebab-case name; tests written for the rule alone are named
    /// `deviation_<id with _>`.
    pub id: &'static str,
    /// The rule's bold heading in the list above, as written there.
    pub heading: &'static str,
    /// Test functions (`#[test]`, anywhere in the workspace) that pin the rule down.
    pub tests: &'static [&'static str],
}

/// Every deviation and shortcut, in the order of the list above.
pub const DEVIATIONS: &[Deviation] = &[
    Deviation {
        id: "memory-is-abstract",
        heading: "Memory is abstract.",
        tests: &["deviation_memory_is_abstract", "faial_test5_read_index"],
    },
    Deviation {
        id: "values-read-alike",
        heading: "Values all threads read alike",
        tests: &[
            "deviation_values_all_threads_read_alike",
            "deviation_reads_of_a_never_written_array_are_a_function_of_the_index",
        ],
    },
    Deviation {
        id: "two-thread-assumptions",
        heading: "Two-thread assumptions",
        tests: &[
            "deviation_other_inside_a_loop_is_arbitrary",
            "two_thread_preconditions_that_never_hold_are_an_error",
        ],
    },
    Deviation {
        id: "divergent-barriers-synchronize-nothing",
        heading: "Divergent barriers synchronize nothing.",
        tests: &["deviation_divergent_barriers_synchronize_nothing"],
    },
    Deviation {
        id: "barrier-instances",
        heading: "Which barrier instances count",
        tests: &["deviation_barriers_are_credited_only_at_chosen_instances"],
    },
    Deviation {
        id: "loop-carried-values",
        heading: "Loop-carried values",
        tests: &["deviation_loop_carried_values_without_closed_form_are_arbitrary"],
    },
    Deviation {
        id: "values-after-a-loop",
        heading: "Values after a loop",
        tests: &[
            "deviation_values_after_a_loop_are_not_tied_to_its_exit",
            "deviation_non_terminating_loops_are_handled_soundly",
        ],
    },
    Deviation {
        id: "bitwise-operations",
        heading: "Bitwise operations of two variables",
        tests: &["deviation_bitwise_operations_of_two_variables_are_bounded_unknowns"],
    },
    Deviation {
        id: "assume",
        heading: "`assume`",
        tests: &["deviation_later_assumes_do_not_remove_earlier_races"],
    },
    Deviation {
        id: "parameters-and-launch-sizes",
        heading: "Parameters",
        tests: &[
            "deviation_parameters_and_launch_sizes",
            "a_signed_parameter_can_be_negative",
        ],
    },
    Deviation {
        id: "no-overflow",
        heading: "No overflow",
        tests: &[
            "deviation_grid_width_below_2_31",
            "deviation_a_grid_index_is_assumed_below_2_31",
            "deviation_a_warp_index_in_the_grid_is_assumed_below_2_31",
            "deviation_a_loop_counter_stays_in_its_type",
        ],
    },
    Deviation {
        id: "undefined-operations",
        heading: "Undefined operations",
        tests: &["deviation_undefined_operations_give_arbitrary_values"],
    },
    Deviation {
        id: "infeasible-preconditions",
        heading: "Preconditions that can never hold",
        tests: &[
            "deviation_infeasible_preconditions",
            "two_thread_preconditions_that_never_hold_are_an_error",
        ],
    },
    Deviation {
        id: "atomics",
        heading: "Atomics",
        tests: &[
            "deviation_other_atomic_results_are_arbitrary",
            "deviation_counters_assume_no_wraparound",
            "deviation_other_atomics_return_arbitrary_values",
            "deviation_amounts_read_from_memory_may_be_negative",
        ],
    },
    Deviation {
        id: "typed-reads",
        heading: "Typed reads",
        tests: &[
            "deviation_typed_reads",
            "an_unsigned_read_is_never_negative",
            "a_punned_read_is_not_the_other_types_value",
        ],
    },
    Deviation {
        id: "benign-write-write-races",
        heading: "Benign write-write races are not races",
        tests: &[
            "deviation_benign_write_write_races",
            "every_thread_raising_one_flag_is_benign",
            "without_tolerance_equal_values_race",
        ],
    },
    Deviation {
        id: "uninterpreted-functions",
        heading: "Uninterpreted functions",
        tests: &["deviation_uninterpreted_functions_know_only_congruence"],
    },
    Deviation {
        id: "warps",
        heading: "Warps",
        tests: &[
            "deviation_warps",
            "lock_step_does_not_order_threads_of_different_warps",
            "warp_barrier_orders_the_threads_of_one_warp_only",
        ],
    },
    Deviation {
        id: "grid-barriers",
        heading: "Grid barriers",
        tests: &[
            "deviation_a_divergent_grid_barrier_orders_nothing_and_the_interpreter_sees_less",
            "deviation_grid_barriers_are_credited_only_at_chosen_instances",
        ],
    },
    Deviation {
        id: "last-block-tickets",
        heading: "Last-block tickets",
        tests: &["deviation_a_ticket_barrier_some_block_skips_orders_nothing_and_is_no_divergence"],
    },
    Deviation {
        id: "cooperative-groups-and-surfaces",
        heading: "Cooperative groups and surfaces",
        tests: &[
            "cooperative_group_syncs_by_group_kind",
            "surface_accesses_are_accesses_of_the_surface_array",
        ],
    },
    Deviation {
        id: "launch-from-the-file",
        heading: "The launch comes from the file",
        tests: &[
            "a_kernel_named_in_unparsed_host_code_is_checked_for_every_launch",
            "kernels_of_a_header_are_checked_where_the_file_launches_them",
        ],
    },
    Deviation {
        id: "unseen-by-the-cuda-front-end",
        heading: "What the CUDA front end cannot see",
        tests: &[
            "opaque_effects_over_approximate_defined_ones",
            "a_reference_parameter_of_a_prototype_is_written",
            "ptx_that_cannot_be_modelled_is_unsupported_with_its_opcode",
        ],
    },
    Deviation {
        id: "only-intra-group",
        heading: "`--only-intra-group`",
        tests: &["deviation_only_intra_group"],
    },
    Deviation {
        id: "one-dimensional-symbolic-launches",
        heading: "Symbolic launches are one-dimensional",
        tests: &["deviation_symbolic_launches_are_one_dimensional_unless_the_kernel_names_y_or_z"],
    },
    Deviation {
        id: "solver-gave-up",
        heading: "Solver gave up",
        tests: &[
            "deviation_solver_timeouts_count_as_races",
            "deviation_a_spent_solver_budget_counts_as_races",
        ],
    },
];
