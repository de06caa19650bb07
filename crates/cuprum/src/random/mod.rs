//! `numpy.random`: NumPy's `Generator` on the Philox4x64-10 bit generator, with the same
//! numbers on the CPU and on a GPU for the same seed.
//!
//! ```
//! use cuprum::{random, DType, Device};
//! // np.random.Generator(np.random.Philox(42)).random(3)
//! let mut rng = random::default_rng(42)?.on(&Device::Cpu);
//! let x = rng.random(&[3], DType::Float64)?;
//! assert_eq!(x.to_vec::<f64>()?, [0.08607763073528474, 0.14155732377913233, 0.27009303504774695]);
//! let z = rng.standard_normal(&[2, 2], DType::Float32)?;      // (2, 2) float32
//! let k = rng.integers(0, Some(1024), &[5], DType::Int64, false)?;
//! assert!(k.to_vec::<i64>()?.iter().all(|&v| (0..1024).contains(&v)));
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! ## The streams
//! Philox is counter-based: word `j` of the stream is a function of `j` and the key, so every
//! output is computed from its own position, by any thread, on either device. The key comes
//! from NumPy's [`SeedSequence`], so for the same seed:
//! - `random` (float64 and float32), `uniform`, and `integers` give **NumPy's numbers, bit for
//!   bit**, as `np.random.Generator(np.random.Philox(seed))` draws them (a fixture test). For
//!   `integers` this holds whenever Lemire's method accepts every first draw: always for ranges
//!   of a power of two (and bool), and with probability `1 - n (2^b mod range) / 2^b` otherwise
//!   (b = 32 for 4- and 8-byte dtypes with ranges below 2^32: below 1e-7 per output for
//!   ranges up to 400).
//! - NumPy's sequential algorithms consume the stream in an order no parallel method can
//!   follow (a rejection moves every later output). Here output `i` reads its first draw
//!   from the position NumPy would give it if nothing were rejected, and any further draws
//!   (Lemire's rejections, the ziggurat's wedges and tail, about 1.2% of normal outputs)
//!   from a substream of its own, counter `[call, i, k, tag]`, which no other output reads.
//!   The distribution is exactly NumPy's algorithm's; the values after a rejection differ
//!   from NumPy's.
//! - `standard_normal`/`normal` use NumPy's ziggurat (256 layers, R = 3.6541528853610088, the
//!   same bit layout of each 64- or 32-bit draw) with tables computed here, and the wedge and
//!   tail tests in float64 with `exp` and `log` written out with the same IEEE operations on
//!   both devices, so the CPU and the GPU give the same bits.
//! - `default_rng(seed)` is a Philox generator, where NumPy's is PCG64 (sequential): the same
//!   seed gives other numbers than `np.random.default_rng(seed)`. The legacy functions
//!   ([`rand`], [`randn`], ...) draw from one global Philox generator, not NumPy's MT19937.

mod bijection;
mod cpu;
mod cuda;
mod dist;
mod legacy;
mod philox;
mod samplers;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use dist::Dist;
use dist::Kind;
pub use legacy::{
    normal, permutation, rand, randint, randn, random, random_of, seed, shuffle, standard_normal_of, uniform,
};
pub use philox::{Philox, Seed, SeedSequence};

/// `numpy.random.Generator`: distributions drawn from a [`Philox`] bit generator into arrays
/// on one device.
#[derive(Clone, Debug)]
pub struct Generator {
    bit_generator: Philox,
    device: Device,
}

/// `numpy.random.default_rng(seed)`: a [`Generator`] on a [`Philox`] bit generator seeded
/// through [`SeedSequence`], making arrays on [`Device::default_device`] (the first GPU, else
/// the CPU; choose another with [`Generator::on`]). `Seed::Entropy` (or `None::<u64>`) seeds
/// from fresh entropy. A negative seed is NumPy's ValueError.
pub fn default_rng(seed: impl Into<Seed>) -> Result<Generator> {
    Ok(Generator::new(Philox::new(seed)?, &Device::default_device()))
}

impl Generator {
    /// `Generator(bit_generator)`, making arrays on `device`.
    pub fn new(bit_generator: Philox, device: &Device) -> Generator {
        Generator { bit_generator, device: *device }
    }

