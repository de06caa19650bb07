//! The GPU transforms: cuFFT (loaded at run time) over the trailing one to three axes of a
//! C-contiguous batch, out of place, on the current stream. Plans are cached per device and
//! stream (a plan's work area must not be shared by transforms that may overlap), keyed by
//! kind, precision, lengths and batch (as CuPy's plan cache), reused under a lock, and
//! destroyed with their stream.

use super::Kind;
use crate::array::Array;
use crate::backend::cuda::launch::{dev_of, dptr};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use cudarc::cufft::sys as fft;
use std::collections::HashMap;
use std::sync::Mutex;

/// One plan's key: device, kind, double precision, lengths (the real lengths for R2C/C2R),
/// batch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PlanKey {
    ordinal: usize,
    stream: u64,
    kind: Kind,
    double: bool,
    dims: Vec<i64>,
    batch: i64,
}

/// The plan cache (cufftHandle is an int; the default stream's plans live for the process).
static PLANS: Mutex<Option<HashMap<PlanKey, fft::cufftHandle>>> = Mutex::new(None);

fn check(what: &str, r: fft::cufftResult) -> Result<()> {
    use fft::cufftResult::{CUFFT_ALLOC_FAILED, CUFFT_SUCCESS};
    crate::backend::cuda::lib_status(what, r, CUFFT_SUCCESS, CUFFT_ALLOC_FAILED)
}

/// `kind` over the trailing `dims` of the C-contiguous device array `x`.
/// `disposable`: `x` may be overwritten (else a complex-to-real transform copies it first).
pub(crate) fn transform(x: &Array, kind: Kind, dims: &[usize], disposable: bool) -> Result<Array> {
    // SAFETY: only checks whether the shared library can be loaded.
    if !unsafe { fft::is_culib_present() } {
        return Err(Error::Cuda(
            "fft on a GPU needs cuFFT (libcufft), and it was not found; the CPU still works".into(),
        ));
    }
    let dev = dev_of(x)?;
    let nd = x.ndim();
    let k = dims.len();
    let double = matches!(x.dtype(), DType::Complex128 | DType::Float64);
    let mut shape = x.shape()[..nd - k].to_vec();
    shape.extend_from_slice(dims);
    let (out_dt, input) = match kind {
        Kind::C2C { .. } => (x.dtype(), x.view()),
        Kind::R2C => {
            shape[nd - 1] = dims[k - 1] / 2 + 1;
            (if double { DType::Complex128 } else { DType::Complex64 }, x.view())
        }
        // cuFFT's complex-to-real transforms overwrite their input: a copy unless disposable.
        Kind::C2R => {
            (if double { DType::Float64 } else { DType::Float32 }, if disposable { x.view() } else { x.copy()? })
        }
    };
    // cuFFT needs its input aligned to a complex element (a view may start at an odd real
    // element, e.g. a reversed one): such an input is copied to a fresh block.
    let input = if dptr(&input)? % 16 != 0 { input.copy()? } else { input };
    let out = Array::alloc(&shape, out_dt, crate::Device::Cuda(dev.ordinal), false)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let batch: usize = x.shape()[..nd - k].iter().product();
    let stream = dev.current_stream()?;
    let key = PlanKey {
        ordinal: dev.ordinal,
        stream: stream.id,
        kind,
        double,
        dims: dims.iter().map(|&d| d as i64).collect(),
        batch: batch as i64,
    };
    dev.bind()?;
    let mut cache = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    let plan = match cache.get(&key) {
        Some(&p) => p,
        None => {
            let p = make_plan(&key, stream.raw as fft::cudaStream_t)?;
            if !cache.keys().any(|k| k.ordinal == key.ordinal && k.stream == key.stream) {
                let (ordinal, id) = (key.ordinal, key.stream);
                stream.on_release(Box::new(move || {
                    let mut cache = PLANS.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(cache) = cache.as_mut() {
                        cache.retain(|k, &mut plan| {
                            let mine = k.ordinal == ordinal && k.stream == id;
                            if mine {
                                // SAFETY: the stream's work has finished (it is being released)
                                // and the plan leaves the cache here: no one uses it again.
                                unsafe { fft::cufftDestroy(plan) };
                            }
                            !mine
                        });
                    }
                }));
            }
            cache.insert(key.clone(), p);
            p
        }
    };
    let (i, o) = (dptr(&input)?, dptr(&out)?);
    let dir = if kind == (Kind::C2C { inverse: true }) { 1 } else { -1 };
    // SAFETY: `plan` was made for these lengths, batch, kind and precision; `input` and `out`
    // are C-contiguous device arrays of the plan's input and output sizes (basic layout), on
    // the plan's device and stream (the current one), alive until the stream has run the
    // transform (the pool orders the reuse of their blocks after it).
    let r = unsafe {
        match (kind, double) {
            (Kind::C2C { .. }, false) => fft::cufftExecC2C(plan, i as *mut _, o as *mut _, dir),
            (Kind::C2C { .. }, true) => fft::cufftExecZ2Z(plan, i as *mut _, o as *mut _, dir),
            (Kind::R2C, false) => fft::cufftExecR2C(plan, i as *mut _, o as *mut _),
            (Kind::R2C, true) => fft::cufftExecD2Z(plan, i as *mut _, o as *mut _),
            (Kind::C2R, false) => fft::cufftExecC2R(plan, i as *mut _, o as *mut _),
            (Kind::C2R, true) => fft::cufftExecZ2D(plan, i as *mut _, o as *mut _),
        }
    };
    check("cufftExec", r)?;
    drop(input);
    Ok(out)
}

fn make_plan(key: &PlanKey, stream: fft::cudaStream_t) -> Result<fft::cufftHandle> {
    let ty = match (key.kind, key.double) {
        (Kind::C2C { .. }, false) => fft::cufftType::CUFFT_C2C,
        (Kind::C2C { .. }, true) => fft::cufftType::CUFFT_Z2Z,
        (Kind::R2C, false) => fft::cufftType::CUFFT_R2C,
        (Kind::R2C, true) => fft::cufftType::CUFFT_D2Z,
        (Kind::C2R, false) => fft::cufftType::CUFFT_C2R,
        (Kind::C2R, true) => fft::cufftType::CUFFT_Z2D,
    };
    let mut plan: fft::cufftHandle = 0;
    // SAFETY: creates a handle into `plan`.
    check("cufftCreate", unsafe { fft::cufftCreate(&mut plan) })?;
    let mut n = key.dims.clone();
    let mut work = 0usize;
    // SAFETY: `plan` is new; `n` holds `rank` lengths; null embeddings select the basic
    // (contiguous) layout, where the strides and distances are ignored.
    let r = unsafe {
        fft::cufftMakePlanMany64(
            plan,
            n.len() as i32,
            n.as_mut_ptr(),
            std::ptr::null_mut(),
            1,
            0,
            std::ptr::null_mut(),
            1,
            0,
            ty,
            key.batch,
            &mut work,
        )
    };
    if let Err(e) = check("cufftMakePlanMany64", r) {
        // SAFETY: the handle made above, not used elsewhere.
        unsafe { fft::cufftDestroy(plan) };
        return Err(e);
    }
    // SAFETY: a valid plan and a live stream, which outlives the plan (destroyed with it).
    check("cufftSetStream", unsafe { fft::cufftSetStream(plan, stream) })?;
    Ok(plan)
}
