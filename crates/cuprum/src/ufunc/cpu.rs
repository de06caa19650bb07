//! The CPU elementwise primitives: assignment with casting, fill, unary and binary ufuncs,
//! `where` and ranges (the signatures of `ufunc/cuda.rs`).

use crate::array::Array;
use crate::backend::cpu::cmath::{self, CFloat, CFun, CUnary};
use crate::backend::cpu::special;
use crate::backend::cpu::{
    copy_same, domain, load, par_walk, par_walk_at, store, Cx, Domain, Ptr, Wide, CHUNK, PAR_THRESHOLD,
};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::Result;
use crate::core::layout;
use crate::core::ufunc::{BinaryOp, UnaryOp};
use half::f16;
use num_complex::Complex;
use rayon::prelude::*;

pub(crate) fn dom_dispatch<R>(
    d: Domain,
    i: impl FnOnce() -> R,
    u: impl FnOnce() -> R,
    f: impl FnOnce() -> R,
    c: impl FnOnce() -> R,
) -> R {
    match d {
        Domain::I => i(),
        Domain::U => u(),
        Domain::F => f(),
        Domain::C => c(),
    }
}

/// Views `x` with the shape of `out` (broadcasting) and collapses both.
pub(crate) fn plan(out: &Array, ins: &[&Array]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut st: Vec<Vec<isize>> = vec![out.strides.clone()];
    for x in ins {
        st.push(layout::broadcast_strides(&x.shape, &x.strides, &out.shape).expect("shapes checked by caller"));
    }
    let refs: Vec<&[isize]> = st.iter().map(|v| v.as_slice()).collect();
    layout::collapse(&out.shape, &refs)
}

/// `out[...] = src` with `src` broadcast to `out`'s shape and converted to `out`'s dtype.
pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&src.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[src]);
    if src.dtype == out.dtype {
        // SAFETY: `plan` gives `out`'s layout and `src`'s broadcast to it (collapsed): every
        // position is an element of each, in its block; `out` is write-locked, `src` read-locked.
        // `src` does not overlap `out`: `Array::assign` copies a source sharing the block, and
        // the other callers pass fresh arrays.
        unsafe { copy_same(out.dtype.itemsize(), &shape, (out.cpu_ptr(), &st[0]), (src.cpu_ptr(), &st[1])) };
        return Ok(());
    }
    let (od, sd) = (out.dtype, src.dtype);
    let strides = [st[0].clone(), st[1].clone()];
    fn go<W: Wide>(od: DType, sd: DType, shape: &[usize], strides: &[Vec<isize>; 2], base: [Ptr; 2]) {
        let f = move |p: [*mut u8; 2], n: usize, s: [isize; 2]| {
            let mut buf = [W::default(); CHUNK];
            // SAFETY: a run of `n` elements of `src` and of `out` (`par_walk`'s contract), with
            // `out`'s elements ours alone; `src` is another block (see `copy_same` above).
            unsafe {
                load(sd, p[1], s[1], &mut buf[..n]);
                store(od, p[0], s[0], &buf[..n]);
            }
        };
        // SAFETY: `shape`/`strides` come from `plan` in the enclosing function (the only caller):
        // `out`'s layout and `src`'s broadcast to it, collapsed, so every position is an element
        // of each array, aligned and in its block; `base` holds their first elements. The locks
        // are held throughout; `f` writes only operand 0 (`out`), and `src` does not overlap
        // `out` (see `copy_same` above).
        unsafe { par_walk(shape, strides, base, &f) };
    }
    let base = [out.cpu_ptr(), src.cpu_ptr()];
    // Convert through the destination's domain, but floats through the float domain (its
    // store into an int destination is NumPy's cast on x86-64); anything into bool tests for
    // non-zero in the source's own domain.
    // Complex to anything goes through the complex domain (its store into a real type keeps
    // the real part, as NumPy's cast).
    let d = if od == DType::Bool || sd.is_inexact() { domain(sd) } else { domain(od) };
    dom_dispatch(
        d,
        || go::<i64>(od, sd, &shape, &strides, base),
        || go::<u64>(od, sd, &shape, &strides, base),
        || go::<f64>(od, sd, &shape, &strides, base),
        || go::<Cx>(od, sd, &shape, &strides, base),
    );
    Ok(())
}

/// Sets every element of `out` to `v` (converted to `out`'s dtype).
pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    let src = Array::scalar_cpu(v, out.dtype)?;
    assign(out, &src)
}

// ------------------------------------------------------------------------------ ufuncs

/// Per-domain ufunc arithmetic with NumPy's semantics.
pub(crate) trait Arith: Wide {
    fn unary(op: UnaryOp, x: &[Self], out: &mut [Self]);
    fn binary(op: BinaryOp, a: &[Self], b: &[Self], out: &mut [Self]);
}

macro_rules! lp1 {
    ($x:ident, $out:ident, |$v:ident| $e:expr) => {
        for (o, &$v) in $out.iter_mut().zip($x) {
            *o = $e;
        }
    };
}
macro_rules! lp2 {
    ($a:ident, $b:ident, $out:ident, |$x:ident, $y:ident| $e:expr) => {
        for ((o, &$x), &$y) in $out.iter_mut().zip($a).zip($b) {
            *o = $e;
        }
    };
}

fn b2<W: Wide>(b: bool) -> W {
    W::from_i64(b as i64)
}

macro_rules! int_common {
    ($t:ty, $op:ident, $a:ident, $b:ident, $out:ident, $signed:expr) => {
        match $op {
            BinaryOp::Add => lp2!($a, $b, $out, |x, y| x.wrapping_add(y)),
            BinaryOp::Subtract => lp2!($a, $b, $out, |x, y| x.wrapping_sub(y)),
            BinaryOp::Multiply => lp2!($a, $b, $out, |x, y| x.wrapping_mul(y)),
            BinaryOp::FloorDivide => lp2!($a, $b, $out, |x, y| {
                if y == 0 {
                    0
                } else {
                    let q = x.wrapping_div(y);
                    if $signed && (x.wrapping_rem(y) != 0) && ((x < 0 as $t) != (y < 0 as $t)) {
                        q.wrapping_sub(1)
                    } else {
                        q
                    }
                }
            }),
            BinaryOp::Remainder => lp2!($a, $b, $out, |x, y| {
                if y == 0 {
                    0
                } else {
                    let r = x.wrapping_rem(y);
                    if $signed && r != 0 && ((r < 0 as $t) != (y < 0 as $t)) {
                        r.wrapping_add(y)
                    } else {
                        r
                    }
                }
            }),
            BinaryOp::Power => lp2!($a, $b, $out, |x, y| {
                if $signed && y < 0 as $t {
                    // Only reachable with a negative exponent that the front end rejected.
                    0
                } else {
                    // Exponentiation by squaring over the whole (64-bit) exponent, wrapping.
                    let (mut r, mut base, mut e) = (1 as $t, x, y as u64);
                    while e != 0 {
                        if e & 1 == 1 {
                            r = r.wrapping_mul(base);
                        }
                        base = base.wrapping_mul(base);
                        e >>= 1;
                    }
                    r
                }
            }),
            BinaryOp::Maximum | BinaryOp::Fmax => lp2!($a, $b, $out, |x, y| if x >= y { x } else { y }),
            BinaryOp::Minimum | BinaryOp::Fmin => lp2!($a, $b, $out, |x, y| if x <= y { x } else { y }),
            BinaryOp::Equal => lp2!($a, $b, $out, |x, y| (x == y) as $t),
            BinaryOp::NotEqual => lp2!($a, $b, $out, |x, y| (x != y) as $t),
            BinaryOp::Less => lp2!($a, $b, $out, |x, y| (x < y) as $t),
            BinaryOp::LessEqual => lp2!($a, $b, $out, |x, y| (x <= y) as $t),
            BinaryOp::Greater => lp2!($a, $b, $out, |x, y| (x > y) as $t),
            BinaryOp::GreaterEqual => lp2!($a, $b, $out, |x, y| (x >= y) as $t),
            BinaryOp::LogicalAnd => lp2!($a, $b, $out, |x, y| (x != 0 && y != 0) as $t),
            BinaryOp::LogicalOr => lp2!($a, $b, $out, |x, y| (x != 0 || y != 0) as $t),
            BinaryOp::LogicalXor => lp2!($a, $b, $out, |x, y| ((x != 0) != (y != 0)) as $t),
            BinaryOp::BitwiseAnd => lp2!($a, $b, $out, |x, y| x & y),
            BinaryOp::BitwiseOr => lp2!($a, $b, $out, |x, y| x | y),
            BinaryOp::BitwiseXor => lp2!($a, $b, $out, |x, y| x ^ y),
            BinaryOp::LeftShift => lp2!($a, $b, $out, |x, y| if y < 0 as $t || y >= 64 as $t { 0 } else { x << y }),
            BinaryOp::RightShift => lp2!($a, $b, $out, |x, y| {
                if y < 0 as $t || y >= 64 as $t {
                    if x < 0 as $t {
                        (0 as $t).wrapping_sub(1)
                    } else {
                        0
                    }
                } else {
                    x >> y
                }
            }),
            // Float-only functions never resolve to an integer loop.
            BinaryOp::TrueDivide | BinaryOp::Arctan2 | BinaryOp::Hypot => lp2!($a, $b, $out, |x, _y| x),
        }
    };
}

