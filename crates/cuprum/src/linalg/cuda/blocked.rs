//! Our own blocked factorizations for stacks of real matrices of up to [`MIDMAX`] rows, where
//! cuSOLVER spends most of its time in a panel (one pivot search or one reflector after
//! another, `getrf_pivot` was 892 of `det_512`'s 1026 µs, one `geqrf` kernel 76% of
//! `qr_512`'s): per panel of [`NB`] columns a kernel that keeps the panel in one block's
//! registers (LU: a row a thread; QR: a warp per two columns) and a kernel for the other
//! columns, every matrix of a stack in the same launches; and the LU of larger matrices with
//! the panel's rows across a thread-block cluster.
//!
//! - LU (`blocked_lu.cu`, orders `small::MAXN + 1 ..= MIDMAX`): LAPACK's `getrf` factors, the
//!   same layout, pivots and `info` as cuSOLVER's, so `getrs` and the determinant read them
//!   alike; `lu_det` turns any real factors into `slogdet` in one launch.
//! - Tall LU ([`getrf_tall`], real orders above `MIDMAX` up to a cluster's rows, Hopper and
//!   later): the same factors, `lu_panel` spread over a cluster of [`CL`] blocks, outer steps of
//!   [`OB`] columns with cuBLAS's trsm and gemm; faster than cuSOLVER's getrf at every order
//!   measured (640 to 6144, float32 and float64: the library test `tall_lu_against_cusolver`).
//! - QR (`blocked_qr.cu`, where [`takes_qr`]: small matrices and stacks; its panel is
//!   latency-bound, so a single `512×512` stays cuSOLVER's): LAPACK's `geqrf` (R and the
//!   reflectors in place) with the block reflectors' `T` (the `tau` on its diagonal), and
//!   `orgqr`'s `Q` from them.

use super::handles::{gemm_sub, trsm, with_handles};
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::{Kernel, KernelKey};
use crate::backend::cuda::launch::{dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Largest order (LU) or number of rows (QR) taken: one block's threads hold a panel's rows.
pub(super) const MIDMAX: usize = 512;
/// Panel width (columns in each thread's registers).
const NB: usize = 32;
/// Columns of an update block.
const W: usize = 4;
/// Matrices per launch at most (the grid's `y`).
const MAXGRIDY: usize = 65535;

/// The entries of `blocked_lu.cu` and `blocked_qr.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Stage {
    LuPanel,
    LuUpdate,
    LuDet,
    LuPanelCluster,
    LuSwapList,
    LuSwapApply,
    LuStepU12,
    QrPanel,
    QrApply,
}

/// One entry of the blocked LU or QR module for a dtype (each module is compiled once per dtype).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BlockedKey {
    dt: DType,
    stage: Stage,
}

impl KernelKey for BlockedKey {
    const FAMILY: &'static str = "linalg";
    fn entry(&self) -> &str {
        match self.stage {
            Stage::LuPanel => "lu_panel",
            Stage::LuUpdate => "lu_update",
            Stage::LuDet => "lu_det",
            Stage::LuPanelCluster => "lu_panel_cluster",
            Stage::LuSwapList => "lu_swap_list",
            Stage::LuSwapApply => "lu_swap_apply",
            Stage::LuStepU12 => "lu_step_u12",
            Stage::QrPanel => "qr_panel",
            Stage::QrApply => "qr_apply",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("NB", NB.to_string()),
            ("W", W.to_string()),
            ("MIDMAX", MIDMAX.to_string()),
            ("CL", CL.to_string()),
            ("MAXT", cluster_threads(self.dt).to_string()),
            ("OB", OB.to_string()),
        ]
    }
    fn source(&self) -> String {
        let t = storage_ty(self.dt);
        let body = match self.stage {
            Stage::LuPanel
            | Stage::LuUpdate
            | Stage::LuDet
            | Stage::LuPanelCluster
            | Stage::LuSwapList
            | Stage::LuSwapApply
            | Stage::LuStepU12 => include_str!("blocked_lu.cu"),
            Stage::QrPanel | Stage::QrApply => include_str!("blocked_qr.cu"),
        };
        format!("{PRELUDE}typedef {t} elem_t;\ntypedef {t} real_t;\n{body}")
    }
}

