//! Complex arithmetic and functions on the CPU, as NumPy computes them: complex64 in float32
//! and complex128 in float64 (`CFloat` is the part type), NumPy's own formulas for the
//! arithmetic (its division is Smith's, its integer powers repeated multiplication) and C99's
//! `cexp`, `clog`, `csqrt`, `csin`... where NumPy calls them (from the C library on Unix, so
//! the results are the C library's, as NumPy's are; elsewhere num-complex's formulas).

use num_complex::Complex;

/// The part type of a complex dtype (f32 for complex64, f64 for complex128).
pub(crate) trait CFloat:
    Copy
    + PartialOrd
    + Default
    + Send
    + Sync
    + std::fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    const NAN: Self;
    const LN2: Self;
    const LOG2E: Self;
    const LOG10E: Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
    fn hypot(self, o: Self) -> Self;
    fn atan2(self, o: Self) -> Self;
    fn ln(self) -> Self;
    fn exp(self) -> Self;
    fn exp_m1(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn rint(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    /// The C library's complex function `f` (`cexp`, ...), or num-complex's where there is none.
    fn cfun(f: CFun, z: Complex<Self>) -> Complex<Self>;
    /// C's `cpow`.
    fn cpow(a: Complex<Self>, b: Complex<Self>) -> Complex<Self>;
}

/// The C99 complex functions NumPy calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CFun {
    Exp,
    Log,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Sinh,
    Cosh,
    Tanh,
    Asin,
    Acos,
    Atan,
}

#[cfg(unix)]
mod libm {
    use num_complex::Complex;
    // C99's `double complex` and `float complex` are passed and returned as a pair of their part
    // type, which is what `Complex<T>` (`#[repr(C)]`, two fields) is on the Unix ABIs (x86-64
    // System V: SSE class; AArch64: a homogeneous floating-point aggregate).
    extern "C" {
        pub fn cexp(z: Complex<f64>) -> Complex<f64>;
        pub fn clog(z: Complex<f64>) -> Complex<f64>;
        pub fn csqrt(z: Complex<f64>) -> Complex<f64>;
        pub fn csin(z: Complex<f64>) -> Complex<f64>;
        pub fn ccos(z: Complex<f64>) -> Complex<f64>;
        pub fn ctan(z: Complex<f64>) -> Complex<f64>;
        pub fn csinh(z: Complex<f64>) -> Complex<f64>;
        pub fn ccosh(z: Complex<f64>) -> Complex<f64>;
        pub fn ctanh(z: Complex<f64>) -> Complex<f64>;
        pub fn casin(z: Complex<f64>) -> Complex<f64>;
        pub fn cacos(z: Complex<f64>) -> Complex<f64>;
        pub fn catan(z: Complex<f64>) -> Complex<f64>;
        pub fn cpow(a: Complex<f64>, b: Complex<f64>) -> Complex<f64>;
        pub fn cexpf(z: Complex<f32>) -> Complex<f32>;
        pub fn clogf(z: Complex<f32>) -> Complex<f32>;
        pub fn csqrtf(z: Complex<f32>) -> Complex<f32>;
        pub fn csinf(z: Complex<f32>) -> Complex<f32>;
        pub fn ccosf(z: Complex<f32>) -> Complex<f32>;
        pub fn ctanf(z: Complex<f32>) -> Complex<f32>;
        pub fn csinhf(z: Complex<f32>) -> Complex<f32>;
        pub fn ccoshf(z: Complex<f32>) -> Complex<f32>;
        pub fn ctanhf(z: Complex<f32>) -> Complex<f32>;
        pub fn casinf(z: Complex<f32>) -> Complex<f32>;
        pub fn cacosf(z: Complex<f32>) -> Complex<f32>;
        pub fn catanf(z: Complex<f32>) -> Complex<f32>;
        pub fn cpowf(a: Complex<f32>, b: Complex<f32>) -> Complex<f32>;
    }
}

