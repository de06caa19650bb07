//! cuprum's fuzz targets. Each takes arbitrary bytes, drives one part of cuprum with them, and
//! panics only where cuprum broke a promise: a panic inside cuprum, a result that disagrees with
//! the same work done another way, or an error of a kind NumPy would not raise. A clear
//! [`cuprum::Error`] for bad bytes is the expected answer, not a finding.
//!
//! - [`npy`], [`npz`], [`fits`]: the file parsers on any bytes; what reads writes back and reads
//!   again the same.
//! - [`slicing`]: basic indexing with any integers (steps and bounds at the ends of `isize`)
//!   on small arrays, twice; the view reads, sums and copies only elements of its array.
//! - [`expr`]: fused formulas ([`cuprum::Expr`]) of thousands of steps with shared subtrees and
//!   any scalars, against the same steps computed one by one.
//!
//! They run two ways: in CI, `tests/fuzz.rs` feeds each a fixed number of inputs (valid files
//! from [`seeds`], mutated; random bytes), seeded and replayable; for longer runs, cargo-fuzz
//! (libFuzzer, coverage-guided) from `fuzz/` (README.md).

use arbitrary::{Arbitrary, Unstructured};
use cuprum::io::{self, FitsHdu, FitsReadOptions};
use cuprum::ufunc::{BinaryOp, Operand, UnaryOp};
use cuprum::{Array, DType, Device, ErrorKind, Expr, Scalar, SliceElem};

/// A `.npy` file's bytes. Returns whether they read as an array (so a runner can say how many
/// inputs got past the parser); likewise the other targets.
pub fn npy(data: &[u8]) -> bool {
    let Ok(a) = io::npy::npy_from_bytes(data, &Device::Cpu) else { return false };
    let bytes = io::npy::npy_to_bytes(&a).expect("an array read from .npy writes back");
    let b = io::npy::npy_from_bytes(&bytes, &Device::Cpu).expect("what cuprum writes, it reads");
    assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()));
    assert_eq!(io::npy::npy_to_bytes(&b).expect("writes again"), bytes, "an .npy round trip changed the data");
    true
}

/// A `.npz` archive's bytes.
pub fn npz(data: &[u8]) -> bool {
    let Ok(z) = io::npz::npz_from_bytes(data, &Device::Cpu) else { return false };
    let members: Vec<(&str, &Array)> = z.iter().collect();
    let Ok(bytes) = io::npz::npz_to_bytes(&members, false) else {
        // Names NumPy could not have written (empty or repeated) are refused on writing only.
        return true;
    };
    let back = io::npz::npz_from_bytes(&bytes, &Device::Cpu).expect("what cuprum writes, it reads");
    assert_eq!(back.names(), z.names());
    for (name, a) in z.iter() {
        let b = back.get(name).expect("a member written is read");
        assert_eq!(io::npy::npy_to_bytes(a).ok(), io::npy::npy_to_bytes(b).ok(), "member {name} changed");
    }
    true
}

/// A FITS file's bytes, read as `fits.getdata` does (scaled and raw, the default HDU and the
/// second); what reads writes back as an image of the same shape.
pub fn fits(data: &[u8]) -> bool {
    let mut read = false;
    for (scale, hdu) in [(true, None), (false, None), (true, Some(1))] {
        let opts = FitsReadOptions { scale, hdu, ..FitsReadOptions::default() };
        let Ok(img) = io::fits::fits_from_bytes(data, &opts) else { continue };
        read = true;
        assert_eq!(img.data.size(), img.data.shape().iter().product::<usize>());
        if let Ok(bytes) = io::fits::fits_to_bytes(&[FitsHdu::image(&img.data)]) {
            let back =
                io::fits::fits_from_bytes(&bytes, &FitsReadOptions { scale: false, ..FitsReadOptions::default() })
                    .expect("what cuprum writes, it reads");
            assert_eq!(back.data.shape(), img.data.shape());
        }
    }
    read
}

/// One element of a basic index, from the fuzzer's bytes (any integers).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Elem {
    Index(isize),
    Slice(Option<isize>, Option<isize>, isize),
    NewAxis,
    Ellipsis,
}

impl From<Elem> for SliceElem {
    fn from(e: Elem) -> SliceElem {
        match e {
            Elem::Index(i) => SliceElem::Index(i),
            Elem::Slice(start, end, step) => SliceElem::Slice { start, end, step },
            Elem::NewAxis => SliceElem::NewAxis,
            Elem::Ellipsis => SliceElem::Ellipsis,
        }
    }
}

