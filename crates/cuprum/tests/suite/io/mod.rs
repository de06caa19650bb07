//! cuprum::io: FITS files (astropy's fixtures are in `conformance`'s `io` group; here the
//! header API, bad and corrupt files, the writer's errors and the files cuprum writes for
//! astropy to check), `.npz` round trips and bad archives, and `imsave`/`colorize` against
//! matplotlib's numbers, PNGs decoded with the png crate.

use cuprum::io::{
    self, colorize, colorize_with, imsave, imsave_with, Colormap, FitsCard, FitsHdu, FitsHeader, FitsReadOptions,
    FitsValue, ImageOptions, Norm, Origin,
};
use cuprum::{Array, DType, Device, ErrorKind};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    crate::common::fixtures_dir().join("io").join(name)
}

fn read_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name))
        .unwrap_or_else(|e| panic!("fixture io/{name}: {e} (run `python3 scripts/gen_fixtures.py --only io`)"))
}

/// A temporary path of this test: per process and per thread, since the CPU and GPU variants of
/// one test run at once and write the same names (they raced on one path: a GPU run read the
/// CPU run's half-written file).
fn tmp(name: &str) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    std::env::temp_dir().join(format!("cuprum_suite_io_{}_{thread}_{name}", std::process::id()))
}

/// 0, 1, 2, ... (float64) of `shape`.
fn ramp(shape: &[usize], dev: &Device) -> cuprum::Result<Array> {
    let n: usize = shape.iter().product();
    cuprum::from_slice(&(0..n).map(|v| v as f64).collect::<Vec<_>>(), shape, dev)
}

fn opts(dev: &Device) -> FitsReadOptions {
    FitsReadOptions { device: *dev, ..Default::default() }
}

/// Reads FITS bytes, turning a panic into a test failure that names the case.
fn read_catching(bytes: &[u8], what: &str) -> cuprum::Result<io::FitsImage> {
    catch_unwind(AssertUnwindSafe(|| io::fits::fits_from_bytes(bytes, &FitsReadOptions::default())))
        .unwrap_or_else(|_| panic!("fits_from_bytes panicked on {what}"))
}

// ------------------------------------------------------------------ FITS written by cuprum

/// The bytes of `io/cuprum/multi` (conformance's `write_fits_multi` case): an empty primary
/// with cards of each kind, then `a` and `b` as IMAGE extensions named FLOATS and UNSIGNED.
pub fn multi_fits(a: &Array, b: &Array) -> cuprum::Result<Vec<u8>> {
    let mut primary = FitsHeader::new();
    primary.push(FitsCard::new("OBJECT", "it's a test").with_comment("quotes are doubled"));
    primary.push(FitsCard::new("EXPTIME", 30.5).with_comment("seconds"));
    primary.push(FitsCard::commentary("HISTORY", "written by cuprum"));
    let mut e1 = FitsHeader::new();
    e1.push(FitsCard::new("EXTNAME", "FLOATS"));
    let mut e2 = FitsHeader::new();
    e2.push(FitsCard::new("EXTNAME", "UNSIGNED"));
    let hdus =
        [FitsHdu::empty().with_cards(primary), FitsHdu::image(a).with_cards(e1), FitsHdu::image(b).with_cards(e2)];
    io::fits::fits_to_bytes(&hdus)
}

/// The SHA-256 of `bytes` in hex (the manifest's `sha256` of the files cuprum writes).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

cpu_test!(fits_written_by_cuprum);
/// Writes each array of `io/cuprum_inputs.npz` with `write_fits` (and `multi.fits` with
/// `write_fits_with`) into `CUPRUM_IO_WRITE_DIR` (where `scripts/gen_fixtures.py --only io`
/// has astropy read and verify them; a temporary folder otherwise) and reads them back.
fn fits_written_by_cuprum() {
    let dir = match std::env::var_os("CUPRUM_IO_WRITE_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let d = tmp("written");
            std::fs::create_dir_all(&d).unwrap();
            d
        }
    };
    let inputs = io::load_npz(fixture("cuprum_inputs.npz"), &Device::Cpu).unwrap();
    assert_eq!(inputs.len(), 13);
    for (name, a) in &inputs {
        let path = dir.join(format!("{name}.fits"));
        io::write_fits(&path, a).unwrap();
        let b = io::read_fits(&path, &Device::Cpu).unwrap();
        let want = match a.dtype() {
            DType::Bool => DType::UInt8,
            DType::Float16 => DType::Float32,
            d => d,
        };
        assert_eq!((b.dtype(), b.shape()), (want, a.shape()), "{name}");
        let (x, y) = (a.to_vec_as::<f64>().unwrap(), b.to_vec_as::<f64>().unwrap());
        assert!(x.iter().zip(&y).all(|(p, q)| p == q || (p.is_nan() && q.is_nan())), "{name}: {x:?} {y:?}");
    }
    let multi = multi_fits(inputs.get("float32").unwrap(), inputs.get("uint16").unwrap()).unwrap();
    std::fs::write(dir.join("multi.fits"), &multi).unwrap();
    let h = io::read_fits_headers(dir.join("multi.fits")).unwrap();
    assert_eq!(h.len(), 3);
    assert_eq!(h[0].get_str("OBJECT"), Some("it's a test"));
    assert_eq!(h[0].card("HISTORY").map(|c| c.comment.as_str()), Some("written by cuprum"));
    if std::env::var_os("CUPRUM_IO_WRITE_DIR").is_none() {
        std::fs::remove_dir_all(&dir).ok();
    }
}

