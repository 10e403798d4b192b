//! Calls of functions the file does not define (declared only, defined in another file
//! or in a library header that was not read): their results are arbitrary, and they
//! may read and write everything their arguments reach (docs/semantics.md,
//! "Soundness"; the verifier's deviations list says what is assumed).
//!
//! - a pointer (also one held in a struct argument): some element of the array it
//!   points into ([`Lowerer::pointer_effects`]);
//! - an l-value argument a callee may take by non-`const` reference ([`Passing`]):
//!   exactly that place, read and written with an arbitrary value;
//! - the object of a method the file declares but does not define, or of a method of a
//!   type it does not define: likewise;
//! - an object of a type the file does not define holds what it was constructed from
//!   ([`Lowerer::construct_unknown`], `Lowerer::held`), and its methods reach that;
//! - CUB's block-wide collectives (`cub::BlockReduce(temp).Sum(x)`) are modelled by
//!   their documented contract instead ([`Lowerer::block_collective`]).

use tree_sitter::Node;

use super::super::expr::{Ref, arbitrary};
use super::super::{ArrayKey, ArraySpace, LVal, Lowerer, Offset, Ptr, R, Target, V, Value, VarKind, fold};
use crate::types::Ty;
use kpl::ir::{Expr, StmtKind};

impl<'p, 't> Lowerer<'p, 't> {
    /// A call of a function the file does not define, with its arguments evaluated
    /// (values, or the places a reference argument names): an arbitrary result, and
    /// every effect it may have on the memory its arguments reach (see [`Passing`]).
    pub(in crate::lower) fn unknown_function(&mut self, name: &str, vals: &[Value], n: Node<'t>) -> Value {
        let argv = vals.iter().cloned().map(Ref::V).collect();
        match self.unknown_call(name, argv, &[], None, n) {
            Ok(v) => v,
            Err(_) => Value::arb(Ty::Opaque(name.to_string())),
        }
    }

    /// A call of a function or method the file does not define: what it may do to
    /// each argument (by `passing`, else [`Passing::Unknown`], or [`Passing::Value`]
    /// for the implementation's `__` intrinsics, which take no references) and to the
    /// object `this` of a method.
    pub(in crate::lower) fn unknown_call(
        &mut self,
        name: &str,
        argv: Vec<Ref>,
        passing: &[Passing],
        this: Option<(LVal, Passing)>,
        n: Node<'t>,
    ) -> R<Value> {
        self.note(format!(
            "`{name}` is not defined in this file: its result is taken as arbitrary, and it may read and write \
             everything its arguments reach (what pointers point to, arguments it may take by reference, \
             the object of a method)"
        ));
        self.unknown_effects(name, argv, passing, this, n)
    }

    /// What [`Lowerer::unknown_call`] does besides its note: an arbitrary result, and
    /// the effects the call may have on what its arguments and object reach.
    pub(in crate::lower) fn unknown_effects(
        &mut self,
        name: &str,
        argv: Vec<Ref>,
        passing: &[Passing],
        this: Option<(LVal, Passing)>,
        n: Node<'t>,
    ) -> R<Value> {
        let default = if name.starts_with("__") {
            Passing::Value
        } else {
            Passing::Unknown
        };
        // A method may keep what it is given in its object (`w.attach(s)`).
        let object = match &this {
            Some((obj, _)) => match self.referent(obj) {
                LVal::Var(id) if matches!(self.vars[id].kind, VarKind::Arb) => Some(id),
                _ => None,
            },
            None => None,
        };
        if let Some(id) = object {
            if self.held.contains_key(&id) {
                let kept = self.holdings(&argv, n);
                self.hold(id, kept);
            } else if matches!(self.vars[id].ty, Ty::Opaque(_)) {
                self.reach_anything(n);
            }
        }
        for (i, a) in argv.into_iter().enumerate() {
            let how = passing.get(i).copied().unwrap_or(default);
            self.unknown_argument(a, how, n)?;
        }
        if let Some((obj, how)) = this {
            self.unknown_argument(Ref::L(obj), how, n)?;
        }
        Ok(Value::arb(Ty::Opaque(name.to_string())))
    }

