//! C's integer types, as far as values are concerned: a width and a signedness.
//!
//! Every scalar parameter has one (its range is the set of values it may take for a
//! launch), and [`Expr::Cast`](crate::Expr::Cast) converts a value to one exactly as C
//! does: the result is the unique value of the type that is congruent to the operand
//! modulo 2^width (C++20's rule for every conversion between integer types, which is also
//! what GPUs do for the implementation-defined narrowing to a signed type).
//!
//! `.kpl` files are untyped: a scalar parameter without a type is a `u32`, and
//! expressions compute on mathematical integers (see [`crate::arith`]).

use std::fmt;

/// A C integer type (`bool` is lowered to `e != 0` by the front end, never a cast).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntTy {
    /// 8, 16, 32 or 64.
    pub bits: u8,
    pub signed: bool,
}

impl IntTy {
    pub const I8: IntTy = IntTy::new(8, true);
    pub const U8: IntTy = IntTy::new(8, false);
    pub const I16: IntTy = IntTy::new(16, true);
    pub const U16: IntTy = IntTy::new(16, false);
    pub const I32: IntTy = IntTy::new(32, true);
    pub const U32: IntTy = IntTy::new(32, false);
    pub const I64: IntTy = IntTy::new(64, true);
    pub const U64: IntTy = IntTy::new(64, false);

    /// Every type, in the order of `.kpl`'s names.
    pub const ALL: [IntTy; 8] = [
        IntTy::I8,
        IntTy::U8,
        IntTy::I16,
        IntTy::U16,
        IntTy::I32,
        IntTy::U32,
        IntTy::I64,
        IntTy::U64,
    ];

    pub const fn new(bits: u8, signed: bool) -> IntTy {
        IntTy { bits, signed }
    }

    /// The smallest value of the type.
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The largest value of the type.
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// 2^bits: the modulus of conversions to this type.
    pub fn modulus(self) -> i128 {
        1i128 << self.bits
    }

    pub fn contains(self, v: i128) -> bool {
        (self.min()..=self.max()).contains(&v)
    }

    /// `v` converted to this type: the value of the type congruent to `v` modulo 2^bits.
    pub fn convert(self, v: i128) -> i128 {
        let m = self.modulus();
        let r = (v - self.min()).rem_euclid(m);
        r + self.min()
    }

    /// Whether every value of `self` is a value of `other` (conversion is the identity).
    pub fn fits_in(self, other: IntTy) -> bool {
        other.min() <= self.min() && self.max() <= other.max()
    }

    /// The `.kpl` spelling: `i8`, `u8`, ..., `u64`.
    pub fn name(self) -> &'static str {
        match (self.bits, self.signed) {
            (8, true) => "i8",
            (8, false) => "u8",
            (16, true) => "i16",
            (16, false) => "u16",
            (32, true) => "i32",
            (32, false) => "u32",
            (64, true) => "i64",
            _ => "u64",
        }
    }

    pub fn from_name(name: &str) -> Option<IntTy> {
        IntTy::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl Default for IntTy {
    /// The type of `.kpl`'s untyped scalars (docs/semantics.md, Values and arithmetic).
    fn default() -> IntTy {
        IntTy::U32
    }
}

impl fmt::Display for IntTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!((IntTy::I8.min(), IntTy::I8.max()), (-128, 127));
        assert_eq!((IntTy::U16.min(), IntTy::U16.max()), (0, 65535));
        assert_eq!(IntTy::I32.min(), -(1 << 31));
        assert_eq!(IntTy::U64.max(), u64::MAX as i128);
    }

    #[test]
    fn conversions_are_modular() {
        assert_eq!(IntTy::U32.convert(-1), 0xFFFF_FFFF);
        assert_eq!(IntTy::U32.convert(-2), 0xFFFF_FFFE);
        assert_eq!(IntTy::I32.convert(0xFFFF_FFFF), -1);
        assert_eq!(IntTy::I32.convert(1 << 31), -(1 << 31));
        assert_eq!(IntTy::U8.convert(300), 44);
        assert_eq!(IntTy::I8.convert(200), -56);
        assert_eq!(IntTy::I16.convert(-5), -5);
        assert_eq!(IntTy::U64.convert(-1), u64::MAX as i128);
        for t in IntTy::ALL {
            assert_eq!(t.convert(t.max()), t.max());
            assert_eq!(t.convert(t.min()), t.min());
            assert_eq!(t.convert(t.max() + 1), t.min());
            assert_eq!(IntTy::from_name(t.name()), Some(t));
        }
    }

    #[test]
    fn fits() {
        assert!(IntTy::U8.fits_in(IntTy::I32));
        assert!(!IntTy::U32.fits_in(IntTy::I32));
        assert!(!IntTy::I8.fits_in(IntTy::U64));
        assert!(IntTy::I32.fits_in(IntTy::I64));
    }
}