// ------------------------------------------------------------------ FITS reading

device_test!(fits_header_api, |dev| {
    let img = io::read_fits_with(fixture("mef.fits"), &FitsReadOptions { hdu: Some(2), ..opts(&dev) })?;
    assert_eq!(img.hdu, 2);
    assert_eq!(img.data.device(), dev);
    assert_eq!(img.data.shape(), &[3, 2]);
    let h = &img.header;
    assert_eq!(h.get_str("XTENSION"), Some("IMAGE"));
    assert_eq!(h.get_str("extname"), Some("SECOND"));
    assert_eq!(h.get_i64("NAXIS1"), Some(2));
    assert_eq!(h.get_i64("NAXIS2"), Some(3));
    assert_eq!(h.get_f64("BZERO"), Some(2.0));
    assert_eq!(h.get_i64("BITPIX"), Some(-64));
    assert_eq!(h.get_str("NAXIS1"), None);
    assert!(h.get("NOSUCHKEY").is_none());
    assert_eq!(h.cards()[0].keyword, "XTENSION");
    assert_eq!(h.iter().map(|c| c.keyword.as_str()).take(3).collect::<Vec<_>>(), ["XTENSION", "BITPIX", "NAXIS"]);
    // The default rule: the primary is empty, so the first image extension.
    let d = io::read_fits_with(fixture("mef.fits"), &opts(&dev))?;
    assert_eq!((d.hdu, d.header.get_str("EXTNAME")), (1, Some("FIRST")));
    // A BINTABLE with a heap (PCOUNT > 0) and an ASCII TABLE before the image are skipped.
    assert_eq!(io::read_fits_with(fixture("table_then_image.fits"), &opts(&dev))?.hdu, 3);
    let all = io::read_fits_headers(fixture("table_then_image.fits"))?;
    assert_eq!(all.len(), 4);
    assert_eq!(all[1].get_str("XTENSION"), Some("BINTABLE"));
    assert_eq!(all[1].get_str("TTYPE2"), Some("name"));
    assert!(all[1].get_i64("PCOUNT").unwrap() > 0);
    assert_eq!(all[2].get_str("XTENSION"), Some("TABLE"));
    assert_eq!(all[3].get_str("XTENSION"), Some("IMAGE"));
    // Unsigned via BZERO = 2^63 (an integer beyond i64): get_i64 gives None, get returns it exactly.
    let u = &io::read_fits_headers(fixture("uint64_bzero.fits"))?[0];
    assert_eq!(u.get("BZERO"), Some(&FitsValue::Int(1i128 << 63)));
    assert_eq!(u.get_i64("BZERO"), None);
    assert_eq!(io::read_fits(fixture("uint64_bzero.fits"), &dev)?.dtype(), DType::UInt64);
    Ok(())
});

device_test!(fits_errors, |dev| {
    let kind = |r: cuprum::Result<io::FitsImage>| r.map(|_| ()).unwrap_err().kind();
    let read =
        |name: &str, hdu: Option<usize>| io::read_fits_with(fixture(name), &FitsReadOptions { hdu, ..opts(&dev) });
    assert_eq!(kind(read("mef.fits", Some(3))), ErrorKind::IndexError);
    assert_eq!(kind(read("mef.fits", Some(0))), ErrorKind::IndexError); // no data in HDU 0
    assert_eq!(kind(read("table_then_image.fits", Some(1))), ErrorKind::NotImplementedError);
    assert_eq!(kind(read("table_then_image.fits", Some(2))), ErrorKind::NotImplementedError);
    assert_eq!(kind(read("table_then_image.fits", Some(4))), ErrorKind::IndexError);
    let e = io::read_fits(tmp("does_not_exist.fits"), &dev).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OSError);
    assert!(e.to_string().contains("does_not_exist.fits"), "{e}");
    Ok(())
});

/// A card of `bytes`' first header block replaced (`key` padded to 8, then `= value`).
fn with_card(bytes: &[u8], key: &str, value: &str) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let k = format!("{key:<8}");
    let i =
        (0..36).map(|c| c * 80).find(|&i| &bytes[i..i + 8] == k.as_bytes()).unwrap_or_else(|| panic!("no {key} card"));
    let card = format!("{k}= {value:>20}");
    out[i..i + 80].copy_from_slice(format!("{card:<80}").as_bytes());
    out
}

