//! Element types in NumPy's sort order (NaNs after everything, -0.0 equal to 0.0), for the CPU
//! algorithms that compare: the wide domains' `Key` and the native types' order-preserving
//! integer keys (`Native`, for radix sorts), with `by_domain!`/`by_native!` to run a generic body
//! for a dtype. Used by sort, statistics, set operations and ndimage's rank filters.

use std::cmp::Ordering;

/// Element types the CPU sorts in: NumPy's order (NaN after everything, -0.0 == 0.0).
pub(crate) trait Key: Copy + PartialOrd + Send + Sync + 'static {
    fn ord(&self, other: &Self) -> Ordering;
    fn is_nan(&self) -> bool {
        false
    }
    /// NaN for floats (integers have none: never used for them).
    fn nan() -> Self;
}
impl Key for i64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
    }
    fn nan() -> Self {
        0
    }
}
impl Key for u64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
    }
    fn nan() -> Self {
        0
    }
}
impl Key for f64 {
    fn ord(&self, o: &Self) -> Ordering {
        match (f64::is_nan(*self), f64::is_nan(*o)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => self.partial_cmp(o).unwrap_or(Ordering::Equal),
        }
    }
    fn is_nan(&self) -> bool {
        f64::is_nan(*self)
    }
    fn nan() -> Self {
        f64::NAN
    }
}

/// Runs `$body` with `$W` the wide type (i64, u64 or f64) of dtype `$dt`'s domain.
macro_rules! by_domain {
    ($dt:expr, $W:ident => $body:expr) => {
        match $crate::backend::cpu::domain($dt) {
            $crate::backend::cpu::Domain::I => {
                type $W = i64;
                $body
            }
            $crate::backend::cpu::Domain::U => {
                type $W = u64;
                $body
            }
            $crate::backend::cpu::Domain::F => {
                type $W = f64;
                $body
            }
            $crate::backend::cpu::Domain::C => {
                return Err($crate::core::error::Error::NotImplemented(format!(
                    "sorting and selection of {} arrays",
                    $dt
                )))
            }
        }
    };
}

pub(crate) use by_domain;

/// Element types sorted in their own type by an LSD radix sort on an order-preserving key:
/// NumPy's order, with NaNs (any payload, either sign) after everything and -0.0 equal to 0.0
/// (equal keys, so a stable sort keeps them in input order, as the merge sort did).
pub(crate) trait Native: crate::core::dtype::Element {
    /// How many low bytes of [`Native::key`] can differ.
    const KEY_BYTES: usize;
    /// An unsigned key whose order is NumPy's order of the values.
    fn key(self) -> u64;
    fn as_f64(self) -> f64;
    fn is_nan_v(self) -> bool {
        false
    }
    /// The unsigned integer of the element's width that [`Native::to_ordered`] maps onto.
    type Bits: Bits;
    /// An order-preserving bijection onto [`Native::Bits`]: exact for every value for which
    /// [`Native::plain`] holds (NumPy's order, and back by [`Native::from_ordered`]).
    fn to_ordered(self) -> Self::Bits;
    fn from_ordered(b: Self::Bits) -> Self;
    /// False for the values whose order [`Native::to_ordered`] does not keep: NaNs (which
    /// NumPy puts last, whatever their sign) and -0.0 (equal to 0.0).
    #[inline]
    fn plain(self) -> bool {
        true
    }
}

/// Unsigned integers as radix keys.
pub(crate) trait Bits:
    crate::backend::cpu::Plain + Ord + std::ops::BitOr<Output = Self> + std::ops::BitXor<Output = Self>
{
    /// The 8 bits from bit `shift` on (fewer at the top).
    fn digit(self, shift: u32) -> usize;
    fn wide(self) -> u64;
}
macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn digit(self, shift: u32) -> usize {
                ((self as u64 >> shift) & 255) as usize
            }
            #[inline(always)]
            fn wide(self) -> u64 {
                self as u64
            }
        }
    )*};
}
bits!(u8, u16, u32, u64);

