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
    /// Its `static constexpr` (or `static const`) integer members with their values in
    /// this instantiation (`static constexpr int size = sizeof(int4) / sizeof(T);`).
    pub constants: Vec<(String, i64)>,
}

impl StructTy {
    /// The value of the static integer constant `name` of this struct.
    pub fn constant(&self, name: &str) -> Option<i64> {
        self.constants.iter().find(|(n, _)| n == name).map(|(_, k)| *k)
    }
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
            Ty::Opaque(n) => opaque_scalar_bytes(n).unwrap_or(4),
            Ty::Void | Ty::Texture => 4,
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
            Ty::Opaque(n) => opaque_scalar_bytes(n).unwrap_or(4),
            Ty::Texture => 4,
        }
    }

    /// Bytes a value of this type spans in the cell model (cells × cell size): the unit
    /// of pointer arithmetic on memory (`p + i`, `p[i]`, `q - p`). Not `sizeof`, which is
    /// [`Ty::layout`].
    pub fn size_of(&self) -> u64 {
        self.cells().saturating_mul(self.cell_bytes() as u64)
    }

    /// `(sizeof, alignof)` in bytes, as CUDA lays the type out (the x86-64 host ABI for
    /// structs: each field at an offset aligned to its alignment, the size rounded up to
    /// the struct's alignment; CUDA's vector types with their own alignments, `float4`
    /// 16/16, `char3` 3/1, ...). Only `sizeof` and `alignof` use it; memory is addressed in
    /// cells ([`Ty::size_of`]).
    pub fn layout(&self) -> (u64, u64) {
        match self {
            Ty::Void | Ty::Bool => (1, 1),
            Ty::Int { bytes, .. } | Ty::Float { bytes } => {
                let b = (*bytes).max(1) as u64;
                (b, b)
            }
            Ty::Ptr(_) => (8, 8),
            Ty::Array(t, n) => {
                let (s, a) = t.layout();
                (s.saturating_mul(n.unwrap_or(1)), a)
            }
            Ty::Struct(s) => {
                let (mut off, mut align) = (0u64, 1u64);
                for (_, f) in &s.fields {
                    let (fs, fa) = f.layout();
                    off = round_up(off, fa).saturating_add(fs);
                    align = align.max(fa);
                }
                if let Some(a) = vector_align(s) {
                    align = a;
                }
                // An empty struct still takes one byte in C++.
                (round_up(off.max(1), align), align)
            }
            Ty::Opaque(n) => bit_fields_layout(n)
                .or_else(|| opaque_scalar_bytes(n).map(|b| (b as u64, b as u64)))
                .unwrap_or((4, 4)),
            Ty::Texture => (4, 4),
        }
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

fn round_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align.max(1)).saturating_mul(align.max(1))
}

/// The alignment CUDA gives a vector type (`char2` 2, `short4` 8, `int4` 16, `double4`
/// 16, 3-vectors as their scalar): `None` for other structs.
fn vector_align(s: &StructTy) -> Option<u64> {
    if s.def.is_some() || vector_type(&s.name).is_none() {
        return None;
    }
    let scalar = s.fields.first()?.1.layout().0;
    Some(match s.fields.len() {
        3 => scalar,
        n => (scalar * n as u64).min(16),
    })
}

/// The type of a field that stands for a run of adjacent bit-fields (`unsigned lo : 4;
/// unsigned hi : 4;`), one memory location in C++: one opaque cell that every member of
/// the run names, like a union (the field's name is `<union lo|hi>`, see
/// [`UNION_PREFIX`]). `widths` are the (declared type's bytes, bit width) of the run's
/// members; the run is laid out from an aligned offset (x86-64: a bit-field goes into the
/// current storage unit of its declared type if it fits, else into the next one).
pub fn bit_fields_ty(widths: &[(u64, u64)]) -> Ty {
    let (mut bit, mut align) = (0u64, 1u64);
    for &(bytes, width) in widths {
        let unit = bytes.max(1) * 8;
        if width > 0 && bit / unit != (bit + width - 1) / unit {
            bit = round_up(bit, unit);
        }
        bit += width;
        align = align.max(bytes.max(1));
    }
    let size = round_up(bit.div_ceil(8).max(1), align);
    Ty::Opaque(format!("{BIT_FIELDS}{size}/{align}"))
}

/// The name of the opaque type of a run of bit-fields ([`bit_fields_ty`]).
const BIT_FIELDS: &str = "bit-fields ";

