//! The colour bar of [`imsave`](super::imsave) and [`colorize`](super::colorize) with
//! `ImageOptions { colorbar: true, .. }`, as matplotlib's `colorbar()` beside `imshow`: the
//! map from its last colour (top, `vmax`) to its first (bottom, `vmin`) in a strip right of the
//! image, outlined, with ticks and their values at matplotlib's places (linear: 1, 2, 2.5 or 5
//! times a power of ten, at most six ticks; log: the powers of ten), the labels in a small
//! bitmap font of our own (digits, `.`, `-`, `+`, `e`), on white, as a figure's background.

/// 5x7 glyphs, one row per byte (bit 4 the leftmost column).
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        '1' => [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        '2' => [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        '3' => [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        '4' => [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        '5' => [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        '6' => [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        '7' => [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        '8' => [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        '9' => [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
        '.' => [0, 0, 0, 0, 0, 0b01100, 0b01100],
        '-' => [0, 0, 0, 0b11111, 0, 0, 0],
        '+' => [0, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0],
        'e' => [0, 0, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110],
        _ => [0; 7],
    }
}

/// The tick values between `lo` and `hi` (inclusive), as matplotlib's locators place them.
pub(crate) fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || lo > hi {
        return vec![];
    }
    if lo == hi {
        return vec![lo];
    }
    match log {
        // LogLocator: the powers of ten inside, every k-th when there are many.
        true => {
            let (a, b) = (lo.log10().ceil() as i32, hi.log10().floor() as i32);
            if a > b {
                return vec![lo, hi];
            }
            let every = ((b - a) / 6 + 1).max(1);
            (a..=b).filter(|k| (k - a) % every == 0).map(|k| 10f64.powi(k)).collect()
        }
        // MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]): the smallest step with at most five
        // intervals, its multiples inside.
        false => {
            let step = step(lo, hi);
            let eps = step * 1e-9;
            let first = (lo / step - 1e-9).ceil();
            (0..)
                .map(|i| (first + i as f64) * step)
                .take_while(|&v| v <= hi + eps)
                .map(|v| if v.abs() < eps { 0.0 } else { v })
                .collect()
        }
    }
}

fn step(lo: f64, hi: f64) -> f64 {
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * p).find(|&s| (hi - lo) / s <= 5.0 + 1e-9).unwrap_or(10.0 * p)
}

/// A tick's text: decimals enough for the step (linear), Python's `%g` beyond 1e5 or
/// below 1e-3 and for powers of ten (`0.01`, `100`, `1e+04`).
pub(crate) fn label(v: f64, all: &[f64], log: bool) -> String {
    let big = all.iter().fold(0f64, |m, t| m.max(t.abs()));
    if log || all.len() < 2 || !(1e-3..1e5).contains(&big) {
        return crate::array::format::spec::py_g(v, 3, false);
    }
    let step = all[1] - all[0];
    let mut decimals = (-step.log10()).ceil().max(0.0) as usize;
    // 2.5 x 10^k needs one digit more than the power.
    if (step * 10f64.powi(decimals as i32) - 2.5).abs() < 1e-6 {
        decimals += 1;
    }
    let s = format!("{:.*}", decimals.min(10), v);
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// The RGBA pixels (`h` rows of `w`) with a colour bar drawn to their right (see the module
/// docs), and the new width. `colour(t)` is the map's colour of a normalised value; `log` the
/// normalisation (matplotlib's LogNorm or Normalize); `lim` its limits (`None`: no usable
/// value, a bar without ticks).
pub(crate) fn with_colorbar(
    pixels: &[u8],
    (w, h): (usize, usize),
    colour: impl Fn(f64) -> [u8; 4],
    log: bool,
    lim: Option<(f64, f64)>,
) -> (Vec<u8>, usize) {
    let s = ((h + 125) / 250).max(1); // font scale: 7-pixel glyphs up to 375 rows, then larger
    let bar_w = (h / 20).max(6);
    let gap = (h / 40).max(4);
    let tick_len = (bar_w / 3).max(2);
    let ticks = lim.map(|(lo, hi)| ticks(lo, hi, log)).unwrap_or_default();
    let labels: Vec<String> = ticks.iter().map(|&v| label(v, &ticks, log)).collect();
    let chars = labels.iter().map(|l| l.len()).max().unwrap_or(0);
    let x_bar = w + gap;
    let x_text = x_bar + bar_w + tick_len + 2 * s;
    let width = x_text + chars * 6 * s + 2 * s;
    let mut px = vec![255u8; width * h * 4];
    let mut put = |x: usize, y: usize, c: [u8; 4]| {
        if x < width && y < h {
            px[(y * width + x) * 4..][..4].copy_from_slice(&c);
        }
    };
    // The image, unchanged, at the left.
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) * 4;
            put(x, y, [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]]);
        }
    }
    // The bar: row y holds the colour of t = 1 - (y + 0.5) / h.
    for y in 0..h {
        let t = 1.0 - (y as f64 + 0.5) / h as f64;
        let c = colour(t);
        for x in x_bar..x_bar + bar_w {
            put(x, y, c);
        }
    }
    const BLACK: [u8; 4] = [0, 0, 0, 255];
    for y in 0..h {
        put(x_bar, y, BLACK);
        put(x_bar + bar_w - 1, y, BLACK);
    }
    for x in x_bar..x_bar + bar_w {
        put(x, 0, BLACK);
        put(x, h - 1, BLACK);
    }
    let Some((lo, hi)) = lim else {
        return (px, width);
    };
    let tr = |v: f64| if log { v.log10() } else { v };
    for (v, text) in ticks.iter().zip(&labels) {
        let t = if hi > lo { (tr(*v) - tr(lo)) / (tr(hi) - tr(lo)) } else { 0.5 };
        let y = ((1.0 - t) * (h - 1) as f64).round() as usize;
        for x in x_bar + bar_w..x_bar + bar_w + tick_len {
            put(x, y, BLACK);
        }
        // The text centred on the tick, kept inside the picture.
        let top = y.saturating_sub(7 * s / 2).min(h.saturating_sub(7 * s));
        for (i, c) in text.chars().enumerate() {
            for (r, bits) in glyph(c).iter().enumerate() {
                for col in 0..5 {
                    if bits & (0b10000 >> col) != 0 {
                        for (dy, dx) in (0..s).flat_map(|dy| (0..s).map(move |dx| (dy, dx))) {
                            put(x_text + (i * 6 + col) * s + dx, top + r * s + dy, BLACK);
                        }
                    }
                }
            }
        }
    }
    (px, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_as_matplotlib_places_them() {
        // matplotlib's colour bars of imshow(vmin=..., vmax=...) (MaxNLocator, LogLocator).
        let close = |a: Vec<f64>, b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(ticks(0.0, 1.0, false), &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]));
        assert!(close(ticks(-3.7, 12.2, false), &[0.0, 5.0, 10.0]));
        assert!(close(ticks(0.1, 0.9, false), &[0.2, 0.4, 0.6, 0.8]));
        assert!(close(ticks(0.0, 1.1, false), &[0.0, 0.25, 0.5, 0.75, 1.0]));
        assert!(close(ticks(-1.0, 1.0, false), &[-1.0, -0.5, 0.0, 0.5, 1.0]));
        assert_eq!(ticks(1.0, 1000.0, true), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(ticks(3.0, 7.0, true), [3.0, 7.0]);
        assert_eq!(ticks(2.0, 2.0, false), [2.0]);
        assert!(ticks(f64::NAN, 1.0, false).is_empty());
        let t = ticks(1e-3, 1e9, true);
        assert!(t.len() == 5 && t.iter().zip([1e-3, 1.0, 1e3, 1e6, 1e9]).all(|(a, b)| (a / b - 1.0).abs() < 1e-12));
    }

    #[test]
    fn labels_as_matplotlib_writes_them() {
        let lin = |lo, hi| {
            let t = ticks(lo, hi, false);
            t.iter().map(|&v| label(v, &t, false)).collect::<Vec<_>>()
        };
        assert_eq!(lin(0.0, 1.0), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(lin(0.0, 1.1), ["0.00", "0.25", "0.50", "0.75", "1.00"]);
        assert_eq!(lin(-1.0, 1.0), ["-1.0", "-0.5", "0.0", "0.5", "1.0"]);
        assert_eq!(lin(0.0, 40.0), ["0", "10", "20", "30", "40"]);
        assert_eq!(lin(0.0, 3e6), ["0", "1e+06", "2e+06", "3e+06"]);
        let t = ticks(0.01, 1000.0, true);
        let l: Vec<String> = t.iter().map(|&v| label(v, &t, true)).collect();
        assert_eq!(l, ["0.01", "0.1", "1", "10", "100", "1e+03"]);
    }
}
