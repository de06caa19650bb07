//! The CPU side of the user kernels: a `#[cuprum::vectorize]` function's Rust body called in
//! typed loops over the broadcast operands (threads over chunks, a contiguous fast path built
//! for the baseline, AVX2 and AVX-512F and picked at run time), so that the CPU result is what
//! the Rust function computes (as the macro rewrote it: `kernel::rt`).

use super::CpuLoop;
use crate::array::Array;
use crate::backend::cpu::{par_walk_at, simd, Ptr};
use crate::backend::storage::CpuLocks;
use crate::ufunc::cpu::plan;
use std::marker::PhantomData;

/// Below this many elements a vectorized call runs on one thread (a user function costs more
/// per element than an operator: fewer elements pay for the threads).
const PAR_THRESHOLD: usize = 1 << 11;

/// The piece of a contiguous run with broadcast inputs (copies of each broadcast value).
const BCAST: usize = 64;

/// A scalar type of a kernel's signature, read and written at any alignment (a `bool` is read
/// as a byte's non-zero-ness, so no byte is ever an invalid `bool`).
pub trait Lane: Copy + Send + Sync + 'static {
    /// # Safety
    /// `p` points to `size_of::<Self>()` readable bytes.
    unsafe fn load(p: *const u8) -> Self;
    /// # Safety
    /// `p` points to `size_of::<Self>()` writable bytes.
    unsafe fn store(self, p: *mut u8);
}
macro_rules! lanes {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: the caller's contract.
                unsafe { (p as *const $t).read_unaligned() }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut u8) {
                // SAFETY: the caller's contract.
                unsafe { (p as *mut $t).write_unaligned(self) }
            }
        }
    )*};
}
lanes!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
impl Lane for bool {
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller's contract.
        unsafe { *p != 0 }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller's contract.
        unsafe { *p = self as u8 }
    }
}

/// A vectorized function's Rust body for one signature: `F` takes the inputs `A` (a tuple of
/// [`Lane`]s) and returns `R`. Made by `#[cuprum::vectorize]` in a `static`.
pub struct CpuFn<F, A, R> {
    f: F,
    _sig: PhantomData<fn(A) -> R>,
}

impl<F, A, R> CpuFn<F, A, R> {
    /// Wraps the function (a `const fn`, for the macro's `static`).
    pub const fn new(f: F) -> Self {
        CpuFn { f, _sig: PhantomData }
    }
}

macro_rules! cpu_fn {
    ($n:literal; $($a:ident $v:ident $k:tt),*) => {
        impl<F, $($a: Lane,)* R: Lane> CpuLoop for CpuFn<F, ($($a,)*), R>
        where
            F: Fn($($a),*) -> R + Sync,
        {
            fn run(&self, out: &Array, ins: &[Array]) {
                let _l = CpuLocks::new(&[$(&ins[$k].storage),*], &[&out.storage]);
                let (shape, st) = plan(out, &[$(&ins[$k]),*]);
                let strides: [Vec<isize>; $n + 1] = std::array::from_fn(|k| st[k].clone());
                let base: [Ptr; $n + 1] = [out.cpu_ptr(), $(ins[$k].cpu_ptr()),*];
                let f = &self.f;
                // Contiguous runs: the loop the compiler may vectorise (around the function's
                // calls where it cannot inline them), built again for AVX2 and AVX-512.
                let contiguous = move |p: [*mut u8; $n + 1], n: usize| {
                    let element = move |i: usize| {
                        // SAFETY: `i < n` (the loop below), in a run of `n` elements of each operand
                        // (`par_walk`'s contract, or `BCAST` copies of a broadcast value), each
                        // of its type; the output's run is ours alone.
                        unsafe {
                            $( let $v = <$a as Lane>::load(p[$k + 1].add(i * std::mem::size_of::<$a>())); )*
                            f($($v),*).store(p[0].add(i * std::mem::size_of::<R>()));
                        }
                    };
                    // Built for AVX2 and AVX-512 too; `element` moved in, so that its pointers
                    // stay in registers (through a reference, LLVM reloaded them every element
                    // and left the loop scalar).
                    simd(
                        #[inline(always)]
                        move || {
                            for i in 0..n {
                                element(i);
                            }
                        },
                    );
                };
                let run = move |p: [*mut u8; $n + 1], n: usize, s: [isize; $n + 1]| {
                    let sizes = [std::mem::size_of::<R>() as isize, $(std::mem::size_of::<$a>() as isize),*];
                    if s == sizes {
                        contiguous(p, n);
                    } else if n >= BCAST && s[0] == sizes[0] && (1..=$n).all(|k| s[k] == sizes[k] || s[k] == 0) {
                        // Contiguous but for broadcast inputs (a scalar argument): those read
                        // from `BCAST` copies of their value, so that the contiguous loop runs
                        // in pieces of `BCAST` elements.
                        let mut copies = [[0u8; BCAST * 8]; $n + 1];
                        for k in 1..=$n {
                            if s[k] == 0 {
                                let z = sizes[k] as usize;
                                for j in 0..BCAST {
                                    // SAFETY: `p[k]` holds one element of `z` bytes (stride 0);
                                    // the copy holds `BCAST` of them (`z` is at most 8).
                                    unsafe { std::ptr::copy_nonoverlapping(p[k], copies[k].as_mut_ptr().add(j * z), z) };
                                }
                            }
                        }
                        let mut i0 = 0;
                        while i0 < n {
                            let len = BCAST.min(n - i0);
                            let mut q = p;
                            for k in 0..=$n {
                                q[k] = if s[k] == 0 {
                                    copies[k].as_mut_ptr()
                                } else {
                                    // SAFETY: within the run of `n` elements.
                                    unsafe { p[k].offset(i0 as isize * s[k]) }
                                };
                            }
                            contiguous(q, len);
                            i0 += len;
                        }
                    } else {
                        for i in 0..n as isize {
                            // SAFETY: as above, at the run's strides (0 for a broadcast input).
                            unsafe {
                                $( let $v = <$a as Lane>::load(p[$k + 1].offset(i * s[$k + 1])); )*
                                f($($v),*).store(p[0].offset(i * s[0]));
                            }
                        }
                    }
                };
                // SAFETY: `shape`/`strides` are `out`'s layout and the inputs' broadcast to it,
                // collapsed: every position is an element of each array, of the loop's types
                // (the caller casts the inputs and allocates the output in them), in its block.
                // The locks are held; `run` writes only operand 0, and the caller copies inputs
                // that overlap `out` other than element for element (`unalias`).
                unsafe { par_walk_at(PAR_THRESHOLD, &shape, &strides, base, &run) };
            }
        }
    };
}
cpu_fn!(1; A0 a0 0);
cpu_fn!(2; A0 a0 0, A1 a1 1);
cpu_fn!(3; A0 a0 0, A1 a1 1, A2 a2 2);
cpu_fn!(4; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3);
cpu_fn!(5; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4);
cpu_fn!(6; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5);
cpu_fn!(7; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5, A6 a6 6);
cpu_fn!(8; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5, A6 a6 6, A7 a7 7);
