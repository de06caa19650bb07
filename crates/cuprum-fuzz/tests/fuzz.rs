//! The fuzz targets in CI: a fixed number of inputs each (`CUPRUM_FUZZ_ITERS`, default 2000 for
//! the parsers and 400 for slicing and formulas), from a seed printed at the start
//! (`CUPRUM_FUZZ_SEED` replays a run). Parser inputs are valid files (the crate's seeds) with a
//! few mutations each: bytes flipped or set to boundary values, cut short, runs of digits or
//! chunks of another file spliced in; slicing and formulas get random bytes. A panic fails the
//! test with the input, which is also written to `target/fuzz-failures/`.

use std::panic::{catch_unwind, AssertUnwindSafe};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        let s = std::env::var("CUPRUM_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
        eprintln!("fuzz inputs: CUPRUM_FUZZ_SEED={s}");
        s
    })
}

fn iters(default: usize) -> usize {
    std::env::var("CUPRUM_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A few mutations of `input`, with `corpus` to splice from.
fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        let last = at.min(v.len().saturating_sub(1));
        match rng.below(7) {
            0 if !v.is_empty() => v[last] ^= 1 << rng.below(8),
            1 if !v.is_empty() => v[last] = [0, 0xFF, 0x7F, 0x80, b'9', b'-', b'(', b' ', b'\''][rng.below(9)],
            2 => v.truncate(at),
            3 => {
                let digits: Vec<u8> = std::iter::repeat_n(b'9', 1 + rng.below(25)).collect();
                v.splice(at..at, digits);
            }
            4 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len());
                let len = rng.below(other.len() - from + 1).min(4096);
                v.splice(at..at, other[from..from + len].iter().copied());
            }
            5 => {
                // A header word replaced by another that such files hold.
                let words: [&[u8]; 8] = [
                    b"<f8",
                    b">i2",
                    b"|b1",
                    b"<c16",
                    b"True",
                    b"-1,",
                    b"BITPIX  =                  -64",
                    b"NAXIS1  =          99999999999",
                ];
                let w = words[rng.below(words.len())];
                let end = (at + w.len()).min(v.len());
                v.splice(at..end, w.iter().copied());
            }
            _ => {
                let n = rng.below(64);
                v.extend((0..n).map(|_| rng.next() as u8));
            }
        }
    }
    v
}

/// Runs `target` on `n` inputs; on a panic, fails with the input (hex) after saving it. Prints
/// how many inputs the target took in (parsed, indexed, computed), which must be some: a
/// target that refuses every input tests nothing.
fn run(name: &str, target: fn(&[u8]) -> bool, n: usize, input: impl Fn(&mut Rng) -> Vec<u8>) {
    let mut taken = 0;
    let mut rng = Rng((seed() ^ name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))) | 1);
    for i in 0..n {
        let data = input(&mut rng);
        let r = catch_unwind(AssertUnwindSafe(|| target(&data)));
        taken += matches!(r, Ok(true)) as usize;
        if let Err(p) = r {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-failures");
            let path = dir.join(format!("{name}-{}-{i}.bin", seed()));
            let _ = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &data));
            let hex: String = data.iter().take(512).map(|b| format!("{b:02x}")).collect();
            panic!(
                "fuzz {name}: input {i} of CUPRUM_FUZZ_SEED={} panicked: {msg}\ninput ({} bytes, saved to {}): {hex}",
                seed(),
                data.len(),
                path.display()
            );
        }
    }
    eprintln!("fuzz {name}: {n} inputs, {taken} taken in");
    assert!(n == 0 || taken > 0, "fuzz {name}: no input got through");
}

/// The files of cuprum's fixtures (written by NumPy and astropy) ending in `ext`.
fn fixtures(ext: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cuprum/tests/fixtures/io");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files.iter().filter(|p| p.extension().is_some_and(|e| e == ext)).filter_map(|p| std::fs::read(p).ok()).collect()
}

fn parser(name: &str, target: fn(&[u8]) -> bool, mut corpus: Vec<Vec<u8>>) {
    assert!(!corpus.is_empty(), "{name}: no seeds");
    // The seeds themselves first (they must read), then mutations of them and of the fixtures.
    for (i, s) in corpus.iter().enumerate() {
        assert!(target(s), "{name}: seed {i} does not read");
    }
    corpus.extend(fixtures(name));
    run(name, target, iters(2000), |rng| {
        let k = rng.below(corpus.len());
        mutate(rng, &corpus[k], &corpus)
    });
}

