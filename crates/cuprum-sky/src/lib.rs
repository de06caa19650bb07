//! The lessons' radio-astronomy pipeline, written with cuprum: estimate the background of a radio
//! image by kappa-sigma clipping, segment it at a threshold of a few sigma, label the connected
//! sources, and measure their positions (centres of mass) and integrated fluxes. The same code
//! runs on any [`Device`]; the `cuprum-sky` program runs it on one or on both and compares them,
//! and `cuprum-bench`'s `pipeline_end_to_end` times [`end_to_end`] itself.
//!
//! ```
//! use cuprum::Device;
//! use cuprum_sky::{detect, synthetic_sky, Params};
//!
//! let sky = synthetic_sky(256, 20)?;                   // 256x256 float32, 20 sources
//! let found = detect(&sky, &Params::default())?;       // on the sky's device (the CPU here)
//! assert!(found.n_sources >= 15);
//! let (positions, fluxes) = found.measure()?;          // step 4: (y, x) and summed flux
//! assert_eq!(positions.shape(), &[found.n_sources, 2]);
//! assert_eq!(fluxes.shape(), &[found.n_sources]);
//! # Ok::<(), cuprum::Error>(())
//! ```

use cuprum::scipy::ndimage as ndi;
use cuprum::{Array, DType, Device, Error, Result};

/// What the pipeline needs to know besides the image.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Kappa of the kappa-sigma clipper: keep `median - kappa*std < x < median + kappa*std`
    /// until nothing more is dropped (the lesson: 3).
    pub kappa: f64,
    /// The detection threshold in units of the clipped standard deviation (the lesson: 5).
    pub threshold_sigma: f64,
    /// 4 or 8 (2-D): which neighbours join a source (SciPy's default structure is 4).
    pub connectivity: u8,
}

impl Default for Params {
    fn default() -> Params {
        Params { kappa: 3.0, threshold_sigma: 5.0, connectivity: 4 }
    }
}

/// The background statistics of the clipped pixels (step 1), as the lesson prints them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Number of pixels.
    pub count: usize,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Standard deviation (ddof 0, as `np.std`).
    pub std: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// The statistics of every element of `a` that is not NaN.
    pub fn of(a: &Array) -> Result<Stats> {
        let flat = a.ravel()?;
        let flat = if flat.dtype().is_float() { flat.mask(&flat.isnan()?.logical_not()?)? } else { flat };
        if flat.size() == 0 {
            return Err(Error::Value(
                "no pixels to compute statistics of (every pixel is NaN, or the image is empty)".into(),
            ));
        }
        Ok(Stats {
            count: flat.size(),
            mean: flat.mean(None)?.item()?,
            median: flat.median(None)?.item()?,
            std: flat.std(None)?.item()?,
            max: flat.max(None)?.item()?,
        })
    }
}

/// The lesson's kappa-sigma clipper on a 1-d array: drop the values outside
/// `median ± kappa·std` until none is dropped, and return what is left (a new array on the
/// input's device). NaNs must have been removed by the caller (see [`finite_pixels`]).
pub fn ks_clip(flat: &Array, kappa: f64) -> Result<Array> {
    let mut flat = flat.clone();
    loop {
        let med = flat.median(None)?.item::<f64>()?;
        let std = flat.std(None)?.item::<f64>()?;
        let lower = flat.mask(&flat.greater(med - kappa * std)?)?;
        let both = lower.mask(&lower.less(med + kappa * std)?)?;
        if both.size() == flat.size() {
            return Ok(flat);
        }
        flat = both;
    }
}

/// The pixels of `image` as a 1-d array, without NaNs (a view when the image has none).
pub fn finite_pixels(image: &Array) -> Result<Array> {
    let flat = image.ravel()?;
    if !flat.dtype().is_float() || !flat.isnan()?.any(None)?.item::<bool>()? {
        return Ok(flat);
    }
    flat.mask(&flat.isnan()?.logical_not()?)
}

/// Step 1 of the lesson: the clipped background and the threshold it gives.
#[derive(Clone, Debug)]
pub struct Background {
    /// The pixels the clipper kept (1-d, on the image's device).
    pub clipped: Array,
    /// Their standard deviation.
    pub std: f64,
    /// `threshold_sigma * std`.
    pub threshold: f64,
}

