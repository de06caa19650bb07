//! The fusion workload of WORKLOADS.md's second table: `fused_sum_squared_diff_1e8_f32`,
//! `sum((x - y) * (x - y))` over 1e8 float32 through `cuprum::fuse` (the lesson's
//! `squared_diff` rows are in main.rs beside their unfused form).

use super::linalg::{on, pair, relcheck, row};
use super::Opts;
use cuprum::random::default_rng;
use cuprum::{DType, Device, Result};

pub(crate) fn workloads(o: &mut Opts, gpu: Device, rep: usize) -> Result<()> {
    let name = "fused_sum_squared_diff_1e8_f32";
    if !o.wants(name) {
        return Ok(());
    }
    let mut rng = default_rng(20)?.on(&Device::Cpu);
    let n = [100_000_000usize];
    let x = pair(rng.random(&n, DType::Float32)?, gpu)?;
    let y = pair(rng.random(&n, DType::Float32)?, gpu)?;
    let f = cuprum::fuse(|[x, y]| ((&x - &y) * (&x - &y)).sum(None));
    let note = "cuprum::fuse: the formula and its sum in one kernel (one pass on the CPU)";
    row(o, name, gpu, rep.min(10), 3, note, |d| f.call([&on(&x, d), &on(&y, d)]), relcheck(1e-4));
    Ok(())
}