cpu_test!(fits_malformed_files);
/// Malformed files: each an OSError naming the problem, never a panic.
fn fits_malformed_files() {
    let good = read_bytes("int16_scaled_blank.fits");
    assert!(read_catching(&good, "the valid file").is_ok());
    let expect = |bytes: &[u8], what: &str, needle: &str| {
        let e = read_catching(bytes, what).map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OSError, "{what}: {e}");
        assert!(e.to_string().contains(needle), "{what}: {e:?} should mention {needle:?}");
    };
    expect(b"", "an empty file", "empty");
    expect(&b"hello, world! ".repeat(400), "a text file", "not a FITS file");
    let no_end: Vec<u8> = {
        let mut b = good.clone();
        let i = (0..36).map(|c| c * 80).find(|&i| &b[i..i + 8] == b"END     ").unwrap();
        b[i..i + 3].copy_from_slice(b"XND");
        b
    };
    expect(&no_end, "a header without END", "END");
    expect(&with_card(&good, "BITPIX", "12"), "BITPIX 12", "BITPIX = 12");
    expect(&with_card(&good, "BITPIX", "'16'"), "a string BITPIX", "BITPIX");
    expect(&with_card(&good, "NAXIS", "3"), "NAXIS 3 with two NAXISn", "NAXIS3");
    expect(&with_card(&good, "NAXIS", "1000"), "NAXIS 1000", "NAXIS = 1000");
    expect(&with_card(&good, "NAXIS1", "-4"), "a negative NAXIS1", "negative");
    expect(&with_card(&good, "NAXIS1", "4000000000000"), "a huge NAXIS1", "");
    expect(&with_card(&good, "SIMPLE", "F"), "SIMPLE = F", "SIMPLE");
    expect(&with_card(&good, "BSCALE", "'x'"), "a string BSCALE", "BSCALE");
}

cpu_test!(fits_truncated_files);
/// Truncation at every card of the headers, both sides of every block edge and through the
/// data: an OSError, except where only the last block's padding is missing (read, as astropy).
fn fits_truncated_files() {
    let mut checked = 0;
    for name in ["mef.fits", "int16_scaled_blank.fits", "float32_3d.fits", "table_then_image.fits"] {
        let good = read_bytes(name);
        let full = read_catching(&good, name).unwrap();
        // Where the chosen HDU's data ends: shorter files lose data (or a header) it needs.
        let data_end = {
            let hdrs = io::read_fits_headers(fixture(name)).unwrap();
            assert!(!hdrs.is_empty());
            let mut b = good.clone();
            while b.len() > 1 && read_catching(&b[..b.len() - 1], name).is_ok() {
                b.pop();
            }
            b.len()
        };
        assert!(data_end > 2880 && data_end <= good.len(), "{name}: {data_end}");
        // Where the image's HDU begins: HDUs begin at block starts with SIMPLE or XTENSION.
        let image_start = (0..good.len())
            .step_by(2880)
            .filter(|&k| &good[k..k + 8] == b"SIMPLE  " || &good[k..k + 8] == b"XTENSION")
            .nth(full.hdu)
            .unwrap();
        let mut offsets: Vec<usize> = (0..good.len()).step_by(80).collect();
        for edge in (0..=good.len()).step_by(2880) {
            offsets.extend([edge.saturating_sub(1), edge, edge + 1]);
        }
        offsets.extend((data_end.saturating_sub(100)..data_end + 3).filter(|&o| o <= good.len()));
        for &off in offsets.iter().filter(|&&o| o <= good.len()) {
            let r = read_catching(&good[..off], &format!("{name} cut at {off}"));
            if off >= data_end {
                let img = r.unwrap_or_else(|e| panic!("{name} cut at {off} (after its data): {e}"));
                assert_eq!(img.data.shape(), full.data.shape());
            } else {
                let e = r.map(|_| ()).unwrap_err();
                // Cut before the image's HDU begins, after a whole HDU (maybe without its
                // padding), the file is valid FITS without the image: astropy's IndexError (no
                // data); any other cut leaves a corrupt file.
                let want = if off <= image_start && e.kind() == ErrorKind::IndexError {
                    ErrorKind::IndexError
                } else {
                    ErrorKind::OSError
                };
                assert_eq!(e.kind(), want, "{name} cut at {off}: {e}");
            }
            checked += 1;
        }
    }
    println!("fits_truncated_files: {checked} truncations checked");
    assert!(checked > 300);
}

