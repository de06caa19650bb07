//! The lessons' radio-astronomy part (seeds 000 and 001, "A real world example: image
//! processing for radio astronomy", and seed 002's "putting it all together" challenge), step by
//! step as the lesson prints it: the image's statistics, kappa-sigma clipping, segmentation,
//! labelling and source measurements, each timed on the CPU and on the GPU with the speedup;
//! then the four steps as one function on each device, the overall speedup and the agreement.
//!
//! `cargo run --release -p cuprum-sky --example intro_cupy_astronomy [-- FILE.fits] [--size N]`
//! (without a file, the synthetic sky of the bench; with the lesson's
//! `GMRT_image_of_Galactic_Center.fits`, that image; on the CPU only when there is no GPU).

use cuprum::profiler::{benchmark_with, BenchmarkOptions};
use cuprum::scipy::ndimage::{center_of_mass, label, sum_labels, Index};
use cuprum::{Array, Device, Result};
use cuprum_sky::ks_clip;

/// The best device time of `f` over a few runs (the lesson's `timeit(...).best` on the CPU and
/// `np.amin(benchmark(...).gpu_times)` on the GPU).
fn fastest<R>(name: &str, dev: Device, repeat: usize, f: impl FnMut() -> Result<R>) -> Result<f64> {
    Ok(benchmark_with(name, dev, &BenchmarkOptions { n_repeat: repeat, n_warmup: 1, ..Default::default() }, f)?.best())
}

