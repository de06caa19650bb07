//! Data types, NumPy 2 type promotion (including weak Rust scalars, NEP 50) and the
//! [`Element`] trait that ties Rust types to dtypes.

use crate::core::error::{Error, Result};
use half::f16;
use num_complex::Complex;
use std::fmt;

/// The element type of an [`Array`](crate::Array), named as in NumPy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    /// Two float32s, real and imaginary part (`num_complex::Complex<f32>`).
    Complex64,
    /// Two float64s (`num_complex::Complex<f64>`).
    Complex128,
}

/// Every dtype, in NumPy's order of `np.typecodes`.
pub const ALL_DTYPES: [DType; 14] = [
    DType::Bool,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// The dtypes before complex numbers came: every real dtype (what the families that have no
/// complex loops accept). `ALL_DTYPES` without its last two, the complex ones.
pub const REAL_DTYPES: [DType; 12] = {
    let mut real = [DType::Bool; 12];
    let mut k = 0;
    while k < 12 {
        real[k] = ALL_DTYPES[k];
        k += 1;
    }
    assert!(matches!(ALL_DTYPES[12], DType::Complex64) && matches!(ALL_DTYPES[13], DType::Complex128));
    real
};

/// The kind of a dtype, as NumPy's `dtype.kind`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Bool,
    UInt,
    Int,
    Float,
    Complex,
}

