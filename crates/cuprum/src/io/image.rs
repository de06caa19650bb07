//! Pictures of 2-D arrays without a plotting crate: [`imsave`] writes a PNG as matplotlib's
//! `plt.imsave` / `imshow` shows the array (a colour map, linear or logarithmic normalisation
//! between `vmin` and `vmax`, row 0 at the top, and with [`ImageOptions::colorbar`] the colour
//! bar of `colorbar()`); [`colorize`] gives the RGBA pixels alone and [`Colormap::rgb`] one
//! colour, for programs that draw their own axes.
//!
//! **Normalisation**, as matplotlib's `Normalize` and `LogNorm`: `vmin`/`vmax` default to the
//! minimum and maximum of the finite values (for [`Norm::Log`], of the finite positive values);
//! `t = (x - vmin) / (vmax - vmin)` (with `log10` of each for [`Norm::Log`]); `vmin == vmax`
//! gives `t = 0` everywhere; `vmin > vmax` is a `ValueError`, and so is a non-positive limit
//! with [`Norm::Log`]. The colour is entry `floor(t * 256)` of the map's 256, clipped to the
//! first and last (matplotlib's under/over colours default to those): values beyond explicit
//! limits take the end colours. Pixels that are NaN or infinite (as `imshow` masks them with
//! `masked_invalid`), and with [`Norm::Log`] those `<= 0` (masked by `LogNorm`), take the
//! `bad` colour, transparent by default as matplotlib's. (`plt.imsave` itself does not mask
//! them: with a NaN in the data and no `vmin`/`vmax`, its limits become NaN and its whole
//! picture transparent; cuprum draws what `imshow` shows.) cuprum normalises in float64;
//! matplotlib normalises float32 data in float32, so a value within a float32 rounding of a
//! colour boundary can fall on the other side.
//!
//! **Colour maps**: `gray`/`gray_r` are matplotlib's exactly (its 256-entry table and its
//! truncation to bytes, which gives 32 for entry 33). The perceptual maps come from the
//! `colorous` crate (d3's tables of matplotlib's colours, read through a B-spline, and a
//! polynomial fit for cividis): viridis, magma, inferno and plasma within 2 units of
//! matplotlib's bytes, cividis within 16 (the tests measure the difference against
//! matplotlib's numbers).

use crate::array::Array;
use crate::core::error::{Error, Result};
use crate::io::io_err;
use rayon::prelude::*;
use std::path::Path;

/// A colour map, named as matplotlib's (`Colormap::from_name("gray_r")`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Colormap {
    /// Black to white (`gray`).
    Gray,
    /// White to black (`gray_r`), the lessons' sky pictures.
    GrayR,
    /// matplotlib's default (`viridis`).
    #[default]
    Viridis,
    ViridisR,
    Magma,
    MagmaR,
    Inferno,
    InfernoR,
    Plasma,
    PlasmaR,
    Cividis,
    CividisR,
}

impl Colormap {
    /// Every map.
    pub const ALL: [Colormap; 12] = [
        Colormap::Gray,
        Colormap::GrayR,
        Colormap::Viridis,
        Colormap::ViridisR,
        Colormap::Magma,
        Colormap::MagmaR,
        Colormap::Inferno,
        Colormap::InfernoR,
        Colormap::Plasma,
        Colormap::PlasmaR,
        Colormap::Cividis,
        Colormap::CividisR,
    ];

