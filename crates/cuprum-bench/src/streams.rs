//! The streams workloads of WORKLOADS.md's second table (GPU only): the lesson's two
//! inversions of a 6000x6000 float32 matrix, one after the other and on two streams (GPU time
//! between events on the default stream around the whole step, as `cupy_reference.py`), and
//! eight 50 MB chunks copied from pinned memory, exponentiated in place and copied back into
//! pinned memory on one stream and spread over four (host wall time).

use super::{gpu_time, median, Opts};
use cuprum::cuda::Stream;
use cuprum::random::default_rng;
use cuprum::ufunc::{unary_out, UnaryOp};
use cuprum::{Array, DType, Device, Result};
use std::time::Instant;

pub(crate) fn workloads(o: &mut Opts, gpu: Device, rep: usize) -> Result<()> {
    let inv_rows = ["two_inv_6000_f32_sequential", "two_inv_6000_f32_two_streams"];
    if inv_rows.iter().any(|n| o.wants(n)) {
        let a = default_rng(30)?.on(&gpu).random(&[6000, 6000], DType::Float32)?;
        gpu.synchronize()?;
        let (s1, s2) = (Stream::new(gpu)?, Stream::new(gpu)?);
        // CuPy's default (`cupyx.linalg` errors 'ignore'): no read-back of the factorisation's
        // info, which would make the host wait for the first inversion before queuing the second.
        let check = cuprum::linalg::set_gpu_error_check(false);
        let seq = gpu_time(inv_rows[0], gpu, rep.min(5), || {
            let c1 = cuprum::linalg::inv(&a)?;
            let c2 = cuprum::linalg::inv(&a)?;
            Ok((c1, c2))
        })?;
        let two = gpu_time(inv_rows[1], gpu, rep.min(5), || {
            let c1 = s1.scope(|| cuprum::linalg::inv(&a))?;
            let c2 = s2.scope(|| cuprum::linalg::inv(&a))?;
            s1.synchronize()?;
            s2.synchronize()?;
            Ok((c1, c2))
        })?;
        cuprum::linalg::set_gpu_error_check(check);
        let ratio = two.0 / seq.0;
        o.record(
            inv_rows[0],
            None,
            seq.0,
            seq.1,
            None,
            "linalg.inv twice on the default stream (set_gpu_error_check(false), CuPy's default)",
        );
        o.record(
            inv_rows[1],
            None,
            two.0,
            two.1,
            Some(ratio <= 0.75),
            &format!("the two inversions on two streams: {ratio:.2} of the sequential time (target <= 0.75)"),
        );
    }

    let copy_rows = ["copy_exp_copy_8x50MB_one_stream", "copy_exp_copy_8x50MB_four_streams"];
    if copy_rows.iter().any(|n| o.wants(n)) {
        let (chunk, k) = (50 * (1 << 20) / 4, 8);
        let mut rng = default_rng(31)?.on(&Device::Cpu);
        let mut pinned = Vec::new();
        let mut outs = Vec::new();
        let mut dev = Vec::new();
        for _ in 0..k {
            let mut p = cuprum::empty_pinned(&[chunk], DType::Float32)?;
            p.copy_from(&rng.random(&[chunk], DType::Float32)?)?;
            pinned.push(p);
            outs.push(cuprum::empty_pinned(&[chunk], DType::Float32)?);
            dev.push(cuprum::empty(&[chunk], DType::Float32, &gpu)?);
        }
        let streams = [Stream::new(gpu)?, Stream::new(gpu)?, Stream::new(gpu)?, Stream::new(gpu)?];
        let null = Stream::null(gpu)?;
        let step = |d: &mut Array, p: &Array, out: &mut Array| -> Result<()> {
            d.copy_from(p)?;
            let v = d.view();
            unary_out(UnaryOp::Exp, &v, d)?;
            out.copy_from(d)
        };
        let one = wall(rep.min(5), || {
            for i in 0..k {
                step(&mut dev[i], &pinned[i], &mut outs[i])?;
                // CuPy's `get(out=...)` waits (blocking=True).
                null.synchronize()?;
            }
            Ok(())
        })?;
        let four = wall(rep.min(5), || {
            for i in 0..k {
                streams[i % 4].scope(|| step(&mut dev[i], &pinned[i], &mut outs[i]))?;
            }
            for s in &streams {
                s.synchronize()?;
            }
            Ok(())
        })?;
        // The floors of the same process: 400 MB in on one stream while 400 MB go out on
        // another (the duplex copy), and one chunk in alone. The pipeline cannot overlap its
        // first chunk in nor its last out with a copy the other way: its floor is the duplex
        // copy plus those two.
        let mut src = Vec::new();
        for _ in 0..k {
            src.push(cuprum::empty(&[chunk], DType::Float32, &gpu)?);
        }
        let duplex = wall(rep.min(5), || {
            streams[0].scope(|| dev.iter_mut().zip(&pinned).try_for_each(|(d, p)| d.copy_from(p)))?;
            streams[1].scope(|| outs.iter_mut().zip(&src).try_for_each(|(o, d)| o.copy_from(d)))?;
            streams[0].synchronize()?;
            streams[1].synchronize()
        })?;
        let chunk_in = wall(rep.min(5), || {
            dev[0].copy_from(&pinned[0])?;
            null.synchronize()
        })?;
        // The last chunk against the CPU's exp (the pipeline again: the floors overwrote outs).
        for i in 0..k {
            streams[i % 4].scope(|| step(&mut dev[i], &pinned[i], &mut outs[i]))?;
        }
        for s in &streams {
            s.synchronize()?;
        }
        let want = pinned[k - 1].exp()?;
        let ok = cuprum::allclose_with(
            &outs[k - 1],
            &want,
            &cuprum::CloseOptions { rtol: 1e-6, atol: 0.0, ..Default::default() },
        )?;
        o.record(
            copy_rows[0],
            None,
            one,
            one,
            Some(ok),
            "host wall ms: pinned in, exp in place, pinned out, one stream",
        );
        o.record(
            copy_rows[1],
            None,
            four,
            four,
            Some(ok && four <= duplex + 2.0 * chunk_in),
            &format!(
                "host wall ms over four streams, {:.2} of one stream; {:.2} of the duplex copy of the same data \
                 ({duplex:.2} ms), target <= it + one chunk in and one out ({:.2} ms each)",
                four / one,
                four / duplex,
                chunk_in
            ),
        );
    }
    Ok(())
}

/// Median host wall ms of `f` (after one warm-up run).
fn wall(rep: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut ts = Vec::new();
    for _ in 0..rep.max(1) {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64());
    }
    Ok(1e3 * median(&ts))
}
