//! Elementwise operations (ufuncs) with broadcasting, NumPy 2 promotion and weak scalars:
//! free functions (`cuprum::add(&a, 2.0)`), methods (`a.exp()`), Rust operators on `&Array`,
//! `Array` and scalars (returning `Result<Array>`), in-place forms (`a.add_assign(&b)`) and
//! `_out` forms that write into an existing array. An operand may be another operation's
//! `Result<Array>` ([`IntoOperand`]), on the right or left of an operator with an array
//! (`&med - 3 * &std`) and as any argument of the functions (`x.greater(&med - 3 * &std)?`),
//! so a statement needs one `?`. For formulas with scalars between results, fused into one
//! kernel, see [`Expr`](crate::Expr).

pub(crate) mod cpu;
pub(crate) mod cuda;

pub use crate::core::ufunc::{BinaryOp, ReduceOp, UnaryOp};
pub(crate) mod complex;
pub use complex::{angle, angle_with, conj, imag, real, AngleOptions};

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{can_cast, promote_types, Casting, DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;

/// An argument of an elementwise function: an array or a Rust scalar (weakly typed, NEP 50).
#[derive(Copy, Clone, Debug)]
pub enum Operand<'a> {
    Array(&'a Array),
    Scalar(Scalar),
}

impl<'a> From<&'a Array> for Operand<'a> {
    fn from(a: &'a Array) -> Self {
        Operand::Array(a)
    }
}
impl<'a> From<&'a mut Array> for Operand<'a> {
    fn from(a: &'a mut Array) -> Self {
        Operand::Array(a)
    }
}
impl From<Scalar> for Operand<'_> {
    fn from(s: Scalar) -> Self {
        Operand::Scalar(s)
    }
}
// Each Rust scalar is an `Operand` and an `IntoOperand`.
macro_rules! operand_from_scalar {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand<'_> { fn from(x: $t) -> Self { Operand::Scalar(x.into()) } }
        impl operand_sealed::Sealed for $t {}
        impl<'a> IntoOperand<'a> for $t {
            fn into_operand(self) -> Result<Held<'a>> { Ok(Held::Op(Operand::Scalar(self.into()))) }
        }
    )*};
}
operand_from_scalar!(
    bool,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    half::f16,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

/// What an elementwise function accepts for an operand ([`Operand`]'s cases and more): an array
/// (`&a`, or an owned `Array`), a Rust scalar (weak, NEP 50), the result of another operation
/// (`Result<Array>`: an error there is returned here, so a formula needs one `?`), or an
/// [`Expr`](crate::Expr) (evaluated here).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let img = cuprum::from_vec(vec![1.0f64, 9.0, 4.0, 30.0], &dev)?;
/// let (med, std) = (img.median(None)?, img.std(None)?);
/// // np.greater(img, med + 1.5 * std): no `?` inside
/// let bright = img.greater(&med + 1.5 * &std)?;
/// assert_eq!(bright.to_vec::<bool>()?, [false, false, false, true]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub trait IntoOperand<'a>: operand_sealed::Sealed {
    #[doc(hidden)]
    fn into_operand(self) -> Result<Held<'a>>;
}

/// An operand made ready for a function (an implementation detail of [`IntoOperand`]): a
/// borrowed array or scalar, or an array the function owns while it runs.
#[doc(hidden)]
pub enum Held<'a> {
    Op(Operand<'a>),
    Owned(Array),
}

impl Held<'_> {
    pub(crate) fn operand(&self) -> Operand<'_> {
        match self {
            Held::Op(o) => *o,
            Held::Owned(a) => Operand::Array(a),
        }
    }
}

mod operand_sealed {
    pub trait Sealed {}
}

impl operand_sealed::Sealed for Scalar {}
impl<'a> IntoOperand<'a> for Scalar {
    fn into_operand(self) -> Result<Held<'a>> {
        Ok(Held::Op(Operand::Scalar(self)))
    }
}
impl operand_sealed::Sealed for Operand<'_> {}
impl<'a> IntoOperand<'a> for Operand<'a> {
    fn into_operand(self) -> Result<Held<'a>> {
        Ok(Held::Op(self))
    }
}
impl operand_sealed::Sealed for &Array {}
impl<'a> IntoOperand<'a> for &'a Array {
    fn into_operand(self) -> Result<Held<'a>> {
        Ok(Held::Op(Operand::Array(self)))
    }
}
impl operand_sealed::Sealed for &mut Array {}
impl<'a> IntoOperand<'a> for &'a mut Array {
    fn into_operand(self) -> Result<Held<'a>> {
        Ok(Held::Op(Operand::Array(self)))
    }
}
impl operand_sealed::Sealed for Array {}
impl<'a> IntoOperand<'a> for Array {
    fn into_operand(self) -> Result<Held<'a>> {
        Ok(Held::Owned(self))
    }
}
impl operand_sealed::Sealed for Result<Array> {}
impl<'a> IntoOperand<'a> for Result<Array> {
    fn into_operand(self) -> Result<Held<'a>> {
        self.map(Held::Owned)
    }
}
impl operand_sealed::Sealed for crate::Expr {}
impl<'a> IntoOperand<'a> for crate::Expr {
    fn into_operand(self) -> Result<Held<'a>> {
        self.eval().map(Held::Owned)
    }
}