    /// The same generator (same stream position), making arrays on `device`.
    pub fn on(self, device: &Device) -> Generator {
        Generator { device: *device, ..self }
    }

    /// The device the arrays are made on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The bit generator (its key and position).
    pub fn bit_generator(&self) -> &Philox {
        &self.bit_generator
    }

    /// The bit generator, to `advance` it.
    pub fn bit_generator_mut(&mut self) -> &mut Philox {
        &mut self.bit_generator
    }

    /// Draws `dist` into a new array of `shape` and `dtype`.
    fn draw(&mut self, shape: &[usize], dtype: DType, dist: Dist) -> Result<Array> {
        let out = Array::alloc(shape, dtype, self.device, false)?;
        self.draw_into(&out, dist)?;
        Ok(out)
    }

    /// The one dispatch point: the stream positions of `out.size()` outputs, then the device's
    /// fill of the C-contiguous `out`.
    fn draw_into(&mut self, out: &Array, dist: Dist) -> Result<()> {
        let n = out.size();
        let s = self.bit_generator.plan(n, dist.bits(), dist.per_draw());
        if n == 0 {
            return Ok(());
        }
        match out.device() {
            Device::Cpu => cpu::fill(out, dist, &s),
            Device::Cuda(_) => cuda::fill(out, dist, &s),
        }
    }

    /// Draws into `out` (any layout, this generator's device): a contiguous `out` is filled in
    /// place; a view gets the values in C order of its elements.
    fn draw_out(&mut self, out: &mut Array, dist: Dist, what: &str) -> Result<()> {
        if out.device() != self.device {
            return Err(Error::DeviceMismatch { op: what.into(), a: self.device, b: out.device() });
        }
        if out.is_c_contiguous() {
            return self.draw_into(out, dist);
        }
        let tmp = self.draw(out.shape(), out.dtype(), dist)?;
        out.assign(&tmp)
    }

    /// `Generator.random(size, dtype)`: uniform floats in [0, 1), float64 from 53 bits of a
    /// word, float32 from 24 bits of a 32-bit draw (NumPy's numbers, bit for bit). Other
    /// dtypes are NumPy's TypeError.
    pub fn random(&mut self, size: &[usize], dtype: DType) -> Result<Array> {
        self.draw(size, dtype, float_dist("random", dtype, 0.0, 1.0)?)
    }

    /// `Generator.random(out=out)`.
    pub fn random_out(&mut self, out: &mut Array) -> Result<()> {
        let d = float_dist("random", out.dtype(), 0.0, 1.0)?;
        self.draw_out(out, d, "random")
    }

    /// `Generator.uniform(low, high, size)`: float64 `low + (high - low) u` (NumPy's numbers,
    /// bit for bit). `high < low` is NumPy's ValueError, an infinite `high - low` its
    /// OverflowError.
    pub fn uniform(&mut self, low: f64, high: f64, size: &[usize]) -> Result<Array> {
        self.draw(size, DType::Float64, uniform_dist(low, high)?)
    }

    /// `Generator.integers(low, high, size, dtype, endpoint)`: integers in `[low, high)` (or
    /// `[low, high]` with `endpoint`); `high = None` draws from `[0, low)`. Any integer dtype
    /// or bool, Lemire's method on NumPy's draws (see the module's notes on the streams).
    pub fn integers(
        &mut self,
        low: i128,
        high: Option<i128>,
        size: &[usize],
        dtype: DType,
        endpoint: bool,
    ) -> Result<Array> {
        let d = integers_dist(low, high, dtype, endpoint)?;
        self.draw(size, dtype, d)
    }

    /// `Generator.standard_normal(size, dtype)`: float64 or float32 standard normals (NumPy's
    /// ziggurat; see the module's notes).
    pub fn standard_normal(&mut self, size: &[usize], dtype: DType) -> Result<Array> {
        self.draw(size, dtype, standard_normal_dist(dtype)?)
    }

    /// `Generator.standard_normal(out=out)`.
    pub fn standard_normal_out(&mut self, out: &mut Array) -> Result<()> {
        let d = standard_normal_dist(out.dtype())?;
        self.draw_out(out, d, "standard_normal")
    }