    /// What a function the file does not define may do with one argument: read it, and
    /// read and write some element of every array a pointer in it points into (also
    /// pointers held in a struct); when it may take the argument by non-`const`
    /// reference, also write the place the argument names (exactly that place: a
    /// reference is not used to reach its neighbours), pointers in it keeping their
    /// array but not their offset.
    fn unknown_argument(&mut self, a: Ref, how: Passing, n: Node<'t>) -> R<()> {
        let lv = match a {
            Ref::V(v) if how == Passing::ConstPointee => return self.const_pointee_effects(&v, n),
            Ref::V(v) => {
                self.reach_effects(&v, n)?;
                return Ok(());
            }
            Ref::L(lv) => lv,
        };
        let ty = self.lval_type(&lv);
        if ty.is_array() {
            // An array argument decays to a pointer to its first element.
            let v = match &lv {
                LVal::Mem(p, _) => Value {
                    v: V::Ptr(p.clone()),
                    ty: Ty::ptr(Ty::Void),
                },
                _ => self.read(&lv, n)?,
            };
            if how == Passing::ConstPointee {
                return self.const_pointee_effects(&v, n);
            }
            self.reach_effects(&v, n)?;
            return Ok(());
        }
        let v = self.read(&lv, n)?;
        self.read_object(&lv, n);
        if how == Passing::ConstPointee {
            return self.const_pointee_effects(&v, n);
        }
        self.reach_effects(&v, n)?;
        match how {
            // Declared `T *&p`: the callee may move the pointer (within its array).
            Passing::Ref => match self.referent(&lv) {
                LVal::Var(id) if matches!(self.vars[id].kind, VarKind::Ptr { .. }) => {
                    self.overwrite_var(id, n)?
                }
                _ => self.havoc_place(&lv, n)?,
            },
            Passing::Unknown => self.havoc_place(&lv, n)?,
            Passing::Value | Passing::ConstRef | Passing::ConstPointee => {}
        }
        Ok(())
    }

    /// Effects of an unknown function through a pointer to `const`: a read of some element
    /// of the array it points into; a variable it points to is only read, but the
    /// pointers that variable holds reach memory the callee may write.
    fn const_pointee_effects(&mut self, v: &Value, n: Node<'t>) -> R<()> {
        let span = self.span(n);
        let V::Ptr(p) = &v.v else {
            return self.reach_effects(v, n);
        };
        match p.target {
            Target::Array(a) if matches!(self.arrays[a].space, ArraySpace::Shared | ArraySpace::Global) => {
                let array = self.arrays[a].kpl.clone();
                let i = self.local("_i", None, span);
                self.emit_opaque_read(&array, Expr::Var(i), span);
                Ok(())
            }
            Target::Var(id) => {
                let held = self.read(&LVal::Var(id), n)?;
                let mut ptrs = Vec::new();
                pointers_in(&held, &mut ptrs);
                self.pointer_effects_at(&ptrs, n, false, 1)
            }
            _ => self.reach_effects(v, n),
        }
    }

    /// Effects of an unknown function on what a value's pointers point to.
    fn reach_effects(&mut self, v: &Value, n: Node<'t>) -> R<()> {
        let mut ptrs = Vec::new();
        pointers_in(v, &mut ptrs);
        self.pointer_effects(&ptrs, n, false)
    }

    /// The KPL array and the cells an object in memory covers (a large object: one
    /// cell of some element, which stands for all of them where races are concerned).
    fn object_cells(&mut self, p: &Ptr, ty: &Ty, n: Node<'t>) -> Option<(String, Vec<Expr>)> {
        let Target::Array(a) = p.target else {
            return None;
        };
        let bytes = u32::try_from(ty.layout().0).unwrap_or(u32::MAX);
        let cells = if bytes / self.arrays[a].cell.max(1) > MAX_OBJECT_CELLS {
            let span = self.span(n);
            vec![Expr::Var(self.local("_i", None, span))]
        } else {
            self.cells(a, p, bytes)
        };
        Some((self.arrays[a].kpl.clone(), cells))
    }

    /// A read of every cell of an object in memory (array members included).
    fn read_object(&mut self, lv: &LVal, n: Node<'t>) {
        let LVal::Mem(p, ty) = self.referent(lv) else {
            return;
        };
        if !is_object(&ty) {
            return;
        }
        if let Some((array, cells)) = self.object_cells(&p, &ty, n) {
            let span = self.span(n);
            for index in cells {
                self.emit_opaque_read(&array, index, span);
            }
        }
    }

