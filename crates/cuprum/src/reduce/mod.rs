//! Reductions over all axes, one axis or several, with `keepdims`, NumPy's accumulator dtypes
//! and `ddof`.

pub(crate) mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::core::layout::keepdims_shape;
use crate::core::ufunc::ReduceOp;

pub use crate::core::layout::Axes;

impl Array {
    /// Reduces with `op` over `axis`; `keepdims` keeps reduced axes with length 1. `ddof` is
    /// used by var/std (NumPy's "delta degrees of freedom").
    pub fn reduce(&self, op: ReduceOp, axis: impl Into<Axes>, keepdims: bool, ddof: f64) -> Result<Array> {
        let axis = axis.into();
        if matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax) {
            // One axis at most, as NumPy's (several: its TypeError).
            if axis.single()?.is_none() {
                // NumPy's argmin/argmax over all axes index the flattened (C-order) array.
                let flat = self.ravel()?;
                let r = flat.reduce(op, 0, false, ddof)?;
                return if keepdims { r.reshape(vec![1; self.ndim()]) } else { Ok(r) };
            }
        }
        let axes = axis.resolve(self.ndim())?;
        if self.dtype.is_complex() {
            return complex_reduce(self, op, &axes, keepdims, ddof);
        }
        let out_shape: Vec<usize> = (0..self.ndim()).filter(|a| !axes.contains(a)).map(|a| self.shape[a]).collect();
        let red: usize = axes.iter().map(|&a| self.shape[a]).product();
        if red == 0 && !op.has_identity() {
            return Err(Error::Value(op.empty_message()));
        }
        let out = Array::alloc(&out_shape, op.out_dtype(self.dtype), self.device(), false)?;
        reduce_into(op, self, &axes, ddof, &out)?;
        if keepdims {
            return out.reshape(keepdims_shape(&self.shape, &axes));
        }
        Ok(out)
    }

    /// NumPy's `var(axis=...)`: the variance over `axis` (`None`: all axes), `ddof = 0`;
    /// [`var_with`](Self::var_with) takes `ddof` and `keepdims`.
    pub fn var(&self, axis: impl Into<Axes>) -> Result<Array> {
        self.var_with(axis, &VarOptions::default())
    }
    /// NumPy's `std(axis=...)`: the standard deviation over `axis`, `ddof = 0`.
    ///
    /// ```
    /// let x = cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0], &cuprum::Device::default_device())?;
    /// assert_eq!(x.std(None)?.item::<f64>()?, 1.25f64.sqrt());
    /// let sample = x.std_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() })?;
    /// assert_eq!(sample.item::<f64>()?, (5.0f64 / 3.0).sqrt());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn std(&self, axis: impl Into<Axes>) -> Result<Array> {
        self.std_with(axis, &VarOptions::default())
    }
    /// NumPy's `var(axis, ddof=..., keepdims=...)`: `ddof` degrees of freedom removed.
    pub fn var_with(&self, axis: impl Into<Axes>, opts: &VarOptions) -> Result<Array> {
        self.reduce(ReduceOp::Var, axis, opts.keepdims, opts.ddof)
    }
    /// NumPy's `std(axis, ddof=..., keepdims=...)`.
    pub fn std_with(&self, axis: impl Into<Axes>, opts: &VarOptions) -> Result<Array> {
        self.reduce(ReduceOp::Std, axis, opts.keepdims, opts.ddof)
    }
    /// [`var`](Self::var) keeping reduced axes.
    pub fn var_keepdims(&self, axis: impl Into<Axes>) -> Result<Array> {
        self.reduce(ReduceOp::Var, axis, true, 0.0)
    }
    /// [`std`](Self::std) keeping reduced axes.
    pub fn std_keepdims(&self, axis: impl Into<Axes>) -> Result<Array> {
        self.reduce(ReduceOp::Std, axis, true, 0.0)
    }
}