impl Arith for i64 {
    fn unary(op: UnaryOp, x: &[i64], out: &mut [i64]) {
        use UnaryOp::*;
        match op {
            Negative => lp1!(x, out, |v| v.wrapping_neg()),
            Absolute => lp1!(x, out, |v| v.wrapping_abs()),
            Sign => lp1!(x, out, |v| v.signum()),
            Square => lp1!(x, out, |v| v.wrapping_mul(v)),
            Reciprocal => lp1!(x, out, |v| if v == 0 { 0 } else { 1i64.wrapping_div(v) }),
            LogicalNot => lp1!(x, out, |v| (v == 0) as i64),
            Invert => lp1!(x, out, |v| !v),
            IsNan | IsInf => lp1!(x, out, |_v| 0),
            IsFinite => lp1!(x, out, |_v| 1),
            _ => lp1!(x, out, |v| v),
        }
    }
    fn binary(op: BinaryOp, a: &[i64], b: &[i64], out: &mut [i64]) {
        int_common!(i64, op, a, b, out, true)
    }
}

impl Arith for u64 {
    fn unary(op: UnaryOp, x: &[u64], out: &mut [u64]) {
        use UnaryOp::*;
        match op {
            Negative => lp1!(x, out, |v| v.wrapping_neg()),
            Sign => lp1!(x, out, |v| (v != 0) as u64),
            Square => lp1!(x, out, |v| v.wrapping_mul(v)),
            Reciprocal => lp1!(x, out, |v| 1u64.checked_div(v).unwrap_or(0)),
            LogicalNot => lp1!(x, out, |v| (v == 0) as u64),
            Invert => lp1!(x, out, |v| !v),
            IsNan | IsInf => lp1!(x, out, |_v| 0),
            IsFinite => lp1!(x, out, |_v| 1),
            _ => lp1!(x, out, |v| v),
        }
    }
    fn binary(op: BinaryOp, a: &[u64], b: &[u64], out: &mut [u64]) {
        #[allow(unused_comparisons)]
        {
            int_common!(u64, op, a, b, out, false)
        }
    }
}

/// NumPy's float `divmod`: (floor quotient, remainder with the divisor's sign).
pub(crate) fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    if b == 0.0 {
        return (a / b, a % b);
    }
    let m = a % b;
    let mut div = (a - m) / b;
    let mut m2 = m;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m2 += b;
            div -= 1.0;
        }
    } else {
        m2 = 0.0f64.copysign(b);
    }
    let fd = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(a / b)
    };
    (fd, m2)
}

impl Arith for f64 {
    fn unary(op: UnaryOp, x: &[f64], out: &mut [f64]) {
        use UnaryOp::*;
        match op {
            Negative => lp1!(x, out, |v| -v),
            Positive | Conjugate => lp1!(x, out, |v| v),
            Absolute => lp1!(x, out, |v| v.abs()),
            Sign => lp1!(x, out, |v| if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else if v == 0.0 {
                0.0
            } else {
                v
            }),
            Square => lp1!(x, out, |v| v * v),
            Sqrt => lp1!(x, out, |v| v.sqrt()),
            Cbrt => lp1!(x, out, |v| v.cbrt()),
            Reciprocal => lp1!(x, out, |v| 1.0 / v),
            Exp => lp1!(x, out, |v| v.exp()),
            Exp2 => lp1!(x, out, |v| v.exp2()),
            Expm1 => lp1!(x, out, |v| v.exp_m1()),
            Log => lp1!(x, out, |v| v.ln()),
            Log2 => lp1!(x, out, |v| v.log2()),
            Log10 => lp1!(x, out, |v| v.log10()),
            Log1p => lp1!(x, out, |v| v.ln_1p()),
            Sin => lp1!(x, out, |v| v.sin()),
            Cos => lp1!(x, out, |v| v.cos()),
            Tan => lp1!(x, out, |v| v.tan()),
            Arcsin => lp1!(x, out, |v| v.asin()),
            Arccos => lp1!(x, out, |v| v.acos()),
            Arctan => lp1!(x, out, |v| v.atan()),
            Sinh => lp1!(x, out, |v| v.sinh()),
            Cosh => lp1!(x, out, |v| v.cosh()),
            Tanh => lp1!(x, out, |v| v.tanh()),
            Floor => lp1!(x, out, |v| v.floor()),
            Ceil => lp1!(x, out, |v| v.ceil()),
            Rint => lp1!(x, out, |v| v.round_ties_even()),
            Trunc => lp1!(x, out, |v| v.trunc()),
            LogicalNot => lp1!(x, out, |v| b2::<f64>(v == 0.0)),
            Invert => lp1!(x, out, |v| v),
            IsNan => lp1!(x, out, |v| b2::<f64>(v.is_nan())),
            IsInf => lp1!(x, out, |v| b2::<f64>(v.is_infinite())),
            IsFinite => lp1!(x, out, |v| b2::<f64>(v.is_finite())),
            Erf => lp1!(x, out, |v| special::erf(v)),
            Erfc => lp1!(x, out, |v| special::erfc(v)),
            Ndtr => lp1!(x, out, |v| special::ndtr(v)),
            Ndtri => lp1!(x, out, |v| special::ndtri(v)),
        }
    }
    fn binary(op: BinaryOp, a: &[f64], b: &[f64], out: &mut [f64]) {
        use BinaryOp::*;
        match op {
            Add => lp2!(a, b, out, |x, y| x + y),
            Subtract => lp2!(a, b, out, |x, y| x - y),
            Multiply => lp2!(a, b, out, |x, y| x * y),
            TrueDivide => lp2!(a, b, out, |x, y| x / y),
            FloorDivide => lp2!(a, b, out, |x, y| float_divmod(x, y).0),
            Remainder => lp2!(a, b, out, |x, y| float_divmod(x, y).1),
            Power => lp2!(a, b, out, |x, y| x.powf(y)),
            Arctan2 => lp2!(a, b, out, |x, y| x.atan2(y)),
            Hypot => lp2!(a, b, out, |x, y| x.hypot(y)),
            Maximum => lp2!(a, b, out, |x, y| if x >= y || x.is_nan() { x } else { y }),
            Minimum => lp2!(a, b, out, |x, y| if x <= y || x.is_nan() { x } else { y }),
            Fmax => lp2!(a, b, out, |x, y| if x >= y || y.is_nan() { x } else { y }),
            Fmin => lp2!(a, b, out, |x, y| if x <= y || y.is_nan() { x } else { y }),
            Equal => lp2!(a, b, out, |x, y| b2::<f64>(x == y)),
            NotEqual => lp2!(a, b, out, |x, y| b2::<f64>(x != y)),
            Less => lp2!(a, b, out, |x, y| b2::<f64>(x < y)),
            LessEqual => lp2!(a, b, out, |x, y| b2::<f64>(x <= y)),
            Greater => lp2!(a, b, out, |x, y| b2::<f64>(x > y)),
            GreaterEqual => lp2!(a, b, out, |x, y| b2::<f64>(x >= y)),
            LogicalAnd => lp2!(a, b, out, |x, y| b2::<f64>(x != 0.0 && y != 0.0)),
            LogicalOr => lp2!(a, b, out, |x, y| b2::<f64>(x != 0.0 || y != 0.0)),
            LogicalXor => lp2!(a, b, out, |x, y| b2::<f64>((x != 0.0) != (y != 0.0))),
            BitwiseAnd | BitwiseOr | BitwiseXor | LeftShift | RightShift => lp2!(a, b, out, |x, _y| x),
        }
    }
}

