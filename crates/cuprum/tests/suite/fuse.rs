//! Fusion: formulas (`Expr`, `cuprum::fuse`) computed as one kernel / one pass must give the
//! dtypes, shapes, bits and errors of the same operations one at a time, on both devices.
//!
//! Bits, with one allowance: where both results are NaN, their signs and payloads may differ.
//! IEEE 754 leaves the NaN that arithmetic returns from NaN operands unspecified, the GPU's
//! double-precision units pass one operand's NaN through, and the CUDA compiler may reorder
//! operands or fold a negation into the next instruction (`-x * 2` as `x * -2`), so a NaN's
//! sign after arithmetic changes with what is compiled around it (as NumPy's SIMD and scalar
//! loops differ in it). Sign operations and copies keep a NaN's bits exactly (`fuse_nan_signs`).

use crate::common::{on, random, Rng};
use cuprum::ufunc::{BinaryOp, Operand, UnaryOp};
use cuprum::{s, Array, DType, Device, Expr};

/// A Rust scalar of a formula.
#[derive(Copy, Clone, Debug)]
enum Sc {
    I(i64),
    F(f64),
    B(bool),
}

impl Sc {
    fn operand(self) -> Operand<'static> {
        match self {
            Sc::I(v) => v.into(),
            Sc::F(v) => v.into(),
            Sc::B(v) => v.into(),
        }
    }
}

/// A formula, built twice: as an `Expr` (fused) and step by step (unfused).
#[derive(Clone, Debug)]
enum R {
    Leaf(usize),
    Scalar(Sc),
    Un(UnaryOp, Box<R>),
    Bin(BinaryOp, Box<R>, Box<R>),
    /// A scalar on the left of an operator (`2.5 - x`).
    Left(BinaryOp, Sc, Box<R>),
    Where(Box<R>, Box<R>, Box<R>),
    Cast(DType, Box<R>),
    Clip(Box<R>, Sc, Sc),
    Round(Box<R>, i32),
}

const UNARY: [UnaryOp; 20] = [
    UnaryOp::Negative,
    UnaryOp::Absolute,
    UnaryOp::Square,
    UnaryOp::Sqrt,
    UnaryOp::Exp,
    UnaryOp::Log,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tanh,
    UnaryOp::Floor,
    UnaryOp::Rint,
    UnaryOp::LogicalNot,
    UnaryOp::Invert,
    UnaryOp::IsNan,
    UnaryOp::Sign,
    UnaryOp::Reciprocal,
    UnaryOp::Expm1,
    UnaryOp::Arctan,
    UnaryOp::Cbrt,
    UnaryOp::Positive,
];

const CASTS: [DType; 8] = [
    DType::Bool,
    DType::Int8,
    DType::UInt16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
];

fn scalar(rng: &mut Rng) -> Sc {
    match rng.next_u64() % 5 {
        0 => Sc::B(rng.next_u64().is_multiple_of(2)),
        1 | 2 => Sc::I((rng.next_u64() % 9) as i64 - 3),
        _ => Sc::F(((rng.uniform() * 8.0 - 4.0) * 4.0).round() / 4.0),
    }
}

