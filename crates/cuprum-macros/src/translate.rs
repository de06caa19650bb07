//! Rust to CUDA C: the subset of `docs/kernels-design.md`. Names are mangled (`v_x` for a
//! local, `cuprum_dev_f` for a device function) so that no Rust name meets a C++ keyword or a
//! CUDA builtin. Operators and methods become the overloaded helpers of `kernel.cuh`
//! (`rt_add`, `rt_exp`, ...), literals without a suffix the wrappers `FLit`/`ILit`, `let`
//! without a type `auto`: the C++ compiler infers what rustc infers. Anything else is a
//! `syn::Error` at its span.

use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, ItemFn, Lit, Pat, Path, ReturnType, Stmt, Type, UnOp};

/// A function's CUDA C and the device functions it calls.
pub struct Translated {
    pub source: String,
    pub calls: Vec<Path>,
}

fn err<T>(s: impl Spanned, msg: &str) -> syn::Result<T> {
    Err(syn::Error::new(s.span(), format!("cuprum kernels: {msg}")))
}

/// The C type of a Rust scalar type.
fn c_type(ty: &Type) -> syn::Result<&'static str> {
    if let Type::Path(p) = ty {
        if p.qself.is_none() {
            if let Some(id) = p.path.get_ident() {
                return Ok(match id.to_string().as_str() {
                    "bool" => "bool",
                    "i8" => "signed char",
                    "i16" => "short",
                    "i32" => "int",
                    "i64" | "isize" => "long long",
                    "u8" => "unsigned char",
                    "u16" => "unsigned short",
                    "u32" => "unsigned int",
                    "u64" | "usize" => "unsigned long long",
                    "f32" => "float",
                    "f64" => "double",
                    _ => return err(ty, "only scalar types (bool, i8..i64, u8..u64, f32, f64) here"),
                });
            }
        }
    }
    err(ty, "only scalar types (bool, i8..i64, u8..u64, f32, f64) here")
}

/// The float methods and the integer methods a body may call (each an `rt_` overload of
/// `kernel.cuh`), with their numbers of arguments besides the receiver.
const METHODS: &[(&str, usize)] = &[
    ("abs", 0),
    ("sqrt", 0),
    ("cbrt", 0),
    ("exp", 0),
    ("exp2", 0),
    ("exp_m1", 0),
    ("ln", 0),
    ("ln_1p", 0),
    ("log2", 0),
    ("log10", 0),
    ("log", 1),
    ("powi", 1),
    ("powf", 1),
    ("pow", 1),
    ("sin", 0),
    ("cos", 0),
    ("tan", 0),
    ("asin", 0),
    ("acos", 0),
    ("atan", 0),
    ("atan2", 1),
    ("sinh", 0),
    ("cosh", 0),
    ("tanh", 0),
    ("hypot", 1),
    ("floor", 0),
    ("ceil", 0),
    ("round", 0),
    ("trunc", 0),
    ("fract", 0),
    ("signum", 0),
    ("recip", 0),
    ("to_degrees", 0),
    ("to_radians", 0),
    ("min", 1),
    ("max", 1),
    ("clamp", 2),
    ("mul_add", 2),
    ("is_nan", 0),
    ("is_infinite", 0),
    ("is_finite", 0),
    ("is_sign_negative", 0),
    ("wrapping_add", 1),
    ("wrapping_sub", 1),
    ("wrapping_mul", 1),
    ("count_ones", 0),
    ("leading_zeros", 0),
    ("trailing_zeros", 0),
    ("len", 0),
    ("dim", 0),
    ("nrows", 0),
    ("ncols", 0),
];

/// The loops being translated, innermost last: `Some(label)` where `continue` must jump to a
/// label (an inclusive range's step), `None` where C's `continue` does.
struct Cx {
    calls: Vec<Path>,
    /// The locals in scope, innermost last: Rust name and C name (each `let` makes a new C
    /// name, so that shadowing works).
    scopes: Vec<Vec<(String, String)>>,
    fresh: usize,
    loops: Vec<Option<String>>,
    /// Depth of immediately-invoked lambdas (block expressions): `return`, `break` and
    /// `continue` cannot cross them.
    lambdas: usize,
    labels: usize,
    /// In a grid kernel (shared arrays allowed).
    kernel: bool,
    /// C names of the locals known to be at least 1: the indices of `for` loops over ranges
    /// starting at an integer literal >= 1 (Rust's loop variables cannot be assigned), so a
    /// division or remainder by one needs no check for 0 or -1.
    positive: Vec<String>,
}

/// The value of an integer literal (in parentheses or not).
fn int_lit_value(e: &Expr) -> Option<u128> {
    match e {
        Expr::Paren(p) => int_lit_value(&p.expr),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u128>().ok(),
        _ => None,
    }
}

/// Translates a `#[cuprum::device]` function.
pub fn device_fn(f: &ItemFn) -> syn::Result<Translated> {
    let sig = &f.sig;
    if !sig.generics.params.is_empty() {
        return err(&sig.generics, "generic device functions are not supported (write one per type)");
    }
    if let Some(a) = &sig.asyncness {
        return err(a, "async functions are not supported");
    }
    if let Some(u) = &sig.unsafety {
        return err(u, "unsafe functions are not supported");
    }
    let ret = match &sig.output {
        ReturnType::Default => "void".to_string(),
        ReturnType::Type(_, ty) => ret_type(ty)?,
    };
    let (params, names) = parameters(sig, |t| c_type(t).map(str::to_string))?;
    let mut cx = Cx::new(names, false);
    let body = cx.fn_block(&f.block, ret != "void")?;
    let source =
        format!("__device__ __forceinline__ {ret} cuprum_dev_{}({}) {{\n{body}}}\n", sig.ident, params.join(", "));
    Ok(Translated { source, calls: cx.calls })
}

/// The C type of a device function's result: a scalar, or a tuple of 2 to 4 scalars
/// (`RtTup<...>`, fields `a0`...).
fn ret_type(ty: &Type) -> syn::Result<String> {
    if let Type::Tuple(t) = ty {
        if (2..=4).contains(&t.elems.len()) {
            let v = t.elems.iter().map(c_type).collect::<syn::Result<Vec<_>>>()?;
            return Ok(format!("RtTup{}<{}>", t.elems.len(), v.join(", ")));
        }
        return err(ty, "a device function returns a scalar or a tuple of 2 to 4 scalars");
    }
    Ok(c_type(ty)?.to_string())
}

