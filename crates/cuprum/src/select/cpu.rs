//! The CPU selection: mask compaction and expansion of contiguous rows.

use crate::array::Array;
use crate::backend::cpu::ptr;
use crate::backend::storage::CpuLocks;
use crate::core::error::Result;

/// Mask compaction on the host: rows of `row` elements of `x` where `mask` is set, in order,
/// into `packed` (or back from `packed` into `x` when `expand`). Arrays are C-contiguous.
pub(crate) fn compact(x: &Array, mask: &Array, packed: &Array, row: usize, expand: bool) -> Result<()> {
    let (src, dst) = if expand { (packed, x) } else { (x, packed) };
    let _l = CpuLocks::new(&[&src.storage, &mask.storage], &[&dst.storage]);
    let bytes = row * x.itemsize();
    let (xp, mp, pp) = (ptr(x).get(), ptr(mask).get() as *const u8, ptr(packed).get());
    let mut j = 0usize;
    for i in 0..mask.size() {
        if unsafe { *mp.add(i) } != 0 {
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
    Ok(())
}