impl Operand<'_> {
    pub(crate) fn array(&self) -> Option<&Array> {
        match self {
            Operand::Array(a) => Some(a),
            Operand::Scalar(_) => None,
        }
    }
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            Operand::Array(a) => a.shape(),
            Operand::Scalar(_) => &[],
        }
    }
    /// What dtype resolution sees of the operand.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Operand::Array(a) => Kind::Arr(a.dtype()),
            Operand::Scalar(s) => Kind::Scalar(*s),
        }
    }
    fn input(&self) -> Input<'_> {
        *self
    }
}

/// An operand as dtype resolution sees it: an array's dtype, or a weak Rust scalar (NEP 50).
/// Shared by the operations here and by fused formulas (`fuse`), which resolve every node of a
/// formula with these same rules before any data exists.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Kind {
    Arr(DType),
    Scalar(Scalar),
}

pub(crate) use crate::array::same_device;

pub(crate) fn device_of(op: &str, ops: &[&Operand<'_>]) -> Result<Device> {
    let mut dev: Option<&Array> = None;
    for o in ops {
        if let Some(a) = o.array() {
            match dev {
                None => dev = Some(a),
                Some(d) => {
                    same_device(op, d, a)?;
                }
            }
        }
    }
    dev.map(|a| a.device())
        .ok_or_else(|| Error::InvalidArgument(format!("{op}: at least one argument must be an array")))
}

/// The dtypes of binary operands after NEP 50 weak-scalar promotion, and their common dtype.
fn common_dtype(a: Kind, b: Kind) -> Result<DType> {
    match (a, b) {
        (Kind::Arr(x), Kind::Arr(y)) => Ok(promote_types(x, y)),
        (Kind::Arr(x), Kind::Scalar(s)) | (Kind::Scalar(s), Kind::Arr(x)) => s.promote_with(x),
        _ => Err(Error::InvalidArgument("at least one argument must be an array".into())),
    }
}

pub(crate) fn broadcast_shape(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    layout::broadcast_shapes(a, b).ok_or_else(|| Error::ShapeMismatch { op: op.into(), a: a.to_vec(), b: b.to_vec() })
}

/// An input that overlaps `out` without being the very same elements is copied first, so
/// that `a[1:] += a[:-1]` reads the old values as in NumPy.
pub(crate) fn unalias(x: &Array, out: &Array) -> Result<Option<Array>> {
    if x.shares_storage(out) && !(x.offset == out.offset && x.strides == out.strides && x.shape == out.shape) {
        return Ok(Some(x.copy()?));
    }
    Ok(None)
}

pub(crate) fn check_out(op: &str, out: &Array, shape: &[usize], dev: Device, res: DType) -> Result<()> {
    if out.device() != dev {
        return Err(Error::DeviceMismatch { op: op.into(), a: dev, b: out.device() });
    }
    if out.shape() != shape {
        return Err(Error::ShapeMismatch { op: format!("{op} (out)"), a: shape.to_vec(), b: out.shape().to_vec() });
    }
    if !can_cast(res, out.dtype(), Casting::SameKind) {
        return Err(Error::Type(format!(
            "{op}: cannot cast ufunc output from {} to {} with casting rule 'same_kind'",
            res,
            out.dtype()
        )));
    }
    Ok(())
}

/// The loop and output dtypes of a binary ufunc on these operands.
pub(crate) fn resolve_binary(op: BinaryOp, a: Kind, b: Kind) -> Result<(DType, DType)> {
    if let (Kind::Arr(x), Kind::Arr(y)) = (a, b) {
        return op.resolve(x, y);
    }
    match common_dtype(a, b) {
        Ok(c) => op.resolve_common(c),
        // True division of an integer array by a Python int that does not fit its dtype is
        // defined in NumPy 2: it computes in float64.
        Err(Error::ScalarOverflow { .. }) if op == BinaryOp::TrueDivide => op.resolve_common(DType::Float64),
        Err(e) => Err(e),
    }
}

/// NumPy 2 compares an integer array with a Python int outside its dtype's range without
/// error: the answer is the same for every element. Returns it when that is the case.
pub(crate) fn out_of_range_comparison(op: BinaryOp, a: Kind, b: Kind) -> Option<bool> {
    use BinaryOp::*;
    if !matches!(op, Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual) {
        return None;
    }
    let (arr, s, scalar_left) = match (a, b) {
        (Kind::Arr(x), Kind::Scalar(s)) => (x, s, false),
        (Kind::Scalar(s), Kind::Arr(x)) => (x, s, true),
        _ => return None,
    };
    let (lo, hi) = arr.int_range().filter(|_| arr.is_integer())?;
    let v = s.as_i128()?;
    if v >= lo && v <= hi {
        return None;
    }
    // Every element x satisfies x < v (v above the range) or x > v (v below it).
    let x_less = v > hi;
    let (lt, gt) = if scalar_left { (!x_less, x_less) } else { (x_less, !x_less) };
    Some(match op {
        Equal => false,
        NotEqual => true,
        Less | LessEqual => lt,
        _ => gt,
    })
}

/// Integer `power` with a negative integer exponent is an error in NumPy.
pub(crate) fn check_power(op: BinaryOp, loop_dt: DType, b: &Operand<'_>) -> Result<()> {
    if op != BinaryOp::Power || !loop_dt.is_signed_int() {
        return Ok(());
    }
    let negative = match b {
        Operand::Scalar(s) => s.as_f64() < 0.0,
        Operand::Array(x) => x.dtype().is_signed_int() && x.size() > 0 && x.min(None)?.item::<i64>()? < 0,
    };
    if negative {
        return Err(Error::Value("Integers to negative integer powers are not allowed.".into()));
    }
    Ok(())
}

/// Applies a binary ufunc, allocating the result.
pub fn binary<'a, 'b>(op: BinaryOp, a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
    let (ha, hb) = (a.into_operand()?, b.into_operand()?);
    let (a, b) = (ha.operand(), hb.operand());
    let dev = device_of(op.name(), &[&a, &b])?;
    if let Some(v) = out_of_range_comparison(op, a.kind(), b.kind()) {
        let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
        return crate::full(&shape, v, DType::Bool, &dev);
    }
    let (loop_dt, out_dt) = resolve_binary(op, a.kind(), b.kind())?;
    check_power(op, loop_dt, &b)?;
    let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
    let out = Array::alloc(&shape, out_dt, dev, false)?;
    binary_into(op, loop_dt, &a.input(), &b.input(), &out)?;
    Ok(out)
}

/// Applies a binary ufunc into `out` (NumPy's `out=`; same-kind casting to `out`'s dtype).
/// `out` may be one of the inputs.
pub fn binary_out<'a, 'b>(
    op: BinaryOp,
    a: impl IntoOperand<'a>,
    b: impl IntoOperand<'b>,
    out: &mut Array,
) -> Result<()> {
    let (ha, hb) = (a.into_operand()?, b.into_operand()?);
    let (a, b) = (ha.operand(), hb.operand());
    let dev = device_of(op.name(), &[&a, &b])?;
    if let Some(v) = out_of_range_comparison(op, a.kind(), b.kind()) {
        let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
        let shape = broadcast_shape(op.name(), &shape, out.shape())?;
        check_out(op.name(), out, &shape, dev, DType::Bool)?;
        return out.fill(v);
    }
    let (loop_dt, out_dt) = resolve_binary(op, a.kind(), b.kind())?;
    check_power(op, loop_dt, &b)?;
    let shape = broadcast_shape(op.name(), a.shape(), b.shape())?;
    let shape = broadcast_shape(op.name(), &shape, out.shape())?;
    check_out(op.name(), out, &shape, dev, out_dt)?;
    let ca = match a.array() {
        Some(x) => unalias(x, out)?,
        None => None,
    };
    let cb = match b.array() {
        Some(x) => unalias(x, out)?,
        None => None,
    };
    let ia = ca.as_ref().map(Input::Array).unwrap_or_else(|| a.input());
    let ib = cb.as_ref().map(Input::Array).unwrap_or_else(|| b.input());
    binary_into(op, loop_dt, &ia, &ib, out)
}

/// Applies a unary ufunc, allocating the result.
pub fn unary(op: UnaryOp, x: &Array) -> Result<Array> {
    let (loop_dt, out_dt) = op.resolve(x.dtype())?;
    let out = Array::alloc(x.shape(), out_dt, x.device(), false)?;
    unary_into(op, loop_dt, x, &out)?;
    Ok(out)
}

/// Applies a unary ufunc into `out`.
pub fn unary_out(op: UnaryOp, x: &Array, out: &mut Array) -> Result<()> {
    let (loop_dt, out_dt) = op.resolve(x.dtype())?;
    let shape = broadcast_shape(op.name(), x.shape(), out.shape())?;
    check_out(op.name(), out, &shape, x.device(), out_dt)?;
    let c = unalias(x, out)?;
    unary_into(op, loop_dt, c.as_ref().unwrap_or(x), out)
}

macro_rules! binary_fns {
    ($($name:ident $out:ident $assign:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("NumPy's `", stringify!($name), "`, broadcasting and promoting.")]
        pub fn $name<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
            binary(BinaryOp::$op, a, b)
        }
        #[doc = concat!("NumPy's `", stringify!($name), "(a, b, out=out)`.")]
        pub fn $out<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>, out: &mut Array) -> Result<()> {
            binary_out(BinaryOp::$op, a, b, out)
        }
        impl Array {
            #[doc = concat!("NumPy's `", stringify!($name), "(self, other)`.")]
            pub fn $name<'a>(&self, other: impl IntoOperand<'a>) -> Result<Array> {
                binary(BinaryOp::$op, self, other)
            }
            #[doc = concat!("In place: `self = ", stringify!($name), "(self, other)` (same-kind cast into self's dtype).")]
            pub fn $assign<'a>(&mut self, other: impl IntoOperand<'a>) -> Result<()> {
                let me = self.view();
                binary_out(BinaryOp::$op, &me, other, self)
            }
        }
    )*};
}
binary_fns! {
    add add_out add_assign => Add,
    subtract subtract_out sub_assign => Subtract,
    multiply multiply_out mul_assign => Multiply,
    true_divide true_divide_out div_assign => TrueDivide,
    floor_divide floor_divide_out floor_div_assign => FloorDivide,
    remainder remainder_out rem_assign => Remainder,
    power power_out pow_assign => Power,
    arctan2 arctan2_out arctan2_assign => Arctan2,
    hypot hypot_out hypot_assign => Hypot,
    maximum maximum_out maximum_assign => Maximum,
    minimum minimum_out minimum_assign => Minimum,
    fmax fmax_out fmax_assign => Fmax,
    fmin fmin_out fmin_assign => Fmin,
    equal equal_out equal_assign => Equal,
    not_equal not_equal_out not_equal_assign => NotEqual,
    less less_out less_assign => Less,
    less_equal less_equal_out less_equal_assign => LessEqual,
    greater greater_out greater_assign => Greater,
    greater_equal greater_equal_out greater_equal_assign => GreaterEqual,
    logical_and logical_and_out logical_and_assign => LogicalAnd,
    logical_or logical_or_out logical_or_assign => LogicalOr,
    logical_xor logical_xor_out logical_xor_assign => LogicalXor,
    bitwise_and bitwise_and_out bitand_assign => BitwiseAnd,
    bitwise_or bitwise_or_out bitor_assign => BitwiseOr,
    bitwise_xor bitwise_xor_out bitxor_assign => BitwiseXor,
    left_shift left_shift_out shl_assign => LeftShift,
    right_shift right_shift_out shr_assign => RightShift,
}

