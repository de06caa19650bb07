//! The CPU selection, with the signatures of `select/cuda.rs`: rows of C-contiguous arrays
//! where flags (any dtype; non-zero selects) are set, packed in order into a buffer with room
//! for every row, expanded back, or the coordinates of the non-zero elements.

use super::Count;
use crate::array::Array;
use crate::backend::cpu::ptr;
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::sort::cpu::store_values;

/// The flags as bool bytes (non-zero selects).
fn as_bool(flags: &Array) -> Result<Array> {
    let f = if flags.dtype() == DType::Bool { flags.view() } else { flags.not_equal(0)? };
    f.as_contiguous()
}

/// Copies row `i` of `x` to row `j` of `packed` (or back when `expand`) for the `j`-th set
/// flag, for every set flag while `packed` has rows left; returns how many rows moved.
fn move_rows(x: &Array, mask: &Array, packed: &Array, row: usize, expand: bool) -> usize {
    let (src, dst) = if expand { (packed, x) } else { (x, packed) };
    let _l = CpuLocks::new(&[&src.storage, &mask.storage], &[&dst.storage]);
    let bytes = row * x.itemsize();
    let rows = mask.size();
    let cap = packed.size() / row.max(1);
    debug_assert!(x.size() == rows * row);
    let (xp, mp, pp) = (ptr(x).get(), ptr(mask).get() as *const u8, ptr(packed).get());
    let mut j = 0usize;
    for i in 0..rows {
        // The flags may have changed since they were counted (another thread writing through
        // a view of them): never go past `packed`'s rows.
        if j == cap {
            break;
        }
        // SAFETY: `mask` is a C-contiguous bool array of `rows` elements and `i < rows`; the
        // lock on its block keeps writers out.
        if unsafe { *mp.add(i) } != 0 {
            // SAFETY: `x` and `packed` are C-contiguous with rows of `bytes` bytes; `i < rows`
            // rows of `x` and `j < cap` rows of `packed`, so both rows lie in their blocks. They
            // are distinct blocks (`packed` is a fresh buffer, or a fresh cast of the values in
            // `mask_assign`), and the destination's block is write-locked.
            unsafe {
                let (a, b) = (xp.add(i * bytes), pp.add(j * bytes));
                if expand {
                    std::ptr::copy_nonoverlapping(b, a, bytes)
                } else {
                    std::ptr::copy_nonoverlapping(a, b, bytes)
                }
            }
            j += 1;
        }
    }
    j
}

/// The rows (of `row` elements) of the C-contiguous `x` whose entry of the 1-d `flags` is
/// non-zero, in order, into the first rows of `out` (room for every row); returns the count.
pub(crate) fn compact(x: &Array, flags: &Array, out: &Array, row: usize) -> Result<Count> {
    let mask = as_bool(flags)?;
    Ok(Count::Known(move_rows(x, &mask, out, row, false)))
}

/// The reverse of [`compact`]: row `r` of the C-contiguous `packed` goes to the `r`-th
/// selected row of `x`.
pub(crate) fn expand(x: &Array, flags: &Array, packed: &Array, row: usize) -> Result<()> {
    let mask = as_bool(flags)?;
    move_rows(x, &mask, packed, row, true);
    Ok(())
}

/// The coordinates (int64) of the non-zero elements of `a` in C order: coordinate `d` of the
/// `j`-th goes to `out[j * sj + d * sd]` (`flat`: the flat index, one coordinate); returns the
/// count. `out` has room for every element.
pub(crate) fn coords(a: &Array, out: &Array, flat: bool, sj: i64, sd: i64) -> Result<Count> {
    let nz = as_bool(&a.reshape([a.size()])?)?.to_vec::<bool>()?;
    let dims: Vec<usize> = if flat { vec![a.size()] } else { a.shape().to_vec() };
    let mut o = vec![0i64; out.size()];
    let mut j = 0i64;
    let mut c = vec![0usize; dims.len()];
    for (e, &set) in nz.iter().enumerate() {
        if set {
            let mut r = e;
            for d in (0..dims.len()).rev() {
                c[d] = r % dims[d];
                r /= dims[d];
            }
            for (d, &v) in c.iter().enumerate() {
                o[(j * sj + d as i64 * sd) as usize] = v as i64;
            }
            j += 1;
        }
    }
    store_values(out, &o)?;
    Ok(Count::Known(j as usize))
}
