//! What the backends know of the devices: how many CUDA GPUs there are, opening `cuda:N`, the
//! default device, synchronising one (the `Device` type itself is `core/device.rs`'s).

use crate::core::device::Device;
use crate::core::error::{Error, Result};

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

    /// Blocks until all work queued on this device has finished.
    pub fn synchronize(self) -> Result<()> {
        match self {
            Device::Cpu => Ok(()),
            Device::Cuda(n) => crate::backend::cuda::CudaDevice::get(n)?.synchronize(),
        }
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
