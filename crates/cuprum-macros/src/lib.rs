//! cuprum's procedural macros (re-exported by `cuprum`): ordinary Rust functions that also
//! exist as CUDA C, translated at compile time (`translate.rs`). See `docs/kernels-design.md`.

use proc_macro::TokenStream;
use quote::{format_ident, quote};

mod translate;

/// `#[cuprum::device]`: a scalar helper usable from Rust as it is and from the GPU kernels of
/// `#[cuprum::vectorize]`/`#[cuprum::kernel]`. Beside the function it defines a hidden
/// constant `__CUPRUM_DEVICE_<name>` holding the function's CUDA C and the constants of the
/// device functions it calls (a call to a function without `#[cuprum::device]` is an error
/// at the call). Rust outside the supported subset is a compile error at its span.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let a: proc_macro2::TokenStream = attr.into();
        return syn::Error::new_spanned(a, "#[cuprum::device] takes no arguments").to_compile_error().into();
    }
    let f = syn::parse_macro_input!(item as syn::ItemFn);
    match translate::device_fn(&f) {
        Ok(t) => {
            let name = format_ident!("__CUPRUM_DEVICE_{}", f.sig.ident);
            let vis = &f.vis;
            let cuda = t.source;
            let deps = t.calls.iter().map(|p| {
                let mut p = p.clone();
                let last = p.segments.last_mut().expect("a path has a segment");
                last.ident = format_ident!("__CUPRUM_DEVICE_{}", last.ident);
                p
            });
            let doc = format!("The CUDA C of `{}` (`#[cuprum::device]`).", f.sig.ident);
            quote! {
                #f
                #[doc = #doc]
                #[doc(hidden)]
                #[allow(non_upper_case_globals)]
                #vis const #name: ::cuprum::kernel::DeviceSource =
                    ::cuprum::kernel::DeviceSource { source: #cuda, calls: &[#(&#deps),*] };
            }
            .into()
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(quote! { #f });
            out.into()
        }
    }
}
