//! The `cuprum-sky` program as a user runs it (on the CPU: CI has no GPU), its output read
//! through a pipe, as a script would.

use std::path::PathBuf;
use std::process::Command;

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuprum-sky-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_cuprum-sky"))
        .args(args)
        .env("CUPRUM_DEVICE", "cpu")
        .output()
        .expect("the program starts");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn runs_the_synthetic_sky_and_writes_pictures_and_a_catalogue() {
    let dir = out_dir("synthetic");
    let (ok, out, err) = run(&[
        "--size",
        "256",
        "--sources",
        "12",
        "--repeat",
        "1",
        "--device",
        "cpu",
        "--picture-size",
        "300",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    for line in [
        "1 kappa-sigma clipping",
        "4 measurements",
        "all four, host in and out",
        "standard deviation of clipped",
        "level is",
        "brightest sources",
        // The truth report's last sentence is whole (it ended "... lie on one").
        "detections lie within 2 px of a source put in",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    // Piped output: no progress bar, no terminal escapes.
    assert!(!out.contains('\u{1b}') && !err.contains('\u{1b}'), "escape codes in piped output:\n{out}\n{err}");
    for f in ["image.png", "sources.png", "histogram.png", "catalogue.csv", "positions.npy", "fluxes.npy"] {
        let p = dir.join(f);
        assert!(std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false), "{} not written", p.display());
    }
    let png = std::fs::read(dir.join("sources.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // The catalogue has a row per source the program counted.
    let n: usize = out
        .split("level is ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("a source count");
    let csv = std::fs::read_to_string(dir.join("catalogue.csv")).unwrap();
    assert_eq!(csv.lines().count(), n + 1);
    let pos = cuprum::load_npy(dir.join("positions.npy"), &cuprum::Device::Cpu).unwrap();
    assert_eq!(pos.shape(), &[n, 2]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn reads_npy_images_and_reports_bad_input_clearly() {
    let dir = out_dir("npy");
    std::fs::create_dir_all(&dir).unwrap();
    let sky = cuprum_sky::synthetic_sky(128, 5).unwrap();
    let path = dir.join("sky.npy");
    cuprum::save_npy(&path, &sky).unwrap();
    let (ok, out, err) = run(&[
        path.to_str().unwrap(),
        "--repeat",
        "1",
        "--device",
        "cpu",
        "--no-pictures",
        "--connectivity",
        "8",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("sky.npy (128×128 float32)") && out.contains("(8-connectivity)"), "{out}");

    // A radio FITS image: (1, 1, ny, nx) big-endian float32 with NaN (blank) pixels, as
    // astropy reads it; NaNs ignored by default, refused with --nan error.
    let mut px = sky.to_vec::<f32>().unwrap();
    px[3] = f32::NAN;
    px[4000] = f32::NAN;
    let cube = cuprum::from_slice(&px, &[1, 1, 128, 128], &cuprum::Device::Cpu).unwrap();
    let fits = dir.join("sky.fits");
    cuprum::io::write_fits(&fits, &cube).unwrap();
    let (ok, out, err) = run(&[
        fits.to_str().unwrap(),
        "--repeat",
        "1",
        "--device",
        "cpu",
        "--no-pictures",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("sky.fits (1×1×128×128 float32)") && out.contains("2 NaN pixels (ignore)"), "{out}");
    let n_fits: usize =
        out.split("level is ").nth(1).and_then(|s| s.split_whitespace().next()).and_then(|s| s.parse().ok()).unwrap();
    assert!(n_fits > 0);
    let (ok, _, err) =
        run(&[fits.to_str().unwrap(), "--nan", "error", "--no-pictures", "--out", dir.to_str().unwrap()]);
    assert!(!ok && err.contains("2 NaN pixels"), "{err}");
    // A truncated FITS file is a clear error.
    let bytes = std::fs::read(&fits).unwrap();
    let cut = dir.join("cut.fits");
    std::fs::write(&cut, &bytes[..bytes.len() - 5000]).unwrap();
    let (ok, _, err) = run(&[cut.to_str().unwrap(), "--no-pictures", "--out", dir.to_str().unwrap()]);
    assert!(!ok && !err.contains("panicked") && err.starts_with("cuprum-sky: "), "{err}");

    // A missing file, a wrong extension, a bad option: an error message and exit status 1 or 2,
    // never a panic.
    for args in
        [vec!["/nonexistent/sky.fits"], vec!["/nonexistent/sky.txt"], vec!["--connectivity", "6"], vec!["--kappa", "x"]]
    {
        let (ok, _, err) = run(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(err.contains("cuprum-sky") || err.contains("error"), "{args:?}: {err}");
    }
    // --compare without a GPU says so and still runs on the CPU.
    let (ok, out, _) =
        run(&[path.to_str().unwrap(), "--compare", "--repeat", "1", "--no-pictures", "--out", dir.to_str().unwrap()]);
    if !cuprum::cuda_is_available() {
        assert!(ok && out.contains("--compare needs a GPU"), "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn refuses_degenerate_parameters_and_an_out_file_before_the_run() {
    // Kappa and the threshold: finite numbers above 0, with what is wrong (a negative number was
    // read as an unknown flag, NaN was taken and ran).
    for (flag, value) in
        [("--kappa", "-1"), ("--kappa", "nan"), ("--kappa", "0"), ("--threshold", "-2.5"), ("--threshold", "inf")]
    {
        let (ok, _, err) = run(&["--size", "64", "--sources", "2", "--repeat", "1", flag, value]);
        assert!(!ok, "{flag} {value} was accepted");
        assert!(err.contains("must be a finite number above 0"), "{flag} {value}: {err}");
    }
    let (ok, _, err) = run(&["--kappa", "abc"]);
    assert!(!ok && err.contains("is not a number"), "{err}");
    // An --out that is a file: refused at once, and the file is left as it was.
    let file = std::env::temp_dir().join(format!("cuprum-sky-cli-outfile-{}", std::process::id()));
    std::fs::write(&file, b"keep me").unwrap();
    let (ok, out, err) = run(&["--size", "2048", "--repeat", "5", "--device", "cpu", "--out", file.to_str().unwrap()]);
    assert!(!ok && err.contains("exists and is not a folder"), "{err}");
    assert!(out.is_empty(), "refused only after the run had started:\n{out}");
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");
    std::fs::remove_file(&file).ok();
}
