//! Any text as a world file: an error list or a world, never a crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = opal_core::world::parse_world(&String::from_utf8_lossy(data));
});
