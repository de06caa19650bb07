//! The `select` kernel family (`select.cu`): single-pass selection (stream compaction) in the
//! style of CUB's `DeviceSelect::Flagged`, with the Rust functions that launch it.
//!
//! One block per tile of [`TILE`] flags; tiles are taken in order from a dynamic counter.
//! Each thread loads its 16 consecutive flags (16-byte loads), makes a 16-bit mask of the
//! non-zero ones, and the block ranks them (a warp scan of the per-thread counts and a scan of
//! the 8 warp totals). Warp 0 then publishes the tile's count and looks back over its
//! predecessors' published counts and prefixes (decoupled look-back; status and value share
//! one 64-bit word, so one load sees both) for the tile's output offset, and publishes its
//! inclusive prefix. The selected rows are then moved:
//!
//! - `Pack` (rows of one element): each thread loads its own 16 elements (16-byte loads, only
//!   the vectors holding a selected element) before the look-back, writes the selected ones
//!   to their tile ranks in shared memory, and the block writes the tile's run of output
//!   contiguously;
//! - `Rows`, `Expand`, `Coords`: the tile's selected flags are listed in shared memory (local
//!   indices in order) and the block copies rows (`Rows`: `x` to the packed output; `Expand`:
//!   packed values back to `x`) or writes indices (`Coords`: flat indices unravelled over up
//!   to [`MAX_COORD_DIMS`] dimensions, with output strides for `nonzero`'s and `argwhere`'s
//!   layouts).
//!
//! The last tile writes the total count to device memory; the host reads those 8 bytes to
//! size the result.

use super::Count;
use crate::array::Array;
use crate::backend::cuda::codegen::PRELUDE;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use std::fmt::Write;
use std::sync::Arc;

/// Threads per block.
pub(crate) const THREADS: usize = crate::backend::cuda::launch::THREADS as usize;
/// Flags per thread (consecutive).
pub(crate) const ITEMS: usize = 16;
/// Flags per tile (one block each).
pub(crate) const TILE: usize = THREADS * ITEMS;
/// Most dimensions `Coords` unravels flat indices over.
pub(crate) const MAX_COORD_DIMS: usize = 16;

/// How a flag is tested: its size in bytes, whether it is a float (then `-0.0` is zero;
/// NaN is non-zero, as NumPy's truth value), and whether it is a complex64 (two float32
/// parts in one 8-byte word, non-zero when either part is).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Flag {
    pub size: u8,
    pub float: bool,
    pub complex: bool,
}

impl Flag {
    /// complex128 flags are made bool first ([`flag_words`]), so they never get here.
    pub fn of(d: DType) -> Flag {
        Flag { size: d.itemsize() as u8, float: d.is_inexact(), complex: d.is_complex() }
    }
    fn ty(self) -> &'static str {
        uty(self.size as usize)
    }
    /// C expression: whether the raw word `v` is non-zero.
    fn nz(self, v: &str) -> String {
        if !self.float {
            return format!("({v} != 0)");
        }
        let m = match (self.size, self.complex) {
            (2, _) => "0x7fffu",
            (4, _) => "0x7fffffffu",
            (_, true) => "0x7fffffff7fffffffull",
            _ => "0x7fffffffffffffffull",
        };
        format!("(({v} & {m}) != 0)")
    }
}

/// The flags as the kernels read them: complex128 (16-byte words) as bool (either part
/// non-zero), every other dtype as it is.
fn flag_words(flags: &Array) -> Result<Array> {
    if flags.dtype() == DType::Complex128 {
        flags.astype(DType::Bool)
    } else {
        Ok(flags.view())
    }
}

fn uty(size: usize) -> &'static str {
    match size {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        _ => "u64",
    }
}

/// Identity of one generated kernel of this family. `size` is the moved words' size in bytes
/// (1, 2, 4 or 8; elements are copied as raw words, a 16-byte complex128 as two 8-byte words).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SelectKey {
    /// Rows of one element: `out[rank(i)] = x[i]` for each selected `i`.
    Pack { flag: Flag, size: u8 },
    /// Rows of `row` elements: `out[rank(i) * row + e] = x[i * row + e]`.
    Rows { flag: Flag, size: u8 },
    /// The reverse of `Rows`: `x[i * row + e] = packed[rank(i) * row + e]`.
    Expand { flag: Flag, size: u8 },
    /// Indices: coordinate `d` of selected flat index `i` goes to `out[rank(i) * sj + d * sd]`.
    Coords { flag: Flag },
}