cpu_test!(fits_random_corruptions);
/// 4000 random single-byte corruptions of valid files: Ok or Err, never a panic.
fn fits_random_corruptions() {
    let files = ["mef.fits", "int16_scaled_blank.fits", "uint64_bzero.fits", "table_then_image.fits"];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for k in 0..4000 {
        let name = files[k % files.len()];
        let mut b = read_bytes(name);
        // Mostly the headers (where a byte changes the structure), some of the data.
        let hdr_heavy = next() % 4 != 0;
        let pos = if hdr_heavy { (next() as usize) % 2880.min(b.len()) } else { (next() as usize) % b.len() };
        let pos = if hdr_heavy && b.len() > 8640 && next() % 2 == 0 { 5760 + pos % 2880 } else { pos };
        let byte = match next() % 4 {
            0 => b"0123456789"[(next() % 10) as usize],
            1 => b" =/'-TFE"[(next() % 8) as usize],
            _ => next() as u8,
        };
        b[pos] = byte;
        match read_catching(&b, &format!("{name} with byte {pos} = {byte}")) {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
        for hdu in [Some(1), Some(2)] {
            let r = catch_unwind(AssertUnwindSafe(|| {
                io::fits::fits_from_bytes(&b, &FitsReadOptions { hdu, ..Default::default() })
            }));
            assert!(r.is_ok(), "hdu {hdu:?} of {name} with byte {pos} = {byte} panicked");
        }
    }
    println!("fits_random_corruptions: 4000 corruptions, {ok} read, {err} errors, no panic");
    assert!(err > 100 && ok > 100, "{ok} read, {err} errors");
}

// ------------------------------------------------------------------ FITS writing

device_test!(fits_roundtrip_every_dtype, |dev| {
    for dt in cuprum::dtype::REAL_DTYPES {
        let a = ramp(&[2, 3, 4], &dev)?.astype(dt)?;
        let path = tmp(&format!("rt_{}.fits", dt.name()));
        io::write_fits(&path, &a)?;
        let b = io::read_fits(&path, &dev)?;
        let want = match dt {
            DType::Bool => DType::UInt8,
            DType::Float16 => DType::Float32,
            d => d,
        };
        assert_eq!((b.dtype(), b.shape()), (want, a.shape()), "{dt}");
        assert_eq!(b.to_vec_as::<f64>()?, a.to_vec_as::<f64>()?, "{dt}");
        // A transposed (non-contiguous) view is written in its logical order.
        let t = a.t();
        io::write_fits(&path, &t)?;
        let bt = io::read_fits(&path, &dev)?;
        assert_eq!((bt.shape(), bt.to_vec_as::<f64>()?), (t.shape(), t.to_vec_as::<f64>()?), "{dt} transposed");
        let raw = io::read_fits_with(&path, &FitsReadOptions { scale: false, ..opts(&dev) })?;
        let raw_dt = match dt {
            DType::Bool | DType::UInt8 | DType::Int8 => DType::UInt8,
            DType::UInt16 => DType::Int16,
            DType::UInt32 => DType::Int32,
            DType::UInt64 => DType::Int64,
            _ => want,
        };
        assert_eq!(raw.data.dtype(), raw_dt, "{dt} raw");
        std::fs::remove_file(&path).ok();
    }
    // Extremes of the unsigned and int8 conventions.
    let path = tmp("extremes.fits");
    let x = cuprum::from_slice(&[0u64, 1, u64::MAX, 1 << 63], &[4], &dev)?;
    io::write_fits(&path, &x)?;
    assert_eq!(io::read_fits(&path, &dev)?.to_vec::<u64>()?, vec![0, 1, u64::MAX, 1 << 63]);
    let x = cuprum::from_slice(&[i8::MIN, -1, 0, i8::MAX], &[2, 2], &dev)?;
    io::write_fits(&path, &x)?;
    assert_eq!(io::read_fits(&path, &dev)?.to_vec::<i8>()?, vec![i8::MIN, -1, 0, i8::MAX]);
    std::fs::remove_file(&path).ok();
    Ok(())
});

device_test!(fits_write_errors, |dev| {
    let path = tmp("bad.fits");
    let zero_d = cuprum::scalar(1.0, &dev)?;
    assert_eq!(io::write_fits(&path, &zero_d).unwrap_err().kind(), ErrorKind::ValueError);
    let a = cuprum::arange(3, &dev)?;
    let with = |card: FitsCard| {
        let mut h = FitsHeader::new();
        h.push(card);
        io::write_fits_with(&path, &[FitsHdu::image(&a).with_cards(h)]).unwrap_err().kind()
    };
    assert_eq!(with(FitsCard::new("BITPIX", 16i64)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("NAXIS2", 16i64)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("BZERO", 1.0)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("LONGKEYWORD", 1.0)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("BAD KEY", 1.0)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("X", f64::INFINITY)), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("X", "é")), ErrorKind::ValueError);
    assert_eq!(with(FitsCard::new("X", "a".repeat(70).as_str())), ErrorKind::ValueError);
    assert_eq!(io::write_fits_with(&path, &[]).unwrap_err().kind(), ErrorKind::ValueError);
    let e = io::write_fits(tmp("no_such_dir/x.fits"), &a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OSError);
    // Cards of every kind survive a round trip.
    let mut h = FitsHeader::new();
    for c in [
        FitsCard::new("A", true),
        FitsCard::new("B", -3i64),
        FitsCard::new("C", 1.0e-30),
        FitsCard::new("D", "x'y"),
        FitsCard::new("E", 1.5).with_comment("a comment"),
        FitsCard::commentary("COMMENT", "free text"),
    ] {
        h.push(c);
    }
    io::write_fits_with(&path, &[FitsHdu::image(&a).with_cards(h.clone())])?;
    let back = io::read_fits_with(&path, &opts(&dev))?.header;
    let tail = &back.cards()[back.len() - h.len()..];
    assert_eq!(tail, h.cards());
    std::fs::remove_file(&path).ok();
    Ok(())
});

// ------------------------------------------------------------------ .npz

