//! Streams, events, pinned memory and graphs (`cuprum::cuda`): the current-stream scopes,
//! results on user streams equal to the default stream's, the pool's cross-stream rule (a
//! freed block is never reused while another stream's queued work still reads it), ordering
//! by events, asynchronous copies with pinned host arrays, graph capture and replay, and the
//! bad-input errors.

use crate::common::{base_seed, random, Rng};
use cuprum::cuda::{get_current_stream, get_elapsed_time, Event, Stream};
use cuprum::{Array, DType, Device, ErrorKind};

fn kind<T>(r: cuprum::Result<T>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

cpu_test!(streams_and_events_on_the_cpu);
fn streams_and_events_on_the_cpu() {
    // A lesson's stream code runs unchanged on the CPU: host work is ordered (it runs when
    // called), events read the host clock, the benchmark's device times are those events'.
    let cpu = Device::Cpu;
    let run = || -> cuprum::Result<()> {
        let s = Stream::new(cpu)?;
        assert!(!s.is_null() && Stream::null(cpu)?.is_null() && s.device() == cpu);
        assert!(s.synchronize().is_ok() && s.query()?);
        let (start, end) = (Event::new(cpu)?, Event::new(cpu)?);
        assert_eq!(kind(get_elapsed_time(&start, &end)), ErrorKind::ValueError, "not recorded");
        start.record_on(&s)?;
        let x = s.scope(|| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            cuprum::ones(&[1000], DType::Float32, &cpu)?.exp()
        })?;
        end.record_on(&s)?;
        end.synchronize()?;
        let ms = get_elapsed_time(&start, &end)?;
        assert!((20.0..2000.0).contains(&ms), "{ms} ms");
        assert!(end.query()? && x.size() == 1000);
        let e = s.record()?;
        Stream::null(cpu)?.wait_event(&e)?;
        assert_eq!(kind(s.capture(|| Ok(()))), ErrorKind::NotImplementedError);
        s.destroy()?;
        assert_eq!(kind(s.enter()), ErrorKind::ValueError);
        assert_eq!(kind(end.record_on(&s)), ErrorKind::ValueError);
        assert_eq!(kind(Stream::null(cpu)?.destroy()), ErrorKind::ValueError);
        let r = cuprum::profiler::benchmark_with(
            "exp",
            cpu,
            &cuprum::profiler::BenchmarkOptions { n_repeat: 4, n_warmup: 1, ..Default::default() },
            || x.exp(),
        )?;
        assert_eq!((r.gpu_times.len(), r.cpu_times.len()), (4, 4));
        assert!(r.gpu_times.iter().all(|t| t.is_finite() && *t >= 0.0) && r.mean().is_finite());
        Ok(())
    };
    run().unwrap();
}

device_test!(stream_scopes_nest_per_thread, |gpu| {
    let null = Stream::null(gpu)?;
    assert!(null.is_null());
    assert_eq!(get_current_stream(gpu)?, null);
    let (s1, s2) = (Stream::new(gpu)?, Stream::new(gpu)?);
    assert_ne!(s1, s2);
    s1.scope(|| {
        assert_eq!(get_current_stream(gpu)?, s1);
        s2.scope(|| {
            assert_eq!(get_current_stream(gpu)?, s2);
            // Another thread has its own scopes: the default stream there.
            let other = std::thread::spawn(move || get_current_stream(gpu).map(|s| s.is_null())).join().unwrap()?;
            assert!(other);
            Ok(())
        })?;
        assert_eq!(get_current_stream(gpu)?, s1);
        Ok(())
    })?;
    {
        let _g = s2.enter()?;
        assert_eq!(get_current_stream(gpu)?, s2);
    }
    assert_eq!(get_current_stream(gpu)?, null);
    // An error inside a scope leaves it.
    let r: cuprum::Result<()> = s1.scope(|| Err(cuprum::Error::Value("inner".into())));
    assert!(r.is_err());
    assert_eq!(get_current_stream(gpu)?, null);
    Ok(())
});

