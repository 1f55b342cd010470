//! Any text as a recorded trace (`opal run --replay`): a clear error or a trace that passed
//! validation, never a crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = opal_core::machine::trace::Trace::parse(&String::from_utf8_lossy(data)) {
        // A trace that loaded must stay valid and printable.
        assert!(t.validate().is_ok());
    }
});
