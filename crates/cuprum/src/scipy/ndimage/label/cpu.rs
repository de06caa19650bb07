//! The CPU labelling, on runs: the array is a stack of lines along its last axis, and each line
//! a set of runs (maximal stretches of nonzero elements, or single elements when the structure
//! does not join an element to the one before it on its line). Runs, numbered in C order, are
//! the union-find's nodes, always linking the larger root under the smaller, so a component's
//! root is its first run and its number the root's rank among the roots.
//!
//! 1. Chunks of lines in parallel: each reads its lines in the input's own dtype into 64-bit
//!    mask words, with the words of run starts (`m & !(m << 1)`) and the runs before each word
//!    (a run's index is then a popcount). Per backward-neighbour line and per step `dx` along
//!    the line that the structure allows, the elements set in the line and, shifted by `dx`, in
//!    the neighbour line come in stretches that each lie in one run of either line: the first
//!    element of each stretch links the two runs, in a union-find of the chunk's own. No
//!    per-element loop, and few branches to mispredict.
//! 2. The chunks' parents are put in one shared array (indices offset by the runs before the
//!    chunk), and the first lines of each chunk are linked to their neighbour lines in earlier
//!    chunks in parallel, with a lock-free union (compare-and-swap on roots, larger root under
//!    the smaller, so the roots stay the first runs whatever the order).
//! 3. The roots are counted per chunk; each chunk tags its roots with their numbers, then
//!    writes its lines of the output, every run with its root's number (one hop for parents in
//!    the chunk, a walk to a tagged root for the others) and zeros between the runs.
//!
//! Indices are `u32` below 2^31 elements (the tag is the top bit), `u64` above. The result
//! does not depend on the chunks, hence not on the number of threads.

use super::Neighbours;
use crate::array::Array;
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Arrays of fewer elements than this are labelled on the calling thread, in one chunk (no
/// thread woken). Measured on the 2-core machine (shared, the other core mostly busy, so the
/// second thread rarely helped): random images with a quarter of the pixels set take ~4 us at
/// 32x32, ~29 us at 128x128, ~200 us at 256x256 on one thread; the threaded path forks and
/// joins six times (~10 us each when a core is free), so it can pay only where one thread
/// needs a few hundred microseconds: 2^17 elements (~450 us dense, less for sparse images).
const PAR_MIN: usize = 1 << 17;

/// An index type for runs, parents and positions: `u32` or `u64`, with its atomic.
trait Ix: Copy + Ord + Send + Sync + 'static {
    type A: Send + Sync;
    /// The top bit: marks a root's number in the shared parents (indices stay below it).
    const TAG: usize;
    fn of(u: usize) -> Self;
    fn us(self) -> usize;
    fn atom(v: usize) -> Self::A;
    fn load(a: &Self::A) -> usize;
    fn store(a: &Self::A, v: usize);
    fn cas(a: &Self::A, cur: usize, new: usize) -> bool;
}

macro_rules! ix {
    ($t:ty, $a:ty) => {
        impl Ix for $t {
            type A = $a;
            const TAG: usize = 1 << (<$t>::BITS - 1);
            #[inline(always)]
            fn of(u: usize) -> $t {
                u as $t
            }
            #[inline(always)]
            fn us(self) -> usize {
                self as usize
            }
            #[inline(always)]
            fn atom(v: usize) -> $a {
                <$a>::new(v as $t)
            }
            #[inline(always)]
            fn load(a: &$a) -> usize {
                a.load(Relaxed) as usize
            }
            #[inline(always)]
            fn store(a: &$a, v: usize) {
                a.store(v as $t, Relaxed)
            }
            #[inline(always)]
            fn cas(a: &$a, cur: usize, new: usize) -> bool {
                a.compare_exchange(cur as $t, new as $t, Relaxed, Relaxed).is_ok()
            }
        }
    };
}
ix!(u32, AtomicU32);
ix!(u64, AtomicU64);