    /// What an unknown function that takes `lv` by non-`const` reference may leave
    /// there: arbitrary numbers in memory cells and in integer and floating-point
    /// variables (struct fields one by one; an integer held as a constant becomes a
    /// variable). *Assumed*, for a pointer variable (where it points is not changed) and
    /// untracked values (opaque objects, which keep what they hold): the callee leaves it
    /// as it is.
    /// C++ makes a callee that takes a variable by reference visible to the file (a
    /// declaration before the call); the file's declarations mark such arguments
    /// assigned (`stmt::assigned_names`), so this concerns functions of headers not read.
    fn havoc_place(&mut self, lv: &LVal, n: Node<'t>) -> R<()> {
        let lv = self.referent(lv);
        match &lv {
            LVal::Var(id) => match self.vars[*id].kind.clone() {
                VarKind::Int(_) | VarKind::Float(_) => {
                    let ty = self.vars[*id].ty.clone();
                    self.write(&lv, arbitrary(&ty), n)
                }
                VarKind::Fixed(e) if self.vars[*id].ty.is_int() => {
                    // A variable the lowering took for a constant (never assigned in its
                    // function): from here on a KPL local, which the callee may change.
                    // Reads before the call saw the constant, which is right only where no
                    // loop lies between its declaration and the call.
                    if self.vars[*id].declared_at != (self.frames.len(), self.frame().loops) {
                        return Err(self.unsupported(
                            n,
                            &format!(
                                "a call of a function the file does not define that may change `{}` inside a loop",
                                self.vars[*id].name
                            ),
                            "declare the function in the file (its parameters say whether it takes a reference), \
                             or pass the folder of its header with -I",
                        ));
                    }
                    let span = self.span(n);
                    let name = self.vars[*id].name.clone();
                    let local = self.mutable_local(&name, Some(e), span);
                    self.vars[*id].kind = VarKind::Int(local);
                    let ty = self.vars[*id].ty.clone();
                    self.write(&lv, arbitrary(&ty), n)
                }
                VarKind::Struct(fields) => fields
                    .into_iter()
                    .try_for_each(|f| self.havoc_place(&LVal::Var(f), n)),
                _ => Ok(()),
            },
            LVal::Mem(p, ty) if is_object(ty) => {
                // An object (a struct with array members, an array): every cell it covers.
                if let Some((array, cells)) = self.object_cells(p, ty, n) {
                    let span = self.span(n);
                    for index in cells {
                        self.emit_opaque_write(&array, index, span);
                    }
                }
                Ok(())
            }
            LVal::Mem(_, ty) => {
                let ty = ty.clone();
                self.write(&lv, arbitrary(&ty), n)
            }
            LVal::Private(_) => Ok(()),
        }
    }

