//! Devices: the CPU and CUDA GPUs. An array's device is a property of the array. What the
//! backends know of them (which GPUs exist, opening one, the default device, synchronising)
//! is `backend/devices.rs`'s.

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
