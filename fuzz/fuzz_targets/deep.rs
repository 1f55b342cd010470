//! Deep nesting for the `world` and `trace` targets. `.ci/run` caps inputs at 4 KiB, too short to
//! nest past any limit, so an input `head NUL unit NUL tail` stands for `head`, `unit` repeated
//! to 10 000 levels, then `tail` (`[ask]\nx = ␀[␀` is 10 000 `[`); an input without two NULs
//! is itself. The reader runs on a thread with 2 MiB of stack, what std gives a spawned thread and
//! tokio its workers (the language server reads world files there): a walk that recurses once
//! per level overflows it, where the main thread's 8 MiB might hide it.

/// The input with its `unit` repeated, if it has one.
pub fn amplified(text: &str) -> String {
    let mut parts = text.splitn(3, '\0');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(head), Some(unit), Some(tail)) if !unit.is_empty() => {
            let times = 10_000.min(80_000 / unit.len());
            format!("{head}{}{tail}", unit.repeat(times))
        }
        _ => text.to_string(),
    }
}

/// Runs `f` on a thread with 2 MiB of stack.
pub fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn a thread");
    if let Err(panic) = worker.join() {
        std::panic::resume_unwind(panic);
    }
}