/// Whether [`getrf`] takes matrices of order `n` and dtype `dt`.
pub(super) fn takes(dt: DType, n: usize) -> bool {
    matches!(dt, DType::Float32 | DType::Float64) && n > super::small::MAXN && n <= MIDMAX
}

/// Blocks of a tall panel's cluster (a portable cluster size on Hopper).
const CL: usize = 8;
/// Columns of an outer step of [`getrf_tall`]: its row interchanges, triangular solve and
/// product with the trailing matrix are made once per `OB` columns, the panels' in between
/// (`probes/lu/tall_lu.py`: 512 against 256, 4096 float64 10.09 against 10.31 ms, 6000 float32
/// 16.31 against 16.57; 128 was slower, 768 no better). `lu_swap_apply` moves `2 OB` rows a
/// column at most.
const OB: usize = 512;

/// Threads of a block of a tall panel's cluster: a row a thread, its `NB` entries in registers
/// (float64: 128 registers each at 512 threads).
fn cluster_threads(dt: DType) -> usize {
    if dt == DType::Float64 {
        512
    } else {
        768
    }
}

/// Whether [`getrf_tall`] takes matrices of order `n` and dtype `dt` on `dev`: real, at least
/// [`TALL_MIN`] and at most a cluster's rows, on a device with clusters (compute capability 9.0
/// or later).
pub(super) fn takes_tall(dev: &CudaDevice, dt: DType, n: usize) -> bool {
    matches!(dt, DType::Float32 | DType::Float64) && n >= TALL_MIN && n <= CL * cluster_threads(dt) && dev.arch.0 >= 9
}

/// Smallest order [`getrf_tall`] takes: all above [`MIDMAX`] (at 640, the smallest order
/// measured, 1.07 against cuSOLVER's 1.39 ms in float64, 0.87 against 1.20 in float32).
const TALL_MIN: usize = MIDMAX + 1;

fn round32(x: usize) -> u32 {
    (x.div_ceil(32) * 32) as u32
}

/// A stack of `batch` matrices in launches of at most [`MAXGRIDY`]: `(first, count)` each.
fn launches(batch: usize) -> impl Iterator<Item = (usize, u32)> {
    (0..batch).step_by(MAXGRIDY).map(move |m0| (m0, (batch - m0).min(MAXGRIDY) as u32))
}

/// LU factorisations of every matrix of `w` (C-contiguous `(batch, n, n)`, factored in place as
/// the column-major `wᵀ`, as cuSOLVER's `getrf`), pivots into `ipiv` (`(batch, n)` int64,
/// 1-based) and `info` (`(batch,)` int32). The caller checks [`takes`].
pub(super) fn getrf(dev: &CudaDevice, w: &Array, ipiv: &Array, info: &Array) -> Result<()> {
    let dt = w.dtype();
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(takes(dt, n) && w.is_c_contiguous());
    let src = Array::alloc(&[batch, n], DType::Int32, dev.device(), false)?;
    let panel = dev.kernel(&BlockedKey { dt, stage: Stage::LuPanel })?;
    let update = dev.kernel(&BlockedKey { dt, stage: Stage::LuUpdate })?;
    let (isz, nn) = (dt.itemsize(), (n * n) as i64);
    for (m0, count) in launches(batch) {
        let (pw, pp, pi, ps) = (
            dptr(w)? + (m0 * n * n * isz) as u64,
            dptr(ipiv)? + (m0 * n * 8) as u64,
            dptr(info)? + (m0 * 4) as u64,
            dptr(&src)? + (m0 * n * 4) as u64,
        );
        for k in (0..n).step_by(NB) {
            let nbk = NB.min(n - k);
            let mut p = Params::new();
            p.push(pw);
            p.push(n as i32);
            p.push(nn);
            p.push(k as i32);
            p.push(pp);
            p.push(pi);
            p.push(ps);
            // SAFETY: the parameters match `lu_panel` (elem_t*, int, long long, int, long long*,
            // int*, int*); matrices m0.. of `w`, their pivots, info and `src` rows lie within
            // those C-contiguous arrays (`count` of them from m0); `n - k <= MIDMAX` threads, the
            // kernel's bound; the arrays outlive the stream's use (stream-ordered pool).
            unsafe { p.launch_2d(dev, &panel, (1, count), (round32(n - k), 1), 0)? };
            let others = n - nbk;
            if others == 0 {
                continue;
            }
            let mut p = Params::new();
            p.push(pw);
            p.push(n as i32);
            p.push(nn);
            p.push(k as i32);
            p.push(ps);
            let threads = round32(n - k - nbk).clamp(32, MIDMAX as u32);
            // SAFETY: the parameters match `lu_update` (elem_t*, int, long long, int, const
            // int*); the blocks take the `others` columns besides the panel's of matrices m0..,
            // reading `src` written by the panel launch before it on the stream.
            unsafe { p.launch_2d(dev, &update, (others.div_ceil(W) as u32, count), (threads, 1), 0)? };
        }
    }
    Ok(())
}