/// NumPy's `divide` (true division).
pub fn divide<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
    binary(BinaryOp::TrueDivide, a, b)
}

macro_rules! unary_fns {
    ($($name:ident $out:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("NumPy's `", stringify!($name), "`.")]
        pub fn $name(x: &Array) -> Result<Array> {
            unary(UnaryOp::$op, x)
        }
        #[doc = concat!("NumPy's `", stringify!($name), "(x, out=out)`.")]
        pub fn $out(x: &Array, out: &mut Array) -> Result<()> {
            unary_out(UnaryOp::$op, x, out)
        }
        impl Array {
            #[doc = concat!("NumPy's `", stringify!($name), "(self)`.")]
            pub fn $name(&self) -> Result<Array> {
                unary(UnaryOp::$op, self)
            }
        }
    )*};
}
unary_fns! {
    negative negative_out => Negative,
    positive positive_out => Positive,
    absolute absolute_out => Absolute,
    sign sign_out => Sign,
    square square_out => Square,
    sqrt sqrt_out => Sqrt,
    cbrt cbrt_out => Cbrt,
    reciprocal reciprocal_out => Reciprocal,
    exp exp_out => Exp,
    exp2 exp2_out => Exp2,
    expm1 expm1_out => Expm1,
    log log_out => Log,
    log2 log2_out => Log2,
    log10 log10_out => Log10,
    log1p log1p_out => Log1p,
    sin sin_out => Sin,
    cos cos_out => Cos,
    tan tan_out => Tan,
    arcsin arcsin_out => Arcsin,
    arccos arccos_out => Arccos,
    arctan arctan_out => Arctan,
    sinh sinh_out => Sinh,
    cosh cosh_out => Cosh,
    tanh tanh_out => Tanh,
    floor floor_out => Floor,
    ceil ceil_out => Ceil,
    rint rint_out => Rint,
    trunc trunc_out => Trunc,
    logical_not logical_not_out => LogicalNot,
    invert invert_out => Invert,
    isnan isnan_out => IsNan,
    isinf isinf_out => IsInf,
    conjugate conjugate_out => Conjugate,
    isfinite isfinite_out => IsFinite,
}

