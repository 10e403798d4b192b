//! The constant expressions of `#if` and `#elif`, and integer and character literals
//! (also read by the host reader and the lowering).

use super::lexer::{Kind, Tok};

/// The integer value of a C literal (`42`, `0x1F`, `010`, `7u`, `'a'`).
pub(crate) fn int_literal(text: &str) -> Option<i64> {
    let t = text.replace('\'', "");
    if text.starts_with('\'') || text.starts_with("L'") || text.starts_with("u'") || text.starts_with("U'") {
        let inner = text.split_once('\'')?.1.strip_suffix('\'')?;
        return char_value(inner);
    }
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
            .ok()
            .or_else(|| u64::from_str_radix(h, 16).ok().map(|v| v as i64))
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse::<i64>().ok()
    }
}

fn char_value(inner: &str) -> Option<i64> {
    let mut chars = inner.chars();
    let c = chars.next()?;
    if c != '\\' {
        return Some(c as i64);
    }
    let e = chars.next()?;
    Some(match e {
        'n' => 10,
        't' => 9,
        'r' => 13,
        '0'..='7' => i64::from_str_radix(&inner[1..], 8).ok()?,
        'x' => i64::from_str_radix(&inner[2..], 16).ok()?,
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'v' => 11,
        other => other as i64,
    })
}

/// A `#if` expression over macro-expanded tokens (identifiers left are 0).
pub(super) struct IfExpr<'t> {
    pub(super) toks: &'t [Tok],
    pub(super) pos: usize,
}

impl IfExpr<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.peek().is_some_and(|t| t.is(s)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn ternary(&mut self) -> Result<i64, String> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err("expected `:` in the `#if` expression".into());
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<i64, String> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek().map(|t| t.text.clone()) {
            let prec = match op.as_str() {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec <= min {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec)?;
            lhs = match op.as_str() {
                "||" => (lhs != 0 || rhs != 0) as i64,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "<" => (lhs < rhs) as i64,
                ">" => (lhs > rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return Err("division by zero in the `#if` expression".into()),
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, String> {
        let Some(t) = self.peek().cloned() else {
            return Err("the `#if` expression ends too early".into());
        };
        self.pos += 1;
        match t.kind {
            Kind::Punct if t.text == "!" => Ok((self.unary()? == 0) as i64),
            Kind::Punct if t.text == "-" => Ok(self.unary()?.wrapping_neg()),
            Kind::Punct if t.text == "+" => self.unary(),
            Kind::Punct if t.text == "~" => Ok(!self.unary()?),
            Kind::Punct if t.text == "(" => {
                let v = self.ternary()?;
                if !self.eat(")") {
                    return Err("expected `)` in the `#if` expression".into());
                }
                Ok(v)
            }
            Kind::Number | Kind::Literal => int_literal(&t.text)
                .ok_or_else(|| format!("`{}` is not an integer in the `#if` expression", t.text)),
            Kind::Ident => Ok((t.text == "true") as i64),
            _ => Err(format!("unexpected `{}` in the `#if` expression", t.text)),
        }
    }
}