/// A random formula over `leaves` leaves, `depth` levels at most.
fn formula(rng: &mut Rng, leaves: usize, depth: u32) -> R {
    let r = rng.next_u64() % 100;
    if depth == 0 || r < 12 {
        return R::Leaf((rng.next_u64() % leaves as u64) as usize);
    }
    let sub = |rng: &mut Rng| Box::new(formula(rng, leaves, depth - 1));
    match r {
        12..=34 => R::Un(UNARY[(rng.next_u64() % UNARY.len() as u64) as usize], sub(rng)),
        35..=74 => {
            let op = BinaryOp::ALL[(rng.next_u64() % BinaryOp::ALL.len() as u64) as usize];
            let a = sub(rng);
            let b = if rng.next_u64().is_multiple_of(3) { Box::new(R::Scalar(scalar(rng))) } else { sub(rng) };
            R::Bin(op, a, b)
        }
        75..=79 => {
            let op = [BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply, BinaryOp::TrueDivide]
                [(rng.next_u64() % 4) as usize];
            let s = match scalar(rng) {
                Sc::B(b) => Sc::I(b as i64),
                s => s,
            };
            R::Left(op, s, sub(rng))
        }
        80..=86 => {
            let c = sub(rng);
            let x = if rng.next_u64().is_multiple_of(3) { Box::new(R::Scalar(scalar(rng))) } else { sub(rng) };
            let y = if rng.next_u64().is_multiple_of(3) { Box::new(R::Scalar(scalar(rng))) } else { sub(rng) };
            R::Where(c, x, y)
        }
        87..=92 => R::Cast(CASTS[(rng.next_u64() % CASTS.len() as u64) as usize], sub(rng)),
        93..=96 => R::Clip(sub(rng), scalar(rng), scalar(rng)),
        _ => R::Round(sub(rng), (rng.next_u64() % 5) as i32 - 2),
    }
}

fn arg(r: &R, leaves: &[Array]) -> Expr {
    fused(r, leaves)
}

fn fused(r: &R, leaves: &[Array]) -> Expr {
    match r {
        R::Leaf(k) => leaves[*k].expr(),
        R::Scalar(_) => unreachable!("scalars are operands"),
        R::Un(op, x) => fused(x, leaves).unary_ufunc(*op),
        R::Bin(op, a, b) => {
            let a = fused(a, leaves);
            match **b {
                R::Scalar(Sc::I(v)) => a.binary_ufunc(*op, v),
                R::Scalar(Sc::F(v)) => a.binary_ufunc(*op, v),
                R::Scalar(Sc::B(v)) => a.binary_ufunc(*op, v),
                ref b => a.binary_ufunc(*op, arg(b, leaves)),
            }
        }
        R::Left(op, s, x) => {
            let x = fused(x, leaves);
            match (op, s) {
                (BinaryOp::Add, Sc::I(v)) => *v + x,
                (BinaryOp::Subtract, Sc::I(v)) => *v - x,
                (BinaryOp::Multiply, Sc::I(v)) => *v * x,
                (_, Sc::I(v)) => *v / x,
                (BinaryOp::Add, Sc::F(v)) => *v + x,
                (BinaryOp::Subtract, Sc::F(v)) => *v - x,
                (BinaryOp::Multiply, Sc::F(v)) => *v * x,
                (_, Sc::F(v)) => *v / x,
                (_, Sc::B(_)) => unreachable!("the operators take f64 and i64 on the left"),
            }
        }
        R::Where(c, x, y) => {
            let c = fused(c, leaves);
            let term = |r: &R| -> cuprum::expr::Term {
                use cuprum::ExprArg;
                match r {
                    R::Scalar(Sc::I(v)) => v.term(),
                    R::Scalar(Sc::F(v)) => v.term(),
                    R::Scalar(Sc::B(v)) => v.term(),
                    r => arg(r, leaves).term(),
                }
            };
            c.where_(term(x), term(y))
        }
        R::Cast(d, x) => fused(x, leaves).astype(*d),
        R::Clip(x, lo, hi) => {
            use cuprum::ExprArg;
            let t = |s: &Sc| match *s {
                Sc::I(v) => v.term(),
                Sc::F(v) => v.term(),
                Sc::B(v) => v.term(),
            };
            fused(x, leaves).clip(t(lo), t(hi))
        }
        R::Round(x, d) => fused(x, leaves).round(*d),
    }
}