device_test!(npz_roundtrip, |dev| {
    let mut arrays: Vec<(String, Array)> = Vec::new();
    for dt in cuprum::dtype::REAL_DTYPES {
        arrays.push((dt.name().to_string(), ramp(&[3, 2], &dev)?.astype(dt)?.t()));
    }
    arrays.push(("zero_d".into(), cuprum::scalar(2.5, &dev)?));
    arrays.push(("empty".into(), cuprum::zeros(&[0, 4], DType::Int32, &dev)?));
    let refs: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    for compressed in [false, true] {
        let path = tmp(&format!("rt_{compressed}.npz"));
        if compressed {
            io::save_npz_compressed(&path, &refs)?;
        } else {
            io::save_npz(&path, &refs)?;
        }
        let npz = io::load_npz(&path, &dev)?;
        assert_eq!(npz.names(), refs.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        for ((name, a), (n2, b)) in refs.iter().zip(npz.iter()) {
            assert_eq!(*name, n2);
            assert_eq!((b.dtype(), b.shape(), b.device()), (a.dtype(), a.shape(), dev), "{name}");
            assert_eq!(b.to_vec_as::<f64>()?, a.to_vec_as::<f64>()?, "{name}");
        }
        assert!(npz.get("nope").is_none());
        std::fs::remove_file(&path).ok();
    }
    let a = &arrays[0].1;
    assert_eq!(io::save_npz(tmp("dup.npz"), &[("a", a), ("a", a)]).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(io::save_npz(tmp("dup.npz"), &[("", a)]).unwrap_err().kind(), ErrorKind::ValueError);
    Ok(())
});

cpu_test!(npy_dtypes_cuprum_lacks);
/// Valid .npy files of dtypes cuprum does not have (strings, datetimes, big-endian numbers):
/// NotImplementedError naming the dtype (NumPy reads them; the file is not at fault), while a
/// broken header stays an OSError.
fn npy_dtypes_cuprum_lacks() {
    let file = |descr: &str, data: &[u8]| {
        let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(header.as_bytes());
        b.extend_from_slice(data);
        b
    };
    for descr in ["<U2", "<M8[s]", ">f8", "|O"] {
        let e = cuprum::npy::npy_from_bytes(&file(descr, &[0u8; 16]), &Device::Cpu).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotImplementedError, "{descr}: {e}");
        assert!(e.to_string().contains(descr), "{descr}: {e}");
    }
    let ok = cuprum::npy::npy_from_bytes(&file("<f8", &[0u8; 16]), &Device::Cpu).unwrap();
    assert_eq!(ok.to_vec::<f64>().unwrap(), vec![0.0, 0.0]);
    let e = cuprum::npy::npy_from_bytes(&file("<f8", &[0u8; 8]), &Device::Cpu).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OSError, "{e}");
}

cpu_test!(npz_bad_archives);
/// Not a zip, truncated archives, a corrupt member: OSError, never a panic.
fn npz_bad_archives() {
    let load = |b: &[u8], what: &str| {
        catch_unwind(AssertUnwindSafe(|| io::npz::npz_from_bytes(b, &Device::Cpu)))
            .unwrap_or_else(|_| panic!("panic on {what}"))
    };
    assert_eq!(load(b"not a zip", "text").unwrap_err().kind(), ErrorKind::OSError);
    assert_eq!(io::load_npz(fixture("mef.fits"), &Device::Cpu).unwrap_err().kind(), ErrorKind::OSError);
    let mut errs = 0;
    for name in ["savez.npz", "savez_compressed.npz"] {
        let good = read_bytes(name);
        assert_eq!(load(&good, name).unwrap().len(), 16);
        for off in (0..good.len()).step_by(97) {
            if load(&good[..off], &format!("{name} cut at {off}")).is_err() {
                errs += 1;
            }
        }
        let mut state = 12345u64;
        for _ in 0..500 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mut b = good.clone();
            let pos = (state >> 33) as usize % b.len();
            b[pos] ^= (state >> 20) as u8 | 1;
            let _ = load(&b, &format!("{name} with byte {pos} flipped"));
        }
    }
    println!("npz_bad_archives: {errs} truncated archives refused, 1000 corrupted ones read without a panic");
    assert!(errs > 20);
}

// ------------------------------------------------------------------ imsave / colorize