/// A kernel's N-d view parameter, `View<T, N>` or `ViewMut<T, N>` (any path to them, a
/// lifetime allowed first): whether it is writable, `T`, and `N` (1 to 3). `None` for other
/// types.
pub fn view_type(ty: &Type) -> syn::Result<Option<(bool, &Type, usize)>> {
    let Type::Path(p) = ty else { return Ok(None) };
    let Some(last) = p.path.segments.last() else { return Ok(None) };
    let mutable = match last.ident.to_string().as_str() {
        "View" => false,
        "ViewMut" => true,
        _ => return Ok(None),
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return err(ty, "a view parameter is `View<T, N>` or `ViewMut<T, N>` (N = 1, 2 or 3)");
    };
    let args: Vec<&syn::GenericArgument> =
        a.args.iter().filter(|g| !matches!(g, syn::GenericArgument::Lifetime(_))).collect();
    let (Some(syn::GenericArgument::Type(elem)), Some(n), 2) = (args.first(), args.get(1), args.len()) else {
        return err(ty, "a view parameter is `View<T, N>` or `ViewMut<T, N>` (N = 1, 2 or 3)");
    };
    // (An integer literal argument parses as a const generic argument.)
    let n = match n {
        syn::GenericArgument::Const(e) => int_lit_value(e),
        _ => None,
    };
    match n {
        Some(n @ 1..=3) => Ok(Some((mutable, elem, n as usize))),
        _ => err(ty, "a view has 1, 2 or 3 dimensions, written as an integer literal: `View<f32, 2>`"),
    }
}

/// The C type of a grid kernel's parameter: a slice (`&[T]`, `&mut [T]`) is an `RtSlice<T>`
/// (pointer, length, the out-of-range record); a scalar its C type.
fn param_type(ty: &Type) -> syn::Result<String> {
    if let Some((_, elem, n)) = view_type(ty)? {
        return Ok(format!("RtView<{}, {n}>", c_type(elem)?));
    }
    if let Type::Reference(r) = ty {
        if let Type::Slice(sl) = &*r.elem {
            return Ok(format!("RtSlice<{}>", c_type(&sl.elem)?));
        }
        return err(ty, "a kernel's parameters are slices (&[T], &mut [T]) of scalars, or scalars");
    }
    Ok(c_type(ty)?.to_string())
}

/// Translates a `#[cuprum::kernel]` function: `extern "C" __global__ void cuprum_kernel(...)`,
/// its first parameter the out-of-range record.
pub fn kernel_fn(f: &ItemFn) -> syn::Result<Translated> {
    let sig = &f.sig;
    if !sig.generics.params.is_empty() {
        return err(&sig.generics, "generic kernels are not supported");
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return err(ty, "a kernel returns nothing (it writes its `&mut [T]` parameters)");
    }
    let (mut params, names) = parameters(sig, param_type)?;
    params.insert(0, "unsigned long long* cuprum_rec".to_string());
    let mut cx = Cx::new(names, true);
    let body = cx.fn_block(&f.block, false)?;
    let source = format!(
        "extern \"C\" __global__ void __launch_bounds__(1024) cuprum_kernel({}) {{\n(void)cuprum_rec;\n{body}}}\n",
        params.join(", ")
    );
    Ok(Translated { source, calls: cx.calls })
}

/// The kernel intrinsics of `cuprum::kernel` (called by their last path segment), with their
/// numbers of arguments.
const INTRINSICS: &[(&str, usize)] = &[
    ("grid", 1),
    ("gridsize", 1),
    ("grid2", 0),
    ("gridsize2", 0),
    ("thread_idx", 0),
    ("block_idx", 0),
    ("block_dim", 0),
    ("grid_dim", 0),
    ("sync_threads", 0),
    ("sync_warp", 1),
    ("all_sync", 2),
    ("any_sync", 2),
    ("ballot_sync", 2),
    ("shfl_sync", 3),
    ("shfl_up_sync", 3),
    ("shfl_down_sync", 3),
    ("shfl_xor_sync", 3),
    ("lane_id", 0),
    ("warp_size", 0),
    ("atomic_add", 3),
    ("atomic_sub", 3),
    ("atomic_min", 3),
    ("atomic_max", 3),
    ("atomic_exch", 3),
    ("atomic_cas", 4),
];

/// Translates a `#[cuprum::device] const`: a device function returning its value.
pub fn device_const(c: &syn::ItemConst) -> syn::Result<Translated> {
    let ty = c_type(&c.ty)?;
    let mut cx = Cx::new(Vec::new(), false);
    let v = cx.expr(&c.expr)?;
    let source = format!("__device__ __forceinline__ {ty} cuprum_const_{}() {{ return ({ty})({v}); }}\n", c.ident);
    Ok(Translated { source, calls: cx.calls })
}

/// A function's C parameters (`type v_name`, the type by `ty`) and its locals' first scope.
type Params = (Vec<String>, Vec<(String, String)>);
fn parameters(sig: &syn::Signature, ty: impl Fn(&Type) -> syn::Result<String>) -> syn::Result<Params> {
    let mut params = Vec::new();
    let mut names = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Typed(pt) => {
                let name = pat_ident(&pt.pat)?;
                params.push(format!("{} v_{name}", ty(&pt.ty)?));
                names.push((name.clone(), format!("v_{name}")));
            }
            syn::FnArg::Receiver(r) => return err(r, "methods are not supported (write a function)"),
        }
    }
    Ok((params, names))
}

/// The name a pattern binds (`x` or `mut x`).
fn pat_ident(p: &Pat) -> syn::Result<String> {
    match p {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Ok(pi.ident.to_string()),
        _ => err(p, "only simple names are supported in bindings"),
    }
}

impl Cx {
    /// A translation starting with the parameters `names` in scope (`kernel`: a grid kernel's
    /// body, where shared arrays may be declared).
    fn new(names: Vec<(String, String)>, kernel: bool) -> Cx {
        Cx {
            calls: Vec::new(),
            scopes: vec![names],
            fresh: 0,
            loops: Vec::new(),
            lambdas: 0,
            labels: 0,
            kernel,
            positive: Vec::new(),
        }
    }

