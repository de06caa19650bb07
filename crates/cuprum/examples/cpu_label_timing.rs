//! Times the CPU `ndimage.label` of issue 12 on the bench's inputs: `cargo run --release
//! --example cpu_label_timing -- DIR [RUNS]`, where `DIR` holds `seg.npy` (the segmented
//! 2048x2048 sky, int64 0/1) and `vol.npy` (256^3 bool, `random(seed 11) > 0.75`). Prints the
//! median of `RUNS` (default 21) runs per workload, in milliseconds, for the default rayon pool
//! and for a 1-thread pool.

use cuprum::scipy::ndimage::{generate_binary_structure, label};
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
    let cpu = Device::Cpu;
    let seg = cuprum::load_npy(format!("{dir}/seg.npy"), &cpu)?;
    let vol = cuprum::load_npy(format!("{dir}/vol.npy"), &cpu)?;
    let st8 = generate_binary_structure(2, 2)?;
    let one =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| cuprum::Error::Runtime(e.to_string()))?;
    for (threads, pool) in [(rayon::current_num_threads(), None), (1, Some(&one))] {
        let run = |f: &(dyn Fn() -> Result<(Array, usize)> + Sync), r: usize| match pool {
            Some(p) => p.install(|| median_ms(r, f)),
            None => median_ms(r, f),
        };
        let a = run(&|| label(&seg, None), runs)?;
        let b = run(&|| label(&seg, Some(&st8)), runs)?;
        let c = run(&|| label(&vol, None), runs.div_ceil(3))?;
        println!("threads {threads}: label_2048 {a:.3} ms  label_2048_8conn {b:.3} ms  label_3d_256 {c:.3} ms");
    }
    Ok(())
}
