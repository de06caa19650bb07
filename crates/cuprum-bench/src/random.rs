//! The random-number workloads of WORKLOADS.md (both tables), as `cupy_reference.py` draws
//! them: a Generator seeded with 1 (cuprum's is Philox; NumPy's and CuPy's default_rng are
//! PCG64 and XORWOW: the timings depend on the generator, which is the point). Each call
//! draws from a fresh generator (seeding costs a microsecond of host time); the check is that
//! the GPU's numbers are the CPU's, bit for bit.

use super::linalg::row;
use super::Opts;
use cuprum::random::default_rng;
use cuprum::{Array, DType, Device, Result};

fn same_bits(g: &Array, c: &Array) -> Result<(bool, String)> {
    let eq = cuprum::array_equal(&g.to_device(&Device::Cpu)?, c)?;
    Ok((eq, if eq { "the CPU's numbers, bit for bit".into() } else { "differs from the CPU".into() }))
}

pub(crate) fn workloads(o: &mut Opts, gpu: Device, rep: usize) {
    let n = [100_000_000usize];
    let rng = |d: &Device| Ok::<_, cuprum::Error>(default_rng(1)?.on(d));
    row(o, "rand_1e8_f32", gpu, rep, 3, "Generator.random(float32)", |d| rng(d)?.random(&n, DType::Float32), same_bits);
    row(o, "uniform_1e8_f64", gpu, rep, 3, "Generator.random", |d| rng(d)?.random(&n, DType::Float64), same_bits);
    row(
        o,
        "normal_1e8_f32",
        gpu,
        rep,
        3,
        "ziggurat, float32",
        |d| rng(d)?.standard_normal(&n, DType::Float32),
        same_bits,
    );
    row(
        o,
        "integers_1e8_i64",
        gpu,
        rep,
        3,
        "Lemire on 32-bit draws",
        |d| rng(d)?.integers(0, Some(1000), &n, DType::Int64, false),
        same_bits,
    );
    row(
        o,
        "permutation_1e7",
        gpu,
        rep,
        3,
        "a keyed Feistel bijection, compacted",
        |d| rng(d)?.permutation(10_000_000),
        same_bits,
    );
}
