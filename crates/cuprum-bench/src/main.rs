//! The seed workloads (bench/WORKLOADS.md, a copy of ../shared/bench/WORKLOADS.md) written with cuprum's public API, as a
//! user would write them, printing one JSON line per workload in the format of
//! `cupy_reference.py` (`cuprum_ms` from CUDA events, median after warm-up; `cpu_ms` from the
//! CPU backend; `check`: GPU result agrees with the CPU result). Workloads the library cannot
//! do yet print `"cuprum_ms": null` with the reason.
//!
//! Usage: cuprum-bench [--sky sky.npy] [--write-sky sky.npy] [--out cuprum.jsonl]
//!                     [--only name,name] [--repeat N] [--no-cpu | --cpu-only]
//! `--cpu-only` runs on any machine: the CPU backend alone, one `{"name", "cpu_ms", "note"}`
//! line per workload as `numpy_reference.py` prints (`compare.py --cpu numpy.jsonl cuprum.jsonl`).

mod fft;
mod fuse;
mod kernels;
mod linalg;
mod random;
mod streams;

use cuprum::profiler::{benchmark_with, median, BenchmarkOptions};
use cuprum::{DType, Device, Result};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// `--cpu-only`: no GPU is touched; each workload prints `{"name", "cpu_ms", "note"}` as
/// `numpy_reference.py` does (for `compare.py --cpu`), and GPU-only workloads are left out.
static CPU_ONLY: AtomicBool = AtomicBool::new(false);

/// Workloads that time only the GPU (copies, first calls): not run with `--cpu-only`.
const GPU_ONLY: [&str; 16] = [
    "elementwise_floor",
    "two_inv_6000_f32_sequential",
    "two_inv_6000_f32_two_streams",
    "copy_exp_copy_8x50MB_one_stream",
    "copy_exp_copy_8x50MB_four_streams",
    "convolve2d_with_transfers",
    "htod_400MB_f32",
    "dtoh_400MB_f32",
    "copy_bandwidth",
    "host_overhead_add_10k",
    "first_call_new_kernel",
    "first_call_cached_kernel",
    "gaussian_pdf_1M_f32_source",
    "polar_distance_1M_f32_source",
    "primes_10k_source",
    "host_overhead_kernels",
];

struct Opts {
    sky: Option<String>,
    write_sky: Option<String>,
    out: Option<std::fs::File>,
    only: Option<Vec<String>>,
    repeat: usize,
    cpu: bool,
    /// `--inputs DIR`: blobs_2048_f32.npy and vol_256_bool.npy written by cupy_reference.py.
    inputs: Option<String>,
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.4}", x),
        _ => "null".into(),
    }
}

impl Opts {
    fn wants(&self, name: &str) -> bool {
        if CPU_ONLY.load(Ordering::Relaxed) && GPU_ONLY.contains(&name) {
            return false;
        }
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|n| n == name || (n.ends_with('*') && name.starts_with(&n[..n.len() - 1]))))
    }
    fn emit(&mut self, line: String) {
        println!("{line}");
        if let Some(f) = &mut self.out {
            let _ = writeln!(f, "{line}");
        }
    }
    fn record(&mut self, name: &str, cpu_ms: Option<f64>, gpu_ms: f64, host_ms: f64, check: Option<bool>, note: &str) {
        if CPU_ONLY.load(Ordering::Relaxed) {
            if cpu_ms.is_some() {
                self.emit(format!(
                    "{{\"name\": \"{name}\", \"cpu_ms\": {}, \"note\": \"{}\"}}",
                    num(cpu_ms),
                    esc(note)
                ));
            }
            return;
        }
        let check = match check {
            Some(b) => b.to_string(),
            None => "null".into(),
        };
        self.emit(format!(
            "{{\"name\": \"{name}\", \"cpu_ms\": {}, \"cuprum_ms\": {}, \"cuprum_host_ms\": {}, \"check\": {check}, \"note\": \"{}\"}}",
            num(cpu_ms),
            num(Some(gpu_ms)),
            num(Some(host_ms)),
            esc(note)
        ));
    }
    /// A workload that failed: reported, and the others still run.
    fn failed(&mut self, name: &str, e: &cuprum::Error) {
        eprintln!("cuprum-bench: {name} failed: {e}");
        self.emit(format!("{{\"name\": \"{name}\", \"cuprum_ms\": null, \"error\": \"{}\"}}", esc(&e.to_string())));
    }
    fn missing(&mut self, name: &str, why: &str) {
        self.emit(format!("{{\"name\": \"{name}\", \"cuprum_ms\": null, \"missing\": \"{}\"}}", esc(why)));
    }
}

/// GPU time (median ms of CUDA-event times) and host time of `f` (not run with `--cpu-only`).
fn gpu_time<R>(name: &str, gpu: Device, repeat: usize, f: impl FnMut() -> Result<R>) -> Result<(f64, f64)> {
    if CPU_ONLY.load(Ordering::Relaxed) {
        return Ok((f64::NAN, f64::NAN));
    }
    let r = benchmark_with(name, gpu, &BenchmarkOptions { n_repeat: repeat, n_warmup: 3, ..Default::default() }, f)?;
    eprintln!("{r}");
    Ok((r.median_gpu_ms(), r.median_cpu_ms()))
}

