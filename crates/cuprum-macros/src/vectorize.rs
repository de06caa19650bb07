//! `#[cuprum::vectorize(sig, ...)]`: the function written once for its first signature; every
//! signature is the same function with its types substituted (`f32` becomes `f64` throughout,
//! `std::f32::consts::PI` and `2.0f32` included). For each, the macro emits the Rust function
//! (operators rewritten, `rewrite.rs`) and its CUDA C (`translate.rs`), and gathers them in a
//! hidden `static` of type `cuprum::kernel::Vectorized`. The name becomes the ufunc:
//! `name(a, b)` (arrays or scalars), and `name::out(a, b, &mut out)`, `name::scalar(..)`
//! (the first signature's Rust function), `name::ufunc()` as associated functions of a
//! same-named empty struct (a braced struct lives in the type namespace only).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, ItemFn, Token};

/// A scalar type's Rust name and its `cuprum::DType` variant, from Rust's or NumPy's name.
pub(crate) fn scalar_type(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "bool" | "bool_" | "b1" => ("bool", "Bool"),
        "i8" | "int8" => ("i8", "Int8"),
        "i16" | "int16" => ("i16", "Int16"),
        "i32" | "int32" => ("i32", "Int32"),
        "i64" | "int64" | "isize" => ("i64", "Int64"),
        "u8" | "uint8" => ("u8", "UInt8"),
        "u16" | "uint16" => ("u16", "UInt16"),
        "u32" | "uint32" => ("u32", "UInt32"),
        "u64" | "uint64" | "usize" => ("u64", "UInt64"),
        "f32" | "float32" => ("f32", "Float32"),
        "f64" | "float64" => ("f64", "Float64"),
        _ => return None,
    })
}

/// One signature: the input types, then the output type (Rust names).
struct Sig {
    types: Vec<&'static str>,
    span: Span,
}

fn type_name(e: &Expr) -> syn::Result<&'static str> {
    if let Expr::Path(p) = e {
        if let Some(id) = p.path.get_ident() {
            if let Some((r, _)) = scalar_type(&id.to_string()) {
                return Ok(r);
            }
        }
    }
    Err(syn::Error::new(
        e.span(),
        "cuprum kernels: a signature's types are scalar types (bool, i8..i64, u8..u64, f32, f64, or NumPy's names)",
    ))
}

fn parse_sigs(attr: TokenStream) -> syn::Result<Vec<Sig>> {
    let list = syn::parse::Parser::parse2(Punctuated::<Expr, Token![,]>::parse_terminated, attr)?;
    list.iter()
        .map(|e| {
            let Expr::Call(c) = e else {
                return Err(syn::Error::new(
                    e.span(),
                    "cuprum kernels: a signature reads `out(in, in, ...)`, e.g. `f32(f32, f32)`",
                ));
            };
            let mut types = c.args.iter().map(type_name).collect::<syn::Result<Vec<_>>>()?;
            types.push(type_name(&c.func)?);
            Ok(Sig { types, span: e.span() })
        })
        .collect()
}

/// The function's declared scalar types: its parameters', then its return type's.
fn declared(f: &ItemFn) -> syn::Result<Vec<(&'static str, Span)>> {
    let ty_of = |t: &syn::Type| -> syn::Result<&'static str> {
        if let syn::Type::Path(p) = t {
            if let Some(id) = p.path.get_ident() {
                if let Some((r, _)) = scalar_type(&id.to_string()) {
                    if id == r {
                        return Ok(r);
                    }
                }
            }
        }
        Err(syn::Error::new(t.span(), "cuprum kernels: a vectorized function's parameters and result are scalar types"))
    };
    let mut out = Vec::new();
    for a in &f.sig.inputs {
        match a {
            syn::FnArg::Typed(pt) => out.push((ty_of(&pt.ty)?, pt.ty.span())),
            syn::FnArg::Receiver(r) => {
                return Err(syn::Error::new(r.span(), "cuprum kernels: methods are not supported"))
            }
        }
    }
    match &f.sig.output {
        syn::ReturnType::Type(_, t) => out.push((ty_of(t)?, t.span())),
        syn::ReturnType::Default => {
            return Err(syn::Error::new(f.sig.span(), "cuprum kernels: a vectorized function returns a value"))
        }
    }
    Ok(out)
}

/// Replaces scalar type names (and literal suffixes) by the signature's.
struct Subst<'a>(&'a HashMap<&'static str, &'static str>, Option<syn::Error>);

impl VisitMut for Subst<'_> {
    fn visit_ident_mut(&mut self, i: &mut syn::Ident) {
        if let Some(to) = self.0.get(i.to_string().as_str()) {
            *i = syn::Ident::new(to, i.span());
        }
    }
    fn visit_lit_float_mut(&mut self, l: &mut syn::LitFloat) {
        if let Some(to) = self.0.get(l.suffix()) {
            if !to.starts_with('f') {
                self.1.get_or_insert(syn::Error::new(
                    l.span(),
                    "cuprum kernels: this float literal's type becomes an integer type in another signature",
                ));
                return;
            }
            *l = syn::LitFloat::new(&format!("{}{to}", l.base10_digits()), l.span());
        }
    }
    fn visit_lit_int_mut(&mut self, l: &mut syn::LitInt) {
        if let Some(to) = self.0.get(l.suffix()) {
            *l = syn::LitInt::new(&format!("{}{to}", l.base10_digits()), l.span());
        }
    }
}

