#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    cuprum_fuzz::slicing(data);
});