    /// matplotlib's name (`"gray_r"`).
    ///
    /// ```
    /// assert_eq!(cuprum::io::Colormap::InfernoR.name(), "inferno_r");
    /// ```
    pub fn name(self) -> &'static str {
        use Colormap::*;
        match self {
            Gray => "gray",
            GrayR => "gray_r",
            Viridis => "viridis",
            ViridisR => "viridis_r",
            Magma => "magma",
            MagmaR => "magma_r",
            Inferno => "inferno",
            InfernoR => "inferno_r",
            Plasma => "plasma",
            PlasmaR => "plasma_r",
            Cividis => "cividis",
            CividisR => "cividis_r",
        }
    }

    /// The map of matplotlib's name (`"viridis"`, `"gray_r"`, ...; `"grey"` too); an unknown
    /// name is a `ValueError`, as matplotlib raises.
    ///
    /// ```
    /// use cuprum::io::Colormap;
    /// assert_eq!(Colormap::from_name("gray_r")?, Colormap::GrayR);
    /// assert_eq!(Colormap::from_name("jet").unwrap_err().kind(), cuprum::ErrorKind::ValueError);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_name(name: &str) -> Result<Colormap> {
        let n = name.replace("grey", "gray");
        Colormap::ALL.into_iter().find(|c| c.name() == n).ok_or_else(|| {
            Error::Value(format!(
                "{name:?} is not a known colormap name; supported: {}",
                Colormap::ALL.map(|c| c.name()).join(", ")
            ))
        })
    }

    /// The map reversed (`viridis` ↔ `viridis_r`).
    ///
    /// ```
    /// use cuprum::io::Colormap;
    /// assert_eq!(Colormap::Gray.reversed(), Colormap::GrayR);
    /// assert_eq!(Colormap::Magma.reversed().entry(0), Colormap::Magma.entry(255));
    /// ```
    pub fn reversed(self) -> Colormap {
        use Colormap::*;
        match self {
            Gray => GrayR,
            GrayR => Gray,
            Viridis => ViridisR,
            ViridisR => Viridis,
            Magma => MagmaR,
            MagmaR => Magma,
            Inferno => InfernoR,
            InfernoR => Inferno,
            Plasma => PlasmaR,
            PlasmaR => Plasma,
            Cividis => CividisR,
            CividisR => Cividis,
        }
    }

    /// Entry `i` (0..=255) of the map's 256 colours.
    ///
    /// ```
    /// use cuprum::io::Colormap;
    /// assert_eq!(Colormap::Gray.entry(33), [32, 32, 32]);     // matplotlib's truncation
    /// assert_eq!(Colormap::Viridis.entry(0), [68, 1, 84]);
    /// ```
    pub fn entry(self, i: u8) -> [u8; 3] {
        use Colormap::*;
        let i = i as usize;
        // matplotlib's gray: lut = linspace(0, 1, 256) through its segment interpolation, then
        // (lut * 255).astype(uint8), which truncates.
        let gray = |i: usize| -> u8 {
            let d = if i == 255 { 1.0 } else { (255.0 * (i as f64 * (1.0 / 255.0))) / 255.0 };
            (d * 255.0) as u8
        };
        let gray_r = |i: usize| -> u8 {
            let d = if i == 0 {
                1.0
            } else if i == 255 {
                0.0
            } else {
                1.0 - (255.0 * (i as f64 * (1.0 / 255.0))) / 255.0
            };
            (d * 255.0) as u8
        };
        let (g, j) = match self {
            Gray => return [gray(i); 3],
            GrayR => return [gray_r(i); 3],
            Viridis => (colorous::VIRIDIS, i),
            ViridisR => (colorous::VIRIDIS, 255 - i),
            Magma => (colorous::MAGMA, i),
            MagmaR => (colorous::MAGMA, 255 - i),
            Inferno => (colorous::INFERNO, i),
            InfernoR => (colorous::INFERNO, 255 - i),
            Plasma => (colorous::PLASMA, i),
            PlasmaR => (colorous::PLASMA, 255 - i),
            Cividis => (colorous::CIVIDIS, i),
            CividisR => (colorous::CIVIDIS, 255 - i),
        };
        let c = g.eval_rational(j, 256);
        [c.r, c.g, c.b]
    }

    /// The colour at `t` in `[0, 1]`, as matplotlib's `cmap(t, bytes=True)[:3]`: entry
    /// `floor(t * 256)`, clipped to the first and last (NaN gives the first).
    ///
    /// ```
    /// use cuprum::io::Colormap;
    /// assert_eq!(Colormap::Gray.rgb(0.0), [0, 0, 0]);
    /// assert_eq!(Colormap::Gray.rgb(1.0), [255, 255, 255]);
    /// assert_eq!(Colormap::GrayR.rgb(0.25), [191, 191, 191]);   // cm.gray_r(0.25, bytes=True)
    /// ```
    pub fn rgb(self, t: f64) -> [u8; 3] {
        self.entry(lut_index(t))
    }
}