impl Background {
    /// The clipped pixels' statistics, as the lesson prints them (computed on demand: the
    /// pipeline itself needs only the standard deviation).
    pub fn stats(&self) -> Result<Stats> {
        Stats::of(&self.clipped)
    }
}

/// Step 1: kappa-sigma clipping of the finite pixels, and the detection threshold.
pub fn background(image: &Array, params: &Params) -> Result<Background> {
    let finite = finite_pixels(image)?;
    if finite.size() == 0 {
        return Err(Error::Value(
            "no pixels to estimate the background from (every pixel is NaN, or the image is empty)".into(),
        ));
    }
    let clipped = ks_clip(&finite, params.kappa)?;
    if clipped.size() == 0 {
        // The clipper keeps pixels strictly within median ± kappa·std: with no spread (a
        // constant image) or a degenerate kappa none is.
        let (lo, hi) = (finite.min(None)?.item::<f64>()?, finite.max(None)?.item::<f64>()?);
        let why = if lo == hi {
            format!("every pixel equals {lo}: the image has no spread to clip against")
        } else {
            format!("the pixels (from {lo} to {hi}) have too little spread for kappa = {}", params.kappa)
        };
        return Err(Error::Value(format!("kappa-sigma clipping kept no pixel: {why}")));
    }
    let std = clipped.std(None)?.item::<f64>()?;
    Ok(Background { clipped, std, threshold: params.threshold_sigma * std })
}

/// Step 2: `np.where(image > threshold, 1, 0)` as int64, as the lesson segments (NaN pixels are
/// never above the threshold).
pub fn segment(image: &Array, threshold: f64) -> Result<Array> {
    cuprum::where_(&image.greater(threshold)?, 1i64, 0i64)
}

/// Step 3: the labelled image (int32, 0 = background) and the number of sources.
pub fn label(segmented: &Array, connectivity: u8) -> Result<(Array, usize)> {
    let structure = match connectivity {
        4 => None,
        8 => Some(ndi::generate_binary_structure(2, 2)?),
        c => return Err(Error::Value(format!("connectivity must be 4 or 8, not {c}"))),
    };
    ndi::label_with(segmented, &ndi::LabelOptions { structure: structure.as_ref() })
}

/// Step 4: the centre of mass `(y, x)` of each source, shape `(n, 2)`, and its summed flux,
/// shape `(n,)`, both float64 on the image's device.
pub fn measure(image: &Array, labels: &Array, n_sources: usize) -> Result<(Array, Array)> {
    let index = ndi::Index::from(1..=n_sources as i64);
    let positions = ndi::center_of_mass(image, Some(labels), index.clone())?;
    let fluxes = ndi::sum_labels(image, Some(labels), index)?;
    Ok((positions.reshape([n_sources, 2])?, fluxes))
}

/// Steps 1 to 3 on the image's device, kept for step 4 and for the catalogue.
#[derive(Clone, Debug)]
pub struct Detection {
    /// The image, on the device the work ran on.
    pub image: Array,
    /// Step 1.
    pub background: Background,
    /// Step 2: 1 where a pixel is above the threshold (int64).
    pub segmented: Array,
    /// Step 3: the labels (int32).
    pub labels: Array,
    /// Step 3: how many sources.
    pub n_sources: usize,
}

impl Detection {
    /// Step 4 on these labels (see [`measure`]).
    pub fn measure(&self) -> Result<(Array, Array)> {
        measure(&self.image, &self.labels, self.n_sources)
    }

    /// Step 4 and the catalogue's other columns (pixel count and peak), on the host, sorted
    /// by label.
    pub fn catalogue(&self) -> Result<Catalogue> {
        let (positions, fluxes) = self.measure()?;
        let index = ndi::Index::from(1..=self.n_sources as i64);
        let npix = ndi::count(&self.labels, index.clone())?;
        let peak = ndi::maximum(&self.image, Some(&self.labels), index)?;
        let pos = positions.to_vec_as::<f64>()?;
        Ok(Catalogue {
            id: (1..=self.n_sources as i64).collect(),
            y: pos.iter().step_by(2).copied().collect(),
            x: pos.iter().skip(1).step_by(2).copied().collect(),
            flux: fluxes.to_vec_as::<f64>()?,
            npix: npix.to_vec_as::<i64>()?,
            peak: peak.to_vec_as::<f64>()?,
        })
    }
}

