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
    // `mask.size()` rows in `x`, `packed.shape()[0]` rows (the count of set entries, taken
    // before these locks) in `packed`.
    let (rows, cap) = (mask.size(), packed.shape().first().copied().unwrap_or(0));
    debug_assert!(x.size() == rows * row && packed.size() == cap * row);
    let (xp, mp, pp) = (ptr(x).get(), ptr(mask).get() as *const u8, ptr(packed).get());
    let mut j = 0usize;
    for i in 0..rows {
        // The mask may have changed since it was counted (another thread writing through a
        // view of it between the count and these locks): never go past `packed`'s rows.
        if j == cap {
            break;
        }
        // SAFETY: `mask` is a C-contiguous bool array of `rows` elements and `i < rows`; the
        // lock on its block keeps writers out.
        if unsafe { *mp.add(i) } != 0 {
            // SAFETY: `x` and `packed` are C-contiguous with rows of `bytes` bytes; `i < rows`
            // rows of `x` and `j < cap` rows of `packed`, so both rows lie in their blocks. They
            // are distinct blocks (`packed` is fresh in `mask`, a fresh cast of the values in
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
    Ok(())
}
