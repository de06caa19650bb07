//! The `indexing` kernel family: gather (`a[i0, i1]`, `take`), `take_along_axis` and the
//! range check (`gather.cu`), scatter (`a[i0, i1] = v`, `put`) and `add.at` (`scatter.cu`),
//! both after the index helpers of `indices.cu`; with the Rust functions that launch them.
//!
//! Index arrays reach the kernels C-contiguous, one integer dtype per launch (the kernel is
//! generated for it); negative indices count from the end. An out-of-range index never leads
//! to an access: the kernel skips it and records one such index (axis and value) in a 16-byte
//! device record that the host reads back in one copy, so the caller can return
//! `Error::IndexOutOfRange`. Which bad index is reported when there are several is not
//! specified on the GPU.

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, err_record, read_err, Params, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use std::fmt::Write;

/// Most index arrays one gather or scatter launch takes (`a[i0, ..., i15]`).
pub(crate) const MAX_K: usize = 16;
/// Most dimensions of a `take_along_axis` launch.
pub(crate) const MAX_ND: usize = 16;

/// Identity of one generated kernel of this family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IndexKey {
    /// `out[o, t, c] = src[o, pos(t), c]` in words of `word` bytes, index arrays of `idx`,
    /// with the range check fused in.
    Gather { word: u8, idx: DType },
    /// Range check of index arrays only (before a scatter, so nothing is written on error).
    Check { idx: DType },
    /// `dst[pos(r), c] = vals[(r, c) mod nvals]` in words of `word` bytes (scatter and put).
    /// `claim`: 0 every row writes (distinct indices); 1 or 2, only the row that [`Claim`]ed
    /// its place, the last one (1: a table over the places of `dst`, 2: a hash table).
    ///
    /// [`Claim`]: IndexKey::Claim
    Scatter { word: u8, idx: DType, claim: u8 },
    /// The last row writing to each place: `atomicMax` of the row number + 1 per place
    /// (`hashed`: in an open-addressing table of (place + 1, row + 1) pairs).
    Claim { idx: DType, hashed: bool },
    /// `dst[pos(r), c] += vals[r, c]` with atomics (NumPy's `add.at`) for elements of `dtype`.
    ScatterAdd { dtype: DType, idx: DType },
    /// `take_along_axis` over strided (possibly broadcast) source and index arrays.
    TakeAlong { word: u8, idx: DType },
}

/// C type of a raw word of `word` bytes (16: `W16` of `indices.cu`, declared here).
fn word_ty(word: u8) -> &'static str {
    match word {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        8 => "u64",
        _ => "struct W16",
    }
}

/// The index arrays' helpers (`Idx`, `norm_index`, `report`, `row_pos`), put before
/// `gather.cu` and `scatter.cu`.
const INDICES: &str = include_str!("indices.cu");

impl KernelKey for IndexKey {
    const FAMILY: &'static str = "indexing";
    fn entry(&self) -> &str {
        match self {
            IndexKey::Gather { .. } => "gather",
            IndexKey::Check { .. } => "check",
            IndexKey::Scatter { .. } => "scatter",
            IndexKey::Claim { .. } => "claim",
            IndexKey::ScatterAdd { .. } => "scatter_add",
            IndexKey::TakeAlong { .. } => "take_along",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        let mut d = vec![("THREADS", THREADS.to_string())];
        d.push(("MAX_K", MAX_K.to_string()));
        if let IndexKey::TakeAlong { .. } = self {
            d.push(("MAX_ND", MAX_ND.to_string()));
        }
        d
    }
    fn source(&self) -> String {
        let mut s = self.prelude();
        match self {
            IndexKey::Gather { .. } | IndexKey::Check { .. } | IndexKey::TakeAlong { .. } => {
                s += INDICES;
                s += include_str!("gather.cu");
            }
            IndexKey::Scatter { .. } | IndexKey::Claim { .. } | IndexKey::ScatterAdd { .. } => {
                s += INDICES;
                s += include_str!("scatter.cu");
            }
        }
        s
    }
}

impl IndexKey {
    /// The dtype of the index arrays.
    fn idx(self) -> DType {
        match self {
            IndexKey::Gather { idx, .. }
            | IndexKey::Check { idx }
            | IndexKey::Scatter { idx, .. }
            | IndexKey::Claim { idx, .. }
            | IndexKey::ScatterAdd { idx, .. }
            | IndexKey::TakeAlong { idx, .. } => idx,
        }
    }

