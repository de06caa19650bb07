//! The linear-algebra workloads of WORKLOADS.md (both tables): the same shapes, dtypes and
//! distributions as `cupy_reference.py` (the values come from a generator of our own: cuprum
//! has no `random` yet, and the timings depend on the distribution, not on the draws).

use super::{cpu_time, gpu_time, Opts, CPU_ONLY};
use cuprum::{linalg, Array, DType, Device, Result};
use std::sync::atomic::Ordering;

/// splitmix64: a small deterministic generator for the inputs.
pub(crate) struct Gen(pub(crate) u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// U[0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(crate) fn uniform(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| lo + (hi - lo) * self.unit()).collect()
    }
    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self, n: usize) -> Vec<f64> {
        let mut v = Vec::with_capacity(n + 1);
        while v.len() < n {
            let (u1, u2) = (1.0 - self.unit(), self.unit());
            let r = (-2.0 * u1.ln()).sqrt();
            let t = 2.0 * std::f64::consts::PI * u2;
            v.push(r * t.cos());
            v.push(r * t.sin());
        }
        v.truncate(n);
        v
    }
}

pub(crate) fn host(v: Vec<f64>, shape: &[usize], dt: DType) -> Result<Array> {
    cuprum::from_slice(&v, shape, &Device::Cpu)?.astype(dt)
}

/// `||g - c|| / ||c||` (Frobenius, on the host).
pub(crate) fn rel(g: &Array, c: &Array) -> Result<f64> {
    let g = g.to_device(&Device::Cpu)?;
    let d = linalg::norm(&cuprum::subtract(&g, c)?)?.to_vec_as::<f64>()?[0];
    let s = linalg::norm(c)?.to_vec_as::<f64>()?[0];
    Ok(d / s.max(f64::MIN_POSITIVE))
}

/// One workload: `f` on the GPU inputs and on the host ones (`cpu_rep` runs at most), then
/// `check(gpu result, host result)`; a failure is reported and the others still run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row<R>(
    o: &mut Opts,
    name: &str,
    gpu: Device,
    rep: usize,
    cpu_rep: usize,
    note: &str,
    f: impl Fn(&Device) -> Result<R>,
    check: impl Fn(&R, &R) -> Result<(bool, String)>,
) {
    if !o.wants(name) {
        return;
    }
    eprintln!("[{name}]");
    let r = (|| -> Result<()> {
        let (g, h) = gpu_time(name, gpu, rep, || f(&gpu))?;
        let c = if o.cpu { Some(cpu_time(|| f(&Device::Cpu), cpu_rep, 8.0)?) } else { None };
        let (ok, what) =
            if CPU_ONLY.load(Ordering::Relaxed) { (true, String::new()) } else { check(&f(&gpu)?, &f(&Device::Cpu)?)? };
        o.record(name, c, g, h, Some(ok), &format!("{note}{}{what}", if what.is_empty() { "" } else { "; " }));
        Ok(())
    })();
    if let Err(e) = r {
        o.failed(name, &e);
    }
}

/// The inputs on both devices: `(host, gpu)`.
pub(crate) fn pair(a: Array, gpu: Device) -> Result<(Array, Array)> {
    let g = a.to_device(&gpu)?;
    Ok((a, g))
}

/// Picks the array of `dev` from a `(host, gpu)` pair.
pub(crate) fn on(p: &(Array, Array), dev: &Device) -> Array {
    if dev.is_cpu() {
        p.0.view()
    } else {
        p.1.view()
    }
}

/// A check of a result against the CPU's: the relative difference at most `tol`.
pub(crate) fn relcheck(tol: f64) -> impl Fn(&Array, &Array) -> Result<(bool, String)> {
    move |g: &Array, c: &Array| {
        let r = rel(g, c)?;
        Ok((r <= tol, format!("relative difference to the CPU {r:.1e}")))
    }
}

