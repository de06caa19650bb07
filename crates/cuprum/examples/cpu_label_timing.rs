//! Times the CPU `ndimage.label` of issue 12 on the bench's inputs: `cargo run --release
//! --example cpu_label_timing -- DIR [RUNS]`, where `DIR` holds `seg.npy` (the segmented
//! 2048x2048 sky, int64 0/1) and `vol.npy` (256^3 bool, `random(seed 11) > 0.75`). Prints the
//! median of `RUNS` (default 21) runs per workload, in milliseconds, for the default rayon pool
//! and for a 1-thread pool; a third argument `2d` or `3d` times only those (for `perf`),
//! `small` times random 2-d images of 2^10 to 2^20 elements (the threading crossover).

use cuprum::scipy::ndimage::{generate_binary_structure, label, label_with, LabelOptions};
use cuprum::{Array, Device, Result};
use std::time::Instant;

fn median_ms(runs: usize, mut f: impl FnMut() -> Result<(Array, usize)>) -> Result<f64> {
    f()?;
    let mut ts = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(f64::total_cmp);
    Ok(ts[ts.len() / 2])
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| ".".into());
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(21);
    let only = args.next().unwrap_or_default();
    let cpu = Device::Cpu;
    let one =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| cuprum::Error::Runtime(e.to_string()))?;
    if only == "small" {
        // Random images, a quarter of the pixels set.
        let mut s = 0x9E3779B97F4A7C15u64;
        for side in [32usize, 64, 128, 181, 256, 362, 512, 1024] {
            let v: Vec<bool> = (0..side * side)
                .map(|_| {
                    s ^= s >> 12;
                    s ^= s << 25;
                    s ^= s >> 27;
                    s.wrapping_mul(0x2545F4914F6CDD1D) >> 62 == 0
                })
                .collect();
            let x = cuprum::from_slice(&v, &[side, side], &cpu)?;
            let a = median_ms(runs, || label(&x))?;
            let b = one.install(|| median_ms(runs, || label(&x)))?;
            println!(
                "{side}x{side} ({} elements): default pool {:.1} us, 1 thread {:.1} us",
                side * side,
                a * 1e3,
                b * 1e3
            );
        }
        return Ok(());
    }
    let (two, three) = (only != "3d", only != "2d");
    let seg = cuprum::load_npy(format!("{dir}/seg.npy"), &cpu)?;
    let vol = cuprum::load_npy(format!("{dir}/vol.npy"), &cpu)?;
    let st8 = generate_binary_structure(2, 2)?;
    for (threads, pool) in [(rayon::current_num_threads(), None), (1, Some(&one))] {
        let run = |f: &(dyn Fn() -> Result<(Array, usize)> + Sync), r: usize| match pool {
            Some(p) => p.install(|| median_ms(r, f)),
            None => median_ms(r, f),
        };
        let a = if two { run(&|| label(&seg), runs)? } else { 0.0 };
        let b = if two { run(&|| label_with(&seg, &LabelOptions { structure: Some(&st8) }), runs)? } else { 0.0 };
        let c = if three { run(&|| label(&vol), runs.div_ceil(3))? } else { 0.0 };
        println!("threads {threads}: label_2048 {a:.3} ms  label_2048_8conn {b:.3} ms  label_3d_256 {c:.3} ms");
    }
    Ok(())
}
