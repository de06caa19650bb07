//! `#[cuprum::kernel]`: a grid kernel (Numba's `@cuda.jit`). The function becomes a unit
//! struct of the same name whose `launch((grid, block), (args,))` runs it: on the GPU the
//! translated CUDA C (`translate::kernel_fn`), on the CPU the Rust body (slices made the
//! shared `cuprum::kernel::Slice`/`SliceMut`, operators rewritten) for each thread of the grid.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{ItemFn, Type};

/// A parameter: `&[T]`, `&mut [T]` or a scalar `T`, with `T`'s Rust name and DType variant.
enum P {
    Slice(&'static str, &'static str),
    SliceMut(&'static str, &'static str),
    Scalar(&'static str, &'static str),
    /// `View<T, N>` / `ViewMut<T, N>`: T's names, N, writable.
    View(&'static str, &'static str, usize, bool),
}

fn scalar(t: &Type) -> syn::Result<(&'static str, &'static str)> {
    if let Type::Path(p) = t {
        if let Some(id) = p.path.get_ident() {
            if id == "usize" {
                return Ok(("usize", "UInt64"));
            }
            if id == "isize" {
                return Ok(("isize", "Int64"));
            }
            if let Some((r, d)) = crate::vectorize::scalar_type(&id.to_string()) {
                if id == r {
                    return Ok((r, d));
                }
            }
        }
    }
    Err(syn::Error::new(t.span(), "cuprum kernels: a scalar type (bool, i8..i64, u8..u64, f32, f64) here"))
}

fn param(t: &Type) -> syn::Result<P> {
    if let Some((mutable, elem, n)) = crate::translate::view_type(t)? {
        let (a, b) = scalar(elem)?;
        return Ok(P::View(a, b, n, mutable));
    }
    if let Type::Reference(r) = t {
        if let Type::Slice(sl) = &*r.elem {
            let (a, b) = scalar(&sl.elem)?;
            return Ok(if r.mutability.is_some() { P::SliceMut(a, b) } else { P::Slice(a, b) });
        }
        return Err(syn::Error::new(
            t.span(),
            "cuprum kernels: a kernel's parameters are `&[T]`, `&mut [T]`, `View<T, N>`, `ViewMut<T, N>` or scalars",
        ));
    }
    let (a, b) = scalar(t)?;
    Ok(P::Scalar(a, b))
}

