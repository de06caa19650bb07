//! Matrix and tensor products: `matmul` (the one dispatch point: faer or cuBLAS for floats,
//! exact loops for integers and `bool`), and what NumPy builds on it (`dot`, `vdot`, `inner`,
//! `outer`, `tensordot`, `kron`, `trace`, `matrix_power`, `multi_dot`).

use super::{cpu, cuda, same_device};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{shape_str, Error, Result};
use crate::core::layout;

const MATMUL_SIG: &str = "gufunc signature (n?,k),(k,m?)->(n?,m?)";

/// `numpy.matmul` (`a @ b`): the matrix product of the last two axes, the others broadcast as a
/// stack; a 1-d `a` is a row vector and a 1-d `b` a column vector, their axis removed from the
/// result. Every dtype, promoted as NumPy does: integers wrap, `bool` gives `or` of `and`s,
/// float16 accumulates in float32; floats and complex numbers go through faer (CPU) and cuBLAS
/// (GPU, plain FP32: no TF32).
///
/// ```
/// use cuprum::Device;
/// let dev = Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// let b = cuprum::arange(3, &dev)?;
/// assert_eq!(cuprum::matmul(&a, &b)?.to_vec::<i64>()?, vec![5, 14]);
/// let m = cuprum::matmul(&a, &a.t())?;                 // a @ a.T
/// assert_eq!(m.to_vec::<i64>()?, vec![5, 14, 14, 50]);
/// assert_eq!(a.matmul(&b.astype(cuprum::DType::Float32)?)?.dtype(), cuprum::DType::Float64);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    same_device("matmul", a, b)?;
    for (i, x) in [a, b].into_iter().enumerate() {
        if x.ndim() == 0 {
            return Err(Error::Value(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, {MATMUL_SIG} requires 1)"
            )));
        }
    }
    let dt = promote_types(a.dtype(), b.dtype());
    if a.ndim() == 1 && b.ndim() == 1 && is_linalg_float(dt) && a.size() == b.size() {
        return vector_dot(&super::as_dtype(a, dt)?, Some(&super::as_dtype(b, dt)?), false);
    }
    let a2 = if a.ndim() == 1 { a.reshape([1, a.shape()[0]])? } else { a.view() };
    let b2 = if b.ndim() == 1 { b.reshape([b.shape()[0], 1])? } else { b.view() };
    let (na, nb) = (a2.ndim(), b2.ndim());
    let (m, k) = (a2.shape()[na - 2], a2.shape()[na - 1]);
    let (kb, n) = (b2.shape()[nb - 2], b2.shape()[nb - 1]);
    if k != kb {
        return Err(Error::Value(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with {MATMUL_SIG} (size {kb} is different from {k})"
        )));
    }
    let batch = layout::broadcast_shapes(&a2.shape()[..na - 2], &b2.shape()[..nb - 2]).ok_or_else(|| {
        Error::Value(format!(
            "operands could not be broadcast together with remapped shapes [original->remapped]: {}->{} {}->{} and requested shape ({},{})",
            shape_str(a.shape()),
            shape_str(a2.shape()),
            shape_str(b.shape()),
            shape_str(b2.shape()),
            m,
            n
        ))
    })?;
    let mut full = batch.clone();
    full.extend([m, n]);
    let out = Array::alloc(&full, dt, a.device(), k == 0)?;
    if out.size() > 0 && k > 0 {
        matmul_into(&a2, &b2, &out)?;
    }
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    out.reshape(shape)
}

/// Whether `dt` is one of the dtypes the linalg kernels take.
pub(super) fn is_linalg_float(dt: DType) -> bool {
    matches!(dt, DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128)
}

/// The vector-product dispatch: the 0-d `a · b` of two vectors of one length and linalg dtype
/// (`conj`: `a` conjugated), or with `b` `None` the Euclidean norm of `a` (real), in one pass.
pub(super) fn vector_dot(a: &Array, b: Option<&Array>, conj: bool) -> Result<Array> {
    let dt = a.dtype();
    let out = Array::alloc(&[], if b.is_none() { dt.real_dtype() } else { dt }, a.device(), false)?;
    let a = a.as_contiguous()?;
    let b = b.map(Array::as_contiguous).transpose()?;
    match a.device() {
        Device::Cpu => cpu::dot_1d(&a, b.as_ref(), conj, &out)?,
        Device::Cuda(_) => cuda::dot_1d(&a, b.as_ref(), conj, &out)?,
    }
    Ok(out)
}

