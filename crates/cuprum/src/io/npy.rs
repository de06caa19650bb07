//! NumPy's `.npy` format (version 1.0/2.0/3.0 headers, little-endian, C or Fortran order):
//! [`load_npy`], [`save_npy`] and their in-memory forms ([`npy_from_bytes`], [`npy_to_bytes`]).

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use std::path::Path;

fn bad(msg: impl Into<String>) -> Error {
    Error::Io(format!("invalid .npy data: {}", msg.into()))
}

/// Parses `.npy` bytes into an array on `device`.
///
/// ```
/// use cuprum::{npy, Device};
/// let a = cuprum::arange(3, &Device::Cpu)?;
/// let b = npy::npy_from_bytes(&npy::npy_to_bytes(&a)?, &Device::default_device())?;
/// assert_eq!(b.to_vec::<i64>()?, vec![0, 1, 2]);
/// assert!(npy::npy_from_bytes(b"not npy", &Device::Cpu).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn npy_from_bytes(bytes: &[u8], device: &Device) -> Result<Array> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("missing magic string"));
    }
    let major = bytes[6];
    let (hlen, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(bad("truncated header"));
            }
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        v => return Err(bad(format!("unsupported version {v}"))),
    };
    let header = bytes.get(start..start + hlen).ok_or_else(|| bad("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text"))?;
    let field = |name: &str| -> Result<&str> {
        let key = format!("'{name}':");
        let i = header.find(&key).ok_or_else(|| bad(format!("no {name} in header")))? + key.len();
        Ok(header[i..].trim_start())
    };
    let descr = field("descr")?;
    let descr = descr.strip_prefix('\'').and_then(|d| d.split('\'').next()).ok_or_else(|| bad("descr"))?;
    if descr.starts_with('>') && !descr.ends_with("1") {
        // A valid file NumPy reads: what cuprum lacks is the dtype, not a sound file.
        return Err(Error::NotImplemented(format!(".npy: big-endian dtype {descr} is not supported by cuprum")));
    }
    let dtype = DType::from_name(descr)
        .ok_or_else(|| Error::NotImplemented(format!(".npy: dtype {descr} is not supported by cuprum")))?;
    let fortran = field("fortran_order")?.starts_with("True");
    let shape_s = field("shape")?;
    let shape_s = shape_s.strip_prefix('(').and_then(|s| s.split(')').next()).ok_or_else(|| bad("shape"))?;
    let shape: Vec<usize> = shape_s
        .split(',')
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_end_matches('L').parse::<usize>().map_err(|_| bad(format!("shape entry {t:?}"))))
        .collect::<Result<_>>()?;
    let data = &bytes[start + hlen..];
    let n = crate::core::layout::checked_nbytes(&shape, dtype.itemsize())?;
    if data.len() < n {
        return Err(bad(format!("{} data bytes, expected {n}", data.len())));
    }
    let data = &data[..n];
    if fortran && shape.len() > 1 {
        let mut rev = shape.clone();
        rev.reverse();
        let a = Array::from_bytes(data, &rev, dtype, &Device::Cpu)?;
        return a.t().to_device(device);
    }
    Array::from_bytes(data, &shape, dtype, device)
}

/// Reads a `.npy` file into an array on `device` (`np.load`); a missing or malformed file is
/// an [`Error::Io`] (`OSError`), a valid file of a dtype cuprum lacks (strings, datetimes,
/// big-endian numbers) [`Error::NotImplemented`] naming it.
///
/// ```
/// use cuprum::{io, Device};
/// let dev = Device::default_device();
/// let path = std::env::temp_dir().join("cuprum_load_npy_example.npy");
/// io::save_npy(&path, &cuprum::arange(4, &dev)?)?;
/// assert_eq!(io::load_npy(&path, &dev)?.to_vec::<i64>()?, vec![0, 1, 2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn load_npy(path: impl AsRef<Path>, device: &Device) -> Result<Array> {
    let bytes = std::fs::read(path.as_ref()).map_err(|e| Error::Io(format!("{}: {e}", path.as_ref().display())))?;
    npy_from_bytes(&bytes, device)
}

/// The `.npy` (version 1.0) bytes of an array (copied to the host if needed); an example at
/// [`npy_from_bytes`].
pub fn npy_to_bytes(a: &Array) -> Result<Vec<u8>> {
    let shape = match a.ndim() {
        1 => format!("({},)", a.shape()[0]),
        _ => format!("({})", a.shape().iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", a.dtype().descr(), shape);
    let total = 10 + header.len() + 1;
    let pad = (64 - total % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + a.nbytes());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&a.to_bytes()?);
    Ok(out)
}

/// Writes an array (from any device) as a `.npy` file (`np.save`); an example at
/// [`load_npy`].
pub fn save_npy(path: impl AsRef<Path>, a: &Array) -> Result<()> {
    let bytes = npy_to_bytes(a)?;
    std::fs::write(path.as_ref(), bytes).map_err(|e| Error::Io(format!("{}: {e}", path.as_ref().display())))
}

impl Array {
    /// An array of `shape` and `dtype` from raw little-endian element bytes in C order.
    pub fn from_bytes(data: &[u8], shape: &[usize], dtype: DType, device: &Device) -> Result<Array> {
        let n = crate::core::layout::checked_nbytes(shape, dtype.itemsize())?;
        if data.len() != n {
            return Err(Error::InvalidArgument(format!(
                "{} bytes given for shape {} of {dtype} ({n} bytes)",
                data.len(),
                crate::core::error::shape_str(shape)
            )));
        }
        if dtype == DType::Bool && data.iter().any(|&b| b > 1) {
            return Err(Error::InvalidArgument("bool data must be 0 or 1".into()));
        }
        let host = Array::alloc(shape, dtype, Device::Cpu, true)?;
        // SAFETY: `host` is a fresh block of `n` bytes (no other handle yet) and `data` has
        // exactly `n` bytes (checked above); bool data was checked to be 0 or 1.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), host.storage.cpu().expect("host").ptr(), n) };
        if device.is_cpu() {
            Ok(host)
        } else {
            host.to_device(device)
        }
    }

    /// The raw element bytes in C order (copied to the host if needed).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let host = if self.device().is_cpu() { self.as_contiguous()? } else { self.to_device(&Device::Cpu)? };
        let _l = crate::backend::storage::CpuLocks::new(&[&host.storage], &[]);
        // `wrapping_add`: an empty view's offset may lie past the end of its block.
        let p = host.storage.cpu().expect("host").ptr().wrapping_add(host.offset);
        // SAFETY: `host` is C-contiguous on the CPU: a non-empty one has its `nbytes()` bytes at
        // `p`, within the block; an empty one reads nothing through a non-null `p`. The read
        // lock keeps writers out while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts(p, host.nbytes()) }.to_vec())
    }
}
