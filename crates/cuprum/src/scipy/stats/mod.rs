//! `scipy.stats`: the normal distribution ([`norm()`], [`mod@norm`]), with SciPy's `loc`/`scale` and its answers
//! at the edges (a `scale` that is not positive gives NaN everywhere, `q` outside [0, 1] NaN).
//!
//! SciPy's two forms read the same in Rust: the standard distribution's functions
//! (`norm.pdf(x)` → `norm::pdf(&x)`) and a frozen distribution (`norm(loc, scale).pdf(x)`, or
//! `norm.pdf(x, loc=m, scale=s)` → `norm(m, s).pdf(&x)`). Results are float64 as SciPy's; each
//! function is one fused formula over the ufuncs of [`scipy::special`](crate::scipy::special)
//! (one kernel on the GPU, one pass on the CPU), so the code is the same on both devices.
//!
//! ```
//! use cuprum::scipy::stats::norm;
//! let dev = cuprum::Device::Cpu;
//! let x = cuprum::from_vec(vec![-1.0f32, 0.0, 2.5], &dev)?;
//! let p = norm::pdf(&x)?;                          // scipy.stats.norm.pdf(x)
//! assert_eq!(p.dtype(), cuprum::DType::Float64);
//! let q = norm(1.0, 2.0).cdf(&x)?;                 // norm.cdf(x, loc=1.0, scale=2.0)
//! let back = norm(1.0, 2.0).ppf(&q)?;              // and back
//! assert!(cuprum::allclose_with(&back, &x.astype(cuprum::DType::Float64)?, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() })?);
//! # Ok::<(), cuprum::Error>(())
//! ```

use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::expr::Expr;
use std::f64::consts::PI;

/// SciPy's `norm(loc, scale)`: the normal distribution of mean `loc` and standard deviation
/// `scale` (frozen). `Norm::default()` is the standard normal.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Norm {
    pub loc: f64,
    pub scale: f64,
}

impl Default for Norm {
    fn default() -> Norm {
        Norm { loc: 0.0, scale: 1.0 }
    }
}

/// SciPy's `scipy.stats.norm(loc, scale)`.
pub fn norm(loc: f64, scale: f64) -> Norm {
    Norm { loc, scale }
}

/// SciPy's `np.sqrt(2 * np.pi)` and its log (`_norm_pdf_C`, `_norm_pdf_logC`).
fn pdf_c() -> f64 {
    (2.0 * PI).sqrt()
}

/// SciPy's functions of `scipy.stats.norm` for the standard normal (`norm.pdf(x)`); each is
/// `Norm::default()`'s method.
pub mod norm {
    use super::*;

    /// `scipy.stats.norm.pdf(x)`.
    pub fn pdf(x: &Array) -> Result<Array> {
        Norm::default().pdf(x)
    }
    /// `scipy.stats.norm.logpdf(x)`.
    pub fn logpdf(x: &Array) -> Result<Array> {
        Norm::default().logpdf(x)
    }
    /// `scipy.stats.norm.cdf(x)`.
    pub fn cdf(x: &Array) -> Result<Array> {
        Norm::default().cdf(x)
    }
    /// `scipy.stats.norm.sf(x)`.
    pub fn sf(x: &Array) -> Result<Array> {
        Norm::default().sf(x)
    }
    /// `scipy.stats.norm.ppf(q)`.
    pub fn ppf(q: &Array) -> Result<Array> {
        Norm::default().ppf(q)
    }
    /// `scipy.stats.norm.isf(q)`.
    pub fn isf(q: &Array) -> Result<Array> {
        Norm::default().isf(q)
    }
}

impl Norm {
    /// SciPy's check of the parameters: a `scale` that is not positive (or a NaN `loc` where
    /// SciPy checks it) makes every answer NaN.
    fn bad(&self, loc_checked: bool) -> bool {
        self.scale.is_nan() || self.scale <= 0.0 || (loc_checked && self.loc.is_nan())
    }

    fn real(x: &Array, what: &str) -> Result<()> {
        if x.dtype().is_complex() {
            return Err(Error::UnsupportedDType { op: format!("norm.{what}"), dtype: x.dtype() });
        }
        Ok(())
    }

    /// `(x - loc) / scale` in float64, as SciPy's `rv_continuous` forms it (`x` promoted with
    /// float64), or `None` where the parameters make every answer NaN.
    fn standardized(&self, x: &Array, what: &str) -> Result<Option<Expr>> {
        Self::real(x, what)?;
        if self.bad(false) {
            return Ok(None);
        }
        Ok(Some((x.expr().astype(DType::Float64) - self.loc) / self.scale))
    }

    fn nan_like(x: &Array) -> Result<Array> {
        crate::full(x.shape(), f64::NAN, DType::Float64, &x.device())
    }

    fn finish(x: &Array, e: Option<Expr>) -> Result<Array> {
        match e {
            Some(e) => e.eval(),
            None => Self::nan_like(x),
        }
    }

    /// The probability density, `exp(-y²/2) / √(2π) / scale` with `y = (x - loc)/scale`.
    pub fn pdf(&self, x: &Array) -> Result<Array> {
        let y = self.standardized(x, "pdf")?;
        let scale = self.scale;
        Self::finish(x, y.map(|y| (-(y.clone() * y) / 2.0).exp() / pdf_c() / scale))
    }

    /// The log of the density, `-y²/2 - log √(2π) - log scale`.
    pub fn logpdf(&self, x: &Array) -> Result<Array> {
        let y = self.standardized(x, "logpdf")?;
        let log_scale = self.scale.ln();
        Self::finish(x, y.map(|y| -(y.clone() * y) / 2.0 - pdf_c().ln() - log_scale))
    }

    /// The cumulative distribution, `ndtr(y)`.
    pub fn cdf(&self, x: &Array) -> Result<Array> {
        let y = self.standardized(x, "cdf")?;
        Self::finish(x, y.map(Expr::ndtr))
    }

    /// The survival function `1 - cdf`, computed as `ndtr(-y)` (precise in the upper tail).
    pub fn sf(&self, x: &Array) -> Result<Array> {
        let y = self.standardized(x, "sf")?;
        Self::finish(x, y.map(|y| (-y).ndtr()))
    }

    /// The quantile function (inverse of `cdf`): `ndtri(q) * scale + loc`; `q` of 0 and 1 give
    /// `-inf` and `inf`, `q` outside [0, 1] NaN. As SciPy, `ndtri` runs in `q`'s own loop dtype
    /// (float32 for float32 `q`) before the float64 `scale` and `loc` apply.
    pub fn ppf(&self, q: &Array) -> Result<Array> {
        self.quantile(q, false)
    }

    /// The inverse of `sf`: `-ndtri(q) * scale + loc`.
    pub fn isf(&self, q: &Array) -> Result<Array> {
        self.quantile(q, true)
    }

    fn quantile(&self, q: &Array, upper: bool) -> Result<Array> {
        Self::real(q, if upper { "isf" } else { "ppf" })?;
        if self.bad(true) {
            return Self::nan_like(q);
        }
        let z = q.expr().ndtri();
        let z = if upper { -z } else { z };
        (z.astype(DType::Float64) * self.scale + self.loc).eval()
    }
}