    /// `Generator.normal(loc, scale, size)`: float64 `loc + scale z`. A negative `scale` is
    /// NumPy's ValueError.
    pub fn normal(&mut self, loc: f64, scale: f64, size: &[usize]) -> Result<Array> {
        self.draw(size, DType::Float64, normal_dist("normal", DType::Float64, loc, scale)?)
    }

    /// `Generator.permutation(n)`: a random permutation of `0..n` (int64), the same on both
    /// devices: the values below `n` of a keyed Feistel bijection of `[0, 2^bits)`, in the
    /// order of their arguments (`2^bits` the smallest power of two above `n`; the keys are
    /// twelve words of the stream). Each output is written once, without a sort. NumPy
    /// shuffles sequentially (Fisher-Yates), so its permutations for a seed differ.
    ///
    /// ```
    /// use cuprum::{random, Device};
    /// let mut g = random::default_rng(7)?.on(&Device::Cpu);
    /// let mut p = g.permutation(10)?.to_vec::<i64>()?;
    /// p.sort();
    /// assert_eq!(p, (0..10).collect::<Vec<i64>>());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn permutation(&mut self, n: usize) -> Result<Array> {
        let words = self.bit_generator.random_raw(bijection::KEY_WORDS);
        let b = bijection::Bijection::new(n as u64, &words);
        let out = Array::alloc(&[n], DType::Int64, self.device, false)?;
        if n == 0 {
            return Ok(out);
        }
        match self.device {
            Device::Cpu => cpu::permutation(&out, &b)?,
            Device::Cuda(_) => cuda::permutation(&out, &b)?,
        }
        Ok(out)
    }

    /// `Generator.permutation(x, axis)`: a copy of `x` with its slices along `axis` in a
    /// random order.
    pub fn permutation_of(&mut self, x: &Array, axis: isize) -> Result<Array> {
        self.same_device(x, "permutation")?;
        let ax = axis_of(x, axis)?;
        let p = self.permutation(x.shape()[ax])?;
        x.take(&p, ax as isize)
    }

    /// `Generator.shuffle(x, axis)`: reorders the slices of `x` along `axis` in place.
    pub fn shuffle(&mut self, x: &mut Array, axis: isize) -> Result<()> {
        let y = self.permutation_of(x, axis)?;
        x.assign(&y)
    }

    /// `Generator.permuted(x, axis)`: each 1-d slice along `axis` shuffled independently
    /// (`None`: the flattened array, reshaped back), in a new array.
    pub fn permuted(&mut self, x: &Array, axis: Option<isize>) -> Result<Array> {
        self.same_device(x, "permuted")?;
        match axis {
            None => {
                let p = self.permutation(x.size())?;
                x.reshape([x.size()])?.take(&p, 0)?.reshape(x.shape())
            }
            Some(a) => {
                let ax = axis_of(x, a)?;
                let keys = self.integers(0, Some(u64::MAX as i128), x.shape(), DType::UInt64, true)?;
                let idx = keys.argsort(ax as isize)?;
                crate::take_along_axis(x, &idx, ax as isize)
            }
        }
    }

    /// Draws `n` outputs of `kind` (float64, float32 or int64 by `dtype`).
    fn sample(&mut self, kind: Kind, a: f64, b: f64, n: u64, size: &[usize], dtype: DType) -> Result<Array> {
        self.draw(size, dtype, Dist::Sample { kind, a, b, n, f32_: dtype == DType::Float32 })
    }

    /// `Generator.standard_exponential(size, dtype)`: `-ln(1 - U)` (NumPy's
    /// `method="inv"`), float64 or float32 (computed in float64, then rounded).
    pub fn standard_exponential(&mut self, size: &[usize], dtype: DType) -> Result<Array> {
        float_dtype("standard_exponential", dtype)?;
        self.sample(Kind::Exponential, 1.0, 0.0, 0, size, dtype)
    }

    /// `Generator.standard_exponential(out=out)`.
    pub fn standard_exponential_out(&mut self, out: &mut Array) -> Result<()> {
        let dt = float_dtype("standard_exponential", out.dtype())?;
        let d = Dist::Sample { kind: Kind::Exponential, a: 1.0, b: 0.0, n: 0, f32_: dt == DType::Float32 };
        self.draw_out(out, d, "standard_exponential")
    }

    /// `Generator.exponential(scale, size)`: float64 `scale * E`. A negative `scale` is
    /// NumPy's ValueError.
    pub fn exponential(&mut self, scale: f64, size: &[usize]) -> Result<Array> {
        non_negative("scale", scale)?;
        self.sample(Kind::Exponential, scale, 0.0, 0, size, DType::Float64)
    }

    /// `Generator.standard_gamma(shape, size, dtype)`: gamma of scale 1 by NumPy's algorithms
    /// (Marsaglia and Tsang for shape >= 1, Johnk's below), float64 or float32 (computed in
    /// float64, then rounded).
    pub fn standard_gamma(&mut self, shape: f64, size: &[usize], dtype: DType) -> Result<Array> {
        non_negative("shape", shape)?;
        float_dtype("standard_gamma", dtype)?;
        self.sample(Kind::Gamma, shape, 1.0, 0, size, dtype)
    }

    /// `Generator.standard_gamma(shape, out=out)`.
    pub fn standard_gamma_out(&mut self, shape: f64, out: &mut Array) -> Result<()> {
        non_negative("shape", shape)?;
        let dt = float_dtype("standard_gamma", out.dtype())?;
        let d = Dist::Sample { kind: Kind::Gamma, a: shape, b: 1.0, n: 0, f32_: dt == DType::Float32 };
        self.draw_out(out, d, "standard_gamma")
    }

    /// `Generator.gamma(shape, scale, size)`: float64 `scale * G(shape)`.
    pub fn gamma(&mut self, shape: f64, scale: f64, size: &[usize]) -> Result<Array> {
        non_negative("shape", shape)?;
        non_negative("scale", scale)?;
        self.sample(Kind::Gamma, shape, scale, 0, size, DType::Float64)
    }

    /// `Generator.beta(a, b, size)`: float64 in [0, 1] (Johnk's method when both shapes are
    /// at most 1, else `Ga / (Ga + Gb)`). Shapes that are not positive are NumPy's ValueError.
    pub fn beta(&mut self, a: f64, b: f64, size: &[usize]) -> Result<Array> {
        positive("a", a)?;
        positive("b", b)?;
        self.sample(Kind::Beta, a, b, 0, size, DType::Float64)
    }

    /// `Generator.poisson(lam, size)`: int64 counts (PTRS for lam >= 10, products of uniforms
    /// below). A negative or NaN `lam`, or one above NumPy's limit (about 9.2e18), is NumPy's
    /// ValueError.
    pub fn poisson(&mut self, lam: f64, size: &[usize]) -> Result<Array> {
        // np.iinfo(np.int64).max - 10 sqrt(np.iinfo(np.int64).max), as NumPy's limit
        const LAM_MAX: f64 = 9.223372006484771e18;
        if lam.is_nan() || lam < 0.0 {
            return Err(Error::Value("lam < 0 or lam is NaN".into()));
        }
        if lam > LAM_MAX {
            return Err(Error::Value("lam value too large".into()));
        }
        self.sample(Kind::Poisson, lam, 0.0, 0, size, DType::Int64)
    }

    /// `Generator.binomial(n, p, size)`: int64 successes in `n` trials (inversion when
    /// `min(p, 1 - p) n <= 30`, else BTPE). A negative `n` or a `p` outside [0, 1] is NumPy's
    /// ValueError.
    pub fn binomial(&mut self, n: i64, p: f64, size: &[usize]) -> Result<Array> {
        if n < 0 {
            return Err(Error::Value("n < 0".into()));
        }
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::Value("p < 0, p > 1 or p is NaN".into()));
        }
        self.sample(Kind::Binomial, p, 0.0, n as u64, size, DType::Int64)
    }

    /// `Generator.lognormal(mean, sigma, size)`: float64 `exp(mean + sigma * Z)`.
    pub fn lognormal(&mut self, mean: f64, sigma: f64, size: &[usize]) -> Result<Array> {
        non_negative("sigma", sigma)?;
        self.sample(Kind::LogNormal, mean, sigma, 0, size, DType::Float64)
    }

    /// `Generator.choice(n, size)`: int64 indices into a population of `n`, uniform with
    /// replacement (see [`Generator::choice`]).
    pub fn choice_index(&mut self, n: usize, size: &[usize]) -> Result<Array> {
        self.choice_index_with(n, size, &ChoiceOptions::default())
    }

    /// `Generator.choice(n, size, replace, p)`: as [`choice_index`](Self::choice_index)
    /// (`axis` does not apply).
    pub fn choice_index_with(&mut self, n: usize, size: &[usize], opts: &ChoiceOptions<'_>) -> Result<Array> {
        let (replace, p) = (opts.replace, opts.p);
        let count: usize = size.iter().product();
        if n == 0 && count > 0 {
            return Err(Error::Value("a cannot be empty unless no samples are taken".into()));
        }
        let cdf = match p {
            Some(p) => Some(choice_weights(p, n)?),
            None => None,
        };
        if count == 0 || (replace && n == 0) {
            return crate::zeros(size, DType::Int64, &self.device);
        }
        if replace {
            return match cdf {
                // NumPy's: the cdf searched for uniforms (side right): NumPy's numbers.
                Some((_, cdf)) => {
                    let u = self.random(size, DType::Float64)?;
                    let c = crate::from_vec(cdf, &self.device)?;
                    crate::searchsorted(&c, &u, crate::Side::Right)?.astype(DType::Int64)
                }
                None => self.integers(0, Some(n as i128), size, DType::Int64, false),
            };
        }
        if count > n {
            return Err(Error::Value("Cannot take a larger sample than population when replace is False".into()));
        }
        match cdf {
            None => {
                // The first `count` of a random permutation.
                let perm = self.permutation(n)?;
                perm.slice(crate::s![..count as isize])?.copy()?.reshape(size.to_vec())
            }
            Some((mut weights, mut w)) => {
                // NumPy's rounds: uniforms for the missing outputs searched in the cdf of the
                // weights not yet taken, keeping each round's new values in order (NumPy's
                // numbers: the uniforms are `random`'s, the cdf is summed in the same order).
                if weights.iter().filter(|&&x| x > 0.0).count() < count {
                    return Err(Error::Value("Fewer non-zero entries in p than size".into()));
                }
                let mut found: Vec<i64> = Vec::with_capacity(count);
                let mut taken = vec![false; n];
                while found.len() < count {
                    let u = self.random(&[count - found.len()], DType::Float64)?.to_vec::<f64>()?;
                    if !found.is_empty() {
                        for &f in &found {
                            weights[f as usize] = 0.0;
                        }
                        w = cumulative(&weights);
                    }
                    for x in u {
                        let k = w.partition_point(|&c| c <= x) as i64;
                        if !taken[k as usize] {
                            taken[k as usize] = true;
                            found.push(k);
                        }
                    }
                }
                crate::from_vec(found, &self.device)?.reshape(size.to_vec())
            }
        }
    }

    /// `Generator.choice(a, size)`: a sample of the slices of `a` along its first axis,
    /// uniform, with replacement; [`choice_with`](Self::choice_with) takes NumPy's `replace`,
    /// `p` (1-d, one probability per slice, summing to 1 within sqrt(eps)) and `axis`.
    ///
    /// With replacement the indices are NumPy's numbers for the same Philox seed (with `p`:
    /// uniforms searched in the cumulative sum; without: `integers`); without replacement and
    /// with `p`, NumPy's rounds, NumPy's numbers too; without replacement and without `p`, the
    /// first `size` of a random permutation (NumPy's Floyd and tail shuffles are sequential:
    /// other numbers, the same distribution).
    ///
    /// ```
    /// use cuprum::{random, Device};
    /// let mut g = random::default_rng(1)?.on(&Device::Cpu);
    /// let a = cuprum::from_vec(vec![10.0f64, 20.0, 30.0, 40.0], &Device::Cpu)?;
    /// let p = cuprum::from_vec(vec![0.1f64, 0.0, 0.6, 0.3], &Device::Cpu)?;
    /// assert_eq!(g.choice(&a, &[3])?.shape(), &[3]);
    /// let x = g.choice_with(&a, &[6], &random::ChoiceOptions { p: Some(&p), ..Default::default() })?;
    /// assert!(x.to_vec::<f64>()?.iter().all(|&v| v != 20.0));
    /// let all = random::ChoiceOptions { replace: false, ..Default::default() };
    /// let y = g.choice_with(&a, &[4], &all)?.sort(0)?;  // all four, in some order
    /// assert_eq!(y.to_vec::<f64>()?, [10.0, 20.0, 30.0, 40.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn choice(&mut self, a: &Array, size: &[usize]) -> Result<Array> {
        self.choice_with(a, size, &ChoiceOptions::default())
    }

    /// `Generator.choice(a, size, replace, p, axis)`: as [`choice`](Self::choice).
    pub fn choice_with(&mut self, a: &Array, size: &[usize], opts: &ChoiceOptions<'_>) -> Result<Array> {
        self.same_device(a, "choice")?;
        let ax = axis_of(a, opts.axis)?;
        let idx = self.choice_index_with(a.shape()[ax], size, opts)?;
        a.take(&idx, ax as isize)
    }

    fn same_device(&self, x: &Array, what: &str) -> Result<()> {
        if x.device() != self.device {
            return Err(Error::DeviceMismatch { op: what.into(), a: self.device, b: x.device() });
        }
        Ok(())
    }
}

