//! CUDA C generation: a shared prelude (types, float16 conversion, NumPy-semantics helpers),
//! elementwise kernels for (expression, dtypes, layout) and reduction kernels for (op,
//! dtypes, layout).

use crate::core::dtype::DType;

/// The shared headers most kernels include first.
pub(crate) const PRELUDE: &str =
    "#include \"cuprum/prelude.cuh\"\n#include \"cuprum/float16.cuh\"\n#include \"cuprum/numpy_math.cuh\"\n#include \"cuprum/complex.cuh\"\n#include \"cuprum/special.cuh\"\n";

/// C type of a dtype's storage.
pub(crate) fn storage_ty(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "i8",
        DType::Int16 => "i16",
        DType::Int32 => "i32",
        DType::Int64 => "i64",
        DType::UInt8 => "u8",
        DType::UInt16 => "u16",
        DType::UInt32 => "u32",
        DType::UInt64 => "u64",
        DType::Float16 => "u16",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "c64",
        DType::Complex128 => "c128",
    }
}

/// C type values of a dtype are computed in (float16 computes in float, as NumPy's loops).
pub(crate) fn compute_ty(d: DType) -> &'static str {
    match d {
        DType::Float16 => "float",
        _ => storage_ty(d),
    }
}

/// Expression converting `x`, stored as `from`, to the compute type of `to`.
pub(crate) fn load_cvt(from: DType, to: DType, x: &str) -> String {
    let v = if from == DType::Float16 { format!("h2f({x})") } else { x.to_string() };
    let vfrom = if from == DType::Float16 { DType::Float32 } else { from };
    convert(vfrom, to, &v)
}

/// Expression converting `v`, of a float compute type, to the integer dtype `to` as NumPy's C
/// casts do on x86-64 (CUDA's own conversions saturate and give 0 for NaN): truncation toward
/// zero where the value fits, else numpy_math.cuh's `f2i32_c`/`f2i64_c`/`f2u64_c` give x86's
/// values (as the CPU backend's `f64_to_i32_c`...): e.g. NaN to int32 is INT32_MIN, to int8 0.
fn float_to_int(to: DType, v: &str) -> String {
    match to {
        DType::Int64 => format!("f2i64_c({v})"),
        DType::UInt64 => format!("f2u64_c({v})"),
        DType::UInt32 => format!("((u32)f2i64_c({v}))"),
        _ => format!("(({})f2i32_c({v}))", storage_ty(to)),
    }
}

/// Expression converting a compute value `v` (of `from`'s compute type) to `to`'s compute type.
fn convert(from: DType, to: DType, v: &str) -> String {
    let ct = compute_ty(to);
    if from.is_complex() && from != to {
        // complex.cuh: a non-zero test, a change of precision, or the real part (NumPy's
        // complex-to-real cast).
        return match to {
            DType::Bool => format!("cnonzero({v})"),
            _ if to.is_complex() => format!("{ct}({v})"),
            _ => convert(from.real_dtype(), to, &format!("({v}).re")),
        };
    }
    if to.is_complex() && from != to {
        return format!("{ct}({})", convert(from, to.real_dtype(), v));
    }
    if to == DType::Bool {
        if from == DType::Bool {
            v.to_string()
        } else {
            format!("(({v}) != 0)")
        }
    } else if compute_ty(from) == ct {
        v.to_string()
    } else if from.is_float() && to.is_integer() {
        float_to_int(to, v)
    } else {
        format!("(({ct})({v}))")
    }
}

/// Expression converting a compute value `v` of `from` into `to`'s storage.
pub(crate) fn store_cvt(from: DType, to: DType, v: &str) -> String {
    if from.is_complex() && !to.is_complex() && to != DType::Bool {
        return store_cvt(from.real_dtype(), to, &format!("({v}).re"));
    }
    if from.is_complex() || to.is_complex() {
        // Complex storage is its compute type.
        return convert(from, to, v);
    }
    match to {
        DType::Float16 => match compute_ty(from) {
            "double" => format!("d2h({v})"),
            "float" => format!("f2h({v})"),
            "bool" => format!("f2h(({v}) ? 1.0f : 0.0f)"),
            _ => format!("f2h((float)({v}))"),
        },
        DType::Bool => {
            if from == DType::Bool {
                v.to_string()
            } else {
                format!("(({v}) != 0)")
            }
        }
        _ => {
            if compute_ty(from) == storage_ty(to) {
                v.to_string()
            } else if from.is_float() && to.is_integer() {
                float_to_int(to, v)
            } else {
                format!("(({})({v}))", storage_ty(to))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Float to int conversions go through numpy_math.cuh's x86-64 helpers (CUDA's casts
    /// saturate); int to int and int to float stay plain casts.
    #[test]
    fn float_to_int_conversions_use_numpys_rule() {
        use DType::*;
        assert_eq!(store_cvt(Float64, Int32, "v"), "((i32)f2i32_c(v))");
        assert_eq!(store_cvt(Float32, Int8, "v"), "((i8)f2i32_c(v))");
        assert_eq!(store_cvt(Float16, UInt16, "v"), "((u16)f2i32_c(v))");
        assert_eq!(store_cvt(Float64, UInt32, "v"), "((u32)f2i64_c(v))");
        assert_eq!(store_cvt(Float32, Int64, "v"), "f2i64_c(v)");
        assert_eq!(store_cvt(Float64, UInt64, "v"), "f2u64_c(v)");
        assert_eq!(store_cvt(Float64, Bool, "v"), "((v) != 0)");
        assert_eq!(store_cvt(Int64, Int8, "v"), "((i8)(v))");
        assert_eq!(load_cvt(Float16, Int32, "x"), "((i32)f2i32_c(h2f(x)))");
        assert_eq!(load_cvt(Float64, UInt64, "x"), "f2u64_c(x)");
        assert_eq!(load_cvt(Int32, Float64, "x"), "((double)(x))");
        // Complex: the real part into reals, zero imaginary parts from reals.
        assert_eq!(load_cvt(Complex64, Float64, "x"), "((double)((x).re))");
        assert_eq!(load_cvt(Float16, Complex64, "x"), "c64(h2f(x))");
        assert_eq!(load_cvt(Int32, Complex128, "x"), "c128(((double)(x)))");
        assert_eq!(store_cvt(Complex128, Int8, "v"), "((i8)f2i32_c((v).re))");
        assert_eq!(store_cvt(Complex64, Bool, "v"), "cnonzero(v)");
        assert_eq!(store_cvt(Complex64, Complex128, "v"), "c128(v)");
        let header = include_str!("include/numpy_math.cuh");
        for f in ["f2i32_c", "f2i64_c", "f2u64_c"] {
            assert!(header.contains(&format!(" {f}(double v)")), "{f}");
        }
    }
}
