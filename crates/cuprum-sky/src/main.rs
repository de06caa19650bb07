//! `cuprum-sky`: the lessons' radio-astronomy pipeline as a program.
//!
//! Reads a radio image (FITS or `.npy`; without a file, the synthetic sky of the bench's
//! `WORKLOADS.md`), estimates its background by kappa-sigma clipping, segments it at a few
//! sigma, labels the sources and measures their positions and fluxes, on the CPU or a GPU, or
//! with `--compare` on both: it prints each step's time on each device (the profiler's CPU and
//! GPU times, best of a few runs, as the lessons time them), the speedups and whether the two
//! devices agree, then the brightest sources; it writes pictures and a catalogue.
//!
//! ```text
//! cargo run --release                        # synthetic sky, on the best device there is
//! cargo run --release -- --compare           # the same on the CPU and the GPU, side by side
//! cargo run --release -- GMRT_image_of_Galactic_Center.fits --compare --out gc
//! ```

mod plots;

use clap::{Parser, ValueEnum};
use cuprum::io::{Colormap, Norm};
use cuprum::profiler::{benchmark_with, BenchmarkOptions, BenchmarkResult};
use cuprum::{Array, Device, Result};
use cuprum_sky::{
    detect, match_truth, prepare, synthetic_sky_with_truth, Catalogue, Detection, Injected, NanPolicy, Params,
};
use indicatif::{ProgressBar, ProgressStyle};
use plots::View;
use plotters::style::RGBColor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(version, about = "The lessons' radio-astronomy pipeline (kappa-sigma clipping, segmentation, labelling, source measurements) on the CPU and the GPU", long_about = None)]
struct Cli {
    /// The image: a FITS file (.fits/.fit/.fts, optionally gzip-free) or a .npy file. Without
    /// one, the synthetic 2048×2048 sky of the bench's WORKLOADS.md.
    file: Option<PathBuf>,
    /// The FITS HDU to read (0 = primary). Default: the primary, or the first image extension
    /// when the primary has no data.
    #[arg(long)]
    hdu: Option<usize>,
    /// Kappa of the kappa-sigma clipper (clip at median ± kappa·std until stable); a finite
    /// number above 0.
    #[arg(long, default_value_t = 3.0, allow_negative_numbers = true, value_parser = parse_positive)]
    kappa: f64,
    /// Detection threshold in units of the clipped standard deviation; a finite number above 0.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true, value_parser = parse_positive)]
    threshold: f64,
    /// Pixel connectivity of a source: 4 (SciPy's default) or 8.
    #[arg(long, default_value_t = 4, value_parser = parse_connectivity)]
    connectivity: u8,
    /// Where to run: `cpu` or `cuda:N`. Default: the first GPU when there is one, else the CPU.
    #[arg(long)]
    device: Option<Device>,
    /// Run on the CPU and on the GPU (`--device`, or cuda:0), time both and check that they agree.
    #[arg(long)]
    compare: bool,
    /// Folder for the pictures and the catalogue (created if missing).
    #[arg(long, default_value = "sky-out")]
    out: PathBuf,
    /// Timed runs per step (the best is reported; fewer on the CPU when one run takes seconds).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// NaN pixels: left out of the statistics and never part of a source (`ignore`), set to 0
    /// (`zero`), or refused (`error`).
    #[arg(long, value_enum, default_value_t = NanArg::Ignore)]
    nan: NanArg,
    /// How many of the brightest sources to print and number in the picture.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Size of the synthetic sky (pixels per side) when no file is given.
    #[arg(long, default_value_t = 2048)]
    size: usize,
    /// Number of sources in the synthetic sky.
    #[arg(long, default_value_t = 200)]
    sources: usize,
    /// Lower limit of the pictures' log colour scale (default: 3 × the clipped standard deviation).
    #[arg(long)]
    vmin: Option<f64>,
    /// Upper limit of the pictures' log colour scale (default: the image's maximum).
    #[arg(long)]
    vmax: Option<f64>,
    /// The pictures' colour map (matplotlib's names: gray_r, gray, viridis, magma, inferno,
    /// plasma, cividis, and their _r reversals).
    #[arg(long, default_value = "gray_r")]
    cmap: String,
    /// Show the image as stored, not mirrored left-right as the lesson shows it.
    #[arg(long)]
    no_flip: bool,
    /// Width of the pictures' image area in screen pixels.
    #[arg(long, default_value_t = 900)]
    picture_size: u32,
    /// Write no pictures (the catalogue is still written).
    #[arg(long)]
    no_pictures: bool,
}