    /// A function's body: its statements, its tail expression returned.
    fn fn_block(&mut self, b: &Block, returns: bool) -> syn::Result<String> {
        let mut s = String::new();
        for (k, st) in b.stmts.iter().enumerate() {
            let last = k + 1 == b.stmts.len();
            match st {
                Stmt::Expr(e, None) if last && returns && !is_control(e) => {
                    s += &format!("return {};\n", self.expr(e)?);
                }
                _ => s += &self.stmt(st)?,
            }
        }
        Ok(s)
    }

    /// A block of statements (a loop's or a branch's body), its braces included.
    fn block(&mut self, b: &Block) -> syn::Result<String> {
        self.scopes.push(Vec::new());
        let mut s = String::from("{\n");
        let r = b.stmts.iter().try_for_each(|st| {
            s += &self.stmt(st)?;
            Ok(())
        });
        self.scopes.pop();
        r.map(|_| s + "}\n")
    }

    /// A new local: its C name, in the innermost scope from now on.
    fn bind(&mut self, name: &str) -> String {
        self.fresh += 1;
        let c = format!("v_{name}_{}", self.fresh);
        self.scopes.last_mut().expect("a scope").push((name.to_string(), c.clone()));
        c
    }

    /// A local's C name.
    fn find_local(&self, id: &syn::Ident) -> Option<String> {
        let name = id.to_string();
        for sc in self.scopes.iter().rev() {
            if let Some((_, c)) = sc.iter().rev().find(|(n, _)| *n == name) {
                return Some(c.clone());
            }
        }
        None
    }
    fn local(&self, id: &syn::Ident) -> syn::Result<String> {
        self.find_local(id).map_or_else(|| err(id, "not a local variable or parameter"), Ok)
    }

