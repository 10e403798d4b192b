//! `.kpl` text → [`Kernel`]s, with pest. After the grammar accepts a file, a scope check
//! rejects what the grammar cannot: unknown names, arrays used as scalars, assignments
//! to parameters, shadowing (the interpreter and verifier use one flat environment per
//! thread, which is only correct when names are not shadowed).

use pest::Parser;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::collections::HashSet;
use std::sync::OnceLock;

use crate::IntTy;
use crate::ir::*;

#[derive(pest_derive::Parser)]
#[grammar = "syntax/kpl.pest"]
struct KplParser;

/// A syntax or scope error, located in the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Parses a `.kpl` file into its kernels. Statement ids are assigned in pre-order.
/// Deepest parenthesis nesting, and longest chain of operators in one expression, that
/// `.kpl` accepts: far beyond hand-written or generated kernels, and shallow enough for
/// the recursive parser and oracles on the threads the CLI gives them.
pub const MAX_NESTING: usize = 10_000;
pub const MAX_EXPR_DEPTH: usize = 20_000;

pub fn parse(src: &str) -> Result<Vec<Kernel>, ParseError> {
    check_nesting(src)?;
    let mut pairs = KplParser::parse(Rule::file, src).map_err(from_pest)?;
    let start = Span {
        start: 0,
        end: 0,
        line: 1,
        col: 1,
        end_line: 1,
        elsewhere: None,
        call: None,
    };
    let file = next_pair(&mut pairs, "file", start)?;
    let src = Src::new(src);
    let mut kernels = Vec::new();
    let mut names = HashSet::new();
    for p in file.into_inner() {
        if p.as_rule() != Rule::kernel {
            continue;
        }
        let k = src.kernel(p)?;
        if !names.insert(k.name.clone()) {
            return Err(err_at(k.span, format!("kernel `{}` is defined twice", k.name)));
        }
        check_scopes(&k)?;
        check_depth(&k)?;
        kernels.push(k);
    }
    Ok(kernels)
}

/// Rejects parentheses nested deeper than [`MAX_NESTING`] before pest's recursive
/// descent sees them.
fn check_nesting(src: &str) -> Result<(), ParseError> {
    let (mut depth, mut line, mut col) = (0usize, 1u32, 1u32);
    for (i, c) in src.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => {
                line += 1;
                col = 0;
            }
            _ => {}
        }
        col += 1;
        if depth > MAX_NESTING {
            let at = Span {
                start: i,
                end: i + 1,
                line,
                col: col - 1,
                end_line: line,
                elsewhere: None,
                call: None,
            };
            return Err(err_at(
                at,
                format!("brackets nested more than {MAX_NESTING} deep; simplify the expression"),
            ));
        }
    }
    Ok(())
}

/// Rejects expressions deeper than [`MAX_EXPR_DEPTH`] (a chain of that many operators).
fn check_depth(k: &Kernel) -> Result<(), ParseError> {
    fn depth(e: &Expr) -> usize {
        // Iterative on the left spine, where long left-associative chains grow.
        let (mut d, mut cur) = (0, e);
        let mut best = 0;
        loop {
            d += 1;
            match cur {
                Expr::Binary(_, a, b) => {
                    best = best.max(d + depth(b));
                    cur = a;
                }
                Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Other(a) => cur = a,
                Expr::Apply(_, args) => return args.iter().fold(best.max(d), |m, a| m.max(d + depth(a))),
                _ => return best.max(d),
            }
        }
    }
    let mut bad = None;
    let mut visit = |e: &Expr, span: Span| {
        if bad.is_none() && depth(e) > MAX_EXPR_DEPTH {
            bad = Some(span);
        }
    };
    for r in &k.requires {
        visit(r, k.span);
    }
    for s in k.stmts() {
        for e in stmt_exprs(&s.kind) {
            visit(e, s.span);
        }
    }
    match bad {
        Some(at) => Err(err_at(
            at,
            format!("an expression with more than {MAX_EXPR_DEPTH} nested operators; simplify it"),
        )),
        None => Ok(()),
    }
}