/// NumPy's `abs` (= `absolute`).
pub fn abs(x: &Array) -> Result<Array> {
    unary(UnaryOp::Absolute, x)
}

impl Array {
    /// NumPy's `abs`.
    pub fn abs(&self) -> Result<Array> {
        unary(UnaryOp::Absolute, self)
    }

    /// NumPy's `round(decimals)`: round half to even at `decimals` decimal places (negative
    /// decimals round to tens, hundreds...). Integers are returned unchanged for
    /// `decimals >= 0`.
    pub fn round(&self, decimals: i32) -> Result<Array> {
        round(self, decimals)
    }

    /// NumPy's `clip(a, min, max)`: `minimum(maximum(a, min), max)`; NaN propagates.
    pub fn clip<'a, 'b>(&self, min: impl IntoOperand<'a>, max: impl IntoOperand<'b>) -> Result<Array> {
        clip(self, min, max)
    }
}

/// NumPy's `round`/`around`.
pub fn round(x: &Array, decimals: i32) -> Result<Array> {
    if x.dtype() == DType::Bool {
        // NumPy has only a float loop for bools: decimals=0 is rint (float16), others fail.
        if decimals == 0 {
            return x.rint();
        }
        return Err(Error::UnsupportedDType { op: "round".into(), dtype: DType::Bool });
    }
    // Complex values round their two parts (NumPy's complex rint), as floats do.
    if !x.dtype().is_float() && !x.dtype().is_complex() {
        if decimals >= 0 {
            return x.copy();
        }
        let f = 10i64.checked_pow((-decimals) as u32).unwrap_or(i64::MAX);
        // Round half to even at a power of ten, in integers: rint(x / f) * f.
        let q = x.astype(DType::Float64)?.true_divide(f as f64)?.rint()?;
        return q.multiply(f as f64)?.astype(x.dtype());
    }
    if decimals == 0 {
        return x.rint();
    }
    let f = 10f64.powi(decimals.abs());
    if decimals > 0 {
        x.multiply(f)?.rint()?.true_divide(f)
    } else {
        x.true_divide(f)?.rint()?.multiply(f)
    }
}