    /// Records a device function or constant the body uses (once).
    fn add_call(&mut self, p: &Path) {
        let key = |q: &Path| quote::quote!(#q).to_string();
        if !self.calls.iter().any(|q| key(q) == key(p)) {
            self.calls.push(p.clone());
        }
    }

    fn stmt(&mut self, st: &Stmt) -> syn::Result<String> {
        match st {
            Stmt::Local(l) => {
                let Some(init) = &l.init else {
                    return err(l, "a `let` needs a value");
                };
                if let Some((_, e)) = &init.diverge {
                    return err(e, "`let ... else` is not supported");
                }
                // `let (a, b) = (x, y);`: the values first, then the names.
                if let (Pat::Tuple(pt), Expr::Tuple(et)) = (&l.pat, &*init.expr) {
                    if pt.elems.len() != et.elems.len() {
                        return err(l, "the tuple's lengths differ");
                    }
                    let vals = et.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                    let mut s = String::new();
                    for (p, v) in pt.elems.iter().zip(vals) {
                        let c = self.bind(&pat_ident(p)?);
                        s += &format!("auto {c} = {v};\n");
                    }
                    return Ok(s);
                }
                // `let (a, b) = f(x);`: a tuple value (a device function's, `grid2()`).
                if let Pat::Tuple(pt) = &l.pat {
                    let v = self.expr(&init.expr)?;
                    let n = self.labels;
                    self.labels += 1;
                    let mut s = format!("auto tup_{n} = {v};\n");
                    for (k, p) in pt.elems.iter().enumerate() {
                        if let Pat::Wild(_) = p {
                            continue;
                        }
                        let c = self.bind(&pat_ident(p)?);
                        s += &format!("auto {c} = tup_{n}.a{k};\n");
                    }
                    return Ok(s);
                }
                if let Pat::Wild(_) = &l.pat {
                    return Ok(format!("(void)({});\n", self.expr(&init.expr)?));
                }
                if let Some((t, n)) = shared_call(&init.expr)? {
                    if !self.kernel {
                        return err(&init.expr, "shared arrays are declared in a `#[cuprum::kernel]` body");
                    }
                    let name = match &l.pat {
                        Pat::Type(pt) => pat_ident(&pt.pat)?,
                        p => pat_ident(p)?,
                    };
                    let c = self.bind(&name);
                    return Ok(format!(
                        "__shared__ {t} sh_{c}[{n}];\nRtSlice<{t}> {c} = {{sh_{c}, {n}ull, cuprum_rec}};\n"
                    ));
                }
                let (name, ty) = match &l.pat {
                    Pat::Type(pt) => (pat_ident(&pt.pat)?, Some(c_type(&pt.ty)?)),
                    p => (pat_ident(p)?, None),
                };
                let v = self.expr(&init.expr)?;
                let c = self.bind(&name);
                Ok(format!("{} {c} = {v};\n", ty.unwrap_or("auto")))
            }
            Stmt::Expr(e, _) => self.stmt_expr(e),
            Stmt::Item(syn::Item::Const(c)) => {
                let ty = c_type(&c.ty)?;
                let v = self.expr(&c.expr)?;
                let name = self.bind(&c.ident.to_string());
                Ok(format!("const {ty} {name} = {v};\n"))
            }
            // (`use cuprum::kernel::*;`: names for rustc; the intrinsics are known by name.)
            Stmt::Item(syn::Item::Use(_)) => Ok(String::new()),
            Stmt::Item(i) => err(i, "items inside a kernel body are not supported (except `const` and `use`)"),
            Stmt::Macro(m) => err(m, "macros are not supported in kernel bodies"),
        }
    }

    /// An expression in statement position (its value, if any, dropped).
    fn stmt_expr(&mut self, e: &Expr) -> syn::Result<String> {
        match e {
            Expr::If(i) => {
                let mut s = format!("if ({}) ", self.expr(&i.cond)?);
                s += &self.block(&i.then_branch)?;
                if let Some((_, els)) = &i.else_branch {
                    s += "else ";
                    s += &match &**els {
                        Expr::If(_) => self.stmt_expr(els)?,
                        Expr::Block(b) => self.block(&b.block)?,
                        other => return err(other, "unexpected else branch"),
                    };
                }
                Ok(s)
            }
            Expr::While(w) => {
                if let Some(l) = &w.label {
                    return err(l, "loop labels are not supported");
                }
                let c = self.expr(&w.cond)?;
                self.loops.push(None);
                let b = self.block(&w.body);
                self.loops.pop();
                Ok(format!("while ({c}) {}", b?))
            }
            Expr::Loop(l) => {
                if let Some(lb) = &l.label {
                    return err(lb, "loop labels are not supported");
                }
                self.loops.push(None);
                let b = self.block(&l.body);
                self.loops.pop();
                Ok(format!("while (true) {}", b?))
            }
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Match(m) => self.match_stmt(m),
            Expr::Block(b) => self.block(&b.block),
            Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return err(b, "only a plain `break` is supported (no labels, no values)");
                }
                if self.loops.is_empty() || self.lambdas > 0 {
                    return err(b, "`break` outside a loop");
                }
                Ok("break;\n".into())
            }
            Expr::Continue(c) => {
                if c.label.is_some() {
                    return err(c, "loop labels are not supported");
                }
                match (self.loops.last(), self.lambdas) {
                    (Some(Some(label)), 0) => Ok(format!("goto {label};\n")),
                    (Some(None), 0) => Ok("continue;\n".into()),
                    _ => err(c, "`continue` outside a loop"),
                }
            }
            Expr::Return(r) => {
                if self.lambdas > 0 {
                    return err(r, "`return` inside a block expression is not supported");
                }
                match &r.expr {
                    Some(v) => Ok(format!("return {};\n", self.expr(v)?)),
                    None => Ok("return;\n".into()),
                }
            }
            Expr::Assign(a) => {
                if let Expr::Index(ix) = &*a.left {
                    let (sl, i) = (self.expr(&ix.expr)?, self.expr(&ix.index)?);
                    return Ok(format!("rt_store({sl}, {i}, {});\n", self.expr(&a.right)?));
                }
                Ok(format!("{} = {};\n", self.place(&a.left)?, self.expr(&a.right)?))
            }
            Expr::Binary(b) if compound(&b.op).is_some() => {
                let f = compound(&b.op).unwrap();
                if let Expr::Index(ix) = &*b.left {
                    // The index once: `a[i] += v` reads and writes the same element.
                    let (sl, i, v) = (self.expr(&ix.expr)?, self.expr(&ix.index)?, self.expr(&b.right)?);
                    let n = self.labels;
                    self.labels += 1;
                    return Ok(format!(
                        "{{\nauto ix_{n} = {i};\nrt_store({sl}, ix_{n}, rt_{f}(rt_load({sl}, ix_{n}), {v}));\n}}\n"
                    ));
                }
                let place = self.place(&b.left)?;
                Ok(format!("{place} = rt_{f}({place}, {});\n", self.expr(&b.right)?))
            }
            other => Ok(format!("(void)({});\n", self.expr(other)?)),
        }
    }

    /// The left side of an assignment: a local.
    fn place(&mut self, e: &Expr) -> syn::Result<String> {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => self.local(p.path.get_ident().unwrap()),
            Expr::Paren(p) => self.place(&p.expr),
            other => err(other, "only a local variable can be assigned to here"),
        }
    }

    /// `for i in a..b`, `a..=b`, `(a..b).rev()`, `(a..b).step_by(k)`.
    fn for_loop(&mut self, f: &syn::ExprForLoop) -> syn::Result<String> {
        if let Some(l) = &f.label {
            return err(l, "loop labels are not supported");
        }
        let var = pat_ident(&f.pat)?;
        let (range, rev, step) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => (&*m.receiver, true, None),
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (&*m.receiver, false, Some(self.expr(&m.args[0])?))
            }
            e => (e, false, None),
        };
        let range = match range {
            Expr::Paren(p) => &*p.expr,
            e => e,
        };
        let Expr::Range(r) = range else {
            return err(range, "`for` loops run over ranges (a..b, a..=b, .rev(), .step_by(k))");
        };
        let (Some(from), Some(to)) = (&r.start, &r.end) else {
            return err(r, "a `for` range needs both ends");
        };
        let (a, b) = (self.expr(from)?, self.expr(to)?);
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        let n = self.labels;
        self.labels += 1;
        // The bounds converted to one type (an unsuffixed literal takes the other end's).
        let mut s = format!("{{\nauto lo_{n} = rt_range_lo({a}, {b});\nauto hi_{n} = rt_range_hi({a}, {b});\n");
        // The last index: hi (inclusive) or hi - 1; an empty range runs no iteration.
        let (nonempty, last) = if inclusive {
            (format!("lo_{n} <= hi_{n}"), format!("hi_{n}"))
        } else {
            (format!("lo_{n} < hi_{n}"), format!("hi_{n} - 1"))
        };
        // Each form steps at a label after the body (so that `continue` jumps there) and stops
        // at the last index without computing past it (no overflow at a type's end).
        let label = format!("step_{n}");
        // The index is in scope in the body only.
        self.scopes.push(Vec::new());
        let i = self.bind(&var);
        if int_lit_value(from).is_some_and(|v| v >= 1) {
            self.positive.push(i.clone());
        }
        let (start, stepping) = if rev {
            (last.clone(), format!("if ({i} == lo_{n}) break;\n--{i};\n"))
        } else if let Some(k) = step {
            s += &format!("auto k_{n} = rt_range_step(lo_{n}, {k});\n");
            (format!("lo_{n}"), format!("if ({last} - {i} < k_{n}) break;\n{i} = {i} + k_{n};\n"))
        } else {
            (format!("lo_{n}"), format!("if ({i} == {last}) break;\n++{i};\n"))
        };
        s += &format!("if ({nonempty}) for (auto {i} = {start};;) {{\n");
        self.loops.push(Some(label.clone()));
        let body = self.block(&f.body);
        self.loops.pop();
        self.scopes.pop();
        s += &body?;
        s += &format!("{label}:;\n{stepping}}}\n}}\n");
        Ok(s)
    }

    /// An expression's value.
    fn expr(&mut self, e: &Expr) -> syn::Result<String> {
        Ok(match e {
            Expr::Lit(l) => lit(&l.lit)?,
            Expr::Paren(p) => format!("({})", self.expr(&p.expr)?),
            Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    if let Some(c) = self.find_local(id) {
                        return Ok(c);
                    }
                }
                match path_value(&p.path) {
                    Some(v) => v?,
                    // A constant of the user's own: `#[cuprum::device] const NAME`.
                    None => {
                        self.add_call(&p.path);
                        format!("cuprum_const_{}()", p.path.segments.last().unwrap().ident)
                    }
                }
            }
            Expr::Binary(b) => {
                let (l, r) = (self.expr(&b.left)?, self.expr(&b.right)?);
                if self.positive.contains(&r) {
                    // A divisor of at least 1: C's operators, without the checks.
                    match &b.op {
                        BinOp::Div(_) => return Ok(format!("rt_div_pos({l}, {r})")),
                        BinOp::Rem(_) => return Ok(format!("rt_rem_pos({l}, {r})")),
                        _ => {}
                    }
                }
                match &b.op {
                    BinOp::Add(_) => format!("rt_add({l}, {r})"),
                    BinOp::Sub(_) => format!("rt_sub({l}, {r})"),
                    BinOp::Mul(_) => format!("rt_mul({l}, {r})"),
                    BinOp::Div(_) => format!("rt_div({l}, {r})"),
                    BinOp::Rem(_) => format!("rt_rem({l}, {r})"),
                    BinOp::BitAnd(_) => format!("rt_and({l}, {r})"),
                    BinOp::BitOr(_) => format!("rt_or({l}, {r})"),
                    BinOp::BitXor(_) => format!("rt_xor({l}, {r})"),
                    BinOp::Shl(_) => format!("rt_shl({l}, {r})"),
                    BinOp::Shr(_) => format!("rt_shr({l}, {r})"),
                    BinOp::And(_) => format!("({l} && {r})"),
                    BinOp::Or(_) => format!("({l} || {r})"),
                    BinOp::Eq(_) => format!("rt_eq({l}, {r})"),
                    BinOp::Ne(_) => format!("(!rt_eq({l}, {r}))"),
                    BinOp::Lt(_) => format!("rt_lt({l}, {r})"),
                    BinOp::Le(_) => format!("rt_le({l}, {r})"),
                    BinOp::Gt(_) => format!("rt_lt({r}, {l})"),
                    BinOp::Ge(_) => format!("rt_le({r}, {l})"),
                    op => return err(op, "an assignment operator is a statement, not a value"),
                }
            }
            Expr::Unary(u) => {
                let v = self.expr(&u.expr)?;
                match u.op {
                    UnOp::Neg(_) => format!("rt_neg({v})"),
                    UnOp::Not(_) => format!("rt_not({v})"),
                    _ => return err(u, "dereferences are not supported"),
                }
            }
            Expr::Cast(c) => format!("rt_cast<{}>({})", c_type(&c.ty)?, self.expr(&c.expr)?),
            Expr::Tuple(t) if (2..=4).contains(&t.elems.len()) => {
                let v = t.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                format!("rt_tup({})", v.join(", "))
            }
            Expr::Index(ix) => format!("rt_load({}, {})", self.expr(&ix.expr)?, self.expr(&ix.index)?),
            Expr::Field(fe) => {
                let m = match &fe.member {
                    syn::Member::Named(id) if ["x", "y", "z"].contains(&id.to_string().as_str()) => id.to_string(),
                    syn::Member::Unnamed(i) => format!("a{}", i.index),
                    other => return err(other, "only `.x`, `.y`, `.z` (of thread_idx() etc.) and tuple fields here"),
                };
                format!("({}).{m}", self.expr(&fe.base)?)
            }
            Expr::Call(c) if intrinsic(&c.func).is_some() => {
                let (name, n) = intrinsic(&c.func).unwrap();
                if c.args.len() != n {
                    return err(c, &format!("`{name}` takes {n} argument(s)"));
                }
                if (name == "grid" || name == "gridsize")
                    && !matches!(&c.args[0], Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) if i.base10_digits() == "1")
                {
                    return err(
                        &c.args[0],
                        &format!("`{name}(1)` is the 1-d form; use `{name}2()` for two dimensions"),
                    );
                }
                let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
                format!("rt_{name}({})", args.join(", "))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return err(&c.func, "only calls of #[cuprum::device] functions by name are supported");
                };
                if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_empty()) {
                    return err(p, "only calls of #[cuprum::device] functions by name are supported");
                }
                let name = &p.path.segments.last().unwrap().ident;
                self.add_call(&p.path);
                let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
                format!("cuprum_dev_{name}({})", args.join(", "))
            }
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let Some(&(_, n)) = METHODS.iter().find(|(k, _)| *k == name) else {
                    return err(&m.method, &format!("the method `{name}` is not supported in kernels"));
                };
                if m.turbofish.is_some() || m.args.len() != n {
                    return err(m, &format!("`{name}` takes {n} argument(s) here"));
                }
                let mut args = vec![self.expr(&m.receiver)?];
                for a in &m.args {
                    args.push(self.expr(a)?);
                }
                format!("rt_{name}({})", args.join(", "))
            }
            Expr::If(i) => {
                let Some((_, els)) = &i.else_branch else {
                    return err(i, "an `if` used as a value needs an `else`");
                };
                // Only the branch taken runs: each is a lambda, `rt_if` calls one and converts
                // its value to the branches' common type.
                let c = self.expr(&i.cond)?;
                let t = self.lambda(&i.then_branch)?;
                let f = match &**els {
                    Expr::Block(b) => self.lambda(&b.block)?,
                    other => format!("[&]() {{ return {}; }}", self.expr(other)?),
                };
                format!("rt_if({c}, {t}, {f})")
            }
            Expr::Block(b) if b.label.is_none() => format!("{}()", self.lambda(&b.block)?),
            Expr::Match(m) => self.match_value(m)?,
            Expr::Loop(l) => return err(l, "a `loop` used as a value (`break value`) is not supported"),
            Expr::Closure(c) => {
                return err(c, "closures are not supported in kernels (a `#[cuprum::device]` function can be called)")
            }
            other => return err(other, "this expression is not supported in kernels"),
        })
    }

    /// The condition that `m` (a C variable) matches an arm's pattern: integer (or bool)
    /// literals, ranges `a..=b` and `a..b`, alternatives `p | q`, `_`.
    fn pattern(&mut self, p: &Pat, m: &str) -> syn::Result<String> {
        Ok(match p {
            Pat::Wild(_) => "true".into(),
            Pat::Lit(l) => format!("rt_eq({m}, {})", self.expr(&Expr::Lit(l.clone()))?),
            Pat::Or(o) => {
                let c = o.cases.iter().map(|q| self.pattern(q, m)).collect::<syn::Result<Vec<_>>>()?;
                format!("({})", c.join(" || "))
            }
            Pat::Range(r) => {
                let lo = match &r.start {
                    Some(e) => format!("rt_le({}, {m})", self.expr(e)?),
                    None => "true".into(),
                };
                let hi = match (&r.end, &r.limits) {
                    (Some(e), syn::RangeLimits::Closed(_)) => format!("rt_le({m}, {})", self.expr(e)?),
                    (Some(e), syn::RangeLimits::HalfOpen(_)) => format!("rt_lt({m}, {})", self.expr(e)?),
                    (None, _) => "true".into(),
                };
                format!("({lo} && {hi})")
            }
            Pat::Paren(q) => self.pattern(&q.pat, m)?,
            other => return err(other, "`match` arms here are integer literals, ranges, `|` and `_`"),
        })
    }

    /// The arms of a `match` as (condition, arm); guards are not supported.
    fn arms<'m>(&mut self, mt: &'m syn::ExprMatch, m: &str) -> syn::Result<Vec<(String, &'m Expr)>> {
        if mt.arms.is_empty() {
            return err(mt, "a `match` needs arms");
        }
        mt.arms
            .iter()
            .map(|a| {
                if let Some((_, g)) = &a.guard {
                    return err(g, "`match` guards are not supported");
                }
                Ok((self.pattern(&a.pat, m)?, &*a.body))
            })
            .collect()
    }

    /// `match` as a statement: the scrutinee once, then `if`/`else if` over the arms (the last
    /// arm unconditional: rustc has checked that the arms cover every value).
    fn match_stmt(&mut self, mt: &syn::ExprMatch) -> syn::Result<String> {
        let n = self.labels;
        self.labels += 1;
        let m = format!("m_{n}");
        let mut s = format!("{{\nauto {m} = {};\n", self.expr(&mt.expr)?);
        let arms = self.arms(mt, &m)?;
        let last = arms.len() - 1;
        for (k, (cond, body)) in arms.into_iter().enumerate() {
            if k > 0 {
                s += "else ";
            }
            if k < last {
                s += &format!("if ({cond}) ");
            }
            s += &match body {
                Expr::Block(b) => self.block(&b.block)?,
                e => format!("{{\n{}}}\n", self.stmt_expr(e)?),
            };
        }
        Ok(s + "}\n")
    }

    /// `match` as a value: nested `rt_if`s (only the arm taken runs) in a lambda taking the
    /// scrutinee.
    fn match_value(&mut self, mt: &syn::ExprMatch) -> syn::Result<String> {
        let n = self.labels;
        self.labels += 1;
        let m = format!("m_{n}");
        let scrutinee = self.expr(&mt.expr)?;
        let arms = self.arms(mt, &m)?;
        let mut vals = Vec::new();
        for (_, body) in &arms {
            vals.push(match body {
                Expr::Block(b) => self.lambda(&b.block)?,
                e => {
                    self.lambdas += 1;
                    let v = self.expr(e);
                    self.lambdas -= 1;
                    format!("[&]() {{ return {}; }}", v?)
                }
            });
        }
        let mut acc = vals.pop().expect("arms");
        for ((cond, _), v) in arms.iter().zip(vals).rev() {
            acc = format!("[&]() {{ return rt_if({cond}, {v}, {acc}); }}");
        }
        Ok(format!("[&](auto {m}) {{ return {acc}(); }}({scrutinee})"))
    }

    /// A block used as a value, as a lambda returning its tail expression (`return`, `break`
    /// and `continue` cannot cross it).
    fn lambda(&mut self, b: &Block) -> syn::Result<String> {
        let Some(Stmt::Expr(tail, None)) = b.stmts.last() else {
            return err(b, "a block used as a value must end with an expression");
        };
        self.lambdas += 1;
        self.scopes.push(Vec::new());
        let mut s = String::from("[&]() {\n");
        let r = (|| {
            for st in &b.stmts[..b.stmts.len() - 1] {
                s += &self.stmt(st)?;
            }
            s += &format!("return {};\n}}", self.expr(tail)?);
            Ok(())
        })();
        self.lambdas -= 1;
        self.scopes.pop();
        r.map(|_| s)
    }
}

