//! The CPU side of the linalg dispatch: stacks of matrices in CPU arrays seen as faer views
//! (no copy, any strides, broadcast batch dimensions included), each matrix handed to the
//! faer core of `dense.rs` (its tests: `tests.rs`). A stack of many small matrices runs matrices in parallel (each on
//! one thread); a few large ones run one after the other, each on all cores.

mod dense;

use crate::array::Array;
use crate::backend::storage::{CpuLocks, Storage};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
pub(crate) use dense::QrMode;
use dense::{LinalgErr, Re, Scalar};
use faer::traits::num_traits::{Float, Zero};
use faer::{Mat, MatMut, MatRef, Par};
use num_complex::Complex;
use rayon::prelude::*;
use std::marker::PhantomData;

/// Runs `$body` with `$t` the Rust element type of the linalg dtype `$dt`.
macro_rules! with_scalar {
    ($dt:expr, $t:ident => $body:expr) => {
        match $dt {
            DType::Float32 => {
                type $t = f32;
                $body
            }
            DType::Float64 => {
                type $t = f64;
                $body
            }
            DType::Complex64 => {
                type $t = Complex<f32>;
                $body
            }
            DType::Complex128 => {
                type $t = Complex<f64>;
                $body
            }
            other => Err(Error::UnsupportedDType { op: "linalg".into(), dtype: other }),
        }
    };
}

/// Element offsets of every index of a batch shape with these element strides, in C order.
fn offsets(batch: &[usize], strides: &[isize]) -> Vec<isize> {
    let mut offs = vec![0isize];
    for (&d, &s) in batch.iter().zip(strides) {
        offs = offs.iter().flat_map(|&o| (0..d as isize).map(move |i| o + i * s)).collect();
    }
    offs
}

/// A stack of matrices in a CPU array of element type `T`: the array's last two axes are the
/// matrices' rows and columns, the others the stack (strides in elements, 0 where broadcast).
struct Mats<T> {
    base: usize,
    offs: Vec<isize>,
    m: usize,
    n: usize,
    rs: isize,
    cs: isize,
    _t: PhantomData<T>,
}

impl<T> Mats<T> {
    /// The stack held by `a` (at least 2-d, element type `T`).
    fn of(a: &Array) -> Mats<T> {
        let nd = a.ndim();
        debug_assert!(nd >= 2 && a.itemsize() == std::mem::size_of::<T>());
        let isz = a.itemsize() as isize;
        let st: Vec<isize> = a.strides().iter().map(|s| s / isz).collect();
        Mats {
            base: a.cpu_ptr().get() as usize,
            offs: offsets(&a.shape()[..nd - 2], &st[..nd - 2]),
            m: a.shape()[nd - 2],
            n: a.shape()[nd - 1],
            rs: st[nd - 2],
            cs: st[nd - 1],
            _t: PhantomData,
        }
    }

    fn len(&self) -> usize {
        self.offs.len()
    }

    /// Matrix `i`.
    ///
    /// # Safety
    /// `i < len()`, the array is alive and read-locked for as long as the view is used.
    unsafe fn get(&self, i: usize) -> MatRef<'_, T> {
        let p = (self.base as *const T).wrapping_offset(self.offs[i]);
        // SAFETY: the caller's contract; the dimensions and strides are the array's own, so
        // every element the view reaches lies in the array's storage.
        unsafe { MatRef::from_raw_parts(p, self.m, self.n, self.rs, self.cs) }
    }

    /// Matrix `i`, to write.
    ///
    /// # Safety
    /// `i < len()`, the array is alive, write-locked, not broadcast, and no other view of
    /// matrix `i` is used at the same time.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get_mut(&self, i: usize) -> MatMut<'_, T> {
        let p = (self.base as *mut T).wrapping_offset(self.offs[i]);
        // SAFETY: as `get`; the caller guarantees exclusive access to matrix `i`.
        unsafe { MatMut::from_raw_parts_mut(p, self.m, self.n, self.rs, self.cs) }
    }
}

/// Copies `src` into matrix `i` of `dst`.
///
/// # Safety
/// As [`Mats::get_mut`].
unsafe fn put<T: Scalar>(dst: &Mats<T>, i: usize, src: MatRef<'_, T>) {
    // SAFETY: the caller's contract.
    let mut d = unsafe { dst.get_mut(i) };
    d.copy_from(src);
}