/// A finite number above 0 (`--kappa`, `--threshold`): NaN, infinities, 0 and negative numbers
/// are refused with what is wrong, not taken (NaN) or read as unknown flags (`-1`).
fn parse_positive(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("must be a finite number above 0, not {s}"));
    }
    Ok(v)
}

fn parse_connectivity(s: &str) -> std::result::Result<u8, String> {
    match s {
        "4" => Ok(4),
        "8" => Ok(8),
        _ => Err(format!("connectivity must be 4 or 8, not {s}")),
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum NanArg {
    Ignore,
    Zero,
    Error,
}

impl From<NanArg> for NanPolicy {
    fn from(n: NanArg) -> NanPolicy {
        match n {
            NanArg::Ignore => NanPolicy::Ignore,
            NanArg::Zero => NanPolicy::Zero,
            NanArg::Error => NanPolicy::Error,
        }
    }
}

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`cuprum-sky | head`) would panic;
    // a command-line program should end quietly instead, as the shell's tools do.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition at the start of main, before any thread
    // exists; `signal` has no other preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    if let Err(e) = run(&cli) {
        eprintln!("cuprum-sky: {e}");
        std::process::exit(1);
    }
}

fn io_err(what: &Path, e: impl std::fmt::Display) -> cuprum::Error {
    cuprum::Error::Io(format!("{}: {e}", what.display()))
}

/// The image from a file (FITS or .npy) or the synthetic sky (with the sources put into it), on
/// the host, and a description.
fn load(cli: &Cli) -> Result<(Array, String, Option<Vec<Injected>>)> {
    let cpu = Device::Cpu;
    let Some(path) = &cli.file else {
        let t = Instant::now();
        let (sky, truth) = synthetic_sky_with_truth(cli.size, cli.sources)?;
        let what = format!(
            "the synthetic sky ({0}×{0} float32, {1} sources and a bright centre; made in {2:.2} s)",
            cli.size,
            cli.sources,
            t.elapsed().as_secs_f64()
        );
        return Ok((sky, what, Some(truth)));
    };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let img = match ext.as_str() {
        "npy" => cuprum::load_npy(path, &cpu)?,
        "fits" | "fit" | "fts" => {
            let opts = cuprum::io::FitsReadOptions { hdu: cli.hdu, ..Default::default() };
            cuprum::io::read_fits_with(path, &opts)?.data
        }
        _ => {
            return Err(cuprum::Error::Value(format!("{}: expected a .fits, .fit, .fts or .npy file", path.display())))
        }
    };
    let what = format!(
        "{} ({} {})",
        path.display(),
        img.shape().iter().map(|n| n.to_string()).collect::<Vec<_>>().join("×"),
        img.dtype()
    );
    Ok((img, what, None))
}

/// Best times of the four steps and of the whole pipeline on one device.
struct Timings {
    device: Device,
    /// Per step: (host seconds, device seconds: the GPU's event times on a GPU, else host).
    steps: Vec<(f64, f64)>,
}

const STEPS: [&str; 5] =
    ["1 kappa-sigma clipping", "2 segmentation", "3 labelling", "4 measurements", "all four, host in and out"];

