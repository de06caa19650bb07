//! Dispatch of the backend primitives to the CPU or the CUDA implementation, by the device
//! of the output array. Callers have checked shapes, dtypes and devices.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ufunc::{BinaryOp, ReduceOp, UnaryOp};
use crate::{cpu, cuda};

/// An input of an elementwise operation: an array (broadcast to the output) or a scalar
/// already resolved to the loop dtype.
pub(crate) enum Input<'a> {
    Array(&'a Array),
    Scalar(Scalar),
}

fn cpu_input(x: &Input<'_>, loop_dt: DType) -> Result<Array> {
    match x {
        Input::Array(a) => Ok(a.view()),
        Input::Scalar(s) => Array::scalar_cpu(*s, loop_dt),
    }
}

pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::kernels::assign(out, src),
        Device::Cuda(_) => cuda::ops::assign(out, src),
    }
}

pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::kernels::fill(out, v),
        Device::Cuda(_) => cuda::ops::fill(out, v),
    }
}

pub(crate) fn unary(op: UnaryOp, loop_dt: DType, x: &Array, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::kernels::unary(op, loop_dt, x, out),
        Device::Cuda(_) => cuda::ops::unary(op, loop_dt, x, out),
    }
}

pub(crate) fn binary(op: BinaryOp, loop_dt: DType, a: &Input<'_>, b: &Input<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => {
            let (a, b) = (cpu_input(a, loop_dt)?, cpu_input(b, loop_dt)?);
            cpu::kernels::binary(op, loop_dt, &a, &b, out)
        }
        Device::Cuda(_) => cuda::ops::binary(op, loop_dt, a, b, out),
    }
}

pub(crate) fn where_(cond: &Array, x: &Input<'_>, y: &Input<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => {
            let (x, y) = (cpu_input(x, out.dtype())?, cpu_input(y, out.dtype())?);
            cpu::kernels::where_(cond, &x, &y, out)
        }
        Device::Cuda(_) => cuda::ops::where_(cond, x, y, out),
    }
}

pub(crate) fn reduce(op: ReduceOp, x: &Array, axes: &[usize], ddof: f64, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::kernels::reduce(op, x, axes, ddof, out),
        Device::Cuda(_) => cuda::ops::reduce(op, x, axes, ddof, out),
    }
}

pub(crate) fn iota(out: &Array, start: f64, step: f64, last: Option<f64>) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::kernels::iota(out, start, step, last),
        Device::Cuda(_) => cuda::ops::iota(out, start, step, last),
    }
}