/// A call of a kernel intrinsic (`grid(1)`, `cuprum::kernel::atomic_add(...)`): its name and
/// number of arguments.
fn intrinsic(f: &Expr) -> Option<(&'static str, usize)> {
    let Expr::Path(p) = f else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    INTRINSICS.iter().find(|(n, _)| *n == last).copied()
}

/// `shared::<T, N>()`: the element type's C name and the length.
fn shared_call(e: &Expr) -> syn::Result<Option<(&'static str, String)>> {
    let Expr::Call(c) = e else { return Ok(None) };
    let Expr::Path(p) = &*c.func else { return Ok(None) };
    let Some(last) = p.path.segments.last() else { return Ok(None) };
    if last.ident != "shared" {
        return Ok(None);
    }
    let syn::PathArguments::AngleBracketed(ab) = &last.arguments else {
        return err(last, "a shared array reads `shared::<T, N>()`");
    };
    let args: Vec<_> = ab.args.iter().collect();
    match args.as_slice() {
        [syn::GenericArgument::Type(t), syn::GenericArgument::Const(Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }))] => {
            Ok(Some((c_type(t)?, n.base10_parse::<u64>()?.to_string())))
        }
        _ => err(ab, "a shared array reads `shared::<T, N>()` with N an integer literal"),
    }
}