// ------------------------------------------------------------------ typed fast loops
//
// When every operand already has the loop dtype (no conversion: the common case), the loops
// below run in that native type on runs of up to `CHUNK` elements: a contiguous run is used in
// place, a broadcast scalar (stride 0) is splatted, other strides are gathered into a stack
// buffer. The inner loops are plain zips over slices that LLVM vectorises. The results are
// those of the wide path bit for bit: integer +, -, *, &, |, ^ wrap the same in the narrow
// type; float32 +, -, *, / and sqrt computed in float32 equal float64's rounded once to
// float32 (float64 has more than 2p + 2 bits, so the double rounding is innocuous);
// comparisons and max/min are exact.

/// Elements from which the typed arithmetic loops (a few bytes of memory traffic per element,
/// memory-bound) use threads. Measured on the 2-core machine (median of 400, `x - 1.0` float32
/// and int64 `a - b`, one thread against two): two threads lose below 2^17 elements (the
/// rayon hand-off, 10 to 30 us on this loaded machine, costs more than half the work), break
/// even about 2^18, and win 10 to 20 % at 2^19 (the loop is bound by memory bandwidth, which
/// a second core barely adds to).
const CHEAP_PAR_THRESHOLD: usize = 1 << 18;
/// Elements from which the vectorised float32 `exp`/`log`/`sin`/`cos` use threads: about
/// 1 to 2 ns per element on one core, so the hand-off pays from some 2^15 elements.
const VMATH_PAR_THRESHOLD: usize = 1 << 15;

/// Elements from which the generic (widening) loops use threads: `PAR_THRESHOLD` for most
/// ops, 2^13 for the float functions that cost 10 to 20 ns an element (std's float64 `sin`,
/// `tanh`, `pow`...): measured on the 2-core machine, float32 `sin` through this path on 8192
/// elements took 70 us with two threads against 90 us on one.
fn generic_threshold(costly: bool) -> usize {
    if costly {
        1 << 13
    } else {
        PAR_THRESHOLD
    }
}

/// Whether a unary op is one of the costly float functions (see `generic_threshold`).
fn unary_costly(op: UnaryOp, l: DType) -> bool {
    // NumPy's float-only functions (transcendental) but for the cheap sqrt and rint.
    l.is_float() && (op.is_float_function() || op.is_special()) && !matches!(op, UnaryOp::Sqrt | UnaryOp::Rint)
}

/// An input run of a typed loop.
#[derive(Copy, Clone)]
enum Src<'a, T> {
    Slice(&'a [T]),
    Splat(T),
}

/// Native element types of the typed loops.
trait Native: Copy + Send + Sync + PartialOrd + Default + 'static {
    /// `out = op(a, b)` for an op that `fast_binary` accepted.
    fn bin(op: BinaryOp, a: Src<'_, Self>, b: Src<'_, Self>, out: &mut [Self]);
    /// `out = op(x)` for an op that `fast_unary` accepted.
    fn un(op: UnaryOp, x: &[Self], out: &mut [Self]);
}

#[inline(always)]
fn map2<T: Copy, U: Copy>(a: Src<'_, T>, b: Src<'_, T>, out: &mut [U], f: impl Fn(T, T) -> U) {
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Src::Slice(a), Src::Splat(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Src::Splat(x), Src::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Src::Splat(x), Src::Splat(y)) => out.fill(f(x, y)),
    }
}

#[inline(always)]
fn map1<T: Copy, U>(x: &[T], out: &mut [U], f: impl Fn(T) -> U) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = f(v);
    }
}

/// Comparisons into a bool (u8) run.
#[inline(always)]
fn cmp_run<T: Native>(op: BinaryOp, a: Src<'_, T>, b: Src<'_, T>, out: &mut [u8]) {
    use BinaryOp::*;
    match op {
        Equal => map2(a, b, out, |x, y| (x == y) as u8),
        NotEqual => map2(a, b, out, |x, y| (x != y) as u8),
        Less => map2(a, b, out, |x, y| (x < y) as u8),
        LessEqual => map2(a, b, out, |x, y| (x <= y) as u8),
        Greater => map2(a, b, out, |x, y| (x > y) as u8),
        _ => map2(a, b, out, |x, y| (x >= y) as u8),
    }
}