/// The matmul dispatch: `out` (C-contiguous `(..., m, n)`) `= a @ b`, with `a` and `b` of any
/// dtype, at least 2-d, their stacks broadcast to `out`'s.
fn matmul_into(a: &Array, b: &Array, out: &Array) -> Result<()> {
    let dt = out.dtype();
    // float16 goes through float32, as NumPy's half loop accumulates in float.
    let cdt = if dt == DType::Float16 { DType::Float32 } else { dt };
    let nd = out.ndim();
    let (m, n, k) = (out.shape()[nd - 2], out.shape()[nd - 1], a.shape()[a.ndim() - 1]);
    let mut sa = out.shape()[..nd - 2].to_vec();
    sa.extend([m, k]);
    let mut sb = out.shape()[..nd - 2].to_vec();
    sb.extend([k, n]);
    let a = super::as_dtype(a, cdt)?.broadcast_to(&sa)?;
    let b = super::as_dtype(b, cdt)?.broadcast_to(&sb)?;
    let o = if cdt == dt { out.view() } else { Array::alloc(out.shape(), cdt, out.device(), false)? };
    match o.device() {
        Device::Cpu if cdt.is_inexact() => cpu::matmul(&a, &b, &o)?,
        Device::Cpu => cpu::matmul_exact(&a, &b, &o)?,
        Device::Cuda(_) => cuda::matmul(&a, &b, &o)?,
    }
    if cdt != dt {
        crate::ufunc::assign(out, &o)?;
    }
    Ok(())
}

impl Array {
    /// `self @ other`: [`matmul`](crate::matmul).
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        matmul(self, other)
    }

    /// `self.dot(other)`: [`dot`](crate::dot).
    pub fn dot(&self, other: &Array) -> Result<Array> {
        dot(self, other)
    }
}

/// NumPy's "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)".
fn not_aligned(a: &Array, b: &Array, da: usize, db: usize) -> Error {
    Error::Value(format!(
        "shapes {} and {} not aligned: {} (dim {da}) != {} (dim {db})",
        shape_str(a.shape()),
        shape_str(b.shape()),
        a.shape()[da],
        b.shape()[db]
    ))
}

/// `numpy.dot`: a scalar times an array for 0-d arguments, the inner product of two vectors,
/// the matrix product of two matrices, and in general the sum over `a`'s last axis and `b`'s
/// second-to-last (its only one when 1-d).
///
/// ```
/// use cuprum::Device;
/// let dev = Device::default_device();
/// let x = cuprum::from_vec(vec![1.0f32, 2.0, 3.0], &dev)?;
/// assert_eq!(cuprum::dot(&x, &x)?.item::<f32>()?, 14.0);
/// let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
/// let b = cuprum::arange(8, &dev)?.reshape([4, 2])?;
/// assert_eq!(cuprum::dot(&a, &b)?.shape(), &[2, 3, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    same_device("dot", a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::multiply(a, b);
    }
    let ka = a.ndim() - 1;
    let kb = if b.ndim() == 1 { 0 } else { b.ndim() - 2 };
    if a.shape()[ka] != b.shape()[kb] {
        return Err(not_aligned(a, b, ka, kb));
    }
    if b.ndim() <= 2 || a.ndim() == 1 {
        // matmul's stacks give dot's shapes here (a vector times a stack: a row broadcast).
        return matmul(a, b);
    }
    tensordot(a, b, TensorAxes::Pairs(vec![-1], vec![-2]))
}