/// A mix of operations (elementwise, a split reduction, a sort, cuBLAS, cuSOLVER, cuFFT, a
/// fused formula) on `x` (square float32).
fn work(x: &Array) -> cuprum::Result<Vec<Array>> {
    let e = (x.sin()? * 3.0f32)?.exp()?;
    let s = x.sum(None)?;
    let rows = x.sum(1)?;
    let sorted = x.sort(-1)?;
    let m = cuprum::matmul(x, x)?;
    let inv = cuprum::linalg::inv(&(x + &cuprum::eye(x.shape()[0], DType::Float32, &x.device())?)?)?;
    let f = cuprum::fft::rfft(x)?;
    let fused = cuprum::fuse(|[a]| (&a - 0.5f32) * (&a - 0.5f32)).call([x])?;
    Ok(vec![e, s, rows, sorted, m, inv, f, fused])
}

gpu_test!(streams_give_the_default_streams_results, |gpu| {
    let mut rng = Rng::new(base_seed() ^ 0x5157);
    let xs: Vec<Array> =
        (0..4).map(|_| crate::common::on(&gpu, &random(&[256, 256], DType::Float32, &mut rng, false))).collect();
    gpu.synchronize()?;
    let want: Vec<Vec<Vec<u8>>> =
        xs.iter().map(|x| work(x).map(|v| v.iter().map(bytes).collect())).collect::<cuprum::Result<_>>()?;
    let streams = [Stream::new(gpu)?, Stream::new(gpu)?];
    for round in 0..3 {
        // All four on two streams at once, then read back.
        let got: Vec<Vec<Array>> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| streams[(i + round) % 2].scope(|| work(x)))
            .collect::<cuprum::Result<_>>()?;
        for s in &streams {
            s.synchronize()?;
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            for (k, (a, b)) in g.iter().zip(w).enumerate() {
                assert_eq!(&bytes(a), b, "round {round}, input {i}, result {k}: stream and default stream differ");
            }
        }
    }
    Ok(())
});

fn bytes(a: &Array) -> Vec<u8> {
    a.to_bytes().unwrap()
}

/// Work that keeps a stream busy for a while (eight passes over 256 MB: over a millisecond on
/// an H100, far longer than queuing the next operations takes), in kernels of cuprum's own
/// (quick under compute-sanitizer, unlike cuBLAS's).
fn busy(big: &Array) -> cuprum::Result<Array> {
    let mut m = big.sin()?;
    for _ in 0..7 {
        m = m.sin()?;
    }
    Ok(m)
}

gpu_test!(pool_reuse_waits_for_other_streams, |gpu| {
    // A block read by a busy stream and freed at once must not be rewritten by the next
    // allocation (on its home stream, or on a third stream) before that read.
    // Under compute-sanitizer (CUPRUM_SANITIZER=1) smaller and fewer: the tools are slow.
    let light = std::env::var("CUPRUM_SANITIZER").is_ok();
    let n = 1 << 22;
    let big = cuprum::full(&[if light { 1 << 22 } else { 1 << 26 }], 1e-3f32, DType::Float32, &gpu)?;
    let null = Stream::null(gpu)?;
    let (s1, s2) = (Stream::new(gpu)?, Stream::new(gpu)?);
    for trial in 0..if light { 2 } else { 6i32 } {
        let v = 1.0 + trial as f32;
        // home: the default stream (trial even) or s2 (odd); reader: s1.
        let home = if trial % 2 == 0 { null.clone() } else { s2.clone() };
        let x = home.scope(|| cuprum::full(&[n], v, DType::Float32, &gpu))?;
        s1.wait_event(&home.record()?)?;
        let (sum, _m) = s1.scope(|| {
            let m = busy(&big)?;
            Ok(((&x * 2.0f32)?.sum(None)?, m))
        })?;
        drop(x);
        // The home stream reuses the block (after waiting on s1's event) and overwrites it;
        // a third stream allocates the same size (it must not take the block while s1 runs).
        let y = home.scope(|| cuprum::full(&[n], -7.0f32, DType::Float32, &gpu))?;
        let third = if trial % 2 == 0 { &s2 } else { &null };
        let z = third.scope(|| cuprum::full(&[n], -9.0f32, DType::Float32, &gpu))?;
        s1.synchronize()?;
        let got = sum.to_vec::<f32>()?[0];
        let want = 2.0 * v * n as f32;
        assert_eq!(got, want, "trial {trial}: the read on s1 saw memory reused by another stream");
        home.synchronize()?;
        third.synchronize()?;
        assert_eq!(y.to_vec::<f32>()?[n - 1], -7.0);
        assert_eq!(z.to_vec::<f32>()?[0], -9.0);
    }
    Ok(())
});

