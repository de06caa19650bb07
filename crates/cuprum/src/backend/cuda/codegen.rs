//! CUDA C generation: a shared prelude (types, float16 conversion, NumPy-semantics helpers),
//! elementwise kernels for (expression, dtypes, layout) and reduction kernels for (op,
//! dtypes, layout).

use crate::core::dtype::DType;

/// The shared headers most kernels include first.
pub(crate) const PRELUDE: &str =
    "#include \"cuprum/prelude.cuh\"\n#include \"cuprum/float16.cuh\"\n#include \"cuprum/numpy_math.cuh\"\n";

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

/// Expression converting a compute value `v` (of `from`'s compute type) to `to`'s compute type.
fn convert(from: DType, to: DType, v: &str) -> String {
    let ct = compute_ty(to);
    if to == DType::Bool {
        if from == DType::Bool {
            v.to_string()
        } else {
            format!("(({v}) != 0)")
        }
    } else if compute_ty(from) == ct {
        v.to_string()
    } else {
        format!("(({ct})({v}))")
    }
}

/// Expression converting a compute value `v` of `from` into `to`'s storage.
pub(crate) fn store_cvt(from: DType, to: DType, v: &str) -> String {
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
            } else {
                format!("(({})({v}))", storage_ty(to))
            }
        }
    }
}