/// Locks `a` to read and the outputs given to write, for the length of one call.
fn lock_outputs<'a>(a: &'a Array, outs: &[Option<&'a Array>]) -> CpuLocks<'a> {
    let writes: Vec<&Storage> = outs.iter().flatten().map(|x| &*x.storage).collect();
    CpuLocks::new(&[&a.storage], &writes)
}

/// Runs `f(i, par)` for the `count` matrices of a stack of `m×n` matrices: in parallel over
/// the stack (each call sequential) when there are several small matrices, else one after the
/// other with faer on all cores. Returns the first error.
fn each(
    count: usize,
    m: usize,
    n: usize,
    f: impl Fn(usize, Par) -> std::result::Result<(), LinalgErr> + Sync,
) -> Result<()> {
    // One thread per matrix up to 512: measured on the 16-core GPU host, a 512² QR takes 17 ms
    // on one thread and 55 on all sixteen (det: 2.2 against 9.8 ms); larger matrices use every
    // core, and a stack of matrices up to 512 runs matrices in parallel.
    let small = m.max(n) <= 512;
    let r = if count > 1 && small {
        (0..count).into_par_iter().try_for_each(|i| f(i, Par::Seq))
    } else {
        let par = if small { Par::Seq } else { Par::rayon(0) };
        (0..count).try_for_each(|i| f(i, par))
    };
    r.map_err(|e| Error::LinAlg(e.message().into()))
}

/// `out = a @ b` for stacks (`a`: `(..., m, k)`, `b`: `(..., k, n)`, both broadcast to the
/// output's batch; `out`: `(..., m, n)` C-contiguous), in float32, float64, complex64 or
/// complex128.
pub(crate) fn matmul(a: &Array, b: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    with_scalar!(out.dtype(), T => {
        let (ma, mb, mo) = (Mats::<T>::of(a), Mats::<T>::of(b), Mats::<T>::of(out));
        let flops = ma.m * ma.n * mb.n;
        let par_each = mo.len() > 1 && flops <= 1 << 18;
        let run = |i: usize, par: Par| {
            // SAFETY: `i` < the stack's length; the three arrays are locked above, `out` is
            // C-contiguous and not broadcast, and each `i` is written by one call only.
            unsafe { dense::matmul(mo.get_mut(i), ma.get(i), mb.get(i), par) };
        };
        if par_each {
            (0..mo.len()).into_par_iter().for_each(|i| run(i, Par::Seq));
        } else {
            let par = if flops <= 1 << 15 { Par::Seq } else { Par::rayon(0) };
            (0..mo.len()).for_each(|i| run(i, par));
        }
        Ok(())
    })
}

/// An integer or boolean element for [`matmul_exact`]: NumPy's integer matmul wraps; the
/// boolean one is `or` of `and`s.
pub(crate) trait ExactElem: Copy + Default + Send + Sync + 'static {
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
}
macro_rules! exact_int {
    ($($t:ty),*) => {$(
        impl ExactElem for $t {
            #[inline]
            fn mul_add(acc: Self, a: Self, b: Self) -> Self {
                acc.wrapping_add(a.wrapping_mul(b))
            }
        }
    )*};
}
exact_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl ExactElem for bool {
    #[inline]
    fn mul_add(acc: Self, a: Self, b: Self) -> Self {
        acc | (a & b)
    }
}

/// `out = a @ b` for integer and boolean stacks (as [`matmul`]), NumPy's wrapping arithmetic:
/// each output row is accumulated over `k` in order (`i`-`k`-`j` loops), rows in parallel.
pub(crate) fn matmul_exact(a: &Array, b: &Array, out: &Array) -> Result<()> {
    fn run<T: ExactElem>(a: &Array, b: &Array, out: &Array) {
        let (ma, mb, mo) = (Mats::<T>::of(a), Mats::<T>::of(b), Mats::<T>::of(out));
        let (m, k, n) = (ma.m, ma.n, mb.n);
        let rows = mo.len() * m;
        let row = |r: usize| {
            let (i, row) = (r / m, r % m);
            let pa = (ma.base as *const T).wrapping_offset(ma.offs[i] + row as isize * ma.rs);
            let pb = (mb.base as *const T).wrapping_offset(mb.offs[i]);
            let po = (mo.base as *mut T).wrapping_offset(mo.offs[i] + row as isize * mo.rs);
            let mut acc = vec![T::default(); n];
            for p in 0..k {
                // SAFETY: `(row, p)` is inside matrix `i` of `a`, `(p, j)` inside matrix `i`
                // of `b`; the arrays are read-locked by the caller.
                let x = unsafe { *pa.wrapping_offset(p as isize * ma.cs) };
                let pbr = pb.wrapping_offset(p as isize * mb.rs);
                for (j, s) in acc.iter_mut().enumerate() {
                    // SAFETY: as above.
                    *s = T::mul_add(*s, x, unsafe { *pbr.wrapping_offset(j as isize * mb.cs) });
                }
            }
            for (j, s) in acc.into_iter().enumerate() {
                // SAFETY: `(row, j)` of matrix `i` of the C-contiguous `out`, write-locked by
                // the caller and written by this row's call only.
                unsafe { *po.wrapping_offset(j as isize * mo.cs) = s };
            }
        };
        if rows * k * n >= 1 << 16 {
            (0..rows).into_par_iter().for_each(row);
        } else {
            (0..rows).for_each(row);
        }
    }
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    match out.dtype() {
        DType::Bool => run::<bool>(a, b, out),
        DType::Int8 => run::<i8>(a, b, out),
        DType::Int16 => run::<i16>(a, b, out),
        DType::Int32 => run::<i32>(a, b, out),
        DType::Int64 => run::<i64>(a, b, out),
        DType::UInt8 => run::<u8>(a, b, out),
        DType::UInt16 => run::<u16>(a, b, out),
        DType::UInt32 => run::<u32>(a, b, out),
        DType::UInt64 => run::<u64>(a, b, out),
        other => return Err(Error::UnsupportedDType { op: "matmul".into(), dtype: other }),
    }
    Ok(())
}

