//! NVRTC compilation to CUBIN for the device's own architecture, with an on-disk cache keyed
//! by a hash of the source, the options, the architecture and the NVRTC version, so that a
//! new process does not compile a kernel it has compiled before.

use crate::core::error::{Error, Result};
use cudarc::nvrtc::{result as nv, sys as nvsys};
use sha2::{Digest, Sha256};
use std::ffi::{c_char, CStr, CString};
use std::fmt::Debug;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One kernel of a family, as the family describes it: the key of the kernel cache.
///
/// A family's key is a small value (dtypes, flags) that determines the kernel's source; the
/// cache looks kernels up by the key on the fast path, and by (family, hash of the
/// specialised source) on a miss. The set of families is open: a user's kernel source or a
/// fused expression is a key like any other.
pub(crate) trait KernelKey: Clone + Eq + Hash + Debug + Send + Sync + 'static {
    /// The family's name (the first half of the cache key; also NVRTC's file name).
    const FAMILY: &'static str;
    /// The kernel function's name in the module.
    fn entry(&self) -> &str;
    /// The module's specialised source: a generated prelude of typedefs and `#define`s, then
    /// the family's `.cu` file (which includes the shared headers of `include/`).
    fn source(&self) -> String;
    /// Launch constants and other compile-time values, passed to NVRTC as `-DNAME=value`.
    fn defines(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// NVRTC options of the key's own, after the `-D` options (a `RawModule`'s options).
    fn options(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether the module is compiled with NVRTC's defaults and only the architecture
    /// (users' CUDA C source, as CuPy compiles it) instead of cuprum's options.
    fn plain(&self) -> bool {
        false
    }
}

fn nvrtc_version() -> Result<(i32, i32)> {
    static V: OnceLock<std::result::Result<(i32, i32), String>> = OnceLock::new();
    V.get_or_init(|| {
        // SAFETY: only checks whether the shared library can be loaded.
        if !unsafe { nvsys::is_culib_present() } {
            return Err("the NVRTC library (libnvrtc) was not found".into());
        }
        let (mut a, mut b) = (0, 0);
        // SAFETY: the library is present (checked above); the two out-pointers are live locals.
        unsafe { nvsys::nvrtcVersion(&mut a, &mut b) }.result().map_err(|e| format!("nvrtcVersion: {e:?}"))?;
        Ok((a, b))
    })
    .clone()
    .map_err(Error::Cuda)
}

/// The kernel cache directory: `CUPRUM_CACHE_DIR`, else `$XDG_CACHE_HOME/cuprum/kernels`,
/// else `~/.cache/cuprum/kernels`. `None` disables the disk cache.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUPRUM_CACHE_DIR") {
        return if d.is_empty() { None } else { Some(PathBuf::from(d)) };
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("cuprum").join("kernels"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("cuprum").join("kernels"))
}

/// cuprum's NVRTC options (the architecture first).
fn options(arch: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".into(),
        // No contraction of a*b+c into FMA: results round like NumPy's, operation by operation.
        "--fmad=false".into(),
        "-default-device".into(),
    ]
}

/// The shared device code of `include/`, handed to NVRTC as headers: a family's `.cu` file
/// includes them as `#include "cuprum/<name>.cuh"`.
pub(crate) const HEADERS: &[(&str, &str)] = &[
    ("cuprum/prelude.cuh", include_str!("include/prelude.cuh")),
    ("cuprum/float16.cuh", include_str!("include/float16.cuh")),
    ("cuprum/numpy_math.cuh", include_str!("include/numpy_math.cuh")),
    ("cuprum/lookback.cuh", include_str!("include/lookback.cuh")),
    ("cuprum/radix_keys.cuh", include_str!("include/radix_keys.cuh")),
    ("cuprum/atomics.cuh", include_str!("include/atomics.cuh")),
    ("cuprum/ndimage_mode.cuh", include_str!("include/ndimage_mode.cuh")),
    ("cuprum/complex.cuh", include_str!("include/complex.cuh")),
    ("cuprum/special.cuh", include_str!("include/special.cuh")),
];

/// SHA-256 of a specialised source, its NVRTC options ([`key_options`]) and the shared
/// headers: with the family, the identity of a module.
pub(crate) fn source_hash(src: &str, opts: &[String]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(src.as_bytes());
    for d in opts {
        h.update([0u8]);
        h.update(d.as_bytes());
    }
    for (name, text) in HEADERS {
        h.update([1u8]);
        h.update(name.as_bytes());
        h.update([0u8]);
        h.update(text.as_bytes());
    }
    h.finalize().into()
}

/// The NVRTC options of `key`'s module on a device of compute capability `arch`: cuprum's
/// (only the architecture for a [`plain`](KernelKey::plain) key, whose source
/// is a user's, compiled as CuPy compiles it), then the key's `-D` options and its own.
pub(crate) fn key_options<K: KernelKey>(key: &K, arch: (i32, i32)) -> Vec<String> {
    let mut opts = options(arch);
    if key.plain() {
        opts.truncate(1);
    }
    opts.extend(key.defines().into_iter().map(|(n, v)| format!("-D{n}={v}")));
    opts.extend(key.options());
    opts
}