/// An input element type: whether an element is nonzero (NaN is).
trait Nz: Copy + Sync {
    fn nz(self) -> bool;
}

macro_rules! nz {
    ($($t:ty),*) => {$(
        impl Nz for $t {
            #[inline(always)]
            fn nz(self) -> bool {
                self != 0 as $t
            }
        }
    )*};
}
nz!(u8, u16, u32, u64, f32, f64);

/// An output element type: int32 or int64.
trait Out: Copy + Send + Sync {
    const ZERO: Self;
    fn of(v: usize) -> Self;
}

impl Out for i32 {
    const ZERO: i32 = 0;
    #[inline(always)]
    fn of(v: usize) -> i32 {
        v as i32
    }
}

impl Out for i64 {
    const ZERO: i64 = 0;
    #[inline(always)]
    fn of(v: usize) -> i64 {
        v as i64
    }
}

/// The neighbours on one backward line: the line's step per axis (all axes but the last), how
/// many lines back it is, and the steps along the line (bit `dx + 1` for step `dx`).
struct Group {
    d: Vec<i8>,
    off: usize,
    steps: u8,
}

/// The array as lines: their length and 64-bit words, the shape of the stack of lines, the
/// neighbour lines, whether an element joins the one before it on its line, and how far back
/// neighbours reach.
struct Geo {
    w: usize,
    words: usize,
    lshape: Vec<usize>,
    groups: Vec<Group>,
    joined: bool,
    reach: usize,
}

impl Geo {
    fn new(shape: &[usize], nb: &Neighbours) -> Geo {
        let nd = shape.len();
        let lshape = shape[..nd - 1].to_vec();
        let mut lstride = vec![1usize; nd - 1];
        for k in (0..nd - 2).rev() {
            lstride[k] = lstride[k + 1] * lshape[k + 1];
        }
        let mut joined = false;
        let mut groups: Vec<Group> = Vec::new();
        for d in nb {
            let (pre, x) = (&d[..nd - 1], d[nd - 1]);
            if pre.iter().all(|&s| s == 0) {
                // Backward with no step but along the line: the element before.
                joined = true;
                continue;
            }
            // Backward: the first nonzero step is -1, so the line is before.
            let off = -pre.iter().zip(&lstride).map(|(&s, &st)| s as isize * st as isize).sum::<isize>();
            let bit = 1u8 << (x + 1);
            match groups.iter_mut().find(|g| g.d == pre) {
                Some(g) => g.steps |= bit,
                None => groups.push(Group { d: pre.to_vec(), off: off as usize, steps: bit }),
            }
        }
        let reach = groups.iter().map(|g| g.off).max().unwrap_or(0);
        let w = shape[nd - 1];
        Geo { w, words: w.div_ceil(64), lshape, groups, joined, reach }
    }

    /// The coordinates of line `l` in the stack of lines.
    fn coords(&self, mut l: usize) -> Vec<usize> {
        let mut c = vec![0; self.lshape.len()];
        for k in (0..c.len()).rev() {
            c[k] = l % self.lshape[k];
            l /= self.lshape[k];
        }
        c
    }

    /// Whether the neighbour line `g` of the line at `c` is inside the array.
    #[inline]
    fn inside(&self, c: &[usize], g: &Group) -> bool {
        g.d.iter().zip(c).zip(&self.lshape).all(|((&s, &ck), &n)| match s {
            -1 => ck >= 1,
            1 => ck + 1 < n,
            _ => true,
        })
    }

    /// The next line's coordinates.
    #[inline]
    fn step(&self, c: &mut [usize]) {
        for k in (0..c.len()).rev() {
            c[k] += 1;
            if c[k] < self.lshape[k] {
                return;
            }
            c[k] = 0;
        }
    }
}

