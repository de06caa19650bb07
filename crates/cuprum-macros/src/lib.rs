//! cuprum's procedural macros (re-exported by `cuprum`): ordinary Rust functions that also
//! exist as CUDA C, translated at compile time (`translate.rs`), their CPU bodies with Rust's
//! operators made total (`rewrite.rs`). See ARCHITECTURE.md's page on the translator.

use proc_macro::TokenStream;
use quote::{format_ident, quote};

mod kernel;
mod rewrite;
mod translate;
mod vectorize;

/// The constants of the device functions a body calls: each path with its last segment made
/// `ADD_THE_cuprum_device_ATTRIBUTE_TO_<name>`. A helper without `#[cuprum::device]` has no such
/// constant, and rustc's error at the call ("cannot find value
/// `ADD_THE_cuprum_device_ATTRIBUTE_TO_helper` in this scope") says what to do.
pub(crate) fn dep_paths(calls: &[syn::Path]) -> Vec<syn::Path> {
    calls
        .iter()
        .map(|p| {
            let mut p = p.clone();
            let last = p.segments.last_mut().expect("a path has a segment");
            last.ident = format_ident!("ADD_THE_cuprum_device_ATTRIBUTE_TO_{}", last.ident, span = last.ident.span());
            p
        })
        .collect()
}

/// An attribute on a function: `expand`'s output, or its error with the function as written
/// (so that rustc reports the error alone, not the function's uses as well).
fn on_fn(
    attr: TokenStream,
    item: TokenStream,
    expand: fn(proc_macro2::TokenStream, &syn::ItemFn) -> syn::Result<proc_macro2::TokenStream>,
) -> TokenStream {
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(attr.into(), &f) {
        Ok(t) => t.into(),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(quote! { #f });
            out.into()
        }
    }
}

/// `#[cuprum::device]`: a scalar helper usable from Rust as it is and from the GPU kernels of
/// `#[cuprum::vectorize]`/`#[cuprum::kernel]`. Beside the function it defines a hidden
/// constant `ADD_THE_cuprum_device_ATTRIBUTE_TO_<name>` holding the function's CUDA C and the constants of the
/// device functions it calls (a call to a function without `#[cuprum::device]` is an error
/// at the call). On a `const` item it makes the constant usable in kernel bodies. Rust outside
/// the supported subset is a compile error at its span.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let a: proc_macro2::TokenStream = attr.into();
        return syn::Error::new_spanned(a, "#[cuprum::device] takes no arguments").to_compile_error().into();
    }
    let item = syn::parse_macro_input!(item as syn::Item);
    let (translated, name, vis, rust) = match item {
        syn::Item::Fn(f) => {
            let t = translate::device_fn(&f);
            let mut rust = f.clone();
            rewrite::cpu_body(&mut rust.block);
            (t, f.sig.ident.clone(), f.vis.clone(), quote! { #rust })
        }
        syn::Item::Const(c) => (translate::device_const(&c), c.ident.clone(), c.vis.clone(), quote! { #c }),
        other => {
            let mut out = syn::Error::new_spanned(&other, "#[cuprum::device] applies to a function or a constant")
                .to_compile_error();
            out.extend(quote! { #other });
            return out.into();
        }
    };
    match translated {
        Ok(t) => {
            let cname = format_ident!("ADD_THE_cuprum_device_ATTRIBUTE_TO_{}", name);
            let cuda = t.source;
            let deps = dep_paths(&t.calls);
            let doc = format!("The CUDA C of `{name}` (`#[cuprum::device]`).");
            quote! {
                #rust
                #[doc = #doc]
                #[doc(hidden)]
                #[allow(non_upper_case_globals)]
                #vis const #cname: ::cuprum::kernel::DeviceSource =
                    ::cuprum::kernel::DeviceSource { source: #cuda, calls: &[#(&#deps),*] };
            }
            .into()
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(rust);
            out.into()
        }
    }
}

/// `#[cuprum::vectorize(f32(f32, f32), f64(f64, f64))]`: a scalar function becomes a ufunc on
/// both devices. See `cuprum::kernel`'s documentation.
#[proc_macro_attribute]
pub fn vectorize(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_fn(attr, item, vectorize::expand)
}

/// `#[cuprum::kernel]`: a grid kernel (Numba's `@cuda.jit`), launched as
/// `name.launch((grid, block), (args,))`. See `cuprum::kernel`'s documentation.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_fn(attr, item, kernel::expand)
}