/// The keywords of [`Generator::choice_with`]; `Default` is NumPy's (`replace=True`,
/// `p=None`, `axis=0`).
#[derive(Clone, Copy, Debug)]
pub struct ChoiceOptions<'a> {
    /// Sample with replacement.
    pub replace: bool,
    /// The probability of each slice (1-d float, summing to 1); `None`: uniform.
    pub p: Option<&'a Array>,
    /// The axis whose slices are sampled (negative from the end).
    pub axis: isize,
}

impl Default for ChoiceOptions<'_> {
    fn default() -> Self {
        ChoiceOptions { replace: true, p: None, axis: 0 }
    }
}

/// `axis` of `x` (negative from the end); NumPy's AxisError outside, and for a 0-d `x`.
fn axis_of(x: &Array, axis: isize) -> Result<usize> {
    let nd = x.ndim() as isize;
    let a = if axis < 0 { axis + nd } else { axis };
    if a < 0 || a >= nd {
        return Err(Error::AxisOutOfRange { axis, ndim: x.ndim() });
    }
    Ok(a as usize)
}

/// NumPy's TypeError for a dtype other than float64 and float32.
fn float_dtype(what: &str, dtype: DType) -> Result<DType> {
    match dtype {
        DType::Float64 | DType::Float32 => Ok(dtype),
        _ => Err(Error::Type(format!("Unsupported dtype dtype('{dtype}') for {what}"))),
    }
}