fn unfused(r: &R, leaves: &[Array]) -> cuprum::Result<Array> {
    let opnd = |r: &R| -> cuprum::Result<Result<Array, Sc>> {
        Ok(match r {
            R::Scalar(s) => Err(*s),
            r => Ok(unfused(r, leaves)?),
        })
    };
    fn o(x: &Result<Array, Sc>) -> Operand<'_> {
        match x {
            Ok(a) => Operand::Array(a),
            Err(s) => s.operand(),
        }
    }
    match r {
        R::Leaf(k) => Ok(leaves[*k].clone()),
        R::Scalar(_) => unreachable!("scalars are operands"),
        R::Un(op, x) => cuprum::ufunc::unary(*op, &unfused(x, leaves)?),
        R::Bin(op, a, b) => {
            let (a, b) = (opnd(a)?, opnd(b)?);
            cuprum::ufunc::binary(*op, o(&a), o(&b))
        }
        R::Left(op, s, x) => cuprum::ufunc::binary(*op, s.operand(), &unfused(x, leaves)?),
        R::Where(c, x, y) => {
            let c = unfused(c, leaves)?;
            let (x, y) = (opnd(x)?, opnd(y)?);
            cuprum::where_(&c, o(&x), o(&y))
        }
        R::Cast(d, x) => unfused(x, leaves)?.astype(*d),
        R::Clip(x, lo, hi) => unfused(x, leaves)?.clip(lo.operand(), hi.operand()),
        R::Round(x, d) => unfused(x, leaves)?.round(*d),
    }
}

/// Leaves of output shape `[rows, cols]` on `dev`: full arrays, rows, columns, 0-d arrays,
/// transposed and strided views, of dtypes mostly from `main`.
fn leaves(rng: &mut Rng, dev: &Device, rows: usize, cols: usize, main: DType) -> Vec<Array> {
    let all = cuprum::dtype::ALL_DTYPES;
    (0..4)
        .map(|_| {
            let dt =
                if rng.next_u64().is_multiple_of(3) { all[(rng.next_u64() % all.len() as u64) as usize] } else { main };
            let h = match rng.next_u64() % 6 {
                0 => random(&[cols], dt, rng, true),
                1 => random(&[rows, 1], dt, rng, true),
                2 => random(&[], dt, rng, true),
                3 => random(&[cols, rows], dt, rng, true).t(),
                4 => random(&[rows, 2 * cols], dt, rng, true).slice(s![.., ..;2]).unwrap(),
                _ => random(&[rows, cols], dt, rng, true),
            };
            let a = on(dev, &h);
            // Views on the device too (the copy above is contiguous).
            if rng.next_u64().is_multiple_of(4) && a.ndim() == 2 {
                a.flip(0).unwrap()
            } else {
                a
            }
        })
        .collect()
}

/// The first element (flat index) where `f` and `u` differ in their bytes, a NaN matching any
/// NaN (see the module's note); `None` when they agree.
fn first_difference(f: &Array, u: &Array) -> Option<usize> {
    let (fb, ub) = (f.to_bytes().unwrap(), u.to_bytes().unwrap());
    assert_eq!(fb.len(), ub.len(), "byte lengths");
    // A floating part's width and NaN test (on its little-endian bytes).
    type IsNan = fn(&[u8]) -> bool;
    let part: Option<(usize, IsNan)> = match f.dtype() {
        DType::Float16 => Some((2, |b| (u16::from_le_bytes([b[0], b[1]]) & 0x7fff) > 0x7c00)),
        DType::Float32 | DType::Complex64 => Some((4, |b| f32::from_le_bytes(b.try_into().unwrap()).is_nan())),
        DType::Float64 | DType::Complex128 => Some((8, |b| f64::from_le_bytes(b.try_into().unwrap()).is_nan())),
        _ => None,
    };
    let (w, nan) = part.unwrap_or((f.itemsize(), |_| false));
    let k = fb.chunks(w).zip(ub.chunks(w)).position(|(a, b)| a != b && !(nan(a) && nan(b)))?;
    Some(k * w / f.itemsize())
}