impl KernelKey for SelectKey {
    const FAMILY: &'static str = "select";
    fn entry(&self) -> &str {
        match self {
            SelectKey::Pack { .. } => "select_pack",
            SelectKey::Rows { .. } => "select_rows",
            SelectKey::Expand { .. } => "select_expand",
            SelectKey::Coords { .. } => "select_coords",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("THREADS", THREADS.to_string()),
            ("ITEMS", ITEMS.to_string()),
            ("MAX_COORD_DIMS", MAX_COORD_DIMS.to_string()),
        ]
    }
    fn source(&self) -> String {
        self.prelude() + include_str!("select.cu")
    }
}

impl SelectKey {
    fn flag(self) -> Flag {
        match self {
            SelectKey::Pack { flag, .. }
            | SelectKey::Rows { flag, .. }
            | SelectKey::Expand { flag, .. }
            | SelectKey::Coords { flag } => flag,
        }
    }

    /// The macros `select.cu` expects for this kernel: the variant, the flag's word and test,
    /// and the moved elements' word.
    fn prelude(self) -> String {
        let flag = self.flag();
        let (variant, size) = match self {
            SelectKey::Pack { size, .. } => ("PACK", Some(size)),
            SelectKey::Rows { size, .. } => ("ROWS", Some(size)),
            SelectKey::Expand { size, .. } => ("EXPAND", Some(size)),
            SelectKey::Coords { .. } => ("COORDS", None),
        };
        let mut s = format!(
            "{PRELUDE}#define VARIANT_{variant}\ntypedef {ft} FW;\n#define FV {fv}\n#define NZ(v) {nz}\n",
            ft = flag.ty(),
            fv = 16 / flag.size as usize,
            nz = flag.nz("(v)"),
        );
        if let Some(size) = size {
            writeln!(s, "typedef {} W;", uty(size as usize)).unwrap();
        }
        if let SelectKey::Pack { size, .. } = self {
            writeln!(s, "#define WV {}", 16 / size as usize).unwrap();
        }
        s
    }

    /// Every kernel of the family (for source checks).
    #[cfg(test)]
    pub fn all() -> Vec<SelectKey> {
        let mut v = Vec::new();
        for d in [
            DType::Bool,
            DType::UInt16,
            DType::Int32,
            DType::Int64,
            DType::Float16,
            DType::Float32,
            DType::Float64,
            DType::Complex64,
        ] {
            {
                let flag = Flag::of(d);
                v.push(SelectKey::Coords { flag });
                for e in [1u8, 2, 4, 8] {
                    v.push(SelectKey::Pack { flag, size: e });
                    v.push(SelectKey::Rows { flag, size: e });
                    v.push(SelectKey::Expand { flag, size: e });
                }
            }
        }
        v
    }
}

/// The selected count of a launched selection, in device memory until read.
pub(crate) struct PendingCount {
    dev: Arc<CudaDevice>,
    tmp: Array,
}

impl PendingCount {
    /// Waits for the kernel and reads the count (8 bytes).
    pub fn read(self) -> Result<usize> {
        let mut b = [0u8; 8];
        self.dev.dtoh(&mut b, dptr(&self.tmp)? + 8, false)?;
        Ok(u64::from_le_bytes(b) as usize)
    }
}

impl From<PendingCount> for Count {
    fn from(p: PendingCount) -> Count {
        Count::Device(p)
    }
}

/// A launch being prepared: the device, the kernel, the temporary words (tile counter,
/// total, tile status), the parameters so far and the grid (one block per tile).
type Launch = (Arc<CudaDevice>, Arc<crate::backend::cuda::Kernel>, Array, Params, u32);

/// Checks `flags` (a C-contiguous 1-d array on a GPU) and starts a launch: the kernel of
/// `key`, the tile status words zeroed, and the common parameters pushed.
fn begin(key: SelectKey, flags: &Array) -> Result<Launch> {
    let dev = dev_of(flags)?;
    let n = flags.size();
    if flags.ndim() != 1 || !flags.is_c_contiguous() {
        return Err(Error::InvalidArgument("selection flags must be a contiguous 1-d array".into()));
    }
    let ntiles = n.div_ceil(TILE).max(1);
    if ntiles > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("selection over {n} elements (too many tiles)")));
    }
    let k = dev.kernel(&key)?;
    // Tile counter (8 bytes), total (8 bytes), then one status word per tile; all zeroed.
    let bytes = 16 + 8 * ntiles;
    let tmp = Array::alloc(&[bytes], DType::UInt8, flags.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, bytes)?;
    let fp = dptr(flags)?;
    let mut p = Params::new();
    p.push(fp);
    p.push(n as i64);
    p.push((fp % 16 == 0) as i32);
    p.push(t + 16);
    p.push(t);
    p.push(t + 8);
    Ok((dev, k, tmp, p, ntiles as u32))
}

