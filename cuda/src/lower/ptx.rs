//! Inline PTX (`asm volatile("...")`): what each instruction of an `asm` statement does
//! to memory and to the threads' synchronization.
//!
//! The rule is fail-safe: every instruction is *classified* ([`classify`]) as computing
//! in registers only, a fence, a load, a store, an atomic, a block or warp barrier, and
//! modelled as such; an instruction autosync does not know (or knows it cannot model:
//! asynchronous copies, `mbarrier`, split barriers, control flow) makes the kernel
//! unsupported with the opcode named. Nothing is "no effect" by default, whatever the
//! first word of the opcode looks like (`ldmatrix` is a load, not an unknown `ld`-ish
//! word), and a `"memory"` clobber adds nothing once every instruction is modelled.
//!
//! Memory operands (`[%1]`, `[%1+16]`): when the operand is a pointer into a known array
//! and the instruction moves a scalar or vector of known width (`ld.shared.v2.f32`), the
//! access is of exactly the cells it covers; otherwise (an integer address such as
//! `__cvta_generic_to_shared(p)`, a register named inside the `asm`, or a collective
//! load such as `ldmatrix`, whose rows come from other lanes' addresses) it is an access
//! of *some* element of every array the address may point into: the array of the
//! pointer, else every array of the instruction's state space (`.shared`, `.global`,
//! both for generic addressing). Atomics are modelled as `atomic_exch` of an arbitrary
//! value (atomic/atomic pairs do not race; the old value is arbitrary).

use tree_sitter::Node;

use super::expr::arbitrary;
use super::{ArraySpace, LVal, Lowerer, R, Target, V, Value, fold};
use crate::program::named_children;
use kpl::ir::{AtomicOp, Expr, Span, StmtKind};

/// What one PTX instruction does, as far as races and barriers are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Effect {
    /// Computes in registers only (its outputs are arbitrary values); texture fetches
    /// and prefetches are here too (textures are not modelled as memory, a prefetch
    /// changes no value).
    Register,
    /// `fence`, `membar`: orders memory but synchronizes no threads (as
    /// `__threadfence()`, it vanishes in the SDV semantics).
    Fence,
    /// Reads what its memory operand points to.
    Read(Width),
    /// Writes what its memory operand points to.
    Write(Width),
    /// Reads and writes atomically what its memory operand points to.
    Atomic,
    /// `bar.sync a` / `barrier.sync a` without a thread count: every thread of the block.
    Barrier,
    /// `bar.warp.sync mask`: a warp barrier when the mask is the full warp.
    WarpBarrier,
    /// Something autosync cannot model: the kernel is unsupported, with this reason.
    Unsupported(&'static str),
}

/// How much a load or store touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Width {
    /// Exactly these bytes at the address.
    Bytes(u32),
    /// Some element of what the address points into (collective and unsized accesses).
    Anywhere,
}

/// One instruction of an `asm` template: its opcode (`ld.shared.v2.f32`), the text of
/// its operands, and whether a guard predicate (`@p`) may switch it off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Instr {
    pub opcode: String,
    pub operands: String,
    pub predicated: bool,
}

/// The instructions of an `asm` template as written in C++ source: the string literals'
/// contents joined as C joins them (escapes decoded, C++ comments between them ignored),
/// then PTX comments (`//` to the end of the line, `/* */`) removed as `ptxas` does, and
/// braces, labels and directives (`.reg .b32 r;`) dropped.
pub(super) fn instructions(code: &str) -> Vec<Instr> {
    let text = without_ptx_comments(&string_contents(code));
    let mut out = Vec::new();
    for piece in text.split([';', '\n']) {
        let mut s = piece.trim().trim_start_matches(['{', '}']).trim();
        s = s.trim_end_matches(['{', '}']).trim();
        // A label `L1:` before an instruction.
        if let Some((label, rest)) = s.split_once(':')
            && !label.is_empty()
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            && !rest.starts_with(':')
        {
            s = rest.trim();
        }
        // A guard predicate `@p` / `@!p`.
        let predicated = s.starts_with('@');
        if predicated {
            s = s.split_once(char::is_whitespace).map_or("", |(_, r)| r).trim();
        }
        if s.is_empty() || s.starts_with('.') {
            continue;
        }
        let (opcode, operands) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
        out.push(Instr {
            opcode: opcode.to_string(),
            operands: operands.trim().to_string(),
            predicated,
        });
    }
    out
}

