//! Any text as a world file: an error list or a world, never a crash; and the fast reader
//! for plain world files reads exactly what `toml` reads whenever it answers.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = opal_core::world::parse_world(&text);
    if let Err(e) = opal_core::world::agrees_with_toml(&text) {
        panic!("{e}");
    }
});
