//! `norm` and `cond`, as NumPy composes them from ufuncs, reductions, products and the SVD
//! (so they run on either device through those families).

use super::decomp::{inv, singular_values};
use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout;

/// The `ord` of [`norm`] and `p` of [`cond`]: a number (`1`, `2`, `f64::INFINITY`, `0`, any
/// `p`), or NumPy's `'fro'` and `'nuc'`. `2.0.into()` works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// A numeric order.
    P(f64),
    /// The Frobenius norm (`'fro'`).
    Fro,
    /// The nuclear norm (`'nuc'`), the sum of the singular values.
    Nuc,
}

impl From<f64> for NormOrd {
    fn from(p: f64) -> Self {
        NormOrd::P(p)
    }
}

impl From<i32> for NormOrd {
    fn from(p: i32) -> Self {
        NormOrd::P(p as f64)
    }
}

/// `sqrt(sum(|x|^2))` over `axes` (NumPy's `sqrt(add.reduce((x.conj() * x).real, axis))`).
fn sum_squares(x: &Array, axes: Vec<isize>, keepdims: bool) -> Result<Array> {
    let s = if x.dtype().is_complex() {
        let (re, im) = (x.real(), x.imag()?);
        crate::add(&crate::multiply(&re, &re)?, &crate::multiply(&im, &im)?)?
    } else {
        crate::multiply(x, x)?
    };
    s.reduce(crate::ReduceOp::Sum, axes, keepdims, 0.0)?.sqrt()
}

/// `norm`'s keywords; `Default` is NumPy's (`ord=None, axis=None, keepdims=False`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormOptions<'a> {
    pub ord: Option<NormOrd>,
    pub axis: Option<&'a [isize]>,
    pub keepdims: bool,
}

/// `numpy.linalg.norm(x)`: the 2-norm of all the elements (the Frobenius norm of a matrix); see
/// [`norm_with`].
pub fn norm(x: &Array) -> Result<Array> {
    norm_with(x, &NormOptions::default())
}

