//! NumPy's `SeedSequence` and the Philox4x64-10 bit generator (`numpy.random.Philox`), and the
//! positions in its stream that one call of a distribution reads.
//!
//! A Philox stream is a counter-based function: word `j` is lane `j % 4` of
//! `philox4x64_10(counter = j / 4 + 1, key)` (NumPy increments the counter before it draws, so
//! the first block has counter 1). Every output can be computed from its own position, on any
//! device, in any order. NumPy's 32-bit draws split a word into its low half, then its high
//! half (kept between calls: `has_uint32`); 64-bit draws leave a kept half alone.

use crate::core::error::{Error, Result};

const M0: u64 = 0xD2E7_470E_E14C_6C93;
const M1: u64 = 0xCA5A_8263_9512_1157;
const W0: u64 = 0x9E37_79B9_7F4A_7C15;
const W1: u64 = 0xBB67_AE85_84CA_A73B;

/// One Philox4x64-10 block: the four words of `ctr` under `key` (Salmon et al., 2011; the
/// random123 and NumPy constants).
#[inline(always)]
pub(crate) fn philox4x64_10(ctr: [u64; 4], key: [u64; 2]) -> [u64; 4] {
    let (mut c, mut k) = (ctr, key);
    for r in 0..10 {
        if r > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let p0 = (M0 as u128) * (c[0] as u128);
        let p1 = (M1 as u128) * (c[2] as u128);
        c = [((p1 >> 64) as u64) ^ c[1] ^ k[0], p1 as u64, ((p0 >> 64) as u64) ^ c[3] ^ k[1], p0 as u64];
    }
    c
}

/// The keys of the ten rounds of [`philox4x64_10`] under `key`, interleaved (round r's at 2r
/// and 2r + 1): the GPU fill takes them as a kernel parameter.
pub(crate) fn round_keys(key: [u64; 2]) -> [u64; 20] {
    let mut k = [0; 20];
    for r in 0..10u64 {
        k[2 * r as usize] = key[0].wrapping_add(W0.wrapping_mul(r));
        k[2 * r as usize + 1] = key[1].wrapping_add(W1.wrapping_mul(r));
    }
    k
}

/// Word `j` of the main stream of `key`.
#[inline(always)]
pub(crate) fn main_word(key: [u64; 2], j: u64) -> u64 {
    philox4x64_10([(j / 4).wrapping_add(1), 0, 0, 0], key)[(j % 4) as usize]
}

const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const POOL_SIZE: usize = 4;

/// NumPy's `numpy.random.SeedSequence`: mixes the entropy of a seed (an integer of any size,
/// or a sequence of them) into a pool of four 32-bit words, from which `generate_state` draws
/// the state of a bit generator — the same words NumPy draws, for the same seed.
///
/// ```
/// use cuprum::random::SeedSequence;
/// let s = SeedSequence::new(42)?;
/// // np.random.SeedSequence(42).generate_state(3) and .generate_state(2, np.uint64)
/// assert_eq!(s.generate_state_u32(3), [3444837047, 2669555309, 2046530742]);
/// assert_eq!(s.generate_state_u64(2), [11465652750463011511, 15382171918060459190]);
/// assert!(SeedSequence::new(-1).is_err()); // NumPy's ValueError
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSequence {
    entropy: Vec<u32>,
    pool: [u32; POOL_SIZE],
}