/// LU factorisations of every matrix of `w` as [`getrf`], for orders above [`MIDMAX`]
/// ([`takes_tall`]): right-looking in outer steps of [`OB`] columns, each factored by panels of
/// [`NB`] (a cluster of blocks holding the panel's rows, `lu_panel_cluster`, or one block,
/// `lu_panel`, once at most [`MIDMAX`] rows are left), each panel's interchanges and triangular
/// solve on the rest of its outer step in one launch (`lu_step_u12`), its product there
/// (cuBLAS); then the step's interchanges to the other columns (`lu_swap_list`/
/// `lu_swap_apply`), `U12 = L11⁻¹ A12` and `A22 -= L21 U12` (cuBLAS). cuSOLVER's getrf spends
/// 9.6 of 12.9 ms of a 4096² float64 LU in its panels (`bench/probes/lu/getrf_profile.py`);
/// of ours (`tall_lu.py`, a CUDA graph, outer steps of 256: 10.3 ms) the panels take 6.6, the
/// steps inside the outer ones 1.2 (1.8 as two interchange launches and a cuBLAS trsm a panel)
/// and the outer steps 2.6.
pub(super) fn getrf_tall(dev: &CudaDevice, w: &Array, ipiv: &Array, info: &Array) -> Result<()> {
    let dt = w.dtype();
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(n > MIDMAX && n <= CL * cluster_threads(dt) && dev.arch.0 >= 9 && w.is_c_contiguous());
    let src = Array::alloc(&[n], DType::Int32, dev.device(), false)?;
    let list = Array::alloc(&[1 + 4 * OB], DType::Int32, dev.device(), false)?;
    let k_one = dev.kernel(&BlockedKey { dt, stage: Stage::LuPanel })?;
    let k_cluster = dev.kernel(&BlockedKey { dt, stage: Stage::LuPanelCluster })?;
    let k_list = dev.kernel(&BlockedKey { dt, stage: Stage::LuSwapList })?;
    let k_apply = dev.kernel(&BlockedKey { dt, stage: Stage::LuSwapApply })?;
    let k_u12 = dev.kernel(&BlockedKey { dt, stage: Stage::LuStepU12 })?;
    let (isz, ni) = (dt.itemsize(), n as i32);
    let (ps, pl) = (dptr(&src)?, dptr(&list)?);
    let at = |b: u64, i: usize, j: usize| b + ((i + j * n) * isz) as u64;
    // The interchanges ipiv[k0..k1) of the matrix at (b, ip) applied to columns c0..c1 and c2..c3.
    let swaps = |b: u64, ip: u64, k0: usize, k1: usize, (c0, c1): (usize, usize), (c2, c3): (usize, usize)| {
        let cols = (c1 - c0) + (c3 - c2);
        if cols == 0 {
            return Ok(());
        }
        let mut p = Params::new();
        p.push(ip);
        p.push(ni);
        p.push(k0 as i32);
        p.push(k1 as i32);
        p.push(pl);
        // SAFETY: the parameters match `lu_swap_list` (const long long*, int, int, int, int*);
        // the matrix's n pivots; `list` holds 1 + 2 * 2 * OB ints (k1 - k0 <= OB); n - k0 ints
        // of dynamic shared memory (n <= CL * cluster_threads: 24 KiB at most).
        unsafe { p.launch_shmem(dev, &k_list, 1, 256, ((n - k0) * 4) as u32)? };
        let mut p = Params::new();
        p.push(b);
        p.push(ni);
        p.push(pl);
        p.push(c0 as i32);
        p.push(c1 as i32);
        p.push(c2 as i32);
        // SAFETY: the parameters match `lu_swap_apply` (elem_t*, int, const int*, int, int,
        // int); a block per column of the two ranges (within the n columns of the matrix at b),
        // the list's pairs (rows below n) written by the launch before it on the stream.
        unsafe { p.launch(dev, &k_apply, cols as u32, 256) }
    };
    with_handles(dev, |h| {
        for i in 0..batch {
            let b = dptr(w)? + (i * n * n * isz) as u64;
            let ip = dptr(ipiv)? + (i * n * 8) as u64;
            let inf = dptr(info)? + (i * 4) as u64;
            for kk in (0..n).step_by(OB) {
                let kb = OB.min(n - kk);
                for k in (kk..kk + kb).step_by(NB) {
                    let (nbk, rows) = (NB.min(n - k), n - k);
                    let mut p = Params::new();
                    p.push(b);
                    p.push(ni);
                    p.push((n * n) as i64);
                    p.push(k as i32);
                    if rows > MIDMAX {
                        let rpc = rows.div_ceil(CL);
                        p.push(rpc as i32);
                        p.push(ip);
                        p.push(inf);
                        p.push(ps);
                        // SAFETY: the parameters match `lu_panel_cluster` (elem_t*, int, long
                        // long, int, int, long long*, int*, int*); one cluster of CL blocks
                        // (its compiled dimensions) for the one matrix at b, rpc <=
                        // cluster_threads rows a block (n <= CL * cluster_threads, MAXT); its
                        // pivots, info slot and `src` (n ints).
                        unsafe { p.launch(dev, &k_cluster, CL as u32, round32(rpc))? };
                    } else {
                        p.push(ip);
                        p.push(inf);
                        p.push(ps);
                        // SAFETY: the parameters match `lu_panel` (elem_t*, int, long long, int,
                        // long long*, int*, int*); one block of the rows left (<= MIDMAX) of
                        // the matrix at b, its pivots, info slot and `src`.
                        unsafe { p.launch(dev, &k_one, 1, round32(rows))? };
                    }
                    // The panel's interchanges on the rest of the outer step and its U12 (one
                    // launch), then the product with L21 there.
                    let (left, right) = (k - kk, kk + kb - (k + nbk));
                    let cols = left + right;
                    if cols > 0 {
                        let mut p = Params::new();
                        p.push(b);
                        p.push(ni);
                        p.push(k as i32);
                        p.push(kk as i32);
                        p.push(k as i32);
                        p.push((k + nbk) as i32);
                        p.push(cols as i32);
                        p.push(ps);
                        // SAFETY: the parameters match `lu_step_u12` (elem_t*, int, int, int,
                        // int, int, int, const int*); a warp per column of the outer step
                        // besides the panel's (kk .. k and k + nbk .. kk + kb, within the n × n
                        // matrix at b), `src`'s positions k .. n written by the panel launch
                        // before it on the stream.
                        unsafe { p.launch(dev, &k_u12, cols.div_ceil(W) as u32, (32 * W) as u32)? };
                    }
                    if right > 0 {
                        // SAFETY: L21 ((n - k - nbk) × nbk) at (k + nbk, k), U12 (nbk × right)
                        // at (k, k + nbk) and A22 within the n × n matrix at b.
                        unsafe {
                            gemm_sub(
                                h,
                                dt,
                                (n - k - nbk) as i32,
                                right as i32,
                                nbk as i32,
                                at(b, k + nbk, k),
                                at(b, k, k + nbk),
                                at(b, k + nbk, k + nbk),
                                ni,
                            )?;
                        }
                    }
                }
                // The outer step's interchanges to the columns left and right of it, then its
                // U12 and the trailing matrix.
                swaps(b, ip, kk, kk + kb, (0, kk), (kk + kb, n))?;
                let right = n - kk - kb;
                if right > 0 {
                    // SAFETY: as the panel's, for the kb columns of the step at (kk, kk).
                    unsafe {
                        trsm(h, dt, true, kb as i32, right as i32, at(b, kk, kk), at(b, kk, kk + kb), ni)?;
                        gemm_sub(
                            h,
                            dt,
                            right as i32,
                            right as i32,
                            kb as i32,
                            at(b, kk + kb, kk),
                            at(b, kk, kk + kb),
                            at(b, kk + kb, kk + kb),
                            ni,
                        )?;
                    }
                }
            }
        }
        Ok(())
    })
}

