//! Formulas without a `?` per operator: [`Expr`], an elementwise expression that carries its
//! first error to [`Expr::eval`].
//!
//! Operators on `&Array` return `Result<Array>` (an operation can fail: shapes that do not
//! broadcast, arrays on two devices, a dtype a ufunc has no loop for), so a NumPy formula such
//! as `np.exp(-((dst - muu)**2 / (2.0 * sigma**2)))` needs a `?` after every step:
//!
//! ```text
//! (-((&dst - muu)?.power(2)? / (2.0 * sigma.powi(2)))?)?.exp()?
//! ```
//!
//! The operators cannot be implemented on `Result<Array>` itself: Rust's orphan rule forbids
//! `impl Sub<f64> for Result<Array>` outside the crates that define `Sub`, `f64` or `Result`.
//! Hence a type of cuprum's own, [`Expr`]: made from an `&Array` (`x.expr()`), an `Array` or a
//! `Result<Array>` (`Expr::from(r)`), combined with operators (`+ - * / %`, unary `-`) with
//! other `Expr`s, arrays and Rust scalars on either side, and with methods for every unary
//! ufunc, powers, `maximum`/`minimum`/`clip`, comparisons, [`Expr::where_`] and the common
//! reductions. The formula reads as NumPy's, with one `?` at the end:
//!
//! ```
//! let dev = cuprum::Device::default_device();
//! let dst = cuprum::linspace(0.0, 4.0, 5, cuprum::DType::Float64, &dev)?;
//! let (muu, sigma) = (1.0, 0.5);
//! // np.exp(-((dst - muu)**2 / (2.0 * sigma**2)))
//! let g = (-(dst.expr() - muu).powi(2) / (2.0 * sigma * sigma)).exp().eval()?;
//! let step = (-((&dst - muu)?.power(2)? / (2.0 * sigma * sigma))?)?.exp()?;
//! assert!(cuprum::array_equal(&g, &step)?);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! **Errors surface at [`eval`](Expr::eval)**: an operation that fails in the middle of a
//! formula makes the whole expression that error (the first one, in Rust's evaluation order);
//! what follows it is not computed. The error is the one the step-by-step code would return,
//! with the same [`ErrorKind`](crate::ErrorKind).
//!
//! Semantics are the operations' own: NumPy 2's promotion, Rust scalars weak as Python's
//! (`f32_array.expr() * 2.0` stays float32), broadcasting, the device of the arrays.
//!
//! **A formula is fused** ([`mod@crate::fuse`]): building an `Expr` resolves each step's dtype,
//! shape and device without computing anything, and `eval` computes the whole formula as one
//! kernel on the GPU (one pass in blocks on the CPU), with the dtypes and the bits the
//! step-by-step code gives. The reductions (`sum`, `mean`, ...) and [`Expr::and_then`] compute
//! the formula before them first. [`fuse`](crate::fuse()) makes a function of arrays from a
//! closure over `Expr`s, as `cupy.fuse`.

use crate::array::Array;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::Result;
use crate::core::layout::Axes;
use crate::fuse::{self, NodeRef, Side};
use crate::reduce::VarOptions;
use crate::ufunc::{BinaryOp, ReduceOp, RustScalar, UnaryOp};

/// An elementwise formula over arrays and Rust scalars, evaluated by [`eval`](Expr::eval),
/// which returns the result or the first error (see the [module docs](self)).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(4, &dev)?.astype(cuprum::DType::Float32)?;
/// let b = cuprum::from_vec(vec![1.0f32, 1.0, 2.0, 2.0], &dev)?;
/// let y = ((a.expr() * 2 + &b).sqrt() - 1).maximum(0.5).eval()?;    // np.maximum(np.sqrt(a*2 + b) - 1, 0.5)
/// assert_eq!(y.dtype(), cuprum::DType::Float32);                   // Rust scalars are weak
/// let want = cuprum::from_vec(vec![0.5f32, 0.7320508, 1.4494898, 1.8284271], &dev)?;
/// assert!(cuprum::allclose_with(&y, &want, &cuprum::CloseOptions { rtol: 1e-6, atol: 0.0, ..Default::default() })?);
/// // A shape error in the middle surfaces at eval, with NumPy's kind.
/// let bad = (a.expr() + &cuprum::zeros(&[3], cuprum::DType::Float32, &dev)?).exp() * 2.0;
/// assert_eq!(bad.eval().unwrap_err().kind(), cuprum::ErrorKind::ValueError);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Debug)]
#[must_use = "an Expr does nothing until it is evaluated with .eval()"]
pub struct Expr {
    node: Result<NodeRef>,
}

