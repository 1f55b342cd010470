//! What the panels read: the window's state as one read-only borrow per frame (`AppView`),
//! and the parts of it that both the app and the panels name (`Practice`, `Cache`). Panels
//! never see `DebuggerApp` itself, so `panels` does not import `app`.

use crate::cmd::GraphMode;
use crate::layout::Layout;
use crate::settings::Settings;
use opal_core::machine::label::{LabelKey, LabelPath};
use opal_core::machine::StmtId;
use opal_debugger::graph::Graph;
use opal_debugger::session::{Confluence, Quiz, Session, Standing, Stepper, Until, Verdict};
use std::collections::BTreeSet;

/// Practice mode: what is asked, what the student ticked, the last check.
pub struct Practice {
    pub quiz: Quiz,
    pub ticked: BTreeSet<LabelKey>,
    pub verdict: Option<Verdict>,
}

/// What the panels read every frame, rebuilt once per revision.
#[derive(Default)]
pub struct Cache {
    pub revision: Option<u64>,
    pub statements: Vec<StmtId>,
    /// The statements that are neither the prelude's machinery (`Session::is_machinery`) nor
    /// temporaries folded into their uses (`Session::is_folded`): what the labeled term shows
    /// unless "prelude" is ticked.
    pub program_statements: Vec<StmtId>,
    pub standing: Option<Standing>,
    /// Lazy evaluation has nothing left to do: the result is a value (statements other
    /// strategies would step may remain).
    pub lazy_done: bool,
    pub pending: Vec<(StmtId, String)>,
    /// Why statements can never step, by their source line: marked in the Source panel.
    pub failures: std::collections::BTreeMap<usize, Vec<String>>,
    /// The before/after of the last step, computed when its tab is first shown.
    pub stepper: Option<Option<Stepper>>,
}

/// The window's state as the panels see it this frame (read only: they push `Cmd`s).
pub struct AppView<'a> {
    pub session: Option<&'a Session>,
    pub settings: &'a Settings,
    /// The program's file name.
    pub name: &'a str,
    pub status: &'a str,
    /// Compile errors of the program on disk.
    pub errors: Option<&'a str>,
    /// The program on disk when it does not compile and no session is open: the Source panel
    /// shows it with its errors marked.
    pub broken: Option<&'a Broken>,
    pub selected: Option<LabelKey>,
    pub running: bool,
    pub until: &'a Until,
    /// The graph shown (`DebuggerApp::mode`).
    pub mode: GraphMode,
    pub term_shown: bool,
    pub dock_shown: bool,
    pub graph: &'a Graph,
    pub layout: &'a Layout,
    pub practice: Option<&'a Practice>,
    pub confluence: Option<&'a Confluence>,
    /// Why the last typed answer was refused: (task label, error).
    pub hand_error: Option<&'a (LabelPath, String)>,
    pub cache: &'a Cache,
    /// Live externals are available.
    pub live: bool,
    /// The window's clock (seconds).
    pub now: f64,
    /// The window's size in points.
    pub screen: eframe::egui::Vec2,
}

/// A program that does not compile: its text and, by line (from 1), the errors there.
pub struct Broken {
    pub source: String,
    pub errors: std::collections::BTreeMap<usize, Vec<String>>,
}

impl Broken {
    pub fn new(source: &str, diags: &[opal_core::diag::Diagnostic]) -> Broken {
        let index = opal_core::span::LineIndex::new(source);
        let mut errors: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
        for d in diags.iter().filter(|d| d.is_error()) {
            let line = index.line_of(d.span.start) + 1;
            errors
                .entry(line)
                .or_default()
                .push(format!("error[{}]: {}", d.code, d.message));
        }
        Broken {
            source: source.to_string(),
            errors,
        }
    }
}