/// NumPy's `slogdet` of real LU factors (`w`, `ipiv` as [`getrf`]'s or cuSOLVER's): `sign`
/// (`w`'s dtype) and `logdet`, C-contiguous `(batch,)` each, in one launch.
pub(super) fn slogdet(dev: &CudaDevice, w: &Array, ipiv: &Array, sign: &Array, logdet: &Array) -> Result<()> {
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(!w.dtype().is_complex() && sign.is_c_contiguous() && logdet.is_c_contiguous());
    if batch == 0 {
        return Ok(());
    }
    let k = dev.kernel(&BlockedKey { dt: w.dtype(), stage: Stage::LuDet })?;
    let mut p = Params::new();
    p.push(dptr(w)?);
    p.push(n as i32);
    p.push((n * n) as i64);
    p.push(dptr(ipiv)?);
    p.push(dptr(sign)?);
    p.push(dptr(logdet)?);
    let grid = u32::try_from(batch)
        .map_err(|_| crate::Error::NotImplemented(format!("slogdet of {batch} matrices on a GPU at once")))?;
    // SAFETY: the parameters match `lu_det` (const elem_t*, int, long long, const long long*,
    // elem_t*, real_t*); a block per matrix reads its factors and pivots and writes its slot.
    unsafe { p.launch(dev, &k, grid, 256) }
}