/// `numpy.vdot`: the dot product of the flattened arrays, the first conjugated.
///
/// ```
/// use cuprum::{Complex, Device};
/// let dev = Device::default_device();
/// let a = cuprum::from_vec(vec![Complex::new(1.0, 2.0), Complex::new(3.0, 4.0)], &dev)?;
/// let b = cuprum::from_vec(vec![Complex::new(5.0, 6.0), Complex::new(7.0, 8.0)], &dev)?;
/// assert_eq!(cuprum::vdot(&a, &b)?.item::<Complex<f64>>()?, Complex::new(70.0, -8.0));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn vdot(a: &Array, b: &Array) -> Result<Array> {
    same_device("vdot", a, b)?;
    if a.size() != b.size() {
        return Err(Error::Value("vectors have different lengths".into()));
    }
    let dt = promote_types(a.dtype(), b.dtype());
    if is_linalg_float(dt) {
        return vector_dot(&super::as_dtype(&a.ravel()?, dt)?, Some(&super::as_dtype(&b.ravel()?, dt)?), true);
    }
    let a = if a.dtype().is_complex() { a.conj()? } else { a.view() };
    matmul(&a.ravel()?, &b.ravel()?)
}

/// `numpy.inner`: the sum over the last axes of `a` and `b` (a scalar times an array for 0-d
/// arguments); the result's shape is `a.shape[:-1] + b.shape[:-1]`.
pub fn inner(a: &Array, b: &Array) -> Result<Array> {
    same_device("inner", a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::multiply(a, b);
    }
    let (ka, kb) = (a.ndim() - 1, b.ndim() - 1);
    if a.shape()[ka] != b.shape()[kb] {
        return Err(not_aligned(a, b, ka, kb));
    }
    tensordot(a, b, TensorAxes::Pairs(vec![-1], vec![-1]))
}

/// `numpy.outer`: `a.ravel()[:, None] * b.ravel()[None, :]`.
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    same_device("outer", a, b)?;
    let a = a.ravel()?;
    let b = b.ravel()?;
    crate::multiply(&a.reshape([a.size(), 1])?, &b.reshape([1, b.size()])?)
}

/// The `axes` of [`tensordot`]: the last `N` axes of `a` with the first `N` of `b`, or lists
/// of axes paired in order. `2usize.into()` and `(vec![1, 0], vec![0, 1]).into()` both work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorAxes {
    /// NumPy's `axes=N`.
    N(usize),
    /// NumPy's `axes=(a_axes, b_axes)`.
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensorAxes {
    fn from(n: usize) -> Self {
        TensorAxes::N(n)
    }
}

impl From<(Vec<isize>, Vec<isize>)> for TensorAxes {
    fn from((a, b): (Vec<isize>, Vec<isize>)) -> Self {
        TensorAxes::Pairs(a, b)
    }
}

impl<const K: usize> From<([isize; K], [isize; K])> for TensorAxes {
    fn from((a, b): ([isize; K], [isize; K])) -> Self {
        TensorAxes::Pairs(a.to_vec(), b.to_vec())
    }
}

