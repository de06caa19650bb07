//! The CPU selection, with the signatures of `select/cuda.rs`: rows of C-contiguous arrays
//! where flags (any dtype; non-zero selects) are set, packed in order into a buffer with room
//! for every row, expanded back, or the coordinates of the non-zero elements.

use super::Count;
use crate::array::Array;
use crate::backend::cpu::values::store_values;
use crate::backend::cpu::PAR_THRESHOLD;
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;

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
    let (xp, mp, pp) = (x.cpu_ptr().get(), mask.cpu_ptr().get() as *const u8, packed.cpu_ptr().get());
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
    let bytes = row * x.itemsize();
    let rows = mask.size();
    if out.size() < rows * row {
        return Ok(Count::Known(move_rows(x, &mask, out, row, false)));
    }
    let _l = CpuLocks::new(&[&x.storage, &mask.storage], &[&out.storage]);
    debug_assert!(x.size() == rows * row);
    let (xp, pp) = (x.cpu_ptr(), out.cpu_ptr());
    // SAFETY: `mask` is a C-contiguous bool array of `rows` elements, read-locked above.
    let m = unsafe { std::slice::from_raw_parts(mask.cpu_ptr().get() as *const u8, rows) };
    let count = |c: &[u8]| c.iter().map(|&f| (f != 0) as usize).sum::<usize>();
    let par = rows * row >= PAR_THRESHOLD;
    // Counts per block (fixed blocks: the split does not depend on the threads), then where
    // each block's rows start in `out`.
    let counts: Vec<usize> =
        if par { m.par_chunks(SELECT_BLOCK).map(count).collect() } else { m.chunks(SELECT_BLOCK).map(count).collect() };
    let starts: Vec<usize> = counts
        .iter()
        .scan(0, |s, &c| {
            *s += c;
            Some(*s - c)
        })
        .collect();
    let total = counts.iter().sum();
    let block = |(b, c): (usize, &[u8])| {
        let (first, cnt) = (b * SELECT_BLOCK, counts[b]);
        // SAFETY: rows `first..first + c.len()` of `x` and rows `starts[b]..starts[b] + cnt` of
        // `out` (`out` has room for every row, and the blocks' ranges are disjoint: `starts` are
        // the prefix sums of `counts`), C-contiguous rows of `bytes` bytes in distinct blocks
        // (`out` is a fresh buffer), `out` write-locked. The flags were counted above; should
        // they change meanwhile (a writer through another view), the loop still stops at `cnt`.
        unsafe { compact_block(xp.get().add(first * bytes), c, pp.get().add(starts[b] * bytes), bytes, cnt) };
    };
    if par {
        m.par_chunks(SELECT_BLOCK).enumerate().for_each(block);
    } else {
        m.chunks(SELECT_BLOCK).enumerate().for_each(block);
    }
    Ok(Count::Known(total))
}

/// Rows per block of [`compact`].
const SELECT_BLOCK: usize = 1 << 15;

/// Copies the rows of `src` (of `bytes` bytes) whose flag in `m` is non-zero, in order, to
/// `dst`, at most `cnt` of them. Rows of 1, 2, 4 or 8 bytes are moved as one element each,
/// without a branch: every row is written at the next free place, which moves on only past a
/// selected one (and the loop stops once `cnt` are placed, so nothing is written beyond).
///
/// # Safety
/// `src` holds `m.len()` rows and `dst` room for `cnt` rows, aligned for rows of `bytes` bytes
/// (array elements are aligned to their itemsize, which divides `bytes`), not overlapping.
unsafe fn compact_block(src: *const u8, m: &[u8], dst: *mut u8, bytes: usize, cnt: usize) {
    /// # Safety
    /// As `compact_block` with `T` of `bytes` bytes.
    unsafe fn typed<T: Copy>(src: *const T, m: &[u8], dst: *mut T, cnt: usize) {
        if cnt == 0 {
            return;
        }
        let mut j = 0;
        for (i, &f) in m.iter().enumerate() {
            // SAFETY: `i < m.len()` rows of `src`; `j < cnt` rows of `dst` (we stop at `cnt`).
            unsafe { dst.add(j).write(src.add(i).read()) };
            j += (f != 0) as usize;
            if j == cnt {
                break;
            }
        }
    }
    // SAFETY: the caller's contract; a row is read and written as one `T` of its size only
    // where both addresses are checked aligned for `T`, otherwise byte-wise (no alignment).
    unsafe {
        match bytes {
            1 => typed(src, m, dst, cnt),
            2 if (src as usize | dst as usize).is_multiple_of(2) => typed(src as *const u16, m, dst as *mut u16, cnt),
            4 if (src as usize | dst as usize).is_multiple_of(4) => typed(src as *const u32, m, dst as *mut u32, cnt),
            8 if (src as usize | dst as usize).is_multiple_of(8) => typed(src as *const u64, m, dst as *mut u64, cnt),
            _ => {
                let mut j = 0;
                for (i, &f) in m.iter().enumerate() {
                    if j == cnt {
                        break;
                    }
                    if f != 0 {
                        std::ptr::copy_nonoverlapping(src.add(i * bytes), dst.add(j * bytes), bytes);
                        j += 1;
                    }
                }
            }
        }
    }
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
