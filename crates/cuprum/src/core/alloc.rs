//! Host buffers whose length comes from the user (a bin count, a window, a frequency count):
//! allocated fallibly, so that an impossible size is NumPy's `MemoryError`
//! ([`Error::OutOfMemory`]) instead of the process aborting.
//!
//! A fallible reservation is not enough where the kernel overcommits memory
//! (`vm.overcommit_memory = 1`, common on GPU hosts): a reservation of terabytes succeeds there,
//! and the process is killed when its pages are touched. So a host request larger than the
//! machine could ever back ([`host_limit`]: its RAM and swap, or the memory limit of its cgroup)
//! is refused before it is made, as Linux's default heuristic refuses it.

use crate::core::device::Device;
use crate::core::error::{Error, Result};

/// NumPy's MemoryError for `n` elements of `T` on the host (their byte count saturating).
pub(crate) fn oom<T>(n: usize) -> Error {
    Error::OutOfMemory { device: Device::Cpu, bytes: n.saturating_mul(std::mem::size_of::<T>()) }
}

/// The most bytes one host allocation may ask for: the machine's RAM plus swap, or less where a
/// cgroup limits the process (cgroup v2's `memory.max`, v1's `memory.limit_in_bytes`); no
/// limit where neither is known (not Linux). Read once.
pub(crate) fn host_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let mut limit = usize::MAX;
        if let Some(info) = read("/proc/meminfo") {
            let kb = |key: &str| -> Option<usize> {
                let line = info.lines().find(|l| l.starts_with(key))?;
                line[key.len()..].trim().trim_end_matches("kB").trim().parse::<usize>().ok()
            };
            if let Some(ram) = kb("MemTotal:") {
                limit = ram.saturating_add(kb("SwapTotal:").unwrap_or(0)).saturating_mul(1024);
            }
        }
        let num = |p: &str| read(p).and_then(|s| s.trim().parse::<usize>().ok());
        // "max" (no limit) does not parse; v1's "no limit" is a huge number, which min() ignores.
        if let Some(m) = num("/sys/fs/cgroup/memory.max").or_else(|| num("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
        {
            let swap = num("/sys/fs/cgroup/memory.swap.max").unwrap_or(0);
            limit = limit.min(m.saturating_add(swap));
        }
        limit
    })
}

/// `Ok` when `bytes` of host memory could be backed ([`host_limit`]), else NumPy's MemoryError.
pub(crate) fn check_host(bytes: usize) -> Result<()> {
    if bytes > host_limit() {
        return Err(Error::OutOfMemory { device: Device::Cpu, bytes });
    }
    Ok(())
}

/// `Ok` when `n` elements of `T` could be held on the host ([`check_host`] of their bytes).
pub(crate) fn check_host_len<T>(n: usize) -> Result<()> {
    check_host(n.saturating_mul(std::mem::size_of::<T>()))
}

/// An empty `Vec` with room for `n` elements.
pub(crate) fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    check_host_len::<T>(n)?;
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
        // More than the machine has (RAM and swap) is refused before it is asked for, whatever
        // the kernel's overcommit policy would let a reservation do.
        let limit = host_limit();
        assert!(limit > 1 << 20, "{limit}");
        if limit < usize::MAX / 2 {
            assert_eq!(check_host(limit + 1).unwrap_err().kind(), crate::ErrorKind::MemoryError);
            assert_eq!(vec_with_capacity::<u8>(limit + 1).unwrap_err().kind(), crate::ErrorKind::MemoryError);
        }
        assert!(check_host(1 << 20).is_ok());
        assert_eq!(vec_filled(3, 7u8).unwrap(), vec![7, 7, 7]);
        assert_eq!(vec_from_fn(4, |i| i * i).unwrap(), vec![0, 1, 4, 9]);
    }
}