/// Steps 1 to 3 on `image`'s device.
pub fn detect(image: &Array, params: &Params) -> Result<Detection> {
    if image.ndim() != 2 {
        return Err(Error::Value(format!("the pipeline needs a 2-d image, not shape {:?}", image.shape())));
    }
    let background = background(image, params)?;
    let segmented = segment(image, background.threshold)?;
    let (labels, n_sources) = label(&segmented, params.connectivity)?;
    Ok(Detection { image: image.clone(), background, segmented, labels, n_sources })
}

/// The lesson's whole pipeline as `pipeline_end_to_end` times it: a host image copied to
/// `device`, the four steps there, and the positions `(y, x)` and fluxes back on the host
/// (flat `Vec`s: `positions[2*i], positions[2*i+1]` is source `i+1`'s centre).
pub fn end_to_end(host_image: &Array, device: &Device, params: &Params) -> Result<(Vec<f64>, Vec<f64>)> {
    let image = host_image.to_device(device)?;
    let found = detect(&image, params)?;
    let (positions, fluxes) = found.measure()?;
    Ok((positions.to_vec_as()?, fluxes.to_vec_as()?))
}

/// A source catalogue: one entry per label, in label order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalogue {
    /// The label (1-based).
    pub id: Vec<i64>,
    /// Centre of mass, row.
    pub y: Vec<f64>,
    /// Centre of mass, column.
    pub x: Vec<f64>,
    /// Summed flux of the source's pixels.
    pub flux: Vec<f64>,
    /// Number of pixels.
    pub npix: Vec<i64>,
    /// Brightest pixel.
    pub peak: Vec<f64>,
}

impl Catalogue {
    /// Number of sources.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// The indices of the `k` sources with the largest flux, brightest first (ties by label).
    pub fn brightest(&self, k: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&a, &b| self.flux[b].total_cmp(&self.flux[a]).then(a.cmp(&b)));
        order.truncate(k);
        order
    }

    /// The catalogue as CSV text: a header line, then `id,y,x,flux,npix,peak` per source.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("id,y,x,flux,npix,peak\n");
        for i in 0..self.len() {
            s += &format!(
                "{},{:.4},{:.4},{:.6e},{},{:.6e}\n",
                self.id[i], self.y[i], self.x[i], self.flux[i], self.npix[i], self.peak[i]
            );
        }
        s
    }

    /// Writes `catalogue.csv` and the columns as `.npy` files (`positions.npy` (n, 2) float64
    /// `(y, x)`, `fluxes.npy`, `npix.npy`, `peaks.npy`, `ids.npy`) into `dir`.
    pub fn save(&self, dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
        let cpu = Device::Cpu;
        let n = self.len();
        let mut pos = Vec::with_capacity(2 * n);
        for i in 0..n {
            pos.push(self.y[i]);
            pos.push(self.x[i]);
        }
        let csv = dir.join("catalogue.csv");
        std::fs::write(&csv, self.to_csv()).map_err(|e| Error::Io(format!("{}: {e}", csv.display())))?;
        let mut written = vec![csv];
        let arrays = [
            ("positions.npy", cuprum::from_slice(&pos, &[n, 2], &cpu)?),
            ("fluxes.npy", cuprum::from_slice(&self.flux, &[n], &cpu)?),
            ("npix.npy", cuprum::from_slice(&self.npix, &[n], &cpu)?),
            ("peaks.npy", cuprum::from_slice(&self.peak, &[n], &cpu)?),
            ("ids.npy", cuprum::from_slice(&self.id, &[n], &cpu)?),
        ];
        for (name, a) in arrays {
            let p = dir.join(name);
            cuprum::save_npy(&p, &a)?;
            written.push(p);
        }
        Ok(written)
    }
}

/// The synthetic sky of `WORKLOADS.md` (`bench/WORKLOADS.md`): an `n`×`n` float32 image of
/// N(0, 0.0133) noise, `sources` Gaussian sources (amplitude U(0.08, 2), width U(1, 3) pixels)
/// at least 20 pixels from the edge, and a bright extended centre `2.5·exp(-r²/(2·6²))`.
/// Deterministic (a fixed xorshift seed), on the CPU; the 2048², 200-source sky is the bench's.
pub fn synthetic_sky(n: usize, sources: usize) -> Result<Array> {
    Ok(synthetic_sky_with_truth(n, sources)?.0)
}