/// matplotlib 3.11's `cmap(i, bytes=True)[:3]` for i = 0, 17, ..., 255, 255 (entries `ENTRIES`).
const MPL_ENTRIES: [usize; 17] = [0, 17, 34, 51, 68, 85, 102, 119, 136, 153, 170, 187, 204, 221, 238, 255, 255];
const MPL_CMAPS: &[(&str, [[u8; 3]; 17])] = &[
    (
        "gray",
        [
            [0, 0, 0],
            [17, 17, 17],
            [34, 34, 34],
            [51, 51, 51],
            [68, 68, 68],
            [85, 85, 85],
            [102, 102, 102],
            [119, 119, 119],
            [136, 136, 136],
            [153, 153, 153],
            [170, 170, 170],
            [187, 187, 187],
            [204, 204, 204],
            [221, 221, 221],
            [238, 238, 238],
            [255, 255, 255],
            [255, 255, 255],
        ],
    ),
    (
        "gray_r",
        [
            [255, 255, 255],
            [238, 238, 238],
            [221, 221, 221],
            [204, 204, 204],
            [187, 187, 187],
            [170, 170, 170],
            [153, 153, 153],
            [136, 136, 136],
            [119, 119, 119],
            [102, 102, 102],
            [85, 85, 85],
            [68, 68, 68],
            [50, 50, 50],
            [33, 33, 33],
            [16, 16, 16],
            [0, 0, 0],
            [0, 0, 0],
        ],
    ),
    (
        "viridis",
        [
            [68, 1, 84],
            [72, 25, 107],
            [70, 47, 124],
            [64, 67, 135],
            [56, 86, 139],
            [48, 103, 141],
            [41, 120, 142],
            [35, 136, 141],
            [30, 152, 138],
            [34, 167, 132],
            [53, 183, 120],
            [83, 197, 103],
            [121, 209, 81],
            [165, 218, 53],
            [210, 225, 27],
            [253, 231, 36],
            [253, 231, 36],
        ],
    ),
    (
        "viridis_r",
        [
            [253, 231, 36],
            [210, 225, 27],
            [165, 218, 53],
            [121, 209, 81],
            [83, 197, 103],
            [53, 183, 120],
            [34, 167, 132],
            [30, 152, 138],
            [35, 136, 141],
            [41, 120, 142],
            [48, 103, 141],
            [56, 86, 139],
            [64, 67, 135],
            [70, 47, 124],
            [72, 25, 107],
            [68, 1, 84],
            [68, 1, 84],
        ],
    ),
    (
        "magma",
        [
            [0, 0, 3],
            [11, 8, 36],
            [31, 17, 75],
            [59, 15, 111],
            [87, 20, 125],
            [113, 31, 129],
            [140, 41, 128],
            [167, 49, 125],
            [195, 59, 116],
            [221, 73, 104],
            [240, 96, 93],
            [250, 127, 94],
            [253, 159, 108],
            [254, 190, 131],
            [253, 221, 159],
            [251, 252, 191],
            [251, 252, 191],
        ],
    ),
    (
        "magma_r",
        [
            [251, 252, 191],
            [253, 221, 159],
            [254, 190, 131],
            [253, 159, 108],
            [250, 127, 94],
            [240, 96, 93],
            [221, 73, 104],
            [195, 59, 116],
            [167, 49, 125],
            [140, 41, 128],
            [113, 31, 129],
            [87, 20, 125],
            [59, 15, 111],
            [31, 17, 75],
            [11, 8, 36],
            [0, 0, 3],
            [0, 0, 3],
        ],
    ),
    (
        "inferno",
        [
            [0, 0, 3],
            [11, 7, 38],
            [36, 11, 78],
            [65, 9, 103],
            [93, 18, 110],
            [120, 28, 109],
            [147, 37, 103],
            [174, 48, 91],
            [199, 62, 76],
            [220, 80, 57],
            [237, 104, 37],
            [247, 133, 14],
            [251, 164, 10],
            [249, 197, 44],
            [242, 230, 96],
            [252, 254, 164],
            [252, 254, 164],
        ],
    ),
    (
        "inferno_r",
        [
            [252, 254, 164],
            [242, 230, 96],
            [249, 197, 44],
            [251, 164, 10],
            [247, 133, 14],
            [237, 104, 37],
            [220, 80, 57],
            [199, 62, 76],
            [174, 48, 91],
            [147, 37, 103],
            [120, 28, 109],
            [93, 18, 110],
            [65, 9, 103],
            [36, 11, 78],
            [11, 7, 38],
            [0, 0, 3],
            [0, 0, 3],
        ],
    ),
    (
        "plasma",
        [
            [12, 7, 134],
            [51, 4, 151],
            [79, 2, 162],
            [106, 0, 167],
            [132, 5, 166],
            [155, 23, 158],
            [176, 42, 143],
            [194, 61, 128],
            [210, 80, 112],
            [224, 100, 97],
            [236, 120, 83],
            [246, 142, 68],
            [252, 166, 53],
            [253, 192, 41],
            [249, 219, 36],
            [239, 248, 33],
            [239, 248, 33],
        ],
    ),
    (
        "plasma_r",
        [
            [239, 248, 33],
            [249, 219, 36],
            [253, 192, 41],
            [252, 166, 53],
            [246, 142, 68],
            [236, 120, 83],
            [224, 100, 97],
            [210, 80, 112],
            [194, 61, 128],
            [176, 42, 143],
            [155, 23, 158],
            [132, 5, 166],
            [106, 0, 167],
            [79, 2, 162],
            [51, 4, 151],
            [12, 7, 134],
            [12, 7, 134],
        ],
    ),
    (
        "cividis",
        [
            [0, 34, 77],
            [0, 46, 107],
            [29, 57, 110],
            [53, 69, 108],
            [71, 81, 107],
            [87, 93, 109],
            [102, 105, 112],
            [116, 117, 117],
            [132, 129, 120],
            [148, 142, 119],
            [165, 155, 115],
            [182, 169, 110],
            [200, 183, 101],
            [218, 198, 90],
            [237, 214, 72],
            [253, 231, 55],
            [253, 231, 55],
        ],
    ),
    (
        "cividis_r",
        [
            [253, 231, 55],
            [237, 214, 72],
            [218, 198, 90],
            [200, 183, 101],
            [182, 169, 110],
            [165, 155, 115],
            [148, 142, 119],
            [132, 129, 120],
            [116, 117, 117],
            [102, 105, 112],
            [87, 93, 109],
            [71, 81, 107],
            [53, 69, 108],
            [29, 57, 110],
            [0, 46, 107],
            [0, 34, 77],
            [0, 34, 77],
        ],
    ),
];