/// The characters of the string literals of `code`, concatenated as C concatenates
/// adjacent literals (nothing in between), with C's escapes decoded (`\n`, `\t`,
/// `\x0a`, `\012`, ...); C++ comments and anything else outside the literals skipped.
fn string_contents(code: &str) -> String {
    let mut out = String::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => string_literal(&mut chars, &mut out),
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                skip_block_comment(&mut chars);
            }
            _ => {}
        }
    }
    out
}

/// The rest of one string literal (after its opening quote), decoded into `out`.
fn string_literal(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
    while let Some(c) = chars.next() {
        match c {
            '"' => return,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('x') => {
                    let mut v = 0u32;
                    while let Some(d) = chars.peek().and_then(|d| d.to_digit(16)) {
                        v = v.saturating_mul(16).saturating_add(d);
                        chars.next();
                    }
                    out.push(char::from_u32(v).unwrap_or('?'));
                }
                Some(d @ '0'..='7') => {
                    let mut v = d.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match chars.peek().and_then(|d| d.to_digit(8)) {
                            Some(d) => {
                                v = v * 8 + d;
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(v).unwrap_or('?'));
                }
                Some(other) => out.push(other),
                None => {}
            },
            _ => out.push(c),
        }
    }
}

/// Skips to the end of a `/* ... */` comment (its opening already read).
fn skip_block_comment(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let mut prev = ' ';
    for c in chars.by_ref() {
        if prev == '*' && c == '/' {
            return;
        }
        prev = c;
    }
}