/// The expressions a statement evaluates itself (not those of nested blocks).
fn stmt_exprs(k: &StmtKind) -> Vec<&Expr> {
    match k {
        StmtKind::Local { init, .. } => init.iter().collect(),
        StmtKind::Assign { value, .. } => vec![value],
        StmtKind::Read { index, .. } => vec![index],
        StmtKind::Write { index, value, .. } | StmtKind::Atomic { index, value, .. } => vec![index, value],
        StmtKind::If { cond, .. }
        | StmtKind::While { cond, .. }
        | StmtKind::Assume(cond)
        | StmtKind::Invariant(cond) => vec![cond],
        StmtKind::For { init, cond, step, .. } => vec![init, cond, step],
        _ => Vec::new(),
    }
}

fn from_pest(e: pest::error::Error<Rule>) -> ParseError {
    let (line, col) = match e.line_col {
        pest::error::LineColLocation::Pos((l, c)) | pest::error::LineColLocation::Span((l, c), _) => {
            (l as u32, c as u32)
        }
    };
    let found = e
        .line()
        .chars()
        .nth((col as usize).saturating_sub(1))
        .filter(|c| !c.is_whitespace())
        .map_or_else(|| "end of line".to_string(), |c| format!("`{c}`"));
    let message = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let mut names: Vec<String> = positives.iter().map(|r| rule_name(*r).to_string()).collect();
            names.sort();
            names.dedup();
            format!("syntax error: expected {}, found {found}", names.join(" or "))
        }
        other => format!("syntax error: {}", other.message()),
    };
    ParseError { line, col, message }
}

fn rule_name(r: Rule) -> &'static str {
    match r {
        Rule::kernel => "`kernel`",
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::int => "a number",
        Rule::int_ty | Rule::cast => "a type",
        Rule::expr => "an expression",
        Rule::params | Rule::param | Rule::array_param | Rule::scalar_param => "a parameter",
        Rule::space => "`shared` or `global`",
        Rule::requires => "`requires`",
        Rule::block => "`{`",
        Rule::local_stmt
        | Rule::assign_stmt
        | Rule::read_stmt
        | Rule::write_stmt
        | Rule::atomic_stmt
        | Rule::barrier_stmt
        | Rule::if_stmt
        | Rule::while_stmt
        | Rule::for_stmt
        | Rule::assume_stmt
        | Rule::return_stmt
        | Rule::break_stmt
        | Rule::continue_stmt
        | Rule::havoc_stmt => "a statement",
        Rule::kw_else => "`else`",
        Rule::semi => "`;`",
        Rule::lparen => "`(`",
        Rule::builtin | Rule::builtin_name => "`tid`, `bid`, `bdim` or `gdim`",
        Rule::other | Rule::kw_other => "`other(...)`",
        Rule::apply => "`@f(...)`",
        Rule::dim => "`x`, `y` or `z`",
        Rule::atomic_op => "an atomic operation",
        Rule::or
        | Rule::and
        | Rule::bitor
        | Rule::bitxor
        | Rule::bitand
        | Rule::eq
        | Rule::ne
        | Rule::shl
        | Rule::shr
        | Rule::le
        | Rule::ge
        | Rule::lt
        | Rule::gt
        | Rule::add
        | Rule::sub
        | Rule::mul
        | Rule::div
        | Rule::rem => "an operator",
        Rule::neg | Rule::not | Rule::bitnot => "a unary operator",
        _ => "more input",
    }
}

/// What spans need from the source, computed once per file (computing them from the
/// pair's text alone is linear in the pair's length, so quadratic over nested blocks).
struct Src {
    /// The start of every line, in bytes.
    line_starts: Vec<usize>,
    /// Per byte offset `i`, the end of the last character before `i` outside comments
    /// (0: none).
    code_end: Vec<usize>,
}

