//! `cuprum::kernel`'s CuPy source kernels (`ElementwiseKernel`, `ReductionKernel`,
//! `RawKernel`/`RawModule`), on the GPU against the same formulas computed by cuprum's CPU
//! operations on fresh random inputs (views, broadcasting, scalars, 0-d, empty, several
//! dtypes), and their errors. On the CPU every call is a NotImplementedError that names the
//! portable way.

use crate::common::{assert_close, on, random, rtol_for, Rng};
use cuprum::kernel::{ElementwiseKernel, RawArg, RawKernel, RawModule, ReductionKernel};
use cuprum::{Array, DType, Device, ErrorKind};

fn cpu(a: &Array) -> Array {
    a.to_device(&Device::Cpu).unwrap()
}

fn squared_diff() -> ElementwiseKernel {
    ElementwiseKernel::new("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff").unwrap()
}

gpu_test!(elementwise_kernel_matches_the_cpu, |gpu| {
    let mut rng = Rng::new(3000);
    let k = squared_diff();
    // Every float and integer dtype: the same two operations as NumPy's (no contraction).
    for dt in [DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8, DType::Complex128] {
        let x = random(&[257, 33], dt, &mut rng, true);
        let y = random(&[257, 33], dt, &mut rng, true);
        let want = ((&x - &y)? * (&x - &y)?)?;
        let got = k.call((&on(&gpu, &x), &on(&gpu, &y)))?;
        assert_close(&got, &want, 0.0, &format!("squared_diff {dt}"));
    }
    // Views and broadcasting: a transposed view against a column; a strided slice.
    let x = random(&[40, 30], DType::Float32, &mut rng, false);
    let col = random(&[30, 1], DType::Float32, &mut rng, false);
    let (xg, cg) = (on(&gpu, &x), on(&gpu, &col));
    let got = k.call((&xg.t(), &cg))?;
    let want = ((&x.t() - &col)? * (&x.t() - &col)?)?;
    assert_close(&got, &want, 0.0, "transposed against a column");
    let row = random(&[1, 15], DType::Float32, &mut rng, false);
    let sl = xg.slice(cuprum::s![1..;3, ..;-2])?;
    let got = k.call((&sl, &on(&gpu, &row)))?;
    let xs = x.slice(cuprum::s![1..;3, ..;-2])?;
    let want = ((&xs - &row)? * (&xs - &row)?)?;
    assert_close(&got, &want, 0.0, "strided, reversed slice against a row");
    // A scalar takes the placeholder's type from the array (float32 stays float32).
    let got = k.call((&xg, 1.5))?;
    assert_eq!(got.dtype(), DType::Float32);
    assert_close(&got, &((&x - 1.5)? * (&x - 1.5)?)?, 0.0, "scalar");
    // 0-d and empty.
    let z0 = k.call((&on(&gpu, &cuprum::from_slice(&[3.0f64], &[], &Device::Cpu)?), 1.0))?;
    assert_eq!((z0.shape(), z0.item::<f64>()?), (&[] as &[usize], 4.0));
    let e = k.call((&cuprum::zeros(&[0, 5], DType::Float64, &gpu)?, 1.0))?;
    assert_eq!(e.shape(), &[0, 5]);
    // float16 computes in float and rounds when stored: one addition equals NumPy's.
    let add = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add16")?;
    let (a, b) = (random(&[999], DType::Float16, &mut rng, true), random(&[999], DType::Float16, &mut rng, true));
    assert_close(&add.call((&on(&gpu, &a), &on(&gpu, &b)))?, &(&a + &b)?, 0.0, "float16 add");
    Ok(())
});