fn bit_fields_layout(name: &str) -> Option<(u64, u64)> {
    let (s, a) = name.strip_prefix(BIT_FIELDS)?.split_once('/')?;
    Some((s.parse().ok()?, a.parse().ok()?))
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

/// The size of the scalar types of CUDA's headers whose values the lowering does not
/// interpret (bfloat16, fp8, the raw half and bfloat16 structs): opaque, but laid out at
/// their real size, so that `sizeof(int4) / sizeof(__nv_bfloat16)` is 8 and a pointer to
/// them steps by their size.
pub fn opaque_scalar_bytes(name: &str) -> Option<u32> {
    match name {
        "__nv_bfloat16" | "nv_bfloat16" | "__nv_bfloat16_raw" | "__half_raw" => Some(2),
        "__nv_fp8_e4m3" | "__nv_fp8_e5m2" | "__nv_fp8_storage_t" => Some(1),
        "__nv_bfloat162" | "nv_bfloat162" | "__nv_bfloat162_raw" | "__half2_raw" => Some(4),
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
        constants: Vec::new(),
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

    fn st(name: &str, fields: Vec<Ty>) -> Ty {
        Ty::Struct(Rc::new(StructTy {
            name: name.to_string(),
            fields: fields
                .into_iter()
                .enumerate()
                .map(|(i, t)| (format!("f{i}"), t))
                .collect(),
            def: Some(0),
            bindings: Vec::new(),
            constants: Vec::new(),
        }))
    }

    const CHAR: Ty = Ty::Int {
        bytes: 1,
        signed: true,
    };
    const DOUBLE: Ty = Ty::Float { bytes: 8 };

    #[test]
    fn vector_layouts() {
        for (name, size, align) in [
            ("char1", 1, 1),
            ("char2", 2, 2),
            ("char3", 3, 1),
            ("char4", 4, 4),
            ("uchar2", 2, 2),
            ("uchar3", 3, 1),
            ("uchar4", 4, 4),
            ("short2", 4, 4),
            ("short3", 6, 2),
            ("short4", 8, 8),
            ("ushort4", 8, 8),
            ("int2", 8, 8),
            ("uint2", 8, 8),
            ("float2", 8, 8),
            ("int3", 12, 4),
            ("uint3", 12, 4),
            ("float3", 12, 4),
            ("int4", 16, 16),
            ("uint4", 16, 16),
            ("float4", 16, 16),
            ("long2", 16, 16),
            ("longlong2", 16, 16),
            ("ulonglong2", 16, 16),
            ("double2", 16, 16),
            ("double3", 24, 8),
            ("double4", 32, 16),
            ("longlong4", 32, 16),
            ("half2", 4, 4),
            ("dim3", 12, 4),
        ] {
            assert_eq!(vector_type(name).unwrap().layout(), (size, align), "{name}");
        }
        assert_eq!(builtin_scalar("__half").unwrap().layout(), (2, 2));
        assert_eq!(Ty::Opaque("__half2".into()).layout(), (4, 4));
        assert_eq!(Ty::ptr(CHAR).layout(), (8, 8));
        assert_eq!(Ty::BOOL.layout(), (1, 1));
        assert_eq!(builtin_scalar("size_t").unwrap().layout(), (8, 8));
    }

    #[test]
    fn struct_layouts() {
        // Padding between fields and at the end.
        let cic = st("CIC", vec![CHAR, Ty::INT, CHAR]);
        assert_eq!(cic.layout(), (12, 4));
        assert_eq!(st("CCI", vec![CHAR, CHAR, Ty::INT]).layout(), (8, 4));
        assert_eq!(st("DC", vec![DOUBLE, CHAR]).layout(), (16, 8));
        assert_eq!(st("Empty", vec![]).layout(), (1, 1));
        // Nested structs: a field aligned to the inner struct's alignment.
        let nested = st("N", vec![CHAR, st("DC", vec![DOUBLE, CHAR])]);
        assert_eq!(nested.layout(), (24, 8));
        assert_eq!(
            st("N2", vec![CHAR, vector_type("float4").unwrap()]).layout(),
            (32, 16)
        );
        assert_eq!(
            st("N3", vec![CHAR, vector_type("char3").unwrap()]).layout(),
            (4, 1)
        );
        // Arrays: n elements of the element's (padded) size, the element's alignment.
        assert_eq!(Ty::Array(Box::new(cic.clone()), Some(5)).layout(), (60, 4));
        assert_eq!(
            st("A", vec![CHAR, Ty::Array(Box::new(cic), Some(2))]).layout(),
            (28, 4)
        );
        assert_eq!(
            Ty::Array(Box::new(Ty::Array(Box::new(Ty::FLOAT), Some(17))), Some(16)).layout(),
            (1088, 4)
        );
        // The cell model is unchanged: `{char; int; char}` is three 4-byte cells.
        let cic = st("CIC", vec![CHAR, Ty::INT, CHAR]);
        assert_eq!((cic.cells(), cic.size_of()), (3, 12));
    }

    #[test]
    fn bit_field_layouts() {
        // `unsigned lo : 4; unsigned hi : 4;`: one 4-byte unit.
        assert_eq!(bit_fields_ty(&[(4, 4), (4, 4)]).layout(), (4, 4));
        // A field that does not fit in the current unit starts the next one.
        assert_eq!(bit_fields_ty(&[(4, 30), (4, 4)]).layout(), (8, 4));
        assert_eq!(bit_fields_ty(&[(1, 3), (1, 7)]).layout(), (2, 1));
        assert_eq!(bit_fields_ty(&[(8, 33), (8, 31)]).layout(), (8, 8));
        let s = st("S", vec![bit_fields_ty(&[(4, 4), (4, 4)]), Ty::INT]);
        assert_eq!((s.layout(), s.cells()), ((8, 4), 2));
    }
}
