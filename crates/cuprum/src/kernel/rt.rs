//! The Rust side of `kernel.cuh`: the operators of a `#[cuprum::device]`, `vectorize` or
//! `kernel` body, rewritten by the macro as calls of these functions, so that the CPU computes
//! what the GPU computes and nothing panics. Integers wrap (also in a debug build), integer `/`
//! and `%` by zero give 0 (NumPy's result; `MIN / -1` wraps to `MIN`, `MIN % -1` is 0), shifts
//! mask their count to the type's width; floats are IEEE arithmetic, `%` is `fmod`. Each call
//! is inlined: for floats it is the operator itself.
#![allow(missing_docs)]

/// The arithmetic of a scalar type in a kernel body (see the module's notes).
pub trait Arith: Copy {
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    fn rem(self, b: Self) -> Self;
    fn neg(self) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)]
            fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline(always)]
            fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)]
            fn div(self, b: Self) -> Self { if b == 0 { 0 } else { self.wrapping_div(b) } }
            #[inline(always)]
            fn rem(self, b: Self) -> Self { if b == 0 { 0 } else { self.wrapping_rem(b) } }
            #[inline(always)]
            fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
        }
        impl Shift for $t {
            #[inline(always)]
            fn shl(self, n: u32) -> Self { self.wrapping_shl(n) }
            #[inline(always)]
            fn shr(self, n: u32) -> Self { self.wrapping_shr(n) }
        }
        impl Count for $t {
            #[inline(always)]
            fn count(self) -> u32 { self as u32 }
        }
    )*};
}
int_arith!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn add(self, b: Self) -> Self { self + b }
            #[inline(always)]
            fn sub(self, b: Self) -> Self { self - b }
            #[inline(always)]
            fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)]
            fn div(self, b: Self) -> Self { self / b }
            #[inline(always)]
            fn rem(self, b: Self) -> Self { self % b }
            #[inline(always)]
            fn neg(self) -> Self { -self }
        }
    )*};
}
float_arith!(f32, f64);

/// Shifts with the count masked to the type's width (`wrapping_shl`).
pub trait Shift: Copy {
    fn shl(self, n: u32) -> Self;
    fn shr(self, n: u32) -> Self;
}
/// A shift count of any integer type (its low bits are used).
pub trait Count: Copy {
    fn count(self) -> u32;
}

#[inline(always)]
pub fn add<T: Arith>(a: T, b: T) -> T {
    a.add(b)
}
#[inline(always)]
pub fn sub<T: Arith>(a: T, b: T) -> T {
    a.sub(b)
}
#[inline(always)]
pub fn mul<T: Arith>(a: T, b: T) -> T {
    a.mul(b)
}
#[inline(always)]
pub fn div<T: Arith>(a: T, b: T) -> T {
    a.div(b)
}
#[inline(always)]
pub fn rem<T: Arith>(a: T, b: T) -> T {
    a.rem(b)
}
#[inline(always)]
pub fn neg<T: Arith>(a: T) -> T {
    a.neg()
}
#[inline(always)]
pub fn shl<T: Shift, U: Count>(a: T, n: U) -> T {
    a.shl(n.count())
}
#[inline(always)]
pub fn shr<T: Shift, U: Count>(a: T, n: U) -> T {
    a.shr(n.count())
}

/// `x.exp()` in a kernel body: float32 through the CPU ufuncs' branch-free `exp` (computed in
/// float64 and rounded once: within 1 ulp, the bits `cuprum::exp` gives a float32 array on the
/// CPU), which the compiler vectorises where glibc's `expf` is a call per element; float64 is
/// std's.
pub trait Exp: Copy {
    fn exp(self) -> Self;
}
impl Exp for f32 {
    #[inline(always)]
    fn exp(self) -> f32 {
        crate::backend::cpu::vmath::exp_f32(self)
    }
}
impl Exp for f64 {
    #[inline(always)]
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}
#[inline(always)]
pub fn exp<T: Exp>(x: T) -> T {
    Exp::exp(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_semantics_without_panics() {
        assert_eq!(add(i32::MAX, 1), i32::MIN);
        assert_eq!(mul(200u8, 2), 144);
        assert_eq!(div(7i64, 0), 0);
        assert_eq!(rem(7u16, 0), 0);
        assert_eq!(div(i8::MIN, -1), i8::MIN);
        assert_eq!(rem(i8::MIN, -1), 0);
        assert_eq!(div(-7i32, 2), -3);
        assert_eq!(rem(-7i32, 2), -1);
        assert_eq!(neg(i16::MIN), i16::MIN);
        assert_eq!(shl(1u8, 9), 2);
        assert_eq!(shr(-16i32, 2u8), -4);
        assert_eq!(rem(-7.5f64, 2.0), -1.5);
        assert!(div(1.0f32, 0.0).is_infinite());
    }
}
