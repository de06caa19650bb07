//! The program's pictures, drawn with `plotters` into PNGs: the image as the lesson's `imshow`
//! shows it (flipped left-right, `gray_r`, log normalisation, a colour bar), the same with the
//! sources circled and numbered, and the pixel histogram with the clipping limits and the
//! detection threshold marked. Text uses DejaVu Sans embedded in the program, so no system
//! fonts are needed.

use cuprum::io::{Colormap, Norm};
use cuprum_sky::Catalogue;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::Path;

/// `v`'s position in `[0, 1]` under `norm` with limits `lo`..`hi` (matplotlib's `Normalize`
/// and `LogNorm`, values beyond the limits clipped to the ends), or NaN where it has no colour
/// (NaN, or <= 0 on a log scale: drawn white).
fn unit(norm: Norm, v: f64, lo: f64, hi: f64) -> f64 {
    if v.is_nan() {
        return f64::NAN;
    }
    let t = match norm {
        Norm::Log if v <= 0.0 => return f64::NAN,
        Norm::Log => (v.ln() - lo.ln()) / (hi.ln() - lo.ln()),
        _ => (v - lo) / (hi - lo),
    };
    t.clamp(0.0, 1.0)
}

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const FONT: &str = "sans-serif";

/// Registers the embedded font (once).
pub fn init_fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// How an image is shown.
pub struct View<'a> {
    /// Row-major pixels (NaN = no data).
    pub pixels: &'a [f64],
    /// Rows.
    pub ny: usize,
    /// Columns.
    pub nx: usize,
    /// Colour map.
    pub cmap: Colormap,
    /// Normalisation with its limits.
    pub norm: Norm,
    /// Lower limit of the normalisation.
    pub vmin: f64,
    /// Upper limit.
    pub vmax: f64,
    /// Mirror left-right (`np.fliplr`), as the lesson shows radio images.
    pub flip: bool,
    /// Title above the picture.
    pub title: String,
    /// Width and height of the plot area in screen pixels (the image is resampled to it).
    pub area: (u32, u32),
}

impl View<'_> {
    /// Position in `[0, 1]` of a value on the colour scale (NaN for "bad": NaN, or <= 0 on a
    /// log scale, as matplotlib masks them).
    fn unit(&self, v: f64) -> f64 {
        unit(self.norm, v, self.vmin, self.vmax)
    }
}

