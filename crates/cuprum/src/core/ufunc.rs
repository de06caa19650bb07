//! The universal functions and NumPy's loop selection for them: which dtype a ufunc computes
//! in (its *loop dtype*) and which dtype it returns, for given input dtypes.

use crate::core::dtype::{promote_types, DType};
use crate::core::error::{Error, Result};

/// Defines an op enum with NumPy's name of each op (`name()`) and the list of all (`ALL`).
macro_rules! named_ops {
    ($(#[$m:meta])* $enum:ident, $all_doc:literal, $($v:ident => $n:literal,)*) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($v,)*
        }
        impl $enum {
            #[doc = $all_doc]
            pub const ALL: [$enum; [$($n),*].len()] = [$($enum::$v),*];
            /// NumPy's name of the op (`"add"`, `"arctan2"`, `"count_nonzero"`).
            pub fn name(self) -> &'static str {
                match self {
                    $($enum::$v => $n,)*
                }
            }
        }
    };
}

named_ops! {
    /// Elementwise functions of one argument.
    UnaryOp, "Every unary ufunc.",
    Negative => "negative",
    Positive => "positive",
    Absolute => "absolute",
    Sign => "sign",
    Square => "square",
    Sqrt => "sqrt",
    Cbrt => "cbrt",
    Reciprocal => "reciprocal",
    Exp => "exp",
    Exp2 => "exp2",
    Expm1 => "expm1",
    Log => "log",
    Log2 => "log2",
    Log10 => "log10",
    Log1p => "log1p",
    Sin => "sin",
    Cos => "cos",
    Tan => "tan",
    Arcsin => "arcsin",
    Arccos => "arccos",
    Arctan => "arctan",
    Sinh => "sinh",
    Cosh => "cosh",
    Tanh => "tanh",
    Floor => "floor",
    Ceil => "ceil",
    Rint => "rint",
    Trunc => "trunc",
    LogicalNot => "logical_not",
    Invert => "invert",
    IsNan => "isnan",
    IsInf => "isinf",
    IsFinite => "isfinite",
    Conjugate => "conjugate",
    Erf => "erf",
    Erfc => "erfc",
    Ndtr => "ndtr",
    Ndtri => "ndtri",
}

named_ops! {
    /// Elementwise functions of two arguments.
    BinaryOp, "Every binary ufunc.",
    Add => "add",
    Subtract => "subtract",
    Multiply => "multiply",
    TrueDivide => "true_divide",
    FloorDivide => "floor_divide",
    Remainder => "remainder",
    Power => "power",
    Arctan2 => "arctan2",
    Hypot => "hypot",
    Maximum => "maximum",
    Minimum => "minimum",
    Fmax => "fmax",
    Fmin => "fmin",
    Equal => "equal",
    NotEqual => "not_equal",
    Less => "less",
    LessEqual => "less_equal",
    Greater => "greater",
    GreaterEqual => "greater_equal",
    LogicalAnd => "logical_and",
    LogicalOr => "logical_or",
    LogicalXor => "logical_xor",
    BitwiseAnd => "bitwise_and",
    BitwiseOr => "bitwise_or",
    BitwiseXor => "bitwise_xor",
    LeftShift => "left_shift",
    RightShift => "right_shift",
}

named_ops! {
    /// Reductions (var and std take `ddof` separately).
    ReduceOp, "Every reduction.",
    Sum => "sum",
    Prod => "prod",
    Mean => "mean",
    Var => "var",
    Std => "std",
    Min => "min",
    Max => "max",
    ArgMin => "argmin",
    ArgMax => "argmax",
    Any => "any",
    All => "all",
    CountNonzero => "count_nonzero",
}