    /// `T(args)` for a type the file does not define (a library's `BlockReduce(temp)`):
    /// an unknown constructor, and an object that holds what its arguments reach (the
    /// place of each l-value argument, which it may keep a reference to, and the
    /// pointers in each value), for its methods.
    pub(in crate::lower) fn construct_unknown(
        &mut self,
        name: &str,
        args: &[Node<'t>],
        n: Node<'t>,
    ) -> R<Value> {
        let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
        if let Some(v) = self.construct_collective(name, &argv) {
            return Ok(v);
        }
        let held = self.holdings(&argv, n);
        let short = name
            .split('<')
            .next()
            .unwrap_or(name)
            .rsplit("::")
            .next()
            .unwrap_or(name);
        self.unknown_call(short, argv, &[], None, n)?;
        Ok(Value {
            v: V::Struct(held),
            ty: Ty::Opaque(name.to_string()),
        })
    }

    /// What an object may keep of the arguments it is given (by a constructor or a
    /// method): the place of each l-value argument (it may keep a reference) and the
    /// value of each argument (pointers in it).
    fn holdings(&mut self, argv: &[Ref], n: Node<'t>) -> Vec<Value> {
        let mut held = Vec::new();
        for a in argv {
            let a = match a {
                Ref::L(lv) => &Ref::L(self.referent(lv)),
                v => v,
            };
            match a {
                Ref::L(LVal::Mem(p, ty)) => held.push(Value {
                    v: V::Ptr(p.clone()),
                    ty: Ty::ptr(ty.clone()),
                }),
                Ref::L(LVal::Var(id)) => {
                    let id = *id;
                    let ty = self.vars[id].ty.clone();
                    if let Ok(v) = self.read(&LVal::Var(id), n) {
                        held.push(v);
                    }
                    held.push(Value {
                        v: V::Ptr(Ptr {
                            target: Target::Var(id),
                            off: Expr::Int(0),
                            unit: 1,
                        }),
                        ty: Ty::ptr(ty),
                    });
                }
                Ref::L(LVal::Private(_)) => {}
                Ref::V(v) => held.push(v.clone()),
            }
        }
        held
    }

    /// A name nothing declares, in a file with parts that were not read (a header not
    /// found, an `#error` read past): it may be a macro of them, whose expansion may be
    /// anything (an access of an array in scope, a barrier, a `return`), so the kernel
    /// is unsupported. In a complete file such a name is a function or constant of a
    /// library header autosync skips (`docs/semantics.md`, "Soundness").
    pub(in crate::lower) fn undeclared_in_incomplete_file(&self, name: &str, n: Node<'t>) -> R<()> {
        match self.prog.map.unread.first() {
            Some(source) => Err(self.unsupported(
                n,
                &format!("`{name}` is declared nowhere: it may be a macro of {source}"),
                "pass the folder of the missing header with -I (or the build's -D flags)",
            )),
            None => Ok(()),
        }
    }

    /// A method call on an object of a type the file does not define whose holdings
    /// are not known (a parameter, a copy the lowering did not follow): it may reach
    /// anything, some element of every shared and global array.
    fn reach_anything(&mut self, n: Node<'t>) {
        let span = self.span(n);
        for a in self.reachable_arrays(true, true) {
            self.touch_some_element(a, span);
        }
    }

    /// A read and a write of some element of array `a`.
    fn touch_some_element(&mut self, a: usize, span: kpl::ir::Span) {
        let array = self.arrays[a].kpl.clone();
        let i = self.local("_i", None, span);
        self.emit_opaque_read(&array, Expr::Var(i.clone()), span);
        self.emit_opaque_write(&array, Expr::Var(i), span);
    }

    /// How a declared function takes each parameter.
    pub(super) fn passing(&self, f: usize) -> Vec<Passing> {
        self.prog.funcs[f]
            .params()
            .iter()
            .map(|p| {
                // The declarator chain: `&r` is a reference, `*&p` (tree-sitter's
                // pointer declarator around a reference one) a reference to a pointer.
                let mut chain = Vec::new();
                let mut d = p.child_by_field_name("declarator");
                while let Some(x) = d {
                    chain.push(x.kind());
                    d = x
                        .child_by_field_name("declarator")
                        .or_else(|| crate::program::named_children(x).into_iter().next())
                        .filter(|c| c.kind().ends_with("declarator"));
                }
                let reference = chain.iter().any(|k| k.ends_with("reference_declarator"));
                // `const T &`: the referred type is const; `const T *&` is a reference to
                // a (non-const) pointer.
                let to_pointer = chain.iter().any(|k| k.ends_with("pointer_declarator"));
                let constant = !to_pointer
                    && p.child_by_field_name("type").is_some_and(|_| {
                        let t = self.text(*p);
                        t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .any(|w| w == "const")
                    });
                // `const T *p` (or `T const *p`): a pointer to `const`, through which the
                // callee only reads; `T *const p` is a const pointer to a writable `T`.
                let words = |t: &str| {
                    t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == "const")
                };
                let text = self.text(*p);
                let const_pointee = to_pointer
                    && !reference
                    && chain.iter().filter(|k| k.ends_with("pointer_declarator")).count() == 1
                    && text.split_once('*').is_some_and(|(before, _)| words(before));
                match (reference, constant) {
                    (true, true) => Passing::ConstRef,
                    (true, false) => Passing::Ref,
                    (false, _) if const_pointee => Passing::ConstPointee,
                    (false, _) => Passing::Value,
                }
            })
            .collect()
    }

