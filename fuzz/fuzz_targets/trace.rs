//! Any text as a recorded trace (`opal run --replay`): a clear error or a trace that passed
//! validation, never a crash (nor a stack overflow on a small stack, however deep it nests: see
//! `deep.rs`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "deep.rs"]
mod deep;

fuzz_target!(|data: &[u8]| {
    let text = deep::amplified(&String::from_utf8_lossy(data));
    deep::on_small_stack(move || {
        if let Ok(t) = opal_core::machine::trace::Trace::parse(&text) {
            // A trace that loaded must stay valid and printable.
            assert!(t.validate().is_ok());
        }
    });
});