/// Whether [`geqrf`] and [`orgqr`] take a stack of `batch` matrices of `m` rows and dtype `dt`:
/// where they are measured faster than cuSOLVER (H200, float64, the probe
/// `bench/probes/lu/probe.py`): one matrix of at most [`QR_ALONE`] rows (128: 0.54 ms against
/// cuSOLVER's 0.72-0.88; 256: 1.08 against 0.83; 512: 2.2 against 1.97: the panel is
/// latency-bound, about 3.6 µs a column whatever its rows), and stacks up to [`MIDMAX`] rows
/// (every matrix in the same launches, where cuSOLVER takes them one after another).
pub(super) fn takes_qr(dt: DType, m: usize, batch: usize) -> bool {
    matches!(dt, DType::Float32 | DType::Float64) && m >= 1 && (m <= QR_ALONE || (batch >= 2 && m <= MIDMAX))
}

/// Rows up to which a single matrix takes our QR (see [`takes_qr`]).
const QR_ALONE: usize = 160;

/// The block reflectors of a [`geqrf`]: `T` of every panel, `(batch, panels, NB, NB)`.
pub(super) struct Reflectors {
    t: Array,
    panels: usize,
}

/// LAPACK's `geqrf` of every matrix of `w` (C-contiguous `(batch, n, m)`: the column-major
/// `m×n` matrices, factored in place); the reflectors' scalars are on the diagonals of the
/// returned `T`s. The caller checks [`takes_qr`] and `min(m, n) >= 1`.
pub(super) fn geqrf(dev: &CudaDevice, w: &Array) -> Result<Reflectors> {
    let dt = w.dtype();
    let (batch, n, m) = (w.shape()[0], w.shape()[1], w.shape()[2]);
    let kk = m.min(n);
    debug_assert!(takes_qr(dt, m, batch) && kk >= 1 && w.is_c_contiguous());
    let panels = kk.div_ceil(NB);
    let t = Array::alloc(&[batch, panels, NB, NB], dt, dev.device(), false)?;
    let panel = dev.kernel(&BlockedKey { dt, stage: Stage::QrPanel })?;
    let apply = dev.kernel(&BlockedKey { dt, stage: Stage::QrApply })?;
    let isz = dt.itemsize();
    let (tstride, wstride) = ((panels * NB * NB) as i64, (n * m) as i64);
    for (m0, count) in launches(batch) {
        let pw = dptr(w)? + (m0 * n * m * isz) as u64;
        let pt = dptr(&t)? + (m0 * panels * NB * NB * isz) as u64;
        for (pi, k) in (0..kk).step_by(NB).enumerate() {
            let nbk = NB.min(kk - k);
            let tp = pt + (pi * NB * NB * isz) as u64;
            let mut p = Params::new();
            p.push(pw);
            p.push(m as i32);
            p.push(n as i32);
            p.push(wstride);
            p.push(k as i32);
            p.push(tp);
            p.push(tstride);
            // SAFETY: the parameters match `qr_panel` (elem_t*, int, int, long long, int,
            // elem_t*, long long); matrices m0.. of `w` (`count` of them) and their `T` blocks
            // lie within those C-contiguous arrays; MIDMAX threads (two of the panel's columns a
            // warp), the kernel's layout; the arrays outlive the stream's use.
            unsafe { p.launch_2d(dev, &panel, (1, count), (MIDMAX as u32, 1), 0)? };
            if k + nbk < n {
                // SAFETY: as `apply`'s contract: the trailing columns of the same matrices.
                unsafe {
                    apply_reflectors(
                        dev,
                        &apply,
                        (pw, wstride),
                        (tp, tstride),
                        (pw, wstride),
                        m,
                        k,
                        nbk,
                        k + nbk,
                        n,
                        true,
                        count,
                    )?
                };
            }
        }
    }
    Ok(Reflectors { t, panels })
}

