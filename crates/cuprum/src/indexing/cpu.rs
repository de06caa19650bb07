//! The CPU indexing kernels, with the signatures of `indexing/cuda.rs`: rows of bytes moved
//! between C-contiguous host arrays, index arrays of any integer dtype (broadcast to one
//! shape, C-contiguous), negative indices counted from the end, the first out-of-range index
//! reported as `(axis, value)` before anything is written.

use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// An out-of-range index found by a kernel: `(axis, value)`.
pub(crate) type BadIndex = Option<(usize, i64)>;

/// The values of an index array (unsigned values above `i64::MAX` wrap to negative ones and
/// are reported as they are by [`positions`]).
fn index_values(idx: &Array) -> Result<Vec<i64>> {
    if idx.dtype() == DType::UInt64 {
        return Ok(idx.to_vec::<u64>()?.into_iter().map(|v| v as i64).collect());
    }
    idx.to_vec_as::<i64>()
}

/// Row positions (C order over the leading axes of lengths `lens`) that the index arrays
/// select, or the first bad index. Unsigned indices never count from the end.
fn positions(idx: &[&Array], lens: &[usize]) -> Result<std::result::Result<Vec<usize>, (usize, i64)>> {
    let n = idx.first().map_or(0, |i| i.size());
    let mut pos = vec![0usize; n];
    let mut stride = 1usize;
    for d in (0..idx.len()).rev() {
        let signed = idx[d].dtype().is_signed_int();
        let len = lens[d] as i64;
        for (p, &i) in pos.iter_mut().zip(&index_values(idx[d])?) {
            let j = if signed && i < 0 { i + len } else { i };
            if j < 0 || j >= len || (!signed && (i as u64) >= len as u64) {
                return Ok(Err((d, i)));
            }
            *p += j as usize * stride;
        }
        stride *= lens[d];
    }
    Ok(Ok(pos))
}

/// `out[o, r, :] = src[o, pos(r), :]` for each of `outer` blocks of `nsrc` rows of
/// `row_bytes` bytes (`take` along an axis: `outer` > 1; `a[i0, i1]`: one block).
pub(crate) fn gather(
    src: &Array,
    idx: &[&Array],
    lens: &[usize],
    outer: usize,
    nsrc: usize,
    row_bytes: usize,
    out: &Array,
) -> Result<BadIndex> {
    let pos = match positions(idx, lens)? {
        Ok(p) => p,
        Err(bad) => return Ok(Some(bad)),
    };
    let s = src.to_bytes()?;
    let mut o = vec![0u8; outer * pos.len() * row_bytes];
    for b in 0..outer {
        for (n, &p) in pos.iter().enumerate() {
            let (to, from) = ((b * pos.len() + n) * row_bytes, (b * nsrc + p) * row_bytes);
            o[to..to + row_bytes].copy_from_slice(&s[from..from + row_bytes]);
        }
    }
    crate::ufunc::assign(out, &Array::from_bytes(&o, out.shape(), out.dtype(), &out.device())?)?;
    Ok(None)
}

/// The first out-of-range index, if any.
pub(crate) fn check(idx: &[&Array], lens: &[usize]) -> Result<BadIndex> {
    Ok(positions(idx, lens)?.err())
}

/// `dst[pos(r), :] = vals[r, :]` in order (so the last write to a place wins); with
/// `cycle = Some(m)` the values repeat every `m` rows. The indices are checked.
pub(crate) fn scatter(
    dst: &Array,
    idx: &[&Array],
    lens: &[usize],
    row_bytes: usize,
    vals: &Array,
    cycle: Option<usize>,
    _last_wins: bool,
) -> Result<()> {
    let Ok(pos) = positions(idx, lens)? else { return Ok(()) };
    let mut t = dst.to_bytes()?;
    let v = vals.to_bytes()?;
    for (n, &p) in pos.iter().enumerate() {
        let s = cycle.map_or(n, |m| n % m);
        t[p * row_bytes..(p + 1) * row_bytes].copy_from_slice(&v[s * row_bytes..(s + 1) * row_bytes]);
    }
    crate::ufunc::assign(dst, &Array::from_bytes(&t, dst.shape(), dst.dtype(), &dst.device())?)
}

/// NumPy's `add.at`: `dst[pos(r), :] += vals[r, :]`, unbuffered (repeated places add up;
/// integers wrap, floats round to the dtype at each add, bool is a logical or).
pub(crate) fn scatter_add(dst: &Array, idx: &[&Array], lens: &[usize], row: usize, vals: &Array) -> Result<()> {
    let Ok(pos) = positions(idx, lens)? else { return Ok(()) };
    let dt = dst.dtype();
    let out = if dt.is_complex() {
        // Each part rounded to the dtype's part at each add (as NumPy's complex64 loop).
        type C = num_complex::Complex<f64>;
        let part = dt.real_dtype();
        let mut t = dst.to_vec_as::<C>()?;
        let v = vals.to_vec_as::<C>()?;
        for (n, &p) in pos.iter().enumerate() {
            for r in 0..row {
                let s = t[p * row + r] + v[n * row + r];
                t[p * row + r] = C::new(
                    crate::backend::cpu::round_scalar(part, s.re),
                    crate::backend::cpu::round_scalar(part, s.im),
                );
            }
        }
        crate::from_slice(&t, dst.shape(), &dst.device())?.astype(dt)?
    } else if dt.is_float() {
        let mut t = dst.to_vec_as::<f64>()?;
        let v = vals.to_vec_as::<f64>()?;
        for (n, &p) in pos.iter().enumerate() {
            for r in 0..row {
                t[p * row + r] = crate::backend::cpu::round_scalar(dt, t[p * row + r] + v[n * row + r]);
            }
        }
        crate::from_slice(&t, dst.shape(), &dst.device())?.astype(dt)?
    } else {
        let mut t = dst.to_vec_as::<i64>()?;
        let v = vals.to_vec_as::<i64>()?;
        for (n, &p) in pos.iter().enumerate() {
            for r in 0..row {
                t[p * row + r] = t[p * row + r].wrapping_add(v[n * row + r]);
            }
        }
        crate::from_slice(&t, dst.shape(), &dst.device())?.astype(dt)?
    };
    crate::ufunc::assign(dst, &out)
}

/// `take_along_axis`: `out[..., j, ...] = src[..., idx[..., j, ...], ...]` along `axis` (of
/// length `alen` in `src`); `src` and `idx` have `out`'s shape but for `axis`.
pub(crate) fn take_along(src: &Array, idx: &Array, axis: usize, alen: usize, out: &Array) -> Result<Option<i64>> {
    let shape = out.shape();
    let signed = idx.dtype().is_signed_int();
    let iv = index_values(&idx.as_contiguous()?)?;
    let isz = src.itemsize();
    let sb = src.as_contiguous()?.to_bytes()?;
    let inner: usize = shape[axis + 1..].iter().product();
    let m = shape[axis];
    let mut o = vec![0u8; iv.len() * isz];
    for (e, &i) in iv.iter().enumerate() {
        let j = if signed && i < 0 { i + alen as i64 } else { i };
        if j < 0 || j >= alen as i64 || (!signed && (i as u64) >= alen as u64) {
            return Ok(Some(i));
        }
        let (outer, r) = (e / (m * inner), e % inner);
        let s = (outer * alen + j as usize) * inner + r;
        o[e * isz..(e + 1) * isz].copy_from_slice(&sb[s * isz..(s + 1) * isz]);
    }
    crate::ufunc::assign(out, &Array::from_bytes(&o, shape, out.dtype(), &out.device())?)?;
    Ok(None)
}