/// The plot area's pixel `(px, py)` shows image block `rows × cols`: the brightest finite pixel
/// of the block (so that point sources survive downsampling), or the nearest pixel when the
/// area is larger than the image.
fn resample(v: &View, area: (u32, u32)) -> Vec<f64> {
    let (w, h) = (area.0 as usize, area.1 as usize);
    let mut out = vec![f64::NAN; w * h];
    for py in 0..h {
        let (r0, r1) = (py * v.ny / h, ((py + 1) * v.ny / h).max(py * v.ny / h + 1).min(v.ny));
        for px in 0..w {
            // Screen column px shows image column c (mirrored when flipped).
            let (c0, c1) = (px * v.nx / w, ((px + 1) * v.nx / w).max(px * v.nx / w + 1).min(v.nx));
            let mut best = f64::NAN;
            for r in r0..r1 {
                for c in c0..c1 {
                    let c = if v.flip { v.nx - 1 - c } else { c };
                    let p = v.pixels[r * v.nx + c];
                    if p.is_finite() && (best.is_nan() || p > best) {
                        best = p;
                    }
                }
            }
            out[py * w + px] = best;
        }
    }
    out
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// Draws the image with axes in image pixels (the true column numbers, also when flipped) and
/// a colour bar; `sources` adds a circle and the label number at each source's centre.
pub fn image(path: &Path, v: &View, sources: Option<(&Catalogue, usize)>) -> Res<()> {
    init_fonts();
    let (aw, ah) = v.area;
    let (w, h) = (aw + 110 + 140, ah + 110);
    let root = BitMapBackend::new(path, (w, h)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(aw + 110);
    let (nx, ny) = (v.nx as f64, v.ny as f64);
    // Chart coordinates are negated where an axis runs backwards on the screen (rows grow
    // downwards; columns leftwards when mirrored), so that ticks fall on round pixel numbers.
    let flip = v.flip;
    let xs = if flip { -nx..0.0 } else { 0.0..nx };
    let title_size = (w / 42).clamp(12, 20);
    let mut chart = ChartBuilder::on(&left)
        .caption(&v.title, (FONT, title_size))
        .margin_top(10)
        .margin_left(10)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(xs, -ny..0.0)?;
    let xfmt = |u: &f64| format!("{:.0}", u.abs());
    let yfmt = |t: &f64| format!("{:.0}", t.abs());
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(if flip { "column (x); mirrored left-right, as the lesson shows the image" } else { "column (x)" })
        .y_desc("row (y)")
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .draw()?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (pw, ph) = ((xr.end - xr.start) as u32, (yr.end - yr.start) as u32);
    let shown = resample(v, (pw, ph));
    let bad = RGBColor(255, 255, 255);
    for py in 0..ph as usize {
        for px in 0..pw as usize {
            let t = v.unit(shown[py * pw as usize + px]);
            let c = if t.is_nan() { bad } else { rgb(v.cmap.rgb(t)) };
            root.draw_pixel((xr.start + px as i32, yr.start + py as i32), &c)?;
        }
    }
    if let Some((cat, numbered)) = sources {
        let order = cat.brightest(cat.len());
        let scale = pw as f64 / nx;
        for (rank, &i) in order.iter().enumerate() {
            let u = if flip { -(cat.x[i] + 0.5) } else { cat.x[i] + 0.5 };
            let t = -(cat.y[i] + 0.5);
            let r = ((cat.npix[i] as f64 / std::f64::consts::PI).sqrt() * scale + 5.0).min(60.0) as i32;
            let colour = if rank < numbered { RGBColor(220, 30, 30) } else { RGBColor(30, 110, 220) };
            let ring = EmptyElement::at((u, t)) + Circle::new((0, 0), r, colour.stroke_width(2));
            if rank < numbered {
                // Above right of the circle; below right near the top edge, inside the picture.
                let dy = if cat.y[i] * ph as f64 / ny < 45.0 { r * 7 / 10 + 2 } else { -r * 7 / 10 - 16 };
                let text =
                    Text::new(format!("{}", cat.id[i]), (r * 7 / 10 + 2, dy), (FONT, 15).into_font().color(&colour));
                chart.plotting_area().draw(&(ring + text))?;
            } else {
                chart.plotting_area().draw(&ring)?;
            }
        }
    }
    colour_bar(&right, v)?;
    root.present()?;
    Ok(())
}

/// A vertical colour bar with the normalisation's ticks, in the strip right of the image.
fn colour_bar(area: &DrawingArea<BitMapBackend, plotters::coord::Shift>, v: &View) -> Res<()> {
    // Top and bottom margins line the bar up with the image's plot area.
    let area = area.margin(10 + 30, 45 + 4, 10, 20);
    let (lo, hi) = (v.vmin, v.vmax);
    let (ax, ay) = area.get_base_pixel();
    let draw_bar = |(xr, yr): (std::ops::Range<i32>, std::ops::Range<i32>)| -> Res<()> {
        let n = (yr.end - yr.start).max(2);
        for py in yr.clone() {
            let t = 1.0 - (py - yr.start) as f64 / (n - 1) as f64;
            let c = rgb(v.cmap.rgb(t));
            for px in xr.clone() {
                area.draw_pixel((px - ax, py - ay), &c)?;
            }
        }
        Ok(())
    };
    let desc = if v.norm == Norm::Log { "pixel value (log scale)" } else { "pixel value" };
    // The same bar on a log or a linear axis (two coordinate types, hence a macro).
    macro_rules! bar {
        ($y:expr, $fmt:literal) => {{
            let mut c = ChartBuilder::on(&area).right_y_label_area_size(85).build_cartesian_2d(0.0..1.0, $y)?;
            draw_bar(c.plotting_area().get_pixel_range())?;
            c.configure_mesh()
                .disable_mesh()
                .disable_x_axis()
                .y_desc(desc)
                .label_style((FONT, 13))
                .axis_desc_style((FONT, 14))
                .y_label_formatter(&|y: &f64| format!($fmt, y))
                .draw()?;
        }};
    }
    match v.norm {
        // Our own ticks: plotters' log axis repeats a decade's value (1.0 as the last of the
        // light ticks 0.1 .. 1.0 and again as the next bold one), drawn as "1.0e0" twice.
        Norm::Log => bar!((lo..hi).log_scale().with_key_points(log_ticks(lo, hi)), "{:.0e}"),
        _ => bar!(lo..hi, "{:.2e}"),
    }
    Ok(())
}

/// The ticks of a log axis over `[lo, hi]` (`0 < lo < hi`), as matplotlib's `LogLocator` places
/// them: the powers of ten inside, with 2x and 5x between them when fewer than three powers fall
/// inside, and every multiple 1x..9x when even those are fewer than three. One significant
/// digit tells them all apart (`{:.0e}`).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return vec![];
    }
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    for mult in [&[1.0][..], &[1.0, 2.0, 5.0], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]] {
        let ticks: Vec<f64> = (k0..=k1)
            .flat_map(|k| mult.iter().map(move |m| format!("{m}e{k}").parse::<f64>().unwrap_or(f64::NAN)))
            .filter(|t| (lo..=hi).contains(t))
            .collect();
        if ticks.len() >= 3 || mult.len() == 9 {
            return ticks;
        }
    }
    vec![]
}