/// The keywords of `var` and `std` (arrays and formulas); `Default` is NumPy's (`ddof=0`,
/// `keepdims=False`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VarOptions {
    /// Delta degrees of freedom: the sum of squares is divided by `n - ddof`.
    pub ddof: f64,
    /// Keep the reduced axes with length 1.
    pub keepdims: bool,
}

macro_rules! reductions {
    ($($name:ident $keep:ident => $op:ident),* $(,)?) => {
        impl Array {$(
            #[doc = concat!("NumPy's `", stringify!($name), "(axis=...)`: `None` for all axes, an axis, or several.")]
            pub fn $name(&self, axis: impl Into<Axes>) -> Result<Array> {
                self.reduce(ReduceOp::$op, axis, false, 0.0)
            }
            #[doc = concat!("NumPy's `", stringify!($name), "(axis=..., keepdims=True)`.")]
            pub fn $keep(&self, axis: impl Into<Axes>) -> Result<Array> {
                self.reduce(ReduceOp::$op, axis, true, 0.0)
            }
        )*}
        $(
            #[doc = concat!("NumPy's `", stringify!($name), "`.")]
            pub fn $name(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
                x.reduce(ReduceOp::$op, axis, false, 0.0)
            }
        )*
    };
}
reductions! {
    sum sum_keepdims => Sum,
    prod prod_keepdims => Prod,
    mean mean_keepdims => Mean,
    min min_keepdims => Min,
    max max_keepdims => Max,
    argmin argmin_keepdims => ArgMin,
    argmax argmax_keepdims => ArgMax,
    any any_keepdims => Any,
    all all_keepdims => All,
    count_nonzero count_nonzero_keepdims => CountNonzero,
}

/// NumPy's `var(x, axis)` (`ddof = 0`).
pub fn var(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
    x.var(axis)
}
/// NumPy's `std(x, axis)` (`ddof = 0`).
pub fn std(x: &Array, axis: impl Into<Axes>) -> Result<Array> {
    x.std(axis)
}
/// NumPy's `var(x, axis, ddof=..., keepdims=...)`.
pub fn var_with(x: &Array, axis: impl Into<Axes>, opts: &VarOptions) -> Result<Array> {
    x.var_with(axis, opts)
}
/// NumPy's `std(x, axis, ddof=..., keepdims=...)`.
pub fn std_with(x: &Array, axis: impl Into<Axes>, opts: &VarOptions) -> Result<Array> {
    x.std_with(axis, opts)
}

/// The reduction dispatch: the CPU or the CUDA implementation, by the output's device.
pub(crate) fn reduce_into(op: ReduceOp, x: &Array, axes: &[usize], ddof: f64, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::reduce(op, x, axes, ddof, out),
        Device::Cuda(_) => cuda::reduce(op, x, axes, ddof, out),
    }
}

