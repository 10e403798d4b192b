//! The arithmetic of KPL values (docs/semantics.md, Values and arithmetic), in one place so
//! the interpreter and the static verifier cannot disagree.
//!
//! [`Arith::Unbounded`] (the default) computes on mathematical integers, which is what
//! the 32-bit program computes under the no-overflow assumption: `tid - 1` is -1 for
//! thread 0. Division truncates toward zero and `%` takes the sign of the dividend, as in
//! C. Bitwise operators act on the two's complement representation; shifts are
//! multiplication/division by powers of two (a shift by a negative amount or by 63 or more
//! is undefined in C and reported as [`ArithError::Undefined`]).
//!
//! [`Arith::Wrap32`] (`--wrap`) is bit-precise unsigned 32-bit arithmetic: every result is
//! reduced modulo 2^32, division and comparisons are unsigned, and a shift by 32 or more
//! yields 0 (as PTX's `shl`/`shr` do).
//!
//! Division or remainder by zero is [`ArithError::DivByZero`]; callers treat its result
//! as an arbitrary value.

use crate::IntTy;
use crate::ir::{BinOp, UnOp};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Arith {
    #[default]
    Unbounded,
    Wrap32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArithError {
    #[error("division by zero")]
    DivByZero,
    #[error("value out of the 64-bit range the interpreter computes with")]
    Overflow,
    #[error("undefined shift amount")]
    Undefined,
}

const MASK32: i64 = 0xFFFF_FFFF;

impl Arith {
    /// Brings a value into the domain of this arithmetic (a no-op when unbounded).
    pub fn norm(self, v: i64) -> i64 {
        match self {
            Arith::Unbounded => v,
            Arith::Wrap32 => v & MASK32,
        }
    }

    /// `a` converted to `ty` ([`IntTy::convert`]), then brought into this arithmetic's
    /// domain. A `u64` value of 2^63 or more does not fit the interpreter's `i64`s and is
    /// [`ArithError::Overflow`].
    pub fn cast(self, ty: IntTy, a: i64) -> Result<i64, ArithError> {
        let v = i64::try_from(ty.convert(i128::from(a))).map_err(|_| ArithError::Overflow)?;
        Ok(self.norm(v))
    }

    pub fn unary(self, op: UnOp, a: i64) -> Result<i64, ArithError> {
        let r = match op {
            UnOp::Neg => a.checked_neg().ok_or(ArithError::Overflow)?,
            UnOp::Not => (a == 0) as i64,
            UnOp::BitNot => !a,
        };
        Ok(self.norm(r))
    }

    pub fn binary(self, op: BinOp, a: i64, b: i64) -> Result<i64, ArithError> {
        use BinOp::*;
        let (a, b) = (self.norm(a), self.norm(b));
        let r = match op {
            Add => a.checked_add(b).ok_or(ArithError::Overflow)?,
            Sub => a.checked_sub(b).ok_or(ArithError::Overflow)?,
            Mul => match self {
                Arith::Unbounded => a.checked_mul(b).ok_or(ArithError::Overflow)?,
                Arith::Wrap32 => a.wrapping_mul(b),
            },
            Div | Rem if b == 0 => return Err(ArithError::DivByZero),
            Div => a.checked_div(b).ok_or(ArithError::Overflow)?,
            Rem => a.checked_rem(b).ok_or(ArithError::Overflow)?,
            BitAnd => a & b,
            BitOr => a | b,
            BitXor => a ^ b,
            Shl => match self {
                Arith::Wrap32 if b >= 32 => 0,
                Arith::Wrap32 => a << b,
                Arith::Unbounded if !(0..63).contains(&b) => return Err(ArithError::Undefined),
                Arith::Unbounded => a.checked_mul(1i64 << b).ok_or(ArithError::Overflow)?,
            },
            Shr => match self {
                Arith::Wrap32 if b >= 32 => 0,
                Arith::Wrap32 => a >> b,
                Arith::Unbounded if !(0..63).contains(&b) => return Err(ArithError::Undefined),
                Arith::Unbounded => a >> b,
            },
            Eq => (a == b) as i64,
            Ne => (a != b) as i64,
            Lt => (a < b) as i64,
            Le => (a <= b) as i64,
            Gt => (a > b) as i64,
            Ge => (a >= b) as i64,
            And => (a != 0 && b != 0) as i64,
            Or => (a != 0 || b != 0) as i64,
        };
        Ok(self.norm(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unbounded_is_mathematical() {
        let m = Arith::Unbounded;
        assert_eq!(m.binary(BinOp::Sub, 0, 1), Ok(-1));
        assert_eq!(m.binary(BinOp::Div, -7, 2), Ok(-3));
        assert_eq!(m.binary(BinOp::Rem, -7, 2), Ok(-1));
        assert_eq!(m.binary(BinOp::Shl, 3, 40), Ok(3 << 40));
        assert_eq!(m.binary(BinOp::Shr, 37, 5), Ok(1));
        assert_eq!(m.binary(BinOp::BitAnd, 45, 31), Ok(13));
        assert_eq!(m.binary(BinOp::Div, 1, 0), Err(ArithError::DivByZero));
        assert_eq!(m.binary(BinOp::Shl, 1, 64), Err(ArithError::Undefined));
        assert_eq!(m.binary(BinOp::Mul, i64::MAX, 2), Err(ArithError::Overflow));
    }

    #[test]
    fn casts_convert_exactly() {
        let m = Arith::Unbounded;
        assert_eq!(m.cast(IntTy::U32, -2), Ok(0xFFFF_FFFE));
        assert_eq!(m.cast(IntTy::I32, 0xFFFF_FFFF), Ok(-1));
        assert_eq!(m.cast(IntTy::U8, 257), Ok(1));
        assert_eq!(m.cast(IntTy::U64, -1), Err(ArithError::Overflow));
        assert_eq!(Arith::Wrap32.cast(IntTy::I8, 255), Ok(0xFFFF_FFFF));
    }

    #[test]
    fn wrap32_is_unsigned_32_bit() {
        let m = Arith::Wrap32;
        assert_eq!(m.binary(BinOp::Sub, 0, 1), Ok(0xFFFF_FFFF));
        assert_eq!(m.binary(BinOp::Add, 0xFFFF_FFFF, 2), Ok(1));
        assert_eq!(m.binary(BinOp::Mul, 0x1_0000, 0x1_0000), Ok(0));
        assert_eq!(m.binary(BinOp::Shl, 1, 32), Ok(0));
        assert_eq!(m.binary(BinOp::Lt, 0xFFFF_FFFF, 0), Ok(0));
        assert_eq!(m.unary(UnOp::Neg, 1), Ok(0xFFFF_FFFF));
        assert_eq!(m.unary(UnOp::BitNot, 0), Ok(0xFFFF_FFFF));
    }
}