cpu_test!(colormaps_match_matplotlib);
/// gray and gray_r exactly matplotlib's bytes; colorous's perceptual maps within a few units.
fn colormaps_match_matplotlib() {
    for (name, want) in MPL_CMAPS {
        let cmap = Colormap::from_name(name).unwrap();
        assert_eq!(cmap.name(), *name);
        let mut worst = 0i32;
        for (k, &i) in MPL_ENTRIES.iter().enumerate() {
            let got = cmap.entry(i as u8);
            // The value at the middle of entry i's interval of t.
            assert_eq!(cmap.rgb((i as f64 + 0.5) / 256.0), got, "{name} {i}");
            let d = (0..3).map(|c| (got[c] as i32 - want[k][c] as i32).abs()).max().unwrap();
            worst = worst.max(d);
        }
        println!("colormap {name}: largest difference from matplotlib's bytes {worst}");
        let tol = match *name {
            "gray" | "gray_r" => 0,
            // colorous's cividis is d3's polynomial fit, not matplotlib's table.
            n if n.starts_with("cividis") => 16,
            _ => 2,
        };
        assert!(worst <= tol, "{name}: {worst} > {tol}");
        assert_eq!(cmap.reversed().reversed(), cmap);
        assert_eq!(cmap.reversed().entry(0), cmap.entry(255));
    }
    assert_eq!(Colormap::from_name("greys_r").unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(Colormap::from_name("grey_r").unwrap(), Colormap::GrayR);
    // matplotlib's index: t * 256 truncated, t = 1 the last entry, beyond the ends clipped.
    let g = Colormap::Gray;
    assert_eq!(g.rgb(-0.5), g.entry(0));
    assert_eq!(g.rgb(0.999), g.entry(255));
    assert_eq!(g.rgb(2.0), g.entry(255));
    assert_eq!(g.rgb(f64::NAN), g.entry(0));
    assert_eq!(g.rgb(127.99 / 256.0), g.entry(127));
    assert_eq!(g.rgb(128.0 / 256.0), g.entry(128));
}

device_test!(colorize_norms_as_matplotlib, |dev| {
    // x, and matplotlib 3.11's gray_r bytes under LogNorm(1, 100) (masked -> bad colour).
    let x = [0.5, 1.0, 3.0, 10.0, 99.0, 100.0, 250.0, -2.0, 0.0, f64::NAN];
    let a = cuprum::from_slice(&x, &[2, 5], &dev)?;
    let log = ImageOptions {
        cmap: Colormap::GrayR,
        norm: Norm::Log,
        vmin: Some(1.0),
        vmax: Some(100.0),
        ..Default::default()
    };
    let img = colorize_with(&a, &log)?;
    let want: [[u8; 4]; 10] = [
        [255, 255, 255, 255],
        [255, 255, 255, 255],
        [194, 194, 194, 255],
        [127, 127, 127, 255],
        [0, 0, 0, 255],
        [0, 0, 0, 255],
        [0, 0, 0, 255],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(img.pixel(k / 5, k % 5), *w, "log x = {}", x[k]);
    }
    // Normalize(1, 100) on the same values: t = (x - 1) / 99; viridis entry floor(t * 256).
    let lin = ImageOptions { vmin: Some(1.0), vmax: Some(100.0), bad: [1, 2, 3, 4], ..Default::default() };
    let img = colorize_with(&a, &lin)?;
    for (k, &v) in x.iter().enumerate() {
        let want = if v.is_nan() {
            [1, 2, 3, 4]
        } else {
            let [r, g, b] = Colormap::Viridis.rgb((v - 1.0) / 99.0);
            [r, g, b, 255]
        };
        assert_eq!(img.pixel(k / 5, k % 5), want, "linear x = {v}");
    }
    // Limits from the data: the finite values (Log: the finite positive ones, 0.5 and 250 as
    // matplotlib's LogNorm().autoscale_None finds).
    let auto = colorize_with(&a, &ImageOptions { cmap: Colormap::Gray, ..Default::default() })?;
    assert_eq!((auto.pixel(1, 2), auto.pixel(1, 1)), ([0, 0, 0, 255], [255, 255, 255, 255])); // -2 and 250
    let auto_log = colorize_with(&a, &ImageOptions { cmap: Colormap::Gray, norm: Norm::Log, ..Default::default() })?;
    // 0.5 and 250:
    assert_eq!((auto_log.pixel(0, 0), auto_log.pixel(1, 1)), ([0, 0, 0, 255], [255, 255, 255, 255]));
    // vmin == vmax: t = 0 everywhere; errors as matplotlib's.
    let flat = colorize_with(
        &a,
        &ImageOptions { cmap: Colormap::Gray, vmin: Some(3.0), vmax: Some(3.0), ..Default::default() },
    )?;
    assert_eq!(flat.pixel(1, 1), [0, 0, 0, 255]);
    let err = |o: ImageOptions| colorize_with(&a, &o).unwrap_err().kind();
    assert_eq!(err(ImageOptions { vmin: Some(2.0), vmax: Some(1.0), ..Default::default() }), ErrorKind::ValueError);
    assert_eq!(
        err(ImageOptions { norm: Norm::Log, vmin: Some(0.0), vmax: Some(1.0), ..Default::default() }),
        ErrorKind::ValueError
    );
    assert_eq!(err(ImageOptions { vmin: Some(f64::NAN), ..Default::default() }), ErrorKind::ValueError);
    let v = cuprum::arange(4, &dev)?;
    assert_eq!(colorize(&v).unwrap_err().kind(), ErrorKind::ValueError);
    // All NaN: every pixel bad, no error.
    let nan = cuprum::full(&[2, 2], f64::NAN, DType::Float32, &dev)?;
    assert!(colorize(&nan)?.pixels.chunks(4).all(|p| p == [0, 0, 0, 0]));
    Ok(())
});

device_test!(colour_bar_beside_the_image, |dev| {
    // 100 x 60 values from 1 to 100 (rows), a log scale from 1 to 100: the bar's ticks are at
    // 1, 10 and 100 (bottom, middle, top), labelled "1", "10", "100".
    let rows: Vec<f64> = (0..100).flat_map(|r| std::iter::repeat_n(10f64.powf(2.0 * r as f64 / 99.0), 60)).collect();
    let a = cuprum::from_slice(&rows, &[100, 60], &dev)?;
    let base = ImageOptions { cmap: Colormap::Viridis, norm: Norm::Log, ..Default::default() };
    let plain = colorize_with(&a, &base)?;
    let img = colorize_with(&a, &ImageOptions { colorbar: true, ..base })?;
    assert_eq!(img.height, 100);
    assert!(img.width > 60 + 6 + 4, "{}", img.width);
    // The image is unchanged at the left, white (the figure) between it and the bar.
    for y in 0..100 {
        for x in 0..60 {
            assert_eq!(img.pixel(y, x), plain.pixel(y, x));
        }
    }
    assert_eq!(img.pixel(50, 61), [255, 255, 255, 255]);
    // The bar: its first column after the gap is the outline; inside, the map from the last
    // colour at the top to the first at the bottom.
    let x_bar = (60..img.width).find(|&x| img.pixel(50, x) == [0, 0, 0, 255]).unwrap();
    let entry = |i: u8| {
        let [r, g, b] = Colormap::Viridis.entry(i);
        [r, g, b, 255]
    };
    assert_eq!(img.pixel(1, x_bar + 2), entry(252), "near the top");
    assert_eq!(img.pixel(98, x_bar + 2), entry(3), "near the bottom");
    assert_eq!((img.pixel(0, x_bar + 2), img.pixel(99, x_bar + 2)), ([0, 0, 0, 255], [0, 0, 0, 255]));
    // Labels: black text right of the bar around each tick's row (top, middle, bottom), none
    // between them.
    let bar_w = (x_bar..img.width).take_while(|&x| img.pixel(30, x) != [255, 255, 255, 255]).count();
    let ink = |y0: usize, y1: usize| {
        (y0..y1).any(|y| (x_bar + bar_w + 4..img.width).any(|x| img.pixel(y, x) == [0, 0, 0, 255]))
    };
    assert!(ink(0, 7) && ink(46, 53) && ink(93, 100));
    assert!(!ink(20, 40) && !ink(60, 80));
    // Three characters wide at most ("100"): 6 pixels each at this size.
    assert!(img.width - (x_bar + bar_w) <= 4 + 2 + 3 * 6 + 2 + 2);
    // Through imsave: a PNG of the composed picture.
    let path = tmp("colorbar.png");
    imsave_with(&path, &a, &ImageOptions { colorbar: true, ..base })?;
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap())).read_info().unwrap();
    assert_eq!((dec.info().width as usize, dec.info().height), (img.width, 100));
    std::fs::remove_file(&path).ok();
    // No usable value: the bar without ticks.
    let nan = cuprum::full(&[4, 4], f64::NAN, DType::Float64, &dev)?;
    let img = colorize_with(&nan, &ImageOptions { colorbar: true, ..Default::default() })?;
    assert!(img.width > 4 && img.pixel(0, 0) == [0, 0, 0, 0]);
    Ok(())
});