macro_rules! cfloat {
    ($t:ty, $exp:ident, $log:ident, $sqrt:ident, $sin:ident, $cos:ident, $tan:ident, $sinh:ident, $cosh:ident,
     $tanh:ident, $asin:ident, $acos:ident, $atan:ident, $pow:ident) => {
        impl CFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = <$t>::NAN;
            const LN2: Self = std::f64::consts::LN_2 as $t;
            const LOG2E: Self = std::f64::consts::LOG2_E as $t;
            const LOG10E: Self = std::f64::consts::LOG10_E as $t;
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn hypot(self, o: Self) -> Self {
                <$t>::hypot(self, o)
            }
            #[inline]
            fn atan2(self, o: Self) -> Self {
                <$t>::atan2(self, o)
            }
            #[inline]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline]
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn rint(self) -> Self {
                <$t>::round_ties_even(self)
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[cfg(unix)]
            fn cfun(f: CFun, z: Complex<Self>) -> Complex<Self> {
                // SAFETY: pure C library functions of one complex value (see the `libm` module
                // for the ABI); they touch no memory of ours.
                unsafe {
                    match f {
                        CFun::Exp => libm::$exp(z),
                        CFun::Log => libm::$log(z),
                        CFun::Sqrt => libm::$sqrt(z),
                        CFun::Sin => libm::$sin(z),
                        CFun::Cos => libm::$cos(z),
                        CFun::Tan => libm::$tan(z),
                        CFun::Sinh => libm::$sinh(z),
                        CFun::Cosh => libm::$cosh(z),
                        CFun::Tanh => libm::$tanh(z),
                        CFun::Asin => libm::$asin(z),
                        CFun::Acos => libm::$acos(z),
                        CFun::Atan => libm::$atan(z),
                    }
                }
            }
            #[cfg(not(unix))]
            fn cfun(f: CFun, z: Complex<Self>) -> Complex<Self> {
                match f {
                    CFun::Exp => z.exp(),
                    CFun::Log => z.ln(),
                    CFun::Sqrt => z.sqrt(),
                    CFun::Sin => z.sin(),
                    CFun::Cos => z.cos(),
                    CFun::Tan => z.tan(),
                    CFun::Sinh => z.sinh(),
                    CFun::Cosh => z.cosh(),
                    CFun::Tanh => z.tanh(),
                    CFun::Asin => z.asin(),
                    CFun::Acos => z.acos(),
                    CFun::Atan => z.atan(),
                }
            }
            #[cfg(unix)]
            fn cpow(a: Complex<Self>, b: Complex<Self>) -> Complex<Self> {
                // SAFETY: as `cfun`.
                unsafe { libm::$pow(a, b) }
            }
            #[cfg(not(unix))]
            fn cpow(a: Complex<Self>, b: Complex<Self>) -> Complex<Self> {
                a.powc(b)
            }
        }
    };
}
cfloat!(f64, cexp, clog, csqrt, csin, ccos, ctan, csinh, ccosh, ctanh, casin, cacos, catan, cpow);
cfloat!(f32, cexpf, clogf, csqrtf, csinf, ccosf, ctanf, csinhf, ccoshf, ctanhf, casinf, cacosf, catanf, cpowf);

type C<T> = Complex<T>;

#[inline]
fn c<T>(re: T, im: T) -> C<T> {
    Complex::new(re, im)
}