/// NumPy's `clip`.
pub fn clip<'a, 'b>(x: &Array, min: impl IntoOperand<'a>, max: impl IntoOperand<'b>) -> Result<Array> {
    // Integer bounds outside an integer array's range clip nothing on that side (NumPy 2).
    let (min, max) = (min.into_operand()?, max.into_operand()?);
    let (min, max) = (clamp_operand(x.dtype(), min.operand()), clamp_operand(x.dtype(), max.operand()));
    let lo = maximum(x, min)?;
    minimum(&lo, max)
}

fn clamp_operand(dt: DType, b: Operand<'_>) -> Operand<'_> {
    match b {
        Operand::Scalar(s) => Operand::Scalar(clamp_bound(dt, s)),
        b => b,
    }
}

/// A `clip` bound for an array of `dt`: an integer outside an integer dtype's range becomes
/// the range's end on that side (NumPy 2 clips nothing there).
pub(crate) fn clamp_bound(dt: DType, s: Scalar) -> Scalar {
    if let (Some((lo, hi)), Some(v), true) = (dt.int_range(), s.as_i128(), dt.is_integer()) {
        if v < lo {
            return if lo < 0 { Scalar::Int(lo as i64) } else { Scalar::UInt(lo as u64) };
        }
        if v > hi {
            return if hi <= i64::MAX as i128 { Scalar::Int(hi as i64) } else { Scalar::UInt(hi as u64) };
        }
    }
    s
}

/// NumPy's `where(cond, x, y)`: elements of `x` where `cond` is true, else of `y`; all three
/// broadcast together, `x` and `y` promote (scalars weakly).
pub fn where_<'a, 'b>(cond: &Array, x: impl IntoOperand<'a>, y: impl IntoOperand<'b>) -> Result<Array> {
    let (hx, hy) = (x.into_operand()?, y.into_operand()?);
    let (x, y) = (hx.operand(), hy.operand());
    let c = Operand::Array(cond);
    let dev = device_of("where", &[&c, &x, &y])?;
    let dt = where_dtype(x.kind(), y.kind())?;
    let shape = broadcast_shape("where", cond.shape(), x.shape())?;
    let shape = broadcast_shape("where", &shape, y.shape())?;
    let out = Array::alloc(&shape, dt, dev, false)?;
    let cb;
    let cond = if cond.dtype() == DType::Bool {
        cond
    } else {
        cb = cond.astype(DType::Bool)?;
        &cb
    };
    where_into(cond, &x.input(), &y.input(), &out)?;
    Ok(out)
}

/// The dtype of `where(cond, x, y)`: `x` and `y` promoted, scalars weakly.
pub(crate) fn where_dtype(x: Kind, y: Kind) -> Result<DType> {
    Ok(match (x, y) {
        (Kind::Scalar(a), Kind::Scalar(b)) => promote_types(a.default_dtype(), b.default_dtype()),
        (Kind::Arr(a), Kind::Scalar(_)) | (Kind::Scalar(_), Kind::Arr(a)) => match common_dtype(x, y) {
            // NumPy 2's where() casts an out-of-range Python int into the array's dtype
            // (wrapping) rather than raising.
            Err(Error::ScalarOverflow { .. }) => a,
            r => r?,
        },
        _ => common_dtype(x, y)?,
    })
}

/// `isclose`'s and `allclose`'s keywords; `Default` is NumPy's (`rtol=1e-05, atol=1e-08,
/// equal_nan=False`): `&CloseOptions { rtol: 1e-3, ..Default::default() }`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CloseOptions {
    pub rtol: f64,
    pub atol: f64,
    /// NaNs are close to each other.
    pub equal_nan: bool,
}