/// Compares a fused formula with its unfused steps: dtype, shape and bytes, or the error's
/// kind and message.
fn check(r: &R, leaves: &[Array], what: &str) -> bool {
    let f = fused(r, leaves).eval();
    let u = unfused(r, leaves);
    match (&f, &u) {
        (Ok(f), Ok(u)) => {
            assert_eq!(f.dtype(), u.dtype(), "{what}: dtype of {r:?}");
            assert_eq!(f.shape(), u.shape(), "{what}: shape of {r:?}");
            if let Some(i) = first_difference(f, u) {
                let fv = f.ravel().unwrap().slice(s![i]).unwrap();
                let uv = u.ravel().unwrap().slice(s![i]).unwrap();
                panic!("{what}: element {i} of {r:?}: fused {fv}, unfused {uv} ({:?})", f.dtype());
            }
            true
        }
        (Err(f), Err(u)) => {
            assert_eq!(f.kind(), u.kind(), "{what}: error kind of {r:?}: fused {f}, unfused {u}");
            assert_eq!(f.to_string(), u.to_string(), "{what}: error of {r:?}");
            false
        }
        _ => panic!(
            "{what}: {r:?}: fused {:?}, unfused {:?}",
            f.as_ref().map(|a| a.dtype()),
            u.as_ref().map(|a| a.dtype())
        ),
    }
}

/// Random formulas over random leaves: fused and unfused agree bit for bit (a NaN as any NaN)
/// or in their error. Shapes past the CPU's block size run the CPU's threaded pass.
fn random_formulas(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(0xF05E);
    let mains = [DType::Float32, DType::Float64, DType::Int64, DType::Int8, DType::UInt8, DType::Float16, DType::Bool];
    let trials = if dev.is_cpu() { 300 } else { 150 };
    let mut ok = 0;
    for t in 0..trials {
        let main = mains[t % mains.len()];
        let (rows, cols) = match t % 10 {
            0 => (20, 3000),
            1 => (1, 1),
            _ => (5, 37),
        };
        let ls = leaves(&mut rng, dev, rows, cols, main);
        let r = formula(&mut rng, ls.len(), 4);
        ok += check(&r, &ls, &format!("trial {t} ({main:?})")) as usize;
    }
    // Most formulas must compute (not only agree in their errors).
    assert!(ok * 3 >= trials, "only {ok} of {trials} formulas were valid");
    eprintln!("fuse: {ok} of {trials} random formulas computed, the rest failed alike");
    Ok(())
}

/// A reduction ending a random formula over arrays of the formula's shape (C-contiguous or
/// 0-d, the inputs a fused reduction takes): fused and unfused agree bit for bit (a NaN as any
/// NaN), or in their error, for every reduction over all axes, the last axis, both, and the
/// first (not trailing: computed unfused).
fn random_reductions(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(0x5ED0C);
    let mains = [DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::Float16, DType::Bool, DType::UInt8];
    let trials = if dev.is_cpu() { 120 } else { 60 };
    let mut ok = 0;
    for t in 0..trials {
        let main = mains[t % mains.len()];
        let (rows, cols) = [(5, 37), (3, 20_000), (1, 70_000), (40, 3)][t % 4];
        // Half the trials: inputs of the formula's shape (the CPU's fused pass takes only those);
        // the others any layout (the GPU's fused reduction reads them through their strides).
        let ls: Vec<Array> = if t % 2 == 0 {
            (0..3)
                .map(|k| {
                    let dt = if k == 2 && t % 3 == 0 { DType::Float32 } else { main };
                    let shape: &[usize] = if k == 2 && t % 5 == 0 { &[] } else { &[rows, cols] };
                    on(dev, &random(shape, dt, &mut rng, t % 4 == 0))
                })
                .collect()
        } else {
            leaves(&mut rng, dev, rows, cols, main)
        };
        let r = formula(&mut rng, ls.len(), 3);
        let ops = ["sum", "mean", "var", "std", "min", "max", "prod", "any", "all", "argmax"];
        let op = ops[(rng.next_u64() % ops.len() as u64) as usize];
        let axis: cuprum::Axes = match rng.next_u64() % 4 {
            0 => None.into(),
            1 => (-1i64).into(),
            2 => [0i64, 1].into(),
            _ => 0i64.into(),
        };
        let ddof = (rng.next_u64() % 2) as f64;
        let red_f = |e: Expr| -> Expr {
            let a = axis.clone();
            match op {
                "sum" => e.sum(a),
                "mean" => e.mean(a),
                "var" => e.var_with(a, &cuprum::VarOptions { ddof, ..Default::default() }),
                "std" => e.std_with(a, &cuprum::VarOptions { ddof, ..Default::default() }),
                "min" => e.min(a),
                "max" => e.max(a),
                "prod" => e.prod(a),
                "any" => e.any(a),
                "all" => e.all(a),
                _ => e.argmax(a),
            }
        };
        let red_u = |x: Array| -> cuprum::Result<Array> {
            let a = axis.clone();
            match op {
                "sum" => x.sum(a),
                "mean" => x.mean(a),
                "var" => x.var_with(a, &cuprum::VarOptions { ddof, ..Default::default() }),
                "std" => x.std_with(a, &cuprum::VarOptions { ddof, ..Default::default() }),
                "min" => x.min(a),
                "max" => x.max(a),
                "prod" => x.prod(a),
                "any" => x.any(a),
                "all" => x.all(a),
                _ => x.argmax(a),
            }
        };
        let what = format!("trial {t} ({main:?}, {rows}x{cols}): {op}({axis:?}, ddof {ddof}) of {r:?}");
        let f = red_f(fused(&r, &ls)).eval();
        let u = unfused(&r, &ls).and_then(red_u);
        match (&f, &u) {
            (Ok(f), Ok(u)) => {
                assert_eq!((f.dtype(), f.shape()), (u.dtype(), u.shape()), "{what}");
                assert_eq!(first_difference(f, u), None, "{what}: fused {f}, unfused {u}");
                ok += 1;
            }
            (Err(f), Err(u)) => assert_eq!((f.kind(), f.to_string()), (u.kind(), u.to_string()), "{what}"),
            _ => panic!("{what}: fused {f:?}, unfused {u:?}"),
        }
    }
    assert!(ok * 3 >= trials, "only {ok} of {trials} reductions were valid");
    eprintln!("fuse: {ok} of {trials} random reductions computed, the rest failed alike");
    Ok(())
}