impl Expr {
    /// The result of the formula (computed now, fused: one kernel on the GPU, one pass on the
    /// CPU), or the first error met while forming it.
    pub fn eval(self) -> Result<Array> {
        fuse::eval(&self.node?)
    }

    /// Applies `f` to the value (a step without an `Expr` method, e.g. `cumsum`), keeping the
    /// chain: `x.expr().exp().and_then(|a| a.cumsum(0)).eval()?`. The formula so far is
    /// computed first; its result enters what follows as an array.
    pub fn and_then(self, f: impl FnOnce(Array) -> Result<Array>) -> Expr {
        Expr::from(self.eval().and_then(f))
    }

    /// The formula's tree (or its first error).
    #[cfg(test)]
    pub(crate) fn node(self) -> Result<NodeRef> {
        self.node
    }

    fn with(self, f: impl FnOnce(NodeRef) -> Result<NodeRef>) -> Expr {
        Expr { node: self.node.and_then(f) }
    }

    fn unary(self, op: UnaryOp) -> Expr {
        self.with(|n| fuse::unary(op, n))
    }

    fn binary(self, op: BinaryOp, rhs: impl ExprArg) -> Expr {
        self.with(|a| fuse::binary(op, Side::Node(a), side(rhs)?))
    }

    /// A Rust scalar on the left, the expression on the right.
    fn binary_left(lhs: Scalar, op: BinaryOp, rhs: Expr) -> Expr {
        rhs.with(|b| fuse::binary(op, Side::Scalar(lhs), Side::Node(b)))
    }

    /// The unary ufunc `op` (as [`ufunc::unary`](crate::ufunc::unary)): `x.expr().unary_ufunc(UnaryOp::Exp)`
    /// is `x.expr().exp()`.
    pub fn unary_ufunc(self, op: UnaryOp) -> Expr {
        self.unary(op)
    }

    /// The binary ufunc `op` (as [`ufunc::binary`](crate::ufunc::binary)), `other` an
    /// expression, an array or a scalar.
    pub fn binary_ufunc(self, op: BinaryOp, other: impl ExprArg) -> Expr {
        self.binary(op, other)
    }

    /// `self op s` for a weak scalar of any kind (what a Python scalar is in the bindings).
    pub fn binary_scalar(self, op: BinaryOp, s: Scalar) -> Expr {
        self.with(|a| fuse::binary(op, Side::Node(a), Side::Scalar(s)))
    }

    /// `s op rhs` for a weak scalar `s` of any kind on the left.
    pub fn scalar_binary(s: Scalar, op: BinaryOp, rhs: Expr) -> Expr {
        Expr::binary_left(s, op, rhs)
    }

    /// `self ** n` for an integer `n` (NumPy's `x**2` with a Python int: weak, so float32 stays
    /// float32 and integers stay integers; a negative `n` of an integer array is NumPy's error).
    pub fn powi(self, n: i32) -> Expr {
        self.binary(BinaryOp::Power, n)
    }

    /// `self ** p` for a float `p` (weak: a float32 array stays float32; integers become
    /// float64).
    pub fn powf(self, p: f64) -> Expr {
        self.binary(BinaryOp::Power, p)
    }

    /// NumPy's `power(self, other)`, `other` an expression, an array or a scalar.
    pub fn power(self, other: impl ExprArg) -> Expr {
        self.binary(BinaryOp::Power, other)
    }

    /// NumPy's `clip(self, lo, hi)`: `minimum(maximum(self, lo), hi)`; NaN propagates.
    pub fn clip(self, lo: impl ExprArg, hi: impl ExprArg) -> Expr {
        self.with(|x| fuse::clip(x, side(lo)?, side(hi)?))
    }

