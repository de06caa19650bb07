//! The GPU correlation (`correlate.cu`). 2-d: tiles with their halos in shared memory, the
//! boundary rule applied once per loaded element, several outputs a thread. Other ranks (SciPy's
//! N-d `correlate` of 3 and more dimensions): the input padded with the fill value once, then a
//! generic kernel, `ND_RX` outputs of one row a thread, over the taps in C order, the offsets
//! of the kernel's tap rows in the padded input precomputed on the host.

use super::{Boundary, Correlation};
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::slice::SliceElem;

/// Threads per block in x and y, and outputs per thread along y: tiles of 32 × 32 outputs.
const TX: u32 = 32;
const TY: u32 = 8;
const RY: u32 = 4;
/// Shared memory a tile may take (the default limit).
const SHARED_BYTES: usize = 48 * 1024;
/// The register-blocked kernel: threads per block in x and y, outputs a thread in x and y
/// (tiles of 64 × 32 outputs), and the widest kernel it is compiled for.
const RTX: u32 = 16;
const RTY: u32 = 8;
const RRX: u32 = 4;
const RRY: u32 = 4;
const MAX_KW: usize = 32;
/// The same kernel for outputs of one row (NumPy's 1-d convolve): 128 threads of 8 outputs, a
/// block covers 1,024 outputs.
const ROW_TX: u32 = 128;
const ROW_RX: u32 = 8;
/// The N-d kernel: threads per block along an output row, and outputs a thread (`ND_TX` apart,
/// so that a warp's loads are contiguous): a block covers 512 outputs of one row.
const ND_TX: u32 = 128;
const ND_RX: u32 = 4;

/// How a correlation kernel reads its input.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// A sliding window in registers over a tile in shared memory (`corr2d_r`; the kernel's
    /// width compiled in).
    Regs { kw: u32 },
    /// As `Regs`, shaped for a single row of outputs (1 × 1,024 a block).
    Row { kw: u32 },
    /// A tile in shared memory, one column of outputs a thread (`corr2d`).
    Shared,
    /// Straight from global memory through the boundary rule per tap (`corr2d_g`).
    Global,
    /// Any rank, from an input padded beforehand (`corrnd`; `boundary` unused).
    Nd,
}

/// One correlation kernel: the dtype, the boundary and the variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CorrKey {
    pub dtype: DType,
    pub boundary: Boundary,
    pub variant: Variant,
    /// Read the kernel reversed along both axes (a convolution).
    pub flip: bool,
}

/// The accumulator's C type and its size for `dt`.
fn acc_of(dt: DType) -> (&'static str, usize) {
    match dt {
        DType::Float64 => ("double", 8),
        DType::Float32 | DType::Float16 => ("float", 4),
        DType::Bool => ("int", 4),
        _ => ("unsigned long long", 8),
    }
}

