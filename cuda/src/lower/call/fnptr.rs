//! Function pointers whose possible targets are known in the file.
//!
//! A function pointer is an integer to the lowering ([`FN_PTR`]): the name of one of
//! the file's device functions used as a value (`op_t g = twice;`, `apply(a, add1)`,
//! `{add1, twice}`, `&add1`) is the constant `FN_BASE + index` of that function. A
//! call through a pointer (`g(x)`, `(*g)(x)`, `ops[i](x)`) calls every function it may
//! point to under the condition that it points to it (GPUVerify's treatment): one
//! function when the value is a known constant, else a choice among the functions
//! whose address the file takes (names used other than as a callee) that take that
//! many arguments; the last candidate is taken when the value is none of the others
//! (a pointer holds one of them). A value read from memory (a `__device__` pointer
//! the host may set, a table element) is arbitrary, so every such function is
//! called under a nondeterministic choice. No candidate at all is an error.

use tree_sitter::Node;

use crate::lower::{Lowerer, R, V, Value, fold};
use crate::program::named_children;
use crate::types::Ty;
use kpl::ir::{BinOp, Expr, StmtKind};

/// The type a function pointer has in the lowering: an integer naming its target.
pub const FN_PTR: Ty = Ty::Int {
    bytes: 8,
    signed: false,
};

/// Function values are `FN_BASE + index` in [`crate::program::Program::funcs`]: far from
/// the small integers and null a program may compare them with.
const FN_BASE: i64 = 1 << 40;

impl<'t> Lowerer<'_, 't> {
    /// The value of `name` used as a value when it names a device function of the file
    /// (and no variable): a function pointer.
    pub(in crate::lower) fn function_value(&self, name: &str) -> Option<Value> {
        let f = self.pointee_function(name)?;
        Some(Value::int(Expr::Int(FN_BASE + f as i64), FN_PTR))
    }

    /// The device function (with a body) a function name denotes as a value.
    fn pointee_function(&self, name: &str) -> Option<usize> {
        self.prog.functions(name, None).into_iter().find(|&f| {
            let d = &self.prog.funcs[f];
            d.body.is_some() && d.device && !d.global && d.template.is_none()
        })
    }

    /// The functions a function pointer of unknown value may point to when called with
    /// `nargs` arguments: the file's device functions whose name is used as a value.
    fn address_taken(&self, nargs: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut stack: Vec<Node<'t>> = self.prog.funcs.iter().filter_map(|f| f.body).collect();
        stack.extend(self.prog.globals.values().map(|g| g.decl));
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier"
                && !is_callee(n)
                && let Some(f) = self.pointee_function(self.text(n))
                && !out.contains(&f)
                && self.prog.funcs[f].params().len() == nargs
            {
                out.push(f);
            }
            stack.extend(named_children(n));
        }
        out.sort_unstable();
        out
    }

    /// A call through the function pointer value `ptr`.
    pub(in crate::lower) fn pointer_call(&mut self, ptr: Value, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        let known = match &ptr.v {
            V::Int(e) => fold::int(e)
                .and_then(|k| usize::try_from(k.checked_sub(FN_BASE)?).ok())
                .filter(|&f| f < self.prog.funcs.len()),
            _ => None,
        };
        if let Some(f) = known {
            return self.inline(f, args, None, None, n);
        }
        let cands = self.address_taken(args.len());
        let Some((&last, others)) = cands.split_last() else {
            return Err(self.unsupported(
                n,
                "a call through a function pointer whose possible targets are not in this file",
                "call the function directly, or define the functions it may point to in this file",
            ));
        };
        let names: Vec<String> = cands
            .iter()
            .map(|&f| format!("`{}`", self.prog.funcs[f].name))
            .collect();
        self.note(format!(
            "a call through a function pointer ({}) is checked as a call of any of the device functions whose \
             address this file takes and that take {} argument(s): {}",
            n.child_by_field_name("function").map_or("", |f| self.text(f)),
            args.len(),
            names.join(", ")
        ));
        let span = self.span(n);
        let sel = self.index(ptr, n);
        // Declared before the choice only when a candidate assigns it (returns an integer).
        let result = self.fresh("_fp_ret");
        self.mutable.insert(result.clone());
        let mut ret_ty: Option<Ty> = None;
        let mut int_result = true;
        let mut assigned = false;
        // Innermost first: `else { last }`, then `if (sel == f) {...} else {...}` outwards.
        let mut chain = self.candidate_block(
            last,
            args,
            n,
            &result,
            &mut ret_ty,
            (&mut int_result, &mut assigned),
        )?;
        for &f in others.iter().rev() {
            let then_blk =
                self.candidate_block(f, args, n, &result, &mut ret_ty, (&mut int_result, &mut assigned))?;
            let cond = Expr::bin(BinOp::Eq, sel.clone(), Expr::Int(FN_BASE + f as i64));
            let stmt = self.made_stmt(
                StmtKind::If {
                    cond,
                    then_blk,
                    else_blk: Some(chain),
                },
                span,
            );
            chain = self.made_block(vec![stmt], span);
        }
        let ty = ret_ty.unwrap_or(Ty::Void);
        let int = int_result && ty.is_int();
        if assigned {
            self.emit(
                StmtKind::Local {
                    var: result.clone(),
                    init: None,
                },
                span,
            );
        }
        self.extend(chain.stmts);
        Ok(match ty {
            Ty::Void => Value::void(),
            _ if int => Value::int(Expr::Var(result), ty),
            _ => crate::lower::expr::arbitrary(&ty),
        })
    }

    /// One candidate's call as a block, its integer result assigned to `result`.
    fn candidate_block(
        &mut self,
        f: usize,
        args: &[Node<'t>],
        n: Node<'t>,
        result: &str,
        ret_ty: &mut Option<Ty>,
        (int_result, assigned): (&mut bool, &mut bool),
    ) -> R<kpl::ir::Block> {
        let span = self.span(n);
        let (v, mut stmts) = self.in_block(|l| l.inline(f, args, None, None, n))?;
        match &v.v {
            V::Int(e) => {
                *assigned = true;
                stmts.push(self.made_stmt(
                    StmtKind::Assign {
                        var: result.to_string(),
                        value: e.clone(),
                    },
                    span,
                ))
            }
            _ => *int_result = false,
        }
        if ret_ty.is_none() {
            *ret_ty = Some(v.ty.clone());
        }
        Ok(self.made_block(stmts, span))
    }
}

/// Whether an identifier is the function of a call expression (`f` in `f(x)`).
fn is_callee(n: Node) -> bool {
    n.parent().is_some_and(|p| {
        p.kind() == "call_expression"
            && p.child_by_field_name("function")
                .is_some_and(|c| c.id() == n.id())
    })
}