impl UnaryOp {
    /// Functions that NumPy only has float loops for (ints are cast to the smallest safe float).
    pub fn is_float_function(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Sqrt | Cbrt
                | Exp
                | Exp2
                | Expm1
                | Log
                | Log2
                | Log10
                | Log1p
                | Sin
                | Cos
                | Tan
                | Arcsin
                | Arccos
                | Arctan
                | Sinh
                | Cosh
                | Tanh
                | Rint
        )
    }

    /// `scipy.special`'s functions (erf, erfc, ndtr, ndtri): SciPy's loops are float32 and
    /// float64 only, and cuprum has no complex loop for them. Other inputs take the first loop
    /// they cast to safely in SciPy's order: float64 first for erf, erfc and ndtr (so float16,
    /// bool and small ints compute in float64), float32 first for ndtri.
    pub fn is_special(self) -> bool {
        use UnaryOp::*;
        matches!(self, Erf | Erfc | Ndtr | Ndtri)
    }

    /// (loop dtype, output dtype) for an input of `dt`.
    pub fn resolve(self, dt: DType) -> Result<(DType, DType)> {
        use UnaryOp::*;
        let unsupported = || Err(Error::UnsupportedDType { op: self.name().into(), dtype: dt });
        if self.is_special() {
            if dt.is_complex() {
                return unsupported();
            }
            let small = if self == Ndtri { dt.smallest_float() != DType::Float64 } else { dt == DType::Float32 };
            let l = if small { DType::Float32 } else { DType::Float64 };
            return Ok((l, l));
        }
        if dt.is_complex() {
            // NumPy's complex loops: no cbrt, floor, ceil, trunc or invert; absolute is real.
            return match self {
                Cbrt | Floor | Ceil | Trunc | Invert => unsupported(),
                Absolute => Ok((dt, dt.real_dtype())),
                LogicalNot | IsNan | IsInf | IsFinite => Ok((dt, DType::Bool)),
                _ => Ok((dt, dt)),
            };
        }
        if self.is_float_function() {
            let l = dt.smallest_float();
            return Ok((l, l));
        }
        match self {
            Negative | Positive | Sign if dt == DType::Bool => unsupported(),
            // NumPy has no bool loop for these: int8's is the first that takes a bool.
            Square | Reciprocal | Conjugate if dt == DType::Bool => Ok((DType::Int8, DType::Int8)),
            LogicalNot | IsNan | IsInf | IsFinite => Ok((dt, DType::Bool)),
            Invert if dt.is_float() => unsupported(),
            _ => Ok((dt, dt)),
        }
    }
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual | LogicalAnd | LogicalOr | LogicalXor
        )
    }

    /// (loop dtype, output dtype) for inputs already promoted to the common dtype `common`.
    pub fn resolve_common(self, common: DType) -> Result<(DType, DType)> {
        use BinaryOp::*;
        let unsupported = || Err(Error::UnsupportedDType { op: self.name().into(), dtype: common });
        if common.is_complex() {
            // NumPy's complex loops: comparisons are lexicographic; no floor_divide, remainder,
            // arctan2, hypot, bitwise operations or shifts.
            return match self {
                _ if self.is_comparison() => Ok((common, DType::Bool)),
                Add | Subtract | Multiply | TrueDivide | Power | Maximum | Minimum | Fmax | Fmin => {
                    Ok((common, common))
                }
                _ => unsupported(),
            };
        }
        match self {
            _ if self.is_comparison() => Ok((common, DType::Bool)),
            Subtract if common == DType::Bool => unsupported(),
            TrueDivide => {
                let l = if common.is_float() { common } else { DType::Float64 };
                Ok((l, l))
            }
            FloorDivide | Remainder | Power if common == DType::Bool => Ok((DType::Int8, DType::Int8)),
            Arctan2 | Hypot => {
                let l = common.smallest_float();
                Ok((l, l))
            }
            BitwiseAnd | BitwiseOr | BitwiseXor if common.is_float() => unsupported(),
            LeftShift | RightShift if common.is_float() => unsupported(),
            LeftShift | RightShift if common == DType::Bool => Ok((DType::Int8, DType::Int8)),
            _ => Ok((common, common)),
        }
    }

    /// (loop dtype, output dtype) for input dtypes `a` and `b` (both arrays).
    pub fn resolve(self, a: DType, b: DType) -> Result<(DType, DType)> {
        match self {
            // Float-only functions: NumPy takes the first float loop both inputs cast to
            // safely (int8 with uint8 -> float16), not the float of their promotion.
            BinaryOp::Arctan2 | BinaryOp::Hypot => {
                let l = promote_types(a.smallest_float(), b.smallest_float());
                if l.is_complex() {
                    return Err(Error::UnsupportedDType { op: self.name().into(), dtype: l });
                }
                Ok((l, l))
            }
            _ => self.resolve_common(promote_types(a, b)),
        }
    }
}