/// Bit `j` set where `b[j]` is nonzero (`b` at most 64 long): the flags as bytes (a compare
/// and a narrowing the compiler vectorises), then eight bytes to eight bits by one multiply
/// (byte `i`, 0 or 1, times `2^(56 - 7i)` lands on bit `56 + i`, no two products overlap).
#[inline(always)]
fn mask64<T: Nz>(b: &[T]) -> u64 {
    let mut t = [0u8; 64];
    for (d, &v) in t.iter_mut().zip(b) {
        *d = v.nz() as u8;
    }
    let mut bits = 0u64;
    for (k, w) in t.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        bits |= (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    bits
}

/// Calls `f(start, end)` for the runs of a line given as its mask words: maximal nonzero
/// stretches if `joined`, else every nonzero element.
#[inline]
fn runs(m: &[u64], w: usize, joined: bool, mut f: impl FnMut(usize, usize)) {
    if joined {
        // Transitions: starts and ends alternate (an end is the first zero after a run).
        let (mut carry, mut start) = (0u64, 0usize);
        for (k, &b) in m.iter().enumerate() {
            let mut t = b ^ ((b << 1) | carry);
            while t != 0 {
                let j = 64 * k + t.trailing_zeros() as usize;
                t &= t - 1;
                if carry != 0 {
                    f(start, j);
                } else {
                    start = j;
                }
                carry ^= 1;
            }
            carry = b >> 63;
        }
        if carry != 0 {
            f(start, w);
        }
    } else {
        for (k, &b) in m.iter().enumerate() {
            let mut t = b;
            while t != 0 {
                let j = 64 * k + t.trailing_zeros() as usize;
                t &= t - 1;
                f(j, j + 1);
            }
        }
    }
}

/// One line of a chunk: its mask words, run-start words, runs before each word, and the index
/// of its first run.
struct Line<'a, I> {
    m: &'a [u64],
    st: &'a [u64],
    pre: &'a [I],
    first: usize,
}

impl<I: Ix> Line<'_, I> {
    /// The index of the run holding element `x` (nonzero).
    #[inline(always)]
    fn run(&self, x: usize) -> usize {
        let k = x / 64;
        self.first + self.pre[k].us() + (self.st[k] & (u64::MAX >> (63 - x % 64))).count_ones() as usize - 1
    }
}

/// Calls `f(i, k)` for every run `i` of line `a` and run `k` of its neighbour line `b`
/// (through `g`) that touch: per step `dx` along the line, the elements `x` of `a` with `x + dx`
/// set in `b`; a stretch of them lies in one run of each line (one element if not `joined`),
/// so only its first element is a pair. A pair may come once per step.
#[inline]
fn pairs<I: Ix>(a: &Line<I>, b: &Line<I>, g: &Group, joined: bool, mut f: impl FnMut(usize, usize)) {
    let n = a.m.len();
    for dx in 0..3 {
        if g.steps & (1 << dx) == 0 {
            continue;
        }
        let mut carry = 0u64;
        for k in 0..n {
            let sh = match dx {
                0 => (b.m[k] << 1) | if k > 0 { b.m[k - 1] >> 63 } else { 0 },
                1 => b.m[k],
                _ => (b.m[k] >> 1) | if k + 1 < n { b.m[k + 1] << 63 } else { 0 },
            };
            let ov = a.m[k] & sh;
            let mut t = if joined { ov & !((ov << 1) | carry) } else { ov };
            carry = ov >> 63;
            while t != 0 {
                let x = 64 * k + t.trailing_zeros() as usize;
                t &= t - 1;
                f(a.run(x), b.run(x + dx - 1));
            }
        }
    }
}

/// The root of `x` in a chunk's own parents, halving the path.
#[inline]
fn find_local<I: Ix>(p: &mut [I], mut x: usize) -> usize {
    loop {
        let q = p[x].us();
        if q == x {
            return x;
        }
        let r = p[q].us();
        p[x] = I::of(r);
        x = r;
    }
}