/// `numpy.tensordot(a, b, axes)`: the sum of products over the paired axes, as one matrix
/// product of the arrays with their summed axes moved together (NumPy's own method); the
/// result's axes are `a`'s free axes then `b`'s.
///
/// ```
/// use cuprum::Device;
/// let dev = Device::default_device();
/// let a = cuprum::arange(60, &dev)?.reshape([3, 4, 5])?;
/// let b = cuprum::arange(24, &dev)?.reshape([4, 3, 2])?;
/// let c = cuprum::linalg::tensordot(&a, &b, ([1, 0], [0, 1]))?;
/// assert_eq!(c.shape(), &[5, 2]);
/// assert_eq!(c.to_vec::<i64>()?, vec![4400, 4730, 4532, 4874, 4664, 5018, 4796, 5162, 4928, 5306]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn tensordot(a: &Array, b: &Array, axes: impl Into<TensorAxes>) -> Result<Array> {
    same_device("tensordot", a, b)?;
    let (ax_a, ax_b): (Vec<isize>, Vec<isize>) = match axes.into() {
        TensorAxes::N(n) => {
            if n > a.ndim() || n > b.ndim() {
                return Err(Error::Value("shape-mismatch for sum".into()));
            }
            ((a.ndim() - n..a.ndim()).map(|x| x as isize).collect(), (0..n).map(|x| x as isize).collect())
        }
        TensorAxes::Pairs(x, y) => (x, y),
    };
    if ax_a.len() != ax_b.len() {
        return Err(Error::Value("shape-mismatch for sum".into()));
    }
    let norm = |axes: &[isize], nd: usize| -> Result<Vec<usize>> {
        axes.iter().map(|&x| layout::normalize_axis(x, nd)).collect()
    };
    let (ax_a, ax_b) = (norm(&ax_a, a.ndim())?, norm(&ax_b, b.ndim())?);
    for (&i, &j) in ax_a.iter().zip(&ax_b) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::Value("shape-mismatch for sum".into()));
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|x| !ax_a.contains(x)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|x| !ax_b.contains(x)).collect();
    let k: usize = ax_a.iter().map(|&i| a.shape()[i]).product();
    let m: usize = free_a.iter().map(|&i| a.shape()[i]).product();
    let n: usize = free_b.iter().map(|&i| b.shape()[i]).product();
    let pa: Vec<isize> = free_a.iter().chain(&ax_a).map(|&x| x as isize).collect();
    let pb: Vec<isize> = ax_b.iter().chain(&free_b).map(|&x| x as isize).collect();
    let at = a.permute(&pa)?.reshape([m, k])?;
    let bt = b.permute(&pb)?.reshape([k, n])?;
    let mut shape: Vec<usize> = free_a.iter().map(|&i| a.shape()[i]).collect();
    shape.extend(free_b.iter().map(|&i| b.shape()[i]));
    matmul(&at, &bt)?.reshape(shape)
}

/// `numpy.kron`: the Kronecker product, blocks `a[i, j] * b` (the shorter shape padded with
/// leading ones).
///
/// ```
/// use cuprum::Device;
/// let dev = Device::default_device();
/// let a = cuprum::from_vec(vec![1i64, 10, 100], &dev)?;
/// let b = cuprum::from_vec(vec![5i64, 6, 7], &dev)?;
/// assert_eq!(cuprum::kron(&a, &b)?.to_vec::<i64>()?, vec![5, 6, 7, 50, 60, 70, 500, 600, 700]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn kron(a: &Array, b: &Array) -> Result<Array> {
    same_device("kron", a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::multiply(a, b);
    }
    let nd = a.ndim().max(b.ndim());
    let pad = |s: &[usize]| -> Vec<usize> {
        let mut v = vec![1; nd - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (sa, sb) = (pad(a.shape()), pad(b.shape()));
    let ea: Vec<usize> = sa.iter().flat_map(|&d| [d, 1]).collect();
    let eb: Vec<usize> = sb.iter().flat_map(|&d| [1, d]).collect();
    let prod = crate::multiply(&a.reshape(ea)?, &b.reshape(eb)?)?;
    prod.reshape(sa.iter().zip(&sb).map(|(x, y)| x * y).collect::<Vec<_>>())
}

/// `numpy.trace(a, offset, axis1, axis2)`: the sum of the diagonal with `offset` of the 2-d
/// sub-arrays over `axis1`, `axis2` (NumPy's `sum` dtypes: small integers sum as int64).
///
/// ```
/// let m = cuprum::arange(9, &cuprum::Device::default_device())?.reshape([3, 3])?;
/// assert_eq!(cuprum::trace(&m, 0, 0, 1)?.item::<i64>()?, 12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn trace(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    a.diagonal_with(offset, axis1, axis2)?.sum(-1)
}