/// NumPy's check of a non-negative parameter (NaN passes; a negative one, -0.0 included, is
/// a ValueError).
fn non_negative(name: &str, v: f64) -> Result<()> {
    if !v.is_nan() && v.is_sign_negative() {
        return Err(Error::Value(format!("{name} < 0")));
    }
    Ok(())
}

/// NumPy's check of a positive parameter (NaN fails).
fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_nan() || v <= 0.0 {
        return Err(Error::Value(format!("{name} <= 0")));
    }
    Ok(())
}

/// NumPy's running sum (in order), divided by its last value.
fn cumulative(p: &[f64]) -> Vec<f64> {
    let mut c = Vec::with_capacity(p.len());
    let mut s = 0.0;
    for &x in p {
        s += x;
        c.push(s);
    }
    let last = s;
    c.iter_mut().for_each(|v| *v /= last);
    c
}

/// `choice`'s checks of `p` (NumPy's messages): its values (float64, on the host) and their
/// normalised cumulative sum.
fn choice_weights(p: &Array, n: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    if p.ndim() != 1 {
        return Err(Error::Value("p must be 1-dimensional".into()));
    }
    if p.size() != n {
        return Err(Error::Value("a and p must have same size".into()));
    }
    let eps = if p.dtype() == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let p = p.astype(DType::Float64)?.to_vec::<f64>()?;
    if p.iter().any(|x| x.is_nan()) {
        return Err(Error::Value("probabilities contain NaN".into()));
    }
    if p.iter().any(|&x| x < 0.0) {
        return Err(Error::Value("probabilities are not non-negative".into()));
    }
    // NumPy sums p with np.sum (pairwise); this is within an ulp or two of it.
    let total: f64 = p.iter().sum();
    if (total - 1.0).abs() > eps.sqrt() {
        return Err(Error::Value("probabilities do not sum to 1".into()));
    }
    let c = cumulative(&p);
    Ok((p, c))
}