/// PTX text without its comments (`//` to the end of the line, `/* ... */` across
/// lines; a block comment becomes a space).
fn without_ptx_comments(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                skip_block_comment(&mut chars);
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Opcodes (their first word) that compute in registers only.
const REGISTER_OPS: &[&str] = &[
    "mov",
    "add",
    "sub",
    "mul",
    "mad",
    "mul24",
    "mad24",
    "sad",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "fma",
    "rcp",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "lg2",
    "ex2",
    "tanh",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "shl",
    "shr",
    "shf",
    "lop3",
    "bfe",
    "bfi",
    "bfind",
    "brev",
    "popc",
    "clz",
    "fns",
    "prmt",
    "cvt",
    "cvta",
    "set",
    "setp",
    "selp",
    "slct",
    "testp",
    "copysign",
    "dp4a",
    "dp2a",
    "addc",
    "subc",
    "madc",
    "shfl",
    "vote",
    "match",
    "redux",
    "activemask",
    "isspacep",
    "getctarank",
    "nanosleep",
    "elect",
    "mma",
    "movmatrix",
    "tex",
    "tld4",
    "txq",
    "suq",
    "istypep",
    "pmevent",
    "brkpt",
    "prefetch",
    "prefetchu",
    "applypriority",
    "createpolicy",
    "griddepcontrol",
    "szext",
    "bmsk",
    "alloca",
    "stacksave",
    "stackrestore",
    "setmaxnreg",
];

/// What one instruction does (see [`Effect`]), from its opcode alone.
pub(super) fn classify(opcode: &str) -> Effect {
    let parts: Vec<&str> = opcode.split('.').collect();
    let head = parts.first().copied().unwrap_or("");
    let has = |w: &str| parts.iter().skip(1).any(|p| *p == w);
    match head {
        _ if opcode.contains("::cluster") => {
            Effect::Unsupported("an access to another block's shared memory (`::cluster`)")
        }
        "mapa" => Effect::Unsupported("a map into another block's shared memory (`mapa`)"),
        "fence" | "membar" => Effect::Fence,
        "ld" | "ldu" if has("async") => Effect::Unsupported("an asynchronous load"),
        "ld" | "ldu" => Effect::Read(width(&parts)),
        "st" if has("async") => Effect::Unsupported("an asynchronous store (`st.async`)"),
        "st" => Effect::Write(width(&parts)),
        "ldmatrix" => Effect::Read(Width::Anywhere),
        "stmatrix" => Effect::Write(Width::Anywhere),
        "discard" => Effect::Write(Width::Anywhere),
        "wmma" if has("load") => Effect::Read(Width::Anywhere),
        "wmma" if has("store") => Effect::Write(Width::Anywhere),
        "wmma" if has("mma") => Effect::Register,
        "atom" | "red" if has("async") => Effect::Unsupported("an asynchronous reduction"),
        "atom" | "red" => Effect::Atomic,
        "bar" | "barrier" if has("warp") && has("sync") => Effect::WarpBarrier,
        "bar" | "barrier" if has("sync") && !has("cluster") => Effect::Barrier,
        "bar" | "barrier" => Effect::Unsupported("a split or cluster barrier (`arrive`/`red`/`cluster`)"),
        "cp" => {
            Effect::Unsupported("an asynchronous copy (`cp.async`, `cp.async.bulk`, `cp.reduce.async.bulk`)")
        }
        "mbarrier" => Effect::Unsupported("an `mbarrier` operation"),
        "multimem" => Effect::Unsupported("a multimem access"),
        "suld" | "sust" | "sured" => Effect::Unsupported("a surface access in PTX"),
        "wgmma" | "tcgen05" | "tensormap" => Effect::Unsupported("a tensor-memory or warpgroup operation"),
        "exit" | "ret" | "bra" | "brx" | "call" | "trap" => Effect::Unsupported("control flow in inline PTX"),
        _ if REGISTER_OPS.contains(&head) => Effect::Register,
        _ => Effect::Unsupported("an instruction autosync does not know"),
    }
}

/// The bytes a load or store of this opcode moves (`.v4` times `.f32`), or
/// [`Width::Anywhere`] when no size is written.
fn width(parts: &[&str]) -> Width {
    let lanes: u32 = parts
        .iter()
        .find_map(|p| match *p {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1);
    let scalar = parts.iter().rev().find_map(|p| {
        let digits = p.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let kind = &p[..p.len() - digits.len()];
        let bits: u32 = digits.split('x').next()?.parse().ok()?;
        let count: u32 = digits.split_once('x').map_or(Some(1), |(_, n)| n.parse().ok())?;
        matches!(kind, "b" | "u" | "s" | "f" | "bf" | "e4m3" | "e5m2")
            .then_some(bits * count / 8)
            .filter(|b| *b > 0)
    });
    match scalar {
        Some(b) => Width::Bytes(b * lanes),
        None => Width::Anywhere,
    }
}

/// The state space an access of this opcode is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StateSpace {
    Shared,
    Global,
    /// Generic addressing: shared or global.
    Generic,
    /// `.local`, `.param`, `.const`: private or read-only, never racing.
    Private,
}

pub(super) fn state_space(opcode: &str) -> StateSpace {
    let parts: Vec<&str> = opcode.split('.').collect();
    for p in parts.iter().skip(1) {
        let p = p.split("::").next().unwrap_or(p);
        match p {
            "shared" => return StateSpace::Shared,
            "global" => return StateSpace::Global,
            "local" | "param" | "const" => return StateSpace::Private,
            _ => {}
        }
    }
    StateSpace::Generic
}

/// The address inside the first `[...]` of an instruction's operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Address {
    /// `%N`: the operand's number; `None` for a register named inside the `asm`.
    pub operand: Option<usize>,
    /// The constant displacement in bytes (`[%1+16]`).
    pub disp: i64,
}

