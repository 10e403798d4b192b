//! The C++ types the lowering tracks, and the memory layout it gives them.
//!
//! Memory is modelled in *cells*: the cells of an array are its scalar leaves (a
//! `float4` element is four cells, `x` to `w`; a `float[16][17]` tile is 272 cells,
//! row-major). Every leaf of a struct is taken to be as large as the struct's largest
//! scalar, so a struct of uniform fields (every CUDA vector type) has its real layout and
//! pointer casts between `float*` and `float4*`, or `uchar*` and `uint*`, address the
//! same bytes (see `lower::expr`, which converts pointers).

use std::fmt;
use std::rc::Rc;

/// A C++ type, as far as the lowering needs it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Void,
    /// `bool`: one byte holding 0 or 1; converting to it tests for non-zero.
    Bool,
    /// Integers.
    Int {
        bytes: u32,
        signed: bool,
    },
    Float {
        bytes: u32,
    },
    Ptr(Box<Ty>),
    /// `T[n]`; `None` for `T[]`.
    Array(Box<Ty>, Option<u64>),
    Struct(Rc<StructTy>),
    /// `texture<...>` references, `cudaTextureObject_t` used with `tex*` fetches.
    Texture,
    /// A type the front end does not know (a library type, a template parameter that was
    /// never instantiated): a 4-byte value that is never inspected.
    Opaque(String),
}

/// The field name that stands for an anonymous union member: `<union a|b|c>`, one
/// opaque cell that each of `a`, `b`, `c` names.
pub const UNION_PREFIX: &str = "<union ";

/// The member names of an anonymous union field (see [`UNION_PREFIX`]).
pub fn union_members(field: &str) -> Option<impl Iterator<Item = &str>> {
    let inner = field.strip_prefix(UNION_PREFIX)?.strip_suffix('>')?;
    Some(inner.split('|').filter(|m| !m.is_empty()))
}

/// A struct or class (CUDA vector types included) after template instantiation.
#[derive(Debug, PartialEq)]
pub struct StructTy {
    /// The name with template arguments (`SharedMemory<float>`).
    pub name: String,
    pub fields: Vec<(String, Ty)>,
    /// Where its definition is in the program index (user structs), for methods.
    pub def: Option<usize>,
    /// The template arguments it was instantiated with, by parameter name.
    pub bindings: Vec<(String, Binding)>,
}

/// What a template parameter stands for in one instantiation. It lives here, beside
/// [`StructTy::bindings`], so that the types do not depend on the lowering.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    Type(Ty),
    /// A non-type parameter: a constant, or a uniform scalar parameter of the kernel when
    /// the template was never instantiated.
    Value(kpl::ir::Expr),
}

impl Ty {
    pub const INT: Ty = Ty::Int {
        bytes: 4,
        signed: true,
    };
    pub const UINT: Ty = Ty::Int {
        bytes: 4,
        signed: false,
    };
    pub const BOOL: Ty = Ty::Bool;
    pub const FLOAT: Ty = Ty::Float { bytes: 4 };

    pub fn ptr(t: Ty) -> Ty {
        Ty::Ptr(Box::new(t))
    }

    /// Integers and `bool`: values the lowering tracks exactly.
    pub fn is_int(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Bool)
    }

    /// The C integer type of a value of this type, for conversions and parameter ranges
    /// (`bool` is an unsigned byte whose values are 0 and 1).
    pub fn int_ty(&self) -> Option<kpl::IntTy> {
        match self {
            Ty::Int { bytes, signed } if matches!(bytes, 1 | 2 | 4 | 8) => {
                Some(kpl::IntTy::new((*bytes * 8) as u8, *signed))
            }
            Ty::Bool => Some(kpl::IntTy::U8),
            _ => None,
        }
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self, Ty::Ptr(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Ty::Array(..))
    }

    /// Pointers, and arrays (which decay to pointers).
    pub fn is_pointer_like(&self) -> bool {
        matches!(self, Ty::Ptr(_) | Ty::Array(..))
    }

    /// The type a pointer or array points to.
    pub fn pointee(&self) -> Option<&Ty> {
        match self {
            Ty::Ptr(t) | Ty::Array(t, _) => Some(t),
            _ => None,
        }
    }

    pub fn as_struct(&self) -> Option<&Rc<StructTy>> {
        match self {
            Ty::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// Size (bytes) of the first scalar leaf: what one access of a value of this type
    /// touches first (4 for types without leaves).
    pub fn first_leaf(&self) -> u32 {
        match self {
            Ty::Int { bytes, .. } | Ty::Float { bytes } => *bytes,
            Ty::Bool => 1,
            Ty::Ptr(_) => 8,
            Ty::Array(t, _) => t.first_leaf(),
            Ty::Struct(s) => s.fields.first().map_or(4, |(_, f)| f.first_leaf()),
            Ty::Void | Ty::Texture | Ty::Opaque(_) => 4,
        }
    }

    /// Number of cells a value of this type occupies (at least 1).
    pub fn cells(&self) -> u64 {
        match self {
            Ty::Array(t, n) => t.cells().saturating_mul(n.unwrap_or(1)),
            Ty::Struct(s) => s
                .fields
                .iter()
                .fold(0u64, |acc, (_, f)| acc.saturating_add(f.cells()))
                .max(1),
            _ => 1,
        }
    }

    /// Size of one cell (the largest scalar leaf), in bytes.
    pub fn cell_bytes(&self) -> u32 {
        match self {
            Ty::Int { bytes, .. } | Ty::Float { bytes } => (*bytes).max(1),
            Ty::Bool => 1,
            Ty::Ptr(_) => 8,
            Ty::Array(t, _) => t.cell_bytes(),
            Ty::Struct(s) => s.fields.iter().map(|(_, f)| f.cell_bytes()).max().unwrap_or(1),
            Ty::Void => 1,
            Ty::Texture | Ty::Opaque(_) => 4,
        }
    }

    /// `sizeof` in the cell model.
    pub fn size_of(&self) -> u64 {
        self.cells().saturating_mul(self.cell_bytes() as u64)
    }

    /// Index of a field and the cell offset where it starts inside the struct.
    pub fn field(&self, name: &str) -> Option<(usize, u64, &Ty)> {
        let s = self.as_struct()?;
        let mut off = 0u64;
        for (i, (n, t)) in s.fields.iter().enumerate() {
            if n == name || union_members(n).is_some_and(|mut ms| ms.any(|m| m == name)) {
                return Some((i, off, t));
            }
            off = off.saturating_add(t.cells());
        }
        None
    }

    /// A union (one opaque cell, see [`UNION_PREFIX`]).
    pub fn is_union(&self) -> bool {
        matches!(self, Ty::Opaque(n) if n == "union")
    }

    /// Whether values of this type are integers the lowering tracks exactly.
    pub fn is_tracked_int(&self) -> bool {
        self.is_int()
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => write!(f, "void"),
            Ty::Bool => write!(f, "bool"),
            Ty::Int {
                bytes: 1,
                signed: false,
            } => write!(f, "unsigned char"),
            Ty::Int { bytes, signed } => write!(f, "{}int{}", if *signed { "" } else { "u" }, bytes * 8),
            Ty::Float { bytes } => write!(f, "float{}", bytes * 8),
            Ty::Ptr(t) => write!(f, "{t}*"),
            Ty::Array(t, Some(n)) => write!(f, "{t}[{n}]"),
            Ty::Array(t, None) => write!(f, "{t}[]"),
            Ty::Struct(s) => write!(f, "{}", s.name),
            Ty::Texture => write!(f, "texture"),
            Ty::Opaque(n) => write!(f, "{n}"),
        }
    }
}