/// The root of `x` in the shared parents, halving the path (concurrent halvings write
/// ancestors; roots are never written here).
#[inline]
fn find<I: Ix>(p: &[I::A], mut x: usize) -> usize {
    loop {
        let q = I::load(&p[x]);
        if q == x {
            return x;
        }
        let r = I::load(&p[q]);
        if r != q {
            I::store(&p[x], r);
        }
        x = r;
    }
}

/// Joins the trees of `a` and `b` in the shared parents, the larger root under the smaller,
/// by compare-and-swap on the root (retried if another thread linked it first).
fn union<I: Ix>(p: &[I::A], mut a: usize, mut b: usize) {
    loop {
        let (ra, rb) = (find::<I>(p, a), find::<I>(p, b));
        let (hi, lo) = match ra.cmp(&rb) {
            std::cmp::Ordering::Equal => return,
            std::cmp::Ordering::Greater => (ra, rb),
            std::cmp::Ordering::Less => (rb, ra),
        };
        if I::cas(&p[hi], hi, lo) {
            return;
        }
        (a, b) = (ra, rb);
    }
}

/// A chunk of lines `[l0, l1)`: per line `words` mask words, run-start words and runs before
/// each word, the index of each line's first run (and the end), its own parents (local
/// indices), and the runs before it.
struct Chunk<I> {
    l0: usize,
    l1: usize,
    words: usize,
    m: Vec<u64>,
    st: Vec<u64>,
    pre: Vec<I>,
    first: Vec<I>,
    parent: Vec<I>,
    base: usize,
}

impl<I: Ix> Chunk<I> {
    /// Line `l` (in this chunk), runs numbered locally.
    #[inline]
    fn line(&self, l: usize) -> Line<'_, I> {
        let (r, n) = ((l - self.l0) * self.words, self.words);
        Line {
            m: &self.m[r..r + n],
            st: &self.st[r..r + n],
            pre: &self.pre[r..r + n],
            first: self.first[l - self.l0].us(),
        }
    }

    fn runs(&self) -> usize {
        self.first[self.l1 - self.l0].us()
    }
}

/// Step 1 for lines `[l0, l1)` of `x`: masks and runs, linked within the chunk.
fn chunk<T: Nz, I: Ix>(x: &[T], geo: &Geo, l0: usize, l1: usize) -> Chunk<I> {
    let (w, nw) = (geo.w, geo.words);
    let mut c = Chunk {
        l0,
        l1,
        words: nw,
        m: Vec::with_capacity((l1 - l0) * nw),
        st: Vec::with_capacity((l1 - l0) * nw),
        pre: Vec::with_capacity((l1 - l0) * nw),
        first: Vec::with_capacity(l1 - l0 + 1),
        parent: Vec::new(),
        base: 0,
    };
    let mut co = geo.coords(l0);
    for l in l0..l1 {
        let a = c.parent.len();
        c.first.push(I::of(a));
        let mut prev = 0u64;
        let mut n = 0usize;
        for b in x[l * w..(l + 1) * w].chunks(64) {
            let m = mask64(b);
            let s = if geo.joined { m & !((m << 1) | (prev >> 63)) } else { m };
            prev = m;
            c.m.push(m);
            c.st.push(s);
            c.pre.push(I::of(n));
            n += s.count_ones() as usize;
        }
        c.parent.extend((a..a + n).map(I::of));
        if n != 0 {
            let r = (l - l0) * nw;
            let cur = Line { m: &c.m[r..r + nw], st: &c.st[r..r + nw], pre: &c.pre[r..r + nw], first: a };
            for g in &geo.groups {
                if l < l0 + g.off || !geo.inside(&co, g) {
                    continue;
                }
                let (lp, r) = (l - g.off, (l - g.off - l0) * nw);
                let nb = Line {
                    m: &c.m[r..r + nw],
                    st: &c.st[r..r + nw],
                    pre: &c.pre[r..r + nw],
                    first: c.first[lp - l0].us(),
                };
                let parent = &mut c.parent;
                pairs(&cur, &nb, g, geo.joined, |i, k| {
                    let (ra, rb) = (find_local(parent, i), find_local(parent, k));
                    if ra < rb {
                        parent[rb] = I::of(ra);
                    } else if rb < ra {
                        parent[ra] = I::of(rb);
                    }
                });
            }
        }
        geo.step(&mut co);
    }
    c.first.push(I::of(c.parent.len()));
    c
}