impl KernelKey for CorrKey {
    const FAMILY: &'static str = "signal";
    fn entry(&self) -> &str {
        match self.variant {
            Variant::Regs { .. } | Variant::Row { .. } => "corr2d_r",
            Variant::Shared => "corr2d",
            Variant::Global => "corr2d_g",
            Variant::Nd => "corrnd",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        match self.variant {
            Variant::Regs { kw } => vec![
                ("TX", RTX.to_string()),
                ("TY", RTY.to_string()),
                ("RX", RRX.to_string()),
                ("RY", RRY.to_string()),
                ("KW", kw.to_string()),
            ],
            Variant::Row { kw } => vec![
                ("TX", ROW_TX.to_string()),
                ("TY", "1".to_string()),
                ("RX", ROW_RX.to_string()),
                ("RY", "1".to_string()),
                ("KW", kw.to_string()),
            ],
            Variant::Nd => vec![("TX", ND_TX.to_string()), ("RX", ND_RX.to_string())],
            _ => vec![("TX", TX.to_string()), ("TY", TY.to_string()), ("RY", RY.to_string())],
        }
    }
    fn source(&self) -> String {
        let t = storage_ty(self.dtype);
        let (a, _) = acc_of(self.dtype);
        let (load, store, muladd) = match self.dtype {
            DType::Float16 => ("h2f(v)", "f2h(a)", "((acc) + (x) * (w))"),
            DType::Float32 | DType::Float64 => ("(v)", "(a)", "((acc) + (x) * (w))"),
            DType::Bool => ("((int)(v))", "((a) != 0)", "((acc) | ((x) & (w)))"),
            // Integers wrap in 64 bits (signed values sign-extended): the low bits are the
            // narrow type's.
            d if d.is_signed_int() => ("((unsigned long long)(long long)(v))", "((T)(a))", "((acc) + (x) * (w))"),
            _ => ("((unsigned long long)(v))", "((T)(a))", "((acc) + (x) * (w))"),
        };
        let b = match self.boundary {
            Boundary::Fill => 0,
            Boundary::Wrap => 1,
            Boundary::Symm => 2,
        };
        format!(
            "{PRELUDE}#define VARIANT_{v}\ntypedef {t} T;\ntypedef {a} A;\n#define LOAD(v) {load}\n#define STORE(a) {store}\n\
             #define MULADD(acc, x, w) {muladd}\n#define BOUNDARY {b}\n#define FLIP {flip}\n{body}",
            flip = self.flip as i32,
            v = match self.variant {
                Variant::Regs { .. } | Variant::Row { .. } => "REGS",
                Variant::Shared => "SHARED",
                Variant::Global => "GLOBAL",
                Variant::Nd => "ND",
            },
            body = include_str!("correlate.cu"),
        )
    }
}

/// The correlation `c` into `out` (C-contiguous, `c.out_shape`, the dtype of `c.x`): 2-d ones
/// on the tiled kernels, others on the generic N-d kernel.
pub(crate) fn correlate(c: &Correlation<'_>, out: &Array) -> Result<()> {
    if c.x.ndim() != 2 {
        return correlate_nd(c, out);
    }
    let dev = dev_of(out)?;
    let dt = c.x.dtype();
    let (h, w) = (c.x.shape()[0], c.x.shape()[1]);
    let (kh, kw) = (c.w.shape()[0], c.w.shape()[1]);
    let (oh, ow) = (c.out_shape[0], c.out_shape[1]);
    if kh > i32::MAX as usize || kw > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("a {kh} x {kw} kernel on the GPU")));
    }
    let (_, asize) = acc_of(dt);
    // The register-blocked kernels pad each tile row by one slot every RX columns.
    let padded = |cols: usize, rx: u32| cols + cols / rx as usize + 1;
    let regs_tile = ((RTY * RRY) as usize + kh - 1) * padded((RTX * RRX) as usize + kw - 1, RRX) * asize;
    let tile = ((TY * RY) as usize + kh - 1) * (TX as usize + kw - 1) * asize;
    let row_tile = kh * padded((ROW_TX * ROW_RX) as usize + kw - 1, ROW_RX) * asize;
    let (variant, bytes, (tx, ty), (ox_per, oy_per)) = if oh == 1 && kw <= MAX_KW && row_tile <= SHARED_BYTES {
        (Variant::Row { kw: kw as u32 }, row_tile, (ROW_TX, 1), (ROW_TX * ROW_RX, 1))
    } else if kw <= MAX_KW && regs_tile <= SHARED_BYTES {
        (Variant::Regs { kw: kw as u32 }, regs_tile, (RTX, RTY), (RTX * RRX, RTY * RRY))
    } else if tile <= SHARED_BYTES {
        (Variant::Shared, tile, (TX, TY), (TX, TY * RY))
    } else {
        (Variant::Global, 0, (TX, TY), (TX, TY))
    };
    let k = dev.kernel(&CorrKey { dtype: dt, boundary: c.boundary, variant, flip: c.flip })?;
    let mut p = Params::new();
    p.push(dptr(c.x)?);
    p.push(h as i64);
    p.push(w as i64);
    p.push(dptr(c.w)?);
    p.push(kh as i32);
    p.push(kw as i32);
    p.push(dptr(out)?);
    p.push(oh as i64);
    p.push(ow as i64);
    p.push(c.offset[0]);
    p.push(c.offset[1]);
    match dt {
        DType::Float64 => p.push(f64::from_scalar(c.fill)),
        DType::Float32 | DType::Float16 => p.push(f64::from_scalar(c.fill) as f32),
        DType::Bool => p.push(bool::from_scalar(c.fill) as i32),
        d if d.is_unsigned_int() => p.push(u64::from_scalar(c.fill)),
        _ => p.push(i64::from_scalar(c.fill) as u64),
    }
    let gx = ow.div_ceil(ox_per as usize);
    let gy = oh.div_ceil(oy_per as usize);
    if gx > u32::MAX as usize || gy > 65535 {
        return Err(Error::NotImplemented(format!("a {oh} x {ow} correlation output on the GPU")));
    }
    // SAFETY: the parameters match `corr2d_r`/`corr2d`/`corr2d_g` in correlate.cu; `x`, `w` and
    // `out` are C-contiguous arrays of the kernel's dtype that stay valid until the stream has
    // run it, and `bytes` of shared memory hold the tile with its halo.
    unsafe { p.launch_2d(&dev, &k, (gx as u32, gy as u32), (tx, ty), bytes as u32) }
}

