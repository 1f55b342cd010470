//! Any text as a world file: an error list or a world, never a crash (nor a stack overflow on a
//! small stack, however deep it nests: see `deep.rs`); and the fast reader for plain world
//! files reads exactly what `toml` reads whenever it answers.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "deep.rs"]
mod deep;

fuzz_target!(|data: &[u8]| {
    let text = deep::amplified(&String::from_utf8_lossy(data));
    deep::on_small_stack(move || {
        let _ = opal_core::world::parse_world(&text);
        if let Err(e) = opal_core::world::agrees_with_toml(&text) {
            panic!("{e}");
        }
    });
});