/// The lesson's `squared_diff` through `cuprum::fuse`, NumPy's values (int64 and float32,
/// broadcasting a row against a column), and one compiled kernel for changing constants.
fn squared_diff(dev: &Device) -> cuprum::Result<()> {
    let sq = cuprum::fuse(|[x, y]| (&x - &y) * (&x - &y));
    let x = cuprum::arange(10_000, dev)?;
    let y = cuprum::flip(&x, None)?;
    let z = sq.call([&x, &y])?;
    assert_eq!(z.dtype(), DType::Int64);
    // np.sum((x - x[::-1])**2) for x = arange(10000): 333333330000.
    assert_eq!(z.sum(None)?.item::<i64>()?, 333_333_330_000);
    assert_eq!(z.slice(s![0])?.item::<i64>()?, 9999 * 9999);
    let a = cuprum::from_vec(vec![1.0f32, 2.0, 4.0], dev)?;
    let b = cuprum::from_vec(vec![0.5f32, 1.5], dev)?.reshape([2, 1])?;
    let w = sq.call([&a, &b])?;
    assert_eq!(w.shape(), &[2, 3]);
    assert_eq!(w.dtype(), DType::Float32);
    assert_eq!(w.to_vec::<f32>()?, vec![0.25, 2.25, 12.25, 0.25, 0.25, 6.25]);
    // A trailing reduction (WORKLOADS.md's fused_sum_squared_diff): sum((x - y) * (x - y)).
    let ssd = cuprum::fuse(|[x, y]| ((&x - &y) * (&x - &y)).sum(None));
    let s = ssd.call([&x, &y])?;
    assert_eq!((s.dtype(), s.ndim()), (DType::Int64, 0));
    assert_eq!(s.item::<i64>()?, 333_333_330_000);
    let xf = x.astype(DType::Float32)?;
    let yf = cuprum::flip(&xf, None)?.copy()?;
    let sf = ssd.call([&xf, &yf])?;
    let d = xf.subtract(&yf)?;
    assert_eq!(sf.to_bytes()?, d.multiply(&d)?.sum(None)?.to_bytes()?);
    assert!((sf.item::<f64>()? - 333_333_330_000.0).abs() < 333_333_330_000.0 * 1e-5);
    // A constant captured by the closure is a kernel parameter: the same kernel, new values.
    for k in [1.0, 2.5, -3.0] {
        let f = cuprum::fuse(|[x]| (&x * k + 1.0).exp());
        let got = f.call([&a])?;
        let want = a.multiply(k)?.add(1.0)?.exp()?;
        assert_eq!(got.to_bytes()?, want.to_bytes()?, "k = {k}");
    }
    Ok(())
}