/// The kernels' word size and the row length in words for rows of `row` elements of
/// `itemsize` bytes: 16-byte elements (complex128) move as two 8-byte words.
fn word(itemsize: usize, row: usize) -> Result<(u8, usize)> {
    match itemsize {
        1 | 2 | 4 | 8 => Ok((itemsize as u8, row)),
        16 => Ok((8, 2 * row)),
        _ => Err(Error::InvalidArgument(format!("selection of {itemsize}-byte elements"))),
    }
}

/// Moves the rows (of `row` elements) of the C-contiguous `x` whose flag is non-zero to the
/// start of `out` (room for every row), in order. Returns the pending count of rows.
pub(crate) fn compact(x: &Array, flags: &Array, out: &Array, row: usize) -> Result<Count> {
    if row == 0 || x.size() != flags.size() * row || out.size() < x.size() {
        return Err(Error::InvalidArgument("selection: rows and buffers do not match".into()));
    }
    let (size, row) = word(x.itemsize(), row)?;
    let flags = &flag_words(flags)?;
    let flag = Flag::of(flags.dtype());
    let key = if row == 1 { SelectKey::Pack { flag, size } } else { SelectKey::Rows { flag, size } };
    let (dev, k, tmp, mut p, grid) = begin(key, flags)?;
    let xp = dptr(x)?;
    if row == 1 {
        p.push(xp);
        p.push((xp % 16 == 0) as i32);
    } else {
        p.push(row as i64);
        p.push(xp);
    }
    p.push(dptr(out)?);
    // SAFETY: the parameters match `select_pack` / `select_rows` in select.cu; `x`, `out` and
    // `tmp` are alive and return to the pool only in stream order.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32)? };
    Ok(PendingCount { dev, tmp }.into())
}

/// The reverse of [`compact`]: row `r` of the C-contiguous `packed` goes to the `r`-th
/// selected row of `x` (C-contiguous). `packed` must hold every selected row.
pub(crate) fn expand(x: &Array, flags: &Array, packed: &Array, row: usize) -> Result<()> {
    if row == 0 || x.size() != flags.size() * row {
        return Err(Error::InvalidArgument("selection: rows and buffers do not match".into()));
    }
    let (size, row) = word(x.itemsize(), row)?;
    let flags = &flag_words(flags)?;
    let key = SelectKey::Expand { flag: Flag::of(flags.dtype()), size };
    let (dev, k, _tmp, mut p, grid) = begin(key, flags)?;
    p.push(row as i64);
    p.push(dptr(x)?);
    p.push(dptr(packed)?);
    // SAFETY: the parameters match `select_expand` in select.cu; `x`, `packed` and `_tmp` return
    // to the pool only in stream order.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32) }
}