macro_rules! native_int {
    ($($t:ty: $signed:expr),*) => {$(
        impl Native for $t {
            #[inline(always)]
            fn bin(op: BinaryOp, a: Src<'_, $t>, b: Src<'_, $t>, out: &mut [$t]) {
                use BinaryOp::*;
                match op {
                    Add => map2(a, b, out, |x, y| x.wrapping_add(y)),
                    Subtract => map2(a, b, out, |x, y| x.wrapping_sub(y)),
                    Multiply => map2(a, b, out, |x, y| x.wrapping_mul(y)),
                    Maximum | Fmax => map2(a, b, out, |x, y| if x >= y { x } else { y }),
                    Minimum | Fmin => map2(a, b, out, |x, y| if x <= y { x } else { y }),
                    BitwiseAnd => map2(a, b, out, |x, y| x & y),
                    BitwiseOr => map2(a, b, out, |x, y| x | y),
                    _ => map2(a, b, out, |x, y| x ^ y),
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn un(op: UnaryOp, x: &[$t], out: &mut [$t]) {
                use UnaryOp::*;
                match op {
                    Negative => map1(x, out, |v| v.wrapping_neg()),
                    Absolute => map1(x, out, |v| if $signed && v < 0 { v.wrapping_neg() } else { v }),
                    Square => map1(x, out, |v| v.wrapping_mul(v)),
                    Invert => map1(x, out, |v| !v),
                    _ => map1(x, out, |v| v),
                }
            }
        }
    )*};
}
native_int!(i8: true, i16: true, i32: true, i64: true, u8: false, u16: false, u32: false, u64: false);

macro_rules! native_float {
    ($($t:ty),*) => {$(
        impl Native for $t {
            #[inline(always)]
            fn bin(op: BinaryOp, a: Src<'_, $t>, b: Src<'_, $t>, out: &mut [$t]) {
                use BinaryOp::*;
                match op {
                    Add => map2(a, b, out, |x, y| x + y),
                    Subtract => map2(a, b, out, |x, y| x - y),
                    Multiply => map2(a, b, out, |x, y| x * y),
                    TrueDivide => map2(a, b, out, |x, y| x / y),
                    Maximum => map2(a, b, out, |x, y| if x >= y || x.is_nan() { x } else { y }),
                    Minimum => map2(a, b, out, |x, y| if x <= y || x.is_nan() { x } else { y }),
                    Fmax => map2(a, b, out, |x, y| if x >= y || y.is_nan() { x } else { y }),
                    // C's powf/pow, as NumPy's float32/float64 loops call them.
                    Power => map2(a, b, out, |x, y| x.powf(y)),
                    _ => map2(a, b, out, |x, y| if x <= y || y.is_nan() { x } else { y }),
                }
            }
            #[inline(always)]
            fn un(op: UnaryOp, x: &[$t], out: &mut [$t]) {
                use UnaryOp::*;
                match op {
                    Negative => map1(x, out, |v| -v),
                    Absolute => map1(x, out, |v| v.abs()),
                    Square => map1(x, out, |v| v * v),
                    Sqrt => map1(x, out, |v| v.sqrt()),
                    Reciprocal => map1(x, out, |v| 1.0 / v),
                    Floor => map1(x, out, |v| v.floor()),
                    Ceil => map1(x, out, |v| v.ceil()),
                    Trunc => map1(x, out, |v| v.trunc()),
                    Rint => map1(x, out, |v| v.round_ties_even()),
                    _ => map1(x, out, |v| v),
                }
            }
        }
    )*};
}
native_float!(f32, f64);

/// A float16 run as float32 (in `buf` unless a splat).
#[inline(always)]
fn widen_f16<'a>(x: Src<'_, f16>, buf: &'a mut [f32; CHUNK]) -> Src<'a, f32> {
    use half::slice::HalfFloatSliceExt;
    match x {
        Src::Splat(v) => Src::Splat(v.to_f32()),
        Src::Slice(s) => {
            let b = &mut buf[..s.len()];
            s.convert_to_f32_slice(b);
            Src::Slice(b)
        }
    }
}

/// float16 computes through float32 and rounds the result to float16, as NumPy's float16
/// loops: the same bits as the wide loop for the arithmetic and sqrt (float32 has more than
/// 2 x 11 + 2 bits); the float32 functions are the float32 loop's (vectorised `exp`, `sin`...).
/// Comparisons and max/min are exact in float16 itself.
impl Native for f16 {
    #[inline(always)]
    fn bin(op: BinaryOp, a: Src<'_, f16>, b: Src<'_, f16>, out: &mut [f16]) {
        use half::slice::HalfFloatSliceExt;
        let (mut wa, mut wb, mut wo) = ([0f32; CHUNK], [0f32; CHUNK], [0f32; CHUNK]);
        let n = out.len();
        f32::bin(op, widen_f16(a, &mut wa), widen_f16(b, &mut wb), &mut wo[..n]);
        out.convert_from_f32_slice(&wo[..n]);
    }
    #[inline(always)]
    fn un(op: UnaryOp, x: &[f16], out: &mut [f16]) {
        use half::slice::HalfFloatSliceExt;
        let (mut wx, mut wo) = ([0f32; CHUNK], [0f32; CHUNK]);
        let n = out.len();
        x.convert_to_f32_slice(&mut wx[..n]);
        if !crate::backend::cpu::vmath::f32_unary(op, &wx[..n], &mut wo[..n]) {
            f32::un(op, &wx[..n], &mut wo[..n]);
        }
        out.convert_from_f32_slice(&wo[..n]);
    }
}

/// Whether the typed binary loop computes `op` on loop dtype `l`: same-typed arithmetic
/// (`out` of dtype `l`) or comparisons (`out` bool).
fn fast_binary(op: BinaryOp, l: DType, a: DType, b: DType, o: DType) -> bool {
    use BinaryOp::*;
    if a != l || b != l || l == DType::Bool || l.is_complex() {
        return false;
    }
    let cmp = matches!(op, Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual);
    if cmp {
        return o == DType::Bool;
    }
    o == l
        && if l.is_float() {
            matches!(op, Add | Subtract | Multiply | TrueDivide | Maximum | Minimum | Fmax | Fmin | Power)
        } else {
            matches!(
                op,
                Add | Subtract | Multiply | Maximum | Minimum | Fmax | Fmin | BitwiseAnd | BitwiseOr | BitwiseXor
            )
        }
}

/// Whether the typed unary loop computes `op` on loop dtype `l` into `out` of dtype `l`.
fn fast_unary(op: UnaryOp, l: DType, x: DType, o: DType) -> bool {
    use UnaryOp::*;
    if x != l || o != l || l == DType::Bool || l.is_complex() {
        return false;
    }
    if l == DType::Float16 {
        // Through float32 as NumPy (the sign operations stay bit operations, in the wide loop).
        return matches!(op, Square | Sqrt | Reciprocal | Floor | Ceil | Trunc | Rint)
            || crate::backend::cpu::vmath::has_f32(op);
    }
    if l.is_float() {
        matches!(op, Negative | Positive | Absolute | Square | Sqrt | Reciprocal | Floor | Ceil | Trunc | Rint)
            || (l == DType::Float32 && crate::backend::cpu::vmath::has_f32(op))
    } else {
        matches!(op, Negative | Positive | Absolute | Square | Invert)
    }
}

/// A stack buffer for one run.
type RunBuf<T> = std::mem::MaybeUninit<[T; CHUNK]>;

/// The input run of `n` elements at `p` with byte stride `st`: in place when contiguous and
/// not overlapping `out` (the output run, `out_bytes` long), a splat when broadcast, otherwise
/// gathered into `buf`.
///
/// # Safety
/// `p + i*st` must be an initialised element of type `T` for `i < n` (`n <= CHUNK`), not
/// written during the returned borrow except as the very same elements of the output run (an
/// in-place operation), which are then copied into `buf` first; contiguous elements must be
/// aligned (array elements are).
#[inline(always)]
unsafe fn src<'a, T: Copy>(
    p: *const u8,
    st: isize,
    n: usize,
    out: *const u8,
    out_bytes: usize,
    buf: &'a mut RunBuf<T>,
) -> Src<'a, T> {
    let sz = std::mem::size_of::<T>();
    let b = buf.as_mut_ptr() as *mut T;
    if st == 0 {
        // SAFETY: one initialised element (the caller's contract).
        return Src::Splat(unsafe { (p as *const T).read_unaligned() });
    }
    if st == sz as isize {
        let (lo, hi) = (p as usize, p as usize + n * sz);
        if hi <= out as usize || lo >= out as usize + out_bytes {
            // SAFETY: `n` contiguous, aligned, initialised elements that nobody writes while the
            // slice lives (they do not overlap the output run; the caller's contract).
            return Src::Slice(unsafe { std::slice::from_raw_parts(p as *const T, n) });
        }
        // SAFETY: as above, but overlapping the output run: copied before it is written.
        unsafe { std::ptr::copy_nonoverlapping(p as *const T, b, n) };
    } else {
        for i in 0..n {
            // SAFETY: element `i` of the run (the caller's contract), read unaligned into the
            // buffer's slot `i < n <= CHUNK`.
            unsafe { b.add(i).write((p.offset(i as isize * st) as *const T).read_unaligned()) };
        }
    }
    // SAFETY: the first `n` slots of `buf` were written just above.
    Src::Slice(unsafe { std::slice::from_raw_parts(b, n) })
}

/// The bytes the output run of `n` elements at `p` (byte stride `st`, elements of `size`
/// bytes) spans: its lowest address and length, for the overlap test of contiguous inputs.
#[inline(always)]
fn out_span(p: *mut u8, st: isize, n: usize, size: usize) -> (*const u8, usize) {
    if st >= 0 {
        (p as *const u8, n * st.max(size as isize) as usize)
    } else {
        (p.wrapping_offset((n as isize - 1) * st) as *const u8, n * (-st) as usize)
    }
}

/// Runs `f` on the output run of `n` elements at `p` (byte stride `st`): in place when
/// contiguous, else through a buffer scattered afterwards.
///
/// # Safety
/// `p + i*st` must be elements of type `U` for `i < n` (`n <= CHUNK`), ours alone for the
/// call; contiguous elements must be aligned.
#[inline(always)]
unsafe fn with_out<U: Copy + Default>(p: *mut u8, st: isize, n: usize, f: impl FnOnce(&mut [U])) {
    if st == std::mem::size_of::<U>() as isize {
        // SAFETY: `n` contiguous aligned elements, exclusively ours (the caller's contract);
        // storage bytes are initialised and any bit pattern is a valid `U`.
        f(unsafe { std::slice::from_raw_parts_mut(p as *mut U, n) });
    } else {
        let mut buf = [U::default(); CHUNK];
        f(&mut buf[..n]);
        for (i, &v) in buf[..n].iter().enumerate() {
            // SAFETY: element `i` of the output run, ours alone (the caller's contract).
            unsafe { (p.offset(i as isize * st) as *mut U).write_unaligned(v) };
        }
    }
}

/// Whether the CPU has AVX2 (x86-64): the typed loops are then compiled a second time for it
/// (twice as many lanes; the same results, as no operation changes with the vector width).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