fn float_dist(what: &str, dtype: DType, low: f64, scale: f64) -> Result<Dist> {
    match dtype {
        DType::Float64 => Ok(Dist::Uniform64 { low, scale }),
        DType::Float32 => Ok(Dist::Uniform32 { low: low as f32, scale: scale as f32 }),
        _ => Err(Error::Type(format!("Unsupported dtype dtype('{dtype}') for {what}"))),
    }
}

pub(crate) fn uniform_dist(low: f64, high: f64) -> Result<Dist> {
    let scale = high - low;
    if scale < 0.0 {
        return Err(Error::Value("high - low < 0".into()));
    }
    if !scale.is_finite() {
        return Err(Error::Overflow("high - low range exceeds valid bounds".into()));
    }
    Ok(Dist::Uniform64 { low, scale })
}

pub(crate) fn normal_dist(what: &str, dtype: DType, loc: f64, scale: f64) -> Result<Dist> {
    if scale.is_nan() || scale < 0.0 {
        return Err(Error::Value("scale < 0".into()));
    }
    normal_of(what, dtype, loc, scale, false)
}

/// `standard_normal`'s: z itself (NumPy's `random_standard_normal` keeps the ziggurat's -0.0,
/// which `0 + 1 * z` would turn into +0.0).
pub(crate) fn standard_normal_dist(dtype: DType) -> Result<Dist> {
    normal_of("standard_normal", dtype, 0.0, 1.0, true)
}