/// Times each step of the pipeline on `device` (the profiler's benchmark: a warm-up call, then
/// up to `repeat` timed calls; fewer where one call takes over 2 s), returning the detection.
fn time_steps(
    host: &Array,
    device: Device,
    params: &Params,
    repeat: usize,
    bar: &ProgressBar,
) -> Result<(Timings, Detection)> {
    let image = host.to_device(&device)?;
    let found = detect(&image, params)?;
    let bg = found.background.clone();
    let mut steps = Vec::new();
    let mut step = |i: usize, f: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        bar.set_message(format!("{device}: {}", STEPS[i]));
        let t = Instant::now();
        f()?; // warm-up (kernels compiled or loaded from the cache)
        device.synchronize()?;
        let once = t.elapsed().as_secs_f64();
        let n = if once > 2.0 { 1 } else { repeat.clamp(1, ((6.0 / once.max(1e-9)) as usize).max(1)) };
        let r: BenchmarkResult = benchmark_with(
            STEPS[i],
            device,
            &BenchmarkOptions { n_repeat: n, n_warmup: 0, ..Default::default() },
            &mut *f,
        )?;
        let host_best = r.cpu_times.iter().copied().fold(f64::INFINITY, f64::min);
        steps.push((host_best, r.best()));
        bar.inc(1);
        Ok(())
    };
    step(0, &mut || cuprum_sky::background(&image, params).map(drop))?;
    step(1, &mut || cuprum_sky::segment(&image, bg.threshold).map(drop))?;
    step(2, &mut || cuprum_sky::label(&found.segmented, params.connectivity).map(drop))?;
    step(3, &mut || found.measure().map(drop))?;
    step(4, &mut || cuprum_sky::end_to_end(host, &device, params).map(drop))?;
    Ok((Timings { device, steps }, found))
}