impl Default for CloseOptions {
    fn default() -> Self {
        CloseOptions { rtol: 1e-5, atol: 1e-8, equal_nan: false }
    }
}

/// NumPy's `isclose(a, b)`: `|a - b| <= atol + rtol * |b|` elementwise with NumPy's defaults;
/// equal infinities are close, NaNs are not.
pub fn isclose(a: &Array, b: &Array) -> Result<Array> {
    isclose_with(a, b, &CloseOptions::default())
}

/// NumPy's `isclose(a, b, rtol=..., atol=..., equal_nan=...)`.
pub fn isclose_with(a: &Array, b: &Array, opts: &CloseOptions) -> Result<Array> {
    let CloseOptions { rtol, atol, equal_nan } = *opts;
    same_device("isclose", a, b)?;
    // As NumPy: y becomes floating (result_type(y, 1.0)), x promotes against it.
    let y = if b.dtype().is_inexact() { b.view() } else { b.astype(DType::Float64)? };
    let diff = a.subtract(&y)?.abs()?;
    let tol = y.abs()?.multiply(rtol)?.add(atol)?;
    let close = diff.less_equal(&tol)?.logical_and(&y.isfinite()?)?;
    let close = close.logical_or(&a.equal(&y)?)?;
    if equal_nan {
        return close.logical_or(&a.isnan()?.logical_and(&y.isnan()?)?);
    }
    Ok(close)
}

/// NumPy's `allclose(a, b)`: whether every element is [`isclose`] (NumPy's tolerances). Arrays
/// on different devices are an error, as in every other operation.
pub fn allclose(a: &Array, b: &Array) -> Result<bool> {
    allclose_with(a, b, &CloseOptions::default())
}

/// NumPy's `allclose(a, b, rtol=..., atol=..., equal_nan=...)`.
pub fn allclose_with(a: &Array, b: &Array, opts: &CloseOptions) -> Result<bool> {
    same_device("allclose", a, b)?;
    broadcast_shape("allclose", a.shape(), b.shape())?;
    isclose_with(a, b, opts)?.all(None)?.item::<bool>()
}

/// NumPy's `array_equal`: same shape and equal elements.
pub fn array_equal(a: &Array, b: &Array) -> Result<bool> {
    same_device("array_equal", a, b)?;
    if a.shape() != b.shape() {
        return Ok(false);
    }
    a.equal(b)?.all(None)?.item::<bool>()
}

// ------------------------------------------------------------------ Rust operators

/// Rust primitive scalars usable on the right of an operator with an [`Array`].
pub trait RustScalar: Copy + sealed::Sealed {
    fn to_scalar(self) -> Scalar;
}
mod sealed {
    pub trait Sealed {}
}
macro_rules! rust_scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl RustScalar for $t { fn to_scalar(self) -> Scalar { self.into() } }
    )*};
}
rust_scalar!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, half::f16);