impl DType {
    /// Size of one element in bytes.
    pub const fn itemsize(self) -> usize {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 => 8,
            Complex128 => 16,
        }
    }

    /// NumPy's name of the dtype (`"float32"`).
    pub const fn name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
        }
    }

    /// Parses NumPy's names and one-letter codes (`"f4"`, `"<f4"` and `"float32"` alike).
    pub fn from_name(s: &str) -> Option<DType> {
        use DType::*;
        let s = s.trim_start_matches(['<', '=', '|']);
        Some(match s {
            "bool" | "?" | "b1" => Bool,
            "int8" | "i1" | "b" => Int8,
            "int16" | "i2" | "h" => Int16,
            "int32" | "i4" | "i" => Int32,
            "int64" | "i8" | "l" | "q" => Int64,
            "uint8" | "u1" | "B" => UInt8,
            "uint16" | "u2" | "H" => UInt16,
            "uint32" | "u4" | "I" => UInt32,
            "uint64" | "u8" | "L" | "Q" => UInt64,
            "float16" | "f2" | "e" => Float16,
            "float32" | "f4" | "f" => Float32,
            "float64" | "f8" | "d" => Float64,
            "complex64" | "c8" | "F" => Complex64,
            "complex128" | "c16" | "D" | "complex" => Complex128,
            _ => return None,
        })
    }

    /// NumPy's array-protocol type string (`"<f4"`), as written in `.npy` headers.
    pub const fn descr(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "|b1",
            Int8 => "|i1",
            Int16 => "<i2",
            Int32 => "<i4",
            Int64 => "<i8",
            UInt8 => "|u1",
            UInt16 => "<u2",
            UInt32 => "<u4",
            UInt64 => "<u8",
            Float16 => "<f2",
            Float32 => "<f4",
            Float64 => "<f8",
            Complex64 => "<c8",
            Complex128 => "<c16",
        }
    }

    pub const fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 => Kind::Int,
            UInt8 | UInt16 | UInt32 | UInt64 => Kind::UInt,
            Float16 | Float32 | Float64 => Kind::Float,
            Complex64 | Complex128 => Kind::Complex,
        }
    }

    /// complex64 or complex128.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), Kind::Complex)
    }
    /// Float or complex (NumPy's `np.inexact`).
    pub const fn is_inexact(self) -> bool {
        matches!(self.kind(), Kind::Float | Kind::Complex)
    }
    /// The dtype of the real and imaginary parts (complex64 -> float32); other dtypes are their
    /// own (`np.real(x).dtype`).
    pub const fn real_dtype(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }
    /// The complex dtype whose parts hold this dtype's values (float32 -> complex64, float64
    /// and the integers -> complex128, as `np.promote_types(dt, complex64)`).
    pub fn to_complex(self) -> DType {
        match self {
            DType::Complex64 | DType::Complex128 => self,
            _ => promote_types(self, DType::Complex64),
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(self.kind(), Kind::Float)
    }
    /// Signed or unsigned integer (not bool).
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }
    pub const fn is_signed_int(self) -> bool {
        matches!(self.kind(), Kind::Int)
    }
    pub const fn is_unsigned_int(self) -> bool {
        matches!(self.kind(), Kind::UInt)
    }
    pub const fn is_bool(self) -> bool {
        matches!(self, DType::Bool)
    }

    fn signed_of_size(bytes: usize) -> DType {
        match bytes {
            1 => DType::Int8,
            2 => DType::Int16,
            4 => DType::Int32,
            _ => DType::Int64,
        }
    }

    /// The smallest float that holds every value of this dtype (NumPy's safe cast target);
    /// complex dtypes are their own (the first inexact loop they cast to).
    pub fn smallest_float(self) -> DType {
        match self.kind() {
            Kind::Float | Kind::Complex => self,
            Kind::Bool => DType::Float16,
            _ => match self.itemsize() {
                1 => DType::Float16,
                2 => DType::Float32,
                _ => DType::Float64,
            },
        }
    }

    /// The accumulator dtype NumPy uses for `sum`/`prod`/`cumsum`: small signed ints and bool
    /// go to int64, small unsigned to uint64, floats stay.
    pub fn sum_dtype(self) -> DType {
        match self.kind() {
            Kind::Bool | Kind::Int => DType::Int64,
            Kind::UInt => DType::UInt64,
            Kind::Float | Kind::Complex => self,
        }
    }

    /// Largest and smallest finite value (as f64) for integer dtypes.
    pub fn int_range(self) -> Option<(i128, i128)> {
        use DType::*;
        Some(match self {
            Bool => (0, 1),
            Int8 => (i8::MIN as i128, i8::MAX as i128),
            Int16 => (i16::MIN as i128, i16::MAX as i128),
            Int32 => (i32::MIN as i128, i32::MAX as i128),
            Int64 => (i64::MIN as i128, i64::MAX as i128),
            UInt8 => (0, u8::MAX as i128),
            UInt16 => (0, u16::MAX as i128),
            UInt32 => (0, u32::MAX as i128),
            UInt64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }
}

/// The error of an operation that has no complex implementation yet (NumPy has one): a
/// `NotImplementedError` naming the operation and the dtype.
pub(crate) fn no_complex(op: &str, dt: DType) -> Result<()> {
    if dt.is_complex() {
        return Err(Error::NotImplemented(format!("{op}: {dt} input is not supported yet")));
    }
    Ok(())
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// NumPy 2's `np.promote_types(a, b)`.
pub fn promote_types(a: DType, b: DType) -> DType {
    use Kind::*;
    if a == b {
        return a;
    }
    let (ka, kb) = (a.kind(), b.kind());
    match (ka, kb) {
        (Bool, _) => b,
        (_, Bool) => a,
        (Complex, Complex) => {
            if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        // complex64 with float64 (or an integer that needs float64) is complex128.
        (Complex, _) | (_, Complex) => {
            let (c, r) = if ka == Complex { (a, b) } else { (b, a) };
            if c == DType::Complex128 || promote_types(r.smallest_float(), DType::Float32) == DType::Float64 {
                DType::Complex128
            } else {
                DType::Complex64
            }
        }
        (Float, Float) => {
            if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        (Float, _) => promote_types(a, b.smallest_float()),
        (_, Float) => promote_types(a.smallest_float(), b),
        (Int, Int) | (UInt, UInt) => {
            if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        (Int, UInt) | (UInt, Int) => {
            let (s, u) = if ka == Int { (a, b) } else { (b, a) };
            if u.itemsize() < s.itemsize() {
                s
            } else if u.itemsize() < 8 {
                DType::signed_of_size(u.itemsize() * 2)
            } else {
                DType::Float64
            }
        }
    }
}

/// `np.result_type` of several dtypes.
pub fn result_type(dtypes: &[DType]) -> Option<DType> {
    dtypes.iter().copied().reduce(promote_types)
}

/// NumPy's `np.can_cast(from, to, casting="safe")`.
pub fn can_cast_safely(from: DType, to: DType) -> bool {
    promote_types(from, to) == to
}

/// How strictly [`Array::astype_with`](crate::Array::astype_with) checks a cast, as NumPy's
/// `casting=` argument.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Casting {
    /// Only identical types.
    No,
    /// Casts that preserve every value (`int32 -> int64`, `int16 -> float32`).
    Safe,
    /// Safe casts and casts within a kind (`float64 -> float32`).
    SameKind,
    /// Any cast (NumPy's default for `astype`).
    Unsafe,
}

pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::No => from == to,
        Casting::Safe => can_cast_safely(from, to),
        Casting::SameKind => can_cast_safely(from, to) || from.kind() <= to.kind(),
        Casting::Unsafe => true,
    }
}

/// A Rust scalar taking part in an operation with an array. Like Python's `int`, `float` and
/// `bool`, it is *weak* (NEP 50): it adopts the array's dtype when its kind does not exceed the
/// array's kind (`f32_array * 2.0` stays float32, `int32_array + 1` stays int32).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// A complex number (Python's `complex`; weak as well: `float32_array * 1j` is complex64).
    Complex(f64, f64),
}

impl Scalar {
    pub fn kind(self) -> Kind {
        match self {
            Scalar::Bool(_) => Kind::Bool,
            Scalar::Int(_) => Kind::Int,
            Scalar::UInt(_) => Kind::UInt,
            Scalar::Float(_) => Kind::Float,
            Scalar::Complex(..) => Kind::Complex,
        }
    }
    /// The value as a float64 (a complex number's real part, as NumPy's complex-to-real cast).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::UInt(u) => u as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(re, _) => re,
        }
    }
    /// The value as (real, imaginary) parts in float64.
    pub fn as_c64(self) -> (f64, f64) {
        match self {
            Scalar::Complex(re, im) => (re, im),
            s => (s.as_f64(), 0.0),
        }
    }
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Scalar::Bool(b) => Some(b as i128),
            Scalar::Int(i) => Some(i as i128),
            Scalar::UInt(u) => Some(u as i128),
            Scalar::Float(_) | Scalar::Complex(..) => None,
        }
    }
    /// The dtype a lone scalar gets (NumPy's default int/float: int64, float64).
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::UInt(u) => {
                if u <= i64::MAX as u64 {
                    DType::Int64
                } else {
                    DType::UInt64
                }
            }
            Scalar::Float(_) => DType::Float64,
            Scalar::Complex(..) => DType::Complex128,
        }
    }

    /// The dtype of `array (dtype) <op> scalar` under NEP 50, checking that an integer scalar
    /// fits an integer dtype (NumPy 2 raises `OverflowError` otherwise).
    pub fn promote_with(self, dtype: DType) -> Result<DType> {
        let sk = match self.kind() {
            Kind::UInt => Kind::Int,
            k => k,
        };
        let dk = match dtype.kind() {
            Kind::UInt => Kind::Int,
            k => k,
        };
        if sk > dk {
            // The scalar's kind wins: array bool + int -> int64 (the int must fit int64),
            // int + float -> float64.
            if let Some(v) = self.as_i128() {
                if v < i64::MIN as i128 || v > i64::MAX as i128 {
                    return Err(Error::ScalarOverflow { value: v.to_string(), dtype: DType::Int64 });
                }
                return Ok(promote_types(dtype, DType::Int64));
            }
            if sk == Kind::Complex && dk == Kind::Float {
                // A weak complex keeps the array's precision: float32 -> complex64.
                return Ok(dtype.to_complex());
            }
            return Ok(promote_types(dtype, self.default_dtype()));
        }
        if let (Some(v), Some((lo, hi))) = (self.as_i128(), dtype.int_range()) {
            if dtype.is_integer() && (v < lo || v > hi) {
                return Err(Error::ScalarOverflow { value: v.to_string(), dtype });
            }
        }
        Ok(dtype)
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Scalar { fn from(x: $t) -> Self { Scalar::$v(x as $c) } }
    )*};
}
scalar_from!(i8 => Int as i64, i16 => Int as i64, i32 => Int as i64, i64 => Int as i64, isize => Int as i64,
             u8 => UInt as u64, u16 => UInt as u64, u32 => UInt as u64, u64 => UInt as u64, usize => UInt as u64,
             f32 => Float as f64, f64 => Float as f64);
