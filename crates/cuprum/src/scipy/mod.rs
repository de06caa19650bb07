//! SciPy's namespaces (`scipy.X.y` → `cuprum::scipy::X::y`; CuPy: `cupyx.scipy.X.y`).

pub mod ndimage;
pub mod signal;
pub mod special;
pub mod stats;
