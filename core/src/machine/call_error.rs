//! Why a pure or library external refused its argument. The text is what the user reads in
//! the runtime error; the variant is what callers match, so no caller reads the words.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// An argument of the wrong kind: `len needs a string, list, tuple or dictionary, got …`.
    #[error("{ext} needs {needs}, got {got}")]
    Needs {
        ext: String,
        needs: &'static str,
        got: String,
    },
    /// A tuple argument of the wrong shape: `zip takes (list, list), got …`.
    #[error("{ext} takes {shape}, got {got}")]
    Takes {
        ext: String,
        shape: &'static str,
        got: String,
    },
    /// Not a pair or a string where the machine's own externals need one.
    #[error("expected {expected}, got {got}")]
    Expected { expected: &'static str, got: String },
    /// Not an integer; `what` says which part: "range's start", "a list index", ….
    #[error("{what} must be an integer, got {got}")]
    NotAnInteger { what: &'static str, got: String },
    /// An index outside the collection (`what`: "a list", "a tuple", "a string").
    #[error("index {index} is out of range for {what} of {len} element{}", if *len == 1 { "" } else { "s" })]
    OutOfRange {
        index: String,
        what: &'static str,
        len: usize,
    },
    /// A key the dictionary does not have; `keys` lists some of those it has.
    #[error("key {key} is not in the dictionary (its keys: {keys})")]
    MissingKey { key: String, keys: String },
    /// Indexing something that has no elements.
    #[error("cannot index {got}")]
    CannotIndex { got: String },
    /// Two values with no order between them (a string and a number).
    #[error("{ext} cannot compare {a} {with} {b}")]
    Incomparable {
        ext: String,
        a: String,
        with: &'static str,
        b: String,
    },
    /// `div` or `mod` by zero: "division" or "remainder".
    #[error("{0} by zero")]
    ByZero(&'static str),
    /// An integer result that does not fit 64 bits: "sum", "neg", "add (…, …)".
    #[error("integer overflow in {0}")]
    Overflow(String),
    /// `max` or `min` of nothing.
    #[error("{0} of an empty list")]
    Empty(String),
    /// A rule of the function itself: range's step and length, topk's lengths, JSON.
    #[error("{0}")]
    Invalid(String),
    /// `error x`: the program raised it; the text is x.
    #[error("{0}")]
    Raised(String),
    /// No external of that kind has the name (`kind`: "pure", "library").
    #[error("`{name}` is not a {kind} external")]
    Unknown { name: String, kind: &'static str },
}