/// A formula's errors are the unfused operation's, surfacing at `eval`/`call`.
fn errors(dev: &Device) -> cuprum::Result<()> {
    let a = cuprum::ones(&[3], DType::Float32, dev)?;
    let b = cuprum::ones(&[4], DType::Float32, dev)?;
    let f = cuprum::fuse(|[x, y]| (&x - &y).exp() * 2.0);
    let e = f.call([&a, &b]).unwrap_err();
    let u = a.subtract(&b).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (u.kind(), u.to_string()));
    let e = ((a.expr() * 2.0) & 1).eval().unwrap_err();
    assert_eq!(e.kind(), cuprum::ErrorKind::TypeError, "{e}");
    let i = cuprum::arange(4, dev)?;
    let e = (i.expr() + 1).powi(-1).eval().unwrap_err();
    assert_eq!(e.kind(), cuprum::ErrorKind::ValueError, "{e}");
    let e = (i.expr() + 1).power(i.expr() - 2).eval().unwrap_err();
    assert_eq!(e.kind(), cuprum::ErrorKind::ValueError, "{e}");
    Ok(())
}

/// Reductions whose result does not depend on the order of the values (any/all; integer and
/// bool sums, products, minima, maxima) over all axes of a formula spanning many blocks, with
/// wrapping sums and products: the fused pass (the CPU folds its blocks) against the unfused.
fn order_free_reductions(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(crate::common::base_seed() ^ 0x0F5EE);
    let dts = [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt64,
        DType::Bool,
        DType::Float32,
    ];
    for (t, &dt) in dts.iter().enumerate() {
        let n = [100_003usize, 4096, 37][t % 3];
        let x = on(dev, &random(&[n], dt, &mut rng, true));
        let y = on(dev, &random(&[n], dt, &mut rng, true));
        let f = |x: Expr, y: Expr| (&x * &y) + &x;
        let u = x.multiply(&y)?.add(&x)?;
        let ops: &[&str] =
            if dt == DType::Float32 { &["any", "all"] } else { &["sum", "prod", "min", "max", "any", "all"] };
        for &op in ops {
            let e = f(x.expr(), y.expr());
            let (got, want) = match op {
                "sum" => (e.sum(None).eval()?, u.sum(None)?),
                "prod" => (e.prod(None).eval()?, u.prod(None)?),
                "min" => (e.min(None).eval()?, u.min(None)?),
                "max" => (e.max(None).eval()?, u.max(None)?),
                "any" => (e.any(None).eval()?, u.any(None)?),
                _ => (e.all(None).eval()?, u.all(None)?),
            };
            assert_eq!((got.dtype(), got.shape()), (want.dtype(), want.shape()), "{op} of {dt:?}");
            assert_eq!(got.to_bytes()?, want.to_bytes()?, "{op} of {dt:?} ({n} values): fused {got}, unfused {want}");
        }
    }
    Ok(())
}