/// Whether a tail expression is control flow (translated as a statement, not returned).
fn is_control(e: &Expr) -> bool {
    matches!(e, Expr::While(_) | Expr::ForLoop(_) | Expr::Loop(_))
        || matches!(e, Expr::If(i) if i.else_branch.is_none())
}

/// The helper of a compound assignment operator.
fn compound(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add",
        BinOp::SubAssign(_) => "sub",
        BinOp::MulAssign(_) => "mul",
        BinOp::DivAssign(_) => "div",
        BinOp::RemAssign(_) => "rem",
        BinOp::BitAndAssign(_) => "and",
        BinOp::BitOrAssign(_) => "or",
        BinOp::BitXorAssign(_) => "xor",
        BinOp::ShlAssign(_) => "shl",
        BinOp::ShrAssign(_) => "shr",
        _ => return None,
    })
}

/// A literal: suffixed ones as their C type, unsuffixed ones wrapped (`FLit`/`ILit`).
fn lit(l: &Lit) -> syn::Result<String> {
    Ok(match l {
        Lit::Bool(b) => b.value.to_string(),
        Lit::Int(i) => {
            // (A pattern's `-4` is one literal.) The value as its 64-bit two's complement.
            let v: i128 = i.base10_parse()?;
            let v = v as u64;
            match i.suffix() {
                "" => format!("ILit({v:#x}ull)"),
                s => {
                    let ty: Type = syn::parse_str(s)?;
                    format!(
                        "(({}){v:#x}ull)",
                        c_type(&ty).map_err(|_| syn::Error::new(i.span(), "unsupported suffix"))?
                    )
                }
            }
        }
        Lit::Float(f) => {
            let v: f64 = f.base10_parse()?;
            match f.suffix() {
                "f32" => format!("__int_as_float({:#x})", (v as f32).to_bits()),
                "f64" => format!("__longlong_as_double({:#x}ll)", v.to_bits()),
                _ => format!("FLit(__longlong_as_double({:#x}ll))", v.to_bits()),
            }
        }
        other => return err(other, "only numbers and booleans are supported as literals"),
    })
}

