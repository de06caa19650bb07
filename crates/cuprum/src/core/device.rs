//! Devices: the CPU and CUDA GPUs. An array's device is a property of the array.

use crate::core::error::{Error, Result};
use std::fmt;

/// Where an array's memory lives and where operations on it run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory; operations run on the CPU backend (multi-threaded for large arrays).
    Cpu,
    /// The CUDA GPU with this ordinal.
    Cuda(usize),
}

impl Device {
    /// The CUDA device `ordinal`, after checking that it exists (this loads the driver and
    /// creates the device's context on first use).
    pub fn cuda(ordinal: usize) -> Result<Device> {
        let n = cuda_device_count();
        if ordinal >= n {
            return Err(Error::NoDevice(if n == 0 {
                format!(
                    "cuda:{ordinal} requested but no CUDA device is available ({})",
                    crate::backend::cuda::unavailable_reason()
                )
            } else {
                format!("cuda:{ordinal} requested but only {n} CUDA device(s) exist")
            }));
        }
        crate::backend::cuda::CudaDevice::get(ordinal)?;
        Ok(Device::Cuda(ordinal))
    }

    /// The default device: `CUPRUM_DEVICE` (`cpu` or `cuda:N`) if set, else the first GPU if
    /// there is one, else the CPU.
    pub fn default_device() -> Device {
        static DEFAULT: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
        *DEFAULT.get_or_init(|| {
            if let Ok(v) = std::env::var("CUPRUM_DEVICE") {
                if let Ok(d) = v.parse::<Device>() {
                    if d == Device::Cpu || Device::cuda(d.ordinal()).is_ok() {
                        return d;
                    }
                }
                eprintln!("cuprum: CUPRUM_DEVICE={v:?} is not an available device; using the default");
            }
            match Device::cuda(0) {
                Ok(d) => d,
                Err(_) => Device::Cpu,
            }
        })
    }

    pub fn is_cpu(self) -> bool {
        matches!(self, Device::Cpu)
    }
    pub fn is_cuda(self) -> bool {
        matches!(self, Device::Cuda(_))
    }
    pub(crate) fn ordinal(self) -> usize {
        match self {
            Device::Cpu => 0,
            Device::Cuda(n) => n,
        }
    }
    /// Blocks until all work queued on this device has finished.
    pub fn synchronize(self) -> Result<()> {
        match self {
            Device::Cpu => Ok(()),
            Device::Cuda(n) => crate::backend::cuda::CudaDevice::get(n)?.synchronize(),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl std::str::FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Device> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("cpu") {
            return Ok(Device::Cpu);
        }
        if s.eq_ignore_ascii_case("cuda") || s.eq_ignore_ascii_case("gpu") {
            return Ok(Device::Cuda(0));
        }
        if let Some(n) = s.strip_prefix("cuda:").or_else(|| s.strip_prefix("gpu:")) {
            if let Ok(n) = n.parse() {
                return Ok(Device::Cuda(n));
            }
        }
        Err(Error::InvalidArgument(format!("unknown device {s:?} (expected cpu or cuda:N)")))
    }
}

/// Whether at least one CUDA GPU and its driver are usable.
pub fn cuda_is_available() -> bool {
    cuda_device_count() > 0
}

/// The number of CUDA GPUs (0 when no driver is installed).
pub fn cuda_device_count() -> usize {
    crate::backend::cuda::device_count()
}