    /// The macros the kernel's `.cu` file expects (see the file's header comment).
    fn prelude(self) -> String {
        let mut s = String::from(PRELUDE);
        writeln!(s, "#define VARIANT_{}", self.entry().to_uppercase()).unwrap();
        // Unsigned (and bool) index values never wrap from the end.
        let idx = self.idx();
        let unsigned = idx.is_unsigned_int() || idx == DType::Bool;
        writeln!(s, "typedef {} IT;\n#define IDX_UNSIGNED {}", storage_ty(idx), unsigned as i32).unwrap();
        match self {
            IndexKey::Gather { word, .. } | IndexKey::TakeAlong { word, .. } => {
                writeln!(s, "typedef {} W;", word_ty(word)).unwrap();
            }
            IndexKey::Check { .. } => {}
            IndexKey::Scatter { word, claim, .. } => {
                writeln!(s, "typedef {} W;\n#define CLAIM {claim}", word_ty(word)).unwrap();
            }
            IndexKey::Claim { hashed, .. } => writeln!(s, "#define HASHED {}", hashed as i32).unwrap(),
            IndexKey::ScatterAdd { dtype, .. } => {
                // float16 is stored as u16 but adds as a float (add_at_f16).
                let add = if dtype == DType::Float16 { "add_at_f16" } else { "add_at" };
                writeln!(s, "typedef {} T;\n#define ADD_AT {add}", storage_ty(dtype)).unwrap();
            }
        }
        s
    }

