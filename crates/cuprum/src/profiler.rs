//! Timing of GPU and CPU work, the analogue of `cupyx.profiler.benchmark`.

use crate::core::device::Device;
use crate::core::error::Result;
use crate::cuda::Event;
use std::fmt;
use std::time::Instant;

/// Times of each repeat of a benchmarked closure, in seconds.
///
/// `gpu_times` holds the device's time of each call, from events recorded before and after it
/// (CUDA events on a GPU; on the CPU device, host-clock events), and `cpu_times` the host's wall
/// time of the call: the lessons' `np.average(r.gpu_times)` ports as is to either device.
/// [`device_times`](Self::device_times), [`mean`](Self::mean), [`best`](Self::best) and
/// [`median`](Self::median) use the device's times.
///
/// ```
/// use cuprum::profiler::{benchmark_with, BenchmarkOptions};
/// let dev = cuprum::Device::Cpu;
/// let x = cuprum::ones(&[1000], cuprum::DType::Float32, &dev)?;
/// let r = benchmark_with("sum", dev, &BenchmarkOptions { n_repeat: 5, n_warmup: 2, ..Default::default() }, || x.sum(None))?;
/// assert_eq!(r.gpu_times.len(), 5); // the CPU device's own (host-clock) events
/// assert_eq!(r.device_times().len(), 5);
/// assert!(r.best() <= r.median() && r.best() <= r.mean());
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BenchmarkResult {
    pub name: String,
    pub device: Device,
    /// Host wall time of each call (launch to return).
    pub cpu_times: Vec<f64>,
    /// The device's time of each call (events before and after it on the device's current
    /// stream: CUDA events on a GPU, the host clock's on the CPU).
    pub gpu_times: Vec<f64>,
}

fn stats(v: &[f64]) -> (f64, f64, f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, sd, min, max)
}

/// The median of a list of times (0 for an empty list).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

impl BenchmarkResult {
    /// The times of the device the work ran on, in seconds (`gpu_times`).
    pub fn device_times(&self) -> &[f64] {
        &self.gpu_times
    }
    /// The mean of [`device_times`](Self::device_times), in seconds (NaN without repeats).
    pub fn mean(&self) -> f64 {
        let v = self.device_times();
        v.iter().sum::<f64>() / v.len() as f64
    }
    /// The shortest of [`device_times`](Self::device_times), in seconds (NaN without
    /// repeats).
    pub fn best(&self) -> f64 {
        self.device_times().iter().copied().reduce(f64::min).unwrap_or(f64::NAN)
    }
    /// The median of [`device_times`](Self::device_times), in seconds (NaN without repeats).
    pub fn median(&self) -> f64 {
        if self.device_times().is_empty() {
            return f64::NAN;
        }
        median(self.device_times())
    }
    /// Median device time in milliseconds.
    pub fn median_gpu_ms(&self) -> f64 {
        1e3 * median(&self.gpu_times)
    }
    /// Median host time in milliseconds.
    pub fn median_cpu_ms(&self) -> f64 {
        1e3 * median(&self.cpu_times)
    }
}

impl fmt::Display for BenchmarkResult {
    /// CuPy's format: `name : CPU: 33.953 us +/- 2.536 (min: 31.489 / max: 38.734) us  GPU-0: ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = |f: &mut fmt::Formatter<'_>, label: &str, v: &[f64]| {
            let (m, s, lo, hi) = stats(v);
            write!(
                f,
                "{label}: {:9.3} us +/- {:.3} (min: {:9.3} / max: {:9.3}) us",
                m * 1e6,
                s * 1e6,
                lo * 1e6,
                hi * 1e6
            )
        };
        write!(f, "{:<20}:", self.name)?;
        part(f, "    CPU", &self.cpu_times)?;
        if let Device::Cuda(n) = self.device {
            part(f, &format!("    GPU-{n}"), &self.gpu_times)?;
        }
        Ok(())
    }
}

/// `benchmark`'s keywords; `Default` is CuPy's (`n_repeat=10000, n_warmup=10,
/// max_duration=inf`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BenchmarkOptions {
    pub n_repeat: usize,
    pub n_warmup: usize,
    /// Seconds: no repeat starts once the repeats have taken this long.
    pub max_duration: f64,
}

impl Default for BenchmarkOptions {
    fn default() -> Self {
        BenchmarkOptions { n_repeat: 10000, n_warmup: 10, max_duration: f64::INFINITY }
    }
}

/// `cupyx.profiler.benchmark(f)` with CuPy's defaults (10 warm-up calls, 10000 timed ones):
/// see [`benchmark_with`].
pub fn benchmark<R>(name: &str, device: Device, f: impl FnMut() -> Result<R>) -> Result<BenchmarkResult> {
    benchmark_with(name, device, &BenchmarkOptions::default(), f)
}

/// `cupyx.profiler.benchmark(f, n_repeat=..., n_warmup=..., max_duration=...)`: runs `f`
/// `n_warmup` times, then up to `n_repeat` times recording the host wall time and the time
/// between events recorded on the device's current stream before and after each call
/// (synchronising after each repeat), as CuPy does; no repeat starts after `max_duration`
/// seconds of repeats.
///
/// ```
/// use cuprum::profiler::{benchmark_with, BenchmarkOptions};
/// let dev = cuprum::Device::Cpu;
/// let x = cuprum::ones(&[1000], cuprum::DType::Float32, &dev)?;
/// let r = benchmark_with("sum", dev, &BenchmarkOptions { n_repeat: 20, ..Default::default() }, || x.sum(None))?;
/// assert_eq!((r.cpu_times.len(), r.gpu_times.len()), (20, 20));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn benchmark_with<R>(
    name: &str,
    device: Device,
    opts: &BenchmarkOptions,
    mut f: impl FnMut() -> Result<R>,
) -> Result<BenchmarkResult> {
    let BenchmarkOptions { n_repeat, n_warmup, max_duration } = *opts;
    for _ in 0..n_warmup {
        f()?;
    }
    device.synchronize()?;
    let mut cpu_times = Vec::with_capacity(n_repeat);
    let mut gpu_times = Vec::with_capacity(n_repeat);
    // The device's times from its events (on the CPU, the host clock's: the same code ported from
    // a GPU lesson prints a number, not the NaN of an empty list's mean).
    let (s, e) = (Event::new(device)?, Event::new(device)?);
    let start = Instant::now();
    for _ in 0..n_repeat {
        if start.elapsed().as_secs_f64() > max_duration {
            break;
        }
        s.record()?;
        let t = Instant::now();
        let r = f()?;
        cpu_times.push(t.elapsed().as_secs_f64());
        e.record()?;
        e.synchronize()?;
        gpu_times.push(e.elapsed_ms_since(&s)? as f64 * 1e-3);
        drop(r);
    }
    Ok(BenchmarkResult { name: name.to_string(), device, cpu_times, gpu_times })
}