macro_rules! std_ops {
    ($($tr:ident $m:ident => $f:ident),*) => {$(
        impl std::ops::$tr<&Array> for &Array { type Output = Result<Array>; fn $m(self, r: &Array) -> Result<Array> { $f(self, r) } }
        impl std::ops::$tr<Array> for &Array { type Output = Result<Array>; fn $m(self, r: Array) -> Result<Array> { $f(self, &r) } }
        impl std::ops::$tr<&Array> for Array { type Output = Result<Array>; fn $m(self, r: &Array) -> Result<Array> { $f(&self, r) } }
        impl std::ops::$tr<Array> for Array { type Output = Result<Array>; fn $m(self, r: Array) -> Result<Array> { $f(&self, &r) } }
        // The result of another operation on either side, its error returned: `&a - 3 * &b`,
        // `(&a + &b) * &c`. (A scalar with a `Result` is not possible: Rust's orphan rule
        // forbids `impl Mul<f64> for Result<Array>`; such formulas are `Expr`s.)
        impl std::ops::$tr<Result<Array>> for &Array { type Output = Result<Array>; fn $m(self, r: Result<Array>) -> Result<Array> { $f(self, r) } }
        impl std::ops::$tr<Result<Array>> for Array { type Output = Result<Array>; fn $m(self, r: Result<Array>) -> Result<Array> { $f(self, r) } }
        impl std::ops::$tr<&Array> for Result<Array> { type Output = Result<Array>; fn $m(self, r: &Array) -> Result<Array> { $f(self, r) } }
        impl std::ops::$tr<Array> for Result<Array> { type Output = Result<Array>; fn $m(self, r: Array) -> Result<Array> { $f(self, r) } }
        std_ops!(@scalar $tr $m $f; bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
    )*};
    (@scalar $tr:ident $m:ident $f:ident; $($t:ty),*) => {
        // A scalar on the right: generic, so that a bare literal (`x * 2`, `x * 0.5`) needs no
        // suffix; scalars are weak, so `f32_array * 2.0` stays float32.
        impl<T: RustScalar> std::ops::$tr<T> for &Array { type Output = Result<Array>; fn $m(self, r: T) -> Result<Array> { $f(self, r.to_scalar()) } }
        impl<T: RustScalar> std::ops::$tr<T> for Array { type Output = Result<Array>; fn $m(self, r: T) -> Result<Array> { $f(&self, r.to_scalar()) } }
        // A scalar on the left: only `f64` and `i64`, so that a bare literal (`-0.5 * x`,
        // `2 * x`) has one impl to pick.
        std_ops!(@left $tr $m $f; f64, i64);
    };
    (@left $tr:ident $m:ident $f:ident; $($t:ty),*) => {$(
        impl std::ops::$tr<&Array> for $t { type Output = Result<Array>; fn $m(self, r: &Array) -> Result<Array> { $f(self, r) } }
        impl std::ops::$tr<Array> for $t { type Output = Result<Array>; fn $m(self, r: Array) -> Result<Array> { $f(self, &r) } }
    )*};
}
std_ops!(Add add => add, Sub sub => subtract, Mul mul => multiply, Div div => true_divide, Rem rem => remainder,
         BitAnd bitand => bitwise_and, BitOr bitor => bitwise_or, BitXor bitxor => bitwise_xor,
         Shl shl => left_shift, Shr shr => right_shift);

impl std::ops::Neg for &Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        negative(self)
    }
}
impl std::ops::Neg for Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        negative(&self)
    }
}
impl std::ops::Not for &Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        invert(self)
    }
}
impl std::ops::Not for Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        invert(&self)
    }
}

// ---------------------------------------------------------------- dispatch
//
// The elementwise primitives every family builds on, sent to the CPU or the CUDA
// implementation by the device of the output array. Callers have checked shapes, dtypes and
// devices.

/// An input of an elementwise operation: an [`Operand`] whose scalar is already resolved to
/// the loop dtype (an array is broadcast to the output).
pub(crate) type Input<'a> = Operand<'a>;

fn cpu_input(x: &Input<'_>, loop_dt: DType) -> Result<Array> {
    match x {
        Input::Array(a) => Ok(a.view()),
        Input::Scalar(s) => Array::scalar_cpu(*s, loop_dt),
    }
}

pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::assign(out, src),
        Device::Cuda(_) => cuda::assign(out, src),
    }
}

pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::fill(out, v),
        Device::Cuda(_) => cuda::fill(out, v),
    }
}

/// The array methods that are the assign and fill loops: copies, casts and writes.
impl Array {
    /// A C-contiguous copy on the same device.
    pub fn copy(&self) -> Result<Array> {
        let out = Array::alloc(&self.shape, self.dtype, self.device(), false)?;
        assign(&out, self)?;
        Ok(out)
    }