    /// NumPy's `where(self, x, y)` with `self` the condition: elements of `x` where it is true,
    /// else of `y` (all three broadcast; `x` and `y` promote, scalars weakly).
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let x = cuprum::from_vec(vec![-2.0, 0.5, 3.0], &dev)?;
    /// let y = x.expr().greater(0.0).where_(x.expr().log(), f64::NEG_INFINITY).eval()?;
    /// assert_eq!(y.to_vec::<f64>()?, vec![f64::NEG_INFINITY, 0.5f64.ln(), 3.0f64.ln()]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn where_(self, x: impl ExprArg, y: impl ExprArg) -> Expr {
        self.with(|c| fuse::where_(c, side(x)?, side(y)?))
    }

    /// NumPy's `astype(dtype)` (unsafe casting, as NumPy's default).
    pub fn astype(self, dtype: DType) -> Expr {
        self.with(|x| fuse::astype(x, dtype))
    }

    /// NumPy's `round(decimals)` (half to even).
    pub fn round(self, decimals: i32) -> Expr {
        self.with(|x| fuse::round(x, decimals))
    }

    /// NumPy's `var(axis)` (`ddof = 0`; fused with the formula before it: [`mod@crate::fuse`]).
    pub fn var(self, axis: impl Into<Axes>) -> Expr {
        self.var_with(axis, &VarOptions::default())
    }

    /// NumPy's `std(axis)` (`ddof = 0`; fused with the formula before it).
    pub fn std(self, axis: impl Into<Axes>) -> Expr {
        self.std_with(axis, &VarOptions::default())
    }

    /// NumPy's `var(axis, ddof=..., keepdims=...)`.
    pub fn var_with(self, axis: impl Into<Axes>, opts: &VarOptions) -> Expr {
        self.reduce_keep(ReduceOp::Var, axis.into(), opts.ddof, opts.keepdims)
    }

    /// NumPy's `std(axis, ddof=..., keepdims=...)`.
    ///
    /// ```
    /// let x = cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0], &cuprum::Device::default_device())?.reshape([2, 2])?;
    /// let opts = cuprum::VarOptions { ddof: 1.0, keepdims: true };
    /// let s = (x.expr() * 2.0).std_with(1, &opts).eval()?;
    /// assert_eq!((s.shape(), s.to_vec::<f64>()?), (&[2usize, 1][..], vec![2f64.sqrt(); 2]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn std_with(self, axis: impl Into<Axes>, opts: &VarOptions) -> Expr {
        self.reduce_keep(ReduceOp::Std, axis.into(), opts.ddof, opts.keepdims)
    }

    /// A reduction of the formula: computed now (with the formula where it can be, see
    /// [`mod@crate::fuse`]), its result an array for what follows.
    fn reduce(self, op: ReduceOp, axis: Axes, ddof: f64) -> Expr {
        self.reduce_keep(op, axis, ddof, false)
    }

    /// [`reduce`](Self::reduce), the reduced axes kept with length 1 when `keepdims`.
    fn reduce_keep(self, op: ReduceOp, axis: Axes, ddof: f64, keepdims: bool) -> Expr {
        Expr::from(self.node.and_then(|n| {
            let shape = n.shape.clone();
            let r = fuse::reduce(n, op, axis.clone(), ddof)?;
            if keepdims {
                r.reshape(crate::core::layout::keepdims_shape(&shape, &axis.resolve(shape.len())?))
            } else {
                Ok(r)
            }
        }))
    }
}

/// One side of an operation as a formula's node or a scalar.
fn side(x: impl ExprArg) -> Result<Side> {
    Ok(match x.term() {
        Term::Expr(e) => Side::Node(e.node?),
        Term::Scalar(s) => Side::Scalar(s),
    })
}

macro_rules! expr_unary {
    ($($name:ident => $op:ident),* $(,)?) => {
        impl Expr {$(
            #[doc = concat!("NumPy's `", stringify!($name), "(self)`.")]
            pub fn $name(self) -> Expr {
                self.unary(UnaryOp::$op)
            }
        )*}
    };
}
expr_unary! {
    negative => Negative, positive => Positive, abs => Absolute, absolute => Absolute, sign => Sign,
    square => Square, sqrt => Sqrt, cbrt => Cbrt, reciprocal => Reciprocal, exp => Exp, exp2 => Exp2,
    expm1 => Expm1, log => Log, log2 => Log2, log10 => Log10, log1p => Log1p, sin => Sin, cos => Cos,
    tan => Tan, arcsin => Arcsin, arccos => Arccos, arctan => Arctan, sinh => Sinh, cosh => Cosh,
    tanh => Tanh, floor => Floor, ceil => Ceil, rint => Rint, trunc => Trunc, logical_not => LogicalNot,
    invert => Invert, isnan => IsNan, isinf => IsInf, isfinite => IsFinite, conj => Conjugate,
    conjugate => Conjugate,
}

impl Expr {
    /// SciPy's `scipy.special.erf(self)`.
    pub fn erf(self) -> Expr {
        self.unary(UnaryOp::Erf)
    }
    /// SciPy's `scipy.special.erfc(self)`.
    pub fn erfc(self) -> Expr {
        self.unary(UnaryOp::Erfc)
    }
    /// SciPy's `scipy.special.ndtr(self)` (the standard normal CDF).
    pub fn ndtr(self) -> Expr {
        self.unary(UnaryOp::Ndtr)
    }
    /// SciPy's `scipy.special.ndtri(self)` (its inverse).
    pub fn ndtri(self) -> Expr {
        self.unary(UnaryOp::Ndtri)
    }
}