/// One source put into the synthetic sky: its centre (row, column; the pixel it was centred
/// on), amplitude and Gaussian width in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Injected {
    /// Row of the centre.
    pub y: f64,
    /// Column of the centre.
    pub x: f64,
    /// Peak value added.
    pub amplitude: f64,
    /// Gaussian sigma in pixels.
    pub width: f64,
}

/// [`synthetic_sky`] and the sources put into it (the bright centre last, with its width 6), so
/// that a detection can be checked against the truth.
pub fn synthetic_sky_with_truth(n: usize, sources: usize) -> Result<(Array, Vec<Injected>)> {
    if n < 41 {
        return Err(Error::Value(format!("the synthetic sky needs n >= 41, not {n}")));
    }
    let mut s: u64 = 0x5EED_0001;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut img = vec![0f32; n * n];
    let mut truth = Vec::with_capacity(sources + 1);
    for px in img.chunks_mut(2) {
        let (u1, u2) = (next().max(1e-300), next());
        let r = (-2.0 * u1.ln()).sqrt() * 0.0133;
        px[0] = (r * (2.0 * std::f64::consts::PI * u2).cos()) as f32;
        if px.len() > 1 {
            px[1] = (r * (2.0 * std::f64::consts::PI * u2).sin()) as f32;
        }
    }
    for _ in 0..sources {
        let y = 20 + (next() * (n - 40) as f64) as usize;
        let x = 20 + (next() * (n - 40) as f64) as usize;
        let amp = 0.08 + next() * (2.0 - 0.08);
        let w = 1.0 + next() * 2.0;
        truth.push(Injected { y: y as f64, x: x as f64, amplitude: amp, width: w });
        for yy in y.saturating_sub(12)..=(y + 12).min(n - 1) {
            for xx in x.saturating_sub(12)..=(x + 12).min(n - 1) {
                let d2 = ((yy as f64 - y as f64).powi(2) + (xx as f64 - x as f64).powi(2)) / (2.0 * w * w);
                img[yy * n + xx] += (amp * (-d2).exp()) as f32;
            }
        }
    }
    let c = (n / 2) as f64;
    for yy in 0..n {
        for xx in 0..n {
            let r2 = (yy as f64 - c).powi(2) + (xx as f64 - c).powi(2);
            img[yy * n + xx] += (2.5 * (-r2 / (2.0 * 36.0)).exp()) as f32;
        }
    }
    truth.push(Injected { y: c, x: c, amplitude: 2.5, width: 6.0 });
    Ok((cuprum::from_slice(&img, &[n, n], &Device::Cpu)?, truth))
}

/// How a catalogue compares with the sources put into a synthetic sky.
#[derive(Clone, Debug, PartialEq)]
pub struct TruthMatch {
    /// Injected sources with a detected centre within the distance.
    pub found: usize,
    /// Injected sources in all.
    pub injected: usize,
    /// Detections within the distance of an injected source.
    pub matched_detections: usize,
    /// The faintest injected amplitude that was found, and the brightest that was not.
    pub faintest_found: Option<f64>,
    /// See `faintest_found`.
    pub brightest_missed: Option<f64>,
}

/// Matches a catalogue against the injected sources: an injected source counts as found when a
/// detected centre lies within `within` pixels of it.
pub fn match_truth(cat: &Catalogue, truth: &[Injected], within: f64) -> TruthMatch {
    let near = |t: &Injected, i: usize| (cat.y[i] - t.y).hypot(cat.x[i] - t.x) <= within;
    let mut m = TruthMatch {
        found: 0,
        injected: truth.len(),
        matched_detections: 0,
        faintest_found: None,
        brightest_missed: None,
    };
    for t in truth {
        if (0..cat.len()).any(|i| near(t, i)) {
            m.found += 1;
            m.faintest_found = Some(m.faintest_found.map_or(t.amplitude, |a: f64| a.min(t.amplitude)));
        } else {
            m.brightest_missed = Some(m.brightest_missed.map_or(t.amplitude, |a: f64| a.max(t.amplitude)));
        }
    }
    m.matched_detections = (0..cat.len()).filter(|&i| truth.iter().any(|t| near(t, i))).count();
    m
}

