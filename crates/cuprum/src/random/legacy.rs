//! The legacy module functions the lessons call (`cp.random.rand(n)`, `cp.random.normal(...)`):
//! one global Philox generator, seeded from fresh entropy until [`seed`] is called. They draw
//! float64 (as NumPy's), and the same seed gives the same numbers on every device.

use super::{integers_dist, normal_dist, uniform_dist, Dist, Generator, Philox, Seed};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use std::sync::Mutex;

static GLOBAL: Mutex<Option<Philox>> = Mutex::new(None);

/// Draws from the global generator (its position moves on) onto `device`.
fn with_global<T>(device: &Device, f: impl FnOnce(&mut Generator) -> Result<T>) -> Result<T> {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    let bit = match g.take() {
        Some(b) => b,
        None => Philox::new(Seed::Entropy)?,
    };
    let mut gen = Generator::new(bit, device);
    let r = f(&mut gen);
    *g = Some(gen.bit_generator);
    r
}

/// `numpy.random.seed(seed)`: reseeds the global generator (a Philox stream, see the module).
///
/// ```
/// cuprum::random::seed(7)?;
/// let a = cuprum::random::rand(&[4], &cuprum::Device::Cpu)?;
/// cuprum::random::seed(7)?;
/// assert_eq!(cuprum::random::rand(&[4], &cuprum::Device::Cpu)?.to_vec::<f64>()?, a.to_vec::<f64>()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn seed(seed: impl Into<Seed>) -> Result<()> {
    let b = Philox::new(seed)?;
    *GLOBAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(b);
    Ok(())
}

/// `numpy.random.rand(*size)`: float64 uniform in [0, 1).
pub fn rand(size: &[usize], device: &Device) -> Result<Array> {
    with_global(device, |g| g.random(size, DType::Float64))
}

/// `numpy.random.random(size)` (`random_sample`): float64 uniform in [0, 1).
pub fn random(size: &[usize], device: &Device) -> Result<Array> {
    rand(size, device)
}

/// CuPy's `random.rand(*size, dtype=)` and `random_sample(size, dtype)`: uniform in [0, 1) of a
/// float dtype, float32 or float64 (float32 drawn as `Generator.random(dtype=float32)` does).
pub fn random_of(size: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    with_global(device, |g| g.random(size, dtype))
}

/// CuPy's `random.randn(*size, dtype=)` and `standard_normal(size, dtype)`: standard normals of a
/// float dtype, float32 or float64.
pub fn standard_normal_of(size: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    with_global(device, |g| g.standard_normal(size, dtype))
}

/// `numpy.random.randn(*size)`: float64 standard normals.
pub fn randn(size: &[usize], device: &Device) -> Result<Array> {
    with_global(device, |g| g.standard_normal(size, DType::Float64))
}

/// `numpy.random.uniform(low, high, size)`: float64 uniform in [low, high).
pub fn uniform(low: f64, high: f64, size: &[usize], device: &Device) -> Result<Array> {
    let d = uniform_dist(low, high)?;
    with_global(device, |g| g.draw(size, DType::Float64, d))
}

/// `numpy.random.normal(loc, scale, size)`: float64 normals.
pub fn normal(loc: f64, scale: f64, size: &[usize], device: &Device) -> Result<Array> {
    let d = normal_dist("normal", DType::Float64, loc, scale)?;
    with_global(device, |g| g.draw(size, DType::Float64, d))
}

/// `numpy.random.randint(low, high, size, dtype)`: integers in `[low, high)` (`[0, low)`
/// when `high` is `None`).
pub fn randint(low: i128, high: Option<i128>, size: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    let d: Dist = integers_dist(low, high, dtype, false)?;
    with_global(device, |g| g.draw(size, dtype, d))
}

/// `numpy.random.permutation(n)`: a random permutation of `0..n` (int64).
pub fn permutation(n: usize, device: &Device) -> Result<Array> {
    with_global(device, |g| g.permutation(n))
}

/// `numpy.random.shuffle(x)`: reorders `x` along its first axis in place.
pub fn shuffle(x: &mut Array) -> Result<()> {
    let dev = x.device();
    with_global(&dev, |g| g.shuffle(x, 0))
}