gpu_test!(elementwise_kernel_outputs_raw_and_code, |gpu| {
    let mut rng = Rng::new(3001);
    let x = random(&[1000], DType::Float64, &mut rng, false);
    let xg = on(&gpu, &x);
    // Several outputs, fixed dtypes, the index `i`.
    let k = ElementwiseKernel::new("T x, float64 s", "T p, int64 idx", "p = x * s; idx = i", "two_outputs")?;
    let outs = k.call_multi((&xg, 3))?;
    assert_close(&outs[0], &(&x * 3.0)?, 0.0, "p");
    assert_eq!(cpu(&outs[1]).to_vec::<i64>()?, (0..1000).collect::<Vec<i64>>());
    assert_eq!(k.call((&xg, 3)).unwrap_err().kind(), ErrorKind::ValueError, "call with two outputs");
    // In place: the input is also the output.
    let dbl = ElementwiseKernel::new("T x", "T y", "y = x + x", "double_it")?;
    let mut inplace = xg.copy()?;
    let view = inplace.clone();
    dbl.call_out((&view,), &mut [&mut inplace])?;
    assert_close(&inplace, &(&x * 2.0)?, 0.0, "in place");
    // Raw arrays: a reversal over `size` elements, and a 2-d read through a transposed view.
    let rev = ElementwiseKernel::new("raw T x, int32 n", "T y", "y = x[n - 1 - i]", "reverse")?;
    let r = rev.call_size((&xg, 1000), 1000)?.remove(0);
    assert_close(&r, &x.flip(0)?, 0.0, "reverse");
    let img = random(&[6, 9], DType::Int32, &mut rng, false);
    let gather = ElementwiseKernel::new(
        "raw T img, int32 w",
        "T out",
        "long long ix[2] = {i / w, i % w}; out = img[ix]",
        "read2d",
    )?;
    let imt = on(&gpu, &img).t(); // shape (9, 6), strided
    let got = gather.call_size((&imt, 6), 54)?.remove(0);
    assert_eq!(cpu(&got).to_vec::<i32>()?, imt.copy()?.to_device(&Device::Cpu)?.to_vec::<i32>()?);
    // A raw index out of range is an IndexError after the launch; memory is untouched.
    let past = ElementwiseKernel::new("raw T x", "T y", "y = x[i + 1]", "past_the_end")?;
    let e = past.call_size((&xg,), 1000).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexError, "{e}");
    assert!(e.to_string().contains("index 1000 is out of bounds for a raw array of size 1000"), "{e}");
    // preamble, loop_prep and after_loop: each thread counts its elements into a raw output.
    let count = ElementwiseKernel::new("T x", "T y, raw uint64 total", "y = twice(x); c += 1", "counted")?
        .preamble("// a helper\ntemplate <class V> __device__ V twice(V v) { return v + v; }")
        .loop_prep("unsigned long long c = 0;")
        .after_loop("atomicAdd(&total[0], c);");
    let mut y = cuprum::zeros(&[1000], DType::Float64, &gpu)?;
    let mut total = cuprum::zeros(&[1], DType::UInt64, &gpu)?;
    count.call_out((&xg,), &mut [&mut y, &mut total])?;
    assert_close(&y, &(&x * 2.0)?, 0.0, "twice");
    assert_eq!(cpu(&total).to_vec::<u64>()?, [1000]);
    // Complex numbers as CuPy spells them.
    let c = random(&[300], DType::Complex64, &mut rng, false);
    let cm = ElementwiseKernel::new("complex64 z", "float32 r", "r = z.re * z.re + z.im * z.im", "norm2")?;
    let want = ((&c.real() * &c.real())? + (&c.imag()? * &c.imag()?)?)?;
    assert_close(&cm.call(&on(&gpu, &c))?, &want, rtol_for(DType::Float32), "complex64 parts");
    Ok(())
});