impl SeedSequence {
    /// The sequence of `seed` (as `SeedSequence(seed)`): an integer, a slice of integers, or
    /// [`Seed::Entropy`] for fresh entropy (the clock and the process). A negative integer is
    /// NumPy's ValueError.
    pub fn new(seed: impl Into<Seed>) -> Result<SeedSequence> {
        let entropy = seed.into().words()?;
        let mut pool = [0u32; POOL_SIZE];
        let mut hash_const = INIT_A;
        let mut hashmix = |v: u32| {
            let mut v = v ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_A);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> 16)
        };
        let mix = |x: u32, y: u32| {
            let r = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
            r ^ (r >> 16)
        };
        for (i, p) in pool.iter_mut().enumerate() {
            *p = hashmix(entropy.get(i).copied().unwrap_or(0));
        }
        for src in 0..POOL_SIZE {
            for dst in 0..POOL_SIZE {
                if src != dst {
                    let h = hashmix(pool[src]);
                    pool[dst] = mix(pool[dst], h);
                }
            }
        }
        for &e in entropy.iter().skip(POOL_SIZE) {
            for p in pool.iter_mut() {
                let h = hashmix(e);
                *p = mix(*p, h);
            }
        }
        Ok(SeedSequence { entropy, pool })
    }

    /// The entropy words (the seed as little-endian 32-bit words).
    pub fn entropy(&self) -> &[u32] {
        &self.entropy
    }

    /// `generate_state(n_words, np.uint32)`.
    pub fn generate_state_u32(&self, n_words: usize) -> Vec<u32> {
        let mut hash_const = INIT_B;
        (0..n_words)
            .map(|i| {
                let mut v = self.pool[i % POOL_SIZE] ^ hash_const;
                hash_const = hash_const.wrapping_mul(MULT_B);
                v = v.wrapping_mul(hash_const);
                v ^ (v >> 16)
            })
            .collect()
    }

    /// `generate_state(n_words, np.uint64)`: pairs of 32-bit words, the first the low half.
    pub fn generate_state_u64(&self, n_words: usize) -> Vec<u64> {
        let w = self.generate_state_u32(2 * n_words);
        w.chunks(2).map(|p| p[0] as u64 | (p[1] as u64) << 32).collect()
    }
}

/// A seed, as NumPy takes it: an integer of up to 128 bits, a sequence of integers (each
/// split into 32-bit words, concatenated), or fresh entropy (`None` in NumPy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seed {
    /// Fresh entropy (the system clock and the process), as `default_rng()` without a seed.
    Entropy,
    /// An integer.
    Int(u128),
    /// A negative integer (refused, as NumPy refuses it).
    Negative(i128),
    /// A sequence of integers.
    Seq(Vec<u128>),
}

fn int_words(mut n: u128, out: &mut Vec<u32>) {
    if n == 0 {
        out.push(0);
    }
    while n > 0 {
        out.push(n as u32);
        n >>= 32;
    }
}

impl Seed {
    fn words(self) -> Result<Vec<u32>> {
        let mut w = Vec::new();
        match self {
            Seed::Negative(_) => return Err(Error::Value("expected non-negative integer".into())),
            Seed::Int(n) => int_words(n, &mut w),
            Seed::Seq(v) => v.into_iter().for_each(|n| int_words(n, &mut w)),
            Seed::Entropy => {
                use std::hash::{BuildHasher, Hasher};
                let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(t.as_nanos());
                h.write_u32(std::process::id());
                let a = h.finish();
                h.write_u64(a);
                int_words((a as u128) << 64 | h.finish() as u128, &mut w);
            }
        }
        Ok(w)
    }
}

macro_rules! seed_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Seed {
            fn from(n: $t) -> Seed {
                Seed::Int(n as u128)
            }
        }
    )*};
}
seed_from_int!(u8, u16, u32, u64, u128, usize);

macro_rules! seed_from_signed {
    ($($t:ty),*) => {$(
        impl From<$t> for Seed {
            fn from(n: $t) -> Seed {
                if n < 0 { Seed::Negative(n as i128) } else { Seed::Int(n as u128) }
            }
        }
    )*};
}
seed_from_signed!(i8, i16, i32, i64, i128);

impl From<&[u64]> for Seed {
    fn from(v: &[u64]) -> Seed {
        Seed::Seq(v.iter().map(|&x| x as u128).collect())
    }
}

impl From<Vec<u64>> for Seed {
    fn from(v: Vec<u64>) -> Seed {
        Seed::from(&v[..])
    }
}

impl From<Option<u64>> for Seed {
    fn from(v: Option<u64>) -> Seed {
        v.map_or(Seed::Entropy, Seed::from)
    }
}

/// NumPy's `numpy.random.Philox`: a Philox4x64-10 key and a position in its stream.
///
/// The key comes from a [`SeedSequence`] (`generate_state(2, np.uint64)`), as NumPy's; the
/// position counts the 64-bit words drawn so far, plus the high half of a word that a 32-bit
/// draw left (NumPy's `has_uint32`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Philox {
    pub(crate) key: [u64; 2],
    /// The next word of the main stream.
    pub(crate) word: u64,
    /// A word whose high half is the next 32-bit draw.
    pub(crate) pending: Option<u64>,
}

impl Philox {
    /// `Philox(seed)`.
    pub fn new(seed: impl Into<Seed>) -> Result<Philox> {
        Ok(Philox::from_seed_sequence(&SeedSequence::new(seed)?))
    }