#[test]
fn npy() {
    parser("npy", cuprum_fuzz::npy, cuprum_fuzz::seeds::npy());
}

#[test]
fn npz() {
    parser("npz", cuprum_fuzz::npz, cuprum_fuzz::seeds::npz());
}

#[test]
fn fits() {
    parser("fits", cuprum_fuzz::fits, cuprum_fuzz::seeds::fits());
}

fn random_bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    let n = rng.below(max);
    (0..n).map(|_| rng.next() as u8).collect()
}

#[test]
fn slicing() {
    run("slicing", cuprum_fuzz::slicing, iters(400), |rng| random_bytes(rng, 256));
}

#[test]
fn expr() {
    run("expr", cuprum_fuzz::expr, iters(400), |rng| random_bytes(rng, 2048));
}

/// Formulas of up to 300 steps with scalars at the ends of their types (random bytes rarely
/// describe more than a few steps).
#[test]
fn expr_programs() {
    use cuprum_fuzz::{Sc, Step, DTYPES, SHAPES};
    const VALUES: [f64; 10] = [0.0, -0.0, 1.0, -2.5, 3.0, 1e300, -1e-300, f64::NAN, f64::INFINITY, 255.0];
    let mut rng = Rng((seed() ^ 0xE4E4) | 1);
    let (mut computed, n) = (0, iters(300));
    for i in 0..n {
        let leaf = |rng: &mut Rng| {
            let shape = SHAPES[rng.below(SHAPES.len())];
            let vals: Vec<f64> =
                (0..shape.iter().product::<usize>()).map(|_| VALUES[rng.below(VALUES.len())]).collect();
            cuprum::from_slice(&vals, shape, &cuprum::Device::Cpu)
                .and_then(|a| a.astype(DTYPES[rng.below(DTYPES.len())]))
        };
        let leaves: Vec<_> = (0..1 + rng.below(4)).map(|_| leaf(&mut rng)).collect();
        let steps = 1 + rng.below(300);
        let program: Vec<Step> = (0..steps)
            .map(|_| {
                let (a, x, y, z) = (rng.next() as u8, rng.next() as u16, rng.next() as u16, rng.next() as u16);
                let sc = match rng.below(4) {
                    0 => Sc::B(x % 2 == 0),
                    1 => Sc::I([0, 1, -3, 127, 256, i64::MAX, i64::MIN][rng.below(7)]),
                    _ => Sc::F(VALUES[rng.below(VALUES.len())]),
                };
                match rng.below(6) {
                    0 => Step::Un(a, x),
                    1 | 2 => Step::Bin(a, x, y),
                    3 => Step::WithScalar(a, x, sc, y % 2 == 0),
                    4 => Step::Cast(a, x),
                    _ => Step::Where(x, y, z),
                }
            })
            .collect();
        match catch_unwind(AssertUnwindSafe(|| cuprum_fuzz::formula(leaves, &program))) {
            Ok(ok) => computed += ok as usize,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!("formula {i} of CUPRUM_FUZZ_SEED={}: {msg}\nprogram: {program:?}", seed());
            }
        }
    }
    eprintln!("fuzz expr_programs: {n} formulas, {computed} computed, the rest failed alike");
    assert!(n == 0 || computed > 0, "no formula computed");
}

/// The longest formulas the target builds, which random bytes rarely reach: a chain of
/// MAX_STEPS steps, each on the one before (`x = x + x`, doubling the tree a walk sees), and
/// the same with a unary function between.
#[test]
fn expr_long_chains() {
    use cuprum_fuzz::Step;
    let leaf = || cuprum::from_vec(vec![0.5f64, -1.0, 2.0], &cuprum::Device::Cpu);
    let n = cuprum_fuzz::MAX_STEPS as u16;
    // BinaryOp::ALL[0] is add; UnaryOp::ALL[0] negative.
    let doubling: Vec<Step> = (0..n).map(|k| Step::Bin(0, k, k)).collect();
    assert!(cuprum_fuzz::formula(vec![leaf()], &doubling), "x = x + x, {n} times");
    let mixed: Vec<Step> = (0..n).map(|k| if k % 2 == 0 { Step::Bin(0, k, 0) } else { Step::Un(0, k) }).collect();
    assert!(cuprum_fuzz::formula(vec![leaf()], &mixed), "a chain of {n} steps");
}