/// `numpy.linalg.norm(x, ord, axis, keepdims)`: vector norms over one axis (`ord` `None`/2:
/// Euclidean; 1, `inf`, `-inf`, 0 (the count of non-zeros), any `p`), matrix norms over two
/// (`None`/`'fro'`, `'nuc'`, 1, -1, 2, -2 (the extreme singular values), `inf`, `-inf`).
/// `axis = None` means all of a 1-d or 2-d `x` (any `x` with `ord = None`: the 2-norm of its
/// elements). Integer input is float64; results are real.
///
/// ```
/// use cuprum::linalg::{self, NormOptions};
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(9, &dev)?.reshape([3, 3])?;
/// let a = cuprum::subtract(&a, 4.0)?;
/// assert!((linalg::norm(&a)?.item::<f64>()? - 7.745966692414834).abs() < 1e-12);
/// let inf = NormOptions { ord: Some(f64::INFINITY.into()), ..Default::default() };
/// assert_eq!(linalg::norm_with(&a, &inf)?.item::<f64>()?, 9.0);           // ord=inf
/// let rows = NormOptions { ord: Some(1.into()), axis: Some(&[1]), ..Default::default() };
/// assert_eq!(linalg::norm_with(&a, &rows)?.to_vec::<f64>()?, vec![9.0, 2.0, 9.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn norm_with(x: &Array, opts: &NormOptions<'_>) -> Result<Array> {
    let NormOptions { ord, axis, keepdims } = *opts;
    let x = if x.dtype().is_inexact() { x.view() } else { x.astype(DType::Float64)? };
    let nd = x.ndim();
    if axis.is_none() {
        let fast = match ord {
            None => true,
            Some(NormOrd::Fro) => nd == 2,
            Some(NormOrd::P(p)) => p == 2.0 && nd == 1,
            _ => false,
        };
        if fast {
            let flat = x.ravel()?;
            let r = if super::products::is_linalg_float(x.dtype()) {
                super::products::vector_dot(&flat, None, false)?
            } else {
                sum_squares(&flat, vec![0], false)?
            };
            return if keepdims { r.reshape(vec![1; nd]) } else { Ok(r) };
        }
    }
    let axes: Vec<isize> = match axis {
        Some(a) => a.to_vec(),
        None => (0..nd as isize).collect(),
    };
    match axes.len() {
        1 => {
            let ax = vec![axes[0]];
            layout::normalize_axis(axes[0], nd)?;
            let p = match ord {
                None => 2.0,
                Some(NormOrd::P(p)) => p,
                Some(NormOrd::Fro) => return Err(Error::Value("Invalid norm order 'fro' for vectors".into())),
                Some(NormOrd::Nuc) => return Err(Error::Value("Invalid norm order 'nuc' for vectors".into())),
            };
            let abs = || x.abs();
            let red = |a: &Array, op| a.reduce(op, ax.clone(), keepdims, 0.0);
            if p == f64::INFINITY {
                red(&abs()?, crate::ReduceOp::Max)
            } else if p == f64::NEG_INFINITY {
                red(&abs()?, crate::ReduceOp::Min)
            } else if p == 0.0 {
                let nz = crate::not_equal(&x, 0.0)?.astype(x.dtype().real_dtype())?;
                red(&nz, crate::ReduceOp::Sum)
            } else if p == 1.0 {
                red(&abs()?, crate::ReduceOp::Sum)
            } else if p == 2.0 {
                sum_squares(&x, ax.clone(), keepdims)
            } else {
                let s = red(&crate::power(&abs()?, p)?, crate::ReduceOp::Sum)?;
                crate::power(&s, 1.0 / p)
            }
        }
        2 => {
            let (r, c) = (layout::normalize_axis(axes[0], nd)?, layout::normalize_axis(axes[1], nd)?);
            if r == c {
                return Err(Error::Value("Duplicate axes given.".into()));
            }
            let svd_norm = |op: crate::ReduceOp| -> Result<Array> {
                let y = x.moveaxis(r as isize, -2)?;
                let c2 = if c > r { c - 1 } else { c };
                let y = y.moveaxis(c2 as isize, -1)?;
                singular_values(&y)?.reduce(op, vec![-1], false, 0.0)
            };
            // Sum of |x| over one axis then an extreme over the other (NumPy's axis shifts).
            let sum_then = |sum_ax: usize, other: usize, op: crate::ReduceOp| -> Result<Array> {
                let other = if other > sum_ax { other - 1 } else { other };
                x.abs()?.sum(sum_ax as isize)?.reduce(op, vec![other as isize], false, 0.0)
            };
            let ret = match ord {
                None | Some(NormOrd::Fro) => sum_squares(&x, vec![r as isize, c as isize], false)?,
                Some(NormOrd::Nuc) => svd_norm(crate::ReduceOp::Sum)?,
                Some(NormOrd::P(2.0)) => svd_norm(crate::ReduceOp::Max)?,
                Some(NormOrd::P(-2.0)) => svd_norm(crate::ReduceOp::Min)?,
                Some(NormOrd::P(1.0)) => sum_then(r, c, crate::ReduceOp::Max)?,
                Some(NormOrd::P(-1.0)) => sum_then(r, c, crate::ReduceOp::Min)?,
                Some(NormOrd::P(p)) if p == f64::INFINITY => sum_then(c, r, crate::ReduceOp::Max)?,
                Some(NormOrd::P(p)) if p == f64::NEG_INFINITY => sum_then(c, r, crate::ReduceOp::Min)?,
                Some(_) => return Err(Error::Value("Invalid norm order for matrices.".into())),
            };
            if keepdims {
                let mut shape = x.shape().to_vec();
                shape[r] = 1;
                shape[c] = 1;
                ret.reshape(shape)
            } else {
                Ok(ret)
            }
        }
        _ => Err(Error::Value("Improper number of dimensions to norm.".into())),
    }
}