impl Src {
    fn new(text: &str) -> Src {
        let b = text.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(
            b.iter()
                .enumerate()
                .filter(|(_, c)| **c == b'\n')
                .map(|(i, _)| i + 1),
        );
        let mut code_end = vec![0; b.len() + 1];
        let (mut i, mut last) = (0, 0);
        while i < b.len() {
            let skip = if b[i..].starts_with(b"//") {
                text[i..].find('\n').unwrap_or(b.len() - i)
            } else if b[i..].starts_with(b"/*") {
                text[i + 2..].find("*/").map_or(b.len() - i, |j| j + 4)
            } else {
                if !b[i].is_ascii_whitespace() {
                    last = i + 1;
                }
                1
            };
            for e in &mut code_end[i + 1..=i + skip] {
                *e = last;
            }
            i += skip;
        }
        Src {
            line_starts,
            code_end,
        }
    }

    /// The span of a pair, without the blanks and comments pest lets a rule swallow after
    /// its last token (statements and blocks end with `;` or `}`, which is where they end).
    fn span_of(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        let (line, col) = p.line_col();
        let end = self.code_end.get(s.end()).copied().unwrap_or(0).max(s.start());
        // Lines are numbered from 1: the number of line starts at or before `end`.
        let end_line = self.line_starts.partition_point(|&l| l <= end);
        Span {
            start: s.start(),
            end,
            line: line as u32,
            col: col as u32,
            end_line: end_line as u32,
            elsewhere: None,
            call: None,
        }
    }

    fn kernel(&self, p: Pair<Rule>) -> Result<Kernel, ParseError> {
        let span = self.span_of(&p);
        let mut inner = p.into_inner();
        let name = next_pair(&mut inner, "a kernel name", span)?.as_str().to_string();
        let mut params = Vec::new();
        let mut requires = Vec::new();
        let mut body = None;
        for q in inner {
            match q.as_rule() {
                Rule::params => {
                    for param in q.into_inner() {
                        params.push(self.parameter(param)?);
                    }
                }
                Rule::requires => {
                    let at = self.span_of(&q);
                    let e = next_pair(&mut q.into_inner(), "an expression", at)?;
                    requires.push(self.expr(e)?);
                }
                Rule::block => body = Some(self.block(q)?),
                _ => {}
            }
        }
        let body = body.ok_or_else(|| internal(span, "a kernel body"))?;
        let header_end = body.span.start;
        let mut k = Kernel {
            name,
            params,
            requires,
            body,
            span: Span {
                end: header_end,
                end_line: span.line,
                ..span
            },
            calls: Vec::new(),
        };
        k.renumber();
        Ok(k)
    }

    fn parameter(&self, p: Pair<Rule>) -> Result<Param, ParseError> {
        let at = self.span_of(&p);
        let q = next_pair(&mut p.into_inner(), "a parameter", at)?;
        Ok(match q.as_rule() {
            Rule::array_param => {
                let mut i = q.into_inner();
                let space = match next_pair(&mut i, "a memory space", at)?.as_str() {
                    "shared" => Space::Shared,
                    _ => Space::Global,
                };
                Param::Array {
                    space,
                    name: next_pair(&mut i, "an array name", at)?.as_str().to_string(),
                }
            }
            _ => {
                let parts: Vec<Pair<Rule>> = q.into_inner().collect();
                let ty = parts
                    .iter()
                    .find(|p| p.as_rule() == Rule::int_ty)
                    .and_then(|p| IntTy::from_name(p.as_str()))
                    .unwrap_or_default();
                let name = parts.last().ok_or_else(|| internal(at, "a parameter name"))?;
                Param::Scalar {
                    name: name.as_str().to_string(),
                    ty,
                }
            }
        })
    }

