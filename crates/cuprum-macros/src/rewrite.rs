//! The CPU body: the function as written, with its arithmetic operators turned into calls of
//! `cuprum::kernel::rt` (`a / b` becomes `rt::div(a, b)`), the Rust twins of `kernel.cuh`'s
//! helpers, and `x.exp()` into `rt::exp(x)` (float32: the CPU ufuncs' vectorisable exp). rustc still infers every type; integers wrap and divide by zero to 0 on the CPU as
//! on the GPU, in every build profile, and nothing panics.

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Expr, UnOp};

struct Ops;

fn helper(op: &BinOp) -> Option<(&'static str, bool)> {
    Some(match op {
        BinOp::Add(_) => ("add", false),
        BinOp::Sub(_) => ("sub", false),
        BinOp::Mul(_) => ("mul", false),
        BinOp::Div(_) => ("div", false),
        BinOp::Rem(_) => ("rem", false),
        BinOp::Shl(_) => ("shl", false),
        BinOp::Shr(_) => ("shr", false),
        BinOp::AddAssign(_) => ("add", true),
        BinOp::SubAssign(_) => ("sub", true),
        BinOp::MulAssign(_) => ("mul", true),
        BinOp::DivAssign(_) => ("div", true),
        BinOp::RemAssign(_) => ("rem", true),
        BinOp::ShlAssign(_) => ("shl", true),
        BinOp::ShrAssign(_) => ("shr", true),
        _ => return None,
    })
}

fn call(name: &str, span: Span, args: &[&Expr]) -> Expr {
    let f = syn::Ident::new(name, span);
    // `(a - b) / c`: the parentheses are not needed around an argument.
    let args: Vec<&Expr> = args
        .iter()
        .map(|a| {
            let mut a = *a;
            while let Expr::Paren(p) = a {
                a = &p.expr;
            }
            a
        })
        .collect();
    let e = quote_spanned! {span=> ::cuprum::kernel::rt::#f(#(#args),*) };
    syn::parse2(e).expect("a call parses")
}

impl VisitMut for Ops {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        let span = e.span();
        let new = match e {
            Expr::Binary(b) => match helper(&b.op) {
                Some((name, false)) => call(name, span, &[&b.left, &b.right]),
                Some((name, true)) => {
                    let v = call(name, span, &[&b.left, &b.right]);
                    let place = &b.left;
                    syn::parse2(quote_spanned! {span=> #place = #v }).expect("an assignment parses")
                }
                None => return,
            },
            // `x.exp()`: the runtime's (a vectorisable float32 exp; see `rt::exp`).
            Expr::MethodCall(m) if m.method == "exp" && m.args.is_empty() && m.turbofish.is_none() => {
                call("exp", span, &[&m.receiver])
            }
            // (A negated literal stays: `-128i8` is a literal, not a negation of 128i8.)
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) && !matches!(&*u.expr, Expr::Lit(_)) => {
                call("neg", span, &[&u.expr])
            }
            _ => return,
        };
        *e = new;
    }
    // Items nested in the body are not the kernel's.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Rewrites a body's operators (see the module's notes).
pub fn cpu_body(b: &mut syn::Block) {
    Ops.visit_block_mut(b);
}
