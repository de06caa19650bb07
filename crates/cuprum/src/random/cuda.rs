//! The GPU fill (`random.cu`): one launch per call, each output written once, nothing read
//! back; the parameters of the distribution and of the stream are kernel arguments, so one
//! compiled kernel serves every seed, position and range.

use super::bijection::{Bijection, KEY_WORDS};
#[cfg(test)]
use super::bijection::{LARGE_ROUNDS, ROUNDS};
use super::dist::Kind;
use super::dist::{chunks_per_draw, draws_per_block, ziggurat, Dist, LN2_HI, LN2_LO, ZIG_R};
use super::philox::{round_keys, Stream};
use crate::array::Array;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::error::Result;
use std::fmt::Write;

const THREADS: usize = crate::backend::cuda::launch::THREADS as usize;
/// Most shared memory a block stages its tile's outputs in (bools, 32 a draw, are stored
/// directly instead).
const MAX_STAGE: usize = 16 * 1024;
/// Blocks per SM the grid is sized for (blocks loop over the tiles): several waves of the 5
/// or 6 blocks that fit an SM, so that the block scheduler evens out the tail. Measured on the
/// H100 (2026-11-27, one binary, the count varied, means of two rounds): 4, 8 (the count
/// before), 12, 16, 32 and 64 a SM gave normal_1e8_f32 0.494, 0.465, 0.455, 0.449, 0.436 and
/// 0.446 ms, rand_1e8_f32 0.255, 0.246, 0.243, 0.242, 0.240 and 0.241; one wave (the
/// occupancy API's count) took 0.475 and 0.249.
const BLOCKS_PER_SM: usize = 32;

/// One kernel of the family: the distribution's kind and the output's element size.
///
/// `standard`: the draw itself, without `low + scale * u` (uniforms with low 0 and scale 1, the
/// same bits) or `loc + scale * z` (`standard_normal`, which keeps the ziggurat's -0.0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RandomKey {
    Uniform64 {
        standard: bool,
    },
    Uniform32 {
        standard: bool,
    },
    /// Integers from `cbits`-bit chunks of `bits`-bit draws into `isz`-byte elements.
    Bounded {
        bits: u32,
        cbits: u32,
        isz: u8,
    },
    Normal64 {
        standard: bool,
    },
    Normal32 {
        standard: bool,
    },
    /// One of samplers.rs's distributions into `isz`-byte elements (4: float32; 8: float64, or
    /// int64 for the discrete kinds).
    Sample {
        kind: Kind,
        isz: u8,
    },
}

impl RandomKey {
    fn of(dist: &Dist, isz: usize) -> RandomKey {
        match *dist {
            Dist::Uniform64 { low, scale } => RandomKey::Uniform64 { standard: low == 0.0 && scale == 1.0 },
            Dist::Uniform32 { low, scale } => RandomKey::Uniform32 { standard: low == 0.0 && scale == 1.0 },
            Dist::Normal64 { standard, .. } => RandomKey::Normal64 { standard },
            Dist::Normal32 { standard, .. } => RandomKey::Normal32 { standard },
            Dist::Bounded { bits, .. } => RandomKey::Bounded { bits: dist.bits(), cbits: bits, isz: isz as u8 },
            Dist::Sample { kind, .. } => RandomKey::Sample { kind, isz: isz as u8 },
        }
    }
    fn bits(&self) -> u32 {
        match self {
            RandomKey::Uniform64 { .. } | RandomKey::Normal64 { .. } | RandomKey::Sample { .. } => 64,
            RandomKey::Bounded { bits, .. } => *bits,
            _ => 32,
        }
    }
    fn per(&self) -> u32 {
        match self {
            RandomKey::Bounded { cbits, .. } => chunks_per_draw(*cbits) as u32,
            _ => 1,
        }
    }
    /// Bytes of one tile's outputs.
    fn stage_bytes(&self) -> usize {
        let isz = match self {
            RandomKey::Uniform64 { .. } | RandomKey::Normal64 { .. } => 8,
            RandomKey::Uniform32 { .. } | RandomKey::Normal32 { .. } => 4,
            RandomKey::Bounded { isz, .. } | RandomKey::Sample { isz, .. } => *isz as usize,
        };
        THREADS * draws_per_block(self.bits()) as usize * self.per() as usize * isz
    }
}

fn bits_const(s: &mut String, name: &str, v: f64) {
    writeln!(s, "#define {name} __longlong_as_double(0x{:016x}ll)", v.to_bits()).unwrap();
}

fn table<T: std::fmt::LowerHex>(s: &mut String, ty: &str, name: &str, v: impl Iterator<Item = T>) {
    let items: Vec<String> = v.map(|x| format!("0x{x:x}")).collect();
    writeln!(s, "__constant__ {ty} {name}[256] = {{{}}};", items.join(",")).unwrap();
}