gpu_test!(elementwise_kernel_errors, |gpu| {
    let k = squared_diff();
    let f32s = cuprum::zeros(&[4], DType::Float32, &gpu)?;
    let f64s = cuprum::zeros(&[4], DType::Float64, &gpu)?;
    let kind = |r: cuprum::Result<Array>| r.unwrap_err().kind();
    assert_eq!(kind(k.call((&f32s, &f64s))), ErrorKind::TypeError, "T bound twice");
    assert_eq!(kind(k.call((&f32s,))), ErrorKind::TypeError, "argument count");
    assert_eq!(kind(k.call((1.0, 2.0))), ErrorKind::ValueError, "no array: the size is undecided");
    assert_eq!(kind(k.call((&f32s, &cuprum::zeros(&[3], DType::Float32, &gpu)?))), ErrorKind::ValueError, "shapes");
    let fixed = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "fixed")?;
    assert_eq!(kind(fixed.call(&f64s)), ErrorKind::TypeError, "a fixed dtype is not cast to");
    let unbound = ElementwiseKernel::new("T x", "U y", "y = x", "unbound")?;
    assert_eq!(kind(unbound.call(&f32s)), ErrorKind::TypeError, "U is bound by nothing");
    let raw = ElementwiseKernel::new("raw T x", "T y", "y = x[i]", "rawk")?;
    assert_eq!(kind(raw.call((2.0,))), ErrorKind::TypeError, "a scalar for a raw parameter");
    assert_eq!(kind(raw.call((&f32s,))), ErrorKind::ValueError, "raw only: the size is undecided");
    assert_eq!(raw.call_size((&f32s,), 4)?.len(), 1);
    assert_eq!(k.call_size((&f32s, &f32s), 4).unwrap_err().kind(), ErrorKind::ValueError, "size with non-raw arrays");
    let i8k = ElementwiseKernel::new("int8 x, int8 s", "int8 y", "y = x + s", "add_i8")?;
    let e = i8k.call((&cuprum::zeros(&[4], DType::Int8, &gpu)?, 300)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OverflowError, "{e}");
    let mut wrong = cuprum::zeros(&[5], DType::Float32, &gpu)?;
    assert_eq!(k.call_out((&f32s, &f32s), &mut [&mut wrong]).unwrap_err().kind(), ErrorKind::ValueError);
    // A compile error carries NVRTC's log, pointing into the operation.
    let bad = ElementwiseKernel::new("T x", "T y", "y = x +* 2", "does_not_compile")?;
    let e = bad.call(&f32s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RuntimeError, "{e}");
    assert!(e.to_string().contains("operation(1): error"), "{e}");
    // Arrays of two devices.
    let host = cuprum::zeros(&[4], DType::Float32, &Device::Cpu)?;
    let e = k.call((&f32s, &host)).unwrap_err();
    assert!(matches!(e, cuprum::Error::DeviceMismatch { .. }), "{e}");
    Ok(())
});