/// A reduction of a complex array, from reductions of its real and imaginary parts (views, on
/// either device): sums and means part by part (the mean divides the sum as NumPy's does, by
/// a complex division), the variance as the sum of the parts' variances (the mean of
/// |x - mean|^2), any/all/count_nonzero of `x != 0`.
fn complex_reduce(x: &Array, op: ReduceOp, axes: &[usize], keepdims: bool, ddof: f64) -> Result<Array> {
    let ax = Axes::Some(axes.iter().map(|&a| a as isize).collect());
    match op {
        ReduceOp::Sum => {
            let re = x.real().reduce(op, ax.clone(), keepdims, ddof)?;
            let im = x.imag()?.reduce(op, ax, keepdims, ddof)?;
            crate::ufunc::complex::from_parts(&re, &im)
        }
        ReduceOp::Mean => {
            let s = complex_reduce(x, ReduceOp::Sum, axes, keepdims, ddof)?;
            let n: usize = axes.iter().map(|&a| x.shape[a]).product();
            crate::true_divide(&s, n as f64)
        }
        ReduceOp::Var | ReduceOp::Std => {
            let re = x.real().reduce(ReduceOp::Var, ax.clone(), keepdims, ddof)?;
            let im = x.imag()?.reduce(ReduceOp::Var, ax, keepdims, ddof)?;
            let v = crate::add(&re, &im)?;
            if op == ReduceOp::Std {
                v.sqrt()
            } else {
                Ok(v)
            }
        }
        ReduceOp::Any | ReduceOp::All | ReduceOp::CountNonzero => {
            crate::not_equal(x, 0i64)?.reduce(op, ax, keepdims, ddof)
        }
        ReduceOp::Prod | ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax => {
            let red: usize = axes.iter().map(|&a| x.shape[a]).product();
            if red == 0 && op != ReduceOp::Prod {
                return Err(Error::Value(op.empty_message()));
            }
            // The reduced axes last, as one lane.
            let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
            let perm: Vec<isize> = kept.iter().chain(axes).map(|&a| a as isize).collect();
            let mut lane_shape: Vec<usize> = kept.iter().map(|&a| x.shape[a]).collect();
            let out_shape = lane_shape.clone();
            lane_shape.push(red);
            let t = x.permute(&perm)?.reshape(&lane_shape)?;
            let r = if op == ReduceOp::Prod { complex_prod(&t, &out_shape)? } else { complex_extreme(&t, op)? };
            if keepdims {
                return r.reshape(keepdims_shape(&x.shape, axes));
            }
            Ok(r)
        }
    }
}

/// The product of each lane (last axis) of complex `t` by a tree of pairwise products, one
/// elementwise multiply per level on `t`'s device (NumPy multiplies in sequence: the results
/// differ by rounding only). `1+0j` for empty lanes.
fn complex_prod(t: &Array, out_shape: &[usize]) -> Result<Array> {
    use crate::core::dtype::DType;
    let mut t = t.view();
    let mut n = *t.shape().last().unwrap_or(&1);
    if n == 0 {
        return crate::ones(out_shape, t.dtype(), &t.device());
    }
    while n > 1 {
        let mut shape = out_shape.to_vec();
        if n % 2 == 1 {
            // An odd lane: the last element waits for the next level.
            shape.push(1);
            let one = crate::ones(&shape, t.dtype(), &t.device())?;
            t = crate::concatenate(&[&t, &one], -1)?;
            shape.pop();
            n += 1;
        }
        shape.extend([n / 2, 2]);
        let pairs = t.reshape(&shape)?;
        let half = |i: i64| crate::take(&pairs, &crate::full(&[], i, DType::Int64, &pairs.device())?, -1);
        t = crate::multiply(&half(0)?, &half(1)?)?;
        n /= 2;
    }
    t.reshape(out_shape)
}

/// NumPy's min/max/argmin/argmax of each lane (last axis, non-empty) of complex `t`: NumPy's
/// order (real part, then imaginary part), the first occurrence of the extreme; a lane holding
/// a NaN gives its first NaN, as NumPy's propagation does. From a stable argsort (of `-t` for
/// the maxima: negation reverses the order) on `t`'s device.
fn complex_extreme(t: &Array, op: ReduceOp) -> Result<Array> {
    use crate::core::dtype::DType;
    let last = t.ndim() as isize - 1;
    let key = if matches!(op, ReduceOp::Max | ReduceOp::ArgMax) { t.negative()? } else { t.view() };
    let zero = crate::zeros(&[], DType::Int64, &t.device())?;
    let best = crate::take(&crate::argsort(&key, last)?, &zero, last)?;
    let nan = crate::isnan(t)?;
    let first_nan = nan.argmax(last)?;
    let at = crate::where_(&nan.any(last)?, &first_nan, &best)?;
    if matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax) {
        return Ok(at);
    }
    crate::take_along_axis(t, &at.expand_dims(-1)?, last)?.reshape(at.shape())
}