pub(super) fn address(operands: &str) -> Option<Address> {
    let start = operands.find('[')?;
    let end = start + operands[start..].find(']')?;
    let inner: String = operands[start + 1..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (base, disp) = match inner.find(['+', '-']) {
        Some(i) if i > 0 => {
            let d = parse_int(&inner[i + 1..]);
            let d = if &inner[i..=i] == "-" { d.map(|d| -d) } else { d };
            (&inner[..i], d)
        }
        _ => (inner.as_str(), Some(0)),
    };
    let operand = base.strip_prefix('%').and_then(|n| n.parse().ok());
    Some(Address {
        operand,
        // A displacement that is not a constant: anywhere in the array.
        disp: disp.unwrap_or(i64::MIN),
    })
}

fn parse_int(s: &str) -> Option<i64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The first operand of a barrier instruction, and whether a thread count follows.
fn barrier_operands(operands: &str) -> (Option<&str>, bool) {
    let mut it = operands.split(',').map(str::trim).filter(|s| !s.is_empty());
    (it.next(), it.next().is_some())
}

impl<'t> Lowerer<'_, 't> {
    /// An `asm` statement: its operands evaluated, every instruction modelled (see the
    /// module doc), its outputs written with arbitrary values.
    pub(super) fn inline_asm(&mut self, n: Node<'t>) -> R<Value> {
        if n.child_by_field_name("goto_labels").is_some() {
            return Err(self.unsupported(n, "`asm goto`", "autosync cannot follow jumps out of inline PTX"));
        }
        let code = n
            .child_by_field_name("assembly_code")
            .map(|c| self.text(c).to_string())
            .unwrap_or_default();
        let instrs = instructions(&code);
        // Operands are numbered outputs first, then inputs.
        let mut operands: Vec<Option<Value>> = Vec::new();
        let mut outputs = Vec::new();
        if let Some(ops) = n.child_by_field_name("output_operands") {
            for op in named_children(ops) {
                let Some(value) = op.child_by_field_name("value") else {
                    continue;
                };
                let lv = self.lvalue(value)?;
                operands.push(None);
                outputs.push(lv);
            }
        }
        if let Some(ops) = n.child_by_field_name("input_operands") {
            for op in named_children(ops) {
                match op.child_by_field_name("value") {
                    Some(value) => operands.push(Some(self.rvalue(value)?)),
                    None => operands.push(None),
                }
            }
        }
        for ins in &instrs {
            self.ptx_instruction(ins, &operands, n)?;
        }
        // A barrier is `--strip`'s to move only when the `asm` is nothing else (its text
        // is deleted): one written with a fence or other instructions stays where it is.
        let barriers = instrs
            .iter()
            .filter(|i| matches!(classify(&i.opcode), Effect::Barrier))
            .count();
        if barriers > 0 && (instrs.len() > 1 || !operands.is_empty()) {
            let s = self.scratch();
            self.emit(StmtKind::havoc(s), self.span(n));
        }
        for lv in outputs {
            let ty = self.lval_type(&lv);
            self.write(&lv, arbitrary(&ty), n)?;
        }
        Ok(Value::void())
    }

    fn ptx_instruction(&mut self, ins: &Instr, operands: &[Option<Value>], n: Node<'t>) -> R<()> {
        let span = self.span(n);
        match classify(&ins.opcode) {
            Effect::Register | Effect::Fence => Ok(()),
            Effect::Unsupported(why) => Err(self.unsupported(
                n,
                &format!("inline PTX `{}` ({why})", ins.opcode),
                "autosync models loads, stores, atomics, fences, block and warp barriers and register \
                 arithmetic in inline PTX; write this with CUDA builtins, or check the kernel without it",
            )),
            Effect::Barrier | Effect::WarpBarrier if ins.predicated => Err(self.unsupported(
                n,
                &format!("inline PTX `{}` under a guard predicate", ins.opcode),
                "a barrier that only some threads may execute is not modelled; use __syncthreads() \
                 outside the condition",
            )),
            Effect::Barrier => {
                let (id, counted) = barrier_operands(&ins.operands);
                if id.and_then(|id| self.ptx_constant(id, operands)).is_none() {
                    return Err(self.unsupported(
                        n,
                        &format!(
                            "inline PTX `{}` with a barrier number that is not a constant",
                            ins.opcode
                        ),
                        "threads waiting at different named barriers are not modelled",
                    ));
                }
                if counted {
                    return Err(self.unsupported(
                        n,
                        &format!("inline PTX `{}` with a thread count", ins.opcode),
                        "a barrier for part of the block is not modelled",
                    ));
                }
                self.emit(StmtKind::Barrier, span);
                Ok(())
            }
            Effect::WarpBarrier => {
                let (mask, _) = barrier_operands(&ins.operands);
                let full = mask
                    .and_then(|m| self.ptx_constant(m, operands))
                    .is_some_and(crate::lower::fold::full_warp_mask);
                // A partial mask synchronizes only some lanes: no synchronization (sound).
                if full {
                    self.emit(StmtKind::WarpBarrier, span);
                }
                Ok(())
            }
            Effect::Read(w) => self.ptx_access(ins, operands, w, Access::Read, n),
            Effect::Write(w) => self.ptx_access(ins, operands, w, Access::Write, n),
            Effect::Atomic => self.ptx_access(ins, operands, Width::Anywhere, Access::Atomic, n),
        }
    }

    /// The value of a PTX operand that is a literal or a constant `%N`.
    fn ptx_constant(&self, op: &str, operands: &[Option<Value>]) -> Option<i64> {
        if let Some(k) = op.strip_prefix('%').and_then(|k| k.parse::<usize>().ok()) {
            return match operands.get(k)?.as_ref()?.v {
                V::Int(ref e) => fold::int(e),
                _ => None,
            };
        }
        parse_int(op)
    }

    /// A load, store or atomic of an instruction's memory operand.
    fn ptx_access(
        &mut self,
        ins: &Instr,
        operands: &[Option<Value>],
        width: Width,
        access: Access,
        n: Node<'t>,
    ) -> R<()> {
        let span = self.span(n);
        let space = state_space(&ins.opcode);
        let addr = address(&ins.operands);
        let base = addr
            .as_ref()
            .and_then(|a| a.operand)
            .and_then(|k| operands.get(k).cloned().flatten());
        if let Some(Value { v: V::Ptr(p), .. }) = &base {
            match p.target {
                Target::Array(a) if self.arrays[a].space != ArraySpace::Private => {
                    let disp = addr.as_ref().map_or(0, |a| a.disp);
                    let cells = match width {
                        Width::Bytes(b) if disp != i64::MIN => {
                            let sign = if disp < 0 { -1 } else { 1 };
                            let at = self.advance(p, Expr::Int(sign), disp.unsigned_abs());
                            Some(self.cells(a, &at, b))
                        }
                        _ => None,
                    };
                    self.ptx_touch(a, cells, access, span);
                    return Ok(());
                }
                Target::Array(_) => return Ok(()),
                Target::Var(id) => {
                    if access != Access::Read {
                        // A store into a variable through its address: its value is lost.
                        let ty = self.vars[id].ty.clone();
                        self.write(&LVal::Var(id), arbitrary(&ty), n)?;
                    }
                    return Ok(());
                }
                Target::Null | Target::Unknown => {}
            }
        }
        if space == StateSpace::Private {
            // Local memory is private and `.const`/`.param` are read-only: nothing races
            // there, but a store may change a variable whose address was taken.
            if access == Access::Read {
                return Ok(());
            }
            return Err(self.unsupported(
                n,
                &format!("inline PTX `{}` to an address autosync cannot follow", ins.opcode),
                "a store to local memory may change any variable whose address is taken",
            ));
        }
        // An address autosync cannot follow: some element of every array of the space.
        let arrays = self.reachable_arrays(
            matches!(space, StateSpace::Shared | StateSpace::Generic),
            matches!(space, StateSpace::Global | StateSpace::Generic),
        );
        for a in arrays {
            self.ptx_touch(a, None, access, span);
        }
        Ok(())
    }

    /// Emits the access of array `a`: of the given cells, or of some element.
    fn ptx_touch(&mut self, a: usize, cells: Option<Vec<Expr>>, access: Access, span: Span) {
        let array = self.arrays[a].kpl.clone();
        let cells = match cells {
            Some(c) => c,
            None => vec![Expr::Var(self.local("_i", None, span))],
        };
        for index in cells {
            match access {
                Access::Read => self.emit_opaque_read(&array, index, span),
                Access::Write => self.emit_opaque_write(&array, index, span),
                Access::Atomic => {
                    let s = self.scratch();
                    self.emit(StmtKind::havoc(s.clone()), span);
                    self.emit(
                        StmtKind::Atomic {
                            var: None,
                            op: AtomicOp::Exch,
                            array: array.clone(),
                            index,
                            value: Expr::Var(s),
                            ty: None,
                        },
                        span,
                    );
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    Atomic,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(code: &str) -> Vec<String> {
        instructions(code).into_iter().map(|i| i.opcode).collect()
    }

    #[test]
    fn comments_and_literals_are_read_as_the_compilers_read_them() {
        // A C++ comment between literals is not PTX; adjacent literals join with
        // nothing between them, so a `//` in one comments out the next.
        let code = "\"st.shared.u32 [%1], %2;\\n\"\n  // \"bar.sync 0;\\n\"\n  \"ld.shared.u32 %0, [%3];\"";
        assert_eq!(ops(code), ["st.shared.u32", "ld.shared.u32"]);
        let code = "\"st.shared.u32 [%0], %1; // then wait \" \"bar.sync 0;\"";
        assert_eq!(ops(code), ["st.shared.u32"]);
        // Block comments across lines; `\x0a` and `\012` are newlines.
        let code = "\"st.shared.u32 [%1], %2 /* no barrier:\\n\" \"bar.sync 0;\\n\" \"// */;\\n\" \"ld.shared.u32 %0, [%3];\"";
        assert_eq!(ops(code), ["st.shared.u32", "ld.shared.u32"]);
        assert_eq!(ops("\"// note\\x0a st.shared.u32 [%0], %1;\""), ["st.shared.u32"]);
        assert_eq!(ops("\"// note\\012 st.shared.u32 [%0], %1;\""), ["st.shared.u32"]);
        let guarded = instructions("\"@p bar.sync 0;\"");
        assert!(guarded[0].predicated);
    }

    #[test]
    fn instructions_drop_braces_labels_predicates_and_directives() {
        let code = r#""{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p st.shared.u32 [%0], %1;\nL1: bar.sync 0; // done\n}""#;
        assert_eq!(ops(code), ["setp.ne.b32", "st.shared.u32", "bar.sync"]);
        assert_eq!(
            ops(r#""ld.global.f32 %0, [%1];" "\n" "mov.u32 %0, %%laneid;""#),
            ["ld.global.f32", "mov.u32"]
        );
        assert!(ops(r#""""#).is_empty());
    }

    #[test]
    fn every_memory_opcode_is_modelled_or_unsupported() {
        use Effect::*;
        assert_eq!(
            classify("ldmatrix.sync.aligned.m8n8.x1.shared.b16"),
            Read(Width::Anywhere)
        );
        assert_eq!(
            classify("stmatrix.sync.aligned.m8n8.x4.shared.b16"),
            Write(Width::Anywhere)
        );
        assert_eq!(classify("ld.shared.v4.f32"), Read(Width::Bytes(16)));
        assert_eq!(classify("ldu.global.u16"), Read(Width::Bytes(2)));
        assert_eq!(classify("st.global.wb.b64"), Write(Width::Bytes(8)));
        assert_eq!(classify("st.shared.f16x2"), Write(Width::Bytes(4)));
        assert_eq!(classify("red.global.add.u32"), Atomic);
        assert_eq!(classify("atom.shared.cas.b32"), Atomic);
        assert_eq!(classify("bar.sync"), Barrier);
        assert_eq!(classify("barrier.sync.aligned"), Barrier);
        assert_eq!(classify("bar.warp.sync"), WarpBarrier);
        assert_eq!(classify("fence.acq_rel.gpu"), Fence);
        assert_eq!(classify("mov.u32"), Register);
        for op in [
            "cp.async.ca.shared.global",
            "cp.reduce.async.bulk.global.shared::cta.add.u32",
            "st.async.shared::cluster.b32",
            "red.async.relaxed.cluster.shared::cluster.add.u32",
            "multimem.ld_reduce.global.add.u32",
            "mbarrier.arrive.shared.b64",
            "bar.arrive",
            "barrier.cluster.arrive",
            "sust.b.1d.b32.trap",
            "st.shared::cluster.u32",
            "mapa.shared::cluster.u32",
            "exit",
            "frobnicate.u32",
            "ldx.global.u32",
        ] {
            assert!(matches!(classify(op), Unsupported(_)), "{op}");
        }
    }

    #[test]
    fn addresses_and_spaces() {
        assert_eq!(
            address("%0, [%1]"),
            Some(Address {
                operand: Some(1),
                disp: 0
            })
        );
        assert_eq!(
            address("[%2 + 8], %3"),
            Some(Address {
                operand: Some(2),
                disp: 8
            })
        );
        assert_eq!(
            address("%0, [%1-4]"),
            Some(Address {
                operand: Some(1),
                disp: -4
            })
        );
        assert_eq!(
            address("%0, [addr]"),
            Some(Address {
                operand: None,
                disp: 0
            })
        );
        assert_eq!(address("%0, %1"), None);
        assert_eq!(state_space("ld.shared::cta.u32"), StateSpace::Shared);
        assert_eq!(state_space("st.global.u32"), StateSpace::Global);
        assert_eq!(state_space("ld.u32"), StateSpace::Generic);
        assert_eq!(state_space("ld.param.u32"), StateSpace::Private);
    }
}