/// NaN signs: `negative` flips and `absolute` clears the sign bit of a NaN (payload kept), as
/// NumPy's loops do, and fused formulas give their steps' bits. On the GPU a negation used to
/// be folded into neighbouring instructions, whose NaN results are canonical, so the fused
/// `where(c, x, -y)` of the random formula test gave `nan` where its steps gave `-nan`.
fn nan_signs(dev: &Device) -> cuprum::Result<()> {
    use cuprum::ufunc::unary;
    use UnaryOp::{Absolute, Conjugate, Negative};
    let b32 = [0x7fc0_0000u32, 0xffc0_0000, 0x7fc1_2345, 0xffd4_3210, 0x3fc0_0000, 0x8000_0000, 0x7f80_0000];
    let b64: Vec<u64> = b32.iter().map(|&b| (f64::from(f32::from_bits(b)).to_bits()) ^ u64::from(b & 0x1f)).collect();
    let x32 = cuprum::from_slice(&b32.map(f32::from_bits), &[b32.len()], dev)?;
    let x64 = cuprum::from_slice(&b64.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>(), &[b64.len()], dev)?;
    let words32 = |a: &Array| -> Vec<u32> {
        a.to_bytes().unwrap().chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let words64 = |a: &Array| -> Vec<u64> {
        a.to_bytes().unwrap().chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let flip32: Vec<u32> = b32.iter().map(|b| b ^ 0x8000_0000).collect();
    let clear32: Vec<u32> = b32.iter().map(|b| b & 0x7fff_ffff).collect();
    let flip64: Vec<u64> = b64.iter().map(|b| b ^ (1 << 63)).collect();
    let clear64: Vec<u64> = b64.iter().map(|b| b & !(1 << 63)).collect();
    assert_eq!(words32(&unary(Negative, &x32)?), flip32, "negative, float32");
    assert_eq!(words32(&unary(Absolute, &x32)?), clear32, "absolute, float32");
    assert_eq!(words64(&unary(Negative, &x64)?), flip64, "negative, float64");
    assert_eq!(words64(&unary(Absolute, &x64)?), clear64, "absolute, float64");
    assert_eq!(words32(&(-x32.expr()).eval()?), flip32, "fused negative, float32");
    assert_eq!(words64(&x64.expr().absolute().eval()?), clear64, "fused absolute, float64");
    // Complex numbers: each part's sign (real parts b32, imaginary parts b32 reversed).
    let n = b32.len();
    let z = cuprum::zeros(&[n], DType::Complex64, dev)?;
    z.real().assign(&x32)?;
    z.imag()?.assign(&x32.flip(0)?)?;
    let (re, im): (Vec<u32>, Vec<u32>) = (b32.to_vec(), b32.iter().rev().copied().collect());
    let pairs = |r: &[u32], i: &[u32]| -> Vec<u32> { r.iter().zip(i).flat_map(|(&a, &b)| [a, b]).collect() };
    let flipped = |v: &[u32]| -> Vec<u32> { v.iter().map(|b| b ^ 0x8000_0000).collect() };
    assert_eq!(words32(&z).len(), 2 * n);
    assert_eq!(words32(&unary(Negative, &z)?), pairs(&flipped(&re), &flipped(&im)), "negative, complex64");
    assert_eq!(words32(&unary(Conjugate, &z)?), pairs(&re, &flipped(&im)), "conjugate, complex64");
    assert_eq!(words32(&z.expr().conjugate().eval()?), pairs(&re, &flipped(&im)), "fused conjugate");
    // Fused formulas where a negation or absolute value meets other instructions: the steps'
    // bits, every float dtype.
    let c = cuprum::from_slice(&(0..n).map(|i| i % 3 == 0).collect::<Vec<_>>(), &[n], dev)?;
    let z128 = z.astype(DType::Complex128)?;
    for x in [&x32, &x64, &x32.astype(DType::Float16)?, &z, &z128] {
        let y = x.flip(0)?;
        // (formula, whether it has arithmetic: then a NaN's sign is not the steps', see the
        // module's note).
        let formulas: [(&str, bool, Expr, cuprum::Result<Array>); 7] = [
            ("where(c, x, -y)", false, c.expr().where_(x, -y.expr()), cuprum::where_(&c, x, &unary(Negative, &y)?)),
            ("-abs(x)", false, -(x.expr().absolute()), unary(Negative, &unary(Absolute, x)?)),
            ("conj(-x)", false, (-x.expr()).conjugate(), unary(Conjugate, &unary(Negative, x)?)),
            ("-(x * y)", true, -(x.expr() * &y), unary(Negative, &x.multiply(&y)?)),
            ("abs(-x) + y", true, (-x.expr()).absolute() + &y, unary(Absolute, &unary(Negative, x)?)?.add(&y)),
            ("-abs(x) * 2", true, -(x.expr().absolute()) * 2.0, unary(Negative, &unary(Absolute, x)?)?.multiply(2.0)),
            ("conj(-x) - y", true, (-x.expr()).conjugate() - &y, unary(Conjugate, &unary(Negative, x)?)?.subtract(&y)),
        ];
        for (what, arithmetic, f, u) in formulas {
            let (f, u) = (f.eval()?, u?);
            assert_eq!(f.dtype(), u.dtype(), "{what} of {:?}", x.dtype());
            if arithmetic {
                assert_eq!(first_difference(&f, &u), None, "{what} of {:?}: fused {f}, unfused {u}", x.dtype());
            } else {
                assert_eq!(f.to_bytes()?, u.to_bytes()?, "{what} of {:?}: fused {f}, unfused {u}", x.dtype());
            }
        }
    }
    Ok(())
}

/// Formulas of any size (issue 35: a chain of 10,000 nodes overflowed the stack building,
/// computing and dropping it): a long chain of terms, a tree that doubles a shared subtree
/// 60 times (2^60 steps if walked naively), a sum of 100 different arrays, each equal to the
/// step-by-step result; a 200,000-deep formula built (its parts computed as the bound on a
/// kernel's steps requires) and dropped on a small stack without computing the whole.
fn large_formulas(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(crate::common::base_seed() ^ 0x1A46E);
    let x = on(dev, &random(&[1000], DType::Float64, &mut rng, false));
    // A chain: ((x * 0.999 + 1) * 0.999 + 1) ... 10,000 times.
    let mut e = x.expr();
    let mut u = x.copy()?;
    for _ in 0..10_000 {
        e = e * 0.999 + 1.0;
        u = u.multiply(0.999)?.add(1.0)?;
    }
    assert_eq!(e.eval()?.to_bytes()?, u.to_bytes()?, "a chain of 20,000 operations");
    // x + x, doubled 60 times: one shared subtree each time.
    let mut e = x.expr() * 1.0;
    let mut u = x.multiply(1.0)?;
    for _ in 0..60 {
        e = e.clone() + e;
        u = u.add(&u)?;
    }
    assert_eq!(e.eval()?.to_bytes()?, u.to_bytes()?, "a shared subtree doubled 60 times");
    // A sum of 100 arrays (more than one kernel's inputs).
    let xs: Vec<Array> = (0..100).map(|_| on(dev, &random(&[1000], DType::Float32, &mut rng, false))).collect();
    let mut e = xs[0].expr();
    let mut u = xs[0].copy()?;
    for a in &xs[1..] {
        e = e + a;
        u = u.add(a)?;
    }
    assert_eq!(e.eval()?.to_bytes()?, u.to_bytes()?, "a sum of 100 arrays");
    // Deep, never evaluated as a whole: built and dropped on a small stack (a walk or a drop
    // that recursed over 200,000 nodes would overflow these 2 MiB, a spawned thread's default).
    let small = cuprum::ones(&[2], DType::Float32, dev)?;
    let built = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut e = small.expr().exp();
            for _ in 0..200_000 {
                e = e.sin();
            }
            drop(e);
        })
        .expect("a thread");
    assert!(built.join().is_ok(), "a deep formula built and dropped");
    Ok(())
}

cases! {
    fuse_large_formulas => large_formulas,
    fuse_nan_signs => nan_signs,
    fuse_order_free_reductions => order_free_reductions,
    fuse_random_formulas_match_unfused => random_formulas,
    fuse_random_reductions_match_unfused => random_reductions,
    fuse_squared_diff => squared_diff,
    fuse_errors => errors,
}

gpu_test!(fuse_mixing_devices_is_an_error, |gpu| {
    let a = cuprum::ones(&[3], DType::Float32, &gpu)?;
    let c = cuprum::ones(&[3], DType::Float32, &Device::Cpu)?;
    let e = ((a.expr() + 1.0) * &c).eval().unwrap_err();
    let u = a.add(1.0)?.multiply(&c).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (u.kind(), u.to_string()));
    Ok(())
});
