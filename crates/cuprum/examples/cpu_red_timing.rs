//! Times the CPU reductions, scans, selections, quantiles, sort and unique of issue 12 (the
//! lead's bench has no CPU-only mode yet): `cargo run --release --example cpu_red_timing
//! [NAME...]`. Prints the median of 21 runs per operation, in milliseconds. NumPy's numbers
//! for the same data come from the `python3` line printed at the end.

use cuprum::{Array, Device, Result};
use std::time::Instant;

/// A deterministic standard-normal-ish sample (xorshift64*, Box-Muller), as float32 plus 100.
fn normal_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    let mut u = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        ((s.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (a, b) = (u(), u());
            (100.0 + 10.0 * (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()) as f32
        })
        .collect()
}

fn time(name: &str, want: &[String], runs: usize, mut f: impl FnMut() -> Result<Array>) -> Result<()> {
    if !want.is_empty() && !want.iter().any(|w| name.starts_with(w.as_str())) {
        return Ok(());
    }
    f()?;
    let mut ts: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let r = f();
            let dt = t.elapsed().as_secs_f64() * 1e3;
            r.map(|_| dt)
        })
        .collect::<Result<_>>()?;
    ts.sort_by(f64::total_cmp);
    println!("{name:<28} {:>10.3} ms", ts[ts.len() / 2]);
    Ok(())
}

fn ks_clip(flat: &Array) -> Result<Array> {
    let mut flat = flat.clone();
    loop {
        let med = flat.median(None)?.item::<f64>()?;
        let std = flat.std(None)?.item::<f64>()?;
        let lower = flat.mask(&flat.greater(med - 3.0 * std)?)?;
        let both = lower.mask(&lower.less(med + 3.0 * std)?)?;
        if both.size() == flat.size() {
            return Ok(flat);
        }
        flat = both;
    }
}

fn main() -> Result<()> {
    let want: Vec<String> = std::env::args().skip(1).collect();
    let cpu = Device::Cpu;
    let n = 4 << 20;
    let x = cuprum::from_vec(normal_f32(n, 7), &cpu)?;
    let small = cuprum::from_vec(normal_f32(10_000, 9), &cpu)?;
    let ints: Vec<i32> = normal_f32(n, 11).iter().map(|v| (v.to_bits() % 1000) as i32).collect();
    let xi = cuprum::from_vec(ints, &cpu)?;
    let m = x.greater(100.0)?;
    let big = cuprum::from_vec(normal_f32(10_000_000, 13), &cpu)?;
    if let Ok(dir) = std::env::var("CPU_RED_SAVE") {
        cuprum::save_npy(format!("{dir}/x.npy"), &x)?;
        cuprum::save_npy(format!("{dir}/xi.npy"), &xi)?;
        cuprum::save_npy(format!("{dir}/big.npy"), &big)?;
        cuprum::save_npy(format!("{dir}/small.npy"), &small)?;
    }
    let r = 21;
    time("ks_clip_4M_f32", &want, 7, || ks_clip(&x))?;
    time("median_4M_f32", &want, r, || x.median(None))?;
    time("std_4M_f32", &want, r, || x.std(None))?;
    time("sum_4M_f32", &want, r, || x.sum(None))?;
    time("mean_4M_f32", &want, r, || x.mean(None))?;
    time("greater_4M_f32", &want, r, || x.greater(100.0))?;
    time("mask_4M_f32", &want, r, || x.mask(&m))?;
    time("percentile90_4M_f32", &want, r, || cuprum::percentile(&x, 90.0, None))?;
    time("sort_4M_f32", &want, r, || x.sort(None))?;
    time("argsort_4M_f32", &want, 7, || x.argsort(None))?;
    time("unique_4M_i32", &want, r, || cuprum::unique(&xi))?;
    time("cumsum_1e7_f32", &want, r, || big.cumsum(None))?;
    let mid = big.slice(cuprum::s![..1 << 20])?.copy()?;
    let quarter = big.slice(cuprum::s![..1 << 18])?.copy()?;
    time("cumsum_1M_f32", &want, r, || mid.cumsum(None))?;
    time("cumsum_256k_f32", &want, r, || quarter.cumsum(None))?;
    time("small_median_10k", &want, r, || small.median(None))?;
    time("small_std_10k", &want, r, || small.std(None))?;
    time("small_sum_10k", &want, r, || small.sum(None))?;
    time("small_sort_10k", &want, r, || small.sort(None))?;
    time("small_cumsum_10k", &want, r, || small.cumsum(None))?;
    time("small_mask_10k", &want, r, || small.mask(&small.greater(100.0)?))?;
    Ok(())
}
