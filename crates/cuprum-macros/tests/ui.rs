//! The kernel macros turn away what the translator does not accept with a compile error at the
//! user's span, saying what is not supported (never a run-time NVRTC error): each file of
//! `tests/ui/` must fail to compile with exactly the messages of its `.stderr` (trybuild,
//! through rustc). On an error the macros emit the error and the function as written, nothing
//! naming `cuprum`, so the cases use `cuprum_macros::` (the attributes `cuprum` re-exports).
//! Regenerate the messages with `TRYBUILD=overwrite cargo test --release -p cuprum-macros --test ui`.

#[test]
fn kernel_macros_reject_what_they_do_not_translate() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