impl From<bool> for Scalar {
    fn from(x: bool) -> Self {
        Scalar::Bool(x)
    }
}
/// Rounds a float64 to the nearest float16 (ties to even) in one step, as NumPy does. (Going
/// through float32 would round twice.)
#[inline]
pub(crate) fn f16_from_f64(x: f64) -> f16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return f16::from_bits(sign | 0x7e00);
    }
    if a >= 65520.0 {
        // At or beyond the midpoint between the largest float16 (65504) and 2**16.
        return f16::from_bits(sign | 0x7c00);
    }
    if a < 6.103515625e-05 {
        // Subnormal range: multiples of 2**-24 (exact scaling by a power of two).
        let r = (a * 16777216.0).round_ties_even() as u16;
        return f16::from_bits(sign | r);
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let q = a * f64::powi(2.0, 10 - e);
    let mut r = q.round_ties_even() as u32;
    let mut e = e;
    if r == 2048 {
        r = 1024;
        e += 1;
    }
    if e + 15 >= 31 {
        return f16::from_bits(sign | 0x7c00);
    }
    f16::from_bits(sign | (((e + 15) as u16) << 10) | (r - 1024) as u16)
}

impl From<f16> for Scalar {
    fn from(x: f16) -> Self {
        Scalar::Float(x.to_f64())
    }
}
impl From<Complex<f32>> for Scalar {
    fn from(x: Complex<f32>) -> Self {
        Scalar::Complex(x.re as f64, x.im as f64)
    }
}
impl From<Complex<f64>> for Scalar {
    fn from(x: Complex<f64>) -> Self {
        Scalar::Complex(x.re, x.im)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that is the element type of a dtype: `bool`, `i8`..`i64`, `u8`..`u64`,
/// `half::f16`, `f32`, `f64`, and `num_complex::Complex<f32>`/`Complex<f64>` (re-exported as
/// [`Complex`]) for complex64/complex128.
pub trait Element: Copy + Send + Sync + PartialEq + fmt::Debug + Default + 'static + sealed::Sealed {
    const DTYPE: DType;
    fn to_scalar(self) -> Scalar;
    /// Converts with NumPy's (C-like) casting rules: floats to ints truncate toward zero and
    /// saturate (NaN becomes 0), ints wrap.
    fn from_scalar(s: Scalar) -> Self;
}

macro_rules! impl_element_int {
    ($($t:ty => $d:ident, $v:ident);*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar { Scalar::$v(self as _) }
            fn from_scalar(s: Scalar) -> Self {
                match s {
                    Scalar::Bool(b) => b as u8 as $t,
                    Scalar::Int(i) => i as $t,
                    Scalar::UInt(u) => u as $t,
                    Scalar::Float(f) => f as $t,
                    // NumPy's complex-to-real cast keeps the real part.
                    Scalar::Complex(re, _) => re as $t,
                }
            }
        }
    )*};
}
impl_element_int!(i8 => Int8, Int; i16 => Int16, Int; i32 => Int32, Int; i64 => Int64, Int;
                  u8 => UInt8, UInt; u16 => UInt16, UInt; u32 => UInt32, UInt; u64 => UInt64, UInt);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::UInt(u) => u != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }
}

