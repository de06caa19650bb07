//! `scipy.ndimage`, a module per family of `cuprum::scipy::ndimage` (each: SciPy's values on
//! every device, and a `gpu` module with the GPU against the CPU on seeded random inputs).

mod filters;
mod label;
mod measure;
mod morphology;
mod rank;