gpu_test!(reduction_kernel_matches_the_cpu, |gpu| {
    let mut rng = Rng::new(3002);
    let l2 = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", Some("0"), "l2norm")?;
    let x = random(&[7, 300, 5], DType::Float64, &mut rng, false);
    let xg = on(&gpu, &x);
    let sq = (&x * &x)?;
    for (axes, keep) in [
        (cuprum::Axes::All, false),
        (cuprum::Axes::from(1), false),
        (cuprum::Axes::from(vec![0, 2]), true),
        (cuprum::Axes::from(-1), true),
        (cuprum::Axes::from(()), false),
    ] {
        let got = if keep { l2.call_keepdims(&xg, &axes)? } else { l2.call(&xg, &axes)? };
        let want = (if keep { sq.sum_keepdims(&axes) } else { sq.sum(&axes) })?.sqrt()?;
        assert_close(&got, &want, 1e-13, &format!("l2norm over {axes:?} keepdims={keep}"));
        // A transposed view of the same data.
        let got_t = if keep { l2.call_keepdims(&xg.transpose(), &axes)? } else { l2.call(&xg.transpose(), &axes)? };
        let want_t = (if keep { sq.transpose().sum_keepdims(&axes) } else { sq.transpose().sum(&axes) })?.sqrt()?;
        assert_close(&got_t, &want_t, 1e-13, &format!("l2norm of the transpose over {axes:?}"));
    }
    // Integers exactly; a large range split over blocks; max without an identity.
    let ints = random(&[3_000_000], DType::Int64, &mut rng, false);
    let ig = on(&gpu, &ints);
    let sum = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "isum")?;
    assert_eq!(sum.call(&ig, None)?.item::<i64>()?, ints.sum(None)?.item::<i64>()?);
    let mx = ReductionKernel::new("T x", "T y", "x", "(a > b ? a : b)", "y = a", None, "imax")?;
    assert_eq!(mx.call(&ig, None)?.item::<i64>()?, ints.max(None)?.item::<i64>()?);
    let m2 = ints.reshape([1000, 3000])?;
    assert_close(&mx.call(&on(&gpu, &m2), 0)?, &m2.max(0)?, 0.0, "max over axis 0");
    // Two inputs broadcast, a scalar, two outputs of their own dtypes.
    let w = random(&[1, 300, 1], DType::Float64, &mut rng, false);
    let ws = ReductionKernel::new(
        "T x, T w, float64 s",
        "T y, int32 n",
        "x * w * s",
        "a + b",
        "y = a; n = (int)a",
        Some("0"),
        "wsum",
    )?;
    let outs = ws.call_multi((&xg, &on(&gpu, &w), 0.5), 1, false)?;
    let terms = ((&x * &w)? * 0.5)?;
    // The terms cancel: the order of the sums (not fixed) moves the result by a few ulps of
    // the sum of their magnitudes.
    let (got, want, scale) =
        (cpu(&outs[0]).to_vec::<f64>()?, terms.sum(1)?.to_vec::<f64>()?, terms.abs()?.sum(1)?.to_vec::<f64>()?);
    for k in 0..want.len() {
        assert!((got[k] - want[k]).abs() <= 1e-14 * 300.0 * scale[k], "weighted sum {k}: {} vs {}", got[k], want[k]);
    }
    assert_eq!(outs[1].dtype(), DType::Int32);
    // Empty reductions: the identity, or a ValueError without one.
    let empty = cuprum::zeros(&[4, 0], DType::Float64, &gpu)?;
    assert_eq!(cpu(&l2.call(&empty, 1)?).to_vec::<f64>()?, [0.0; 4]);
    assert_eq!(mx.call(&empty, 1).unwrap_err().kind(), ErrorKind::ValueError);
    // Into given outputs, keepdims.
    let mut out = cuprum::zeros(&[7, 1, 5], DType::Float64, &gpu)?;
    l2.call_out(&xg, 1, true, &mut [&mut out])?;
    assert_close(&out, &sq.sum_keepdims(1)?.sqrt()?, 1e-13, "into an output");
    let mut bad = cuprum::zeros(&[7, 5], DType::Float64, &gpu)?;
    assert_eq!(l2.call_out(&xg, 1, true, &mut [&mut bad]).unwrap_err().kind(), ErrorKind::ValueError);
    Ok(())
});