macro_rules! avx2_twin {
    ($name:ident, $avx:ident, ($($arg:ident: $ty:ty),*), $body:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx<T: Native>($($arg: $ty),*) {
            $body
        }
        #[inline(always)]
        fn $name<T: Native>($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the CPU has AVX2 (checked just above), the only requirement of the
                // `#[target_feature(enable = "avx2")]` twin.
                return unsafe { $avx::<T>($($arg),*) };
            }
            $body
        }
    };
}
avx2_twin!(bin_dispatch, bin_avx2, (op: BinaryOp, a: Src<'_, T>, b: Src<'_, T>, o: &mut [T]), T::bin(op, a, b, o));
avx2_twin!(cmp_dispatch, cmp_avx2, (op: BinaryOp, a: Src<'_, T>, b: Src<'_, T>, o: &mut [u8]), cmp_run(op, a, b, o));
avx2_twin!(un_dispatch, un_avx2, (op: UnaryOp, x: &[T], o: &mut [T]), T::un(op, x, o));

/// The typed binary loop (see `fast_binary`).
fn binary_typed<T: Native>(op: BinaryOp, cmp: bool, shape: &[usize], strides: &[Vec<isize>; 3], base: [Ptr; 3]) {
    let f = move |p: [*mut u8; 3], n: usize, s: [isize; 3]| {
        let (mut ba, mut bb) = (RunBuf::<T>::uninit(), RunBuf::<T>::uninit());
        let ob = if cmp { 1 } else { std::mem::size_of::<T>() };
        // The bytes the output run spans (for the overlap test of contiguous inputs).
        let (o_lo, o_len) = out_span(p[0], s[0], n, ob);
        // SAFETY: runs of `n` elements of each operand (`par_walk`'s contract): inputs of type
        // `T` (the loop dtype, checked by `fast_binary`), the output of `T` or bool (u8), ours
        // alone; an input overlapping the output is the same elements, copied first by `src`.
        unsafe {
            let a = src::<T>(p[1], s[1], n, o_lo, o_len, &mut ba);
            let b = src::<T>(p[2], s[2], n, o_lo, o_len, &mut bb);
            if cmp {
                with_out::<u8>(p[0], s[0], n, |o| cmp_dispatch(op, a, b, o));
            } else {
                with_out::<T>(p[0], s[0], n, |o| bin_dispatch(op, a, b, o));
            }
        }
    };
    // SAFETY: `shape`/`strides` come from `plan` in `binary` (the only caller): `out`'s layout
    // and the inputs' broadcast to it, collapsed, so every position is an element of each array;
    // the locks are held there; `f` writes only operand 0, and inputs overlapping `out` are the
    // very same elements (`unalias`).
    unsafe { par_walk_at(typed_threshold(op), shape, strides, base, &f) };
}

