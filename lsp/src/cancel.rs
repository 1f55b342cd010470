//! Cancellation of work running off the document lock, as rust-analyzer does it: the work
//! calls [`check`] in its loops; when its request was cancelled (`$/cancelRequest`) or its
//! document changed, `check` unwinds with [`Cancelled`] (no panic message), and the server
//! answers -32800 or -32801. Outside [`run`] (tests, benchmarks) `check` does nothing.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The flags one piece of work watches.
#[derive(Clone, Default)]
pub struct Token {
    /// The client cancelled the request (or stopped waiting for it).
    pub request: Arc<AtomicBool>,
    /// The document changed: the snapshot the work reads is out of date.
    pub stale: Arc<AtomicBool>,
}

impl Token {
    pub fn is_set(&self) -> bool {
        self.request.load(Ordering::Relaxed) || self.stale.load(Ordering::Relaxed)
    }
}

/// The unwinding payload of cancelled work.
pub struct Cancelled;

thread_local! {
    static CURRENT: RefCell<Option<Token>> = const { RefCell::new(None) };
}

/// Stops the current work if it was cancelled.
pub fn check() {
    let cancelled = CURRENT.with(|c| c.borrow().as_ref().is_some_and(Token::is_set));
    if cancelled {
        resume_unwind(Box::new(Cancelled));
    }
}

/// Runs `f` watching `token`; a panic or a cancellation comes back as its payload.
pub fn run<T>(token: Token, f: impl FnOnce() -> T) -> Result<T, Box<dyn Any + Send>> {
    let previous = CURRENT.with(|c| c.replace(Some(token)));
    let out = catch_unwind(AssertUnwindSafe(f));
    CURRENT.with(|c| *c.borrow_mut() = previous);
    out
}

/// Sets a flag when dropped: tower-lsp-server drops a request's future when the client
/// cancels it, and this tells the work behind it to stop.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_unwinds_only_when_set() {
        let t = Token::default();
        assert!(run(t.clone(), || {
            check();
            1
        })
        .is_ok());
        t.stale.store(true, Ordering::Relaxed);
        let r = run(t, || {
            check();
            1
        });
        assert!(r.is_err_and(|p| p.is::<Cancelled>()));
        check(); // outside `run`: nothing happens
    }

    /// The server checks once before a feature starts; these check that each whole-file
    /// feature also checks inside its own work (a cancelled request on a big file stops
    /// there), by running it with the flag already set.
    #[test]
    fn whole_file_features_check_inside_their_work() {
        use crate::analysis::{Analysis, WorldInfo};
        use crate::{
            call_hierarchy, document_link, folding_ranges, inlay_hints, navigation, semantic_tokens,
        };
        use opal_core::span::Span;
        let src: String = (0..50)
            .map(|i| format!("f{i} := fun x:\n    y := x + {i}\n    ret y\nz{i} := f{i} \"a.b\"\n"))
            .collect();
        let a = Analysis::new(src, WorldInfo::default());
        let dir = std::env::temp_dir();
        let whole = Span::new(0, a.text.len());
        type Feature<'a> = Box<dyn Fn(&Analysis) + 'a>;
        let features: Vec<(&str, Feature)> = vec![
            (
                "semantic tokens",
                Box::new(|a| drop(semantic_tokens::semantic_tokens(a))),
            ),
            (
                "inlay hints",
                Box::new(move |a| drop(inlay_hints::inlay_hints(a, whole))),
            ),
            (
                "document symbols",
                Box::new(|a| drop(navigation::document_symbols(a))),
            ),
            (
                "folding ranges",
                Box::new(|a| drop(folding_ranges::folding_ranges(a))),
            ),
            (
                "references",
                Box::new(|a| drop(navigation::references(a, 1, true))),
            ),
            (
                "document links",
                Box::new(move |a| drop(document_link::document_links(a, &dir, None))),
            ),
            (
                "incoming calls",
                Box::new(|a| {
                    let item = call_hierarchy::prepare(a, 1);
                    // `prepare` itself checks; make sure there was an item to ask about.
                    drop(item.map(|_| call_hierarchy::incoming(a, 1)));
                }),
            ),
            (
                "analysis",
                Box::new(|a| drop(Analysis::new(a.text.clone(), WorldInfo::default()))),
            ),
        ];
        for (name, f) in features {
            f(&a); // runs to the end outside `run`
            let t = Token::default();
            t.request.store(true, Ordering::Relaxed);
            assert!(
                run(t, || f(&a)).is_err_and(|p| p.is::<Cancelled>()),
                "{name} ran to the end"
            );
        }
    }
}