gpu_test!(raw_kernels, |gpu| {
    let mut rng = Rng::new(3003);
    let code = r#"
extern "C" __global__ void axpy(const float* x, const float* y, float* z, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i] * SCALE;
}
extern "C" __global__ void block_sum(const double* x, double* sums, long long n) {
    extern __shared__ double sh[];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    sh[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = sh[0];
}
extern "C" __global__ void coords(int* out, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * w + x] = 1000 * y + x;
}
"#;
    let m = RawModule::new(code).options(&["-DSCALE=2.0f"]);
    let axpy = m.get_function("axpy")?;
    // Halves: every product and sum is exact in float32, contracted (NVRTC's default) or not.
    let x = cuprum::arange_f(0.0, 2500.0, 0.5, DType::Float32, &Device::Cpu)?;
    let y = cuprum::arange_f(-1250.0, 1250.0, 0.5, DType::Float32, &Device::Cpu)?;
    let mut z = cuprum::zeros(&[5000], DType::Float32, &gpu)?;
    // SAFETY: axpy reads 5000 floats of x and y and writes 5000 of z.
    unsafe { axpy.launch((20, 256), (&on(&gpu, &x), &on(&gpu, &y), &mut z, 3.0f32, 5000i32))? };
    assert_close(&z, &((&x * 3.0)? + (&y * 2.0)?)?, 0.0, "axpy with SCALE from the options");
    // Dynamic shared memory: 512 doubles (4 KiB), and 8192 (64 KiB, above the default 48).
    let big = random(&[100_000], DType::Float64, &mut rng, false);
    let bg = on(&gpu, &big);
    let bs = m.get_function("block_sum")?;
    for threads in [512u32, 1024] {
        let blocks = 100_000usize.div_ceil(threads as usize);
        let mut sums = cuprum::zeros(&[blocks], DType::Float64, &gpu)?;
        let shared = if threads == 512 { 512 * 8 } else { 8192 * 8 };
        // SAFETY: each block reads its `threads` elements (checked against n), writes one sum,
        // and uses `threads` doubles of shared memory (at most `shared` bytes).
        unsafe { bs.launch_shared((blocks, threads), shared, (&bg, &mut sums, 100_000i64))? };
        let total: f64 = cpu(&sums).to_vec::<f64>()?.iter().sum();
        let want = big.sum(None)?.item::<f64>()?;
        assert!((total - want).abs() <= 1e-9 * want.abs().max(1.0), "block_sum {threads}: {total} vs {want}");
    }
    // A 2-d grid, arguments as a Vec of RawArg.
    let co = m.get_function("coords")?;
    let mut out = cuprum::zeros(&[32, 48], DType::Int32, &gpu)?;
    let args: Vec<RawArg> = vec![(&mut out).into(), 48i32.into()];
    // SAFETY: the grid covers exactly 48 x 32 threads, each writing its own element.
    unsafe { co.launch(((3, 4), (16, 8)), args)? };
    let v = cpu(&out).to_vec::<i32>()?;
    assert!((0..32 * 48).all(|k| v[k] == 1000 * (k / 48) as i32 + (k % 48) as i32));
    // Errors: a missing kernel, a compile error with NVRTC's log, CUDA's limits.
    let missing = m.get_function("nope")?;
    assert_eq!(missing.compile(&gpu).unwrap_err().kind(), ErrorKind::ValueError);
    let broken = RawKernel::new("extern \"C\" __global__ void f(int* p) { p[0] = undeclared; }", "f")?;
    let e = broken.compile(&gpu).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RuntimeError);
    assert!(e.to_string().contains("undeclared"), "{e}");
    // SAFETY: the launch is refused before it reaches the GPU.
    let e = unsafe { co.launch((1, 2048), (&mut out, 48i32)) }.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    Ok(())
});

cpu_test!(source_kernels_on_the_cpu);
/// On the CPU every source kernel is a NotImplementedError naming the portable way; a
/// parameter list CuPy would not take is a ValueError at construction.
fn source_kernels_on_the_cpu() {
    let x = cuprum::zeros(&[4], DType::Float32, &Device::Cpu).unwrap();
    let mut y = cuprum::zeros(&[4], DType::Float32, &Device::Cpu).unwrap();
    let check = |e: cuprum::Error| {
        assert_eq!(e.kind(), ErrorKind::NotImplementedError, "{e}");
        assert!(e.to_string().contains("#[cuprum::vectorize]") && e.to_string().contains("#[cuprum::kernel]"), "{e}");
    };
    check(squared_diff().call((&x, &x)).unwrap_err());
    let r = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "s").unwrap();
    check(r.call(&x, None).unwrap_err());
    let k = RawKernel::new("extern \"C\" __global__ void f(float* p) {}", "f").unwrap();
    // SAFETY: refused before any launch (CPU arrays).
    check(unsafe { k.launch((1, 1), (&mut y,)) }.unwrap_err());
    check(k.compile(&Device::Cpu).unwrap_err());
    for (ins, outs) in [("T x, T x", "T y"), ("T i", "T y"), ("float x", "T y"), ("T x", ""), ("raw raw2 T x", "T y")] {
        let e = ElementwiseKernel::new(ins, outs, "y = x", "k").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueError, "{ins} -> {outs}: {e}");
    }
    assert_eq!(ElementwiseKernel::new("T x", "T y", "y = x", "not a name").unwrap_err().kind(), ErrorKind::ValueError);
    let e = ReductionKernel::new("raw T x", "T y", "x", "a + b", "y = a", Some("0"), "r").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError, "{e}");
}