    /// How a declared method takes its object: a `const` method only reads it.
    pub(super) fn object_passing(&self, f: usize) -> Passing {
        let d = self.prog.funcs[f].declarator;
        let after_params = d.child_by_field_name("parameters").map_or("", |p| {
            self.prog.src.get(p.end_byte()..d.end_byte()).unwrap_or("")
        });
        if after_params
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "const")
        {
            Passing::ConstRef
        } else {
            Passing::Ref
        }
    }

    /// What an unknown function may do with pointer arguments: read and write some
    /// element of shared or global memory; through `&x`, change `x` and follow the
    /// pointers `x` holds. A builtin (`known`) only writes the variables it is given
    /// (`sincosf(a, &s, &c)`).
    pub(in crate::lower) fn pointer_effects(&mut self, vals: &[Value], n: Node<'t>, known: bool) -> R<()> {
        self.pointer_effects_at(vals, n, known, 0)
    }

    fn pointer_effects_at(&mut self, vals: &[Value], n: Node<'t>, known: bool, depth: u32) -> R<()> {
        let span = self.span(n);
        for v in vals {
            let V::Ptr(p) = &v.v else { continue };
            match p.target {
                Target::Array(a)
                    if !known && matches!(self.arrays[a].space, ArraySpace::Shared | ArraySpace::Global) =>
                {
                    self.touch_some_element(a, span);
                }
                // A private array (`float *rows[2] = {a, b}`): the lowering does not keep
                // what it holds, so unless it holds only numbers, the pointers in it may
                // reach any shared or global array.
                Target::Array(a)
                    if !known
                        && self.arrays[a].space == ArraySpace::Private
                        && !v
                            .ty
                            .pointee()
                            .is_some_and(|t| t.is_int() || matches!(t, Ty::Float { .. })) =>
                {
                    self.reach_anything(n);
                }
                Target::Var(id) if known => {
                    let ty = self.vars[id].ty.clone();
                    if self.write(&LVal::Var(id), arbitrary(&ty), n).is_err() {
                        // A constant passed by address cannot change.
                    }
                }
                Target::Var(id) => {
                    // What the variable holds is reachable too (`Box b; b.p = s;
                    // put(&b);`, `int *p = s; put(&p);`); a struct that points to itself
                    // is followed a few levels deep.
                    if depth < 4 {
                        let held = self.read(&LVal::Var(id), n)?;
                        let mut ptrs = Vec::new();
                        pointers_in(&held, &mut ptrs);
                        self.pointer_effects_at(&ptrs, n, false, depth + 1)?;
                    }
                    self.overwrite_var(id, n)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// What an unknown function given `&x` may leave in `x`: arbitrary numbers, and
    /// pointers into the same arrays at arbitrary offsets (*assumed*: it does not make
    /// them point into another array), field by field.
    pub(in crate::lower) fn overwrite_var(&mut self, id: usize, n: Node<'t>) -> R<()> {
        match self.vars[id].kind.clone() {
            VarKind::Int(_) | VarKind::Float(_) => {
                let ty = self.vars[id].ty.clone();
                self.write(&LVal::Var(id), arbitrary(&ty), n)
            }
            VarKind::Struct(fields) => fields.into_iter().try_for_each(|f| self.overwrite_var(f, n)),
            VarKind::Ptr {
                target: Some(target),
                unit,
                off: Offset::Local(_),
            } if !matches!(target, Target::Null | Target::Unknown) => {
                let span = self.span(n);
                let off = self.local("_off", None, span);
                let ty = self.vars[id].ty.clone();
                let v = Value {
                    v: V::Ptr(Ptr {
                        target,
                        off: Expr::Var(off),
                        unit,
                    }),
                    ty,
                };
                self.write(&LVal::Var(id), v, n)
            }
            VarKind::Ref(inner) => self.havoc_place(&inner, n),
            // Untracked values stay untracked; a pointer not yet pointing anywhere is
            // not followed; a variable the lowering holds as fixed (a pointer the
            // kernel never assigns, a parameter) is left as it is (see `havoc_place`).
            _ => Ok(()),
        }
    }
}

/// How a function the file does not define may take an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lower) enum Passing {
    /// By value (a copy): only what pointers in it point to can change.
    Value,
    /// By `const` reference: read, and what pointers in it point to.
    ConstRef,
    /// A pointer to `const` (`const float *p`), by value: what it points to is only read
    /// (*assumed*: the callee does not cast the `const` away and write), and what the
    /// pointers held there point to may be written.
    ConstPointee,
    /// By reference: the place the argument names may be written.
    Ref,
    /// No declaration says: possibly by non-`const` reference.
    Unknown,
}

/// The pointers in a value (its fields' too).
/// An array member's value is the array itself, part of the object (its cells are
/// the object's, [`Lowerer::read_object`]), not a pointer the object holds.
fn pointers_in(v: &Value, out: &mut Vec<Value>) {
    match &v.v {
        V::Ptr(_) if v.ty.is_array() => {}
        V::Ptr(_) => out.push(v.clone()),
        V::Struct(fields) => {
            let declared: Vec<Option<&Ty>> = match v.ty.as_struct() {
                Some(s) if s.fields.len() == fields.len() => s.fields.iter().map(|(_, t)| Some(t)).collect(),
                _ => vec![None; fields.len()],
            };
            for (f, t) in fields.iter().zip(declared) {
                if !t.is_some_and(Ty::is_array) {
                    pointers_in(f, out);
                }
            }
        }
        _ => {}
    }
}

/// Whether a value of this type in memory is an object of several cells (a struct,
/// an array) rather than one scalar.
fn is_object(ty: &Ty) -> bool {
    !ty.is_int() && !matches!(ty, Ty::Float { .. } | Ty::Ptr(_))
}

/// The cells of an object an unknown function may write one by one; a larger object
/// gets one write of some element.
const MAX_OBJECT_CELLS: u32 = 256;

/// Library functions (not read: their headers are not on this machine) that take their
/// arguments by value or `const` reference, by namespace: their l-value arguments are
/// only read.
const READ_ONLY_LIBRARY_FUNCTIONS: &[(&str, &[&str])] = &[
    (
        "cooperative_groups",
        &[
            "reduce",
            "inclusive_scan",
            "exclusive_scan",
            "plus",
            "less",
            "greater",
            "bit_and",
            "bit_or",
            "bit_xor",
        ],
    ),
    (
        "std",
        &[
            "min", "max", "clamp", "abs", "fabs", "sqrt", "exp", "log", "pow", "floor", "ceil", "isnan",
            "isinf",
        ],
    ),
    (
        "cuda::std",
        &[
            "min", "max", "clamp", "abs", "fabs", "sqrt", "exp", "log", "pow", "floor", "ceil", "isnan",
            "isinf",
        ],
    ),
];

/// Whether the library function `ns::name` only reads its arguments
/// ([`READ_ONLY_LIBRARY_FUNCTIONS`]; `cg` is `cooperative_groups` where no alias says).
pub(in crate::lower) fn library_reads_only(ns: &str, name: &str) -> bool {
    let ns = ns.trim_start_matches("::");
    let ns = if ns == "cg" { "cooperative_groups" } else { ns };
    READ_ONLY_LIBRARY_FUNCTIONS
        .iter()
        .any(|(n, names)| *n == ns && names.contains(&name))
}

/// CUB's block-wide collectives: each method call is a collective of the whole block on
/// the temporary storage the object was constructed with.
const BLOCK_COLLECTIVES: &[&str] = &[
    "BlockReduce",
    "BlockScan",
    "BlockExchange",
    "BlockRadixSort",
    "BlockMergeSort",
    "BlockHistogram",
    "BlockDiscontinuity",
    "BlockAdjacentDifference",
    "BlockShuffle",
    "BlockRunLengthDecode",
];

/// Whether a type the file does not define (`cub::BlockReduce<int, 128>`, or the
/// `BlockScan<T, 256>` that the front end keeps of it) is one of CUB's block-wide
/// collectives.
pub(in crate::lower) fn is_block_collective(ty: &str) -> bool {
    let base = ty.trim().trim_start_matches("typename").trim();
    let base = base.split('<').next().unwrap_or(base).trim();
    match base.rsplit_once("::") {
        Some((ns, name)) => ns.trim_start_matches("::") == "cub" && BLOCK_COLLECTIVES.contains(&name),
        None => BLOCK_COLLECTIVES.contains(&base),
    }
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The place an l-value names, through reference variables (a `__shared__`
    /// variable is a reference to its cell).
    fn referent(&self, lv: &LVal) -> LVal {
        match lv {
            LVal::Var(id) => match &self.vars[*id].kind {
                VarKind::Ref(inner) => self.referent(inner),
                _ => lv.clone(),
            },
            _ => lv.clone(),
        }
    }

    /// `cub::BlockReduce<T, N>(temp)`: the object holds its temporary storage (a place
    /// in shared memory); the constructor touches nothing. `None` when the type is not a
    /// CUB block collective or the arguments are not exactly one shared l-value (then
    /// the object is any unknown one).
    fn construct_collective(&mut self, name: &str, argv: &[Ref]) -> Option<Value> {
        if !is_block_collective(name) {
            return None;
        }
        let (p, ty) = match argv {
            // `BlockReduce()`: CUB's private storage, one `__shared__` object per
            // collective type.
            [] => {
                let a = self.array(
                    ArrayKey::Global(format!("{name} private storage")),
                    "__cub_private_storage",
                    ArraySpace::Shared,
                    4,
                );
                let p = Ptr {
                    target: Target::Array(a),
                    off: Expr::Int(0),
                    unit: 4,
                };
                (p, Ty::Opaque(name.to_string()))
            }
            [Ref::L(lv)] => match self.referent(lv) {
                LVal::Mem(p, ty) => (p, ty),
                _ => return None,
            },
            _ => return None,
        };
        let Target::Array(a) = p.target else {
            return None;
        };
        if self.arrays[a].space != ArraySpace::Shared {
            return None;
        }
        Some(Value {
            v: V::Struct(vec![Value {
                v: V::Ptr(p.clone()),
                ty: Ty::ptr(ty.clone()),
            }]),
            ty: Ty::Opaque(name.to_string()),
        })
    }

    /// A method of a CUB block collective, as CUB documents it: every thread of the
    /// block takes part (so it contains a barrier, which must not diverge), it writes
    /// the temporary storage and reads what other threads wrote there after the
    /// barrier, and the storage may be reused only after a further barrier. Modelled as
    /// each thread updating some slot atomically, a barrier, each thread reading some
    /// slot: two calls on one storage with no barrier between them race (the reads of
    /// the first with the updates of the second), and so does a plain use of the
    /// storage in the interval of a call. The inputs of `Sum`, `Reduce` and the scans
    /// are read; other arguments are those of an unknown function.
    pub(in crate::lower) fn block_collective(
        &mut self,
        ty: &Ty,
        method: &str,
        storage: Ptr,
        argv: Vec<Ref>,
        n: Node<'t>,
    ) -> R<Value> {
        let p = storage;
        let Target::Array(a) = p.target else {
            return Ok(arbitrary(&Ty::Opaque(method.to_string())));
        };
        self.note(format!(
            "`{method}` of `{ty}` (CUB) is modelled as its documentation states it: a collective of every \
             thread of the block that writes and reads its temporary storage, with a barrier inside; reusing \
             the storage needs a __syncthreads() in between"
        ));
        let takes_input = matches!(
            method,
            "Sum" | "Reduce" | "InclusiveSum" | "ExclusiveSum" | "InclusiveScan" | "ExclusiveScan"
        );
        for (i, arg) in argv.into_iter().enumerate() {
            let how = if i == 0 && takes_input {
                Passing::ConstRef
            } else {
                Passing::Unknown
            };
            self.unknown_argument(arg, how, n)?;
        }
        let span = self.span(n);
        let array = self.arrays[a].kpl.clone();
        let base = fold::div(
            fold::mul(p.off.clone(), Expr::Int(p.unit.max(1) as i64)),
            Expr::Int(self.arrays[a].cell.max(1) as i64),
        );
        // CUB writes where its algorithm needs (warp leaders' aggregates, padded raking
        // slots): an atomic update of some slot per thread does not race with the
        // others' (nor do they with each other), but with any plain access of the
        // storage in the same barrier interval.
        let s = self.scratch();
        let slot = self.local("_slot", None, span);
        self.emit(StmtKind::havoc(s.clone()), span);
        self.emit(
            StmtKind::Atomic {
                var: None,
                op: kpl::ir::AtomicOp::Exch,
                array: array.clone(),
                index: fold::add(base.clone(), Expr::Var(slot)),
                value: Expr::Var(s),
                ty: None,
            },
            span,
        );
        self.emit(StmtKind::Barrier, span);
        let any = self.local("_slot", None, span);
        self.emit_opaque_read(&array, fold::add(base, Expr::Var(any)), span);
        Ok(arbitrary(&Ty::Opaque(method.to_string())))
    }

    /// The temporary storage a CUB block collective object holds
    /// ([`Self::construct_collective`]), if `this` is one.
    pub(in crate::lower) fn collective_storage(&self, ty: &Ty, this: &LVal) -> Option<Ptr> {
        if !is_block_collective(&ty.to_string()) {
            return None;
        }
        let LVal::Var(id) = this else { return None };
        let V::Struct(parts) = &self.held.get(id)?.v else {
            return None;
        };
        match parts.as_slice() {
            [Value { v: V::Ptr(p), .. }] if matches!(p.target, Target::Array(_)) => Some(p.clone()),
            _ => None,
        }
    }
}
