//! NVRTC compilation to CUBIN for the device's own architecture, with an on-disk cache keyed
//! by a hash of the source, the options, the architecture and the NVRTC version, so that a
//! new process does not compile a kernel it has compiled before.

use crate::core::error::{Error, Result};
use cudarc::nvrtc::{result as nv, sys as nvsys};
use sha2::{Digest, Sha256};
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

fn nvrtc_version() -> Result<(i32, i32)> {
    static V: OnceLock<std::result::Result<(i32, i32), String>> = OnceLock::new();
    V.get_or_init(|| {
        if !unsafe { nvsys::is_culib_present() } {
            return Err("the NVRTC library (libnvrtc) was not found".into());
        }
        let (mut a, mut b) = (0, 0);
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

fn options(arch: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".into(),
        // No contraction of a*b+c into FMA: results round like NumPy's, operation by operation.
        "--fmad=false".into(),
        "-default-device".into(),
    ]
}

/// CUBIN for `src` on a device of compute capability `arch`.
pub fn cubin_for(src: &str, arch: (i32, i32)) -> Result<Vec<u8>> {
    let ver = nvrtc_version()?;
    let opts = options(arch);
    let mut h = Sha256::new();
    h.update(src.as_bytes());
    for o in &opts {
        h.update([0u8]);
        h.update(o.as_bytes());
    }
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
    let cubin = compile(src, &opts)?;
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

fn compile(src: &str, opts: &[String]) -> Result<Vec<u8>> {
    COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let csrc = CString::new(src).map_err(|_| Error::InvalidArgument("kernel source contains NUL".into()))?;
    let name = CString::new("cuprum.cu").expect("no NUL");
    let prog = nv::create_program(&csrc, Some(&name)).map_err(|e| Error::Cuda(format!("nvrtcCreateProgram: {e:?}")))?;
    struct Prog(nvsys::nvrtcProgram);
    impl Drop for Prog {
        fn drop(&mut self) {
            let _ = unsafe { nv::destroy_program(self.0) };
        }
    }
    let prog = Prog(prog);
    if let Err(e) = unsafe { nv::compile_program(prog.0, opts) } {
        let log = unsafe { nv::get_program_log(prog.0) }
            .map(|l| unsafe { CStr::from_ptr(l.as_ptr()) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Err(Error::Compile { log: format!("{e:?}\n{log}\n--- source ---\n{src}") });
    }
    let mut size = 0usize;
    unsafe { nvsys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| Error::Cuda(format!("nvrtcGetCUBINSize: {e:?}")))?;
    let mut buf = vec![0u8; size];
    unsafe { nvsys::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| Error::Cuda(format!("nvrtcGetCUBIN: {e:?}")))?;
    Ok(buf)
}
