//! Conformance groups: cuprum::io: FITS files against astropy.

use super::*;

// ------------------------------------------------------------------ tests

/// cuprum::io (group `io`): `read_fits` (`file` under the fixtures directory, `hdu=None|<n>`,
/// `scale=0|1`; astropy's `getdata`), `load_npz` (`names`: NumPy's `files`, checked; the
/// arrays in that order), and `write_fits` / `write_fits_multi` (the inputs written by cuprum
/// must be the bytes astropy read, by their `sha256`; cuprum reads them back: astropy's arrays).
fn run_io(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::io::{self, FitsReadOptions};
    let file = || common::fixtures_dir().join(case.param("file"));
    match case.op.as_str() {
        "read_fits" => {
            let hdu = match case.param("hdu") {
                "None" => None,
                n => Some(n.parse().expect("hdu")),
            };
            let opts = FitsReadOptions { hdu, scale: case.param("scale") == "1", device: *dev };
            Ok(vec![io::read_fits_with(file(), &opts)?.data])
        }
        "load_npz" => {
            let npz = io::load_npz(file(), dev)?;
            let want: Vec<&str> = case.param("names").split(',').filter(|n| !n.is_empty()).collect();
            assert_eq!(npz.names(), want, "{}: names", case.id);
            Ok(npz.into_vec().into_iter().map(|(_, a)| a).collect())
        }
        "write_fits" | "write_fits_multi" => {
            // cuprum's bytes must be those astropy read (their SHA-256 is in the manifest).
            let x = inputs(case, dev, layout)?;
            let bytes = if case.op == "write_fits" {
                io::fits::fits_to_bytes(&[io::FitsHdu::image(x[0].array())])?
            } else {
                crate::io::multi_fits(x[0].array(), x[1].array())?
            };
            assert_eq!(
                crate::io::sha256_hex(&bytes),
                case.param("sha256"),
                "{}: cuprum no longer writes the bytes astropy checked: run `python3 scripts/gen_fixtures.py --only io`",
                case.id
            );
            let read =
                |hdu| io::fits::fits_from_bytes(&bytes, &FitsReadOptions { hdu, device: *dev, ..Default::default() });
            if case.op == "write_fits" {
                Ok(vec![read(None)?.data])
            } else {
                Ok(vec![read(Some(1))?.data, read(Some(2))?.data])
            }
        }
        op => panic!("unknown io op {op}"),
    }
}

device_test!(io, |dev| {
    run_group("io", &dev, ALL_LAYOUTS, run_io);
    Ok(())
});
