#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    talus_fuzz::targets::block(data);
});