/// The histogram of the finite pixels between `lo` and `hi` (log counts), with vertical lines
/// at `lines` (value, legend, colour).
pub fn histogram(
    path: &Path,
    pixels: &[f64],
    lo: f64,
    hi: f64,
    bins: usize,
    lines: &[(f64, String, RGBColor)],
    title: &str,
) -> Res<()> {
    init_fonts();
    let mut counts = vec![0u64; bins];
    let (mut below, mut above) = (0u64, 0u64);
    let width = (hi - lo) / bins as f64;
    for &p in pixels.iter().filter(|p| p.is_finite()) {
        if p < lo {
            below += 1;
        } else if p >= hi {
            above += 1;
        } else {
            counts[(((p - lo) / width) as usize).min(bins - 1)] += 1;
        }
    }
    let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 3.0;
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, (0.8f64..top).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(format!("pixel value ({below} pixels below the range, {above} above)"))
        .y_desc("pixels per bin")
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .y_label_formatter(&|y: &f64| format!("{y:.0e}"))
        .draw()?;
    chart.draw_series(counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| {
        let x0 = lo + i as f64 * width;
        Rectangle::new([(x0, 0.8), (x0 + width, c as f64)], RGBColor(90, 90, 90).filled())
    }))?;
    for (x, label, colour) in lines {
        let c = *colour;
        let drawn = chart.draw_series(LineSeries::new([(*x, 0.8), (*x, top)], c.stroke_width(2)))?;
        if !label.is_empty() {
            drawn
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::log_ticks;

    /// Distinct ticks with distinct labels, inside the range, three or more where a range of a
    /// few units holds them (the image's colour bar once showed "1.0e0" twice).
    #[test]
    fn log_ticks_are_distinct() {
        for (lo, hi) in [(0.1, 1000.0), (0.05, 2.0), (1.0, 10.0), (3.0, 4.5), (1e-3, 1e6), (0.99, 1.01), (2e-7, 3e-7)] {
            let t = log_ticks(lo, hi);
            let labels: Vec<String> = t.iter().map(|v| format!("{v:.0e}")).collect();
            let mut uniq = labels.clone();
            uniq.dedup();
            assert_eq!(uniq, labels, "{lo}..{hi}");
            assert!(t.iter().all(|v| (lo..=hi).contains(v)), "{lo}..{hi}: {t:?}");
            assert!(t.windows(2).all(|w| w[0] < w[1]), "{lo}..{hi}: {t:?}");
            if hi / lo >= 3.0 {
                assert!(t.len() >= 3, "{lo}..{hi}: {t:?}");
            }
        }
        assert_eq!(log_ticks(0.1, 1000.0), vec![0.1, 1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(0.05, 2.0), vec![0.05, 0.1, 0.2, 0.5, 1.0, 2.0]);
        assert!(log_ticks(0.0, 1.0).is_empty() && log_ticks(2.0, 1.0).is_empty());
    }
}