    /// Every kernel of the family (for tests of the generated sources).
    #[cfg(test)]
    pub fn all() -> Vec<IndexKey> {
        use crate::core::dtype::ALL_DTYPES;
        let ints: Vec<DType> = ALL_DTYPES.iter().copied().filter(|d| d.is_integer()).collect();
        let mut v = Vec::new();
        for &idx in &ints {
            for word in [1u8, 2, 4, 8, 16] {
                v.push(IndexKey::Gather { word, idx });
                for claim in 0..3 {
                    v.push(IndexKey::Scatter { word, idx, claim });
                }
            }
            for word in [1u8, 2, 4, 8] {
                v.push(IndexKey::TakeAlong { word, idx });
            }
            v.push(IndexKey::Check { idx });
            v.push(IndexKey::Claim { idx, hashed: false });
            v.push(IndexKey::Claim { idx, hashed: true });
            for &dtype in ALL_DTYPES.iter() {
                v.push(IndexKey::ScatterAdd { dtype, idx });
            }
        }
        v
    }
}

// -------------------------------------------------------------------------------- launches

/// A bad index found by a kernel: the position of its index array (or 0) and its value.
pub(crate) type BadIndex = Option<(usize, i64)>;

/// The largest word (16, 8, 4, 2 or 1 bytes) that divides `row_bytes` and every address.
pub(crate) fn word_for(row_bytes: usize, ptrs: &[u64]) -> u8 {
    for w in [16u64, 8, 4, 2] {
        if (row_bytes as u64).is_multiple_of(w) && ptrs.iter().all(|p| p.is_multiple_of(w)) {
            return w as u8;
        }
    }
    1
}

/// The `Idx` struct of the kernels: count, pointers, axis lengths. The index arrays must be
/// C-contiguous, of one integer dtype, with one entry per row.
fn idx_words(idx: &[&Array], lens: &[usize]) -> Result<([i64; 1 + 2 * MAX_K], DType)> {
    if idx.is_empty() || idx.len() > MAX_K || idx.len() != lens.len() {
        return Err(Error::InvalidArgument(format!("{} index arrays for one GPU launch (1 to {MAX_K})", idx.len())));
    }
    let dt = idx[0].dtype();
    let mut w = [0i64; 1 + 2 * MAX_K];
    w[0] = idx.len() as i64;
    for (d, (i, &len)) in idx.iter().zip(lens).enumerate() {
        if i.dtype() != dt || !i.is_c_contiguous() {
            return Err(Error::InvalidArgument("GPU index arrays must be contiguous and of one dtype".into()));
        }
        w[1 + d] = dptr(i)? as i64;
        w[1 + MAX_K + d] = len as i64;
    }
    Ok((w, dt))
}

/// `out[o, t, :] = src[o, pos(t), :]` for `o < outer` and the `nrows` rows `t` the index arrays
/// select among the `nsrc` rows of `src` (C-contiguous, rows of `row_bytes`); `out` is
/// C-contiguous. Waits for the kernel and returns the bad index, if any.
pub(crate) fn gather(
    src: &Array,
    idx: &[&Array],
    lens: &[usize],
    outer: usize,
    nsrc: usize,
    row_bytes: usize,
    out: &Array,
) -> Result<BadIndex> {
    let dev = dev_of(out)?;
    let nrows = idx[0].size();
    let rec = err_record(out)?;
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 {
        return Ok(None);
    }
    if row_bytes == 0 || outer == 0 {
        return check_into(idx, lens, &rec).and_then(|_| read_err(&rec));
    }
    let word = word_for(row_bytes, &[dptr(src)?, dptr(out)?]);
    let rw = row_bytes / word as usize;
    let total = outer * nrows * rw;
    let k = dev.kernel(&IndexKey::Gather { word, idx: idt })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(nrows as i64);
    p.push(rw as i64);
    p.push(nsrc as i64);
    p.push(dptr(src)?);
    p.push(dptr(out)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match `gather` in gather.cu; every array outlives the launch (the
    // pool reuses memory only in stream order) and the record is read after it.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS)? };
    read_err(&rec)
}

fn check_into(idx: &[&Array], lens: &[usize], rec: &Array) -> Result<()> {
    let dev = dev_of(rec)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 {
        return Ok(());
    }
    let k = dev.kernel(&IndexKey::Check { idx: idt })?;
    let mut p = Params::new();
    p.push(nrows as i64);
    p.push_i64s(&iw);
    p.push(dptr(rec)?);
    // SAFETY: the parameters match `check` in gather.cu.
    unsafe { p.launch(&dev, &k, dev.grid_for(nrows, THREADS as usize), THREADS) }
}

/// Checks every index against its axis length (waits; returns the bad index, if any).
pub(crate) fn check(idx: &[&Array], lens: &[usize]) -> Result<BadIndex> {
    let rec = err_record(idx[0])?;
    check_into(idx, lens, &rec)?;
    read_err(&rec)
}

/// `dst[pos(r), :] = vals[r, :]` for the rows `r` the (checked) index arrays select; `dst` and
/// `vals` are C-contiguous with rows of `row_bytes`. With `cycle = Some(m)` (`put`: rows of
/// one element) the values repeat every `m` elements. With `last_wins`, a place that several
/// rows select gets the last one's values, as in NumPy (a first kernel finds the last row of
/// each place); without, the indices must be distinct. Does not wait.
pub(crate) fn scatter(
    dst: &Array,
    idx: &[&Array],
    lens: &[usize],
    row_bytes: usize,
    vals: &Array,
    cycle: Option<usize>,
    last_wins: bool,
) -> Result<()> {
    let dev = dev_of(dst)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 || row_bytes == 0 {
        return Ok(());
    }
    let word = if cycle.is_some() { dst.itemsize() as u8 } else { word_for(row_bytes, &[dptr(dst)?, dptr(vals)?]) };
    let rw = row_bytes / word as usize;
    let total = nrows * rw;
    let nvals = cycle.unwrap_or(total);
    if nvals == 0 {
        return Err(Error::InvalidArgument("scatter: no values".into()));
    }
    let rec = err_record(dst)?;
    // The owner of each place: a word per place of `dst` when those are not many more than
    // the rows, else a hash table of twice the rows' size (a power of two).
    let places = dst.size() * dst.itemsize() / row_bytes;
    let claim: u8 = if !last_wins || nrows < 2 {
        0
    } else if places <= 2 * nrows + (1 << 20) {
        1
    } else {
        2
    };
    let (owner, bits) = match claim {
        0 => (None, 0),
        1 => (Some(places * 8), 0),
        _ => {
            let slots = (2 * nrows).next_power_of_two();
            (Some(slots * 16), slots.trailing_zeros() as i32)
        }
    };
    let owner = match owner {
        Some(bytes) => {
            let t = Array::alloc(&[bytes], DType::UInt8, dst.device(), false)?;
            dev.memset_zero(dptr(&t)?, bytes)?;
            let k = dev.kernel(&IndexKey::Claim { idx: idt, hashed: claim == 2 })?;
            let mut p = Params::new();
            p.push(nrows as i64);
            p.push(dptr(&t)?);
            p.push(bits);
            p.push_i64s(&iw);
            p.push(dptr(&rec)?);
            // SAFETY: the parameters match `claim` in scatter.cu; `t` lives until the scatter ran.
            unsafe { p.launch(&dev, &k, dev.grid_for(nrows, THREADS as usize), THREADS)? };
            Some(t)
        }
        None => None,
    };
    let k = dev.kernel(&IndexKey::Scatter { word, idx: idt, claim })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(rw as i64);
    p.push(nvals as i64);
    p.push(dptr(dst)?);
    p.push(dptr(vals)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    p.push(owner.as_ref().map(dptr).transpose()?.unwrap_or(0));
    p.push(bits);
    // SAFETY: the parameters match `scatter` in scatter.cu; arrays live until the stream ran it.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS) }
}

/// `dst[pos(r), c] += vals[r, c]` (atomics; rows of `row` elements of `dst`'s dtype; `dst` and
/// `vals` C-contiguous, indices checked). Does not wait.
pub(crate) fn scatter_add(dst: &Array, idx: &[&Array], lens: &[usize], row: usize, vals: &Array) -> Result<()> {
    let dev = dev_of(dst)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    let total = nrows * row;
    if total == 0 {
        return Ok(());
    }
    let rec = err_record(dst)?;
    let k = dev.kernel(&IndexKey::ScatterAdd { dtype: dst.dtype(), idx: idt })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(row as i64);
    p.push(dptr(dst)?);
    p.push(dptr(vals)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match `scatter_add` in scatter.cu.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS) }
}

/// `take_along_axis`: `out` (C-contiguous, shape `shape`) from `src` and `idx`, views already
/// broadcast to `shape` except along `axis` (where `src` has `alen` entries). Waits; returns
/// the bad index value, if any.
pub(crate) fn take_along(src: &Array, idx: &Array, axis: usize, alen: usize, out: &Array) -> Result<Option<i64>> {
    let dev = dev_of(out)?;
    let total = out.size();
    let nd = out.ndim();
    if nd > MAX_ND || src.ndim() != nd || idx.ndim() != nd {
        return Err(Error::NotImplemented(format!(
            "take_along_axis over {nd} dimensions on the GPU (at most {MAX_ND})"
        )));
    }
    if total == 0 {
        return Ok(None);
    }
    let mut lay = [0i64; 1 + 3 * MAX_ND];
    lay[0] = nd as i64;
    for d in 0..nd {
        lay[1 + d] = out.shape()[d] as i64;
        lay[1 + MAX_ND + d] = if d == axis { 0 } else { src.strides()[d] as i64 };
        lay[1 + 2 * MAX_ND + d] = idx.strides()[d] as i64;
    }
    let word = src.itemsize() as u8;
    let rec = err_record(out)?;
    let k = dev.kernel(&IndexKey::TakeAlong { word, idx: idx.dtype() })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(alen as i64);
    p.push(src.strides()[axis] as i64);
    p.push(dptr(src)?);
    p.push(dptr(idx)?);
    p.push(dptr(out)?);
    p.push_i64s(&lay);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match `take_along` in gather.cu; offsets stay inside the views.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS)? };
    Ok(read_err(&rec)?.map(|(_, v)| v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};

    /// Every kernel of the family (every word, index dtype and element dtype the launchers can
    /// ask for): the prelude selects the variant and defines what the `.cu` file expects, the
    /// source is balanced, and (where NVRTC is present) every kernel compiles.
    #[test]
    fn every_index_kernel_source_compiles() {
        let keys = IndexKey::all();
        assert!(keys.len() > 300);
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        let mut compiled = 0;
        for (n, k) in keys.into_iter().enumerate() {
            let src = k.source();
            let name = k.entry();
            if let Some(d) = &dump {
                std::fs::write(std::path::Path::new(d).join(format!("{name}-{n}.cu")), &src).unwrap();
            }
            assert!(src.starts_with(PRELUDE), "{k:?}: starts with the prelude");
            assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}: one variant");
            assert!(src.contains(&format!("#define VARIANT_{}\n", name.to_uppercase())), "{k:?}: variant");
            assert!(
                src.contains(&format!("__launch_bounds__(THREADS) {name}("))
                    || src.contains(&format!("#define ENTRY {name}\n")),
                "{k:?}: kernel"
            );
            // Balanced braces and parentheses (a cheap syntax check without NVRTC).
            let count = |c: char| src.chars().filter(|&x| x == c).count();
            assert_eq!(count('{'), count('}'), "{k:?}: braces\n{src}");
            assert_eq!(count('('), count(')'), "{k:?}: parentheses\n{src}");
            // 64-bit loop indices everywhere.
            assert!(!src.contains("int i = blockIdx"), "{k:?}: 32-bit loop index");
            // The -D constants: THREADS everywhere, MAX_K with the index helpers (NVRTC checks the
            // rest).
            let defines: Vec<&str> = k.defines().into_iter().map(|(d, _)| d).collect();
            assert!(defines.contains(&"THREADS"), "{k:?}");
            assert_eq!(defines.contains(&"MAX_K"), src.contains("[MAX_K]"), "{k:?}");
            if nvrtc_sample(n) {
                compiled += check_compiles(&k) as usize;
            }
        }
        eprintln!("indexing kernels: {compiled} compiled by NVRTC");
    }

    #[test]
    fn index_kernels_use_the_right_atomics() {
        let add = |d| IndexKey::ScatterAdd { dtype: d, idx: DType::Int64 }.source();
        for d in crate::core::dtype::ALL_DTYPES {
            let src = add(d);
            assert!(src.contains(&format!("typedef {} T;\n", storage_ty(d))), "{d}");
            assert!(src.contains("#include \"cuprum/atomics.cuh\""));
            // float16 (stored as u16) adds as a float; every other dtype by its storage type.
            let f16 = d == DType::Float16;
            assert_eq!(src.contains("#define ADD_AT add_at_f16\n"), f16, "{d}");
            assert_eq!(src.contains("#define ADD_AT add_at\n"), !f16, "{d}");
        }
        // Unsigned index arrays never wrap from the end.
        let g = IndexKey::Gather { word: 4, idx: DType::UInt64 }.source();
        assert!(g.contains("typedef u64 IT;\n#define IDX_UNSIGNED 1\n"));
        assert!(g.contains("#if IDX_UNSIGNED\n") && g.contains("u >= (unsigned long long)len"));
        let g = IndexKey::Gather { word: 16, idx: DType::Int8 }.source();
        assert!(
            g.contains("typedef struct W16 W;") && g.contains("#define IDX_UNSIGNED 0\n") && g.contains("s += len")
        );
    }

    #[test]
    fn words_divide_rows_and_addresses() {
        assert_eq!(word_for(64, &[0, 512]), 16);
        assert_eq!(word_for(12, &[0, 512]), 4);
        assert_eq!(word_for(16, &[8, 512]), 8);
        assert_eq!(word_for(6, &[0, 2]), 2);
        assert_eq!(word_for(3, &[0, 0]), 1);
    }
}