macro_rules! expr_binary {
    ($($name:ident => $op:ident),* $(,)?) => {
        impl Expr {$(
            #[doc = concat!("NumPy's `", stringify!($name), "(self, other)`, `other` an expression, an array or a scalar.")]
            pub fn $name(self, other: impl ExprArg) -> Expr {
                self.binary(BinaryOp::$op, other)
            }
        )*}
    };
}
expr_binary! {
    maximum => Maximum, minimum => Minimum, fmax => Fmax, fmin => Fmin, arctan2 => Arctan2, hypot => Hypot,
    floor_divide => FloorDivide, remainder => Remainder,
    equal => Equal, not_equal => NotEqual, less => Less, less_equal => LessEqual, greater => Greater,
    greater_equal => GreaterEqual, logical_and => LogicalAnd, logical_or => LogicalOr, logical_xor => LogicalXor,
}

macro_rules! expr_reduce {
    ($($name:ident => $op:ident),* $(,)?) => {
        impl Expr {$(
            #[doc = concat!("NumPy's `", stringify!($name), "(axis)` (`None`, one axis or several: [`Axes`]).")]
            pub fn $name(self, axis: impl Into<Axes>) -> Expr {
                self.reduce(ReduceOp::$op, axis.into(), 0.0)
            }
        )*}
    };
}
expr_reduce!(sum => Sum, prod => Prod, mean => Mean, min => Min, max => Max, any => Any, all => All, argmin => ArgMin, argmax => ArgMax);

// ------------------------------------------------------------------ conversions

impl From<&Array> for Expr {
    fn from(a: &Array) -> Self {
        Expr { node: Ok(fuse::leaf(a.view())) }
    }
}
impl From<Array> for Expr {
    fn from(a: Array) -> Self {
        Expr { node: Ok(fuse::leaf(a)) }
    }
}
impl From<Result<Array>> for Expr {
    fn from(value: Result<Array>) -> Self {
        Expr { node: value.map(fuse::leaf) }
    }
}
impl From<Expr> for Result<Array> {
    fn from(e: Expr) -> Self {
        e.eval()
    }
}

impl Array {
    /// This array as the start of a formula ([`Expr`]; a view, nothing is copied):
    /// `(x.expr() - mu).powi(2).exp().eval()?`.
    pub fn expr(&self) -> Expr {
        Expr::from(self)
    }
}

/// One side of an [`Expr`] operation: an `Expr` (or `&Expr`), an `&Array`, an `Array`, a
/// `Result<Array>`, or a Rust scalar (weak, as Python's).
pub trait ExprArg: sealed::Sealed {
    #[doc(hidden)]
    fn term(self) -> Term;
}

/// What an [`ExprArg`] stands for (an implementation detail of the operators).
#[doc(hidden)]
pub enum Term {
    Expr(Expr),
    Scalar(Scalar),
}

mod sealed {
    pub trait Sealed {}
}

impl sealed::Sealed for Expr {}
impl ExprArg for Expr {
    fn term(self) -> Term {
        Term::Expr(self)
    }
}
impl sealed::Sealed for &Expr {}
impl ExprArg for &Expr {
    fn term(self) -> Term {
        Term::Expr(self.clone())
    }
}
impl sealed::Sealed for &Array {}
impl ExprArg for &Array {
    fn term(self) -> Term {
        Term::Expr(Expr::from(self))
    }
}
impl sealed::Sealed for Array {}
impl ExprArg for Array {
    fn term(self) -> Term {
        Term::Expr(Expr::from(self))
    }
}
impl sealed::Sealed for Result<Array> {}
impl ExprArg for Result<Array> {
    fn term(self) -> Term {
        Term::Expr(Expr::from(self))
    }
}
impl sealed::Sealed for Term {}
impl ExprArg for Term {
    fn term(self) -> Term {
        self
    }
}
macro_rules! expr_arg_scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ExprArg for $t { fn term(self) -> Term { Term::Scalar(RustScalar::to_scalar(self)) } }
    )*};
}
expr_arg_scalar!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, half::f16);

// ------------------------------------------------------------------ operators

