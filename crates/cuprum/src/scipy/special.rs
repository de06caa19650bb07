//! `scipy.special`: the error function and the normal distribution's CDF and its inverse, as
//! ufuncs (`cupyx.scipy.special`'s names). They are cuprum ufuncs like `exp`: any shape, views
//! and broadcasting, `_out` forms, and inside a fused [`Expr`](crate::Expr) (`x.expr().erf()`).
//!
//! Dtypes as SciPy's loops: float32 in, float32 out (computed in float64 and rounded, as SciPy
//! does); other real inputs float64, except that `ndtri` (whose first loop is float32) gives
//! float32 for float16, bool and 8/16-bit integers too. Complex inputs are a `TypeError` (SciPy's
//! complex `erf`/`erfc`/`ndtr` are not implemented here).
//!
//! Where the code is: the CPU's functions are `backend/cpu/special.rs` (erf and erfc from
//! `libm`, SciPy's `ndtr` formula, `ndtri` by Halley's method), the GPU's
//! `backend/cuda/include/special.cuh` (CUDA's `erf`, `erfc`, `normcdfinv`); the loops are the
//! ufuncs' (`ufunc/cpu.rs`, `ufunc/cuda.rs`).
//!
//! ```
//! use cuprum::scipy::special;
//! let dev = cuprum::Device::Cpu;
//! let x = cuprum::from_vec(vec![-1.0f64, 0.0, 0.5, 2.0], &dev)?;
//! let p = special::ndtr(&x)?;                          // scipy.special.ndtr(x)
//! let back = special::ndtri(&p)?;                      // its inverse
//! assert!(cuprum::allclose_with(&back, &x, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-15, ..Default::default() })?);
//! let e = special::erf(&x)?.to_vec::<f64>()?;
//! assert!((e[3] - 0.9953222650189527).abs() < 1e-16);   // scipy.special.erf(2.0)
//! # Ok::<(), cuprum::Error>(())
//! ```

use crate::array::Array;
use crate::core::error::Result;
use crate::core::ufunc::UnaryOp;
use crate::ufunc::{unary, unary_out};

macro_rules! special_fns {
    ($($name:ident $out:ident => $op:ident, $what:literal;)*) => {$(
        #[doc = concat!("SciPy's `scipy.special.", stringify!($name), "`: ", $what)]
        pub fn $name(x: &Array) -> Result<Array> {
            unary(UnaryOp::$op, x)
        }
        #[doc = concat!("SciPy's `scipy.special.", stringify!($name), "(x, out=out)`.")]
        pub fn $out(x: &Array, out: &mut Array) -> Result<()> {
            unary_out(UnaryOp::$op, x, out)
        }
    )*};
}
special_fns! {
    erf erf_out => Erf, "the error function, `2/√π ∫₀ˣ exp(-t²) dt`.";
    erfc erfc_out => Erfc, "`1 - erf(x)`, without the cancellation for large `x`.";
    ndtr ndtr_out => Ndtr, "the standard normal CDF, `(1 + erf(x/√2))/2`, precise in both tails.";
    ndtri ndtri_out => Ndtri, "the inverse of `ndtr`: `-inf` at 0, `inf` at 1, NaN outside [0, 1].";
}