    fn block(&self, p: Pair<Rule>) -> Result<Block, ParseError> {
        let span = self.span_of(&p);
        let stmts = p
            .into_inner()
            .map(|q| self.stmt(q))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Block {
            span,
            ..Block::new(stmts)
        })
    }

    fn ident<'a>(
        &self,
        i: &mut impl Iterator<Item = Pair<'a, Rule>>,
        at: Span,
    ) -> Result<String, ParseError> {
        Ok(next_pair(i, "a name", at)?.as_str().to_string())
    }

    fn next_expr<'a>(
        &self,
        i: &mut impl Iterator<Item = Pair<'a, Rule>>,
        at: Span,
    ) -> Result<Expr, ParseError> {
        self.expr(next_pair(i, "an expression", at)?)
    }

    fn next_block<'a>(
        &self,
        i: &mut impl Iterator<Item = Pair<'a, Rule>>,
        at: Span,
    ) -> Result<Block, ParseError> {
        self.block(next_pair(i, "a block", at)?)
    }

    fn stmt(&self, p: Pair<Rule>) -> Result<Stmt, ParseError> {
        let span = self.span_of(&p);
        let rule = p.as_rule();
        // Punctuation is a rule only so syntax errors can name it.
        let mut i = p
            .into_inner()
            .filter(|q| !matches!(q.as_rule(), Rule::semi | Rule::lparen));
        let kind = match rule {
            Rule::local_stmt => {
                i.next(); // the keyword
                let var = self.ident(&mut i, span)?;
                let init = i.next().map(|e| self.expr(e)).transpose()?;
                StmtKind::Local { var, init }
            }
            Rule::assign_stmt => StmtKind::Assign {
                var: self.ident(&mut i, span)?,
                value: self.next_expr(&mut i, span)?,
            },
            Rule::read_stmt => {
                let var = self.ident(&mut i, span)?;
                let mut i = i.peekable();
                let ty = element_type(&mut i);
                StmtKind::Read {
                    var,
                    array: self.ident(&mut i, span)?,
                    index: self.next_expr(&mut i, span)?,
                    ty,
                }
            }
            Rule::write_stmt => StmtKind::Write {
                array: self.ident(&mut i, span)?,
                index: self.next_expr(&mut i, span)?,
                value: self.next_expr(&mut i, span)?,
            },
            Rule::atomic_stmt => {
                let mut i = i.peekable();
                let var = match i.peek() {
                    Some(q) if q.as_rule() == Rule::ident => Some(self.ident(&mut i, span)?),
                    _ => None,
                };
                let ty = element_type(&mut i);
                let op_pair = next_pair(&mut i, "an atomic operation", span)?;
                let op = AtomicOp::ALL
                    .into_iter()
                    .find(|o| o.keyword() == op_pair.as_str())
                    .ok_or_else(|| internal(self.span_of(&op_pair), "an atomic operation"))?;
                StmtKind::Atomic {
                    var,
                    op,
                    array: self.ident(&mut i, span)?,
                    index: self.next_expr(&mut i, span)?,
                    value: self.next_expr(&mut i, span)?,
                    ty,
                }
            }
            Rule::barrier_stmt => StmtKind::Barrier,
            Rule::warp_barrier_stmt => StmtKind::WarpBarrier,
            Rule::grid_barrier_stmt => StmtKind::GridBarrier,
            Rule::ticket_barrier_stmt => StmtKind::TicketBarrier,
            Rule::if_stmt => {
                i.next();
                let cond = self.next_expr(&mut i, span)?;
                let then_blk = self.next_block(&mut i, span)?;
                let else_blk = match i.next() {
                    Some(_kw_else) => Some(self.next_block(&mut i, span)?),
                    None => None,
                };
                StmtKind::If {
                    cond,
                    then_blk,
                    else_blk,
                }
            }
            Rule::while_stmt => {
                i.next();
                StmtKind::While {
                    cond: self.next_expr(&mut i, span)?,
                    body: self.next_block(&mut i, span)?,
                }
            }
            Rule::for_stmt => {
                i.next();
                let var_pair = next_pair(&mut i, "a loop variable", span)?;
                let var = var_pair.as_str().to_string();
                let init = self.next_expr(&mut i, span)?;
                let cond = self.next_expr(&mut i, span)?;
                let step_var = next_pair(&mut i, "a step variable", span)?;
                if step_var.as_str() != var {
                    return Err(err_at(
                        self.span_of(&step_var),
                        format!(
                            "the step of this `for` assigns `{}`, but the loop variable is `{var}`",
                            step_var.as_str()
                        ),
                    ));
                }
                let step = self.next_expr(&mut i, span)?;
                StmtKind::For {
                    var,
                    init,
                    cond,
                    step,
                    body: self.next_block(&mut i, span)?,
                }
            }
            Rule::assume_stmt => {
                i.next();
                StmtKind::Assume(self.next_expr(&mut i, span)?)
            }
            Rule::invariant_stmt => {
                i.next();
                StmtKind::Invariant(self.next_expr(&mut i, span)?)
            }
            Rule::return_stmt => StmtKind::Return,
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::havoc_stmt => {
                let warp = i.next().is_some_and(|k| k.as_rule() == Rule::kw_warp_havoc);
                StmtKind::Havoc {
                    var: self.ident(&mut i, span)?,
                    warp,
                }
            }
            r => return Err(internal(span, &format!("a statement, not {r:?},"))),
        };
        Ok(Stmt::new(StmtId(0), kind, span))
    }

    fn expr(&self, p: Pair<Rule>) -> Result<Expr, ParseError> {
        pratt()
            .map_primary(|p| self.primary(p))
            .map_prefix(|op, rhs| {
                let u = match op.as_rule() {
                    Rule::neg => UnOp::Neg,
                    Rule::not => UnOp::Not,
                    _ => UnOp::BitNot,
                };
                Ok(Expr::un(u, rhs?))
            })
            .map_infix(|lhs, op, rhs| {
                let b = match op.as_rule() {
                    Rule::or => BinOp::Or,
                    Rule::and => BinOp::And,
                    Rule::bitor => BinOp::BitOr,
                    Rule::bitxor => BinOp::BitXor,
                    Rule::bitand => BinOp::BitAnd,
                    Rule::eq => BinOp::Eq,
                    Rule::ne => BinOp::Ne,
                    Rule::shl => BinOp::Shl,
                    Rule::shr => BinOp::Shr,
                    Rule::le => BinOp::Le,
                    Rule::ge => BinOp::Ge,
                    Rule::lt => BinOp::Lt,
                    Rule::gt => BinOp::Gt,
                    Rule::add => BinOp::Add,
                    Rule::sub => BinOp::Sub,
                    Rule::mul => BinOp::Mul,
                    Rule::div => BinOp::Div,
                    _ => BinOp::Rem,
                };
                Ok(Expr::bin(b, lhs?, rhs?))
            })
            .parse(p.into_inner())
    }

    fn primary(&self, p: Pair<Rule>) -> Result<Expr, ParseError> {
        match p.as_rule() {
            Rule::int => p
                .as_str()
                .parse::<i64>()
                .ok()
                .filter(|v| *v <= u32::MAX as i64)
                .map(Expr::Int)
                .ok_or_else(|| {
                    err_at(
                        self.span_of(&p),
                        format!("integer `{}` does not fit in 32 bits", p.as_str()),
                    )
                }),
            Rule::ident => Ok(Expr::Var(p.as_str().to_string())),
            Rule::builtin => {
                let at = self.span_of(&p);
                let mut i = p.into_inner();
                let name = next_pair(&mut i, "a builtin name", at)?.as_str();
                let dim = match i.next().map(|d| d.as_str()) {
                    Some("y") => Dim::Y,
                    Some("z") => Dim::Z,
                    _ => Dim::X,
                };
                Ok(Expr::Builtin(match name {
                    "tid" => Builtin::Tid(dim),
                    "bid" => Builtin::Bid(dim),
                    "bdim" => Builtin::Bdim(dim),
                    _ => Builtin::Gdim(dim),
                }))
            }
            Rule::cast => {
                let at = self.span_of(&p);
                let mut i = p.into_inner();
                let ty = next_pair(&mut i, "a type", at)?;
                let ty = IntTy::from_name(ty.as_str()).ok_or_else(|| internal(at, "a type"))?;
                Ok(Expr::cast(
                    ty,
                    self.expr(next_pair(&mut i, "an expression", at)?)?,
                ))
            }
            Rule::other => {
                let at = self.span_of(&p);
                let inner = p.into_inner().find(|q| q.as_rule() == Rule::expr);
                Ok(Expr::other(
                    self.expr(inner.ok_or_else(|| internal(at, "an expression"))?)?,
                ))
            }
            Rule::apply => {
                let at = self.span_of(&p);
                let mut i = p.into_inner();
                let f = next_pair(&mut i, "a function name", at)?.as_str().to_string();
                let args = i.map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                Ok(Expr::Apply(f, args))
            }
            Rule::expr => self.expr(p),
            r => Err(internal(self.span_of(&p), &format!("an operand, not {r:?},"))),
        }
    }
}