macro_rules! native_int {
    ($($t:ty, $u:ty, $bytes:expr, $flip:expr);*) => {$(
        impl Native for $t {
            const KEY_BYTES: usize = $bytes;
            type Bits = $u;
            #[inline(always)]
            fn to_ordered(self) -> $u {
                (self as $u) ^ ($flip as $u)
            }
            #[inline(always)]
            fn from_ordered(b: $u) -> Self {
                (b ^ ($flip as $u)) as $t
            }
            #[inline]
            fn key(self) -> u64 {
                // Two's complement to offset binary (signed), or the value (unsigned).
                (self as u64 ^ $flip) & (u64::MAX >> (64 - 8 * $bytes))
            }
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
native_int!(i8, u8, 1, 0x80u64; i16, u16, 2, 0x8000u64; i32, u32, 4, 0x8000_0000u64; i64, u64, 8, 1u64 << 63;
            u8, u8, 1, 0u64; u16, u16, 2, 0u64; u32, u32, 4, 0u64; u64, u64, 8, 0u64);

impl Native for bool {
    const KEY_BYTES: usize = 1;
    type Bits = u8;
    #[inline(always)]
    fn to_ordered(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn from_ordered(b: u8) -> Self {
        b != 0
    }
    #[inline]
    fn key(self) -> u64 {
        self as u64
    }
    #[inline]
    fn as_f64(self) -> f64 {
        self as u8 as f64
    }
}

/// The key of the IEEE bits `b` of a float of `w` bits: negatives flipped, positives with the
/// sign bit set, -0.0 as +0.0, every NaN the largest key.
#[inline]
fn float_key(b: u64, w: u32) -> u64 {
    let sign = 1u64 << (w - 1);
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let exp_inf = (all >> 1)
        & !((1u64
            << (if w == 16 {
                10
            } else if w == 32 {
                23
            } else {
                52
            }))
            - 1);
    let mag = b & (all >> 1);
    if mag > exp_inf {
        all
    } else if mag == 0 {
        sign
    } else if b & sign != 0 {
        !b & all
    } else {
        b | sign
    }
}

/// The float elements: IEEE bits, ordered by flipping negatives whole and setting the sign bit
/// of positives.
macro_rules! native_float {
    ($($t:ty, $u:ty, $i:ty, $w:expr, $to_f64:expr);*) => {$(
        impl Native for $t {
            const KEY_BYTES: usize = $w / 8;
            type Bits = $u;
            #[inline(always)]
            fn to_ordered(self) -> $u {
                let b = self.to_bits();
                b ^ (((b as $i) >> ($w - 1)) as $u | (1 << ($w - 1)))
            }
            #[inline(always)]
            fn from_ordered(k: $u) -> Self {
                <$t>::from_bits(k ^ ((!(k as $i) >> ($w - 1)) as $u | (1 << ($w - 1))))
            }
            #[inline(always)]
            fn plain(self) -> bool {
                // Not NaN, not -0.0.
                !self.is_nan() && self.to_bits() != 1 << ($w - 1)
            }
            #[inline]
            fn key(self) -> u64 {
                float_key(self.to_bits() as u64, $w)
            }
            #[inline]
            fn as_f64(self) -> f64 {
                let f: fn($t) -> f64 = $to_f64;
                f(self)
            }
            #[inline]
            fn is_nan_v(self) -> bool {
                self.is_nan()
            }
        }
    )*};
}
native_float!(f32, u32, i32, 32, |v| v as f64; f64, u64, i64, 64, |v| v; half::f16, u16, i16, 16, |v| v.to_f64());

// A float's order key with every NaN the largest key and -0.0 its own (below 0.0), so the
// value comes back bit for bit (the quiet NaN for a NaN): ndimage's rank filters and
// measurements (add 0.0 first to key -0.0 as 0.0). The GPU's twin: `radix_keys.cuh`'s
// `tokey`/`fromkey` without CANON.
macro_rules! nan_last_keys {
    ($($key:ident $of:ident: $t:ty => $u:ty;)*) => {$(
        #[doc = concat!("The order key of a ", stringify!($t), ": every NaN the largest key, -0.0 below 0.0.")]
        #[inline]
        pub(crate) fn $key(v: $t) -> $u {
            if v.is_nan() { <$u>::MAX } else { v.to_ordered() }
        }
        #[doc = concat!("The value of a [`", stringify!($key), "`].")]
        #[inline]
        pub(crate) fn $of(k: $u) -> $t {
            if k == <$u>::MAX { <$t>::NAN } else { <$t>::from_ordered(k) }
        }
    )*};
}
nan_last_keys! {
    f64_key f64_of_key: f64 => u64;
    f32_key f32_of_key: f32 => u32;
}

/// Runs `$body` with `$T` the element type of dtype `$dt`.
macro_rules! by_native {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::core::dtype::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::core::dtype::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::core::dtype::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::core::dtype::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::core::dtype::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::core::dtype::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::core::dtype::DType::UInt16 => {
                type $T = u16;
                $body
            }
            $crate::core::dtype::DType::UInt32 => {
                type $T = u32;
                $body
            }
            $crate::core::dtype::DType::UInt64 => {
                type $T = u64;
                $body
            }
            $crate::core::dtype::DType::Float16 => {
                type $T = half::f16;
                $body
            }
            $crate::core::dtype::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::core::dtype::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::core::dtype::DType::Complex64 | $crate::core::dtype::DType::Complex128 => {
                return Err($crate::core::error::Error::NotImplemented(format!(
                    "sorting and selection of {} arrays",
                    $dt
                )))
            }
        }
    };
}
pub(crate) use by_native;