macro_rules! impl_element_float {
    ($($t:ty => $d:ident, $from:expr, $to:expr);*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar { Scalar::Float(($to)(self)) }
            fn from_scalar(s: Scalar) -> Self {
                match s {
                    Scalar::Bool(b) => ($from)(b as u8 as f64),
                    // Integer to float rounds once, to nearest, as NumPy does.
                    Scalar::Int(i) => ($from)(i as f64),
                    Scalar::UInt(u) => ($from)(u as f64),
                    Scalar::Float(f) => ($from)(f),
                    Scalar::Complex(re, _) => ($from)(re),
                }
            }
        }
    )*};
}
impl_element_float!(f32 => Float32, |x: f64| x as f32, |x: f32| x as f64;
                    f64 => Float64, |x: f64| x, |x: f64| x;
                    f16 => Float16, f16_from_f64, |x: f16| x.to_f64());

macro_rules! impl_element_complex {
    ($($t:ty => $d:ident);*) => {$(
        impl sealed::Sealed for Complex<$t> {}
        impl Element for Complex<$t> {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar { Scalar::Complex(self.re as f64, self.im as f64) }
            fn from_scalar(s: Scalar) -> Self {
                let (re, im) = s.as_c64();
                Complex::new(re as $t, im as $t)
            }
        }
    )*};
}
impl_element_complex!(f32 => Complex64; f64 => Complex128);

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn promotion_matches_numpy_table() {
        assert_eq!(promote_types(Int8, UInt8), Int16);
        assert_eq!(promote_types(Int64, UInt64), Float64);
        assert_eq!(promote_types(UInt32, Int32), Int64);
        assert_eq!(promote_types(Int16, Float16), Float32);
        assert_eq!(promote_types(UInt8, Float16), Float16);
        assert_eq!(promote_types(Int32, Float32), Float64);
        assert_eq!(promote_types(Bool, Int8), Int8);
        assert_eq!(promote_types(Float16, Float32), Float32);
        assert_eq!(promote_types(UInt16, Int32), Int32);
        // np.promote_types with complex (NumPy 2.4.6).
        assert_eq!(promote_types(Float32, Complex64), Complex64);
        assert_eq!(promote_types(Float64, Complex64), Complex128);
        assert_eq!(promote_types(Float16, Complex64), Complex64);
        assert_eq!(promote_types(Int16, Complex64), Complex64);
        assert_eq!(promote_types(Int32, Complex64), Complex128);
        assert_eq!(promote_types(UInt8, Complex64), Complex64);
        assert_eq!(promote_types(Bool, Complex64), Complex64);
        assert_eq!(promote_types(Complex64, Complex128), Complex128);
        assert_eq!(promote_types(Int64, Complex128), Complex128);
    }

    /// np.can_cast for complex (NumPy 2.4.6).
    #[test]
    fn complex_casting() {
        assert!(can_cast(Float32, Complex64, Casting::Safe));
        assert!(!can_cast(Float64, Complex64, Casting::Safe));
        assert!(can_cast(Float64, Complex64, Casting::SameKind));
        assert!(!can_cast(Complex64, Float64, Casting::SameKind));
        assert!(can_cast(Complex64, Float64, Casting::Unsafe));
        assert!(can_cast(Complex128, Complex64, Casting::SameKind));
        assert!(!can_cast(Complex128, Complex64, Casting::Safe));
        assert!(can_cast(Int16, Complex64, Casting::Safe));
        assert!(!can_cast(Int32, Complex64, Casting::Safe));
    }

    #[test]
    fn float16_rounds_once() {
        for (x, want) in [
            (1.0 + 2f64.powi(-11) + 2f64.powi(-40), 1.0009765625),
            (65519.9, 65504.0),
            (1e-8, 0.0),
            (3e-8, 5.960464477539063e-08),
            (-2.5, -2.5),
        ] {
            assert_eq!(f16_from_f64(x).to_f64(), want, "{x}");
        }
        assert!(f16_from_f64(65520.0).to_f64().is_infinite());
        assert!(f16_from_f64(f64::NAN).is_nan());
        // Every float16 converts back to itself, and midpoints round to even.
        for bits in 0..0x7c00u16 {
            let h = f16::from_bits(bits);
            assert_eq!(f16_from_f64(h.to_f64()).to_bits(), bits);
        }
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        assert_eq!(f16_from_f64(1.0 + 3.0 * 2f64.powi(-11)).to_f64(), 1.001953125);
    }

    #[test]
    fn weak_scalars() {
        assert_eq!(Scalar::Float(2.0).promote_with(Float32).unwrap(), Float32);
        assert_eq!(Scalar::Int(1).promote_with(Int32).unwrap(), Int32);
        assert_eq!(Scalar::Float(1.0).promote_with(Int32).unwrap(), Float64);
        assert_eq!(Scalar::Float(1.0).promote_with(Int8).unwrap(), Float64);
        assert_eq!(Scalar::Int(1).promote_with(Bool).unwrap(), Int64);
        assert!(Scalar::UInt(1 << 63).promote_with(Bool).is_err());
        assert_eq!(Scalar::Int(1).promote_with(Float16).unwrap(), Float16);
        assert!(matches!(Scalar::Int(300).promote_with(UInt8), Err(Error::ScalarOverflow { .. })));
        assert!(matches!(Scalar::Int(-1).promote_with(UInt8), Err(Error::ScalarOverflow { .. })));
        // Weak complex (NEP 50): float32 * 1j is complex64, int32 * 1j complex128.
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Float32).unwrap(), Complex64);
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Float16).unwrap(), Complex64);
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Float64).unwrap(), Complex128);
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Int32).unwrap(), Complex128);
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Bool).unwrap(), Complex128);
        assert_eq!(Scalar::Complex(0.0, 1.0).promote_with(Complex64).unwrap(), Complex64);
        assert_eq!(Scalar::Float(2.0).promote_with(Complex64).unwrap(), Complex64);
        assert_eq!(Scalar::Int(2).promote_with(Complex64).unwrap(), Complex64);
    }
}
