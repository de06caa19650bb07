//! Host buffers whose length comes from the user (a bin count, a window, a frequency count):
//! allocated fallibly, so that an impossible size is NumPy's `MemoryError`
//! ([`Error::OutOfMemory`]) instead of the process aborting.

use crate::core::device::Device;
use crate::core::error::{Error, Result};

/// NumPy's MemoryError for `n` elements of `T` on the host (their byte count saturating).
pub(crate) fn oom<T>(n: usize) -> Error {
    Error::OutOfMemory { device: Device::Cpu, bytes: n.saturating_mul(std::mem::size_of::<T>()) }
}

/// An empty `Vec` with room for `n` elements.
pub(crate) fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| oom::<T>(n))?;
    Ok(v)
}

/// `vec![value; n]`.
pub(crate) fn vec_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(n)?;
    v.resize(n, value);
    Ok(v)
}

/// The `n` values of `f(0), f(1), ...`.
pub(crate) fn vec_from_fn<T>(n: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(n)?;
    v.extend((0..n).map(f));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_memory_errors() {
        for n in [usize::MAX, 1 << 60, isize::MAX as usize] {
            let e = vec_with_capacity::<f64>(n).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::MemoryError, "{n}");
        }
        assert_eq!(vec_filled(3, 7u8).unwrap(), vec![7, 7, 7]);
        assert_eq!(vec_from_fn(4, |i| i * i).unwrap(), vec![0, 1, 4, 9]);
    }
}