    /// A copy with elements cast to `dtype` (NumPy's `astype`, unsafe casting), with NumPy's
    /// values on x86-64 on every device: integers wrap; floats round to nearest even; anything
    /// into bool tests for non-zero (NaN is true); floats into integers truncate toward zero
    /// where the value fits, and otherwise give what NumPy's C casts give on x86-64 (not a
    /// saturated value):
    ///
    /// - int32 and int64: NaN, infinities and out-of-range values give `i32::MIN` / `i64::MIN`;
    /// - int8, int16, uint8, uint16: the low bits of the int32 conversion (NaN gives 0, 300.0
    ///   into int8 44, -1.0 into uint8 255);
    /// - uint32: the low 32 bits of the int64 conversion (NaN and infinities give 0); this is
    ///   NumPy's element-wise loop, its contiguous SIMD loop gives other values for floats out
    ///   of uint32's range;
    /// - uint64: values from 2**63 up convert exactly below 2**64 (others give 0), lower ones
    ///   through int64 (-1.0 gives `u64::MAX`, NaN and -inf 2**63).
    ///
    /// ```
    /// use cuprum::{Device, DType};
    /// let x = cuprum::from_vec(vec![f64::NAN, f64::INFINITY, -1.7, 300.0], &Device::Cpu)?;
    /// assert_eq!(x.astype(DType::Int32)?.to_vec::<i32>()?, vec![i32::MIN, i32::MIN, -1, 300]);
    /// assert_eq!(x.astype(DType::Int8)?.to_vec::<i8>()?, vec![0, 0, -1, 44]);
    /// assert_eq!(x.astype(DType::UInt64)?.to_vec::<u64>()?, vec![1 << 63, 0, u64::MAX, 300]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        let out = Array::alloc(&self.shape, dtype, self.device(), false)?;
        assign(&out, self)?;
        Ok(out)
    }

    /// [`astype`](Self::astype) checked against a casting rule.
    pub fn astype_with(&self, dtype: DType, casting: crate::core::dtype::Casting) -> Result<Array> {
        if !crate::core::dtype::can_cast(self.dtype, dtype, casting) {
            return Err(Error::Type(format!(
                "cannot cast array data from {} to {} according to the rule {:?}",
                self.dtype, dtype, casting
            )));
        }
        self.astype(dtype)
    }

    /// Sets every element (of this view) to `value`.
    pub fn fill(&mut self, value: impl Into<Scalar>) -> Result<()> {
        let value = value.into();
        // NumPy's conversions of a Python scalar to the element type: a complex value into a real
        // dtype is a TypeError, a NaN into an integer dtype a ValueError, an infinity or a float
        // beyond int64 an OverflowError.
        match value {
            Scalar::Complex(..) if !self.dtype.is_complex() => {
                return Err(Error::Type("float() argument must be a string or a real number, not 'complex'".into()));
            }
            Scalar::Float(f) if self.dtype.is_integer() && f.is_nan() => {
                return Err(Error::Value("cannot convert float NaN to integer".into()));
            }
            Scalar::Float(f) if self.dtype.is_integer() && f.is_infinite() => {
                return Err(Error::Overflow("cannot convert float infinity to integer".into()));
            }
            // [-2^63, 2^63): the floats that fit int64.
            Scalar::Float(f) if self.dtype.is_integer() && !(i64::MIN as f64..-(i64::MIN as f64)).contains(&f) => {
                return Err(Error::Overflow("Python int too large to convert to C long".into()));
            }
            _ => {}
        }
        // A Rust integer must fit an integer dtype (NumPy 2 raises OverflowError).
        if let (Some(v), Some((lo, hi))) = (value.as_i128(), self.dtype.int_range()) {
            if self.dtype.is_integer() && (v < lo || v > hi) {
                return Err(Error::ScalarOverflow { value: v.to_string(), dtype: self.dtype });
            }
        }
        fill(self, value)
    }

    /// `self[...] = src`: copies `src` (broadcast to this shape, cast to this dtype) into this
    /// array or view. `src` must be on the same device.
    pub fn assign(&mut self, src: &Array) -> Result<()> {
        same_device("assign", self, src)?;
        src.strides_to(&self.shape, "assign")?;
        // Overlapping source and destination (e.g. a[1:] = a[:-1]) go through a copy.
        if self.shares_storage(src) {
            let tmp = src.copy()?;
            return assign(self, &tmp);
        }
        assign(self, src)
    }
}

pub(crate) fn unary_into(op: UnaryOp, loop_dt: DType, x: &Array, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::unary(op, loop_dt, x, out),
        Device::Cuda(_) => cuda::unary(op, loop_dt, x, out),
    }
}

pub(crate) fn binary_into(op: BinaryOp, loop_dt: DType, a: &Input<'_>, b: &Input<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => {
            let (a, b) = (cpu_input(a, loop_dt)?, cpu_input(b, loop_dt)?);
            cpu::binary(op, loop_dt, &a, &b, out)
        }
        Device::Cuda(_) => cuda::binary(op, loop_dt, a, b, out),
    }
}

pub(crate) fn where_into(cond: &Array, x: &Input<'_>, y: &Input<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => {
            let (x, y) = (cpu_input(x, out.dtype())?, cpu_input(y, out.dtype())?);
            cpu::where_(cond, &x, &y, out)
        }
        Device::Cuda(_) => cuda::where_(cond, x, y, out),
    }
}

/// What [`iota`] writes at element `k` of its output.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Ramp {
    /// `start + k * step` in float64, the last element `last` where given (`linspace`'s end).
    Float { start: f64, step: f64, last: Option<f64> },
    /// `start + k * step` in int64, exactly (wrapping as NumPy's int64 arithmetic): integer
    /// bounds past 2^53 are not rounded through a float.
    Int { start: i64, step: i64 },
}

/// Fills the fresh, C-contiguous 1-d `out` with `ramp`: in float64 for a float output, in int64
/// for any other (a float ramp's start and step truncated, as before).
pub(crate) fn iota(out: &Array, ramp: Ramp) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    let ramp = match (ramp, out.dtype().is_float()) {
        (Ramp::Int { start, step }, true) => Ramp::Float { start: start as f64, step: step as f64, last: None },
        (Ramp::Float { start, step, .. }, false) => Ramp::Int { start: start as i64, step: step as i64 },
        (r, _) => r,
    };
    match out.device() {
        Device::Cpu => cpu::iota(out, ramp),
        Device::Cuda(_) => cuda::iota(out, ramp),
    }
}