/// Built-in scalar type names (besides `int`, `float`, ... which the grammar knows).
pub fn builtin_scalar(name: &str) -> Option<Ty> {
    let int = |bytes, signed| Some(Ty::Int { bytes, signed });
    match name {
        "bool" => Some(Ty::BOOL),
        "char" | "signed char" | "int8_t" | "char1" => int(1, true),
        "unsigned char" | "uchar" | "uint8_t" | "u_char" => int(1, false),
        "short" | "short int" | "signed short" | "int16_t" => int(2, true),
        "unsigned short" | "ushort" | "uint16_t" | "unsigned short int" => int(2, false),
        "int" | "signed" | "signed int" | "int32_t" => int(4, true),
        "unsigned" | "unsigned int" | "uint" | "uint32_t" | "u_int" => int(4, false),
        "long" | "long int" | "signed long" | "long long" | "long long int" | "int64_t" | "ptrdiff_t"
        | "intptr_t" | "ssize_t" => int(8, true),
        "unsigned long"
        | "ulong"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t"
        | "uintptr_t"
        | "cudaTextureObject_t"
        | "cudaSurfaceObject_t" => int(8, false),
        "wchar_t" => int(4, true),
        "float" => Some(Ty::FLOAT),
        "double" | "long double" => Some(Ty::Float { bytes: 8 }),
        "half" | "__half" => Some(Ty::Float { bytes: 2 }),
        "void" => Some(Ty::Void),
        _ => None,
    }
}

/// CUDA's vector types (`float4`, `uint2`, `dim3`, ...): structs of `x`, `y`, `z`, `w`.
pub fn vector_type(name: &str) -> Option<Ty> {
    if name == "dim3" {
        return vector_type("uint3");
    }
    let (base, n) = name.split_at(name.len().checked_sub(1).filter(|&i| name.is_char_boundary(i))?);
    let n: usize = n.parse().ok().filter(|n| (1..=4).contains(n))?;
    let scalar = match base {
        "char" => Ty::Int {
            bytes: 1,
            signed: true,
        },
        "uchar" => Ty::Int {
            bytes: 1,
            signed: false,
        },
        "short" => Ty::Int {
            bytes: 2,
            signed: true,
        },
        "ushort" => Ty::Int {
            bytes: 2,
            signed: false,
        },
        "int" => Ty::INT,
        "uint" => Ty::UINT,
        "long" | "longlong" => Ty::Int {
            bytes: 8,
            signed: true,
        },
        "ulong" | "ulonglong" => Ty::Int {
            bytes: 8,
            signed: false,
        },
        "float" => Ty::FLOAT,
        "double" => Ty::Float { bytes: 8 },
        "half" => Ty::Float { bytes: 2 },
        _ => return None,
    };
    let fields = ["x", "y", "z", "w"][..n]
        .iter()
        .map(|f| (f.to_string(), scalar.clone()))
        .collect();
    Some(Ty::Struct(Rc::new(StructTy {
        name: name.to_string(),
        fields,
        def: None,
        bindings: Vec::new(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let f4 = vector_type("float4").unwrap();
        assert_eq!((f4.cells(), f4.cell_bytes(), f4.size_of()), (4, 4, 16));
        assert_eq!(f4.field("z").map(|(i, off, _)| (i, off)), Some((2, 2)));
        let tile = Ty::Array(Box::new(Ty::Array(Box::new(Ty::FLOAT), Some(17))), Some(16));
        assert_eq!(tile.cells(), 272);
        assert_eq!(vector_type("dim3").unwrap().cells(), 3);
        assert_eq!(
            builtin_scalar("uchar"),
            Some(Ty::Int {
                bytes: 1,
                signed: false
            })
        );
    }
}