impl KernelKey for RandomKey {
    const FAMILY: &'static str = "random";
    fn entry(&self) -> &str {
        "random_fill"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("STAGE", ((self.stage_bytes() <= MAX_STAGE) as u8).to_string())]
    }
    fn source(&self) -> String {
        let mut s = String::from("#include \"cuprum/prelude.cuh\"\n");
        let (variant, out) = match self {
            RandomKey::Uniform64 { .. } => ("UNIFORM64", "double"),
            RandomKey::Uniform32 { .. } => ("UNIFORM32", "float"),
            RandomKey::Normal64 { .. } => ("NORMAL64", "double"),
            RandomKey::Normal32 { .. } => ("NORMAL32", "float"),
            RandomKey::Bounded { isz, .. } => ("BOUNDED", ["u8", "u16", "u32", "u64"][isz.trailing_zeros() as usize]),
            RandomKey::Sample { kind, isz } => (
                "SAMPLER",
                match (kind.discrete(), isz) {
                    (true, _) => "long long",
                    (false, 4) => "float",
                    _ => "double",
                },
            ),
        };
        if let RandomKey::Sample { kind, .. } = self {
            writeln!(s, "#define KIND {}", *kind as u8).unwrap();
        }
        let cbits = if let RandomKey::Bounded { cbits, .. } = self { *cbits } else { 0 };
        let standard = match *self {
            RandomKey::Uniform64 { standard }
            | RandomKey::Uniform32 { standard }
            | RandomKey::Normal64 { standard }
            | RandomKey::Normal32 { standard } => standard,
            _ => false,
        };
        writeln!(
            s,
            "#define VARIANT_{variant}\n#define BITS {}\n#define PER {}\n#define CBITS {cbits}\n#define STANDARD {}",
            self.bits(),
            self.per(),
            standard as u8
        )
        .unwrap();
        writeln!(s, "typedef {out} OUT_T;").unwrap();
        for (n, v) in [
            ("M0", 0xD2E7_470E_E14C_6C93u64),
            ("M1", 0xCA5A_8263_9512_1157),
            ("W0", 0x9E37_79B9_7F4A_7C15),
            ("W1", 0xBB67_AE85_84CA_A73B),
        ] {
            writeln!(s, "#define {n} 0x{v:016x}ull").unwrap();
        }
        if matches!(self, RandomKey::Normal64 { .. } | RandomKey::Normal32 { .. } | RandomKey::Sample { .. }) {
            bits_const(&mut s, "LOG2E", std::f64::consts::LOG2_E);
            bits_const(&mut s, "SQRT2", std::f64::consts::SQRT_2);
            bits_const(&mut s, "LN2_HI", LN2_HI);
            bits_const(&mut s, "LN2_LO", LN2_LO);
            bits_const(&mut s, "ZIG_R", ZIG_R);
            let z = ziggurat();
            table(&mut s, "u64", "ZK64", z.k64.iter().copied());
            table(&mut s, "u64", "ZW64", z.w64.iter().map(|x| x.to_bits()));
            table(&mut s, "u64", "ZF64", z.f64_.iter().map(|x| x.to_bits()));
            table(&mut s, "u32", "ZK32", z.k32.iter().copied());
            table(&mut s, "u32", "ZW32", z.w32.iter().map(|x| x.to_bits()));
        }
        s + include_str!("random.cu")
    }
}

/// `permutation`'s two kernels (`permute.cu`), for a number of rounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PermuteKey {
    write: bool,
    rounds: u8,
}

/// Candidates per thread of `permute.cu`.
const PERM_PER: usize = 16;

impl KernelKey for PermuteKey {
    const FAMILY: &'static str = "permute";
    fn entry(&self) -> &str {
        if self.write {
            "perm_write"
        } else {
            "perm_count"
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("PER", PERM_PER.to_string())]
    }
    fn source(&self) -> String {
        format!("#define ROUNDS {}\n#define KEY_WORDS {KEY_WORDS}\n{}", self.rounds, include_str!("permute.cu"))
    }
}

/// `permute.cu`'s `Bij` (the same layout).
#[repr(C)]
#[derive(Copy, Clone)]
struct BijParams {
    n: u64,
    m: u64,
    lo: i32,
    hi: i32,
    kw: [u64; KEY_WORDS],
}

/// Writes `b`'s permutation of `0..b.n` into the C-contiguous int64 `out` on its GPU: the
/// tiles' counts, their inclusive scan, then the tiles' values at their ranks.
pub(crate) fn permutation(out: &Array, b: &Bijection) -> Result<()> {
    let dev = dev_of(out)?;
    let bp = BijParams { n: b.n, m: b.domain(), lo: b.lo as i32, hi: b.hi as i32, kw: b.key_words() };
    let tiles = b.domain().div_ceil((THREADS * PERM_PER) as u64);
    let grid = u32::try_from(tiles).map_err(|_| crate::core::error::Error::Value("permutation too large".into()))?;
    let counts = Array::alloc(&[tiles as usize], crate::core::dtype::DType::Int64, out.device(), false)?;
    let mut p = Params::new();
    p.push(dptr(&counts)?);
    p.push(bp);
    let k = dev.kernel(&PermuteKey { write: false, rounds: b.rounds as u8 })?;
    // SAFETY: the parameters match `perm_count`; block t writes counts[t], t < tiles.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32)? };
    let incl = counts.cumsum(0)?;
    let mut p = Params::new();
    p.push(dptr(out)?);
    p.push(dptr(&incl)?);
    p.push(bp);
    let k = dev.kernel(&PermuteKey { write: true, rounds: b.rounds as u8 })?;
    // SAFETY: the parameters match `perm_write`; `incl` holds the tiles' inclusive counts, so
    // the ranks written are below their total, `n` (each value below n once: a bijection).
    unsafe { p.launch(&dev, &k, grid, THREADS as u32) }
}