/// A chunk's part of the shared parents before it is written.
type Uninit<'a, I> = &'a mut [MaybeUninit<<I as Ix>::A>];

/// Labels `x` (the input's elements, C order, as lines of `geo.w`) into `out`; returns the
/// number of components.
fn label_typed<T: Nz, I: Ix, O: Out>(x: &[T], geo: &Geo, out: &mut [O], par: bool) -> usize {
    let w = geo.w;
    let lines = x.len() / w;
    let parts = if par { (rayon::current_num_threads() * 4).clamp(1, lines) } else { 1 };
    let bounds: Vec<(usize, usize)> = (0..parts).map(|k| (k * lines / parts, (k + 1) * lines / parts)).collect();
    let mut chunks: Vec<Chunk<I>> = if parts > 1 {
        bounds.par_iter().map(|&(a, b)| chunk::<T, I>(x, geo, a, b)).collect()
    } else {
        vec![chunk::<T, I>(x, geo, 0, lines)]
    };
    let mut total = 0;
    for c in &mut chunks {
        c.base = total;
        total += c.runs();
    }
    // Step 2: the shared parents, then the links across chunks.
    let mut shared: Vec<I::A> = Vec::with_capacity(total);
    {
        let mut rest = &mut shared.spare_capacity_mut()[..total];
        let mut parts: Vec<(Uninit<I>, &Chunk<I>)> = Vec::with_capacity(chunks.len());
        for c in &chunks {
            let (head, tail) = rest.split_at_mut(c.runs());
            parts.push((head, c));
            rest = tail;
        }
        let fill = |(dst, c): (Uninit<I>, &Chunk<I>)| {
            for (d, &p) in dst.iter_mut().zip(&c.parent) {
                d.write(I::atom(c.base + p.us()));
            }
        };
        if parts.len() > 1 {
            parts.into_par_iter().for_each(fill);
        } else {
            parts.into_iter().for_each(fill);
        }
    }
    // SAFETY: the loop above wrote all `total` elements (the chunks' run counts add up to it).
    unsafe { shared.set_len(total) };
    for c in &mut chunks {
        c.parent = Vec::new();
    }
    let p = &shared[..];
    let starts: Vec<usize> = chunks.iter().map(|c| c.l0).collect();
    let owner = |l: usize| &chunks[starts.partition_point(|&s| s <= l) - 1];
    let across = |c: &Chunk<I>| {
        let mut co = geo.coords(c.l0);
        for l in c.l0..c.l1.min(c.l0 + geo.reach) {
            let cur = c.line(l);
            if cur.first != c.first[l + 1 - c.l0].us() {
                for g in &geo.groups {
                    if l >= c.l0 + g.off || l < g.off || !geo.inside(&co, g) {
                        continue;
                    }
                    let o = owner(l - g.off);
                    pairs(&cur, &o.line(l - g.off), g, geo.joined, |i, k| union::<I>(p, c.base + i, o.base + k));
                }
            }
            geo.step(&mut co);
        }
    };
    if parts > 1 {
        chunks.par_iter().skip(1).for_each(across);
    }
    // Step 3: roots counted, numbered, then every run its root's number.
    let count = |c: &Chunk<I>| (c.base..c.base + c.runs()).filter(|&i| I::load(&p[i]) == i).count();
    let roots: Vec<usize> = if parts > 1 { chunks.par_iter().map(count).collect() } else { vec![count(&chunks[0])] };
    let mut first = Vec::with_capacity(roots.len());
    let mut acc = 0;
    for r in &roots {
        first.push(acc);
        acc += r;
    }
    let tag = |(c, &f): (&Chunk<I>, &usize)| {
        let mut k = f;
        for (i, q) in (c.base..).zip(&p[c.base..c.base + c.runs()]) {
            if I::load(q) == i {
                k += 1;
                I::store(q, I::TAG | k);
            }
        }
    };
    let write = |(c, o): (&Chunk<I>, &mut [O])| {
        let mut i = c.base;
        for (l, o) in (c.l0..c.l1).zip(o.chunks_exact_mut(w)) {
            o.fill(O::ZERO);
            runs(c.line(l).m, w, geo.joined, |s, e| {
                let mut v = I::load(&p[i]);
                if v & I::TAG == 0 {
                    let mut q = v;
                    v = loop {
                        let u = I::load(&p[q]);
                        if u & I::TAG != 0 {
                            break u;
                        }
                        q = u;
                    };
                    I::store(&p[i], v);
                }
                let lab = O::of(v & !I::TAG);
                for e in &mut o[s..e] {
                    *e = lab;
                }
                i += 1;
            });
        }
    };
    let mut outs: Vec<&mut [O]> = Vec::with_capacity(chunks.len());
    let mut rest = out;
    for c in &chunks {
        let (head, tail) = rest.split_at_mut((c.l1 - c.l0) * w);
        outs.push(head);
        rest = tail;
    }
    if parts > 1 {
        chunks.par_iter().zip(&first).for_each(tag);
        chunks.par_iter().zip(outs).for_each(write);
    } else {
        tag((&chunks[0], &first[0]));
        write((&chunks[0], outs.pop().expect("one chunk")));
    }
    acc
}