impl ReduceOp {
    /// Output dtype for input `dt` (NumPy's accumulator and result rules).
    pub fn out_dtype(self, dt: DType) -> DType {
        use ReduceOp::*;
        match self {
            Sum | Prod => dt.sum_dtype(),
            Mean => {
                if dt.is_inexact() {
                    dt
                } else {
                    DType::Float64
                }
            }
            // The variance of complex numbers is real (the mean of |x - mean|^2).
            Var | Std => {
                if dt.is_inexact() {
                    dt.real_dtype()
                } else {
                    DType::Float64
                }
            }
            Min | Max => dt,
            ArgMin | ArgMax | CountNonzero => DType::Int64,
            Any | All => DType::Bool,
        }
    }

    /// Whether an empty reduction has an identity (min/max/argmin/argmax do not).
    pub fn has_identity(self) -> bool {
        !matches!(self, ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax)
    }

    /// NumPy's `ValueError` message for this reduction of an empty lane (it has no identity).
    pub fn empty_message(self) -> String {
        match self {
            ReduceOp::ArgMin | ReduceOp::ArgMax => format!("attempt to get {} of an empty sequence", self.name()),
            ReduceOp::Min => "zero-size array to reduction operation minimum which has no identity".into(),
            ReduceOp::Max => "zero-size array to reduction operation maximum which has no identity".into(),
            _ => format!("zero-size array to reduction operation {} which has no identity", self.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;
    #[test]
    fn loops_match_numpy() {
        assert_eq!(UnaryOp::Sqrt.resolve(Int8).unwrap(), (Float16, Float16));
        assert_eq!(UnaryOp::Sqrt.resolve(Int16).unwrap(), (Float32, Float32));
        assert_eq!(UnaryOp::Exp.resolve(Int64).unwrap(), (Float64, Float64));
        assert_eq!(UnaryOp::Floor.resolve(Int32).unwrap(), (Int32, Int32));
        assert_eq!(UnaryOp::Square.resolve(Bool).unwrap(), (Int8, Int8));
        assert!(UnaryOp::Negative.resolve(Bool).is_err());
        assert_eq!(BinaryOp::TrueDivide.resolve(Int8, Int8).unwrap(), (Float64, Float64));
        assert_eq!(BinaryOp::TrueDivide.resolve(Float16, Float16).unwrap(), (Float16, Float16));
        assert_eq!(BinaryOp::Less.resolve(Int8, UInt8).unwrap(), (Int16, Bool));
        assert_eq!(BinaryOp::Hypot.resolve(Int16, Int16).unwrap(), (Float32, Float32));
        assert_eq!(BinaryOp::Arctan2.resolve(Int8, UInt8).unwrap(), (Float16, Float16));
        assert_eq!(BinaryOp::Hypot.resolve(Int16, UInt16).unwrap(), (Float32, Float32));
        assert!(UnaryOp::Positive.resolve(Bool).is_err());
        assert!(BinaryOp::BitwiseAnd.resolve(Float32, Float32).is_err());
        assert!(BinaryOp::Subtract.resolve(Bool, Bool).is_err());
        assert_eq!(ReduceOp::Sum.out_dtype(Int32), Int64);
        assert_eq!(ReduceOp::Sum.out_dtype(UInt8), UInt64);
        assert_eq!(ReduceOp::Mean.out_dtype(Int32), Float64);
        assert_eq!(ReduceOp::Mean.out_dtype(Float16), Float16);
        // Complex (NumPy 2.4.6).
        assert_eq!(UnaryOp::Absolute.resolve(Complex64).unwrap(), (Complex64, Float32));
        assert_eq!(UnaryOp::Sqrt.resolve(Complex128).unwrap(), (Complex128, Complex128));
        assert_eq!(UnaryOp::IsNan.resolve(Complex64).unwrap(), (Complex64, Bool));
        assert!(UnaryOp::Floor.resolve(Complex64).is_err());
        assert!(UnaryOp::Cbrt.resolve(Complex64).is_err());
        assert_eq!(BinaryOp::TrueDivide.resolve(Complex64, Float32).unwrap(), (Complex64, Complex64));
        assert_eq!(BinaryOp::Less.resolve(Complex64, Float64).unwrap(), (Complex128, Bool));
        assert!(BinaryOp::Arctan2.resolve(Complex64, Float32).is_err());
        assert!(BinaryOp::Remainder.resolve(Complex64, Complex64).is_err());
        assert_eq!(ReduceOp::Var.out_dtype(Complex64), Float32);
        assert_eq!(ReduceOp::Mean.out_dtype(Complex128), Complex128);
        assert_eq!(ReduceOp::Sum.out_dtype(Complex64), Complex64);
    }
}