/// Fills the C-contiguous `out` on its GPU with `dist`'s outputs `0..out.size()` of stream `s`.
pub(crate) fn fill(out: &Array, dist: Dist, s: &Stream) -> Result<()> {
    let dev = dev_of(out)?;
    let n = out.size() as u64;
    let key = RandomKey::of(&dist, out.itemsize());
    let (bits, per) = (key.bits() as u64, key.per() as u64);
    let dpb = draws_per_block(bits as u32);
    let pend = s.pending.is_some() as u64;
    let ndraws = n.div_ceil(per);
    let main = ndraws - pend.min(ndraws);
    // Threads: the Philox blocks holding the main draws `start .. start + main` (at least one
    // thread, which also writes the kept half's outputs).
    let first = s.start / dpb;
    let last = if main == 0 { first } else { (s.start + main - 1) / dpb };
    // Warp tiles of 32 blocks, the grid's warps taking them in turn.
    let ntiles = (last - first + 1).div_ceil(32);
    let grid = ntiles.div_ceil(THREADS as u64 / 32).min((dev.sm_count as usize * BLOCKS_PER_SM) as u64);
    let k = dev.kernel(&key)?;
    let (a, b, rng, off, thr) = match dist {
        Dist::Uniform64 { low, scale } => (low, scale, 0, 0, 0),
        Dist::Uniform32 { low, scale } => (low as f64, scale as f64, 0, 0, 0),
        Dist::Normal64 { loc, scale, .. } => (loc, scale, 0, 0, 0),
        Dist::Normal32 { loc, scale, .. } => (loc as f64, scale as f64, 0, 0, 0),
        Dist::Bounded { rng, off, threshold, .. } => (0.0, 0.0, rng, off, threshold),
        Dist::Sample { a, b, n, .. } => (a, b, n, 0, 0),
    };
    let mut p = Params::new();
    p.push(dptr(out)?);
    p.push(n as i64);
    p.push(round_keys(s.key));
    p.push(s.start);
    p.push(pend as i32);
    p.push(s.pending.unwrap_or(0));
    p.push(s.sub_id);
    p.push(s.tag);
    p.push(a);
    p.push(b);
    p.push(rng);
    p.push(off);
    p.push(thr);
    p.push(ntiles as i64);
    // SAFETY: the parameters match `random_fill` in random.cu; `out` is C-contiguous with `n`
    // elements of the kernel's OUT_T, and each thread writes only outputs below `n`.
    unsafe { p.launch(&dev, &k, grid as u32, THREADS as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel of the family: one entry point, balanced source, the tables only where the
    /// normals need them; and (where NVRTC is present) each compiles.
    #[test]
    fn random_sources() {
        let mut keys = vec![];
        for standard in [false, true] {
            keys.extend([
                RandomKey::Uniform64 { standard },
                RandomKey::Uniform32 { standard },
                RandomKey::Normal64 { standard },
                RandomKey::Normal32 { standard },
            ]);
        }
        for (bits, cbits) in [(32, 1), (32, 8), (32, 16), (32, 32), (64, 64)] {
            for isz in [1u8, 2, 4, 8] {
                keys.push(RandomKey::Bounded { bits, cbits, isz });
            }
        }
        for kind in [Kind::Exponential, Kind::Gamma, Kind::Beta, Kind::Poisson, Kind::Binomial, Kind::LogNormal] {
            keys.push(RandomKey::Sample { kind, isz: 8 });
            if !kind.discrete() {
                keys.push(RandomKey::Sample { kind, isz: 4 });
            }
        }
        for key in
            [false, true].map(|write| [ROUNDS, LARGE_ROUNDS].map(|r| PermuteKey { write, rounds: r as u8 })).concat()
        {
            crate::backend::cuda::compile::check_compiles(&key);
        }
        for key in keys {
            let src = key.source();
            crate::backend::cuda::compile::check_compiles(&key);
            assert_eq!(src.matches("__global__").count(), 1, "{key:?}");
            assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
            assert_eq!(src.matches('(').count(), src.matches(')').count(), "{key:?}");
            assert_eq!(
                src.contains("__constant__ u64 ZK64"),
                matches!(key, RandomKey::Normal64 { .. } | RandomKey::Normal32 { .. } | RandomKey::Sample { .. }),
                "{key:?}"
            );
        }
    }
}