device_test!(imsave_png_pixels, |dev| {
    // A ramp whose rows differ: the PNG, decoded with the png crate, has row 0 at the top
    // (origin upper) or at the bottom (origin lower), every pixel as colorize gives it.
    let a = ramp(&[3, 4], &dev)?.astype(DType::UInt16)?;
    for origin in [Origin::Upper, Origin::Lower] {
        let o = ImageOptions { cmap: Colormap::Magma, origin, ..Default::default() };
        let path = tmp(&format!("img_{origin:?}.png"));
        imsave_with(&path, &a, &o)?;
        let file = std::fs::File::open(&path).unwrap();
        let mut dec = png::Decoder::new(std::io::BufReader::new(file)).read_info().unwrap();
        let mut buf = vec![0; dec.output_buffer_size().unwrap()];
        let info = dec.next_frame(&mut buf).unwrap();
        assert_eq!(
            (info.width, info.height, info.color_type, info.bit_depth),
            (4, 3, png::ColorType::Rgba, png::BitDepth::Eight)
        );
        let want = colorize_with(&a, &o)?;
        assert_eq!(&buf[..info.buffer_size()], &want.pixels[..]);
        let (top, bottom) = (want.pixel(0, 0), want.pixel(2, 0));
        let first = Colormap::Magma.entry(0);
        let first = [first[0], first[1], first[2], 255];
        match origin {
            Origin::Upper => assert_eq!(top, first),
            Origin::Lower => assert_eq!(bottom, first),
        }
        let last = Colormap::Magma.entry(255);
        assert_eq!(want.pixel(if origin == Origin::Upper { 2 } else { 0 }, 3), [last[0], last[1], last[2], 255]);
        std::fs::remove_file(&path).ok();
    }
    let empty = cuprum::zeros(&[0, 3], DType::Float64, &dev)?;
    assert_eq!(imsave(tmp("empty.png"), &empty).unwrap_err().kind(), ErrorKind::ValueError);
    Ok(())
});