fn err_at(span: Span, message: String) -> ParseError {
    ParseError {
        line: span.line,
        col: span.col,
        message,
    }
}

/// The next pair of a rule's children, which the grammar guarantees; an internal error at
/// `at` (the parent's span) rather than a panic if it is missing after all.
/// The integer type an element is read through (`x = u32(A[i]);`), if one is named.
fn element_type<'a, I: Iterator<Item = Pair<'a, Rule>>>(i: &mut std::iter::Peekable<I>) -> Option<IntTy> {
    let q = i.next_if(|q| q.as_rule() == Rule::int_ty)?;
    IntTy::from_name(q.as_str())
}

fn next_pair<'a>(
    pairs: &mut impl Iterator<Item = Pair<'a, Rule>>,
    what: &str,
    at: Span,
) -> Result<Pair<'a, Rule>, ParseError> {
    pairs.next().ok_or_else(|| internal(at, what))
}

/// An error for input the grammar accepted but the parser does not expect (a bug).
fn internal(at: Span, what: &str) -> ParseError {
    err_at(at, format!("internal error: the parser expected {what} here"))
}

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or, Assoc::Left))
            .op(Op::infix(Rule::and, Assoc::Left))
            .op(Op::infix(Rule::bitor, Assoc::Left))
            .op(Op::infix(Rule::bitxor, Assoc::Left))
            .op(Op::infix(Rule::bitand, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left) | Op::infix(Rule::ne, Assoc::Left))
            .op(Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::shl, Assoc::Left) | Op::infix(Rule::shr, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left)
                | Op::infix(Rule::div, Assoc::Left)
                | Op::infix(Rule::rem, Assoc::Left))
            .op(Op::prefix(Rule::neg) | Op::prefix(Rule::not) | Op::prefix(Rule::bitnot))
    })
}