/// Writes `v` (one value per matrix of the stack) into the C-contiguous array `out`.
///
/// # Safety
/// `out` is a write-locked C-contiguous CPU array of element type `E` with at least `i + 1`
/// elements, and element `i` is written by this call only.
unsafe fn put_at<E>(out: usize, i: usize, v: E) {
    // SAFETY: the caller's contract.
    unsafe { *(out as *mut E).add(i) = v };
}

/// `numpy.linalg.slogdet` of a stack: `sign` (the stack's dtype) and `logdet` (its real
/// dtype), both C-contiguous of the batch shape.
pub(crate) fn slogdet(a: &Array, sign: &Array, logdet: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage], &[&sign.storage, &logdet.storage]);
    with_scalar!(a.dtype(), T => {
        let ma = Mats::<T>::of(a);
        let (ps, pl) = (sign.cpu_ptr().get() as usize, logdet.cpu_ptr().get() as usize);
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack, the arrays are locked above, element `i` of the
            // outputs belongs to this call.
            let (s, l) = dense::slogdet(unsafe { ma.get(i) }, par);
            // SAFETY: as above.
            unsafe {
                put_at::<T>(ps, i, s);
                put_at::<Re<T>>(pl, i, l);
            }
            Ok(())
        })
    })
}

/// `numpy.linalg.inv` of a stack into the C-contiguous `out`.
pub(crate) fn inv(a: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage], &[&out.storage]);
    with_scalar!(a.dtype(), T => {
        let (ma, mo) = (Mats::<T>::of(a), Mats::<T>::of(out));
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack; locked above; matrix `i` of `out` is this call's.
            let x = dense::inv(unsafe { ma.get(i) }, par)?;
            // SAFETY: as above.
            unsafe { put(&mo, i, x.as_ref()) };
            Ok(())
        })
    })
}

/// `numpy.linalg.solve` of stacks: `a` `(..., n, n)`, `b` `(..., n, k)` broadcast to the
/// batch, into the C-contiguous `out` `(..., n, k)`.
pub(crate) fn solve(a: &Array, b: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    with_scalar!(a.dtype(), T => {
        let (ma, mb, mo) = (Mats::<T>::of(a), Mats::<T>::of(b), Mats::<T>::of(out));
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack; locked above; matrix `i` of `out` is this call's.
            let x = dense::solve(unsafe { ma.get(i) }, unsafe { mb.get(i) }, par)?;
            // SAFETY: as above.
            unsafe { put(&mo, i, x.as_ref()) };
            Ok(())
        })
    })
}

/// `numpy.linalg.cholesky(a, upper)` of a stack into the C-contiguous `out`.
pub(crate) fn cholesky(a: &Array, upper: bool, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage], &[&out.storage]);
    with_scalar!(a.dtype(), T => {
        let (ma, mo) = (Mats::<T>::of(a), Mats::<T>::of(out));
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack; locked above; matrix `i` of `out` is this call's.
            let l = dense::cholesky(unsafe { ma.get(i) }, upper, par)?;
            // SAFETY: as above.
            unsafe { put(&mo, i, l.as_ref()) };
            Ok(())
        })
    })
}