/// NumPy's complex multiply: `(ar*br - ai*bi, ar*bi + ai*br)`, each product rounded.
#[inline]
pub(crate) fn mul<T: CFloat>(a: C<T>, b: C<T>) -> C<T> {
    c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

/// NumPy's complex division (Smith's algorithm; division by zero gives its infinities/NaN).
#[inline]
pub(crate) fn div<T: CFloat>(a: C<T>, b: C<T>) -> C<T> {
    let (br_abs, bi_abs) = (b.re.abs(), b.im.abs());
    if br_abs >= bi_abs {
        if br_abs == T::ZERO && bi_abs == T::ZERO {
            c(a.re / br_abs, a.im / br_abs)
        } else {
            let rat = b.im / b.re;
            let scl = T::ONE / (b.re + b.im * rat);
            c((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
        }
    } else {
        let rat = b.re / b.im;
        let scl = T::ONE / (b.im + b.re * rat);
        c((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
    }
}

/// NumPy's `npy_cpow`: 1 for a zero exponent, 0 or NaN for a zero base, repeated
/// multiplication for integer exponents below 100 in magnitude, else C's `cpow`.
pub(crate) fn pow<T: CFloat>(a: C<T>, b: C<T>) -> C<T> {
    let one = c(T::ONE, T::ZERO);
    if b.re == T::ZERO && b.im == T::ZERO {
        return one;
    }
    if a.re == T::ZERO && a.im == T::ZERO {
        // NumPy 2: 0 for an exponent with a positive real part, else NaN.
        return if b.re > T::ZERO { c(T::ZERO, T::ZERO) } else { c(T::NAN, T::NAN) };
    }
    let bre = b.re.to_f64();
    if b.im == T::ZERO && bre == bre.trunc() && bre.abs() < 100.0 {
        let n = bre as i64;
        if n == 1 {
            return a;
        } else if n == 2 {
            return mul(a, a);
        } else if n == 3 {
            return mul(a, mul(a, a));
        }
        let m = n.unsigned_abs();
        let (mut acc, mut p) = (one, a);
        let mut mask = 1u64;
        loop {
            if m & mask != 0 {
                acc = mul(acc, p);
            }
            mask <<= 1;
            if m < mask {
                break;
            }
            p = mul(p, p);
        }
        return if n < 0 { div(one, acc) } else { acc };
    }
    T::cpow(a, b)
}

/// `a + b` (`add`) or `a * b` in complex64's float32 parts (`single`) or complex128's, on the
/// wide complex values.
pub(crate) fn cx_add_mul(single: bool, add: bool, a: super::Cx, b: super::Cx) -> super::Cx {
    fn go<T: CFloat>(add: bool, a: super::Cx, b: super::Cx) -> super::Cx {
        let (p, q) = (c(T::from_f64(a.re), T::from_f64(a.im)), c(T::from_f64(b.re), T::from_f64(b.im)));
        let r = if add { c(p.re + q.re, p.im + q.im) } else { mul(p, q) };
        super::Cx { re: r.re.to_f64(), im: r.im.to_f64() }
    }
    if single {
        go::<f32>(add, a, b)
    } else {
        go::<f64>(add, a, b)
    }
}

/// Unary complex operations (complex in, complex out).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CUnary {
    Neg,
    Conj,
    Square,
    Reciprocal,
    Sign,
    Rint,
    Exp2,
    Expm1,
    Log2,
    Log10,
    Log1p,
    F(CFun),
}

pub(crate) fn unary<T: CFloat>(op: CUnary, z: C<T>) -> C<T> {
    match op {
        CUnary::Neg => c(-z.re, -z.im),
        CUnary::Conj => c(z.re, -z.im),
        CUnary::Square => mul(z, z),
        CUnary::Reciprocal => {
            // NumPy's loop (its own Smith-like form: 1/0 is NaN, not infinity).
            if z.im.abs() <= z.re.abs() {
                let r = z.im / z.re;
                let d = z.re + z.im * r;
                c(T::ONE / d, -r / d)
            } else {
                let r = z.re / z.im;
                let d = z.re * r + z.im;
                c(r / d, -T::ONE / d)
            }
        }
        CUnary::Sign => {
            // NumPy 2's npy_csign: z / |z|, with |z|'s NaN and infinity cases first.
            let a = z.re.hypot(z.im);
            if a.is_nan() {
                c(T::NAN, T::NAN)
            } else if a.is_infinite() {
                let unit = |v: T| if v > T::ZERO { T::ONE } else { -T::ONE };
                if z.re.is_infinite() {
                    if z.im.is_infinite() {
                        c(T::NAN, T::NAN)
                    } else {
                        c(unit(z.re), T::ZERO)
                    }
                } else {
                    c(T::ZERO, unit(z.im))
                }
            } else if a == T::ZERO {
                c(T::ZERO, T::ZERO)
            } else {
                c(z.re / a, z.im / a)
            }
        }
        CUnary::Rint => c(z.re.rint(), z.im.rint()),
        CUnary::Exp2 => T::cfun(CFun::Exp, c(z.re * T::LN2, z.im * T::LN2)),
        CUnary::Expm1 => {
            let a = (z.im / T::from_f64(2.0)).sin();
            c(z.re.exp_m1() * z.im.cos() - T::from_f64(2.0) * a * a, z.re.exp() * z.im.sin())
        }
        CUnary::Log2 => {
            let l = T::cfun(CFun::Log, z);
            c(l.re * T::LOG2E, l.im * T::LOG2E)
        }
        CUnary::Log10 => {
            let l = T::cfun(CFun::Log, z);
            c(l.re * T::LOG10E, l.im * T::LOG10E)
        }
        CUnary::Log1p => {
            let l = (z.re + T::ONE).hypot(z.im);
            c(l.ln(), z.im.atan2(z.re + T::ONE))
        }
        CUnary::F(f) => T::cfun(f, z),
    }
}

/// NumPy's ordering of complex numbers (its CLT/CLE: lexicographic, and a NaN imaginary part
/// makes the real parts' comparison false too).
#[inline]
pub(crate) fn less<T: CFloat>(a: C<T>, b: C<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im < b.im)
}
#[inline]
pub(crate) fn less_equal<T: CFloat>(a: C<T>, b: C<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im <= b.im)
}
#[inline]
pub(crate) fn has_nan<T: CFloat>(a: C<T>) -> bool {
    a.re.is_nan() || a.im.is_nan()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values NumPy 2.4.6 prints (complex128 unless noted).
    #[test]
    fn arithmetic_as_numpy() {
        let z = |re: f64, im: f64| Complex::new(re, im);
        assert_eq!(div(z(1.0, 2.0), z(3.0, -4.0)), z(-0.2, 0.4));
        // Division by zero: (1+2j)/0 -> inf+infj; 0/0 -> nan+nanj.
        let q = div(z(1.0, 2.0), z(0.0, 0.0));
        assert!(q.re.is_infinite() && q.im.is_infinite());
        let q = div(z(0.0, 0.0), z(0.0, 0.0));
        assert!(q.re.is_nan() && q.im.is_nan());
        assert_eq!(pow(z(1.0, 2.0), z(3.0, 0.0)), z(-11.0, -2.0));
        assert_eq!(pow(z(1.0, 2.0), z(-2.0, 0.0)), z(-0.12, -0.16));
        assert_eq!(pow(z(0.0, 0.0), z(0.0, 0.0)), z(1.0, 0.0));
        assert_eq!(pow(z(0.0, 0.0), z(2.0, 0.0)), z(0.0, 0.0));
        assert_eq!(pow(z(0.0, 0.0), z(0.5, -1.0)), z(0.0, 0.0));
        assert!(pow(z(0.0, 0.0), z(-1.0, 0.0)).re.is_nan());
        // np.power(1+2j, 0.5), np.sqrt(-4+0j), np.exp(1j*np.pi/2), np.log(-1+0j)
        let p = pow(z(1.0, 2.0), z(0.5, 0.0));
        assert!((p - z(1.272019649514069, 0.7861513777574233)).norm() < 1e-15);
        assert_eq!(unary(CUnary::F(CFun::Sqrt), z(-4.0, 0.0)), z(0.0, 2.0));
        assert_eq!(unary(CUnary::F(CFun::Log), z(-1.0, 0.0)), z(0.0, std::f64::consts::PI));
        let e = unary(CUnary::F(CFun::Exp), z(0.0, std::f64::consts::FRAC_PI_2));
        assert!((e - z(6.123233995736766e-17, 1.0)).norm() < 1e-16);
        assert_eq!(unary(CUnary::Sign, z(3.0, -4.0)), z(0.6, -0.8));
        // np.square(np.complex64(1+2j)), np.reciprocal(np.complex64(3-1j)) = 0.3+0.10000001j
        let s = unary(CUnary::Square, Complex::new(1.0f32, 2.0));
        assert_eq!(s, Complex::new(-3.0f32, 4.0));
        let r = unary(CUnary::Reciprocal, Complex::new(3.0f32, -1.0));
        assert_eq!(r, Complex::new(0.3f32, 0.10000001));
        assert!(less(z(1.0, 2.0), z(1.0, 3.0)) && !less(z(f64::NAN, 0.0), z(1.0, 0.0)));
    }
}