/// The scope check described in the module comment.
fn check_scopes(k: &Kernel) -> Result<(), ParseError> {
    let mut sc = Scopes {
        arrays: HashSet::new(),
        params: HashSet::new(),
        stack: vec![Vec::new()],
        loop_depth: 0,
    };
    for p in &k.params {
        let fresh = match p {
            Param::Array { name, .. } => sc.arrays.insert(name.clone()),
            Param::Scalar { name, .. } => sc.params.insert(name.clone()),
        };
        if !fresh || (sc.arrays.contains(p.name()) && sc.params.contains(p.name())) {
            return Err(err_at(
                k.span,
                format!("parameter `{}` is declared twice", p.name()),
            ));
        }
    }
    for r in &k.requires {
        sc.expr(r, k.span)?;
    }
    sc.block(&k.body)
}

struct Scopes {
    arrays: HashSet<String>,
    params: HashSet<String>,
    stack: Vec<Vec<String>>,
    loop_depth: usize,
}

impl Scopes {
    fn visible(&self, v: &str) -> bool {
        self.stack.iter().any(|s| s.iter().any(|x| x == v))
    }

    fn declare(&mut self, v: &str, span: Span) -> Result<(), ParseError> {
        if self.params.contains(v) || self.arrays.contains(v) || self.visible(v) {
            return Err(err_at(
                span,
                format!("`{v}` is already declared here; pick another name (shadowing is not supported)"),
            ));
        }
        self.stack.last_mut().expect("scope").push(v.to_string());
        Ok(())
    }

    fn expr(&self, e: &Expr, span: Span) -> Result<(), ParseError> {
        self.expr_in(e, span, false)
    }