/// CUBIN for `src` compiled with `opts` (from [`key_options`]; `hash` from [`source_hash`]),
/// from the disk cache when it holds it.
pub(crate) fn cubin_for(family: &str, src: &str, opts: &[String], hash: &[u8; 32]) -> Result<Vec<u8>> {
    let ver = nvrtc_version()?;
    // The disk's key: the module's identity (its options included) and the compilers'.
    let mut h = Sha256::new();
    h.update(hash);
    h.update(format!("|nvrtc {}.{}|cuprum {}", ver.0, ver.1, env!("CARGO_PKG_VERSION")).as_bytes());
    let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let dir = cache_dir();
    if let Some(d) = &dir {
        if let Ok(bytes) = std::fs::read(d.join(format!("{key}.cubin"))) {
            if !bytes.is_empty() {
                return Ok(bytes);
            }
        }
    }
    let cubin = compile(family, src, opts)?;
    if let Some(d) = &dir {
        // Best effort: a read-only or full disk only costs a compile next time.
        if std::fs::create_dir_all(d).is_ok() {
            let tmp = d.join(format!("{key}.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, &cubin).is_ok() {
                let _ = std::fs::rename(&tmp, d.join(format!("{key}.cubin")));
            }
        }
    }
    Ok(cubin)
}

static COMPILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many modules NVRTC has compiled in this process (disk-cache hits do not count).
pub fn nvrtc_compiles() -> usize {
    COMPILES.load(std::sync::atomic::Ordering::Relaxed)
}

fn compile(family: &str, src: &str, opts: &[String]) -> Result<Vec<u8>> {
    COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nul = |_| Error::InvalidArgument("kernel source contains NUL".into());
    let csrc = CString::new(src).map_err(nul)?;
    let name = CString::new(format!("{family}.cu")).map_err(nul)?;
    let texts: Vec<CString> =
        HEADERS.iter().map(|(_, t)| CString::new(*t)).collect::<std::result::Result<_, _>>().map_err(nul)?;
    let names: Vec<CString> =
        HEADERS.iter().map(|(n, _)| CString::new(*n)).collect::<std::result::Result<_, _>>().map_err(nul)?;
    let text_ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr()).collect();
    let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let mut prog = std::ptr::null_mut();
    // SAFETY: every pointer is to a NUL-terminated string that outlives the call; NVRTC copies
    // the source and the headers into the program.
    unsafe {
        nvsys::nvrtcCreateProgram(
            &mut prog,
            csrc.as_ptr(),
            name.as_ptr(),
            HEADERS.len() as i32,
            text_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    }
    .result()
    .map_err(|e| Error::Cuda(format!("nvrtcCreateProgram: {e:?}")))?;
    struct Prog(nvsys::nvrtcProgram);
    impl Drop for Prog {
        fn drop(&mut self) {
            // SAFETY: the program was created by `nvrtcCreateProgram` and is destroyed once, here.
            let _ = unsafe { nv::destroy_program(self.0) };
        }
    }
    let prog = Prog(prog);
    // SAFETY: `prog` is a live program (destroyed when `prog` drops, after these calls).
    if let Err(e) = unsafe { nv::compile_program(prog.0, opts) } {
        // SAFETY: as above.
        let log = unsafe { nv::get_program_log(prog.0) }
            // SAFETY: NVRTC's reported log size counts the trailing NUL (it is at least 1), and
            // the buffer is filled up to it.
            .map(|l| unsafe { CStr::from_ptr(l.as_ptr()) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Err(Error::Compile { log: format!("{e:?}\n{log}\n--- source ---\n{src}") });
    }
    let mut size = 0usize;
    // SAFETY: `prog` is a live, compiled program; `size` is a live local.
    unsafe { nvsys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| Error::Cuda(format!("nvrtcGetCUBINSize: {e:?}")))?;
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds the `size` bytes NVRTC reported for this program's CUBIN.
    unsafe { nvsys::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| Error::Cuda(format!("nvrtcGetCUBIN: {e:?}")))?;
    Ok(buf)
}

/// Whether the `n`-th of a family's test kernels is compiled by [`check_compiles`]: every
/// eighth, or all with `CUPRUM_NVRTC_ALL=1` (NVRTC takes about 50 ms a kernel).
#[cfg(test)]
pub(crate) fn nvrtc_sample(n: usize) -> bool {
    n.is_multiple_of(8) || std::env::var("CUPRUM_NVRTC_ALL").is_ok_and(|v| v == "1")
}

/// Compiles `key`'s kernel for sm_90 with NVRTC when the library is present (the GPU host;
/// on other machines `LD_LIBRARY_PATH` can point at a `libnvrtc.so` from the
/// `nvidia-cuda-nvrtc` wheel), and checks that the CUBIN holds the entry point. Returns
/// whether it compiled; panics with NVRTC's log on an error.
#[cfg(test)]
pub(crate) fn check_compiles<K: KernelKey>(key: &K) -> bool {
    if nvrtc_version().is_err() {
        return false;
    }
    let opts = key_options(key, (9, 0));
    let cubin = compile(K::FAMILY, &key.source(), &opts).unwrap_or_else(|e| panic!("{}/{key:?}: {e}", K::FAMILY));
    let entry = key.entry().as_bytes();
    assert!(cubin.windows(entry.len()).any(|w| w == entry), "{}/{key:?}: no entry point {}", K::FAMILY, key.entry());
    true
}