/// `orgqr`: the first `qcols` columns of `Q = H_0 H_1 ...` of a [`geqrf`] (`w`, `r` its
/// reflectors), as a new C-contiguous `(batch, qcols, m)` (column-major `m×qcols`).
pub(super) fn orgqr(dev: &CudaDevice, w: &Array, r: &Reflectors, qcols: usize) -> Result<Array> {
    let dt = w.dtype();
    let (batch, n, m) = (w.shape()[0], w.shape()[1], w.shape()[2]);
    let kk = m.min(n);
    let q = Array::alloc(&[batch, qcols, m], dt, dev.device(), true)?;
    q.diagonal_with(0, 1, 2)?.fill(1)?;
    let apply = dev.kernel(&BlockedKey { dt, stage: Stage::QrApply })?;
    let isz = dt.itemsize();
    let (tstride, wstride, qstride) = ((r.panels * NB * NB) as i64, (n * m) as i64, (qcols * m) as i64);
    for (m0, count) in launches(batch) {
        let pw = dptr(w)? + (m0 * n * m * isz) as u64;
        let pt = dptr(&r.t)? + (m0 * r.panels * NB * NB * isz) as u64;
        let pq = dptr(&q)? + (m0 * qcols * m * isz) as u64;
        // The panels last first: each touches rows and columns from its first on.
        for pi in (0..r.panels).rev() {
            let k = pi * NB;
            let nbk = NB.min(kk - k);
            let tp = pt + (pi * NB * NB * isz) as u64;
            // SAFETY: as `apply`'s contract: `q` is a separate `(batch, qcols, m)` array.
            unsafe {
                apply_reflectors(
                    dev,
                    &apply,
                    (pw, wstride),
                    (tp, tstride),
                    (pq, qstride),
                    m,
                    k,
                    nbk,
                    k,
                    qcols,
                    false,
                    count,
                )?
            };
        }
    }
    Ok(q)
}