/// `out = c ? a : b` on one run (the condition's bytes are 0 or 1).
#[inline(always)]
fn select_run<T: Native>(c: Src<'_, u8>, a: Src<'_, T>, b: Src<'_, T>, out: &mut [T]) {
    let c = match c {
        Src::Slice(c) => c,
        Src::Splat(c) => {
            match if c != 0 { a } else { b } {
                Src::Slice(s) => out.copy_from_slice(s),
                Src::Splat(v) => out.fill(v),
            }
            return;
        }
    };
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => {
            for (((o, &c), &x), &y) in out.iter_mut().zip(c).zip(a).zip(b) {
                *o = if c != 0 { x } else { y };
            }
        }
        (Src::Slice(a), Src::Splat(y)) => {
            for ((o, &c), &x) in out.iter_mut().zip(c).zip(a) {
                *o = if c != 0 { x } else { y };
            }
        }
        (Src::Splat(x), Src::Slice(b)) => {
            for ((o, &c), &y) in out.iter_mut().zip(c).zip(b) {
                *o = if c != 0 { x } else { y };
            }
        }
        (Src::Splat(x), Src::Splat(y)) => {
            for (o, &c) in out.iter_mut().zip(c) {
                *o = if c != 0 { x } else { y };
            }
        }
    }
}
avx2_twin!(select_dispatch, select_avx2, (c: Src<'_, u8>, a: Src<'_, T>, b: Src<'_, T>, o: &mut [T]), select_run(c, a, b, o));

/// `where` with a bool condition and both choices of the output's dtype, in that type.
fn where_typed<T: Native>(shape: &[usize], strides: &[Vec<isize>; 4], base: [Ptr; 4]) {
    let f = move |p: [*mut u8; 4], n: usize, s: [isize; 4]| {
        let (mut bc, mut ba, mut bb) = (RunBuf::<u8>::uninit(), RunBuf::<T>::uninit(), RunBuf::<T>::uninit());
        let ob = std::mem::size_of::<T>();
        let (o_lo, o_len) = out_span(p[0], s[0], n, ob);
        // SAFETY: runs of `n` elements of each operand (`par_walk`'s contract): the condition
        // of bool (bytes 0 or 1), the choices and the output of `T` (checked by the caller),
        // the output ours alone; an input overlapping the output is copied first by `src`.
        unsafe {
            let c = src::<u8>(p[1], s[1], n, o_lo, o_len, &mut bc);
            let a = src::<T>(p[2], s[2], n, o_lo, o_len, &mut ba);
            let b = src::<T>(p[3], s[3], n, o_lo, o_len, &mut bb);
            with_out::<T>(p[0], s[0], n, |o| select_dispatch(c, a, b, o));
        }
    };
    // SAFETY: `shape`/`strides` come from `plan` in `where_` (the only caller): `out`'s layout
    // and the inputs' broadcast to it, collapsed, so every position is an element of each
    // array; the locks are held there; `f` writes only operand 0, a fresh array.
    unsafe { par_walk_at(CHEAP_PAR_THRESHOLD, shape, strides, base, &f) };
}

/// The thread threshold of a typed binary loop: `power` (C's `powf`/`pow`, some 10 to 20 ns an
/// element) as the generic loop's costly functions, the rest as cheap arithmetic.
fn typed_threshold(op: BinaryOp) -> usize {
    if op == BinaryOp::Power {
        generic_threshold(true)
    } else {
        CHEAP_PAR_THRESHOLD
    }
}

/// The typed unary loop (see `fast_unary`).
fn unary_typed<T: Native + VMath>(op: UnaryOp, shape: &[usize], strides: &[Vec<isize>; 2], base: [Ptr; 2]) {
    let f = move |p: [*mut u8; 2], n: usize, s: [isize; 2]| {
        let mut ba = RunBuf::<T>::uninit();
        let sz = std::mem::size_of::<T>();
        let (o_lo, o_len) = out_span(p[0], s[0], n, sz);
        // SAFETY: as in `binary_typed`, with one input.
        unsafe {
            let x = match src::<T>(p[1], s[1], n, o_lo, o_len, &mut ba) {
                Src::Slice(x) => x,
                Src::Splat(v) => {
                    let b = ba.as_mut_ptr() as *mut T;
                    for i in 0..n {
                        b.add(i).write(v);
                    }
                    std::slice::from_raw_parts(b, n)
                }
            };
            with_out::<T>(p[0], s[0], n, |o| {
                if !T::vmath(op, x, o) {
                    un_dispatch(op, x, o)
                }
            });
        }
    };
    let threshold = if T::has_vmath(op) { VMATH_PAR_THRESHOLD } else { CHEAP_PAR_THRESHOLD };
    // SAFETY: as in `binary_typed`.
    unsafe { par_walk_at(threshold, shape, strides, base, &f) };
}

/// Vectorised float math (`backend::cpu::vmath`) where a type has it.
trait VMath {
    /// Whether `vmath` computes `op`.
    fn has_vmath(_op: UnaryOp) -> bool {
        false
    }
    /// `out = op(x)` when this type has a vectorised `op`; false (nothing written) otherwise.
    fn vmath(_op: UnaryOp, _x: &[Self], _out: &mut [Self]) -> bool
    where
        Self: Sized,
    {
        false
    }
}
impl VMath for i8 {}
impl VMath for i16 {}
impl VMath for i32 {}
impl VMath for i64 {}
impl VMath for u8 {}
impl VMath for u16 {}
impl VMath for u32 {}
impl VMath for u64 {}
impl VMath for f64 {}
impl VMath for f16 {
    // The float32 functions run inside `Native::un` (through float32); only the threshold.
    fn has_vmath(op: UnaryOp) -> bool {
        crate::backend::cpu::vmath::has_f32(op)
    }
}
impl VMath for f32 {
    fn has_vmath(op: UnaryOp) -> bool {
        crate::backend::cpu::vmath::has_f32(op)
    }
    fn vmath(op: UnaryOp, x: &[f32], out: &mut [f32]) -> bool {
        crate::backend::cpu::vmath::f32_unary(op, x, out)
    }
}

macro_rules! typed_dispatch {
    ($l:expr, $f:ident, $($arg:expr),*) => {
        match $l {
            DType::Int8 => $f::<i8>($($arg),*),
            DType::Int16 => $f::<i16>($($arg),*),
            DType::Int32 => $f::<i32>($($arg),*),
            DType::Int64 => $f::<i64>($($arg),*),
            DType::UInt8 => $f::<u8>($($arg),*),
            DType::UInt16 => $f::<u16>($($arg),*),
            DType::UInt32 => $f::<u32>($($arg),*),
            DType::UInt64 => $f::<u64>($($arg),*),
            DType::Float16 => $f::<f16>($($arg),*),
            DType::Float32 => $f::<f32>($($arg),*),
            DType::Float64 => $f::<f64>($($arg),*),
            DType::Bool | DType::Complex64 | DType::Complex128 => unreachable!("no typed loop for {}", $l),
        }
    };
}

/// Rounds a wide buffer to the loop dtype, so that float32/float16 loops see the same values
/// as NumPy's (a float64 scalar becomes a float32 before the arithmetic, results are rounded
/// per operation).
#[inline]
pub(crate) fn round_to<W: Wide>(l: DType, buf: &mut [W]) {
    match l {
        DType::Float32 => buf.iter_mut().for_each(|v| *v = W::from_f64(v.to_f64() as f32 as f64)),
        DType::Float16 => {
            buf.iter_mut().for_each(|v| *v = W::from_f64(crate::core::dtype::f16_from_f64(v.to_f64()).to_f64()))
        }
        _ => {}
    }
}

/// `out = op(x)` computed in loop dtype `l`; `x` is broadcast to `out`.
pub(crate) fn unary(op: UnaryOp, l: DType, x: &Array, out: &Array) -> Result<()> {
    let op = if op == UnaryOp::Invert && l == DType::Bool { UnaryOp::LogicalNot } else { op };
    if l.is_complex() {
        return unary_complex(op, l, x, out);
    }
    let _l = CpuLocks::new(&[&x.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[x]);
    let strides = [st[0].clone(), st[1].clone()];
    let (od, xd) = (out.dtype, x.dtype);
    if fast_unary(op, l, xd, od) {
        typed_dispatch!(l, unary_typed, op, &shape, &strides, [out.cpu_ptr(), x.cpu_ptr()]);
        return Ok(());
    }
    fn go<W: Arith>(
        op: UnaryOp,
        l: DType,
        od: DType,
        xd: DType,
        shape: &[usize],
        strides: &[Vec<isize>; 2],
        base: [Ptr; 2],
    ) {
        let f = move |p: [*mut u8; 2], n: usize, s: [isize; 2]| {
            let mut a = [W::default(); CHUNK];
            let mut o = [W::default(); CHUNK];
            // SAFETY: runs of `n` elements of each operand at `p` with strides `s` (`par_walk`'s
            // contract); the output's run is ours alone, and an input sharing it is the same
            // elements, read here before they are written.
            unsafe { load(xd, p[1], s[1], &mut a[..n]) };
            round_to(l, &mut a[..n]);
            W::unary(op, &a[..n], &mut o[..n]);
            round_to(l, &mut o[..n]);
            // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
            unsafe { store(od, p[0], s[0], &o[..n]) };
        };
        // SAFETY: `shape`/`strides` come from `plan` in the enclosing function (the only caller):
        // `out`'s layout and the inputs' layouts broadcast to it, collapsed, so every position is
        // an element of each array, aligned and in its block; `base` holds their first elements.
        // The locks are held throughout; `f` writes only operand 0 (`out`), and the callers in
        // `ufunc` copy inputs that overlap `out` other than element for element (`unalias`).
        unsafe { par_walk_at(generic_threshold(unary_costly(op, l)), shape, strides, base, &f) };
    }
    let base = [out.cpu_ptr(), x.cpu_ptr()];
    dom_dispatch(
        domain(l),
        || go::<i64>(op, l, od, xd, &shape, &strides, base),
        || go::<u64>(op, l, od, xd, &shape, &strides, base),
        || go::<f64>(op, l, od, xd, &shape, &strides, base),
        || unreachable!("complex loops go through unary_complex"),
    );
    Ok(())
}

/// Whether a comparison of `a` and `b` needs NumPy 2's exact mixed signed/unsigned loop
/// (int64 vs uint64 would otherwise compare in float64).
pub(crate) fn mixed_int_compare(op: BinaryOp, a: DType, b: DType) -> bool {
    matches!(
        op,
        BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
    ) && a.is_integer()
        && b.is_integer()
        && a.is_signed_int() != b.is_signed_int()
}

/// Exact comparison of a signed and an unsigned integer operand, through i128.
fn compare_mixed(op: BinaryOp, a: &Array, b: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[a, b]);
    let strides = [st[0].clone(), st[1].clone(), st[2].clone()];
    let (ad, bd, od) = (a.dtype, b.dtype, out.dtype);
    let f = move |p: [*mut u8; 3], n: usize, s: [isize; 3]| {
        let mut x = [0i128; CHUNK];
        let mut y = [0i128; CHUNK];
        for (dt, ptr, st, buf) in [(ad, p[1], s[1], &mut x), (bd, p[2], s[2], &mut y)] {
            if dt.is_signed_int() {
                let mut t = [0i64; CHUNK];
                // SAFETY: a run of `n` elements of input `a` or `b` (`par_walk`'s contract).
                unsafe { load(dt, ptr, st, &mut t[..n]) };
                for (b, &v) in buf.iter_mut().zip(&t[..n]) {
                    *b = v as i128;
                }
            } else {
                let mut t = [0u64; CHUNK];
                // SAFETY: as above.
                unsafe { load(dt, ptr, st, &mut t[..n]) };
                for (b, &v) in buf.iter_mut().zip(&t[..n]) {
                    *b = v as i128;
                }
            }
        }
        let mut o = [0i64; CHUNK];
        for i in 0..n {
            o[i] = match op {
                BinaryOp::Equal => x[i] == y[i],
                BinaryOp::NotEqual => x[i] != y[i],
                BinaryOp::Less => x[i] < y[i],
                BinaryOp::LessEqual => x[i] <= y[i],
                BinaryOp::Greater => x[i] > y[i],
                _ => x[i] >= y[i],
            } as i64;
        }
        // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
        unsafe { store(od, p[0], s[0], &o[..n]) };
    };
    // SAFETY: `plan` gives `out`'s layout and `a`'s and `b`'s broadcast to it (collapsed): every
    // position is an element of each, in its block. The locks are held; `f` writes only `out`,
    // and `binary_out` copies inputs that overlap `out` other than element for element.
    unsafe { par_walk(&shape, &strides, [out.cpu_ptr(), a.cpu_ptr(), b.cpu_ptr()], &f) };
    Ok(())
}

/// `out = op(a, b)` computed in loop dtype `l`; inputs are broadcast to `out`.
pub(crate) fn binary(op: BinaryOp, l: DType, a: &Array, b: &Array, out: &Array) -> Result<()> {
    let op = match (op, l) {
        // Bool loops: + is "or", * is "and", max/min likewise.
        (BinaryOp::Add, DType::Bool) => BinaryOp::LogicalOr,
        (BinaryOp::Multiply, DType::Bool) => BinaryOp::LogicalAnd,
        (o, _) => o,
    };
    if mixed_int_compare(op, a.dtype, b.dtype) {
        return compare_mixed(op, a, b, out);
    }
    if l.is_complex() {
        return binary_complex(op, l, a, b, out);
    }
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[a, b]);
    let strides = [st[0].clone(), st[1].clone(), st[2].clone()];
    let dts = (out.dtype, a.dtype, b.dtype);
    if fast_binary(op, l, a.dtype, b.dtype, out.dtype) {
        let cmp = out.dtype == DType::Bool;
        typed_dispatch!(l, binary_typed, op, cmp, &shape, &strides, [out.cpu_ptr(), a.cpu_ptr(), b.cpu_ptr()]);
        return Ok(());
    }
    fn go<W: Arith>(
        costly: bool,
        op: BinaryOp,
        l: DType,
        dts: (DType, DType, DType),
        shape: &[usize],
        strides: &[Vec<isize>; 3],
        base: [Ptr; 3],
    ) {
        let f = move |p: [*mut u8; 3], n: usize, s: [isize; 3]| {
            let mut x = [W::default(); CHUNK];
            let mut y = [W::default(); CHUNK];
            let mut o = [W::default(); CHUNK];
            // SAFETY: runs of `n` elements of each operand at `p` with strides `s` (`par_walk`'s
            // contract); the output's run is ours alone, and an input sharing it is the same
            // elements, read here before they are written.
            unsafe {
                load(dts.1, p[1], s[1], &mut x[..n]);
                load(dts.2, p[2], s[2], &mut y[..n]);
            }
            round_to(l, &mut x[..n]);
            round_to(l, &mut y[..n]);
            W::binary(op, &x[..n], &y[..n], &mut o[..n]);
            if dts.0 != DType::Bool {
                round_to(l, &mut o[..n]);
            }
            // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
            unsafe { store(dts.0, p[0], s[0], &o[..n]) };
        };
        // SAFETY: `shape`/`strides` come from `plan` in the enclosing function (the only caller):
        // `out`'s layout and the inputs' layouts broadcast to it, collapsed, so every position is
        // an element of each array, aligned and in its block; `base` holds their first elements.
        // The locks are held throughout; `f` writes only operand 0 (`out`), and the callers in
        // `ufunc` copy inputs that overlap `out` other than element for element (`unalias`).
        unsafe { par_walk_at(generic_threshold(costly), shape, strides, base, &f) };
    }
    let base = [out.cpu_ptr(), a.cpu_ptr(), b.cpu_ptr()];
    let costly = l.is_float() && matches!(op, BinaryOp::Power | BinaryOp::Arctan2 | BinaryOp::Hypot);
    dom_dispatch(
        domain(l),
        || go::<i64>(costly, op, l, dts, &shape, &strides, base),
        || go::<u64>(costly, op, l, dts, &shape, &strides, base),
        || go::<f64>(costly, op, l, dts, &shape, &strides, base),
        || unreachable!("complex loops go through binary_complex"),
    );
    Ok(())
}

/// `out = where(cond, x, y)`, converting `x` and `y` to `out`'s dtype.
pub(crate) fn where_(cond: &Array, x: &Array, y: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&cond.storage, &x.storage, &y.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[cond, x, y]);
    let strides = [st[0].clone(), st[1].clone(), st[2].clone(), st[3].clone()];
    let dts = [out.dtype, cond.dtype, x.dtype, y.dtype];
    if cond.dtype == DType::Bool
        && x.dtype == out.dtype
        && y.dtype == out.dtype
        && !matches!(out.dtype, DType::Bool | DType::Float16 | DType::Complex64 | DType::Complex128)
    {
        let base = [out.cpu_ptr(), cond.cpu_ptr(), x.cpu_ptr(), y.cpu_ptr()];
        typed_dispatch!(out.dtype, where_typed, &shape, &strides, base);
        return Ok(());
    }
    fn go<W: Wide>(dts: [DType; 4], shape: &[usize], strides: &[Vec<isize>; 4], base: [Ptr; 4]) {
        let f = move |p: [*mut u8; 4], n: usize, s: [isize; 4]| {
            let mut c = [0i64; CHUNK];
            let mut a = [W::default(); CHUNK];
            let mut b = [W::default(); CHUNK];
            // SAFETY: runs of `n` elements of each operand at `p` with strides `s` (`par_walk`'s
            // contract); the output's run is ours alone, and an input sharing it is the same
            // elements, read here before they are written.
            unsafe {
                load(dts[1], p[1], s[1], &mut c[..n]);
                load(dts[2], p[2], s[2], &mut a[..n]);
                load(dts[3], p[3], s[3], &mut b[..n]);
            }
            for i in 0..n {
                if c[i] == 0 {
                    a[i] = b[i];
                }
            }
            // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
            unsafe { store(dts[0], p[0], s[0], &a[..n]) };
        };
        // SAFETY: `shape`/`strides` come from `plan` in the enclosing function (the only caller):
        // `out`'s layout and the inputs' layouts broadcast to it, collapsed, so every position is
        // an element of each array, aligned and in its block; `base` holds their first elements.
        // The locks are held throughout; `f` writes only operand 0 (`out`), a fresh array (the
        // masked assignment that passes its own array as `out` runs on CUDA only).
        unsafe { par_walk(shape, strides, base, &f) };
    }
    let base = [out.cpu_ptr(), cond.cpu_ptr(), x.cpu_ptr(), y.cpu_ptr()];
    dom_dispatch(
        domain(out.dtype),
        || go::<i64>(dts, &shape, &strides, base),
        || go::<u64>(dts, &shape, &strides, base),
        || go::<f64>(dts, &shape, &strides, base),
        || go::<Cx>(dts, &shape, &strides, base),
    );
    Ok(())
}

