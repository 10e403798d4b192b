//! Pointer variables in `__device__` or `__constant__` memory that the host sets
//! (`__device__ float *buf;`, then `cudaMemcpyToSymbol(buf, ...)` on the host): in the
//! kernel, `buf` points to global memory nobody in the file names, so it is an
//! unknown global array of its own, like a pointer parameter (and, under `--alias`,
//! a part of the one byte-addressed array that may overlap every other). Device code
//! that assigns such a variable shares the pointer between threads: that stays
//! unsupported (the caller checks [`Lowerer::device_code_assigns`]).

use super::{ArrayKey, ArraySpace, Lowerer, Offset, Target, VarKind, assigned_names};

impl<'t> Lowerer<'_, 't> {
    /// Whether a device or kernel function of the file assigns (or takes the address
    /// of) `name`.
    pub(super) fn device_code_assigns(&self, name: &str) -> bool {
        self.prog.funcs.iter().any(|f| {
            (f.device || f.global)
                && f.body
                    .is_some_and(|b| assigned_names(self.prog, b).contains(name))
        })
    }

    /// The variable `name` as a pointer to the start of an unknown global array of
    /// `cell`-byte cells.
    pub(super) fn device_pointer(&mut self, name: &str, cell: u32) -> VarKind {
        let (a, base) = if self.opts.alias {
            self.aliased(name)
        } else {
            self.note(format!(
                "assuming the memory the `__device__` pointer `{name}` points to (set by the host) is not \
                 reached through any other pointer of the kernel; pass --alias to drop this assumption"
            ));
            let key = ArrayKey::Global(format!("*{name}"));
            self.array_at(key, name, ArraySpace::Global, cell, None)
        };
        let unit = self.arrays[a].cell;
        VarKind::Ptr {
            target: Some(Target::Array(a)),
            off: Offset::Fixed(base),
            unit,
        }
    }
}
