//! Glue between arrays and the NumPy-style formatter: copies only the shown part of an array
//! (the first and last items of long axes) to the host.

use crate::array::format::{self, HostValues};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::slice::SliceElem;

fn shown_values(a: &Array) -> Result<HostValues> {
    let shown_shape = format::shown_shape(a.shape());
    let host = if shown_shape == a.shape() {
        a.to_device_or_view_cpu()?
    } else {
        let e = format::EDGEITEMS as isize;
        let summarized: Vec<usize> = (0..a.ndim()).filter(|&d| shown_shape[d] != a.shape()[d]).collect();
        let mut dst = Array::alloc(&shown_shape, a.dtype(), Device::Cpu, true)?;
        for mask in 0..(1usize << summarized.len()) {
            let mut src_ix = vec![SliceElem::Slice { start: None, end: None, step: 1 }; a.ndim()];
            let mut dst_ix = src_ix.clone();
            for (bit, &d) in summarized.iter().enumerate() {
                let tail = mask >> bit & 1 == 1;
                src_ix[d] = if tail {
                    SliceElem::Slice { start: Some(-e), end: None, step: 1 }
                } else {
                    SliceElem::Slice { start: None, end: Some(e), step: 1 }
                };
                dst_ix[d] = if tail {
                    SliceElem::Slice { start: Some(e), end: None, step: 1 }
                } else {
                    SliceElem::Slice { start: None, end: Some(e), step: 1 }
                };
            }
            let block = a.slice(&src_ix)?.to_device_or_view_cpu()?;
            dst.slice_mut(&dst_ix)?.assign(&block)?;
        }
        dst
    };
    Ok(match host.dtype() {
        DType::Bool => HostValues::Bool(host.to_vec::<bool>()?),
        d if d.is_signed_int() => HostValues::I64(host.to_vec_as::<i64>()?),
        d if d.is_unsigned_int() => HostValues::U64(host.to_vec_as::<u64>()?),
        d if d.is_complex() => HostValues::C64(host.real().to_vec_as::<f64>()?, host.imag()?.to_vec_as::<f64>()?),
        _ => HostValues::F64(host.to_vec_as::<f64>()?),
    })
}

impl Array {
    fn to_device_or_view_cpu(&self) -> Result<Array> {
        if self.device().is_cpu() {
            Ok(self.view())
        } else {
            self.to_device(&Device::Cpu)
        }
    }
}

pub(crate) fn repr(a: &Array) -> Result<String> {
    Ok(format::array_repr(a.dtype(), a.shape(), &shown_values(a)?))
}

pub(crate) fn array2string(a: &Array) -> Result<String> {
    Ok(format::array2string(a.dtype(), a.shape(), &shown_values(a)?))
}

pub(crate) fn str(a: &Array) -> Result<String> {
    Ok(format::array_str(a.dtype(), a.shape(), &shown_values(a)?))
}