/// `corrnd`'s table for a kernel of shape `ks` and an output of shape `o` (the padded input's
/// shape is `o + ks - 1`): the offset in the padded input of each tap row (C order over the
/// kernel's leading axes), then the output's leading lengths, then the padded input's strides
/// (in elements) along them.
fn nd_table(ks: &[usize], o: &[usize]) -> Vec<i64> {
    let lead = ks.len() - 1;
    let ps: Vec<usize> = ks.iter().zip(o).map(|(k, o)| o + k - 1).collect();
    let mut strides = vec![ps[lead] as i64; lead];
    for i in (0..lead.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * ps[i + 1] as i64;
    }
    let tap_rows: usize = ks[..lead].iter().product();
    let mut tab = Vec::with_capacity(tap_rows + 2 * lead);
    for t in 0..tap_rows {
        let (mut rem, mut off) = (t, 0i64);
        for ax in (0..lead).rev() {
            off += (rem % ks[ax]) as i64 * strides[ax];
            rem /= ks[ax];
        }
        tab.push(off);
    }
    tab.extend(o[..lead].iter().map(|&v| v as i64));
    tab.extend_from_slice(&strides);
    tab
}

/// The correlation `c` (any rank but 2, the `Fill` boundary) into `out`: the input padded with
/// the fill value to `out_shape + k - 1` along each axis (SciPy's zero padding; in 'valid' mode
/// the input itself), then `corrnd`.
fn correlate_nd(c: &Correlation<'_>, out: &Array) -> Result<()> {
    let d = c.x.ndim();
    if c.boundary != Boundary::Fill {
        return Err(Error::NotImplemented(format!(
            "a {d}-d correlation with the {:?} boundary on the GPU",
            c.boundary
        )));
    }
    let dev = dev_of(out)?;
    let dt = c.x.dtype();
    let (n, ks, o) = (c.x.shape(), c.w.shape(), &c.out_shape[..]);
    let ps: Vec<usize> = (0..d).map(|i| o[i] + ks[i] - 1).collect();
    let xp = if ps == n && c.offset.iter().all(|&v| v == 0) {
        c.x.view()
    } else {
        let p = crate::full(&ps, c.fill, dt, &out.device())?;
        // Input index s sits at padded index s + offset: the part of x inside the padding.
        let mut src = Vec::with_capacity(d);
        let mut dst = Vec::with_capacity(d);
        for i in 0..d {
            let (off, len, plen) = (c.offset[i], n[i] as i64, ps[i] as i64);
            let (s0, s1) = ((-off).clamp(0, len), (plen - off).clamp(0, len));
            let piece = |a: i64, b: i64| SliceElem::Slice { start: Some(a as isize), end: Some(b as isize), step: 1 };
            src.push(piece(s0, s1.max(s0)));
            dst.push(piece(s0 + off, s1.max(s0) + off));
        }
        let part = c.x.slice(&src)?;
        if part.size() > 0 {
            p.slice(&dst)?.assign(&part)?;
        }
        p
    };
    let lead = d - 1;
    let (kw, ow) = (ks[lead], o[lead]);
    if kw > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("a kernel of {kw} columns on the GPU")));
    }
    let tap_rows: usize = ks[..lead].iter().product();
    let tab = crate::from_vec(nd_table(ks, o), &out.device())?;
    let rows: usize = o[..lead].iter().product();
    let cb = ow.div_ceil((ND_TX * ND_RX) as usize);
    let blocks = rows * cb;
    if blocks > i32::MAX as usize {
        return Err(Error::NotImplemented(format!(
            "a correlation output of shape {} on the GPU",
            crate::core::error::shape_str(o)
        )));
    }
    let k = dev.kernel(&CorrKey { dtype: dt, boundary: Boundary::Fill, variant: Variant::Nd, flip: c.flip })?;
    let mut p = Params::new();
    p.push(dptr(&xp)?);
    p.push(dptr(c.w)?);
    p.push(dptr(out)?);
    p.push(dptr(&tab)?);
    p.push(lead as i32);
    p.push(tap_rows as i64);
    p.push(kw as i32);
    p.push(ow as i64);
    p.push(cb as i64);
    // SAFETY: the parameters match `corrnd` in correlate.cu; `xp` (of shape `ps`), `w` and
    // `out` are C-contiguous arrays of the kernel's dtype, `tab` holds `tap_rows + 2 * lead`
    // int64 values; all stay alive (or, dropped, go back to the stream-ordered pool) until the
    // stream has run the kernel. Every read is inside `xp`: output (o, c) with c < ow reads
    // p[o + t] along each axis, at most ps - 1.
    unsafe { p.launch(&dev, &k, blocks as u32, ND_TX) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// `corrnd`'s table: tap rows in C order, the output's leading lengths, the padded strides.
    #[test]
    fn nd_table_layout() {
        // Kernel (2, 3, 4), output (5, 6, 7): padded (6, 8, 10), strides 80 and 10 elements.
        assert_eq!(nd_table(&[2, 3, 4], &[5, 6, 7]), vec![0, 10, 20, 80, 90, 100, 5, 6, 80, 10]);
        // 4-d: kernel (2, 1, 2, 3), output (3, 2, 4, 5): padded (4, 2, 5, 7).
        let t = nd_table(&[2, 1, 2, 3], &[3, 2, 4, 5]);
        assert_eq!(t, vec![0, 7, 70, 77, 3, 2, 4, 70, 35, 7]);
        // 1-d: one tap row at 0, no leading axes.
        assert_eq!(nd_table(&[3], &[9]), vec![0]);
    }

    /// Every dtype, boundary and variant: the prelude selects one kernel and (where NVRTC is
    /// present) it compiles.
    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        for dtype in ALL_DTYPES {
            for boundary in [Boundary::Fill, Boundary::Wrap, Boundary::Symm] {
                for variant in [
                    Variant::Regs { kw: 15 },
                    Variant::Regs { kw: 2 },
                    Variant::Row { kw: 15 },
                    Variant::Shared,
                    Variant::Global,
                    Variant::Nd,
                ] {
                    let k = CorrKey { dtype, boundary, variant, flip: boundary == Boundary::Wrap };
                    let src = k.source();
                    assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}");
                    if boundary == Boundary::Symm || dtype == DType::Float64 {
                        compiled += check_compiles(&k) as usize;
                    }
                }
            }
        }
        eprintln!("signal kernels: {compiled} compiled by NVRTC");
    }
}
