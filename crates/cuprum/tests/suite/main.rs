//! cuprum's integration tests: one test binary (each extra binary is another link), a module
//! per family of the library. Per family: NumPy's values on every device (`device_test!`:
//! `<family>::<name>::cpu` and `::gpu`), the GPU against the CPU on seeded random inputs
//! (`<family>::gpu::...`), and the family's group in `conformance`.
//!
//! The harness is libtest-mimic's, so `cargo test --release -- <filter>...` (several filters
//! as with libtest), `--exact`, `--list`, `--test-threads`, `--ignored` and `--include-ignored`
//! work as usual. Tests register
//! themselves (`common`'s macros, through `inventory`). GPU cases are decided at run time:
//! without a usable GPU they are reported as ignored (so the final count shows them); with
//! `CUPRUM_REQUIRE_GPU=1` they run, and fail without a GPU. A test panicking fails with its
//! message. Tests marked `isolated_gpu_test!` run in a process of their own (this binary run
//! again with `--exact <name>`). Test output is not captured (libtest-mimic cannot).

#[macro_use]
mod common;

mod api;
mod array;
mod backend;
mod complex;
mod conformance;
mod fft;
mod fuse;
mod indexing;
mod io;
mod kernel;
mod linalg;
mod manip;
mod ndimage;
mod props;
mod random;
mod reduce;
mod scan;
mod select;
mod set_ops;
mod signal;
mod sort;
mod source_kernels;
mod statistics;
mod stats;
mod streams;
mod testing;
mod ufunc;

use libtest_mimic::{Arguments, Failed, Trial};
use std::process::{Command, ExitCode};

/// Set in the process that runs an isolated test: its name.
const ISOLATED_ENV: &str = "CUPRUM_ISOLATED_TEST";

/// A test's name without this crate's name: `sort::gpu::sort_f32`.
fn short(name: &'static str) -> &'static str {
    name.strip_prefix(concat!(module_path!(), "::")).unwrap_or(name)
}

/// Runs isolated test `name` in a new process of this binary; fails with that process's
/// output when it fails or did not run exactly that test.
fn run_isolated(name: &str) -> Result<(), Failed> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .args([name, "--exact", "--test-threads=1"])
        .env(ISOLATED_ENV, name)
        // It runs only because a GPU case is to run here: without a GPU it must fail, not skip.
        .env("CUPRUM_REQUIRE_GPU", "1")
        .output()
        .map_err(|e| format!("could not start a process for {name}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && text.contains("test result: ok. 1 passed") {
        Ok(())
    } else {
        Err(format!("{name} in a process of its own: {}\n{text}", out.status).into())
    }
}

thread_local! {
    /// Where the running test panicked (set by the hook, read by [`run_caught`]).
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    static IN_TEST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs a test body: a panic fails the test with its message and location (the panic hook
/// prints nothing for a test; with output not captured, a message per panic would bury the
/// summary).
fn run_caught(run: fn()) -> Result<(), Failed> {
    IN_TEST.with(|t| t.set(true));
    PANICKED_AT.with(|p| p.borrow_mut().take());
    let r = std::panic::catch_unwind(run);
    IN_TEST.with(|t| t.set(false));
    r.map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(a panic without a message)".into());
        let at = PANICKED_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
        Failed::from(format!("{msg}\n(panicked at {at})"))
    })
}

/// libtest takes several name filters (a test runs when any matches); libtest-mimic takes one.
/// So filters beyond the first are taken out of the arguments here (those of options that
/// take a value left alone) and applied to the list of tests before it: `(args, filters)`.
fn split_filters(args: Vec<String>) -> (Vec<String>, Vec<String>) {
    const WITH_VALUE: &[&str] = &["--test-threads", "--logfile", "--skip", "--color", "--format", "-Z"];
    let (mut rest, mut filters) = (Vec::new(), Vec::new());
    let mut it = args.into_iter();
    rest.extend(it.next()); // the program
    while let Some(a) = it.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            rest.push(a);
            rest.extend(it.next());
        } else if a.starts_with('-') {
            rest.push(a);
        } else {
            filters.push(a);
        }
    }
    if filters.len() == 1 {
        rest.append(&mut filters); // one filter: libtest-mimic's own (counted as filtered out)
    }
    (rest, filters)
}

fn main() -> ExitCode {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if IN_TEST.with(|t| t.get()) {
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            PANICKED_AT.with(|p| *p.borrow_mut() = Some(at));
        } else {
            default_hook(info)
        }
    }));
    let (argv, filters) = split_filters(std::env::args().collect());
    let args = Arguments::from_iter(argv);
    let isolated_here = std::env::var(ISOLATED_ENV).ok();
    let mut cases: Vec<&common::TestCase> = inventory::iter::<common::TestCase>.into_iter().collect();
    cases.sort_by_key(|c| c.name);
    if !filters.is_empty() {
        let keep = |n: &str| filters.iter().any(|f| if args.exact { n == f } else { n.contains(f.as_str()) });
        cases.retain(|c| keep(short(c.name)));
    }
    for w in cases.windows(2) {
        assert_ne!(w[0].name, w[1].name, "a test registered twice");
    }
    let listing = args.list;
    // GPU cases are ignored when no GPU is usable, unless they must run.
    let ignore_gpu = !listing && !common::gpu_required() && common::no_gpu_reason().is_some();
    if !listing {
        common::base_seed(); // prints the seed line once, before the tests
        if ignore_gpu {
            let n = cases.iter().filter(|c| c.gpu).count();
            eprintln!(
                "no usable GPU ({}): its {n} cases are reported as ignored (CUPRUM_REQUIRE_GPU=1 runs them)",
                common::no_gpu_reason().unwrap_or("")
            );
        }
    }
    let one_gpu = !listing && cuprum::cuda_device_count() < 2;
    if one_gpu && cases.iter().any(|c| c.gpus >= 2) {
        let n = cases.iter().filter(|c| c.gpus >= 2).count();
        eprintln!("fewer than two GPUs: the {n} two-GPU cases are reported as ignored");
    }
    let trials = cases
        .into_iter()
        .map(|c| {
            let name = short(c.name);
            let trial = if c.isolated && isolated_here.as_deref() != Some(name) {
                Trial::test(name, move || run_isolated(name))
            } else {
                let run = c.run;
                Trial::test(name, move || run_caught(run))
            };
            trial.with_ignored_flag((c.gpu && ignore_gpu) || (c.gpus >= 2 && one_gpu))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