fn ms(s: f64) -> String {
    let v = 1e3 * s;
    if v >= 100.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn print_times(all: &[Timings]) {
    let mut head = format!("{:<28}", "step (best, ms)");
    for t in all {
        if t.device.is_cuda() {
            head += &format!("{:>14}{:>14}", format!("{} host", t.device), format!("{} gpu", t.device));
        } else {
            head += &format!("{:>14}", format!("{}", t.device));
        }
    }
    if all.len() == 2 {
        head += &format!("{:>10}", "speedup");
    }
    println!("{head}");
    for (i, name) in STEPS.iter().enumerate() {
        let mut line = format!("{name:<28}");
        for t in all {
            let (h, d) = t.steps[i];
            if t.device.is_cuda() {
                line += &format!("{:>14}{:>14}", ms(h), ms(d));
            } else {
                line += &format!("{:>14}", ms(h));
            }
        }
        if let [a, b] = all {
            line += &format!("{:>9.1}×", a.steps[i].1 / b.steps[i].1);
        }
        println!("{line}");
    }
}

fn run(cli: &Cli) -> Result<()> {
    // An --out that names a file cannot hold the pictures: said before the run, not after it.
    if cli.out.exists() && !cli.out.is_dir() {
        return Err(cuprum::Error::Io(format!("--out {}: exists and is not a folder", cli.out.display())));
    }
    let params = Params { kappa: cli.kappa, threshold_sigma: cli.threshold, connectivity: cli.connectivity };
    let gpu = match cli.device {
        Some(d) if d.is_cuda() => Some(Device::cuda(match d {
            Device::Cuda(n) => n,
            Device::Cpu => 0,
        })?),
        Some(_) => None,
        None if cuprum::cuda_is_available() => Some(Device::cuda(0)?),
        None => None,
    };
    let devices: Vec<Device> = match (cli.compare, gpu) {
        (true, Some(g)) => vec![Device::Cpu, g],
        (true, None) => {
            println!("cuprum-sky: --compare needs a GPU and none is available here: running on the CPU only.");
            vec![Device::Cpu]
        }
        (false, Some(g)) => vec![g],
        (false, None) => vec![Device::Cpu],
    };
    if !cli.compare && gpu.is_none() && cli.device.is_none() {
        println!("cuprum-sky: no GPU here (cuprum::cuda_is_available() is false): running on the CPU.");
    }

    let (raw, what, truth) = load(cli)?;
    println!("image: {what}");
    let (host, nans) = prepare(&raw, cli.nan.into())?;
    if nans > 0 {
        println!("       {nans} NaN pixels ({})", format!("{:?}", cli.nan).to_lowercase());
    }
    let whole = cuprum_sky::Stats::of(&host)?;
    println!(
        "mean = {:.3e}, median = {:.3e}, stddev = {:.3e}, maximum = {:.3e}",
        whole.mean, whole.median, whole.std, whole.max
    );

    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ProgressBar::new((devices.len() * STEPS.len()) as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} timing {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut timings = Vec::new();
    let mut found = Vec::new();
    for &d in &devices {
        let (t, f) = time_steps(&host, d, &params, cli.repeat, &bar)?;
        timings.push(t);
        found.push(f);
    }
    bar.finish_and_clear();

    println!();
    print_times(&timings);
    if let [a, b] = &timings[..] {
        println!(
            "The four steps take {} ms on the CPU and {} ms on {} (GPU time, host data in and out): {:.1}× faster.",
            ms(a.steps[4].1),
            ms(b.steps[4].1),
            b.device,
            a.steps[4].1 / b.steps[4].1
        );
    }

    let last = found.last().expect("one device at least");
    let c = last.background.stats()?;
    let sigma = "\u{03C3}";
    println!();
    println!("mean of clipped = {:.3e}, median of clipped = {:.3e}", c.mean, c.median);
    println!("standard deviation of clipped = {:.3e}, maximum of clipped = {:.3e}", c.std, c.max);
    println!("({} of {} pixels kept, kappa = {})", c.count, host.size() - nans, params.kappa);
    println!("threshold = {} × {:.3e} = {:.3e}", params.threshold_sigma, c.std, last.background.threshold);
    println!(
        "The number of sources in the image at the {}{sigma} level is {} ({}-connectivity)",
        params.threshold_sigma, last.n_sources, params.connectivity
    );

    let catalogue = last.catalogue()?;
    if let [a, b] = &found[..] {
        let same_n = a.n_sources == b.n_sources;
        let labels =
            same_n && cuprum::array_equal(&a.labels.to_device(&Device::Cpu)?, &b.labels.to_device(&Device::Cpu)?)?;
        let (pa, fa) = a.measure()?;
        let (pb, fb) = b.measure()?;
        let close = |x: &Array, y: &Array| -> Result<bool> {
            Ok(same_n
                && cuprum::allclose_with(
                    &x.to_device(&Device::Cpu)?,
                    &y.to_device(&Device::Cpu)?,
                    &cuprum::CloseOptions { rtol: 1e-9, atol: 1e-12, ..Default::default() },
                )?)
        };
        let (pos, flux) = (close(&pa, &pb)?, close(&fa, &fb)?);
        let yes = |b: bool| if b { "yes" } else { "NO" };
        println!();
        println!(
            "The CPU and {} agree: same threshold: {}, labels equal: {}, positions allclose: {}, fluxes allclose: {}",
            b.image.device(),
            yes(a.background.threshold == b.background.threshold
                || (a.background.threshold - b.background.threshold).abs() <= 1e-12 * a.background.threshold.abs()),
            yes(labels),
            yes(pos),
            yes(flux)
        );
    }

    if found.len() < 2 {
        println!();
        println!("CPU/GPU agreement: not checked (one device here; with a GPU, --compare runs both and compares them)");
    }
    if let Some(truth) = &truth {
        let m = match_truth(&catalogue, truth, 2.0);
        let amp = |a: Option<f64>| a.map_or("none".to_string(), |a| format!("{a:.3}"));
        println!(
            "Against the synthetic sky's truth: {} of the {} sources put in (the centre included) have a detected centre within 2 px \
             (faintest found: amplitude {}; brightest missed: {}: a source blended with a neighbour has its centre between the two); \
             {} of the {} detections lie within 2 px of a source put in (the others are noise peaks or pieces of a source)",
            m.found,
            m.injected,
            amp(m.faintest_found),
            amp(m.brightest_missed),
            m.matched_detections,
            catalogue.len()
        );
    }

    println!();
    let top = catalogue.brightest(cli.top);
    println!("The {} brightest sources (of {}):", top.len(), catalogue.len());
    println!("{:>6} {:>10} {:>10} {:>12} {:>7} {:>11}", "id", "y", "x", "flux", "pixels", "peak");
    for &i in &top {
        println!(
            "{:>6} {:>10.2} {:>10.2} {:>12.4e} {:>7} {:>11.4e}",
            catalogue.id[i], catalogue.y[i], catalogue.x[i], catalogue.flux[i], catalogue.npix[i], catalogue.peak[i]
        );
    }

    std::fs::create_dir_all(&cli.out).map_err(|e| io_err(&cli.out, e))?;
    let mut written = catalogue.save(&cli.out)?;
    if !cli.no_pictures {
        // A spinner while the pictures are drawn (about a second), on a terminal only.
        let spin = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            ProgressBar::new_spinner()
        } else {
            ProgressBar::hidden()
        };
        spin.set_message("drawing the pictures");
        spin.enable_steady_tick(Duration::from_millis(120));
        let drawn = pictures(cli, &host, last, &catalogue);
        spin.finish_and_clear();
        written.extend(drawn?);
    }
    println!();
    println!("wrote {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(())
}

fn pictures(cli: &Cli, host: &Array, found: &Detection, catalogue: &Catalogue) -> Result<Vec<PathBuf>> {
    let pixels = host.to_vec_as::<f64>()?;
    let (ny, nx) = (host.shape()[0], host.shape()[1]);
    let c = found.background.stats()?;
    let max = pixels.iter().copied().filter(|p| p.is_finite()).fold(f64::NEG_INFINITY, f64::max);
    let vmin = cli.vmin.unwrap_or(3.0 * c.std);
    let vmax = cli.vmax.unwrap_or(max);
    if !(vmin > 0.0 && vmax > vmin) {
        return Err(cuprum::Error::Value(format!(
            "the log colour scale needs 0 < vmin < vmax (vmin = {vmin:.3e}, vmax = {vmax:.3e}); set --vmin/--vmax"
        )));
    }
    let side = cli.picture_size;
    let area = if nx >= ny {
        (side, ((side as usize * ny) / nx).max(1) as u32)
    } else {
        (((side as usize * nx) / ny).max(1) as u32, side)
    };
    let name = cli
        .file
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or("synthetic sky".to_string(), |f| f.to_string_lossy().into_owned());
    let view = View {
        pixels: &pixels,
        ny,
        nx,
        cmap: Colormap::from_name(&cli.cmap)?,
        norm: Norm::Log,
        vmin,
        vmax,
        flip: !cli.no_flip,
        title: format!("{name}: {}, log scale from {vmin:.2e} to {vmax:.2e}", cli.cmap),
        area,
    };
    let draw_err = |p: &Path, e: Box<dyn std::error::Error>| io_err(p, e);
    let image = cli.out.join("image.png");
    plots::image(&image, &view, None).map_err(|e| draw_err(&image, e))?;
    let sources = cli.out.join("sources.png");
    let titled = View {
        title: format!(
            "{} sources ({}σ, {}-connected); red: the {} brightest, by label",
            catalogue.len(),
            cli.threshold,
            cli.connectivity,
            cli.top.min(catalogue.len())
        ),
        ..view
    };
    plots::image(&sources, &titled, Some((catalogue, cli.top))).map_err(|e| draw_err(&sources, e))?;
    let hist = cli.out.join("histogram.png");
    let (lo, hi) = (c.median - 8.0 * c.std, c.median + 2.0 * found.background.threshold.max(8.0 * c.std));
    let k = cli.kappa;
    let lines = [
        (
            c.median - k * c.std,
            format!(
                "clipping limits: median ± {k}σ of the clipped pixels ({:.2e}, {:.2e})",
                c.median - k * c.std,
                c.median + k * c.std
            ),
            RGBColor(30, 110, 220),
        ),
        (c.median + k * c.std, String::new(), RGBColor(30, 110, 220)),
        (
            found.background.threshold,
            format!("detection threshold {}σ = {:.3e}", cli.threshold, found.background.threshold),
            RGBColor(220, 30, 30),
        ),
    ];
    plots::histogram(
        &hist,
        &pixels,
        lo,
        hi,
        160,
        &lines,
        &format!("{name}: pixel values (σ = {:.3e} after clipping)", c.std),
    )
    .map_err(|e| draw_err(&hist, e))?;
    Ok(vec![image, sources, hist])
}
