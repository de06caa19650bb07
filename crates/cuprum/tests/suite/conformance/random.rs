//! Conformance groups: numpy.random: the streams and their statistics.

use super::*;

device_test!(random, |dev| {
    run_group("random", &dev, &[Layout::Contig], run_random);
    Ok(())
});

/// The random group: NumPy's SeedSequence states, and sequences of calls on one
/// `Generator(Philox(seed))` (see `gen_random` in the script), each call's array compared
/// exactly. The host-side results (SeedSequence states, `random_raw`) are moved to `dev`.
fn run_random(case: &Case, dev: &Device, _layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::random::{Generator, Philox, Seed, SeedSequence};
    let seed = |s: &str| -> Seed {
        let v: Vec<u128> = s.split('_').map(|x| x.parse().unwrap()).collect();
        if v.len() == 1 {
            Seed::Int(v[0])
        } else {
            Seed::Seq(v)
        }
    };
    if case.op == "chi2" {
        return random_chi2(case, dev);
    }
    let sd = seed(case.param("seed"));
    let host = |v: Vec<u32>| cuprum::from_vec(v, dev);
    match case.op.as_str() {
        "seedseq" => {
            let s = SeedSequence::new(sd)?;
            let n: usize = case.num("n");
            Ok(vec![match case.param("dtype") {
                "uint32" => host(s.generate_state_u32(n))?,
                _ => cuprum::from_vec(s.generate_state_u64(n), dev)?,
            }])
        }
        "calls" => {
            let mut g = Generator::new(Philox::new(sd)?, dev);
            let mut out = Vec::new();
            for call in case.param("calls").split('+') {
                let f: Vec<&str> = call.split('/').collect();
                let num = |i: usize| f[i].parse::<i128>().unwrap();
                let n = [f[f.len() - 1].parse::<usize>().unwrap()];
                match f[0] {
                    "random" => out.push(g.random(&n, DType::from_name(f[1]).unwrap())?),
                    "uniform" => out.push(g.uniform(f[1].parse().unwrap(), f[2].parse().unwrap(), &n)?),
                    "integers" => {
                        let dt = DType::from_name(f[3]).unwrap();
                        out.push(g.integers(num(1), Some(num(2)), &n, dt, f[4] == "1")?)
                    }
                    "raw" => out.push(cuprum::from_vec(g.bit_generator_mut().random_raw(n[0]), dev)?),
                    "advance" => {
                        g.bit_generator_mut().advance(num(1) as u64);
                    }
                    "choice" => {
                        let pop = num(1) as usize;
                        let p = (f[3] == "1").then(|| choice_p(pop, dev)).transpose()?;
                        out.push(g.choice_index_with(
                            pop,
                            &n,
                            &cuprum::random::ChoiceOptions {
                                replace: f[2] == "1",
                                p: p.as_ref(),
                                ..Default::default()
                            },
                        )?)
                    }
                    k => panic!("unknown random call {k}"),
                }
            }
            Ok(out)
        }
        op => panic!("unknown random case {op}"),
    }
}

/// The fixtures' weights of `choice` (the script's CHOICE_P[:pop], normalised).
fn choice_p(pop: usize, dev: &Device) -> cuprum::Result<Array> {
    let w: Vec<f64> = (0..pop).map(|k| 1.0 + ((k * 7919) % 13) as f64).collect();
    let total: f64 = w.iter().sum();
    cuprum::from_vec(w.iter().map(|x| x / total).collect::<Vec<f64>>(), dev)
}

/// A distribution's sample against SciPy's bins (see `gen_random_stats` in the script): a
/// fresh seed each run, `n` draws on `dev`, the chi-square statistic over the bins and the
/// z-score of the sample mean; returns max(chi-square, critical) and max(|z|, 6), which equal
/// the fixture's (critical, 6) exactly when the sample passes.
fn random_chi2(case: &Case, dev: &Device) -> cuprum::Result<Vec<Array>> {
    let ins = inputs(case, &Device::Cpu, Layout::Contig)?;
    let edges = ins[0].array().to_vec::<f64>()?;
    let probs = ins[1].array().to_vec::<f64>()?;
    let f = |v: &Val| match v.scalar() {
        Scalar::Float(x) => x,
        s => panic!("{}: expected a float, got {s:?}", case.id),
    };
    let (crit, mean, sd) = (f(&ins[2]), f(&ins[3]), f(&ins[4]));
    let n: usize = case.num("n");
    let args: Vec<f64> = case.param("args").split('_').filter(|x| !x.is_empty()).map(parse_f64).collect();
    let dtype = case.dtype("dtype");
    let stream = case.id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let seed = crate::common::Rng::new(stream).next_u64();
    let mut g = cuprum::random::default_rng(seed)?.on(dev);
    let size = [n];
    let x = match case.param("dist") {
        "standard_exponential" => g.standard_exponential(&size, dtype)?,
        "exponential" => g.exponential(args[0], &size)?,
        "standard_gamma" => g.standard_gamma(args[0], &size, dtype)?,
        "gamma" => g.gamma(args[0], args[1], &size)?,
        "beta" => g.beta(args[0], args[1], &size)?,
        "lognormal" => g.lognormal(args[0], args[1], &size)?,
        "standard_normal" => g.standard_normal(&size, dtype)?,
        "poisson" => g.poisson(args[0], &size)?,
        "binomial" => g.binomial(args[0] as i64, args[1], &size)?,
        "choice_p" => g.choice_index_with(
            args[0] as usize,
            &size,
            &cuprum::random::ChoiceOptions { p: Some(&choice_p(args[0] as usize, dev)?), ..Default::default() },
        )?,
        d => panic!("unknown distribution {d}"),
    };
    assert_eq!((x.dtype(), x.device()), (dtype, *dev), "{}", case.id);
    let v = x.astype(DType::Float64)?.to_vec::<f64>()?;
    let mut counts = vec![0f64; probs.len()];
    for &y in &v {
        // bin j: edges[j] <= y < edges[j + 1]
        let j = edges.partition_point(|&e| e <= y);
        assert!(j >= 1 && j <= probs.len(), "{}: {y} outside the support", case.id);
        counts[j - 1] += 1.0;
    }
    let chi2: f64 = counts.iter().zip(&probs).map(|(c, p)| (c - n as f64 * p).powi(2) / (n as f64 * p)).sum();
    let m = v.iter().sum::<f64>() / n as f64;
    let z = (m - mean).abs() / (sd / (n as f64).sqrt());
    if chi2 > crit || z.is_nan() || z > 6.0 {
        eprintln!("{} (seed {seed}): chi2 {chi2} (critical {crit}), mean {m} (expected {mean}, z {z})", case.id);
    }
    let h = |x: f64| cuprum::from_vec(vec![x], dev).and_then(|a| a.reshape(Vec::<usize>::new()));
    Ok(vec![h(chi2.max(crit))?, h(if z <= 6.0 { 6.0 } else { z })?])
}