/// Labels the nonzero elements of `fg` (C-contiguous, any dtype) over neighbours `nb` into
/// `out` (C-contiguous, int32 or int64, or any dtype through int64); returns the count.
pub(crate) fn label(fg: &Array, nb: &Neighbours, out: &Array) -> Result<usize> {
    label_with(fg, nb, out, fg.size() >= 1 << 31)
}

/// [`label`] with `u64` indices if `wide` (needed from 2^31 elements on).
fn label_with(fg: &Array, nb: &Neighbours, out: &Array, wide: bool) -> Result<usize> {
    let n = fg.size();
    // Axes of length 1 dropped with the neighbours that step along them (never inside), so
    // that a column is one line, not a line per element; then fewer than 2 axes as one line.
    let full = fg.shape();
    let keep: Vec<usize> = (0..full.len()).filter(|&k| full[k] != 1).collect();
    let mut shape: Vec<usize> = keep.iter().map(|&k| full[k]).collect();
    let mut nb: Neighbours = nb
        .iter()
        .filter(|d| d.iter().zip(full).all(|(&s, &len)| s == 0 || len != 1))
        .map(|d| keep.iter().map(|&k| d[k]).collect())
        .collect();
    if shape.len() < 2 {
        // No axis left: one element, and no neighbours left either.
        shape = vec![1, shape.first().copied().unwrap_or(1)];
        nb = nb.iter().map(|d| vec![0, d[0]]).collect();
    }
    let geo = Geo::new(&shape, &nb);
    let par = n >= PAR_MIN && rayon::current_num_threads() > 1;
    // Straight into `out` if it is C-contiguous int32/int64 and not the input's memory.
    let overlaps = {
        let (a, b) = (fg.cpu_ptr().get() as usize, out.cpu_ptr().get() as usize);
        a < b + out.nbytes() && b < a + fg.nbytes()
    };
    let direct = out.is_c_contiguous() && matches!(out.dtype(), DType::Int32 | DType::Int64) && !overlaps;
    let target = if direct { out.view() } else { Array::alloc(fg.shape(), DType::Int64, out.device(), false)? };
    let total;
    {
        let _l = CpuLocks::new(&[&fg.storage], &[&target.storage]);
        let (src, dst) = (fg.cpu_ptr().get() as *const u8, target.cpu_ptr().get());
        let int32 = target.dtype() == DType::Int32;
        macro_rules! go {
            ($t:ty) => {{
                // SAFETY: `fg` is a C-contiguous CPU array of `n` elements with the layout of
                // `$t`, read-locked above.
                let x = unsafe { std::slice::from_raw_parts(src as *const $t, n) };
                if int32 {
                    // SAFETY: `target` is a C-contiguous CPU int32 array of `n` elements,
                    // write-locked above, whose memory does not overlap the input's (`direct`,
                    // or a new array).
                    let o = unsafe { std::slice::from_raw_parts_mut(dst as *mut i32, n) };
                    if wide {
                        label_typed::<_, u64, _>(x, &geo, o, par)
                    } else {
                        label_typed::<_, u32, _>(x, &geo, o, par)
                    }
                } else {
                    // SAFETY: as above, for an int64 array.
                    let o = unsafe { std::slice::from_raw_parts_mut(dst as *mut i64, n) };
                    if wide {
                        label_typed::<_, u64, _>(x, &geo, o, par)
                    } else {
                        label_typed::<_, u32, _>(x, &geo, o, par)
                    }
                }
            }};
        }
        total = match fg.dtype() {
            DType::Bool | DType::Int8 | DType::UInt8 => go!(u8),
            DType::Int16 | DType::UInt16 => go!(u16),
            DType::Int32 | DType::UInt32 => go!(u32),
            DType::Int64 | DType::UInt64 => go!(u64),
            DType::Float32 => go!(f32),
            DType::Float64 => go!(f64),
            DType::Float16 => return Err(Error::Type("label: no implementation for float16 input".into())),
            DType::Complex64 | DType::Complex128 => return Err(Error::Type("Complex type not supported".into())),
        };
    }
    if !direct {
        crate::ufunc::assign(out, &target)?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scipy::ndimage::generate_binary_structure;

    /// The `u64` path (taken from 2^31 elements on) gives the `u32` path's labels, in one
    /// chunk and in several, into int32 and int64.
    #[test]
    fn wide_indices_give_the_same_labels() -> Result<()> {
        let dev = crate::Device::Cpu;
        let mut s = 0x2545F4914F6CDD1Du64;
        let shapes: [&[usize]; 4] = [&[300, 301], &[20, 30, 40], &[100_000], &[50, 60, 70]];
        for shape in shapes {
            let n: usize = shape.iter().product();
            let v: Vec<bool> = (0..n)
                .map(|_| {
                    s ^= s >> 12;
                    s ^= s << 25;
                    s ^= s >> 27;
                    s.wrapping_mul(0x2545F4914F6CDD1D) % 5 < 2
                })
                .collect();
            let x = crate::from_slice(&v, shape, &dev)?;
            let nd = shape.len();
            for conn in 1..=nd {
                let nb = super::super::neighbours(Some(&generate_binary_structure(nd, conn)?), nd)?;
                for dt in [DType::Int32, DType::Int64] {
                    let (a, b) = (Array::alloc(shape, dt, dev, false)?, Array::alloc(shape, dt, dev, false)?);
                    let (ka, kb) = (label_with(&x, &nb, &a, false)?, label_with(&x, &nb, &b, true)?);
                    assert!(ka > 1, "{shape:?} connectivity {conn}: {ka} labels");
                    assert_eq!(ka, kb, "{shape:?} connectivity {conn} {dt}");
                    assert_eq!(a.to_vec_as::<i64>()?, b.to_vec_as::<i64>()?, "{shape:?} connectivity {conn} {dt}");
                }
            }
        }
        Ok(())
    }
}
