//! `numpy.linalg`: products, decompositions, solvers and norms on both devices.
//!
//! The CPU side (`cpu.rs`) is faer; the GPU side (`cuda.rs`) is cuBLAS and cuSOLVER, loaded at
//! run time, with kernels of our own for many small matrices.