/// Indices of the non-zero elements of the C-contiguous `a` (any dtype): coordinate `d`
/// (over `a`'s shape; the flat index when `flat`) of the `j`-th goes to `out[j * sj + d * sd]`
/// (int64). `out` must have room for every selected element.
pub(crate) fn coords(a: &Array, out: &Array, flat: bool, sj: i64, sd: i64) -> Result<Count> {
    let dims: Vec<usize> = if flat { vec![a.size()] } else { a.shape().to_vec() };
    if dims.len() > MAX_COORD_DIMS || dims.is_empty() {
        return Err(Error::NotImplemented(format!("indices over {} dimensions", dims.len())));
    }
    let flags = flag_words(&a.reshape([a.size()])?)?;
    let key = SelectKey::Coords { flag: Flag::of(flags.dtype()) };
    let (dev, k, tmp, mut p, grid) = begin(key, &flags)?;
    p.push(dptr(out)?);
    p.push(sj);
    p.push(sd);
    let mut d = [0i64; 1 + MAX_COORD_DIMS];
    d[0] = dims.len() as i64;
    for (q, &x) in dims.iter().enumerate() {
        d[1 + q] = x as i64;
    }
    p.push_i64s(&d);
    // SAFETY: the parameters match `select_coords` in select.cu (`Dims` by value); `out` and
    // `tmp` return to the pool only in stream order.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32)? };
    Ok(PendingCount { dev, tmp }.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};

    /// The text of `select.cu` a variant compiles: the lines outside the other variants'
    /// `#if defined(VARIANT_X)` / `#elif` / `#else` sections (one level, as the file has).
    fn variant_text(variant: &str) -> String {
        let cu = include_str!("select.cu");
        let mut out = String::new();
        // Per open `#if`: whether the current section is taken, and whether one was.
        let mut stack: Vec<(bool, bool)> = Vec::new();
        for line in cu.lines() {
            let t = line.trim_start();
            let taken = |cond: &str| {
                cond.split("||").any(|c| c.trim() == format!("defined(VARIANT_{variant})"))
                    || !cond.contains("VARIANT_")
            };
            if let Some(cond) = t.strip_prefix("#if ") {
                let on = taken(cond);
                stack.push((on, on));
            } else if let Some(cond) = t.strip_prefix("#elif ") {
                let top = stack.last_mut().unwrap();
                let on = !top.1 && taken(cond);
                *top = (on, top.1 || on);
            } else if t.starts_with("#else") {
                let top = stack.last_mut().unwrap();
                *top = (!top.1, true);
            } else if t.starts_with("#endif") {
                stack.pop().unwrap();
            } else if stack.iter().all(|s| s.0) {
                out.push_str(line);
                out.push('\n');
            }
        }
        assert!(stack.is_empty());
        out
    }

    /// Every kernel of the family: the prelude selects one variant and defines what
    /// `select.cu` expects; one entry point, balanced braces, the parameters the launchers
    /// push, barriers outside thread-dependent branches, shared memory under the static
    /// 48 KiB; and (where NVRTC is present) every kernel compiles.
    #[test]
    fn select_sources() {
        let keys = SelectKey::all();
        assert_eq!(keys.len(), 8 * 13);
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        let mut compiled = 0;
        for (q, key) in keys.into_iter().enumerate() {
            let src = key.source();
            if let Some(d) = &dump {
                std::fs::write(std::path::Path::new(d).join(format!("{}-{q}.cu", key.entry())), &src).unwrap();
            }
            let variant = key.entry().strip_prefix("select_").unwrap().to_uppercase();
            assert!(src.starts_with(PRELUDE));
            assert_eq!(src.matches("#define VARIANT_").count(), 1, "{key:?}");
            assert!(src.contains(&format!("#define VARIANT_{variant}\n")), "{key:?}");
            assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
            assert_eq!(src.matches('(').count(), src.matches(')').count(), "{key:?}");
            assert!(src.contains(&format!("#define NZ(v) {}\n", key.flag().nz("(v)"))), "{key:?}");
            assert_eq!(src.contains("typedef u") && src.contains(" W;\n"), !matches!(key, SelectKey::Coords { .. }));
            // The variant's kernel as NVRTC sees it.
            let text = variant_text(&variant);
            assert_eq!(text.matches("__global__").count(), 1, "{key:?}");
            assert!(text.contains(&format!("#define ENTRY {}\n", key.entry())), "{key:?}");
            assert_eq!(text.matches('{').count(), text.matches('}').count(), "{key:?}");
            // Barriers are never inside a branch that depends on the thread.
            assert_eq!(text.matches("__syncthreads()").count(), 4, "{key:?}");
            // The look-back publishes the tile before waiting on its predecessors.
            let publish = text.find("vs[tile] = AGG").unwrap();
            let wait = text.find("st = lb_spin(vs + p);").unwrap();
            assert!(publish < wait);
            // Parameter count: the common six, then the mode's.
            let mode = text.lines().find_map(|l| l.strip_prefix("#define MODE_PARAMS ")).unwrap();
            let want = match key {
                SelectKey::Pack { .. } | SelectKey::Rows { .. } | SelectKey::Expand { .. } => 3,
                SelectKey::Coords { .. } => 4,
            };
            assert_eq!(mode.matches(',').count() + 1, want, "{key:?}: {mode}");
            let shared: usize = match key {
                SelectKey::Pack { size, .. } => TILE * size as usize,
                _ => TILE * 2,
            };
            assert!(shared + 64 <= 48 * 1024);
            if nvrtc_sample(q) {
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("select kernels: {compiled} compiled by NVRTC");
        if std::env::var_os("CUPRUM_PRINT_SOURCE").is_some() {
            let flag = Flag::of(DType::Bool);
            println!("{}", SelectKey::Pack { flag, size: 4 }.source());
            println!("{}", SelectKey::Coords { flag }.source());
        }
    }

    #[test]
    fn flag_tests() {
        assert_eq!(Flag::of(DType::Bool).nz("v"), "(v != 0)");
        assert_eq!(Flag::of(DType::Float32).nz("v"), "((v & 0x7fffffffu) != 0)");
        assert_eq!(Flag::of(DType::Float16).nz("v"), "((v & 0x7fffu) != 0)");
        assert_eq!(Flag::of(DType::Float64).nz("v"), "((v & 0x7fffffffffffffffull) != 0)");
        assert_eq!(Flag::of(DType::Int64).nz("v"), "(v != 0)");
        assert_eq!(Flag::of(DType::Complex64).nz("v"), "((v & 0x7fffffff7fffffffull) != 0)");
    }
}