/// `out[i] = start + i * step` (and `out[n-1] = last` when given, as `linspace` does); the
/// ramp's kind matches the output's (`ufunc::iota` makes it so).
pub(crate) fn iota(out: &Array, ramp: super::Ramp) -> Result<()> {
    let _l = CpuLocks::new(&[], &[&out.storage]);
    let n = out.size();
    let p = out.cpu_ptr();
    let dt = out.dtype;
    let chunks: Vec<usize> = (0..n).step_by(CHUNK).collect();
    let work = |&c: &usize| {
        let m = CHUNK.min(n - c);
        let isz = dt.itemsize();
        match ramp {
            super::Ramp::Float { start, step, last } => {
                let mut buf = [0f64; CHUNK];
                for (i, b) in buf[..m].iter_mut().enumerate() {
                    *b = start + (c + i) as f64 * step;
                    if c + i == n - 1 {
                        if let Some(l) = last {
                            *b = l;
                        }
                    }
                }
                // SAFETY: `out` is a fresh, C-contiguous 1-d array of `n` elements (`creation`'s
                // ranges allocate it), write-locked; chunk `c` covers its elements `c..c + m`,
                // `c + m <= n`, aligned, and each chunk is written by one call.
                unsafe { store(dt, p.get().add(c * isz), isz as isize, &buf[..m]) };
            }
            super::Ramp::Int { start, step } => {
                // Integer ranges are computed exactly in i64.
                let mut ib = [0i64; CHUNK];
                for (i, b) in ib[..m].iter_mut().enumerate() {
                    *b = start.wrapping_add(((c + i) as i64).wrapping_mul(step));
                }
                // SAFETY: as above.
                unsafe { store(dt, p.get().add(c * isz), isz as isize, &ib[..m]) };
            }
        }
    };
    if n >= PAR_THRESHOLD {
        chunks.par_iter().for_each(work);
    } else {
        chunks.iter().for_each(work);
    }
    Ok(())
}

// ------------------------------------------------------------------------------ complex

/// The complex operation a complex unary ufunc computes (absolute, the tests and logical_not
/// are handled by `unary_complex` itself: their results are not complex).
fn cunary(op: UnaryOp) -> Option<CUnary> {
    use UnaryOp::*;
    Some(match op {
        Negative => CUnary::Neg,
        Conjugate => CUnary::Conj,
        Square => CUnary::Square,
        Reciprocal => CUnary::Reciprocal,
        Sign => CUnary::Sign,
        Rint => CUnary::Rint,
        Exp2 => CUnary::Exp2,
        Expm1 => CUnary::Expm1,
        Log2 => CUnary::Log2,
        Log10 => CUnary::Log10,
        Log1p => CUnary::Log1p,
        Exp => CUnary::F(CFun::Exp),
        Log => CUnary::F(CFun::Log),
        Sqrt => CUnary::F(CFun::Sqrt),
        Sin => CUnary::F(CFun::Sin),
        Cos => CUnary::F(CFun::Cos),
        Tan => CUnary::F(CFun::Tan),
        Sinh => CUnary::F(CFun::Sinh),
        Cosh => CUnary::F(CFun::Cosh),
        Tanh => CUnary::F(CFun::Tanh),
        Arcsin => CUnary::F(CFun::Asin),
        Arccos => CUnary::F(CFun::Acos),
        Arctan => CUnary::F(CFun::Atan),
        _ => return None,
    })
}