/// A path used as a value: a local, or a constant of `std`'s numeric types (`f32::consts::PI`,
/// `std::f64::consts::E`, `i32::MAX`, `f32::INFINITY`, ...).
fn path_value(p: &Path) -> Option<syn::Result<String>> {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    const STD: &[&str] =
        &["std", "core", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "isize", "usize"];
    if !STD.contains(&segs[0].as_str()) {
        return None;
    }
    Some(std_const(p, &segs))
}

fn std_const(p: &Path, segs: &[String]) -> syn::Result<String> {
    let n = segs.len();
    let (ty, name) = (segs[n.saturating_sub(2)].as_str(), segs[n - 1].as_str());
    let ty = if ty == "consts" && n >= 3 { segs[n - 3].as_str() } else { ty };
    let f = |v: f64| -> String {
        if ty == "f32" {
            format!("__int_as_float({:#x})", (v as f32).to_bits())
        } else {
            format!("__longlong_as_double({:#x}ll)", v.to_bits())
        }
    };
    use std::f64::consts as c;
    let v = match (ty, name) {
        ("f32" | "f64", "PI") => f(c::PI),
        ("f32" | "f64", "TAU") => f(c::TAU),
        ("f32" | "f64", "E") => f(c::E),
        ("f32" | "f64", "SQRT_2") => f(c::SQRT_2),
        ("f32" | "f64", "LN_2") => f(c::LN_2),
        ("f32" | "f64", "LN_10") => f(c::LN_10),
        ("f32" | "f64", "LOG2_E") => f(c::LOG2_E),
        ("f32" | "f64", "LOG10_E") => f(c::LOG10_E),
        ("f32" | "f64", "LOG2_10") => f(c::LOG2_10),
        ("f32" | "f64", "LOG10_2") => f(c::LOG10_2),
        ("f32" | "f64", "FRAC_PI_2") => f(c::FRAC_PI_2),
        ("f32" | "f64", "FRAC_PI_3") => f(c::FRAC_PI_3),
        ("f32" | "f64", "FRAC_PI_4") => f(c::FRAC_PI_4),
        ("f32" | "f64", "FRAC_PI_6") => f(c::FRAC_PI_6),
        ("f32" | "f64", "FRAC_PI_8") => f(c::FRAC_PI_8),
        ("f32" | "f64", "FRAC_1_PI") => f(c::FRAC_1_PI),
        ("f32" | "f64", "FRAC_2_PI") => f(c::FRAC_2_PI),
        ("f32" | "f64", "FRAC_2_SQRT_PI") => f(c::FRAC_2_SQRT_PI),
        ("f32" | "f64", "FRAC_1_SQRT_2") => f(c::FRAC_1_SQRT_2),
        ("f32", "MAX") => f(f32::MAX as f64),
        ("f32", "MIN") => f(f32::MIN as f64),
        ("f32", "MIN_POSITIVE") => f(f32::MIN_POSITIVE as f64),
        ("f32", "EPSILON") => f(f32::EPSILON as f64),
        ("f64", "MAX") => f(f64::MAX),
        ("f64", "MIN") => f(f64::MIN),
        ("f64", "MIN_POSITIVE") => f(f64::MIN_POSITIVE),
        ("f64", "EPSILON") => f(f64::EPSILON),
        ("f32" | "f64", "INFINITY") => f(f64::INFINITY),
        ("f32" | "f64", "NEG_INFINITY") => f(f64::NEG_INFINITY),
        ("f32" | "f64", "NAN") => f(f64::NAN),
        (t @ ("i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64"), m @ ("MAX" | "MIN")) => {
            let ty: Type = syn::parse_str(t)?;
            let ct = c_type(&ty)?;
            let v: i128 = match (t, m) {
                ("i8", "MAX") => i8::MAX as i128,
                ("i8", _) => i8::MIN as i128,
                ("i16", "MAX") => i16::MAX as i128,
                ("i16", _) => i16::MIN as i128,
                ("i32", "MAX") => i32::MAX as i128,
                ("i32", _) => i32::MIN as i128,
                ("i64", "MAX") => i64::MAX as i128,
                ("i64", _) => i64::MIN as i128,
                ("u8", "MAX") => u8::MAX as i128,
                ("u16", "MAX") => u16::MAX as i128,
                ("u32", "MAX") => u32::MAX as i128,
                ("u64", "MAX") => u64::MAX as i128,
                _ => 0,
            };
            // Through the unsigned 64-bit pattern: no C literal overflow for the minima.
            format!("(({ct}){:#x}ull)", v as u64)
        }
        _ => return err(p, "only std's numeric constants (f32::consts::PI, i32::MAX, ...) can be named here"),
    };
    Ok(v)
}

/// What the translator turns away, each with its message (rustc shows it at the construct's
/// span: the error is built with that span).
#[cfg(test)]
mod tests {
    use super::{device_fn, kernel_fn};
    use syn::parse_quote;

