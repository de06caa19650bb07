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

    // Array math on the device
    let doubled = (&ary_gpu * 2)?;
    println!("{doubled}");
    let x = ary_gpu.astype(DType::Float64)?;
    println!("{}", ((-0.5 * x.square()?)?.exp())?);
    // cp.linalg.norm(ary_gpu): sqrt(sum(x**2))
    println!("{}", x.square()?.sum(None)?.sqrt()?);

    // The lesson's delta grid: deltas[8::16, 8::16] = 1
    let mut deltas = cuprum::zeros(&[2048, 2048], DType::Float64, &dev)?;
    deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?;
    println!("deltas: sum = {}, mean = {:.6}", deltas.sum(None)?, deltas.mean(None)?.item::<f64>()?);
    Ok(())
}