pub fn expand(attr: TokenStream, f: &ItemFn) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[cuprum::kernel] takes no arguments"));
    }
    let t = crate::translate::kernel_fn(f)?;
    let name = &f.sig.ident;
    let vis = &f.vis;
    let mut ps = Vec::new();
    let mut names = Vec::new();
    for a in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = a else {
            return Err(syn::Error::new(a.span(), "cuprum kernels: methods are not supported"));
        };
        ps.push(param(&pt.ty)?);
        names.push(match &*pt.pat {
            syn::Pat::Ident(pi) => pi.ident.clone(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "cuprum kernels: only simple names are supported in bindings",
                ))
            }
        });
    }
    // The CPU body: slices as the shared slice types (Copy; `mut` for writing).
    let mut cpu = f.clone();
    cpu.attrs.clear();
    cpu.vis = syn::parse_quote!(pub);
    cpu.sig.ident = format_ident!("__cpu");
    for (a, p) in cpu.sig.inputs.iter_mut().zip(&ps) {
        let syn::FnArg::Typed(pt) = a else { unreachable!() };
        match p {
            P::Slice(t, _) => {
                let t = format_ident!("{}", t);
                *pt.ty = syn::parse_quote!(::cuprum::kernel::Slice<'_, #t>);
            }
            P::SliceMut(t, _) => {
                let t = format_ident!("{}", t);
                *pt.ty = syn::parse_quote!(::cuprum::kernel::SliceMut<'_, #t>);
                if let syn::Pat::Ident(pi) = &mut *pt.pat {
                    pi.mutability = Some(Default::default());
                }
            }
            P::View(t, _, n, mutable) => {
                let t = format_ident!("{}", t);
                let n = syn::Index::from(*n);
                *pt.ty = if *mutable {
                    syn::parse_quote!(::cuprum::kernel::ViewMut<'_, #t, #n>)
                } else {
                    syn::parse_quote!(::cuprum::kernel::View<'_, #t, #n>)
                };
                if let (true, syn::Pat::Ident(pi)) = (mutable, &mut *pt.pat) {
                    pi.mutability = Some(Default::default());
                }
            }
            P::Scalar(..) => {}
        }
    }
    crate::rewrite::cpu_body(&mut cpu.block);
    let kparams = ps.iter().map(|p| {
        let (k, d) = match p {
            P::Slice(_, d) => ("Slice", d),
            P::SliceMut(_, d) => ("SliceMut", d),
            P::Scalar(_, d) => ("Scalar", d),
            P::View(_, d, n, m) => {
                let k = format_ident!("{}", if *m { "ViewMut" } else { "View" });
                let d = format_ident!("{}", d);
                return quote! { ::cuprum::kernel::KParam::#k(::cuprum::DType::#d, #n) };
            }
        };
        let (k, d) = (format_ident!("{}", k), format_ident!("{}", d));
        quote! { ::cuprum::kernel::KParam::#k(::cuprum::DType::#d) }
    });
    let arg_types: Vec<TokenStream> = ps
        .iter()
        .map(|p| match p {
            P::Slice(..) | P::View(.., false) => quote! { &::cuprum::Array },
            P::SliceMut(..) | P::View(.., true) => quote! { &mut ::cuprum::Array },
            P::Scalar(t, _) => {
                let t = format_ident!("{}", t);
                quote! { #t }
            }
        })
        .collect();
    let vars: Vec<syn::Ident> = (0..ps.len()).map(|k| format_ident!("__a{}", k)).collect();
    let cpu_args = ps.iter().enumerate().map(|(k, p)| match p {
        P::Slice(t, _) => {
            let t = format_ident!("{}", t);
            quote! { __k.slice::<#t>(#k) }
        }
        P::SliceMut(t, _) => {
            let t = format_ident!("{}", t);
            quote! { __k.slice_mut::<#t>(#k) }
        }
        P::View(t, _, n, m) => {
            let t = format_ident!("{}", t);
            let n = syn::Index::from(*n);
            if *m {
                quote! { __k.view_mut::<#t, #n>(#k) }
            } else {
                quote! { __k.view::<#t, #n>(#k) }
            }
        }
        P::Scalar(..) => {
            let v = &vars[k];
            quote! { #v }
        }
    });
    let scalars_copied = ps.iter().enumerate().filter_map(|(k, p)| match p {
        P::Scalar(..) => {
            let v = &vars[k];
            Some(quote! { let #v = #v; })
        }
        _ => None,
    });
    let cuda = t.source;
    let deps = crate::dep_paths(&t.calls);
    let sname = name.to_string();
    let statics = format_ident!("__CUPRUM_KERNEL_{}", name);
    let attrs = &f.attrs;
    let n = ps.len();
    let names_doc = names.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
    let doc = format!(
        "\n\n**Grid kernel** (`#[cuprum::kernel]`): `{sname}.launch((grid, block), ({names_doc},))` runs it on the device of its arrays."
    );
    Ok(quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #statics: ::cuprum::kernel::GridKernel = ::cuprum::kernel::GridKernel {
            name: #sname,
            params: &[#(#kparams),*],
            cuda: ::cuprum::kernel::DeviceSource { source: #cuda, calls: &[#(&#deps),*] },
        };

        #(#attrs)*
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes, unused_mut)]
        impl #name {
            #[doc(hidden)]
            #[allow(clippy::all)]
            #cpu

            /// Launches the kernel over `grid` blocks of `block` threads (each `n`, `(x, y)` or
            /// `(x, y, z)`) on the device of its arrays, indices checked (an IndexError).
            pub fn launch(&self, dims: (impl ::core::convert::Into<::cuprum::kernel::Dim3>, impl ::core::convert::Into<::cuprum::kernel::Dim3>), args: (#(#arg_types,)*)) -> ::cuprum::Result<()> {
                self.launch_with(dims, args, true)
            }

            /// As `launch`, without the GPU's index checks or the wait for their record (an
            /// index past a slice's end is undefined behaviour on the GPU; the CPU checks).
            pub fn launch_unchecked(&self, dims: (impl ::core::convert::Into<::cuprum::kernel::Dim3>, impl ::core::convert::Into<::cuprum::kernel::Dim3>), args: (#(#arg_types,)*)) -> ::cuprum::Result<()> {
                self.launch_with(dims, args, false)
            }

            /// The kernel (its parameters, its CUDA C).
            pub fn kernel(&self) -> &'static ::cuprum::kernel::GridKernel {
                &#statics
            }

            fn launch_with(&self, dims: (impl ::core::convert::Into<::cuprum::kernel::Dim3>, impl ::core::convert::Into<::cuprum::kernel::Dim3>), args: (#(#arg_types,)*), checked: bool) -> ::cuprum::Result<()> {
                let (#(#vars,)*) = args;
                #(#scalars_copied)*
                let __args: [::cuprum::kernel::KArg<'_>; #n] = [#(::cuprum::kernel::KArg::from(#vars)),*];
                #statics.launch(dims.0.into(), dims.1.into(), &__args, checked, &|__k: &::cuprum::kernel::KArgs| {
                    let _ = __k;
                    Self::__cpu(#(#cpu_args),*)
                })
            }
        }
    })
}
