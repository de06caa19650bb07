//! Property tests (proptest): random shapes, strides, steps, dtypes and extreme scalars, on every
//! device, each case checked against a model written here (Python's slice rules, NumPy's size
//! rules, sums counted by hand) or against the same operation on a contiguous copy.
//!
//! Each property draws [`cases`] inputs from the run's seed (`CUPRUM_TEST_SEED`, printed by the
//! suite), so a failure replays with that seed; proptest shrinks it to a smallest failing input
//! first and the panic shows it. A panic inside cuprum is a failure like any other (caught and
//! shrunk). CI runs 64 cases a property; a longer run, for example before a release:
//!
//! ```text
//! CUPRUM_PROP_CASES=20000 cargo test --release --test suite -- props::
//! ```
//!
//! The fuzz targets of `crates/cuprum-fuzz` (file parsers, slicing and `Expr` trees from raw
//! bytes) are the other half of the harness.

mod creation;
mod fft;
mod ndimage;
mod reduce;
mod slicing;
mod views;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// Inputs per property: `CUPRUM_PROP_CASES`, default 64.
pub fn cases() -> u32 {
    std::env::var("CUPRUM_PROP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

/// Runs `test` on [`cases`] values of `strategy` drawn from the run's seed and `stream` (one
/// stream per property and device, so each draws its own inputs); panics with the smallest
/// failing value proptest finds.
pub fn check<S>(name: &str, stream: u64, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let mut state = crate::common::base_seed() ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        // splitmix64: 32 bytes of ChaCha seed from the run's seed.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    // Rejected inputs (sizes a machine might hold, see creation.rs) are drawn again, up to 4 per case.
    let config =
        Config { cases: cases(), failure_persistence: None, max_global_rejects: 4 * cases(), ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    if let Err(e) = runner.run(&strategy, test) {
        panic!("property {name}: {e}\n(replay with CUPRUM_TEST_SEED={})", crate::common::base_seed());
    }
}

/// A stream number per device, so that the CPU and GPU cases of a property draw different inputs.
pub fn stream(base: u64, dev: &cuprum::Device) -> u64 {
    if dev.is_cpu() {
        base
    } else {
        base ^ 0x6B75_0000
    }
}

/// A cuprum error that the property did not expect, as a failure saying which step made it.
pub trait OrFail<T> {
    fn or_fail(self, what: &str) -> Result<T, TestCaseError>;
}

impl<T> OrFail<T> for cuprum::Result<T> {
    fn or_fail(self, what: &str) -> Result<T, TestCaseError> {
        self.map_err(|e| TestCaseError::fail(format!("{what}: unexpected error {:?}: {e}", e.kind())))
    }
}

/// An array as the models see it: a shape and its elements in C order.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub shape: Vec<usize>,
    pub values: Vec<i64>,
}

impl Model {
    /// `np.arange(n).reshape(shape)`: each element is its own flat position in the base array,
    /// so a view's model says which base elements it sees.
    pub fn arange(shape: &[usize]) -> Model {
        let n: usize = shape.iter().product();
        Model { shape: shape.to_vec(), values: (0..n as i64).collect() }
    }

    /// The model of an array of `shape` whose element at each C-order multi-index is this
    /// model's element at the flat position `at(index)` gives.
    pub fn gather(&self, shape: Vec<usize>, at: impl Fn(&[usize]) -> usize) -> Model {
        let n: usize = shape.iter().product();
        let mut values = Vec::with_capacity(n);
        let mut idx = vec![0usize; shape.len()];
        for _ in 0..n {
            values.push(self.values[at(&idx)]);
            for a in (0..shape.len()).rev() {
                idx[a] += 1;
                if idx[a] < shape[a] {
                    break;
                }
                idx[a] = 0;
            }
        }
        Model { shape, values }
    }

    /// C-order strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut s = vec![1usize; self.shape.len()];
        for a in (0..self.shape.len().saturating_sub(1)).rev() {
            s[a] = s[a + 1] * self.shape[a + 1];
        }
        s
    }
}

/// Shapes of up to `max_ndim` axes of lengths 0 to `max_len`.
pub fn shapes(max_ndim: usize, max_len: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..=max_len, 0..=max_ndim)
}