/// matplotlib's `Colormap.__call__` index of a normalised value (N = 256).
fn lut_index(t: f64) -> u8 {
    let x = t * 256.0;
    if x.is_nan() || x < 0.0 {
        0
    } else if x >= 255.0 {
        255
    } else {
        x as u8
    }
}

/// How values map to `[0, 1]` before the colour map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Norm {
    /// matplotlib's `Normalize`: `(x - vmin) / (vmax - vmin)`.
    #[default]
    Linear,
    /// matplotlib's `LogNorm`: the same on `log10`; values `<= 0` are bad pixels.
    Log,
}

/// Where row 0 of the array goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Origin {
    /// Row 0 at the top (matplotlib's default `origin='upper'`).
    #[default]
    Upper,
    /// Row 0 at the bottom (`origin='lower'`).
    Lower,
}

/// Options of [`imsave`] and [`colorize`] (matplotlib's `imsave`/`imshow` arguments).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageOptions {
    /// The colour map (default viridis, matplotlib's).
    pub cmap: Colormap,
    /// Linear or logarithmic normalisation (default linear).
    pub norm: Norm,
    /// The value mapped to the map's first colour (`None`: the data's finite minimum; for
    /// [`Norm::Log`], the minimum of the finite positive values).
    pub vmin: Option<f64>,
    /// The value mapped to the map's last colour (`None`: the data's finite maximum).
    pub vmax: Option<f64>,
    /// RGBA of bad pixels (NaN, infinite, and `<= 0` with [`Norm::Log`]); default transparent
    /// `[0, 0, 0, 0]`, matplotlib's.
    pub bad: [u8; 4],
    /// Row 0 at the top (default) or at the bottom.
    pub origin: Origin,
    /// A colour bar right of the image, as matplotlib's `colorbar()` (default off, as
    /// `plt.imsave`): the map from `vmax` (top) to `vmin`, outlined, with ticks and their
    /// values, on white; the picture is as tall as the image and wider.
    pub colorbar: bool,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            cmap: Colormap::Viridis,
            norm: Norm::Linear,
            vmin: None,
            vmax: None,
            bad: [0, 0, 0, 0],
            origin: Origin::Upper,
            colorbar: false,
        }
    }
}

/// RGBA pixels, 4 bytes each, row by row from the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba8Image {
    /// Pixels per row (the array's second axis).
    pub width: usize,
    /// Rows (the array's first axis).
    pub height: usize,
    /// `height * width * 4` bytes: R, G, B, A.
    pub pixels: Vec<u8>,
}

impl Rgba8Image {
    /// The RGBA of pixel `(row, col)`, row 0 at the top (an example at [`colorize`]).
    pub fn pixel(&self, row: usize, col: usize) -> [u8; 4] {
        let i = (row * self.width + col) * 4;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2], self.pixels[i + 3]]
    }
}

