//! Frames and scopes: the variables in scope, by frame of inlined function and by block,
//! and the bindings of names to variables, aliases and template parameters.

use super::{Frame, LVal, Lowerer, Offset, Ptr, Scope, Target, VarId, VarInfo, VarKind};
use crate::types::{Binding, Ty};
use kpl::ir::Expr;

impl<'p, 't> Lowerer<'p, 't> {
    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("the kernel frame is never popped")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("the kernel frame is never popped")
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// How a variable names memory at `base` of array `a`: the array itself, a pointer
    /// into it (an array placed at an offset), or a reference to one element.
    pub fn array_var(&self, a: usize, base: Expr, ty: &Ty) -> VarKind {
        let unit = self.arrays[a].cell;
        if ty.is_array() && base == Expr::Int(0) {
            VarKind::Array(Target::Array(a))
        } else if ty.is_array() {
            VarKind::Ptr {
                target: Some(Target::Array(a)),
                off: Offset::Fixed(base),
                unit,
            }
        } else {
            VarKind::Ref(LVal::Mem(
                Ptr {
                    target: Target::Array(a),
                    off: base,
                    unit,
                },
                ty.clone(),
            ))
        }
    }

    pub fn add_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        // A pointer to the start of an array with a reserved name: the user's name of it.
        if let VarKind::Ptr {
            target: Some(Target::Array(a)),
            off: Offset::Fixed(Expr::Int(0)),
            ..
        } = &kind
            && let Some(info) = self.arrays.get_mut(*a)
            && info.name.starts_with("__")
            && !name.starts_with("__")
            && info.alias.is_none()
        {
            info.alias = Some(name.to_string());
        }
        let id = self.vars.len();
        let declared_at = (self.frames.len(), self.frame().loops);
        let declared_in = (self.frames.len(), self.block());
        self.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            kind,
            declared_at,
            declared_in,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(name.to_string(), id);
        }
        id
    }

    /// Hides a variable just declared (while its initializer is lowered).
    pub fn pop_var_binding(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.vars.remove(name);
        }
    }

    /// Makes a variable visible by name in the current scope.
    pub fn bind_var(&mut self, name: &str, id: VarId) {
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(name.to_string(), id);
        }
    }

    /// A variable not visible by name (fields of struct variables, results).
    pub fn hidden_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        let id = self.vars.len();
        let declared_at = (self.frames.len(), self.frame().loops);
        let declared_in = (self.frames.len(), self.block());
        self.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            kind,
            declared_at,
            declared_in,
        });
        id
    }

    pub fn add_alias(&mut self, name: &str, ty: Ty) {
        if let Some(s) = self.scopes.last_mut() {
            s.aliases.insert(name.to_string(), ty);
        }
    }

    /// A variable of the current function by C++ name, or a file-scope variable.
    pub fn lookup(&self, name: &str) -> Option<VarId> {
        let base = self.frame().scope_base.clamp(1, self.scopes.len());
        self.scopes[base..]
            .iter()
            .rev()
            .find_map(|s| s.vars.get(name).copied())
            .or_else(|| self.scopes.first().and_then(|s| s.vars.get(name).copied()))
    }

    /// Binds a file-scope variable (visible from every function).
    pub fn add_global_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        let id = self.hidden_var(name, ty, kind);
        if let Some(s) = self.scopes.first_mut() {
            s.vars.insert(name.to_string(), id);
        }
        id
    }

    /// Records that local `name` of the current scope is the lambda `def`.
    pub(super) fn add_lambda(&mut self, name: &str, def: super::call::LambdaDef) {
        if let Some(s) = self.scopes.last_mut() {
            s.vars.remove(name);
            s.lambdas.insert(name.to_string(), def);
        }
    }

    /// The lambda local `name` names in the current function, unless a variable of an
    /// inner scope hides it.
    pub(super) fn visible_lambda(&self, name: &str) -> Option<super::call::LambdaDef> {
        let base = self.frame().scope_base.clamp(1, self.scopes.len());
        for s in self.scopes[base..].iter().rev() {
            if s.vars.contains_key(name) {
                return None;
            }
            if let Some(d) = s.lambdas.get(name) {
                return Some(d.clone());
            }
        }
        None
    }

    pub fn lookup_alias(&self, name: &str) -> Option<Ty> {
        let base = self.frame().scope_base;
        self.scopes[base..]
            .iter()
            .rev()
            .find_map(|s| s.aliases.get(name).cloned())
    }

    pub fn binding(&self, name: &str) -> Option<Binding> {
        self.frame()
            .bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    }
}