    /// [`Scopes::expr`], where `other(e)` is allowed only in an `assume` (`two_thread`).
    fn expr_in(&self, e: &Expr, span: Span, two_thread: bool) -> Result<(), ParseError> {
        if !two_thread && e.has_other() {
            return Err(err_at(
                span,
                "`other(e)` (the other thread's value) is only allowed in `assume`".to_string(),
            ));
        }
        let mut bad = None;
        e.for_each_var(&mut |v| {
            if bad.is_none() && !self.params.contains(v) && !self.visible(v) {
                bad = Some(v.to_string());
            }
        });
        match bad {
            None => Ok(()),
            Some(v) if self.arrays.contains(&v) => Err(err_at(
                span,
                format!("array `{v}` used as a value; read it into a local first (`x = {v}[i];`)"),
            )),
            Some(v) => Err(err_at(span, format!("unknown variable `{v}`"))),
        }
    }

    fn target(&self, v: &str, span: Span) -> Result<(), ParseError> {
        if self.params.contains(v) {
            return Err(err_at(span, format!("cannot assign to parameter `{v}`")));
        }
        if !self.visible(v) {
            return Err(err_at(
                span,
                format!("unknown variable `{v}` (declare it with `local {v};`)"),
            ));
        }
        Ok(())
    }

    fn array(&self, a: &str, span: Span) -> Result<(), ParseError> {
        if self.arrays.contains(a) {
            Ok(())
        } else {
            Err(err_at(
                span,
                format!("unknown array `{a}` (declare it as a `shared` or `global` parameter)"),
            ))
        }
    }

    fn block(&mut self, b: &Block) -> Result<(), ParseError> {
        self.stack.push(Vec::new());
        for s in &b.stmts {
            self.stmt(s)?;
        }
        self.stack.pop();
        Ok(())
    }

    fn loop_block(&mut self, b: &Block) -> Result<(), ParseError> {
        self.loop_depth += 1;
        let r = self.block(b);
        self.loop_depth -= 1;
        r
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), ParseError> {
        let sp = s.span;
        match &s.kind {
            StmtKind::Local { var, init } => {
                if let Some(e) = init {
                    self.expr(e, sp)?;
                }
                self.declare(var, sp)
            }
            StmtKind::Assign { var, value } => {
                self.expr(value, sp)?;
                self.target(var, sp)
            }
            StmtKind::Havoc { var, .. } => self.target(var, sp),
            StmtKind::Read {
                var, array, index, ..
            } => {
                self.array(array, sp)?;
                self.expr(index, sp)?;
                self.target(var, sp)
            }
            StmtKind::Write { array, index, value } => {
                self.array(array, sp)?;
                self.expr(index, sp)?;
                self.expr(value, sp)
            }
            StmtKind::Atomic {
                var,
                array,
                index,
                value,
                ..
            } => {
                self.array(array, sp)?;
                self.expr(index, sp)?;
                self.expr(value, sp)?;
                match var {
                    Some(v) => self.target(v, sp),
                    None => Ok(()),
                }
            }
            StmtKind::Barrier
            | StmtKind::WarpBarrier
            | StmtKind::GridBarrier
            | StmtKind::TicketBarrier
            | StmtKind::Return => Ok(()),
            StmtKind::Break | StmtKind::Continue if self.loop_depth == 0 => Err(err_at(
                sp,
                "`break` and `continue` must be inside a loop".to_string(),
            )),
            StmtKind::Break | StmtKind::Continue => Ok(()),
            StmtKind::Assume(e) => self.expr_in(e, sp, true),
            StmtKind::Invariant(e) => self.expr(e, sp),
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                self.expr(cond, sp)?;
                self.block(then_blk)?;
                match else_blk {
                    Some(b) => self.block(b),
                    None => Ok(()),
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, sp)?;
                self.loop_block(body)
            }
            StmtKind::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                self.expr(init, sp)?;
                self.stack.push(Vec::new());
                self.declare(var, sp)?;
                self.expr(cond, sp)?;
                self.expr(step, sp)?;
                self.loop_block(body)?;
                self.stack.pop();
                Ok(())
            }
        }
    }
}