gpu_test!(work_on_another_stream_is_ordered_with_the_home_stream, |gpu| {
    // Without events: an array made on a busy stream and read on the default stream, and one
    // made on the default stream, written in place on a busy stream and read back.
    let big = cuprum::full(&[1 << 26], 1e-3f32, DType::Float32, &gpu)?;
    let s = Stream::new(gpu)?;
    gpu.synchronize()?;
    for trial in 0..4 {
        let v = 2.0 + trial as f32;
        let (made, _m) = s.scope(|| {
            let m = busy(&big)?;
            Ok((cuprum::full(&[1 << 20], v, DType::Float32, &gpu)?, m))
        })?;
        assert_eq!(made.sum(None)?.to_vec::<f32>()?[0], v * (1 << 20) as f32, "trial {trial}: made on s");
        let mut home = cuprum::zeros(&[1 << 20], DType::Float32, &gpu)?;
        let _m = s.scope(|| {
            let m = busy(&big)?;
            home.fill(v)?;
            Ok(m)
        })?;
        assert_eq!(home.to_vec::<f32>()?[(1 << 20) - 1], v, "trial {trial}: written on s");
    }
    Ok(())
});

gpu_test!(events_order_streams_and_time, |gpu| {
    let big = cuprum::full(&[1 << 26], 1e-3f32, DType::Float32, &gpu)?;
    let (s1, s2) = (Stream::new(gpu)?, Stream::new(gpu)?);
    let (start, end) = (Event::new(gpu)?, Event::new(gpu)?);
    assert!(end.query()?, "an event never recorded counts as done");
    let mut out = cuprum::zeros(&[1 << 20], DType::Float32, &gpu)?;
    gpu.synchronize()?;
    start.record_on(&s1)?;
    s1.scope(|| {
        let _m = busy(&big)?;
        out.fill(3.0)
    })?;
    end.record_on(&s1)?;
    // s2 reads what s1 wrote, ordered by the event only (no host wait).
    s2.wait_event(&end)?;
    let total = s2.scope(|| out.sum(None))?;
    s2.synchronize()?;
    assert!(end.query()?);
    assert_eq!(total.to_vec::<f32>()?[0], 3.0 * (1 << 20) as f32);
    let ms = get_elapsed_time(&start, &end)?;
    assert!(ms > 0.0 && ms.is_finite(), "elapsed {ms}");
    // The profiler's benchmark runs on the current stream.
    let r = s2.scope(|| {
        cuprum::profiler::benchmark_with(
            "exp",
            gpu,
            &cuprum::profiler::BenchmarkOptions { n_repeat: 3, n_warmup: 1, ..Default::default() },
            || big.exp(),
        )
    })?;
    assert_eq!(r.gpu_times.len(), 3);
    Ok(())
});

