//! The kernel cache: compiled modules per device, looked up by a family's key.

use super::{compile, CudaDevice};
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

pub(crate) use super::compile::KernelKey;

/// A module's identity: its family and the SHA-256 of its specialised source and `-D` options.
type SourceKey = (&'static str, [u8; 32]);

/// A loaded module and the functions taken from it so far (one source may hold several
/// entries, e.g. the passes of `label.cu`).
struct Loaded {
    module: ModuleHandle,
    funcs: HashMap<String, Arc<Kernel>>,
}

/// The kernels a device has loaded.
#[derive(Default)]
pub(crate) struct Cache {
    /// Per key type (boxed `HashMap<K, Arc<Kernel>>`): the fast path.
    by_key: Mutex<HashMap<TypeId, Box<dyn Any + Send + Sync>, BuildFx>>,
    /// By family and SHA-256 of the specialised source and its `-D` options: the module, and
    /// its functions by entry name.
    by_source: Mutex<HashMap<SourceKey, Loaded>>,
}

impl Cache {
    fn get<K: KernelKey>(&self, key: &K) -> Option<Arc<Kernel>> {
        let maps = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        maps.get(&TypeId::of::<K>())?.downcast_ref::<HashMap<K, Arc<Kernel>, BuildFx>>()?.get(key).cloned()
    }
    fn insert<K: KernelKey>(&self, key: K, k: Arc<Kernel>) -> Arc<Kernel> {
        let mut maps = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        let map = maps
            .entry(TypeId::of::<K>())
            .or_insert_with(|| Box::new(HashMap::<K, Arc<Kernel>, BuildFx>::default()))
            .downcast_mut::<HashMap<K, Arc<Kernel>, BuildFx>>()
            .expect("the map of a TypeId holds that type's keys");
        // Another thread may have loaded the same kernel meanwhile: keep the first.
        map.entry(key).or_insert(k).clone()
    }
    /// Entry `entry` of the module of (`family`, `hash`), if that module is loaded: the
    /// function (taken from it now if needed); `None` if the module is not loaded.
    fn by_source(&self, family: &'static str, hash: &[u8; 32], entry: &str) -> Result<Option<Arc<Kernel>>> {
        let mut map = self.by_source.lock().unwrap_or_else(|e| e.into_inner());
        let Some(l) = map.get_mut(&(family, *hash)) else {
            return Ok(None);
        };
        if let Some(k) = l.funcs.get(entry) {
            return Ok(Some(k.clone()));
        }
        let k = Arc::new(Kernel { func: function(l.module, entry)?, _module: l.module });
        l.funcs.insert(entry.to_string(), k.clone());
        Ok(Some(k))
    }
    /// Records a loaded module (another thread may have loaded it meanwhile: the first is
    /// kept) and returns its entry `entry`.
    fn insert_source(
        &self,
        family: &'static str,
        hash: [u8; 32],
        module: ModuleHandle,
        entry: &str,
    ) -> Result<Arc<Kernel>> {
        self.by_source
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((family, hash))
            .or_insert(Loaded { module, funcs: HashMap::new() });
        Ok(self.by_source(family, &hash, entry)?.expect("the module was just recorded"))
    }
}

/// A small, fast hasher for the kernel map (keys are short and trusted): one multiply per
/// word, as rustc's FxHash.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type BuildFx = std::hash::BuildHasherDefault<Fx>;

/// A compiled kernel function (its module stays loaded for the life of the process).
pub(crate) struct Kernel {
    pub func: sys::CUfunction,
    _module: ModuleHandle,
}

#[derive(Clone, Copy)]
struct ModuleHandle(sys::CUmodule);
// SAFETY: a module handle is a driver handle, valid in every thread; modules are never unloaded.
unsafe impl Send for ModuleHandle {}

/// Function `entry` of a loaded module.
fn function(module: ModuleHandle, entry: &str) -> Result<sys::CUfunction> {
    let cname = std::ffi::CString::new(entry).map_err(|_| Error::InvalidArgument("kernel name contains NUL".into()))?;
    // SAFETY: `module` was loaded by this device's context and is never unloaded.
    unsafe { cu::module::get_function(module.0, cname) }.map_err(|e| match e.0 {
        // A name the module does not define (a user's RawModule): the caller's value.
        sys::CUresult::CUDA_ERROR_NOT_FOUND => {
            Error::Value(format!("the module defines no kernel named {entry:?} (cuModuleGetFunction: {e:?})"))
        }
        _ => Error::Cuda(format!("cuModuleGetFunction({entry}): {e:?}")),
    })
}
// SAFETY: `func` and the module are driver handles, valid in every thread (the driver API is
// thread-safe, and launches bind the context first); the module is never unloaded, so the
// function handle stays valid wherever the `Kernel` goes.
unsafe impl Send for Kernel {}
// SAFETY: as for `Send`: `&Kernel` only hands the function handle to `cuLaunchKernel`.
unsafe impl Sync for Kernel {}

impl CudaDevice {
    /// The kernel of `key`, compiled (or read from the disk cache) on first use.
    ///
    /// The fast path looks `key` up in the map of its key type; on a miss the key's source is
    /// generated and looked up by (family, hash of the specialised source), so two keys that
    /// specialise to the same source share one module.
    pub fn kernel<K: KernelKey>(&self, key: &K) -> Result<Arc<Kernel>> {
        if let Some(k) = self.kernels.get(key) {
            return Ok(k);
        }
        // Compile without holding a lock: other threads may compile other kernels.
        let t = std::time::Instant::now();
        let src = key.source();
        let opts = compile::key_options(key, self.arch);
        let hash = compile::source_hash(&src, &opts);
        let k = match self.kernels.by_source(K::FAMILY, &hash, key.entry())? {
            Some(k) => k,
            None => {
                let cubin = compile::cubin_for(K::FAMILY, &src, &opts, &hash)?;
                self.bind()?;
                // SAFETY: `cubin` is a complete CUBIN image that NVRTC produced for this device.
                let module = unsafe { cu::module::load_data(cubin.as_ptr() as *const c_void) }
                    .map_err(|e| self.err("cuModuleLoadData", e))?;
                if std::env::var_os("CUPRUM_LOG_KERNELS").is_some() {
                    eprintln!(
                        "cuprum: kernel {}/{key:?} ready in {:.1} ms",
                        K::FAMILY,
                        t.elapsed().as_secs_f64() * 1e3
                    );
                }
                self.kernels.insert_source(K::FAMILY, hash, ModuleHandle(module), key.entry())?
            }
        };
        Ok(self.kernels.insert(key.clone(), k))
    }

    /// Lets kernel `k` use `bytes` of dynamic shared memory (above the default 48 KiB).
    pub(crate) fn allow_shared(&self, k: &Kernel, bytes: u32) -> Result<()> {
        self.bind()?;
        // SAFETY: `k.func` is a live function of a module loaded on this device.
        unsafe {
            cu::function::set_function_attribute(
                k.func,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(|e| self.err("cuFuncSetAttribute", e))
    }

    /// As [`launch`](Self::launch), with 3-d grids and blocks.
    ///
    /// # Safety
    /// As `launch`.
    pub unsafe fn launch_3d(
        &self,
        k: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shmem: u32,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        self.bind()?;
        // SAFETY: as `launch`'s.
        unsafe { cu::launch_kernel(k.func, grid, block, shmem, self.stream()?, params) }
            .map_err(|e| self.err("cuLaunchKernel", e))
    }

    /// Launches `k` on this device's current stream.
    ///
    /// # Safety
    /// `params` must match the kernel's parameter list, and every pointer in them must stay
    /// valid until the stream has run the kernel.
    pub unsafe fn launch(
        &self,
        k: &Kernel,
        grid: (u32, u32),
        block: (u32, u32),
        shmem: u32,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        self.bind()?;
        let grid = (grid.0.max(1), grid.1.max(1), 1);
        // SAFETY: `k.func` comes from a module that is never unloaded, loaded on a device whose
        // context is current; the parameters and the memory they reach are the caller's
        // contract (see `# Safety`). The driver copies the parameter values during the call.
        unsafe { cu::launch_kernel(k.func, grid, (block.0, block.1, 1), shmem, self.stream()?, params) }
            .map_err(|e| self.err("cuLaunchKernel", e))
    }
}