fn main() -> Result<()> {
    let (file, size) = args();
    let gpu = Device::default_device();
    let cpu = Device::Cpu;
    println!(
        "GPU device: {gpu}{}",
        if gpu.is_cpu() { " (no GPU here: the lesson's GPU lines run on the CPU backend)" } else { "" }
    );
    let data = match &file {
        Some(p) => {
            let img = cuprum::io::read_fits(p, &cpu)?;
            println!("read {p}: {:?} {}", img.shape(), img.dtype());
            // Leading axes of length 1 dropped; NaN (blank) pixels kept, and left out of the
            // statistics below.
            let (img, nans) = cuprum_sky::prepare(&img, cuprum_sky::NanPolicy::Ignore)?;
            if nans > 0 {
                println!("{nans} NaN pixels, left out of the statistics and the clipping");
            }
            img
        }
        None => {
            println!("the synthetic sky ({size}×{size} float32; pass a FITS file to use the lesson's image)");
            cuprum_sky::synthetic_sky(size, (200 * size * size / (2048 * 2048)).max(5))?
        }
    };

    // mean_ = data.mean(); median_ = np.median(data); stddev_ = np.std(data); max_ = np.amax(data)
    // (of the pixels that are not NaN: the flattened data the lesson clips)
    let data_flat = cuprum_sky::finite_pixels(&data)?;
    let (mean_, median_, stddev_, max_) =
        (data_flat.mean(None)?, data_flat.median(None)?, data_flat.std(None)?, data_flat.max(None)?);
    println!("mean = {mean_:.3e}, median = {median_:.3e}, sttdev = {stddev_:.3e}, maximum = {max_:.3e}");

    // Step 1: kappa-sigma clipping, on the CPU and on the GPU.
    let data_clipped = ks_clip(&data_flat, 3.0)?;
    let fastest_ks_clipping_cpu = fastest("ks_clipper_cpu", cpu, 3, || ks_clip(&data_flat, 3.0))?;
    println!("Fastest CPU ks clipping time = {:.3e} ms.", 1e3 * fastest_ks_clipping_cpu);
    let (clipped_mean, clipped_median, clipped_std, clipped_max) =
        (data_clipped.mean(None)?, data_clipped.median(None)?, data_clipped.std(None)?, data_clipped.max(None)?);
    println!("mean of clipped = {clipped_mean:.3e}, median of clipped = {clipped_median:.3e}");
    println!("standard deviation of clipped = {clipped_std:.3e}, maximum of clipped = {clipped_max:.3e}");
    let data_gpu = data.to_device(&gpu)?;
    let data_flat_gpu = data_flat.to_device(&gpu)?;
    let fastest_ks_clipping_gpu = fastest("kappa_sigma_clipper", gpu, 10, || ks_clip(&data_flat_gpu, 3.0))?;
    println!("{:.3e} ms", 1e3 * fastest_ks_clipping_gpu);
    println!("The speedup factor for ks clipping is: {:.3e}", fastest_ks_clipping_cpu / fastest_ks_clipping_gpu);

    // Step 2: segmentation at 5 sigma.
    let stddev_ = clipped_std.item::<f64>()?;
    let threshold = 5.0 * stddev_;
    println!("standard deviation of background_noise = {stddev_:.4} Jy/beam");
    let segment = |d: &Array| cuprum::where_(&d.greater(threshold)?, 1i64, 0i64);
    let segmented_image = segment(&data)?;
    let fastest_segmentation_cpu = fastest("np.where", cpu, 5, || segment(&data))?;
    println!("Fastest CPU segmentation time = {:.3e} ms.", 1e3 * fastest_segmentation_cpu);
    let segmented_image_gpu = segment(&data_gpu)?;
    let fastest_segmentation_gpu = fastest("np.where", gpu, 10, || segment(&data_gpu))?;
    println!("{:.3e} ms", 1e3 * fastest_segmentation_gpu);
    println!("The speedup factor for segmentation is: {:.3e}", fastest_segmentation_cpu / fastest_segmentation_gpu);

    // Step 3: connected component labelling.
    let (labelled_image, number_of_sources_in_image) = label(&segmented_image)?;
    println!("The number of sources in the image at the 5\u{03C3} level is {number_of_sources_in_image}.");
    let fastest_ccl_cpu = fastest("label", cpu, 5, || label(&segmented_image))?;
    println!("Fastest CPU CCL time = {:.3e} ms.", 1e3 * fastest_ccl_cpu);
    println!("These are all the pixel values we can find in the labelled image: {}", cuprum::unique(&labelled_image)?);
    let (labelled_image_gpu, n_gpu) = label(&segmented_image_gpu)?;
    println!("The number of sources in the image at the 5\u{03C3} level is {n_gpu}.");
    let fastest_ccl_gpu = fastest("label_gpu", gpu, 10, || label(&segmented_image_gpu))?;
    println!("Fastest CCL on the GPU is {:.3e} ms", 1e3 * fastest_ccl_gpu);
    println!("The speedup factor for CCL is: {:.3e}", fastest_ccl_cpu / fastest_ccl_gpu);

    // Step 4: source measurements.
    let index = Index::from(1..=number_of_sources_in_image as i64);
    let measure = |d: &Array, l: &Array| -> Result<(Array, Array)> {
        Ok((center_of_mass(d, Some(l), index.clone())?, sum_labels(d, Some(l), index.clone())?))
    };
    let (all_positions, all_integrated_fluxes) = measure(&data, &labelled_image)?;
    let sorted = all_integrated_fluxes.sort(-1)?;
    let n = sorted.shape()[0];
    println!(
        "These are the ten highest integrated fluxes of the sources in my image: {}",
        sorted.slice(cuprum::s![n.saturating_sub(10)..])?
    );
    let fastest_source_measurements_cpu = fastest("measurements", cpu, 5, || measure(&data, &labelled_image))?;
    println!("Fastest CPU set of source measurements = {:.3e} ms.", 1e3 * fastest_source_measurements_cpu);
    let fastest_source_measurements_gpu = fastest("measurements", gpu, 10, || measure(&data_gpu, &labelled_image_gpu))?;
    println!("Fastest source measurements on the GPU take {:.3e} ms", 1e3 * fastest_source_measurements_gpu);
    println!(
        "The speedup factor for source measurements is: {:.3e}",
        fastest_source_measurements_cpu / fastest_source_measurements_gpu
    );

    // Seed 002's challenge: the four steps as one function, on each device, host data in.
    let params = cuprum_sky::Params::default();
    let all_on = |dev: Device| cuprum_sky::end_to_end(&data, &dev, &params);
    let cpu_output = all_on(cpu)?;
    let fastest_complete_processing_cpu = fastest("all_on_cpu", cpu, 3, || all_on(cpu))?;
    println!(
        "The four steps of image processing for astronomy take {:.3e} ms\n on our CPU.",
        1e3 * fastest_complete_processing_cpu
    );
    let gpu_output = all_on(gpu)?;
    let fastest_complete_processing_gpu = fastest("all_on_gpu", gpu, 10, || all_on(gpu))?;
    println!(
        "The four steps of image processing for astronomy take {:.3e} ms\n on our GPU.",
        1e3 * fastest_complete_processing_gpu
    );
    println!(
        "This means that the overall speedup factor GPU vs CPU equals: {:.3e}\n",
        fastest_complete_processing_cpu / fastest_complete_processing_gpu
    );
    let close = |a: &[f64], b: &[f64]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-8 + 1e-5 * y.abs())
    };
    println!("The CPU and GPU positions agree: {}\n", close(&cpu_output.0, &gpu_output.0));
    println!("The CPU and GPU fluxes agree: {}\n", close(&cpu_output.1, &gpu_output.1));
    let _ = all_positions;
    Ok(())
}

/// An optional FITS file and `--size N` for the synthetic sky (default 2048).
fn args() -> (Option<String>, usize) {
    let mut file = None;
    let mut size = 2048;
    let a: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < a.len() {
        if a[i] == "--size" && i + 1 < a.len() {
            size = a[i + 1].parse().unwrap_or(size);
            i += 2;
        } else {
            file = Some(a[i].clone());
            i += 1;
        }
    }
    (file, size.max(64))
}