gpu_test!(pinned_copies_are_asynchronous_and_safe, |gpu| {
    let n = 1 << 20;
    let mut host = cuprum::empty_pinned(&[n], DType::Float32)?;
    assert!(host.is_pinned());
    assert!(host.to_vec::<f32>()?.iter().all(|&v| v == 0.0));
    host.copy_from(&cuprum::arange_f(0.0, n as f64, 1.0, DType::Float32, &Device::Cpu)?)?;
    let s = Stream::new(gpu)?;
    let big = cuprum::full(&[1 << 26], 1e-3f32, DType::Float32, &gpu)?;
    gpu.synchronize()?;
    let mut dev = cuprum::zeros(&[n], DType::Float32, &gpu)?;
    gpu.synchronize()?;
    let mut back = cuprum::empty_pinned(&[n], DType::Float32)?;
    s.scope(|| {
        let _m = busy(&big)?; // the copies below queue behind this
        dev.copy_from(&host)?; // no host wait
                               // Writing the host array waits for the copy that reads it.
        host.fill(-1.0)?;
        let y = (&dev + 1.0f32)?;
        back.copy_from(&y) // no host wait; reading `back` waits
    })?;
    let b = back.to_vec::<f32>()?;
    assert_eq!(b[0], 1.0);
    assert_eq!(b[n - 1], n as f32);
    assert_eq!(host.to_vec::<f32>()?[7], -1.0);
    // Host arrays made pinned on request, and a non-contiguous destination.
    let a = random(&[300, 200], DType::Float64, &mut Rng::new(base_seed()), false);
    let p = a.pinned()?;
    assert!(p.is_pinned() && !a.is_pinned());
    let d = s.scope(|| p.to_device(&gpu))?;
    let mut t = cuprum::zeros(&[200, 300], DType::Float64, &Device::Cpu)?.t();
    t.copy_from(&d)?;
    assert_eq!(bytes(&t.as_contiguous()?), bytes(&a));
    assert_eq!(kind(t.copy_from(&d.astype(DType::Float32)?)), ErrorKind::TypeError);
    assert_eq!(kind(t.copy_from(&d.t())), ErrorKind::ValueError);
    Ok(())
});

gpu_test!(graphs_replay_captured_work, |gpu| {
    let s = Stream::new(gpu)?;
    let mut x = cuprum::full(&[4096], 0.25f32, DType::Float32, &gpu)?;
    let step = |x: &Array| -> cuprum::Result<(Array, Array)> {
        let y = ((x.sin()? * 2.0f32)? + x)?.exp()?;
        let t = y.sum(None)?;
        Ok((y, t))
    };
    let eager = step(&x)?;
    gpu.synchronize()?;
    let (graph, (y, t)) = s.capture(|| step(&x))?;
    for v in [0.5f32, -1.5, 3.0] {
        x.fill(v)?;
        Stream::null(gpu)?.synchronize()?;
        graph.launch()?;
        s.synchronize()?;
        let want = s.scope(|| step(&x))?;
        s.synchronize()?;
        assert_eq!(bytes(&y), bytes(&want.0), "replay with x = {v}");
        assert_eq!(bytes(&t), bytes(&want.1), "replay with x = {v}");
    }
    drop(eager);
    // A loop of small steps: acc += x, 50 replays.
    let mut acc = cuprum::zeros(&[1000], DType::Float64, &gpu)?;
    let ones = cuprum::ones(&[1000], DType::Float64, &gpu)?;
    gpu.synchronize()?;
    let (g2, ()) = s.capture(|| acc.add_assign(&ones))?;
    for _ in 0..50 {
        g2.launch()?;
    }
    s.synchronize()?;
    assert_eq!(acc.to_vec::<f64>()?, vec![50.0; 1000]);
    assert_eq!(g2.stream(), s);
    Ok(())
});