/// The matrix workloads.
pub(crate) fn matrices(o: &mut Opts, gpu: Device, rep: usize) -> Result<()> {
    let mut rng = Gen(20);
    // ---- first table (cupy_reference.py section 8)
    if o.wants("matmul_4096_f32") {
        let a = pair(host(rng.uniform(4096 * 4096, -1.0, 1.0), &[4096, 4096], DType::Float32)?, gpu)?;
        let b = pair(host(rng.uniform(4096 * 4096, -1.0, 1.0), &[4096, 4096], DType::Float32)?, gpu)?;
        let f = |d: &Device| cuprum::matmul(&on(&a, d), &on(&b, d));
        row(o, "matmul_4096_f32", gpu, rep, 3, "cuBLAS sgemm, FP32 (no TF32)", f, relcheck(1e-5));
    }
    if o.wants("qr_512_f64") {
        let a = pair(host(rng.normal(512 * 512), &[512, 512], DType::Float64)?, gpu)?;
        let f = |d: &Device| linalg::qr(&on(&a, d));
        let check = |g: &linalg::QrResult, _c: &linalg::QrResult| {
            let rec = cuprum::matmul(g.q.as_ref().expect("reduced mode has q"), &g.r)?;
            let r = rel(&rec, &a.0)?;
            Ok((r <= 1e-12, format!("|q r - a| / |a| = {r:.1e}")))
        };
        row(o, "qr_512_f64", gpu, rep, 10, "cuSOLVER geqrf + orgqr", f, check);
    }
    if o.wants("det_512_f32") {
        let a = pair(host(rng.normal(512 * 512), &[512, 512], DType::Float32)?, gpu)?;
        let f = |d: &Device| linalg::det(&on(&a, d));
        let check = |_g: &Array, _c: &Array| {
            // det overflows float32 here (|det| ~ e^1340): both are inf; compare slogdet.
            let (g, c) = (linalg::slogdet(&a.1)?, linalg::slogdet(&a.0)?);
            let (gl, cl) = (g.logabsdet.to_vec_as::<f64>()?[0], c.logabsdet.to_vec_as::<f64>()?[0]);
            let same_sign = g.sign.to_vec_as::<f64>()? == c.sign.to_vec_as::<f64>()?;
            Ok((same_sign && (gl - cl).abs() <= 1e-4 * cl.abs(), format!("logabsdet gpu {gl:.3} cpu {cl:.3}")))
        };
        row(o, "det_512_f32", gpu, rep, 10, "own blocked LU (blocked_lu.cu), slogdet in one kernel", f, check);
    }
    if o.wants("inv_6000_f32") {
        let a = pair(host(rng.uniform(6000 * 6000, 0.0, 1.0), &[6000, 6000], DType::Float32)?, gpu)?;
        let f = |d: &Device| linalg::inv(&on(&a, d));
        let check = |g: &Array, _c: &Array| {
            // U(0,1) matrices are ill-conditioned (how much depends on the draw): the normwise
            // backward error |a x - I| / (|a| |x|), LAPACK's bound a small multiple of n eps.
            let eye = cuprum::eye(6000, DType::Float32, &gpu)?;
            let res = cuprum::subtract(&cuprum::matmul(&a.1, g)?, &eye)?;
            let nrm = |x: &Array| -> Result<f64> { linalg::norm(x)?.item::<f64>() };
            let r = nrm(&res)? / (nrm(&a.1)? * nrm(g)?);
            let bound = 6000.0 * f32::EPSILON as f64;
            Ok((r <= bound, format!("|a x - I| / (|a| |x|) = {r:.1e} (n eps = {bound:.1e})")))
        };
        row(
            o,
            "inv_6000_f32",
            gpu,
            rep.min(5),
            2,
            "own LU (cluster panels, blocked.rs getrf_tall), then L^-1 by column blocks and U^-1 L^-1 (cuBLAS trsm), the pivots applied by a gather",
            f,
            check,
        );
    }
    // ---- second table (cupy_reference.py section 0, rng order as there)
    if o.wants("matmul_batched_4096x64x64_f32") {
        let a = pair(host(rng.uniform(4096 * 64 * 64, -1.0, 1.0), &[4096, 64, 64], DType::Float32)?, gpu)?;
        let b = pair(host(rng.uniform(4096 * 64 * 64, -1.0, 1.0), &[4096, 64, 64], DType::Float32)?, gpu)?;
        let f = |d: &Device| cuprum::matmul(&on(&a, d), &on(&b, d));
        row(o, "matmul_batched_4096x64x64_f32", gpu, rep, 5, "cuBLAS strided-batched gemm", f, relcheck(1e-5));
    }
    if o.wants("matmul_2048_c64") {
        let re = host(rng.normal(2048 * 2048), &[2048, 2048], DType::Float32)?;
        let im = host(rng.normal(2048 * 2048), &[2048, 2048], DType::Float32)?;
        // re + 1j * im, as a NumPy user writes it (the weak scalar keeps complex64).
        let c = pair(cuprum::add(&re, &cuprum::multiply(&im, cuprum::Complex::new(0.0, 1.0))?)?, gpu)?;
        let f = |d: &Device| cuprum::matmul(&on(&c, d), &on(&c, d));
        row(o, "matmul_2048_c64", gpu, rep, 3, "cuBLAS cgemm", f, relcheck(1e-5));
    }
    if o.wants("solve_4096_f64") || o.wants("cholesky_4096_f64") {
        let mut m = host(rng.normal(4096 * 4096), &[4096, 4096], DType::Float64)?;
        m = cuprum::add(&m, &cuprum::multiply(&cuprum::eye(4096, DType::Float64, &Device::Cpu)?, 128.0)?)?;
        let v = pair(host(rng.normal(4096), &[4096], DType::Float64)?, gpu)?;
        let spd = pair(cuprum::matmul(&m, &m.t())?, gpu)?;
        let m = pair(m, gpu)?;
        let f = |d: &Device| linalg::solve(&on(&m, d), &on(&v, d));
        row(
            o,
            "solve_4096_f64",
            gpu,
            rep.min(10),
            3,
            "own LU (cluster panels, blocked.rs getrf_tall) + cuSOLVER getrs",
            f,
            relcheck(1e-10),
        );
        let f = |d: &Device| linalg::cholesky(&on(&spd, d));
        row(o, "cholesky_4096_f64", gpu, rep.min(10), 3, "cuSOLVER potrf", f, relcheck(1e-10));
    }
    if o.wants("eigh_1024_f32") {
        let s = host(rng.normal(1024 * 1024), &[1024, 1024], DType::Float32)?;
        let sym = pair(cuprum::multiply(&cuprum::add(&s, s.t())?, 0.5)?, gpu)?;
        let f = |d: &Device| linalg::eigh(&on(&sym, d));
        let check = |g: &linalg::EigResult, c: &linalg::EigResult| {
            let r = rel(&g.eigenvalues, &c.eigenvalues)?;
            Ok((r <= 1e-4, format!("eigenvalues' relative difference {r:.1e}")))
        };
        row(o, "eigh_1024_f32", gpu, rep.min(10), 3, "cuSOLVER syevd", f, check);
    }
    if o.wants("svd_1024_f32") {
        let a = pair(host(rng.normal(1024 * 1024), &[1024, 1024], DType::Float32)?, gpu)?;
        let f = |d: &Device| {
            linalg::svd_with(&on(&a, d), &linalg::SvdOptions { full_matrices: false, ..Default::default() })
        };
        // Both devices against the float64 singular values (NumPy's LAPACK computes float32
        // in double precision): the GPU's error at most twice the CPU's, or float32's own.
        let s64 = linalg::svdvals(&a.0.astype(DType::Float64)?)?;
        let check = |g: &linalg::SvdResult, c: &linalg::SvdResult| {
            let (eg, ec) = (rel(&g.s, &s64)?, rel(&c.s, &s64)?);
            let rec = cuprum::matmul(&cuprum::multiply(&g.u, &g.s.expand_dims(-2)?)?, &g.vh)?;
            let r = rel(&rec, &a.0)?;
            Ok((
                eg <= (2.0 * ec).max(1e-6) && r <= 1e-5,
                format!("|s - s64| / |s64|: gpu {eg:.1e}, cpu {ec:.1e}; |u s vh - a| / |a| = {r:.1e}"),
            ))
        };
        row(o, "svd_1024_f32", gpu, rep.min(5), 3, "float64 Gram matrix: syevd, QR of A V (svd_gram.rs)", f, check);
    }
    if o.wants("inv_batched_16384x8x8_f64") {
        let x = host(rng.normal(16384 * 64), &[16384, 8, 8], DType::Float64)?;
        let eye = cuprum::multiply(&cuprum::eye(8, DType::Float64, &Device::Cpu)?, 8.0)?;
        let bi = pair(cuprum::add(&x, &eye)?, gpu)?;
        let f = |d: &Device| linalg::inv(&on(&bi, d));
        row(
            o,
            "inv_batched_16384x8x8_f64",
            gpu,
            rep,
            5,
            "one kernel: 8 lanes per matrix, 4 matrices a warp",
            f,
            relcheck(1e-12),
        );
    }
    Ok(())
}

/// The vector workloads on the 1e8-element float32 vectors `va`, `vb` (host, GPU) of the
/// main program's big section.
pub(crate) fn vectors(o: &mut Opts, gpu: Device, rep: usize, va: &(Array, Array), vb: &(Array, Array)) -> Result<()> {
    if o.wants("norm_1e8_f32") {
        let f = |d: &Device| linalg::norm(&on(va, d));
        row(o, "norm_1e8_f32", gpu, rep, 5, "one pass (dot.cu)", f, relcheck(1e-5));
    }
    if o.wants("dot_1e8_f32") {
        let f = |d: &Device| cuprum::dot(&on(va, d), &on(vb, d));
        row(o, "dot_1e8_f32", gpu, rep, 5, "one pass (dot.cu)", f, relcheck(1e-5));
    }
    Ok(())
}