macro_rules! expr_ops {
    ($($tr:ident $m:ident => $op:ident),*) => {$(
        impl<R: ExprArg> std::ops::$tr<R> for Expr {
            type Output = Expr;
            fn $m(self, r: R) -> Expr { self.binary(BinaryOp::$op, r) }
        }
        impl<R: ExprArg> std::ops::$tr<R> for &Expr {
            type Output = Expr;
            fn $m(self, r: R) -> Expr { self.clone().binary(BinaryOp::$op, r) }
        }
        // An array on the left: `&a + e`.
        impl std::ops::$tr<Expr> for &Array {
            type Output = Expr;
            fn $m(self, r: Expr) -> Expr { self.expr().binary(BinaryOp::$op, r) }
        }
        impl std::ops::$tr<Expr> for Array {
            type Output = Expr;
            fn $m(self, r: Expr) -> Expr { Expr::from(self).binary(BinaryOp::$op, r) }
        }
        // A `Result<Array>` on the left (allowed by the orphan rule: the right side is ours).
        impl std::ops::$tr<Expr> for Result<Array> {
            type Output = Expr;
            fn $m(self, r: Expr) -> Expr { Expr::from(self).binary(BinaryOp::$op, r) }
        }
        // A scalar on the left: `f64` and `i64` only, so that a bare literal (`2.0 * e`,
        // `1 - e`) has one impl to pick.
        impl std::ops::$tr<Expr> for f64 {
            type Output = Expr;
            fn $m(self, r: Expr) -> Expr { Expr::binary_left(self.into(), BinaryOp::$op, r) }
        }
        impl std::ops::$tr<Expr> for i64 {
            type Output = Expr;
            fn $m(self, r: Expr) -> Expr { Expr::binary_left(self.into(), BinaryOp::$op, r) }
        }
    )*};
}
expr_ops!(Add add => Add, Sub sub => Subtract, Mul mul => Multiply, Div div => TrueDivide, Rem rem => Remainder,
          BitAnd bitand => BitwiseAnd, BitOr bitor => BitwiseOr, BitXor bitxor => BitwiseXor);

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.unary(UnaryOp::Negative)
    }
}
impl std::ops::Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.clone().unary(UnaryOp::Negative)
    }
}
impl std::ops::Not for Expr {
    type Output = Expr;
    fn not(self) -> Expr {
        self.unary(UnaryOp::Invert)
    }
}

// ------------------------------------------------------------------ cupy.fuse

/// A formula of `N` arrays compiled once per dtypes and layout ([`fuse`](fuse())).
pub struct Fused<const N: usize, F> {
    f: F,
}

/// CuPy's `cupy.fuse`: a function of `N` arrays from a closure over [`Expr`]s, computed as one
/// kernel on the GPU and in one pass on the CPU (see [`Expr::eval`]).
///
/// The closure takes its arguments as an array pattern and returns the formula; scalars it
/// captures are kernel parameters, so a formula in a loop with a changing constant compiles
/// once. Results have the dtypes and the values the unfused operations give.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(10_000, &dev)?;
/// let y = cuprum::flip(&x, None)?;
/// // @cp.fuse def squared_diff(x, y): return (x - y) * (x - y)
/// let squared_diff = cuprum::fuse(|[x, y]| (&x - &y) * (&x - &y));
/// let z = squared_diff.call([&x, &y])?;
/// let unfused = ((&x - &y)? * (&x - &y)?)?;
/// assert!(cuprum::array_equal(&z, &unfused)?);
/// assert_eq!(z.dtype(), cuprum::DType::Int64);
/// # Ok::<(), cuprum::Error>(())
/// ```
///
/// A closure that returns something other than an [`Expr`] (a number, an `Array`, a
/// `Result`) does not compile:
///
/// ```compile_fail
/// let f = cuprum::fuse(|[x]: [cuprum::Expr; 1]| 2.0f32);
/// ```
///
/// ```compile_fail
/// let dev = cuprum::Device::Cpu;
/// let a = cuprum::ones(&[3], cuprum::DType::Float32, &dev).unwrap();
/// let f = cuprum::fuse(|[x]: [cuprum::Expr; 1]| a.exp());
/// ```
pub fn fuse<const N: usize, F: Fn([Expr; N]) -> Expr>(f: F) -> Fused<N, F> {
    Fused { f }
}

impl<const N: usize, F: Fn([Expr; N]) -> Expr> Fused<N, F> {
    /// The formula on these arrays (broadcast together; one device).
    pub fn call(&self, args: [&Array; N]) -> Result<Array> {
        (self.f)(args.map(Expr::from)).eval()
    }
}

impl<const N: usize, F> std::fmt::Debug for Fused<N, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fused<{N}>")
    }
}