/// `numpy.linalg.qr(a, mode)` of a stack: `q` (absent for mode `'r'`) and `r`, C-contiguous
/// of the shapes `mode` gives.
pub(crate) fn qr(a: &Array, mode: QrMode, q: Option<&Array>, r: &Array) -> Result<()> {
    let _l = lock_outputs(a, &[Some(r), q]);
    with_scalar!(a.dtype(), T => {
        let (ma, mr) = (Mats::<T>::of(a), Mats::<T>::of(r));
        let mq = q.map(Mats::<T>::of);
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack; locked above; matrix `i` of `q` and `r` is this
            // call's.
            let (qi, ri) = dense::qr(unsafe { ma.get(i) }, mode, par);
            // SAFETY: as above.
            unsafe { put(&mr, i, ri.as_ref()) };
            if let (Some(mq), Some(qi)) = (mq.as_ref(), qi) {
                // SAFETY: as above.
                unsafe { put(mq, i, qi.as_ref()) };
            }
            Ok(())
        })
    })
}

/// Writes the values `w` as row `i` of the C-contiguous `(count, len)` array at `base`.
///
/// # Safety
/// As [`put_at`], for the `w.len()` elements of row `i`.
unsafe fn put_row<E: Copy>(base: usize, i: usize, w: &[E]) {
    for (j, &x) in w.iter().enumerate() {
        // SAFETY: the caller's contract.
        unsafe { put_at::<E>(base, i * w.len() + j, x) };
    }
}

/// `numpy.linalg.eigh(a, UPLO)` / `eigvalsh` of a stack: eigenvalues `w` `(..., n)` (the real
/// dtype) and, when given, eigenvectors `v` `(..., n, n)`, both C-contiguous.
pub(crate) fn eigh(a: &Array, lower: bool, w: &Array, v: Option<&Array>) -> Result<()> {
    let _l = lock_outputs(a, &[Some(w), v]);
    with_scalar!(a.dtype(), T => eigen_stack::<T, Re<T>, T>(a, w, v, |ai, vectors, par| {
        if vectors {
            dense::eigh(ai, lower, par).map(|(vals, vecs)| (vals, Some(vecs)))
        } else {
            Ok((dense::eigvalsh(ai, lower, par)?, None))
        }
    }))
}

/// `numpy.linalg.eig` / `eigvals` of a stack: eigenvalues `w` `(..., n)` and, when given,
/// eigenvectors `v` `(..., n, n)`, both complex (the complex dtype of `a`'s), C-contiguous.
pub(crate) fn eig(a: &Array, w: &Array, v: Option<&Array>) -> Result<()> {
    let _l = lock_outputs(a, &[Some(w), v]);
    with_scalar!(a.dtype(), T => eigen_stack::<T, Complex<Re<T>>, Complex<Re<T>>>(a, w, v, |ai, vectors, par| {
        if vectors {
            dense::eig(ai, par).map(|(vals, vecs)| (vals, Some(vecs)))
        } else {
            Ok((dense::eigvals(ai, par)?, None))
        }
    }))
}