/// `numpy.linalg.cond(x)`: the condition number `s_max / s_min` of the SVD over the last two
/// axes ([`cond_with`] takes NumPy's `p`). As NumPy, a singular matrix gives `inf` (a NaN
/// result becomes `inf` unless `x` holds a NaN).
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![1.0, 0.0, 0.0, -4.0], &Device::default_device())?.reshape([2, 2])?;
/// assert_eq!(linalg::cond(&a)?.item::<f64>()?, 4.0);
/// assert_eq!(linalg::cond_with(&a, f64::INFINITY.into())?.item::<f64>()?, 4.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cond(x: &Array) -> Result<Array> {
    cond_p(x, None)
}

/// `numpy.linalg.cond(x, p)`: [`cond`] in the norm `p`: 2 is the default's (`-2`:
/// `s_min / s_max`), the others `norm(x, p) * norm(inv(x), p)`.
pub fn cond_with(x: &Array, p: NormOrd) -> Result<Array> {
    cond_p(x, Some(p))
}

fn cond_p(x: &Array, p: Option<NormOrd>) -> Result<Array> {
    super::assert_stacked_2d(x)?;
    let (m, n) = (x.shape()[x.ndim() - 2], x.shape()[x.ndim() - 1]);
    if m == 0 || n == 0 {
        return Err(Error::LinAlg("cond is not defined on empty arrays".into()));
    }
    let r = match p {
        None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
            let s = singular_values(x)?;
            let sl = s.moveaxis(-1, 0)?;
            let (first, last) = (sl.at(0)?, sl.at(-1)?);
            if p == Some(NormOrd::P(-2.0)) {
                crate::divide(&last, &first)?
            } else {
                crate::divide(&first, &last)?
            }
        }
        Some(ord) => {
            super::assert_stacked_square(x)?;
            let ax: &[isize] = &[-2, -1];
            let nx =
                norm_with(x, &crate::linalg::NormOptions { ord: Some(ord), axis: Some(ax), ..Default::default() })?;
            match inv(x) {
                Ok(ix) => crate::multiply(
                    &nx,
                    &norm_with(
                        &ix,
                        &crate::linalg::NormOptions { ord: Some(ord), axis: Some(ax), ..Default::default() },
                    )?,
                )?,
                Err(e) if e.kind() == crate::ErrorKind::LinAlgError => {
                    // NumPy's inverse does not raise here: a singular matrix gives inf.
                    let each: Result<Vec<f64>> = (0..crate::linalg::batch_count(&x.shape()[..x.ndim() - 2]))
                        .map(|i| {
                            let xi = x.reshape_i(&[-1, m as isize, n as isize])?.at(i as isize)?;
                            match inv(&xi) {
                                Ok(ix) => Ok(crate::multiply(
                                    &norm_with(
                                        &xi,
                                        &crate::linalg::NormOptions { ord: Some(ord), ..Default::default() },
                                    )?,
                                    &norm_with(
                                        &ix,
                                        &crate::linalg::NormOptions { ord: Some(ord), ..Default::default() },
                                    )?,
                                )?
                                .to_vec_as::<f64>()?[0]),
                                Err(e) if e.kind() == crate::ErrorKind::LinAlgError => Ok(f64::INFINITY),
                                Err(e) => Err(e),
                            }
                        })
                        .collect();
                    let v = crate::from_vec(each?, &x.device())?.astype(nx.dtype())?;
                    v.reshape(nx.shape().to_vec())?
                }
                Err(e) => return Err(e),
            }
        }
    };
    // NaN (0/0) becomes inf unless the matrix itself holds a NaN.
    let isnan = crate::isnan(&r)?;
    if crate::any(&isnan, None)?.item::<bool>()? {
        let xnan = crate::isnan(x)?.reduce(crate::ReduceOp::Any, vec![-2, -1], false, 0.0)?;
        let fix = crate::logical_and(&isnan, &crate::logical_not(&xnan)?)?;
        return crate::where_(&fix, f64::INFINITY, &r)?.astype(r.dtype());
    }
    Ok(r)
}
