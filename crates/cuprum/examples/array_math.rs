//! Lesson 003, "GPU Array Math", in Rust: arrays on the default device (the first GPU, or the
//! CPU when there is none), copies to and from the host, ufuncs, reductions and views.
//!
//! Run with `cargo run --release --example array_math`.

use cuprum::{s, DType, Device};

fn main() -> cuprum::Result<()> {
    let dev = Device::default_device();
    println!(
        "device: {dev}{}",
        if dev.is_cpu() { " (no GPU here: the lesson's GPU arrays live on the CPU)" } else { "" }
    );

    // ary = cp.arange(10).reshape((2, 5))
    let ary = cuprum::arange(10, &dev)?.reshape([2, 5])?;
    println!("{ary:?}");
    println!("{}", ary.dtype());
    println!("{:?}", ary.shape());
    println!("{:?}", ary.strides());

    // ary_gpu = cp.asarray(np.arange(10)); cp.asnumpy(ary_gpu)
    let host: Vec<i64> = (0..10).collect();
    let ary_gpu = cuprum::asarray(&host, &dev)?;
    println!("host: {:?}", host);
    println!("on {}: {ary_gpu}", ary_gpu.device());
    println!("{}", ary_gpu.device());
    let back: cuprum::ndarray::ArrayD<i64> = ary_gpu.to_ndarray()?;
    println!("{back:?}");

    // Array math on the device. Formulas are written as `Expr`s (`x.expr()`), which carry
    // any error to the one `?` after `.eval()`.
    let doubled = (ary_gpu.expr() * 2).eval()?;
    println!("{doubled}");
    let x = ary_gpu.astype(DType::Float64)?;
    // cp.exp(-0.5 * x**2)
    println!("{}", (-0.5 * x.expr().powi(2)).exp().eval()?);
    // cp.linalg.norm(ary_gpu): sqrt(sum(x**2))
    println!("{}", x.expr().powi(2).sum(None).sqrt().eval()?);

    // The lessons' Gaussian:
    // x, y = cp.meshgrid(cp.linspace(-2, 2, 15), cp.linspace(-2, 2, 15))
    // dst = cp.sqrt(x*x + y*y); sigma = 1; muu = 0.000
    // gauss = cp.exp(-((dst-muu)**2/(2.0 * sigma**2)))
    let lin = cuprum::linspace(-2.0, 2.0, 15, true, DType::Float64, &dev)?;
    let [gx, gy] = cuprum::meshgrid([&lin, &lin], cuprum::Indexing::Xy)?;
    let dst = (gx.expr() * &gx + gy.expr() * &gy).sqrt().eval()?;
    let (sigma, muu) = (1.0f64, 0.000);
    let gauss = (-(dst.expr() - muu).powi(2) / (2.0 * sigma.powi(2))).exp().eval()?;
    println!(
        "gauss: shape {:?}, centre {:.6}, corner {:.6}, sum {:.6}",
        gauss.shape(),
        gauss.slice(s![7, 7])?.item::<f64>()?,
        gauss.slice(s![0, 0])?.item::<f64>()?,
        gauss.sum(None)?.item::<f64>()?
    );

    // The lesson's delta grid: deltas[8::16, 8::16] = 1
    let mut deltas = cuprum::zeros(&[2048, 2048], DType::Float64, &dev)?;
    deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?;
    println!("deltas: sum = {}, mean = {:.6}", deltas.sum(None)?, deltas.mean(None)?.item::<f64>()?);
    Ok(())
}