/// `a[idx]`: an IndexError or ValueError (a zero step), or a view of at most `a`'s elements,
/// each one of them, whose sum in place is its copy's.
fn index_once(a: &Array, idx: &[SliceElem], n: usize) -> Option<Array> {
    match a.slice(idx) {
        Err(e) => {
            assert!(matches!(e.kind(), ErrorKind::IndexError | ErrorKind::ValueError), "a{idx:?}: {:?}: {e}", e.kind());
            None
        }
        Ok(v) => {
            assert!(v.size() <= a.size(), "a{idx:?} has {} elements, its array {}", v.size(), a.size());
            let vals = v.to_vec::<i64>().expect("a view reads");
            assert!(vals.iter().all(|&x| (0..n as i64).contains(&x)), "a{idx:?} read outside its array: {vals:?}");
            let sum = v.sum(None).and_then(|s| s.item::<i64>()).expect("a view sums");
            assert_eq!(sum, vals.iter().sum::<i64>(), "a{idx:?}: the sum in place differs from the elements'");
            Some(v)
        }
    }
}

/// Basic indexing of `arange(n).reshape(shape)` by two indices from the bytes, one after the other.
pub fn slicing(data: &[u8]) -> bool {
    let mut u = Unstructured::new(data);
    let Ok(dims) = u.arbitrary::<[u8; 4]>() else { return false };
    let ndim = (dims[0] % 5) as usize;
    let shape: Vec<usize> = dims[1..].iter().chain([&dims[3]]).take(ndim).map(|d| (d % 7) as usize).collect();
    let n: usize = shape.iter().product();
    let a = cuprum::arange(n as i64, &Device::Cpu).and_then(|a| a.reshape(&shape)).expect("arange");
    let (Ok(i1), Ok(i2)) = (u.arbitrary::<Vec<Elem>>(), u.arbitrary::<Vec<Elem>>()) else { return false };
    let to = |v: Vec<Elem>| -> Vec<SliceElem> { v.into_iter().take(70).map(SliceElem::from).collect() };
    match index_once(&a, &to(i1), n) {
        Some(v) => index_once(&v, &to(i2), n).is_some(),
        None => false,
    }
}

/// A scalar of a formula, from the bytes (any value: NaN, infinities, the ends of i64).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Sc {
    B(bool),
    I(i64),
    F(f64),
}

impl From<Sc> for Scalar {
    fn from(s: Sc) -> Scalar {
        match s {
            Sc::B(b) => Scalar::Bool(b),
            Sc::I(i) => Scalar::Int(i),
            Sc::F(f) => Scalar::Float(f),
        }
    }
}

/// One step of a formula: an operation (an index into `UnaryOp::ALL`, `BinaryOp::ALL` or the
/// dtypes) on earlier steps (by index, modulo their number).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Step {
    Un(u8, u16),
    Bin(u8, u16, u16),
    /// `x op s`, or `s op x` when the flag is set.
    WithScalar(u8, u16, Sc, bool),
    Cast(u8, u16),
    Where(u16, u16, u16),
}

/// The dtypes of leaves and casts.
pub const DTYPES: [DType; 9] = [
    DType::Bool,
    DType::Int8,
    DType::UInt8,
    DType::Int32,
    DType::Int64,
    DType::UInt64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
];
/// The shapes of leaves (they broadcast together, or fail alike).
pub const SHAPES: [&[usize]; 5] = [&[], &[3], &[2, 3], &[2, 1], &[0, 3]];

/// The most steps a formula from the fuzzer takes.
pub const MAX_STEPS: usize = 4096;

/// A formula of up to [`MAX_STEPS`] steps over four leaves (dtype, shape and values from the
/// bytes), built as one [`Expr`] and computed step by step: the fused result has the dtype,
/// shape and values of the unfused one (NaNs as NaNs), or both fail with one error kind.
pub fn expr(data: &[u8]) -> bool {
    let mut u = Unstructured::new(data);
    let mut leaves = Vec::new();
    for _ in 0..4 {
        let (Ok(d), Ok(s), Ok(vals)) = (u.arbitrary::<u8>(), u.arbitrary::<u8>(), u.arbitrary::<[f64; 6]>()) else {
            return false;
        };
        let shape = SHAPES[s as usize % SHAPES.len()];
        let n: usize = shape.iter().product();
        leaves.push(
            cuprum::from_slice(&vals[..n], shape, &Device::Cpu)
                .and_then(|a| a.astype(DTYPES[d as usize % DTYPES.len()])),
        );
    }
    let Ok(program) = u.arbitrary_iter::<Step>() else { return false };
    let program: Vec<Step> = program.take(MAX_STEPS).map_while(|s| s.ok()).collect();
    formula(leaves, &program)
}