pub fn expand(attr: TokenStream, f: &ItemFn) -> syn::Result<TokenStream> {
    let decl = declared(f)?;
    let mut sigs = parse_sigs(attr)?;
    if sigs.is_empty() {
        sigs.push(Sig { types: decl.iter().map(|d| d.0).collect(), span: f.sig.span() });
    }
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            f.sig.generics.span(),
            "cuprum kernels: write one signature per type instead of generics",
        ));
    }
    let name = &f.sig.ident;
    let vis = &f.vis;
    let nin = decl.len() - 1;
    let mut loops = Vec::new();
    let mut scalars = Vec::new();
    for (k, sig) in sigs.iter().enumerate() {
        if sig.types.len() != decl.len() {
            let n = sig.types.len() - 1;
            let plural = if n == 1 { "" } else { "s" };
            let msg = format!("cuprum kernels: this signature has {n} input{plural}; the function has {nin}");
            return Err(syn::Error::new(sig.span, msg));
        }
        let mut map: HashMap<&'static str, &'static str> = HashMap::new();
        for ((d, _), t) in decl.iter().zip(&sig.types) {
            if let Some(prev) = map.insert(d, t) {
                if prev != *t {
                    return Err(syn::Error::new(sig.span, format!("cuprum kernels: `{d}` would become both `{prev}` and `{t}` in this signature (the function is written for the first signature; each other one substitutes its types)")));
                }
            }
        }
        map.retain(|a, b| a != b);
        let mut inst = f.clone();
        inst.attrs.clear();
        let mut sub = Subst(&map, None);
        sub.visit_item_fn_mut(&mut inst);
        if let Some(e) = sub.1 {
            return Err(e);
        }
        // The CUDA C, under a name of its own per signature.
        let mut for_gpu = inst.clone();
        for_gpu.sig.ident = format_ident!("{}_v{}", name, k);
        let t = crate::translate::device_fn(&for_gpu)?;
        let entry = format!("cuprum_dev_{}_v{}", name, k);
        let cuda = t.source;
        let deps = crate::dep_paths(&t.calls);
        // The Rust function: `scalar` (first signature), `scalar_1`...
        let sname = if k == 0 { format_ident!("scalar") } else { format_ident!("scalar_{}", k) };
        let mut rust = inst;
        rust.sig.ident = sname.clone();
        rust.vis = syn::parse_quote!(pub);
        crate::rewrite::cpu_body(&mut rust.block);
        let doc = format!(
            "`{name}` for the signature {}({}): the Rust function run by the CPU loops.",
            sig.types[nin],
            sig.types[..nin].join(", ")
        );
        scalars.push(quote! { #[doc = #doc] #[allow(clippy::all)] #rust });
        let dtypes = sig.types.iter().map(|t| {
            let v = format_ident!("{}", scalar_type(t).unwrap().1);
            quote! { ::cuprum::DType::#v }
        });
        let rtypes = sig.types.iter().map(|t| format_ident!("{}", t)).collect::<Vec<_>>();
        let (ins, out) = (&rtypes[..nin], &rtypes[nin]);
        loops.push(quote! {
            ::cuprum::kernel::VLoop {
                types: &[#(#dtypes),*],
                cpu: &::cuprum::kernel::CpuFn::<_, (#(#ins,)*), #out>::new(#name::#sname),
                cuda: ::cuprum::kernel::DeviceSource { source: #cuda, calls: &[#(&#deps),*] },
                entry: #entry,
            }
        });
    }
    let params: Vec<syn::Ident> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => pi.ident.clone(),
                _ => format_ident!("arg"),
            },
            _ => unreachable!("checked by declared()"),
        })
        .enumerate()
        .map(|(k, id)| if id == "out" { format_ident!("arg{}", k) } else { id })
        .collect();
    let lts: Vec<syn::Lifetime> =
        (0..nin).map(|k| syn::Lifetime::new(&format!("'cuprum_a{k}"), Span::call_site())).collect();
    let statics = format_ident!("__CUPRUM_VECTORIZED_{}", name);
    let sname = name.to_string();
    let attrs = &f.attrs;
    let sigdoc: Vec<String> = sigs.iter().map(|s| format!("{}({})", s.types[nin], s.types[..nin].join(", "))).collect();
    let doc = format!(
        "\n\n**Vectorized** (`#[cuprum::vectorize]`) for {}: arrays (any device) or scalars, broadcast as NumPy's ufuncs.",
        sigdoc.join(", ")
    );
    Ok(quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #statics: ::cuprum::kernel::Vectorized = ::cuprum::kernel::Vectorized {
            name: #sname,
            nin: #nin,
            loops: &[#(#loops),*],
        };

        #(#attrs)*
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        #vis fn #name<#(#lts),*>(#(#params: impl ::core::convert::Into<::cuprum::Operand<#lts>>),*) -> ::cuprum::Result<::cuprum::Array> {
            #statics.call(&[#(#params.into()),*])
        }

        #[doc = concat!("The forms of the vectorized function `", #sname, "`.")]
        #[allow(non_camel_case_types)]
        #vis struct #name {}

        #[allow(clippy::too_many_arguments, clippy::new_ret_no_self)]
        impl #name {
            #(#scalars)*

            /// The ufunc (its loops, its CUDA C).
            pub fn ufunc() -> &'static ::cuprum::kernel::Vectorized {
                &#statics
            }

            /// NumPy's `out=`: the result written into `out` (same-kind casting; `out` may be an input).
            pub fn out<#(#lts),*>(#(#params: impl ::core::convert::Into<::cuprum::Operand<#lts>>,)* out: &mut ::cuprum::Array) -> ::cuprum::Result<()> {
                #statics.call_out(&[#(#params.into()),*], out)
            }
        }
    })
}