    fn device_err(f: syn::ItemFn) -> String {
        device_fn(&f).err().expect("an error").to_string()
    }
    fn kernel_err(f: syn::ItemFn) -> String {
        kernel_fn(&f).err().expect("an error").to_string()
    }

    #[test]
    fn constructs_outside_the_subset_are_errors() {
        let cases: Vec<(syn::ItemFn, &str)> = vec![
            (parse_quote! { fn f<T>(x: T) -> T { x } }, "generic device functions are not supported"),
            (parse_quote! { async fn f(x: f32) -> f32 { x } }, "async functions are not supported"),
            (parse_quote! { fn f(x: String) -> f32 { 1.0 } }, "only scalar types"),
            (parse_quote! { fn f(x: f32) -> f32 { println!("{}", x); x } }, "macros are not supported"),
            (parse_quote! { fn f(x: f32) -> f32 { let k = loop { break; }; x } }, "a `loop` used as a value"),
            (parse_quote! { fn f(x: f32) -> f32 { x.to_string(); x } }, "the method `to_string` is not supported"),
            (parse_quote! { fn f(x: f32) -> f32 { 'a: loop { break 'a; } x } }, "loop labels are not supported"),
            (parse_quote! { fn f(x: f32) -> f32 { let g = |y: f32| y; x } }, "closures are not supported"),
            (parse_quote! { fn f(x: f32) -> f32 { let v = [x; 2]; x } }, "this expression is not supported"),
            (parse_quote! { fn f(x: f32) -> f32 { if x > 0.0 { 1.0 } } }, ""),
            (parse_quote! { fn f(x: f32) -> f32 { let y = if x > 0.0 { 1.0 }; y } }, "needs an `else`"),
            (parse_quote! { fn f(x: f32) -> f32 { let y; x } }, "a `let` needs a value"),
            (parse_quote! { fn f(x: f32) -> f32 { struct S; x } }, "items inside a kernel body are not supported"),
            (
                parse_quote! { fn f(x: i32) -> i32 { match x { k if k > 0 => 1, _ => 0 } } },
                "`match` guards are not supported",
            ),
            (
                parse_quote! { fn f(x: i32) -> i32 { match x { Some(_) => 1, _ => 0 } } },
                "`match` arms here are integer literals",
            ),
            (parse_quote! { fn f(x: f32) -> f32 { for v in xs.iter() {} x } }, "`for` loops run over ranges"),
            (
                parse_quote! { fn f(x: f32) -> f32 { let s = "a"; x } },
                "only numbers and booleans are supported as literals",
            ),
            (parse_quote! { fn f(x: f32) -> f32 { f32::RADIX as f32 } }, "only std's numeric constants"),
            (
                parse_quote! { fn f(x: f32) -> (f32, f32, f32, f32, f32) { (x, x, x, x, x) } },
                "a tuple of 2 to 4 scalars",
            ),
            (parse_quote! { fn f(x: &[f32]) -> f32 { x[0] } }, "only scalar types"),
            (
                parse_quote! { fn f(x: f32) -> f32 { let s = shared::<f32, 8>(); x } },
                "shared arrays are declared in a `#[cuprum::kernel]` body",
            ),
        ];
        for (f, msg) in cases {
            let name = quote::quote!(#f).to_string();
            match device_fn(&f) {
                Err(e) => assert!(e.to_string().contains(msg), "{name}: {e}"),
                // (`if` without `else` as the tail of a function returning a value: rustc's
                // own error, the translation itself is fine.)
                Ok(_) => assert!(msg.is_empty(), "{name}: translated"),
            }
        }
        assert!(device_err(parse_quote! { fn f(&self) -> f32 { 1.0 } }).contains("methods are not supported"));
    }

    #[test]
    fn grid_kernel_errors() {
        assert!(kernel_err(parse_quote! { fn k(x: &mut [f32]) -> f32 { 1.0 } }).contains("a kernel returns nothing"));
        assert!(kernel_err(parse_quote! { fn k(x: Vec<f32>) {} }).contains("only scalar types"));
        assert!(
            kernel_err(parse_quote! { fn k(x: &mut [f32]) { let i = grid(2); } }).contains("`grid(1)` is the 1-d form")
        );
        assert!(kernel_err(parse_quote! { fn k(x: &mut [f32]) { let s = shared::<f32, N>(); } })
            .contains("with N an integer literal"));
        assert!(kernel_err(parse_quote! { fn k(x: &mut [f32]) { atomic_add(x, 0); } }).contains("takes 3 argument(s)"));
        assert!(kernel_err(parse_quote! { fn k(x: View<f32, 4>) {} }).contains("1, 2 or 3 dimensions"));
        assert!(kernel_err(parse_quote! { fn k(x: ViewMut<f32>) {} }).contains("`View<T, N>` or `ViewMut<T, N>`"));
        assert!(kernel_err(parse_quote! { fn k(x: View<String, 2>) {} }).contains("scalar"));
        // What the subset accepts translates.
        let ok: syn::ItemFn = parse_quote! {
            fn k(x: &mut [f32], n: usize) {
                let i = grid(1);
                let mut sm = shared::<f32, 32>();
                sm[thread_idx().x] = 1.0;
                sync_threads();
                if i < x.len() { x[i] += sm[0] * n as f32; }
            }
        };
        let t = kernel_fn(&ok).expect("translates");
        assert!(t.source.contains("__shared__ float"));
        assert!(t.source.contains("rt_store("));
    }

    #[test]
    fn divisions_by_a_loop_index_from_one_skip_the_checks() {
        let f: syn::ItemFn = parse_quote! {
            fn f(n: i32) -> i32 {
                let mut s = 0;
                for i in 2..=n / 2 { s += n % i + n / i; }
                for j in (1..n).rev() { s += n % j; }
                for k in 0..n { s += n % k; }
                for i in 3..n { let i = i - 3; s += n % i; }
                s
            }
        };
        let t = device_fn(&f).expect("translates").source;
        assert_eq!(t.matches("rt_rem_pos(").count(), 2, "{t}");
        assert_eq!(t.matches("rt_div_pos(").count(), 1, "{t}");
        // From 0, and a shadowing `let`, keep the checks.
        assert_eq!(t.matches("rt_rem(").count(), 2, "{t}");
    }
}