/// The formula `program` over `leaves` (a leaf that failed is a leaf of both formulas), fused and
/// step by step; returns whether it computed (both failing alike is `false`).
pub fn formula(leaves: Vec<cuprum::Result<Array>>, program: &[Step]) -> bool {
    let mut fused: Vec<Expr> = leaves.iter().map(|l| Expr::from(l.clone())).collect();
    let mut steps = leaves;
    if steps.is_empty() {
        return false;
    }
    for &step in program {
        let k = steps.len();
        let at = |i: u16| i as usize % k;
        let arg = |i: u16| steps[at(i)].clone();
        let (e, s) = match step {
            Step::Un(op, x) => {
                let op = UnaryOp::ALL[op as usize % UnaryOp::ALL.len()];
                (fused[at(x)].clone().unary_ufunc(op), arg(x).and_then(|a| cuprum::ufunc::unary(op, &a)))
            }
            Step::Bin(op, x, y) => {
                let op = BinaryOp::ALL[op as usize % BinaryOp::ALL.len()];
                let s = arg(x).and_then(|a| arg(y).and_then(|b| cuprum::ufunc::binary(op, &a, &b)));
                (fused[at(x)].clone().binary_ufunc(op, fused[at(y)].clone()), s)
            }
            Step::WithScalar(op, x, sc, left) => {
                let op = BinaryOp::ALL[op as usize % BinaryOp::ALL.len()];
                let sc = Scalar::from(sc);
                if left {
                    let s = arg(x).and_then(|a| cuprum::ufunc::binary(op, Operand::Scalar(sc), &a));
                    (Expr::scalar_binary(sc, op, fused[at(x)].clone()), s)
                } else {
                    let s = arg(x).and_then(|a| cuprum::ufunc::binary(op, &a, Operand::Scalar(sc)));
                    (fused[at(x)].clone().binary_scalar(op, sc), s)
                }
            }
            Step::Cast(d, x) => {
                let dt = DTYPES[d as usize % DTYPES.len()];
                (fused[at(x)].clone().astype(dt), arg(x).and_then(|a| a.astype(dt)))
            }
            Step::Where(c, x, y) => {
                let s = arg(c).and_then(|c| arg(x).and_then(|x| arg(y).and_then(|y| cuprum::where_(&c, &x, &y))));
                (fused[at(c)].clone().where_(fused[at(x)].clone(), fused[at(y)].clone()), s)
            }
        };
        fused.push(e);
        steps.push(s);
    }
    let (Some(e), Some(want)) = (fused.pop(), steps.pop()) else { return false };
    match (e.eval(), want) {
        (Ok(got), Ok(want)) => {
            assert_same(&got, &want);
            true
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.kind(), b.kind(), "fused: {a}; step by step: {b}");
            false
        }
        (got, want) => panic!("fused: {:?}; step by step: {:?}", got.err(), want.err()),
    }
}

/// Same dtype, shape and values (NaN equal to NaN, whatever its sign and payload).
fn assert_same(got: &Array, want: &Array) {
    assert_eq!((got.dtype(), got.shape()), (want.dtype(), want.shape()));
    let c = |a: &Array| a.astype(DType::Complex128).and_then(|c| c.to_vec::<cuprum::Complex<f64>>()).expect("values");
    for (i, (g, w)) in c(got).iter().zip(&c(want)).enumerate() {
        let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        assert!(same(g.re, w.re) && same(g.im, w.im), "element {i}: fused {g}, step by step {w}");
    }
}

/// Valid inputs for the parsers, which the CI runner mutates: `.npy` files of every dtype and
/// layout, archives of them (stored and deflated), FITS images of every dtype FITS writes, in the
/// primary HDU and in an extension.
pub mod seeds {
    use super::*;

    fn arrays() -> Vec<Array> {
        let dev = Device::Cpu;
        let mut v = Vec::new();
        for dt in DTYPES.iter().chain(&[DType::Int16, DType::UInt32, DType::Complex64, DType::Complex128]) {
            for shape in [&[][..], &[0], &[5], &[2, 3], &[2, 1, 2]] {
                let n: usize = shape.iter().product();
                if let Ok(a) = cuprum::arange(n as i64, &dev).and_then(|a| a.reshape(shape)).and_then(|a| a.astype(*dt))
                {
                    v.push(a);
                }
            }
        }
        // A Fortran-order array.
        if let Ok(a) = cuprum::arange(6, &dev).and_then(|a| a.reshape([2, 3])) {
            v.push(a.t());
        }
        v
    }

    pub fn npy() -> Vec<Vec<u8>> {
        arrays().iter().filter_map(|a| io::npy::npy_to_bytes(a).ok()).collect()
    }

    pub fn npz() -> Vec<Vec<u8>> {
        let a = arrays();
        let mut v = Vec::new();
        for (k, pair) in a.chunks(2).enumerate() {
            let members: Vec<(String, &Array)> = pair.iter().enumerate().map(|(i, x)| (format!("m{i}"), x)).collect();
            let refs: Vec<(&str, &Array)> = members.iter().map(|(n, x)| (n.as_str(), *x)).collect();
            v.extend(io::npz::npz_to_bytes(&refs, k % 2 == 1).ok());
        }
        v
    }

    pub fn fits() -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        // (An image without data, 0-d or empty, is a header without an image: not a seed.)
        for a in arrays().into_iter().filter(|a| a.size() > 0) {
            v.extend(io::fits::fits_to_bytes(&[FitsHdu::image(&a)]).ok());
            v.extend(io::fits::fits_to_bytes(&[FitsHdu::empty(), FitsHdu::image(&a)]).ok());
        }
        v
    }
}