    /// `Philox(seed_sequence)`.
    pub fn from_seed_sequence(s: &SeedSequence) -> Philox {
        let k = s.generate_state_u64(2);
        Philox::from_key([k[0], k[1]])
    }

    /// `Philox(key=key)`: the key itself, the stream at its start.
    pub fn from_key(key: [u64; 2]) -> Philox {
        Philox { key, word: 0, pending: None }
    }

    /// The key.
    pub fn key(&self) -> [u64; 2] {
        self.key
    }

    /// `random_raw(n)`: the next `n` 64-bit words, on the host.
    pub fn random_raw(&mut self, n: usize) -> Vec<u64> {
        let w0 = self.word;
        self.word += n as u64;
        (0..n as u64).map(|j| main_word(self.key, w0 + j)).collect()
    }

    /// `advance(delta)`: skips `delta` blocks of four words (NumPy's counter steps; a kept
    /// 32-bit half and the rest of the current block are dropped, as NumPy's `advance` does).
    pub fn advance(&mut self, delta: u64) -> &mut Philox {
        let block = self.word.div_ceil(4);
        self.word = (block + delta) * 4;
        self.pending = None;
        self
    }

    /// Plans a call that makes `n` outputs of `per_draw` outputs per draw of `bits` (64 or
    /// 32) bits, and moves the position past the draws it reads.
    pub(crate) fn plan(&mut self, n: usize, bits: u32, per_draw: usize) -> Stream {
        let key = self.key;
        let ndraws = n.div_ceil(per_draw) as u64;
        if bits == 64 {
            let s = Stream { key, start: self.word, pending: None, sub_id: self.word, tag: 1 };
            self.word += ndraws;
            return s;
        }
        let sub_id = match self.pending {
            Some(p) => 2 * p + 1,
            None => 2 * self.word,
        };
        let s = Stream { key, start: 2 * self.word, pending: self.pending, sub_id, tag: 2 };
        if ndraws > 0 {
            let m = ndraws - self.pending.is_some() as u64;
            self.pending = if m % 2 == 1 { Some(self.word + m / 2) } else { None };
            self.word += m.div_ceil(2);
        }
        s
    }
}

/// Where one call's draws are in the stream: output `i`'s first draw is draw `i / per_draw`
/// of the call (64-bit: word `start + d`; 32-bit: the kept half for `d = 0` when `pending`,
/// else half `start + d - pending`), and any further draws it needs come from its own
/// substream, counter `[sub_id, i, k, tag]` (k = 0, 1, ...), which no other call or output
/// reads (the main stream's counters have `tag` = 0).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Stream {
    pub key: [u64; 2],
    pub start: u64,
    pub pending: Option<u64>,
    pub sub_id: u64,
    pub tag: u64,
}

impl Stream {
    /// Output `i`'s substream of further draws.
    pub fn sub(&self, i: u64) -> Sub {
        Sub { key: self.key, ctr: [self.sub_id, i, 0, self.tag], buf: [0; 4], pos: 4, half: None }
    }
    /// Output `i`'s draws: `first` (its main-stream word), then its substream.
    pub fn sub_first(&self, i: u64, first: u64) -> Sub {
        Sub { key: self.key, ctr: [self.sub_id, i, 0, self.tag], buf: [0, 0, 0, first], pos: 3, half: None }
    }
}

/// The further draws of one output (see [`Stream`]).
pub(crate) struct Sub {
    key: [u64; 2],
    ctr: [u64; 4],
    buf: [u64; 4],
    pos: usize,
    half: Option<u32>,
}

impl Sub {
    pub fn next64(&mut self) -> u64 {
        if self.pos == 4 {
            self.buf = philox4x64_10(self.ctr, self.key);
            self.ctr[2] += 1;
            self.pos = 0;
        }
        self.pos += 1;
        self.buf[self.pos - 1]
    }
    pub fn next32(&mut self) -> u32 {
        if let Some(h) = self.half.take() {
            return h;
        }
        let w = self.next64();
        self.half = Some((w >> 32) as u32);
        w as u32
    }
    /// A float64 in [0, 1): NumPy's `next_double`.
    pub fn next_double(&mut self) -> f64 {
        (self.next64() >> 11) as f64 * (1.0 / 9007199254740992.0)
    }
}
