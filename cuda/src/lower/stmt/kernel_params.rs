//! The variables a kernel starts with: its parameters (integers, pointers, structs field
//! by field) and the file-scope variables it uses, bound on first use.

use tree_sitter::Node;

use crate::lower::{ArrayKey, ArraySpace, LVal, Lowerer, Offset, R, Target, VarKind};
use crate::program::FuncDef;
use crate::types::Ty;
use kpl::ir::{Expr, Param, Place, Stmt, StmtKind};

impl<'p, 't> Lowerer<'p, 't> {
    pub fn kernel_params(&mut self, def: &FuncDef<'t>) -> R<()> {
        let mut decls = Vec::new();
        for (i, p) in def.params().into_iter().enumerate() {
            let Some(t) = p.child_by_field_name("type") else {
                continue;
            };
            let d = self.declared(t, p.child_by_field_name("declarator"))?;
            let name = d.name.clone().unwrap_or_else(|| format!("arg{i}"));
            decls.push((p, d, name));
        }
        let pointers: Vec<&str> = decls
            .iter()
            .filter(|(_, d, _)| d.ty.is_pointer_like() && !d.restrict)
            .map(|(_, _, n)| n.as_str())
            .collect();
        if pointers.len() >= 2 {
            if self.opts.alias {
                self.note(format!(
                    "--alias: the pointer parameters {} may alias each other and the `__device__` arrays (all \
                     are one byte-addressed array)",
                    pointers.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ));
            } else {
                self.note(format!(
                    "assuming the pointer parameters {} do not alias each other, as GPUVerify does; pass --alias to \
                     drop this assumption (or mark them __restrict__ to state it)",
                    pointers.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        let mut copies = Vec::new();
        for (p, d, name) in decls {
            let span = self.span(p);
            let assigned = self.frame().assigned.contains(&name);
            let ty = d.ty.clone();
            let kind = match &ty {
                Ty::Ptr(pointee) | Ty::Array(pointee, _) => {
                    let cell = pointee.cell_bytes();
                    let (a, base) = if self.opts.alias && !d.restrict {
                        self.aliased(&name)
                    } else {
                        let key = ArrayKey::Param(name.clone());
                        let merged = self.merge.contains(&key);
                        let n_arrays = self.arrays.len();
                        let (a, base) = self.array_at(key, &name, ArraySpace::Global, cell, None);
                        if !merged || self.arrays.len() > n_arrays {
                            let kpl = self.arrays[a].kpl.clone();
                            self.params.push(Param::Array {
                                name: kpl,
                                space: kpl::ir::Space::Global,
                            });
                        }
                        (a, base)
                    };
                    let unit = self.arrays[a].cell;
                    let off = if assigned {
                        let l = self.fresh(&name);
                        self.mutable.insert(l.clone());
                        copies.push(self.made_stmt(
                            StmtKind::Local {
                                var: l.clone(),
                                init: Some(base),
                            },
                            span,
                        ));
                        Offset::Local(l)
                    } else {
                        Offset::Fixed(base)
                    };
                    VarKind::Ptr {
                        target: Some(Target::Array(a)),
                        off,
                        unit,
                    }
                }
                Ty::Int { .. } | Ty::Bool => {
                    let range = match p.child_by_field_name("type").and_then(|t| self.enum_of(t)) {
                        Some(e) => self.enum_range(e),
                        None => None,
                    };
                    self.int_param(&name, &ty, range, assigned, span, &mut copies)
                }
                Ty::Struct(_) => self.struct_param(&name, &ty, assigned, span, &mut copies),
                Ty::Texture => VarKind::Texture,
                // One value per launch, whatever its type (a `float` scale factor).
                Ty::Float { .. } | Ty::Opaque(_) if !assigned => VarKind::Uniform,
                _ => VarKind::Arb,
            };
            self.add_var(&name, ty, kind);
        }
        // Copies of assigned parameters come before the body: a barrier after the last
        // one is at the top of the source body.
        if let Some(last) = copies.last_mut() {
            last.place = Place::BlockTop;
        }
        self.extend(copies);
        Ok(())
    }

    /// An integer kernel parameter: a scalar parameter of the KPL kernel of its C type
    /// (one value per launch, anywhere in the type, or in `range`: a `bool`'s 0 and 1, an
    /// unscoped enum's values), read through a local copy when the kernel assigns it
    /// (KPL parameters are read-only).
    fn int_param(
        &mut self,
        name: &str,
        ty: &Ty,
        range: Option<(i64, i64)>,
        assigned: bool,
        span: kpl::ir::Span,
        copies: &mut Vec<Stmt>,
    ) -> VarKind {
        let range = if *ty == Ty::Bool { Some((0, 1)) } else { range };
        let kpl = self.scalar_param(name, ty.int_ty().unwrap_or_default(), range);
        if !assigned {
            return VarKind::Int(kpl);
        }
        let l = self.fresh(name);
        self.mutable.insert(l.clone());
        copies.push(self.made_stmt(
            StmtKind::Local {
                var: l.clone(),
                init: Some(Expr::Var(kpl)),
            },
            span,
        ));
        VarKind::Int(l)
    }

    /// A struct passed by value to the kernel: its integers are scalar parameters, its
    /// pointers global arrays.
    fn struct_param(
        &mut self,
        name: &str,
        ty: &Ty,
        assigned: bool,
        span: kpl::ir::Span,
        copies: &mut Vec<Stmt>,
    ) -> VarKind {
        let Some(s) = ty.as_struct().cloned() else {
            return VarKind::Arb;
        };
        let mut fields = Vec::new();
        for (f, fty) in &s.fields {
            let fname = format!("{name}_{f}");
            let kind = match fty {
                Ty::Int { .. } | Ty::Bool => self.int_param(&fname, fty, None, assigned, span, copies),
                Ty::Ptr(p) => {
                    let a = self.array(
                        ArrayKey::Param(fname.clone()),
                        &fname,
                        ArraySpace::Global,
                        p.cell_bytes(),
                    );
                    let kpl = self.arrays[a].kpl.clone();
                    self.params.push(Param::Array {
                        name: kpl,
                        space: kpl::ir::Space::Global,
                    });
                    VarKind::Ptr {
                        target: Some(Target::Array(a)),
                        off: Offset::Fixed(Expr::Int(0)),
                        unit: self.arrays[a].cell,
                    }
                }
                Ty::Struct(_) => self.struct_param(&fname, fty, assigned, span, copies),
                // An array inside the struct: the thread's own copy (reads arbitrary).
                Ty::Array(..) => {
                    let a = self.array(
                        ArrayKey::Param(fname.clone()),
                        &fname,
                        ArraySpace::Private,
                        fty.cell_bytes(),
                    );
                    VarKind::Array(Target::Array(a))
                }
                _ => VarKind::Arb,
            };
            fields.push(self.hidden_var(&fname, fty.clone(), kind));
        }
        VarKind::Struct(fields)
    }

    /// A file-scope variable, bound on first use.
    pub fn global(&mut self, name: &str, n: Node<'t>) -> R<Option<LVal>> {
        let Some(g) = self.prog.globals.get(name).cloned() else {
            return Ok(None);
        };
        let quals = self.quals(g.decl);
        let Some(t) = g.decl.child_by_field_name("type") else {
            return Ok(None);
        };
        // Resolve in the kernel's context (file scope has no template arguments).
        let saved = std::mem::take(&mut self.frame_mut().bindings);
        let decl = self.declared(t, Some(g.declarator));
        self.frame_mut().bindings = saved;
        let decl = decl?;
        let ty = decl.ty.clone();
        let init = (g.declarator.kind() == "init_declarator")
            .then(|| g.declarator.child_by_field_name("value"))
            .flatten();
        let space = if quals.shared {
            Some(ArraySpace::Shared)
        } else if quals.constant {
            Some(ArraySpace::Constant)
        } else if quals.device {
            Some(ArraySpace::Global)
        } else {
            None
        };
        let kind = match (space, &ty) {
            (_, Ty::Texture) => VarKind::Texture,
            (None, Ty::Int { .. } | Ty::Bool) if quals.constant_value => {
                match init.and_then(|i| self.const_eval(i)) {
                    Some(k) => VarKind::Fixed(Expr::Int(k)),
                    None => VarKind::Arb,
                }
            }
            (None, _) if quals.constant_value => VarKind::Arb,
            (None, _) => {
                return Err(self.unsupported(
                    n,
                    &format!("host variable `{name}` used in device code"),
                    "declare it `__device__`, `__constant__` or `__shared__`",
                ));
            }
            // A pointer in `__device__`/`__constant__` memory that device code never
            // assigns: the host set it, to memory of its own (module `device_ptr`).
            (Some(ArraySpace::Global | ArraySpace::Constant), Ty::Ptr(pointee))
                if !self.device_code_assigns(name) =>
            {
                self.device_pointer(name, pointee.cell_bytes())
            }
            // Under `--alias`, pointer parameters may point into `__device__` arrays: they
            // are all one byte-addressed array.
            (Some(ArraySpace::Global), _) if self.opts.alias => {
                let (a, base) = self.aliased(name);
                self.array_var(a, base, &ty)
            }
            (Some(space), _) => {
                let key = if quals.external && quals.shared {
                    ArrayKey::ExternShared
                } else {
                    ArrayKey::Global(name.to_string())
                };
                let cells = (key != ArrayKey::ExternShared).then(|| ty.cells());
                let (a, base) = self.array_at(key, name, space, ty.cell_bytes(), cells);
                self.array_var(a, base, &ty)
            }
        };
        let id = self.add_global_var(name, ty, kind);
        Ok(Some(LVal::Var(id)))
    }
}
