//! Timing of the CPU elementwise ufuncs (issue 12 item 2 and 4): median of `--reps` runs (20 by
//! default) of float32 `x - 1.0`, `x * x`, `sin(x)`, `exp(x)`, `log(x)`, `cos(x)` on 1M and 10M
//! elements, int64 `a - b` on 10
//! to 10k elements (`fixed_cost`), and `squared_diff_10k` ((x - y) * (x - y) on int64
//! arange(10000) and its reverse).
//! NumPy's numbers for the same lines come from the command in the doc of `main`.
//!
//! `cargo run --release --example cpu_ew_timing [-- --reps 20 --only NAME]`

use cuprum::{Array, DType, Device, Result};
use std::time::Instant;

/// One timed operation.
type Case<'a> = Box<dyn Fn() -> Result<Array> + 'a>;

fn median_ms(reps: usize, mut f: impl FnMut() -> Result<Array>) -> Result<f64> {
    f()?;
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            let r = f();
            let e = s.elapsed().as_secs_f64() * 1e3;
            drop(r);
            e
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    Ok(t[t.len() / 2])
}

/// NumPy, for comparison: `python3 -c "import numpy as np, timeit; x = np.linspace(0.1, 10, 1_000_000, dtype=np.float32); print(np.median(timeit.repeat(lambda: x - 1.0, number=1, repeat=20)) * 1e3)"`.
fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let reps = args.iter().skip_while(|a| *a != "--reps").nth(1).and_then(|s| s.parse().ok()).unwrap_or(20usize);
    let only = args.iter().skip_while(|a| *a != "--only").nth(1).cloned();
    let cpu = Device::Cpu;
    let want = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    for n in [1_000_000usize, 10_000_000] {
        let x = cuprum::linspace(0.1, 10.0, n, DType::Float32, &cpu)?;
        let tag = if n == 1_000_000 { "1M" } else { "10M" };
        let (xd, xh) = (x.astype(DType::Float64)?, x.astype(DType::Float16)?);
        let cases: Vec<(&str, Case<'_>)> = vec![
            ("sub_scalar", Box::new(|| &x - 1.0)),
            ("mul", Box::new(|| &x * &x)),
            ("sin", Box::new(|| x.sin())),
            ("cos", Box::new(|| x.cos())),
            ("exp", Box::new(|| x.exp())),
            ("log", Box::new(|| x.log())),
            ("tanh", Box::new(|| x.tanh())),
            ("less", Box::new(|| x.less(5.0))),
            ("power", Box::new(|| x.power(1.7))),
            ("f64_exp", Box::new(|| xd.exp())),
            ("f64_sin", Box::new(|| xd.sin())),
            ("f16_add", Box::new(|| &xh + &xh)),
            ("f16_exp", Box::new(|| xh.exp())),
        ];
        for (name, f) in cases {
            let name = format!("f32_{name}_{tag}");
            if want(&name) {
                println!("{name:<24} {:9.4} ms", median_ms(reps, f)?);
            }
        }
    }
    if want("fixed_cost") {
        for n in [10i64, 1000, 10_000] {
            let (a, b) = (cuprum::arange(n, &cpu)?, cuprum::arange(n, &cpu)?);
            let ms = median_ms(reps.max(2000), || &a - &b)?;
            println!("{:<24} {:9.4} ms", format!("int64_sub_{n}"), ms);
        }
    }
    if want("squared_diff_10k") {
        let a = cuprum::arange(10_000, &cpu)?;
        let b = cuprum::arange_with(9_999, -1, -1, DType::Int64, &cpu)?;
        let ms = median_ms(reps.max(200), || {
            let (d, e) = ((&a - &b)?, (&a - &b)?);
            &d * &e
        })?;
        println!("{:<24} {:9.4} ms", "squared_diff_10k", ms);
    }
    Ok(())
}