/// Launches `qr_apply`: `X <- X - V op(T) Vᵀ X` on rows `k..m` of columns `c0..c1` of the
/// matrices at `x` (column-major, leading dimension `m`), `V` the panel at columns `k..k+nbk`
/// of those at `v`, `op(T)` `Tᵀ` when `trans`; `(pointer, elements between matrices)` each.
///
/// # Safety
/// The pointers address `count` matrices of those shapes that outlive the stream's use; `X`'s
/// columns `c0..c1` do not overlap `V`'s panel.
#[allow(clippy::too_many_arguments)]
unsafe fn apply_reflectors(
    dev: &CudaDevice,
    k_apply: &Kernel,
    v: (u64, i64),
    t: (u64, i64),
    x: (u64, i64),
    m: usize,
    k: usize,
    nbk: usize,
    c0: usize,
    c1: usize,
    trans: bool,
    count: u32,
) -> Result<()> {
    let mut p = Params::new();
    p.push(v.0);
    p.push(v.1);
    p.push(t.0);
    p.push(t.1);
    p.push(x.0);
    p.push(x.1);
    p.push(m as i32);
    p.push(k as i32);
    p.push(nbk as i32);
    p.push(c0 as i32);
    p.push(c1 as i32);
    p.push(trans as i32);
    // SAFETY: the parameters match `qr_apply` (const elem_t*, long long, const elem_t*, long
    // long, elem_t*, long long, int x 6); the memory is the caller's contract; `m - k <=
    // MIDMAX` threads.
    unsafe { p.launch_2d(dev, k_apply, ((c1 - c0).div_ceil(W) as u32, count), (round32(m - k), 1), 0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    /// Not a test: the measurement behind [`TALL_MIN`], run on a GPU host with `tests/cuprum
    /// tall_lu_against_cusolver --ignored --nocapture`: [`getrf_tall`] and cuSOLVER's getrf on
    /// the same random matrices (host wall time around a synchronised call, median of 7), and
    /// their `slogdet`s side by side.
    #[test]
    #[ignore = "a timing on a GPU"]
    fn tall_lu_against_cusolver() {
        let gpu = crate::Device::cuda(0).expect("a GPU");
        let dev = crate::backend::cuda::launch::dev_of(&crate::zeros(&[1], DType::Float32, &gpu).unwrap()).unwrap();
        for dt in [DType::Float64, DType::Float32] {
            for n in [640, 1024, 1536, 2048, 3072, 4096, 6144] {
                if n > CL * cluster_threads(dt) {
                    continue;
                }
                let mut g = crate::random::default_rng(n as u64).unwrap().on(&gpu);
                let a = g.standard_normal(&[1, n, n], dt).unwrap();
                let time = |tall: bool| {
                    let mut ts = Vec::new();
                    let mut last = None;
                    for _ in 0..7 {
                        let w = a.copy().unwrap();
                        let ipiv = Array::alloc(&[1, n], DType::Int64, gpu, false).unwrap();
                        let info = Array::alloc(&[1], DType::Int32, gpu, true).unwrap();
                        gpu.synchronize().unwrap();
                        let t = std::time::Instant::now();
                        if tall {
                            getrf_tall(&dev, &w, &ipiv, &info).unwrap();
                        } else {
                            super::super::getrf_cusolver(&dev, &w, &ipiv, &info).unwrap();
                        }
                        gpu.synchronize().unwrap();
                        ts.push(t.elapsed().as_secs_f64() * 1e3);
                        last = Some((w, ipiv));
                    }
                    ts.sort_by(f64::total_cmp);
                    let (w, ipiv) = last.unwrap();
                    let d = w.diagonal_with(0, 1, 2).unwrap().abs().unwrap().log().unwrap().sum(-1).unwrap();
                    let swaps =
                        ipiv.to_vec::<i64>().unwrap().iter().enumerate().filter(|(i, &p)| p != *i as i64 + 1).count();
                    (ts[3], d.to_vec_as::<f64>().unwrap()[0], swaps)
                };
                let (t_tall, l_tall, s_tall) = time(true);
                let (t_cus, l_cus, s_cus) = time(false);
                eprintln!(
                    "{dt} n {n}: tall {t_tall:.3} ms, cuSOLVER {t_cus:.3} ms; log|det| {l_tall:.6} / {l_cus:.6}, interchanges {s_tall} / {s_cus}"
                );
            }
        }
    }

    #[test]
    fn blocked_kernels_compile() {
        let mut compiled = 0;
        for dt in [DType::Float32, DType::Float64] {
            for stage in [
                Stage::LuPanel,
                Stage::LuUpdate,
                Stage::LuDet,
                Stage::LuPanelCluster,
                Stage::LuSwapList,
                Stage::LuSwapApply,
                Stage::LuStepU12,
                Stage::QrPanel,
                Stage::QrApply,
            ] {
                let key = BlockedKey { dt, stage };
                assert!(key.source().contains(key.entry()), "{key:?}");
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("linalg blocked LU and QR kernels: 18 entries, {compiled} compiled by NVRTC");
    }
}