fn normal_of(what: &str, dtype: DType, loc: f64, scale: f64, standard: bool) -> Result<Dist> {
    match dtype {
        DType::Float64 => Ok(Dist::Normal64 { loc, scale, standard }),
        DType::Float32 => Ok(Dist::Normal32 { loc: loc as f32, scale: scale as f32, standard }),
        _ => Err(Error::Type(format!("Unsupported dtype dtype('{dtype}') for {what}"))),
    }
}

/// NumPy's checks and the Lemire parameters of `integers`.
pub(crate) fn integers_dist(low: i128, high: Option<i128>, dtype: DType, endpoint: bool) -> Result<Dist> {
    let (low, high) = match high {
        Some(h) => (low, h),
        None if low <= 0 && !endpoint => return Err(Error::Value("high <= 0".into())),
        None => (0, low),
    };
    let (min, max): (i128, i128) = match dtype {
        DType::Bool => (0, 1),
        DType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DType::UInt8 => (0, u8::MAX as i128),
        DType::UInt16 => (0, u16::MAX as i128),
        DType::UInt32 => (0, u32::MAX as i128),
        DType::UInt64 => (0, u64::MAX as i128),
        _ => return Err(Error::Type(format!("Unsupported dtype dtype('{dtype}') for integers"))),
    };
    let hi = if endpoint { high } else { high - 1 };
    if low < min {
        return Err(Error::Value(format!("low is out of bounds for {dtype}")));
    }
    if high > max + (!endpoint) as i128 {
        return Err(Error::Value(format!("high is out of bounds for {dtype}")));
    }
    if low > hi {
        let msg = if endpoint { "low > high" } else { "low >= high" };
        return Err(Error::Value(msg.into()));
    }
    let rng = (hi - low) as u64;
    let bits = match dtype.itemsize() {
        _ if dtype == DType::Bool => 1,
        1 => 8,
        2 => 16,
        4 => 32,
        _ if rng <= u32::MAX as u64 => 32,
        _ => 64,
    };
    Ok(Dist::Bounded { bits, rng, off: low as u64, threshold: Dist::threshold(bits, rng) })
}