gpu_test!(graph_replays_are_ordered_with_the_arrays_streams, |gpu| {
    // No host waits between the steps: a busy default stream fills x, a replay on s reads it
    // (after the fill), the default stream overwrites x at once (after the replay) and reads
    // the replay's result (made on s).
    let big = cuprum::full(&[1 << 26], 1e-3f32, DType::Float32, &gpu)?;
    let s = Stream::new(gpu)?;
    let n = 1 << 20;
    let mut x = cuprum::full(&[n], 1.0f32, DType::Float32, &gpu)?;
    (&x * 2.0f32)?;
    gpu.synchronize()?;
    let (g, y) = s.capture(|| &x * 2.0f32)?;
    for v in 2..6 {
        let _m = busy(&big)?;
        x.fill(v as f32)?;
        g.launch()?;
        x.fill(-1.0)?;
        let total = y.sum(None)?.to_vec::<f32>()?[0];
        assert_eq!(total, 2.0 * v as f32 * n as f32, "replay {v}");
    }
    Ok(())
});

gpu_test!(stream_errors, |gpu| {
    let s = Stream::new(gpu)?;
    let x = cuprum::ones(&[100], DType::Float32, &gpu)?;
    x.exp()?;
    gpu.synchronize()?;
    // A host synchronisation inside a capture: RuntimeError, the capture abandoned cleanly.
    let e = s.capture(|| x.exp()?.to_vec::<f32>()).map(|_| ()).expect_err("a host read in a capture");
    assert_eq!(e.kind(), ErrorKind::RuntimeError, "{e}");
    let e = s.capture(|| gpu.synchronize()).map(|_| ()).expect_err("synchronize in a capture");
    assert_eq!(e.kind(), ErrorKind::RuntimeError, "{e}");
    // The stream works and captures again afterwards.
    let y = s.scope(|| x.exp())?;
    s.synchronize()?;
    assert_eq!(y.to_vec::<f32>()?[0], 1f32.exp());
    let (g, z) = s.capture(|| &x * 2.0f32)?;
    g.launch()?;
    s.synchronize()?;
    assert_eq!(z.to_vec::<f32>()?[0], 2.0);
    // The default stream cannot capture or be destroyed.
    let null = Stream::null(gpu)?;
    assert_eq!(kind(null.capture(|| x.exp())), ErrorKind::ValueError);
    assert_eq!(kind(null.destroy()), ErrorKind::ValueError);
    // A destroyed stream refuses every use.
    let d = Stream::new(gpu)?;
    let ev = Event::new(gpu)?;
    let w = d.scope(|| x.exp())?;
    d.destroy()?;
    assert_eq!(kind(ev.record_on(&d)), ErrorKind::ValueError);
    assert_eq!(kind(d.record()), ErrorKind::ValueError);
    assert_eq!(kind(d.enter()), ErrorKind::ValueError);
    assert_eq!(kind(d.scope(|| x.exp())), ErrorKind::ValueError);
    assert_eq!(kind(d.synchronize()), ErrorKind::ValueError);
    assert_eq!(kind(d.wait_event(&ev)), ErrorKind::ValueError);
    assert_eq!(kind(d.capture(|| x.exp())), ErrorKind::ValueError);
    // Its queued work still finished and its array is still good (the read on the default
    // stream waits for the destroyed stream's work on it).
    assert_eq!(w.to_vec::<f32>()?[0], 1f32.exp());
    Ok(())
});

two_gpu_test!(streams_of_another_device_are_errors, |gpu0, gpu1| {
    let s1 = Stream::new(gpu1)?;
    let e0 = Event::new(gpu0)?;
    assert_eq!(kind(e0.record_on(&s1)), ErrorKind::ValueError);
    assert_eq!(kind(s1.wait_event(&e0)), ErrorKind::ValueError);
    let a0 = cuprum::ones(&[10], DType::Float32, &gpu0)?;
    // An array of device 0 used inside device 1's scope.
    let e = s1.scope(|| a0.exp()).expect_err("device 0 work in device 1's scope");
    assert_eq!(e.kind(), ErrorKind::ValueError, "{e}");
    let e1 = Event::new(gpu1)?;
    e0.record()?;
    e1.record()?;
    e0.synchronize()?;
    e1.synchronize()?;
    assert_eq!(kind(get_elapsed_time(&e0, &e1)), ErrorKind::ValueError);
    Ok(())
});
