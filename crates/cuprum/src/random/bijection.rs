//! `permutation`'s shuffle without a sort: a keyed bijection of `[0, 2^bits)` (the smallest
//! power of two above `n`), and the compaction of its values below `n` in the order of their
//! arguments. Both devices compute `f(i)` for every candidate `i` and keep those below `n`, so
//! each output is written once and the CPU and the GPU give the same permutation
//! (`permute.cu` mirrors [`Bijection::apply`]).
//!
//! The bijection is a Feistel network (as in Mitchell et al., "Bandwidth-optimal random
//! shuffling for GPUs", 2022, which Thrust's `shuffle` uses): the candidate's bits are split
//! into a low half of `lo` bits and a high half of `hi = bits - lo` bits, and each of
//! [`ROUNDS`] rounds XORs one half with a keyed hash of the other (alternating halves). A
//! round is a bijection whatever the hash, so the whole is. The hash is a full-avalanche
//! 32-bit mixer of the other half XOR the round's key; the round keys are 32-bit halves of
//! twelve words of the generator's stream. Small domains need many rounds (each round of a
//! one- or two-bit half moves little): measured over the orders of 5 and of 7 (chi-square of
//! 60000 and 100800 permutations), 10 rounds were far from uniform (z = 6.5 and 79) and 24
//! indistinguishable from it, so domains of up to 2^16 take 24 rounds; larger ones, whose
//! halves of 8 bits or more are mixed whole by one round, take 12.
//!
//! A Feistel network on halves of two bits or more only makes even permutations of its
//! domain; the domain is therefore always larger than `n` (`2^bits > n`, so `n = 2^k` uses
//! `2^(k+1)` candidates), and the compaction to `[0, n)` reaches both parities.

/// The most Feistel rounds (domains of up to 2^16 candidates; larger ones take
/// [`LARGE_ROUNDS`]).
pub(crate) const ROUNDS: usize = 24;
/// The rounds of a domain of more than 2^16 candidates.
pub(crate) const LARGE_ROUNDS: usize = 12;
/// The stream words that key one bijection.
pub(crate) const KEY_WORDS: usize = ROUNDS / 2;

/// One permutation's bijection (see the module's notes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bijection {
    /// The permutation's length.
    pub n: u64,
    /// Bits of the low half (`bits - bits / 2`) and of the high half (`bits / 2`).
    pub lo: u32,
    pub hi: u32,
    /// The rounds (24 or 12).
    pub rounds: usize,
    /// The rounds' keys (the first `rounds`).
    pub keys: [u32; ROUNDS],
}

/// The round function: a 32-bit mixer (every output bit depends on every input bit) of
/// `v ^ k`.
#[inline(always)]
pub(crate) fn mix(v: u32, k: u32) -> u32 {
    let mut x = v ^ k;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

impl Bijection {
    /// The bijection of `[0, 2^bits)` for a permutation of `n`, keyed by `words` (at least
    /// [`KEY_WORDS`] 64-bit draws: their low, then high, halves).
    pub fn new(n: u64, words: &[u64]) -> Bijection {
        let bits = 64 - n.leading_zeros();
        let mut keys = [0u32; ROUNDS];
        for (r, k) in keys.iter_mut().enumerate() {
            *k = (words[r / 2] >> (32 * (r % 2))) as u32;
        }
        let rounds = if bits <= 16 { ROUNDS } else { LARGE_ROUNDS };
        Bijection { n, lo: bits - bits / 2, hi: bits / 2, rounds, keys }
    }

    /// The round keys packed back into [`KEY_WORDS`] words (low half first), as `new` read
    /// them: the GPU kernel's parameters.
    pub fn key_words(&self) -> [u64; KEY_WORDS] {
        let mut kw = [0u64; KEY_WORDS];
        for (r, &k) in self.keys.iter().enumerate() {
            kw[r / 2] |= (k as u64) << (32 * (r % 2));
        }
        kw
    }

    /// The number of candidates, `2^bits`.
    pub fn domain(&self) -> u64 {
        1u64 << (self.lo + self.hi)
    }

    /// `f(x)` for a candidate `x < domain()`.
    #[inline(always)]
    pub fn apply(&self, x: u64) -> u64 {
        let lo_mask = ((1u64 << self.lo) - 1) as u32;
        let hi_mask = ((1u64 << self.hi) - 1) as u32;
        let mut l = x as u32 & lo_mask;
        let mut h = (x >> self.lo) as u32;
        for (r, &k) in self.keys[..self.rounds].iter().enumerate() {
            if r % 2 == 0 {
                l ^= mix(h, k) & lo_mask;
            } else {
                h ^= mix(l, k) & hi_mask;
            }
        }
        ((h as u64) << self.lo) | l as u64
    }
}

/// Candidates [`Bijection::apply_lanes`] maps at once.
pub(crate) const LANES: usize = 16;

impl Bijection {
    /// `f(x0 + j)` for `j < LANES` into `out`: the rounds of independent candidates side by
    /// side (one candidate's rounds are a chain of dependent multiplies; these vectorise).
    #[inline(always)]
    pub fn apply_lanes(&self, x0: u64, out: &mut [u64; LANES]) {
        let lo_mask = ((1u64 << self.lo) - 1) as u32;
        let hi_mask = ((1u64 << self.hi) - 1) as u32;
        let mut l = [0u32; LANES];
        let mut h = [0u32; LANES];
        for j in 0..LANES {
            let x = x0 + j as u64;
            l[j] = x as u32 & lo_mask;
            h[j] = (x >> self.lo) as u32;
        }
        for (r, &k) in self.keys[..self.rounds].iter().enumerate() {
            if r % 2 == 0 {
                for j in 0..LANES {
                    l[j] ^= mix(h[j], k) & lo_mask;
                }
            } else {
                for j in 0..LANES {
                    h[j] ^= mix(l[j], k) & hi_mask;
                }
            }
        }
        for j in 0..LANES {
            out[j] = ((h[j] as u64) << self.lo) | l[j] as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `apply` is a bijection of its domain, and the compaction is a permutation of `0..n`.
    #[test]
    fn bijective() {
        for n in [1u64, 2, 3, 4, 5, 8, 16, 17, 100, 1023, 1024, 1025, 4099, 65_535, 65_536, 70_000] {
            let words: Vec<u64> = (0..KEY_WORDS as u64).map(|k| (k + 3).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
            let b = Bijection::new(n, &words);
            assert_eq!(b.key_words()[..], words[..]);
            assert!(b.domain() > n && b.domain() <= 2 * n.max(1));
            let mut seen = vec![false; b.domain() as usize];
            for x in 0..b.domain() {
                let y = b.apply(x);
                assert!(!seen[y as usize], "n {n}: {y} twice");
                seen[y as usize] = true;
            }
            if b.domain() >= LANES as u64 {
                let mut lanes = [0u64; LANES];
                b.apply_lanes(b.domain() - LANES as u64, &mut lanes);
                assert!((0..LANES).all(|j| lanes[j] == b.apply(b.domain() - LANES as u64 + j as u64)));
            }
            let mut p: Vec<u64> = (0..b.domain()).map(|x| b.apply(x)).filter(|&y| y < n).collect();
            p.sort();
            assert_eq!(p, (0..n).collect::<Vec<u64>>());
        }
    }
}