/// Median wall time of `f` on the CPU backend (fewer repeats once it has taken `max_s`).
fn cpu_time<R>(mut f: impl FnMut() -> Result<R>, repeat: usize, max_s: f64) -> Result<f64> {
    let mut ts = Vec::new();
    let end = Instant::now() + std::time::Duration::from_secs_f64(max_s);
    for _ in 0..repeat {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64());
        if Instant::now() > end {
            break;
        }
    }
    Ok(1e3 * median(&ts))
}

/// The lesson's kappa-sigma clipper (kappa 3), as the `cuprum-sky` program runs it.
fn ks_clip(flat: &cuprum::Array) -> Result<cuprum::Array> {
    cuprum_sky::ks_clip(flat, 3.0)
}

fn allclose(a: &cuprum::Array, b: &cuprum::Array, rtol: f64) -> Result<bool> {
    cuprum::allclose_with(
        &a.to_device(&Device::Cpu)?,
        &b.to_device(&Device::Cpu)?,
        &cuprum::CloseOptions { rtol, atol: 1e-6, equal_nan: true },
    )
}

fn main() {
    if let Err(e) = run() {
        eprintln!("cuprum-bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--first-call-child") {
        return first_call_child();
    }
    let mut o = Opts { sky: None, write_sky: None, out: None, only: None, repeat: 20, cpu: true, inputs: None };
    let mut i = 1;
    while i < args.len() {
        let val = || {
            args.get(i + 1).cloned().ok_or_else(|| cuprum::Error::InvalidArgument(format!("{} needs a value", args[i])))
        };
        match args[i].as_str() {
            "--sky" => o.sky = Some(val()?),
            "--inputs" => o.inputs = Some(val()?),
            "--write-sky" => o.write_sky = Some(val()?),
            "--out" => o.out = Some(std::fs::File::create(val()?).map_err(|e| cuprum::Error::Io(e.to_string()))?),
            "--only" => o.only = Some(val()?.split(',').map(str::to_string).collect()),
            "--repeat" => o.repeat = val()?.parse().map_err(|_| cuprum::Error::InvalidArgument("--repeat".into()))?,
            "--no-cpu" => {
                o.cpu = false;
                i += 1;
                continue;
            }
            "--cpu-only" => {
                CPU_ONLY.store(true, Ordering::Relaxed);
                i += 1;
                continue;
            }
            "-h" | "--help" => {
                println!("usage: cuprum-bench [--sky sky.npy] [--write-sky sky.npy] [--out cuprum.jsonl] [--only a,b] [--repeat N] [--no-cpu | --cpu-only] [--inputs DIR]");
                return Ok(());
            }
            other => return Err(cuprum::Error::InvalidArgument(format!("unknown option {other}"))),
        }
        i += 2;
    }
    let gpu = if CPU_ONLY.load(Ordering::Relaxed) { Device::Cpu } else { Device::cuda(0)? };
    let cpu = Device::Cpu;
    let rep = o.repeat;
    if CPU_ONLY.load(Ordering::Relaxed) && !o.cpu {
        return Err(cuprum::Error::InvalidArgument("--cpu-only and --no-cpu exclude each other".into()));
    }

    let sky = match &o.sky {
        Some(p) => cuprum::load_npy(p, &cpu)?.astype(DType::Float32)?,
        None => cuprum_sky::synthetic_sky(2048, 200)?,
    };
    if let Some(p) = &o.write_sky {
        cuprum::save_npy(p, &sky)?;
    }

    // The lesson's background estimate and segmentation on the sky (4M float32).
    let sky_g = sky.to_device(&gpu)?;
    let flat_h = sky.ravel()?;
    let flat_g = sky_g.ravel()?;
    let labelling = [
        "label_2048",
        "label_2048_8conn",
        "measure_com_sum_labels",
        "pipeline_end_to_end",
        "label_3d_256",
        "measure_many_labels_2048",
    ];
    if o.wants("ks_clip_4M_f32")
        || o.wants("segment_where_4M")
        || o.wants("binary_erosion_2048_iter10")
        || labelling.iter().any(|n| o.wants(n))
    {
        let r = (|o: &mut Opts| -> Result<()> {
            eprintln!("[ks_clip_4M_f32]");
            let (g, h) = gpu_time("ks_clip_4M_f32", gpu, rep.min(10), || ks_clip(&flat_g))?;
            let c = if o.cpu { Some(cpu_time(|| ks_clip(&flat_h), 3, 6.0)?) } else { None };
            let (kc, kg) = (ks_clip(&flat_h)?, ks_clip(&flat_g)?);
            if o.wants("ks_clip_4M_f32") {
                o.record("ks_clip_4M_f32", c, g, h, Some(kc.size() == kg.size()), &format!("kept {}", kc.size()));
            }
            let thr = 5.0 * kc.std(None)?.item::<f64>()?;
            if o.wants("segment_where_4M") {
                eprintln!("[segment_where_4M]");
                let seg = || cuprum::where_(&sky_g.greater(thr)?, 1i64, 0i64);
                let (g, h) = gpu_time("segment_where_4M", gpu, rep, seg)?;
                let segc = || cuprum::where_(&sky.greater(thr)?, 1i64, 0i64);
                let c = cpu_time(segc, 20, 3.0)?;
                let ok = cuprum::array_equal(&seg()?.to_device(&cpu)?, &segc()?)?;
                o.record("segment_where_4M", Some(c), g, h, Some(ok), "where(sky > thr, 1, 0) as int64");
            }
            if o.wants("binary_erosion_2048_iter10") {
                // binary morphology (wt-morph): the segmented image as bool, 10 erosions.
                use cuprum::scipy::ndimage::{binary_erosion_with, BinaryOptions};
                eprintln!("[binary_erosion_2048_iter10]");
                let (seg_g, seg_h) = (sky_g.greater(thr)?, sky.greater(thr)?);
                let opts = BinaryOptions { iterations: 10, ..Default::default() };
                let (g, h) = gpu_time("binary_erosion_2048_iter10", gpu, rep, || binary_erosion_with(&seg_g, &opts))?;
                let c = if o.cpu { Some(cpu_time(|| binary_erosion_with(&seg_h, &opts), 10, 5.0)?) } else { None };
                let ok = cuprum::array_equal(
                    &binary_erosion_with(&seg_g, &opts)?.to_device(&cpu)?,
                    &binary_erosion_with(&seg_h, &opts)?,
                )?;
                let frac = seg_h.astype(DType::Float64)?.mean(None)?.item::<f64>()?;
                o.record(
                    "binary_erosion_2048_iter10",
                    c,
                    g,
                    h,
                    Some(ok),
                    &format!("sky > thr ({:.1}% True), 3x3 cross", 100.0 * frac),
                );
            }
            labelling_workloads(o, &sky, thr, gpu, rep)
        })(&mut o);
        if let Err(e) = r {
            o.failed("ks_clip_4M_f32", &e);
        }
    }
    // The lessons' convolutions (WORKLOADS.md: deltas and gauss; the sky with a Hann kernel).
    if o.wants("convolve2d_2048_k15_f64") || o.wants("convolve1d_4M_k15_f64") || o.wants("convolve2d_with_transfers") {
        let r = (|o: &mut Opts| -> Result<()> {
            use cuprum::scipy::signal::convolve2d;
            let mut deltas = cuprum::zeros(&[2048, 2048], DType::Float64, &cpu)?;
            deltas.slice_mut(cuprum::s![8..;16, 8..;16])?.fill(1.0)?;
            let lin = cuprum::linspace(-2.0, 2.0, 15, DType::Float64, &cpu)?;
            let [xx, yy] = cuprum::meshgrid([&lin, &lin])?;
            let gauss = ((xx.expr().square() + yy.expr().square()) * -0.5).exp().eval()?;
            let (dg, gg) = (deltas.to_device(&gpu)?, gauss.to_device(&gpu)?);
            if o.wants("convolve2d_2048_k15_f64") {
                eprintln!("[convolve2d_2048_k15_f64]");
                let f = || convolve2d(&dg, &gg);
                let (gm, h) = gpu_time("convolve2d_2048_k15_f64", gpu, rep, f)?;
                let fc = || convolve2d(&deltas, &gauss);
                let c = if o.cpu { Some(cpu_time(fc, 5, 6.0)?) } else { None };
                let ok = cuprum::allclose_with(
                    &f()?.to_device(&cpu)?,
                    &fc()?,
                    &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-14, ..Default::default() },
                )?;
                o.record("convolve2d_2048_k15_f64", c, gm, h, Some(ok), "tiles with halos in shared memory");
            }
            if o.wants("convolve2d_with_transfers") {
                eprintln!("[convolve2d_with_transfers]");
                let f = || convolve2d(&deltas.to_device(&gpu)?, &gauss.to_device(&gpu)?)?.to_device(&cpu);
                let (gm, h) = gpu_time("convolve2d_with_transfers", gpu, rep.min(10), f)?;
                o.record("convolve2d_with_transfers", None, gm, h, None, "host arrays in, host result out");
            }
            if o.wants("convolve1d_4M_k15_f64") {
                eprintln!("[convolve1d_4M_k15_f64]");
                let (d1, g1) = (deltas.ravel()?, gauss.diagonal()?.as_contiguous()?);
                let (d1g, g1g) = (d1.to_device(&gpu)?, g1.to_device(&gpu)?);
                let f = || cuprum::convolve(&d1g, &g1g);
                let (gm, h) = gpu_time("convolve1d_4M_k15_f64", gpu, rep, f)?;
                let fc = || cuprum::convolve(&d1, &g1);
                let c = if o.cpu { Some(cpu_time(fc, 5, 4.0)?) } else { None };
                let ok = cuprum::allclose_with(
                    &f()?.to_device(&cpu)?,
                    &fc()?,
                    &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-14, ..Default::default() },
                )?;
                o.record("convolve1d_4M_k15_f64", c, gm, h, Some(ok), "direct, tiled");
            }
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed("convolve2d_2048_k15_f64", &e);
        }
    }
    if o.wants("convolve2d_same_symm_2048_k7_f32") {
        let r = (|o: &mut Opts| -> Result<()> {
            use cuprum::scipy::signal::{convolve2d_with, Boundary, Convolve2dOptions};
            eprintln!("[convolve2d_same_symm_2048_k7_f32]");
            // outer(hanning(9)[1:-1], hanning(9)[1:-1]): hanning(9)[n] = 0.5 - 0.5 cos(2 pi n / 8).
            let h: Vec<f64> = (1..8).map(|n| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / 8.0).cos()).collect();
            let k: Vec<f64> = h.iter().flat_map(|a| h.iter().map(move |b| a * b)).collect();
            let k = cuprum::from_slice(&k, &[7, 7], &cpu)?.astype(DType::Float32)?;
            let kg = k.to_device(&gpu)?;
            let mode = cuprum::ConvolveMode::Same;
            let f = || {
                convolve2d_with(
                    &sky_g,
                    &kg,
                    &Convolve2dOptions { mode, boundary: Boundary::Symm, ..Default::default() },
                )
            };
            let (gm, hm) = gpu_time("convolve2d_same_symm_2048_k7_f32", gpu, rep, f)?;
            let fc = || {
                convolve2d_with(&sky, &k, &Convolve2dOptions { mode, boundary: Boundary::Symm, ..Default::default() })
            };
            let c = if o.cpu { Some(cpu_time(fc, 5, 4.0)?) } else { None };
            let ok = cuprum::allclose_with(
                &f()?.to_device(&cpu)?,
                &fc()?,
                &cuprum::CloseOptions { atol: 1e-6, ..Default::default() },
            )?;
            o.record("convolve2d_same_symm_2048_k7_f32", c, gm, hm, Some(ok), "tiles with halos, symmetric edges");
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed("convolve2d_same_symm_2048_k7_f32", &e);
        }
    }
    // ---- ndimage linear filters
    if o.wants("gaussian_filter_2048_f32") {
        let r = (|o: &mut Opts| -> Result<()> {
            use cuprum::scipy::ndimage::{gaussian_filter_with, FilterOptions};
            eprintln!("[gaussian_filter_2048_f32]");
            let opts = FilterOptions::default(); // mode reflect, truncate 4
            let f = || gaussian_filter_with(&sky_g, &[2.0], &opts);
            let (gm, hm) = gpu_time("gaussian_filter_2048_f32", gpu, rep, f)?;
            let fc = || gaussian_filter_with(&sky, &[2.0], &opts);
            let c = if o.cpu { Some(cpu_time(fc, 5, 4.0)?) } else { None };
            // Both devices sum in float64 in SciPy's order: equal up to float32 rounding ties.
            let ok = cuprum::allclose_with(
                &f()?.to_device(&cpu)?,
                &fc()?,
                &cuprum::CloseOptions { rtol: 1e-6, atol: 1e-7, ..Default::default() },
            )?;
            o.record(
                "gaussian_filter_2048_f32",
                c,
                gm,
                hm,
                Some(ok),
                "both passes fused: tile, halo and rounded intermediate in shared memory",
            );
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed("gaussian_filter_2048_f32", &e);
        }
    }
    // ---- ndimage rank filters
    if o.wants("median_filter_2048_5x5_f32") {
        let r = (|o: &mut Opts| -> Result<()> {
            use cuprum::scipy::ndimage::{median_filter_with, RankOptions, Window};
            eprintln!("[median_filter_2048_5x5_f32]");
            let opts = RankOptions::default();
            let f = || median_filter_with(&sky_g, Window::Size(&[5]), &opts);
            let (gm, hm) = gpu_time("median_filter_2048_5x5_f32", gpu, rep, f)?;
            let fc = || median_filter_with(&sky, Window::Size(&[5]), &opts);
            let c = if o.cpu { Some(cpu_time(fc, 3, 4.0)?) } else { None };
            let ok = cuprum::array_equal(&f()?.to_device(&cpu)?, &fc()?)?;
            o.record(
                "median_filter_2048_5x5_f32",
                c,
                gm,
                hm,
                Some(ok),
                "shared tile with halo, 25 keys in registers, pruned selection network",
            );
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed("median_filter_2048_5x5_f32", &e);
        }
    }
    for (name, f) in [
        ("median_4M_f32", (|a: &cuprum::Array| a.median(None)) as fn(&cuprum::Array) -> Result<cuprum::Array>),
        ("sort_4M_f32", |a: &cuprum::Array| a.sort(None)),
    ] {
        if o.wants(name) {
            let r = (|o: &mut Opts| -> Result<()> {
                eprintln!("[{name}]");
                let (g, h) = gpu_time(name, gpu, rep.min(10), || f(&flat_g))?;
                let c = if o.cpu { Some(cpu_time(|| f(&flat_h), 5, 4.0)?) } else { None };
                let ok = cuprum::allclose_with(
                    &f(&flat_g)?.to_device(&cpu)?,
                    &f(&flat_h)?,
                    &cuprum::CloseOptions { rtol: 0.0, atol: 0.0, equal_nan: true },
                )?;
                let note = if name.starts_with("median") {
                    "radix select, 4 levels of 8-bit digits, nothing read back"
                } else {
                    "LSD radix sort, onesweep passes"
                };
                o.record(name, c, g, h, Some(ok), note);
                Ok(())
            })(&mut o);
            if let Err(e) = r {
                o.failed(name, &e);
            }
        }
    }
    if o.wants("unique_4M_i32") {
        let r = (|o: &mut Opts| -> Result<()> {
            eprintln!("[unique_4M_i32]");
            // 4 * 2**20 int32 in 0..999, deterministic.
            let ints = cuprum::arange_with(0, 4 << 20, 1, DType::Int64, &cpu)?
                .multiply(2654435761i64)?
                .remainder(1000)?
                .astype(DType::Int32)?;
            let ig = ints.to_device(&gpu)?;
            let (g, h) = gpu_time("unique_4M_i32", gpu, rep.min(10), || cuprum::unique(&ig))?;
            let c = if o.cpu { Some(cpu_time(|| cuprum::unique(&ints), 5, 4.0)?) } else { None };
            let ok = cuprum::array_equal(&cuprum::unique(&ig)?.to_device(&cpu)?, &cuprum::unique(&ints)?)?;
            o.record("unique_4M_i32", c, g, h, Some(ok), "radix sort, run starts, mask");
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed("unique_4M_i32", &e);
        }
    }

    // Copy bandwidth: device-to-device copy of 1 GiB, bytes read plus written.
    if o.wants("copy_bandwidth") {
        eprintln!("[copy_bandwidth]");
        let a = cuprum::ones(&[1 << 30], DType::UInt8, &gpu)?;
        let (ms, host) = gpu_time("copy_bandwidth", gpu, rep, || a.copy())?;
        let gbps = 2.0 * (1u64 << 30) as f64 / (ms * 1e-3) / 1e9;
        o.emit(format!(
            "{{\"name\": \"copy_bandwidth\", \"cuprum_ms\": {}, \"cuprum_host_ms\": {}, \"gbps\": {:.1}, \"note\": \"1 GiB device-to-device copy, read + write bytes\"}}",
            num(Some(ms)),
            num(Some(host)),
            gbps
        ));
    }

    if let Err(e) = linalg::matrices(&mut o, gpu, rep) {
        o.failed("linalg", &e);
    }
    random::workloads(&mut o, gpu, rep);
    if let Err(e) = kernels::workloads(&mut o, gpu, rep) {
        eprintln!("cuprum-bench: user kernels: {e}");
    }
    if let Err(e) = fft::workloads(&mut o, gpu, rep, &sky) {
        o.failed("fft", &e);
    }
    if let Err(e) = fuse::workloads(&mut o, gpu, rep) {
        o.failed("fused_sum_squared_diff_1e8_f32", &e);
    }
    if !CPU_ONLY.load(Ordering::Relaxed) {
        if let Err(e) = streams::workloads(&mut o, gpu, rep) {
            o.failed("streams", &e);
        }
    }

    // Big vectors (1e8 float32) on both backends.
    let n = 100_000_000usize;
    let big = [
        "dot_1e8_f32",
        "norm_1e8_f32",
        "htod_400MB_f32",
        "dtoh_400MB_f32",
        "sum_1e8_f32",
        "std_1e8_f32",
        "add_1e8_f32",
        "exp_1e8_f32",
        "cumsum_1e8_f32",
        "compress_1e8_f32",
    ];
    if big.iter().any(|w| o.wants(w)) {
        eprintln!("[making 1e8-element vectors]");
        let ha =
            cuprum::linspace_with(0.0, 1.0, n, DType::Float32, &cuprum::LinspaceOptions { endpoint: false }, &cpu)?
                .multiply(7919.0)?
                .remainder(1.0)?;
        let hb =
            cuprum::linspace_with(0.0, 1.0, n, DType::Float32, &cuprum::LinspaceOptions { endpoint: false }, &cpu)?
                .multiply(104729.0)?
                .remainder(1.0)?;
        let va = ha.to_device(&gpu)?;
        let vb = hb.to_device(&gpu)?;
        let cpu_t = |f: &dyn Fn() -> Result<cuprum::Array>, o: &Opts| -> Result<Option<f64>> {
            if o.cpu {
                Ok(Some(cpu_time(f, 5, 6.0)?))
            } else {
                Ok(None)
            }
        };
        linalg::vectors(&mut o, gpu, rep, &(ha.view(), va.view()), &(hb.view(), vb.view()))?;
        if o.wants("htod_400MB_f32") {
            eprintln!("[htod_400MB_f32]");
            let (g, h) = gpu_time("htod_400MB_f32", gpu, rep.min(10), || ha.to_device(&gpu))?;
            let ok = cuprum::array_equal(&ha.to_device(&gpu)?.to_device(&cpu)?, &ha)?;
            o.record("htod_400MB_f32", None, g, h, Some(ok), "pinned double-buffered staging");
        }
        if o.wants("dtoh_400MB_f32") {
            eprintln!("[dtoh_400MB_f32]");
            let (g, h) = gpu_time("dtoh_400MB_f32", gpu, rep.min(10), || va.to_device(&cpu))?;
            let ok = cuprum::array_equal(&va.to_device(&cpu)?, &ha)?;
            o.record("dtoh_400MB_f32", None, g, h, Some(ok), "into a new host array");
        }
        if o.wants("cumsum_1e8_f32") {
            let r = (|o: &mut Opts| -> Result<()> {
                eprintln!("[cumsum_1e8_f32]");
                let (g, h) = gpu_time("cumsum_1e8_f32", gpu, rep.min(10), || va.cumsum(None))?;
                let c = cpu_t(&|| ha.cumsum(None), o)?;
                // The CPU adds sequentially in float32 (as NumPy), the GPU in a parallel scan:
                // compare the last partial sums, relative to the total.
                let (gl, cl) = (
                    va.cumsum(None)?.slice(cuprum::s![-1])?.item::<f64>()?,
                    ha.cumsum(None)?.slice(cuprum::s![-1])?.item::<f64>()?,
                );
                let exact = ha.astype(DType::Float64)?.sum(None)?.item::<f64>()?;
                o.record(
                    "cumsum_1e8_f32",
                    c,
                    g,
                    h,
                    Some((gl - exact).abs() <= 1e-3 * exact),
                    &format!("last: gpu {gl:.1}, cpu {cl:.1} (sequential float32), exact {exact:.1}"),
                );
                Ok(())
            })(&mut o);
            if let Err(e) = r {
                o.failed("cumsum_1e8_f32", &e);
            }
        }
        if o.wants("compress_1e8_f32") {
            let r = (|o: &mut Opts| -> Result<()> {
                eprintln!("[compress_1e8_f32]");
                let mg = va.greater(0.5)?;
                let mh = ha.greater(0.5)?;
                let (g, h) = gpu_time("compress_1e8_f32", gpu, rep.min(10), || vb.mask(&mg))?;
                let c = cpu_t(&|| hb.mask(&mh), o)?;
                let ok = cuprum::array_equal(&vb.mask(&mg)?.to_device(&cpu)?, &hb.mask(&mh)?)?;
                o.record(
                    "compress_1e8_f32",
                    c,
                    g,
                    h,
                    Some(ok),
                    "vb[va > 0.5]: one selection kernel, the count read back",
                );
                Ok(())
            })(&mut o);
            if let Err(e) = r {
                o.failed("compress_1e8_f32", &e);
            }
        }
        type Op = fn(&cuprum::Array, &cuprum::Array) -> Result<cuprum::Array>;
        let ops: [(&str, Op, f64); 4] = [
            ("sum_1e8_f32", |a, _| a.sum(None), 1e-4),
            ("std_1e8_f32", |a, _| a.std(None), 1e-4),
            ("add_1e8_f32", |a, b| a.add(b), 1e-6),
            ("exp_1e8_f32", |a, _| a.exp(), 1e-6),
        ];
        for (name, f, rtol) in ops {
            if !o.wants(name) {
                continue;
            }
            eprintln!("[{name}]");
            let (g, h) = gpu_time(name, gpu, rep, || f(&va, &vb))?;
            let c = cpu_t(&|| f(&ha, &hb), &o)?;
            let ok = allclose(&f(&va, &vb)?, &f(&ha, &hb)?, rtol)?;
            o.record(name, c, g, h, Some(ok), "");
        }
    }

    for (name, why) in [] {
        if o.wants(name) {
            o.missing(name, why);
        }
    }

    // Small arrays: host overhead of separate operations.
    if o.wants("squared_diff_10k") {
        eprintln!("[squared_diff_10k]");
        let xs = cuprum::arange(10000, &gpu)?;
        let ys = xs.slice(cuprum::s![..;-1])?;
        let f = || {
            let d1 = xs.subtract(&ys)?;
            let d2 = xs.subtract(&ys)?;
            d1.multiply(&d2)
        };
        let (g, h) = gpu_time("squared_diff_10k", gpu, rep.max(100), f)?;
        let (xh, yh) = (xs.to_device(&cpu)?, ys.to_device(&cpu)?);
        let fc = || {
            let d1 = xh.subtract(&yh)?;
            let d2 = xh.subtract(&yh)?;
            d1.multiply(&d2)
        };
        let c = cpu_time(fc, 50, 2.0)?;
        let ok = cuprum::array_equal(&f()?.to_device(&cpu)?, &fc()?)?;
        o.record("squared_diff_10k", Some(c), g, h, Some(ok), "three separate operations");
    }
    // The same fused (`cuprum::fuse`, lesson 004's `@cp.fuse`): one kernel, one pass.
    let squared_diff = cuprum::fuse(|[x, y]| (&x - &y) * (&x - &y));
    for (name, n) in [("fused_squared_diff_10k", 10_000i64), ("fused_squared_diff_1e8_i64", 100_000_000)] {
        if !o.wants(name) {
            continue;
        }
        eprintln!("[{name}]");
        let r = (|o: &mut Opts| -> Result<()> {
            let xs = cuprum::arange(n, &gpu)?;
            let ys = xs.slice(cuprum::s![..;-1])?;
            let f = || squared_diff.call([&xs, &ys]);
            let (g, h) = gpu_time(name, gpu, if n > 1_000_000 { rep.min(10) } else { rep.max(100) }, f)?;
            let (xh, yh) = (xs.to_device(&cpu)?, ys.to_device(&cpu)?);
            let fc = || squared_diff.call([&xh, &yh]);
            let c = if o.cpu { Some(cpu_time(fc, if n > 1_000_000 { 3 } else { 50 }, 4.0)?) } else { None };
            let want = xh.subtract(&yh)?.square()?;
            let ok = cuprum::array_equal(&f()?.to_device(&cpu)?, &want)? && cuprum::array_equal(&fc()?, &want)?;
            o.record(name, c, g, h, Some(ok), "cuprum::fuse, one kernel");
            Ok(())
        })(&mut o);
        if let Err(e) = r {
            o.failed(name, &e);
        }
    }
    if o.wants("host_overhead_add_10k") {
        eprintln!("[host_overhead_add_10k]");
        let a = cuprum::ones(&[10_000], DType::Float32, &gpu)?;
        let b = cuprum::ones(&[10_000], DType::Float32, &gpu)?;
        for _ in 0..100 {
            a.add(&b)?;
        }
        gpu.synchronize()?;
        let reps = 2000;
        let t = Instant::now();
        for _ in 0..reps {
            a.add(&b)?;
        }
        let us = t.elapsed().as_secs_f64() / reps as f64 * 1e6;
        gpu.synchronize()?;
        o.emit(format!(
            "{{\"name\": \"host_overhead_add_10k\", \"cuprum_host_us\": {us:.3}, \"note\": \"host time per 10,000-element float32 add, launch to return (allocation included)\"}}"
        ));
    }
    if o.wants("first_call_new_kernel") {
        eprintln!("[first_call_new_kernel]");
        let dir = std::env::temp_dir().join(format!("cuprum-bench-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::env::set_var("CUPRUM_CACHE_DIR", &dir);
        let x = cuprum::arange_with(0, 10, 1, DType::Float16, &gpu)?;
        gpu.synchronize()?;
        let t = Instant::now();
        x.cos()?.sin()?.to_vec::<cuprum::f16>()?;
        let cold = t.elapsed().as_secs_f64() * 1e3;
        o.emit(format!(
            "{{\"name\": \"first_call_new_kernel\", \"cuprum_ms\": {cold:.2}, \"note\": \"host wall time, cold kernel cache: sin(cos(arange(10, float16)))\"}}"
        ));
        // The same in a new process with the disk cache filled.
        let out = std::process::Command::new(std::env::current_exe().map_err(|e| cuprum::Error::Io(e.to_string()))?)
            .arg("--first-call-child")
            .env("CUPRUM_CACHE_DIR", &dir)
            .output()
            .map_err(|e| cuprum::Error::Io(e.to_string()))?;
        let warm = String::from_utf8_lossy(&out.stdout).trim().to_string();
        o.emit(format!(
            "{{\"name\": \"first_call_cached_kernel\", \"cuprum_ms\": {}, \"note\": \"host wall time in a new process, kernels on disk, context already created\"}}",
            if warm.is_empty() { "null".to_string() } else { warm }
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
    let name = if gpu.is_cpu() {
        format!("cpu ({} threads)", rayon_threads())
    } else {
        cuprum::cuda::device_name(gpu).unwrap_or_default()
    };
    println!("DEVICE {name} cuprum {}", env!("CARGO_PKG_VERSION"));
    Ok(())
}

/// The lessons' labelling and measurements on the segmented sky (`thr` from the clip), the
/// whole pipeline from the host image, and the workloads on the shared inputs of `--inputs`.
fn labelling_workloads(o: &mut Opts, sky: &cuprum::Array, thr: f64, gpu: Device, rep: usize) -> Result<()> {
    use cuprum::scipy::ndimage as ndi;
    let cpu = Device::Cpu;
    let sky_g = sky.to_device(&gpu)?;
    let seg = cuprum::where_(&sky.greater(thr)?, 1i64, 0i64)?;
    let seg_g = seg.to_device(&gpu)?;
    let (lab, n) = ndi::label(&seg)?;
    let (lab_g, n_g) = ndi::label(&seg_g)?;
    if o.wants("label_2048") {
        eprintln!("[label_2048]");
        let (g, h) = gpu_time("label_2048", gpu, rep, || ndi::label(&seg_g))?;
        let c = if o.cpu { Some(cpu_time(|| ndi::label(&seg), 10, 5.0)?) } else { None };
        let ok = n == n_g && cuprum::array_equal(&lab, &lab_g.to_device(&cpu)?)?;
        o.record("label_2048", c, g, h, Some(ok), &format!("{n} sources, int32 labels"));
    }
    if o.wants("label_2048_8conn") {
        eprintln!("[label_2048_8conn]");
        let st = ndi::generate_binary_structure(2, 2)?;
        let (g, h) = gpu_time("label_2048_8conn", gpu, rep, || {
            ndi::label_with(&seg_g, &ndi::LabelOptions { structure: Some(&st) })
        })?;
        let c = if o.cpu {
            Some(cpu_time(|| ndi::label_with(&seg, &ndi::LabelOptions { structure: Some(&st) }), 10, 5.0)?)
        } else {
            None
        };
        let (a, na) = ndi::label_with(&seg, &ndi::LabelOptions { structure: Some(&st) })?;
        let (b, nb) = ndi::label_with(&seg_g, &ndi::LabelOptions { structure: Some(&st) })?;
        let ok = na == nb && cuprum::array_equal(&a, &b.to_device(&cpu)?)?;
        o.record("label_2048_8conn", c, g, h, Some(ok), &format!("{na} sources"));
    }
    let idx = ndi::Index::from(1..=n as i64);
    if o.wants("measure_com_sum_labels") {
        eprintln!("[measure_com_sum_labels]");
        let m = |x: &cuprum::Array, l: &cuprum::Array| -> Result<(cuprum::Array, cuprum::Array)> {
            Ok((ndi::center_of_mass(x, Some(l), idx.clone())?, ndi::sum_labels(x, Some(l), idx.clone())?))
        };
        let (g, h) = gpu_time("measure_com_sum_labels", gpu, rep, || m(&sky_g, &lab_g))?;
        let c = if o.cpu { Some(cpu_time(|| m(sky, &lab), 5, 5.0)?) } else { None };
        let (pc, fc) = m(sky, &lab)?;
        let (pg, fg) = m(&sky_g, &lab_g)?;
        let ok = allclose(&pc, &pg, 1e-9)? && allclose(&fc, &fg, 1e-9)?;
        o.record("measure_com_sum_labels", c, g, h, Some(ok), &format!("{n} labels"));
    }
    if o.wants("pipeline_end_to_end") {
        eprintln!("[pipeline_end_to_end]");
        // The program's own pipeline (cuprum-sky), host image in, positions and fluxes out.
        let params = cuprum_sky::Params::default();
        let pipeline = |img: &cuprum::Array, dev: &Device| cuprum_sky::end_to_end(img, dev, &params);
        let (g, h) = gpu_time("pipeline_end_to_end", gpu, rep.min(10), || pipeline(sky, &gpu))?;
        let c = if o.cpu { Some(cpu_time(|| pipeline(sky, &cpu), 3, 10.0)?) } else { None };
        let (a, b) = (pipeline(sky, &cpu)?, pipeline(sky, &gpu)?);
        let close = |x: &[f64], y: &[f64]| {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-9 * q.abs().max(1.0))
        };
        o.record(
            "pipeline_end_to_end",
            c,
            g,
            h,
            Some(close(&a.0, &b.0) && close(&a.1, &b.1)),
            "host sky in, host results out",
        );
    }
    let Some(dir) = o.inputs.clone() else {
        for name in ["label_3d_256", "measure_many_labels_2048"] {
            if o.wants(name) {
                o.missing(name, "needs --inputs DIR (cupy_reference.py --inputs DIR writes its inputs)");
            }
        }
        return Ok(());
    };
    if o.wants("label_3d_256") {
        eprintln!("[label_3d_256]");
        let vol = cuprum::load_npy(format!("{dir}/vol_256_bool.npy"), &cpu)?;
        let vol_g = vol.to_device(&gpu)?;
        let (g, h) = gpu_time("label_3d_256", gpu, rep, || ndi::label(&vol_g))?;
        let c = if o.cpu { Some(cpu_time(|| ndi::label(&vol), 3, 10.0)?) } else { None };
        let (a, na) = ndi::label(&vol)?;
        let (b, nb) = ndi::label(&vol_g)?;
        let ok = na == nb && cuprum::array_equal(&a, &b.to_device(&cpu)?)?;
        o.record("label_3d_256", c, g, h, Some(ok), &format!("{na} components"));
    }
    if o.wants("measure_many_labels_2048") {
        eprintln!("[measure_many_labels_2048]");
        let blobs = cuprum::load_npy(format!("{dir}/blobs_2048_f32.npy"), &cpu)?;
        let (bl, nb) = ndi::label(&blobs.greater(0.12)?)?;
        let (blobs_g, bl_g) = (blobs.to_device(&gpu)?, bl.to_device(&gpu)?);
        let bidx = ndi::Index::from(1..=nb as i64);
        let m = |x: &cuprum::Array, l: &cuprum::Array| -> Result<Vec<cuprum::Array>> {
            Ok(vec![
                ndi::center_of_mass(x, Some(l), bidx.clone())?,
                ndi::sum_labels(x, Some(l), bidx.clone())?,
                ndi::maximum(x, Some(l), bidx.clone())?,
            ])
        };
        let (g, h) = gpu_time("measure_many_labels_2048", gpu, rep, || m(&blobs_g, &bl_g))?;
        let c = if o.cpu { Some(cpu_time(|| m(&blobs, &bl), 3, 10.0)?) } else { None };
        let (a, b) = (m(&blobs, &bl)?, m(&blobs_g, &bl_g)?);
        let mut ok = true;
        for (x, y) in a.iter().zip(&b) {
            ok &= allclose(x, y, 1e-9)?;
        }
        o.record(
            "measure_many_labels_2048",
            c,
            g,
            h,
            Some(ok),
            &format!("{nb} labels: center_of_mass, sum_labels, maximum"),
        );
    }
    Ok(())
}

/// The CPU backend's thread count (rayon's default pool: `RAYON_NUM_THREADS` or the cores).
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Child process of `first_call_new_kernel`: the first call with the disk cache filled.
fn first_call_child() -> Result<()> {
    let gpu = Device::cuda(0)?;
    let x = cuprum::arange_with(0, 10, 1, DType::Float16, &gpu)?;
    gpu.synchronize()?;
    let t = Instant::now();
    x.cos()?.sin()?.to_vec::<cuprum::f16>()?;
    println!("{:.3}", t.elapsed().as_secs_f64() * 1e3);
    Ok(())
}