/// `numpy.linalg.matrix_power(a, n)`: `a` multiplied by itself `n` times by repeated squaring
/// (NumPy's order of products); `n = 0` gives the identity in `a`'s dtype, a negative `n` the
/// power of the inverse. Stacks of square matrices.
pub fn matrix_power(a: &Array, n: i64) -> Result<Array> {
    super::assert_stacked_square(a)?;
    if n == 0 {
        let m = a.shape()[a.ndim() - 1];
        let eye = crate::eye(m, a.dtype(), &a.device())?;
        return eye.broadcast_to(a.shape())?.copy();
    }
    let base = if n < 0 { super::inv(a)? } else { a.view() };
    let mut n = n.unsigned_abs();
    match n {
        1 => return base.copy(),
        2 => return matmul(&base, &base),
        3 => return matmul(&matmul(&base, &base)?, &base),
        _ => {}
    }
    let (mut z, mut result): (Option<Array>, Option<Array>) = (None, None);
    while n > 0 {
        let zz = match z.take() {
            None => base.view(),
            Some(z) => matmul(&z, &z)?,
        };
        let bit = n % 2;
        n /= 2;
        if bit == 1 {
            result = Some(match result.take() {
                None => zz.view(),
                Some(r) => matmul(&r, &zz)?,
            });
        }
        z = Some(zz);
    }
    result.ok_or_else(|| Error::Value("matrix_power: no result".into()))
}

/// `numpy.linalg.multi_dot(arrays)`: the product of two or more matrices in the order of
/// multiplication with the fewest operations (NumPy's closed form for three, its dynamic
/// programme beyond); the first array may be 1-d (a row vector) and the last (a column
/// vector), the others are 2-d.
pub fn multi_dot(arrays: &[&Array]) -> Result<Array> {
    let n = arrays.len();
    if n < 2 {
        return Err(Error::Value("Expecting at least two arrays.".into()));
    }
    if n == 2 {
        return dot(arrays[0], arrays[1]);
    }
    let (first_1d, last_1d) = (arrays[0].ndim() == 1, arrays[n - 1].ndim() == 1);
    let mut mats: Vec<Array> = arrays.iter().map(|a| a.view()).collect();
    if first_1d {
        mats[0] = mats[0].reshape([1, arrays[0].size()])?;
    }
    if last_1d {
        mats[n - 1] = mats[n - 1].reshape([arrays[n - 1].size(), 1])?;
    }
    for m in &mats {
        if m.ndim() != 2 {
            return Err(Error::LinAlg(format!("{}-dimensional array given. Array must be two-dimensional", m.ndim())));
        }
        same_device("multi_dot", &mats[0], m)?;
    }
    let result = if n == 3 {
        let (a, b, c) = (&mats[0], &mats[1], &mats[2]);
        let (a0, a1b0, b1c0, c1) = (a.shape()[0], a.shape()[1], b.shape()[1], c.shape()[1]);
        let cost1 = a0 * b1c0 * (a1b0 + c1);
        let cost2 = a1b0 * c1 * (a0 + b1c0);
        if cost1 < cost2 {
            dot(&dot(a, b)?, c)?
        } else {
            dot(a, &dot(b, c)?)?
        }
    } else {
        let order = chain_order(&mats);
        chain_product(&mats, &order, 0, n - 1)?
    };
    match (first_1d, last_1d) {
        (true, true) => result.reshape(Vec::<usize>::new()),
        (true, false) | (false, true) => result.ravel(),
        (false, false) => Ok(result),
    }
}

/// The matrix-chain order (NumPy's `_multi_dot_matrix_chain_order`): `s[i][j]` is where the
/// product of matrices `i..=j` splits.
fn chain_order(mats: &[Array]) -> Vec<Vec<usize>> {
    let n = mats.len();
    let p: Vec<usize> = mats.iter().map(|m| m.shape()[0]).chain([mats[n - 1].shape()[1]]).collect();
    let mut cost = vec![vec![0usize; n]; n];
    let mut s = vec![vec![0usize; n]; n];
    for l in 1..n {
        for i in 0..n - l {
            let j = i + l;
            cost[i][j] = usize::MAX;
            for k in i..j {
                let q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
                if q < cost[i][j] {
                    cost[i][j] = q;
                    s[i][j] = k;
                }
            }
        }
    }
    s
}

fn chain_product(mats: &[Array], s: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
    if i == j {
        return Ok(mats[i].view());
    }
    dot(&chain_product(mats, s, i, s[i][j])?, &chain_product(mats, s, s[i][j] + 1, j)?)
}