/// One run of a complex unary op in part type `T`: `a` holds the inputs (as complex128 parts),
/// `o` receives the results (complex, or real/bool results in `re`).
fn unary_run<T: CFloat>(op: UnaryOp, a: &[Cx], o: &mut [Cx]) {
    let z = |v: &Cx| Complex::new(T::from_f64(v.re), T::from_f64(v.im));
    let b = |t: bool| Cx { re: t as u8 as f64, im: 0.0 };
    match op {
        UnaryOp::Positive => o.copy_from_slice(a),
        UnaryOp::Absolute => {
            for (o, v) in o.iter_mut().zip(a) {
                let v = z(v);
                *o = Cx { re: v.re.hypot(v.im).to_f64(), im: 0.0 };
            }
        }
        UnaryOp::IsNan => o.iter_mut().zip(a).for_each(|(o, v)| *o = b(v.re.is_nan() || v.im.is_nan())),
        UnaryOp::IsInf => o.iter_mut().zip(a).for_each(|(o, v)| *o = b(v.re.is_infinite() || v.im.is_infinite())),
        UnaryOp::IsFinite => o.iter_mut().zip(a).for_each(|(o, v)| *o = b(v.re.is_finite() && v.im.is_finite())),
        UnaryOp::LogicalNot => o.iter_mut().zip(a).for_each(|(o, v)| *o = b(v.re == 0.0 && v.im == 0.0)),
        _ => {
            let f = cunary(op).expect("resolved to a complex loop");
            for (o, v) in o.iter_mut().zip(a) {
                let r = cmath::unary(f, z(v));
                *o = Cx { re: r.re.to_f64(), im: r.im.to_f64() };
            }
        }
    }
}

/// `out = op(x)` in complex loop dtype `l` (complex64 computes in float32, as NumPy's loop).
fn unary_complex(op: UnaryOp, l: DType, x: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&x.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[x]);
    let strides = [st[0].clone(), st[1].clone()];
    let (od, xd) = (out.dtype, x.dtype);
    let single = l == DType::Complex64;
    let f = move |p: [*mut u8; 2], n: usize, s: [isize; 2]| {
        let mut a = [Cx::default(); CHUNK];
        let mut o = [Cx::default(); CHUNK];
        // SAFETY: runs of `n` elements of each operand (`par_walk`'s contract); the output's run
        // is ours alone, and an input sharing it is the same elements, read before written.
        unsafe { load(xd, p[1], s[1], &mut a[..n]) };
        if single {
            unary_run::<f32>(op, &a[..n], &mut o[..n]);
        } else {
            unary_run::<f64>(op, &a[..n], &mut o[..n]);
        }
        // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
        unsafe { store(od, p[0], s[0], &o[..n]) };
    };
    let costly = !matches!(op, UnaryOp::Negative | UnaryOp::Positive | UnaryOp::Conjugate);
    // SAFETY: `plan` gives `out`'s layout and `x`'s broadcast to it (collapsed): every position
    // is an element of each, in its block. The locks are held; `f` writes only `out`, and the
    // callers in `ufunc` copy inputs that overlap `out` other than element for element.
    unsafe { par_walk_at(generic_threshold(costly), &shape, &strides, [out.cpu_ptr(), x.cpu_ptr()], &f) };
    Ok(())
}

/// One run of a complex binary op in part type `T` (comparisons give 0/1 in `re`).
fn binary_run<T: CFloat>(op: BinaryOp, a: &[Cx], b: &[Cx], o: &mut [Cx]) {
    use BinaryOp::*;
    let z = |v: &Cx| Complex::new(T::from_f64(v.re), T::from_f64(v.im));
    let w = |r: Complex<T>| Cx { re: r.re.to_f64(), im: r.im.to_f64() };
    let t = |v: bool| Cx { re: v as u8 as f64, im: 0.0 };
    let nz = |v: &Cx| v.re != 0.0 || v.im != 0.0;
    for ((o, x), y) in o.iter_mut().zip(a).zip(b) {
        let (p, q) = (z(x), z(y));
        *o = match op {
            Add => w(Complex::new(p.re + q.re, p.im + q.im)),
            Subtract => w(Complex::new(p.re - q.re, p.im - q.im)),
            Multiply => w(cmath::mul(p, q)),
            TrueDivide => w(cmath::div(p, q)),
            Power => w(cmath::pow(p, q)),
            // NumPy: maximum/minimum propagate a NaN (the first operand's), fmax/fmin avoid it.
            Maximum => w(if cmath::has_nan(p) || !cmath::less(p, q) && !cmath::has_nan(q) { p } else { q }),
            Minimum => w(if cmath::has_nan(p) || !cmath::less(q, p) && !cmath::has_nan(q) { p } else { q }),
            Fmax => w(if cmath::has_nan(q) || !cmath::has_nan(p) && !cmath::less(p, q) { p } else { q }),
            Fmin => w(if cmath::has_nan(q) || !cmath::has_nan(p) && !cmath::less(q, p) { p } else { q }),
            Equal => t(p.re == q.re && p.im == q.im),
            NotEqual => t(p.re != q.re || p.im != q.im),
            Less => t(cmath::less(p, q)),
            LessEqual => t(cmath::less_equal(p, q)),
            Greater => t(cmath::less(q, p)),
            GreaterEqual => t(cmath::less_equal(q, p)),
            LogicalAnd => t(nz(x) && nz(y)),
            LogicalOr => t(nz(x) || nz(y)),
            LogicalXor => t(nz(x) != nz(y)),
            _ => unreachable!("{} has no complex loop (resolve rejects it)", op.name()),
        };
    }
}

/// `out = op(a, b)` in complex loop dtype `l`.
fn binary_complex(op: BinaryOp, l: DType, a: &Array, b: &Array, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&a.storage, &b.storage], &[&out.storage]);
    let (shape, st) = plan(out, &[a, b]);
    let strides = [st[0].clone(), st[1].clone(), st[2].clone()];
    let dts = (out.dtype, a.dtype, b.dtype);
    let single = l == DType::Complex64;
    let f = move |p: [*mut u8; 3], n: usize, s: [isize; 3]| {
        let mut x = [Cx::default(); CHUNK];
        let mut y = [Cx::default(); CHUNK];
        let mut o = [Cx::default(); CHUNK];
        // SAFETY: runs of `n` elements of each operand (`par_walk`'s contract); the output's run
        // is ours alone, and an input sharing it is the same elements, read before written.
        unsafe {
            load(dts.1, p[1], s[1], &mut x[..n]);
            load(dts.2, p[2], s[2], &mut y[..n]);
        }
        if single {
            binary_run::<f32>(op, &x[..n], &y[..n], &mut o[..n]);
        } else {
            binary_run::<f64>(op, &x[..n], &y[..n], &mut o[..n]);
        }
        // SAFETY: the run of `n` elements of `out`, ours alone (`par_walk`'s contract).
        unsafe { store(dts.0, p[0], s[0], &o[..n]) };
    };
    let costly = matches!(op, BinaryOp::Power | BinaryOp::TrueDivide);
    // SAFETY: `plan` gives `out`'s layout and the inputs' broadcast to it (collapsed): every
    // position is an element of each, in its block. The locks are held; `f` writes only `out`,
    // and the callers in `ufunc` copy inputs that overlap `out` other than element for element.
    unsafe { par_walk_at(generic_threshold(costly), &shape, &strides, [out.cpu_ptr(), a.cpu_ptr(), b.cpu_ptr()], &f) };
    Ok(())
}