/// How NaN pixels of an input image are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NanPolicy {
    /// Left out of the background statistics, never part of a source (the default).
    #[default]
    Ignore,
    /// Replaced by 0 before anything else.
    Zero,
    /// An image with a NaN is an error.
    Error,
}

/// Prepares an input image for the pipeline: leading axes of length 1 dropped (radio FITS
/// images are often `(1, 1, ny, nx)`), integers converted to float64 (float16 to float32),
/// and NaNs treated by `policy`. Returns the image and its number of NaN pixels.
pub fn prepare(image: &Array, policy: NanPolicy) -> Result<(Array, usize)> {
    let mut img = image.clone();
    while img.ndim() > 2 && img.shape()[0] == 1 {
        img = img.squeeze_axes([0])?;
    }
    if img.ndim() != 2 {
        return Err(Error::Value(format!(
            "the pipeline needs a 2-d image (after dropping leading axes of length 1), not shape {:?}",
            image.shape()
        )));
    }
    img = match img.dtype() {
        DType::Float32 | DType::Float64 => img,
        DType::Float16 => img.astype(DType::Float32)?,
        _ => img.astype(DType::Float64)?,
    };
    let nans = img.isnan()?.count_nonzero(None)?.item::<i64>()? as usize;
    if nans > 0 {
        match policy {
            NanPolicy::Ignore => {}
            NanPolicy::Zero => img = cuprum::where_(&img.isnan()?, 0.0, &img)?,
            NanPolicy::Error => {
                return Err(Error::Value(format!(
                    "the image has {nans} NaN pixels (choose --nan ignore or --nan zero)"
                )))
            }
        }
    }
    Ok((img, nans))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_why_the_background_cannot_be_estimated() -> Result<()> {
        let dev = Device::Cpu;
        let msg = |img: &Array| background(img, &Params::default()).unwrap_err().to_string();
        // Constant, all-zero and boolean images: no spread, said as such (the message blamed NaNs).
        for img in [
            cuprum::full(&[16, 16], 2.5, cuprum::DType::Float32, &dev)?,
            cuprum::zeros(&[16, 16], cuprum::DType::Float64, &dev)?,
            cuprum::ones(&[4, 4], cuprum::DType::Bool, &dev)?,
        ] {
            let m = msg(&img);
            assert!(m.contains("no spread"), "{}: {m}", img.dtype());
        }
        // Two values half and half with a small kappa: no pixel lies strictly within
        // median ± kappa·std (0.5 ± 0.25).
        let two = cuprum::from_vec((0..64).map(|i| (i % 2) as f64).collect::<Vec<_>>(), &dev)?;
        let m = background(&two, &Params { kappa: 0.5, ..Params::default() }).unwrap_err().to_string();
        assert!(m.contains("too little spread for kappa = 0.5"), "{m}");
        // All NaN or empty: the old message, which is right there.
        let nan = cuprum::full(&[3], f64::NAN, cuprum::DType::Float64, &dev)?;
        assert!(msg(&nan).contains("every pixel is NaN"));
        assert!(msg(&cuprum::zeros(&[0], cuprum::DType::Float64, &dev)?).contains("every pixel is NaN"));
        Ok(())
    }

    #[test]
    fn finds_the_synthetic_sources_and_their_centres() -> Result<()> {
        let sky = synthetic_sky(256, 12)?;
        let found = detect(&sky, &Params::default())?;
        // 12 sources and the centre, less any too faint, more where a faint one breaks up.
        assert!((8..=24).contains(&found.n_sources), "{} sources", found.n_sources);
        let clipped = found.background.stats()?;
        assert!((clipped.std - 0.0133).abs() < 0.001, "clipped std {}", clipped.std);
        assert_eq!(clipped.std, found.background.std);
        let cat = found.catalogue()?;
        // The brightest is the extended centre at (128, 128).
        let b = cat.brightest(1)[0];
        assert!((cat.y[b] - 128.0).abs() < 0.5 && (cat.x[b] - 128.0).abs() < 0.5, "{} {}", cat.y[b], cat.x[b]);
        assert!(cat.npix.iter().all(|&p| p > 0));
        assert!(cat.peak.iter().zip(&cat.flux).all(|(p, f)| p <= f || *f < 0.0));
        Ok(())
    }

    #[test]
    fn the_bright_injected_sources_are_found_where_they_were_put() -> Result<()> {
        let (sky, truth) = synthetic_sky_with_truth(512, 40)?;
        assert_eq!(truth.len(), 41);
        let cat = detect(&sky, &Params::default())?.catalogue()?;
        let m = match_truth(&cat, &truth, 2.0);
        // Every source brighter than 10 sigma of the noise is found within 2 pixels.
        assert!(m.brightest_missed.is_none_or(|a| a < 10.0 * 0.0133), "{m:?}");
        assert!(m.found >= 30 && m.matched_detections >= 30, "{m:?}");
        // A catalogue shifted by 5 pixels matches nothing.
        let shifted = Catalogue { x: cat.x.iter().map(|x| x + 5.0).collect(), ..cat.clone() };
        assert_eq!(match_truth(&shifted, &truth, 2.0).found, 0);
        Ok(())
    }

    #[test]
    fn end_to_end_matches_the_steps() -> Result<()> {
        let sky = synthetic_sky(128, 5)?;
        let (pos, flux) = end_to_end(&sky, &Device::Cpu, &Params::default())?;
        let cat = detect(&sky, &Params::default())?.catalogue()?;
        assert_eq!(flux, cat.flux);
        assert_eq!(pos.len(), 2 * cat.len());
        assert_eq!(pos[0], cat.y[0]);
        assert_eq!(pos[1], cat.x[0]);
        Ok(())
    }

    #[test]
    fn eight_connectivity_never_finds_more_sources() -> Result<()> {
        let sky = synthetic_sky(256, 30)?;
        let four = detect(&sky, &Params::default())?.n_sources;
        let eight = detect(&sky, &Params { connectivity: 8, ..Params::default() })?.n_sources;
        assert!(eight <= four && eight > 0);
        let bad = detect(&sky, &Params { connectivity: 6, ..Params::default() });
        assert_eq!(bad.unwrap_err().kind(), cuprum::ErrorKind::ValueError);
        Ok(())
    }

    #[test]
    fn nan_pixels_follow_the_policy() -> Result<()> {
        let mut v = synthetic_sky(64, 3)?.to_vec::<f32>()?;
        v[5] = f32::NAN;
        v[700] = f32::NAN;
        let img = cuprum::from_slice(&v, &[1, 64, 64], &Device::Cpu)?;
        let (ignored, nans) = prepare(&img, NanPolicy::Ignore)?;
        assert_eq!((nans, ignored.shape()), (2, &[64usize, 64][..]));
        let found = detect(&ignored, &Params::default())?;
        let clipped = found.background.stats()?;
        assert!(clipped.count <= 64 * 64 - 2 && clipped.std.is_finite() && clipped.median.is_finite(), "{clipped:?}");
        assert!(found.n_sources > 0);
        let (zeroed, _) = prepare(&img, NanPolicy::Zero)?;
        assert_eq!(zeroed.to_vec::<f32>()?[5], 0.0);
        assert!(prepare(&img, NanPolicy::Error).is_err());
        assert!(prepare(&cuprum::zeros(&[2, 3, 4], DType::Float32, &Device::Cpu)?, NanPolicy::Ignore).is_err());
        Ok(())
    }

    #[test]
    fn catalogue_csv_has_a_row_per_source() -> Result<()> {
        let cat = detect(&synthetic_sky(128, 4)?, &Params::default())?.catalogue()?;
        let csv = cat.to_csv();
        assert_eq!(csv.lines().count(), cat.len() + 1);
        assert!(csv.starts_with("id,y,x,flux,npix,peak\n1,"));
        let dir = std::env::temp_dir().join(format!("cuprum-sky-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::Io(e.to_string()))?;
        cat.save(&dir)?;
        let pos = cuprum::load_npy(dir.join("positions.npy"), &Device::Cpu)?;
        assert_eq!(pos.shape(), &[cat.len(), 2]);
        assert_eq!(pos.to_vec::<f64>()?[1], cat.x[0]);
        std::fs::remove_dir_all(&dir).ok();
        Ok(())
    }
}