/// The normalisation limits: explicit or from the data, checked as matplotlib checks them.
fn limits(v: &[f64], opts: &ImageOptions) -> Result<Option<(f64, f64)>> {
    let usable = |x: f64| x.is_finite() && (opts.norm == Norm::Linear || x > 0.0);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    if opts.vmin.is_none() || opts.vmax.is_none() {
        for &x in v.iter().filter(|&&x| usable(x)) {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    let vmin = opts.vmin.unwrap_or(lo);
    let vmax = opts.vmax.unwrap_or(hi);
    if (opts.vmin.is_none() || opts.vmax.is_none()) && lo > hi {
        return Ok(None); // no usable value: every pixel is bad
    }
    if vmin.is_nan() || vmax.is_nan() {
        return Err(Error::Value("vmin and vmax must not be NaN".into()));
    }
    if vmin > vmax {
        return Err(Error::Value(format!(
            "minvalue must be less than or equal to maxvalue (vmin {vmin} > vmax {vmax})"
        )));
    }
    if opts.norm == Norm::Log && (vmin <= 0.0 || !vmin.is_finite() || !vmax.is_finite()) {
        return Err(Error::Value(format!("Invalid vmin or vmax for a log normalisation: {vmin}, {vmax}")));
    }
    Ok(Some((vmin, vmax)))
}

/// The RGBA pixels of a 2-D array (any device, any real dtype) as [`imsave`] writes them,
/// with matplotlib's defaults (viridis, linear, the data's limits); the options:
/// [`colorize_with`].
pub fn colorize(a: &Array) -> Result<Rgba8Image> {
    colorize_with(a, &ImageOptions::default())
}

/// The RGBA pixels of a 2-D array as [`imsave_with`] writes them.
///
/// ```
/// use cuprum::io::{colorize_with, Colormap, ImageOptions, Norm};
/// use cuprum::Device;
/// let a = cuprum::from_slice(&[1.0, 10.0, 100.0, f64::NAN, -1.0, 1000.0], &[2, 3], &Device::default_device())?;
/// let opts = ImageOptions { cmap: Colormap::Gray, norm: Norm::Log, vmin: Some(1.0), vmax: Some(100.0), ..Default::default() };
/// let img = colorize_with(&a, &opts)?;
/// assert_eq!((img.width, img.height), (3, 2));
/// assert_eq!(img.pixel(0, 0), [0, 0, 0, 255]);        // vmin: black
/// assert_eq!(img.pixel(0, 1), [128, 128, 128, 255]);  // half-way in log10: entry 128
/// assert_eq!(img.pixel(0, 2), [255, 255, 255, 255]);  // vmax: white
/// assert_eq!(img.pixel(1, 0), [0, 0, 0, 0]);          // NaN: bad, transparent
/// assert_eq!(img.pixel(1, 1), [0, 0, 0, 0]);          // <= 0 under LogNorm: bad
/// assert_eq!(img.pixel(1, 2), [255, 255, 255, 255]);  // above vmax: the last colour
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn colorize_with(a: &Array, opts: &ImageOptions) -> Result<Rgba8Image> {
    if a.ndim() != 2 {
        return Err(Error::Value(format!(
            "colorize/imsave take a 2-D array; this one has shape {}",
            crate::core::error::shape_str(a.shape())
        )));
    }
    let (height, width) = (a.shape()[0], a.shape()[1]);
    let v: Vec<f64> = a.to_vec_as::<f64>()?;
    let lim = limits(&v, opts)?;
    let mut pixels = vec![0u8; height * width * 4];
    if width == 0 || height == 0 {
        return Ok(Rgba8Image { width, height, pixels });
    }
    let lut: Vec<[u8; 4]> = (0..=255u8)
        .map(|i| {
            let [r, g, b] = opts.cmap.entry(i);
            [r, g, b, 255]
        })
        .collect();
    let tr = |x: f64| if opts.norm == Norm::Log { x.log10() } else { x };
    let (t_lo, t_span) = match lim {
        Some((lo, hi)) => (tr(lo), tr(hi) - tr(lo)),
        None => (0.0, 0.0),
    };
    // Rows in parallel (rayon): each output row from one input row.
    pixels.par_chunks_mut(width * 4).enumerate().for_each(|(out_row, px_row)| {
        let r = match opts.origin {
            Origin::Upper => out_row,
            Origin::Lower => height - 1 - out_row,
        };
        for (px, &x) in px_row.chunks_exact_mut(4).zip(&v[r * width..(r + 1) * width]) {
            let bad = lim.is_none() || !x.is_finite() || (opts.norm == Norm::Log && x <= 0.0);
            let c = if bad {
                opts.bad
            } else {
                let t = if t_span == 0.0 { 0.0 } else { (tr(x) - t_lo) / t_span };
                lut[lut_index(t) as usize]
            };
            px.copy_from_slice(&c);
        }
    });
    if opts.colorbar {
        let colour = |t: f64| lut[lut_index(t) as usize];
        let (pixels, width) =
            super::colorbar::with_colorbar(&pixels, (width, height), colour, opts.norm == Norm::Log, lim);
        return Ok(Rgba8Image { width, height, pixels });
    }
    Ok(Rgba8Image { width, height, pixels })
}

/// Writes a 2-D array as an RGBA PNG file, as `plt.imsave(path, a)` (viridis, the data's
/// limits); colour maps, limits, a log scale, a colour bar: [`imsave_with`]. An empty array is
/// a `ValueError` (a PNG has at least one pixel).
pub fn imsave(path: impl AsRef<Path>, a: &Array) -> Result<()> {
    imsave_with(path, a, &ImageOptions::default())
}

/// Writes a 2-D array as an RGBA PNG file, as `plt.imsave(path, a, cmap=..., vmin=...,
/// vmax=...)` (with a log normalisation as `imshow(norm=LogNorm(...))` gives, and the colour
/// bar of `colorbar()`); see the module docs for the rules.
///
/// ```
/// use cuprum::io::{imsave_with, Colormap, ImageOptions, Norm};
/// use cuprum::Device;
/// // A 64x64 ramp from 1 to 4096, drawn as the lessons draw the sky: gray_r, log scale, a colour bar.
/// let v: Vec<f64> = (1..=64 * 64).map(|i| i as f64).collect();
/// let x = cuprum::from_slice(&v, &[64, 64], &Device::default_device())?;
/// let path = std::env::temp_dir().join("cuprum_imsave_example.png");
/// let opts = ImageOptions { cmap: Colormap::GrayR, norm: Norm::Log, colorbar: true, ..Default::default() };
/// imsave_with(&path, &x, &opts)?;
/// assert!(std::fs::metadata(&path).is_ok());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn imsave_with(path: impl AsRef<Path>, a: &Array, opts: &ImageOptions) -> Result<()> {
    let path = path.as_ref();
    let img = colorize_with(a, opts)?;
    let bytes = png_bytes(&img)?;
    std::fs::write(path, bytes).map_err(|e| io_err(path, e))
}

/// The PNG file (8-bit RGBA) of an image, as [`imsave`] writes it.
///
/// ```
/// use cuprum::io::{colorize, image::png_bytes};
/// let a = cuprum::from_slice(&[0.0, 1.0], &[1, 2], &cuprum::Device::Cpu)?;
/// let png = png_bytes(&colorize(&a)?)?;
/// assert_eq!(&png[1..4], b"PNG");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn png_bytes(img: &Rgba8Image) -> Result<Vec<u8>> {
    if img.width == 0 || img.height == 0 {
        return Err(Error::Value(format!("a PNG needs at least one pixel; the image is {}x{}", img.height, img.width)));
    }
    let (w, h) = (u32::try_from(img.width), u32::try_from(img.height));
    let (Ok(w), Ok(h)) = (w, h) else {
        return Err(Error::Value(format!("{}x{} pixels is too large for a PNG", img.height, img.width)));
    };
    let bad = |e: png::EncodingError| Error::Io(format!("PNG encoding: {e}"));
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(bad)?;
        writer.write_image_data(&img.pixels).map_err(bad)?;
        writer.finish().map_err(bad)?;
    }
    Ok(out)
}