/// The eigen-decompositions' loop over a stack (locked by the caller): `decompose(a_i,
/// vectors, par)` gives matrix `i`'s values, written as row `i` of `w`, and (when `vectors`:
/// `v` is given) its vectors, written as matrix `i` of `v`.
fn eigen_stack<T: Scalar, E: Copy, V: Scalar>(
    a: &Array,
    w: &Array,
    v: Option<&Array>,
    decompose: impl Fn(MatRef<'_, T>, bool, Par) -> std::result::Result<(Vec<E>, Option<Mat<V>>), LinalgErr> + Sync,
) -> Result<()> {
    let ma = Mats::<T>::of(a);
    let mv = v.map(Mats::<V>::of);
    let pw = w.cpu_ptr().get() as usize;
    each(ma.len(), ma.m, ma.n, |i, par| {
        // SAFETY: `i` is in the stack; the caller locked the arrays; row/matrix `i` of the
        // outputs is this call's.
        let (vals, vecs) = decompose(unsafe { ma.get(i) }, mv.is_some(), par)?;
        if let (Some(mv), Some(vecs)) = (mv.as_ref(), vecs) {
            // SAFETY: as above.
            unsafe { put(mv, i, vecs.as_ref()) };
        }
        // SAFETY: as above.
        unsafe { put_row::<E>(pw, i, &vals) };
        Ok(())
    })
}

/// `numpy.linalg.svd(a, full_matrices, compute_uv)` of a stack: `s` `(..., k)` (the real
/// dtype) and, when given, `u` and `vh`, all C-contiguous.
pub(crate) fn svd(a: &Array, full_matrices: bool, u: Option<&Array>, s: &Array, vh: Option<&Array>) -> Result<()> {
    let _l = lock_outputs(a, &[Some(s), u, vh]);
    with_scalar!(a.dtype(), T => {
        let ma = Mats::<T>::of(a);
        let (mu, mvh) = (u.map(Mats::<T>::of), vh.map(Mats::<T>::of));
        let ps = s.cpu_ptr().get() as usize;
        each(ma.len(), ma.m, ma.n, |i, par| {
            // SAFETY: `i` is in the stack; locked above; row/matrices `i` of the outputs are
            // this call's.
            let r = dense::svd(unsafe { ma.get(i) }, full_matrices, mu.is_some(), par)?;
            if let (Some(mu), Some(ui)) = (mu.as_ref(), r.u.as_ref()) {
                // SAFETY: as above.
                unsafe { put(mu, i, ui.as_ref()) };
            }
            if let (Some(mv), Some(vi)) = (mvh.as_ref(), r.vh.as_ref()) {
                // SAFETY: as above.
                unsafe { put(mv, i, vi.as_ref()) };
            }
            // SAFETY: as above.
            unsafe { put_row::<Re<T>>(ps, i, &r.s) };
            Ok(())
        })
    })
}

/// The inner product of the C-contiguous vectors `a` and `b` (one length and dtype; `conj`:
/// `a` conjugated, NumPy's `vdot`) into the 0-d `out`, or with `b` `None` the Euclidean norm
/// of `a` (`out` real): chunks on all cores, eight partial sums each, the chunks' sums added
/// in order (deterministic). The sums are in the element type, as BLAS's `dot` that NumPy
/// calls accumulates.
pub(crate) fn dot_1d(a: &Array, b: Option<&Array>, conj: bool, out: &Array) -> Result<()> {
    fn run<T: Scalar>(a: &Array, b: Option<&Array>, conj: bool, out: &Array) {
        const CHUNK: usize = 1 << 16;
        let n = a.size();
        let zero = T::from_parts(Re::<T>::zero(), Re::<T>::zero());
        let (pa, pb) = (a.cpu_ptr().get() as usize, b.map_or(0, |b| b.cpu_ptr().get() as usize));
        let term = |x: T, y: T| -> T {
            if pb == 0 {
                let (re, im) = (x.re(), x.im());
                T::from_parts(re * re + im * im, Re::<T>::zero())
            } else if conj {
                x.cj() * y
            } else {
                x * y
            }
        };
        let chunk = |c: usize| -> T {
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            // SAFETY: `lo..hi` lies within the vectors of `n` elements, read-locked by the
            // caller (`b`'s pointer is used only when there is a `b`).
            let xs = unsafe { std::slice::from_raw_parts((pa as *const T).add(lo), hi - lo) };
            let ys = if pb == 0 {
                xs
            } else {
                // SAFETY: as above.
                unsafe { std::slice::from_raw_parts((pb as *const T).add(lo), hi - lo) }
            };
            let mut acc = [zero; 8];
            let (xc, yc) = (xs.chunks_exact(8), ys.chunks_exact(8));
            let (xr, yr) = (xc.remainder(), yc.remainder());
            for (x8, y8) in xc.zip(yc) {
                for l in 0..8 {
                    acc[l] = acc[l] + term(x8[l], y8[l]);
                }
            }
            for (l, (&x, &y)) in xr.iter().zip(yr).enumerate() {
                acc[l] = acc[l] + term(x, y);
            }
            let (a4, b4) = (acc[0] + acc[4], acc[1] + acc[5]);
            let (c4, d4) = (acc[2] + acc[6], acc[3] + acc[7]);
            (a4 + c4) + (b4 + d4)
        };
        let parts: Vec<T> = (0..n.div_ceil(CHUNK)).into_par_iter().map(chunk).collect();
        let s = parts.into_iter().fold(zero, |s, p| s + p);
        let po = out.cpu_ptr().get();
        if pb == 0 {
            // SAFETY: `out` is a 0-d array of the real dtype, write-locked by the caller.
            unsafe { *(po as *mut Re<T>) = Float::sqrt(s.re()) };
        } else {
            // SAFETY: `out` is a 0-d array of `T`'s dtype, write-locked by the caller.
            unsafe { *(po as *mut T) = s };
        }
    }
    let mut reads: Vec<&crate::backend::storage::Storage> = vec![&a.storage];
    if let Some(b) = b {
        reads.push(&b.storage);
    }
    let _l = CpuLocks::new(&reads, &[&out.storage]);
    with_scalar!(a.dtype(), T => {
        run::<T>(a, b, conj, out);
        Ok(())
    })
}
