//! What the user can ask for: every button, menu entry, shortcut and graph click becomes a
//! `Cmd`, which `DebuggerApp::run_cmd` carries out in one place. The keyboard table lives here
//! too, so the help overlay and every tooltip name the same keys.

use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};
use opal_core::machine::label::LabelKey;
use opal_core::machine::StmtId;
use opal_debugger::session::{Action, Order, Strategy};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Round,
    Advance,
    NextStrategy,
    /// The strategy chosen in the tool row or the More menu.
    SetStrategy(Strategy),
    Cbv,
    Lazy,
    Step(StmtId),
    StepSelected,
    Back,
    Forward,
    Goto(usize),
    Restart,
    RunPause,
    RunUntil,
    Cancel,
    ResolveWorld(String),
    ResolveTrace(String),
    ResolveHand(String, String),
    ResolveLive(String),
    ResolveAll,
    Select(Option<LabelKey>),
    ToggleGroup(LabelKey),
    TogglePrelude,
    /// The graph's settings changed (pure calls shown or hidden): rebuild and place it.
    RefreshGraph,
    GraphMode,
    Tidy,
    FitView,
    Minimap,
    ZoomIn,
    ZoomOut,
    Focus,
    Practice,
    CheckPractice,
    Confluence(Order),
    AllPaths,
    Travel(Vec<Action>),
    Help,
    Projector,
    Panel(Panel),
    Tab(Tab),
    Open(PathBuf),
    OpenExample(usize),
    Reload,
    SaveSession(PathBuf),
    LoadSession(PathBuf),
    LoadTrace(PathBuf),
    ExportDot(PathBuf),
    ExportSvg(PathBuf),
    ExportTimeline(PathBuf),
    Ask(Ask),
}

/// The panels that can be hidden and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Panel {
    Source,
    Term,
    Dock,
}

/// The bottom dock's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    Tasks,
    History,
    Timeline,
    Stepper,
}

impl Tab {
    pub const ALL: [Tab; 4] = [Tab::Tasks, Tab::History, Tab::Timeline, Tab::Stepper];
    pub fn name(self) -> &'static str {
        match self {
            Tab::Tasks => "Pending tasks",
            Tab::History => "History",
            Tab::Timeline => "Timeline",
            Tab::Stepper => "Before/after",
        }
    }
}

/// Which graph the centre shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GraphMode {
    /// External calls (as the paper and PopPy draw them).
    Calls,
    /// Every top-level statement, def-use edges.
    Statements,
}

/// A file the user is asked for (a path field, prefilled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    Open,
    SaveSession,
    LoadSession,
    LoadTrace,
    ExportDot,
    ExportSvg,
    ExportTimeline,
}

impl Ask {
    pub fn title(self) -> &'static str {
        match self {
            Ask::Open => "Open program",
            Ask::SaveSession => "Save session",
            Ask::LoadSession => "Load session",
            Ask::LoadTrace => "Load trace",
            Ask::ExportDot => "Export graph as DOT",
            Ask::ExportSvg => "Export graph as SVG",
            Ask::ExportTimeline => "Export timeline as CSV",
        }
    }
    pub fn suffix(self) -> &'static str {
        match self {
            Ask::Open => ".opal",
            Ask::SaveSession | Ask::LoadSession => ".session.json",
            Ask::LoadTrace => ".trace.json",
            Ask::ExportDot => ".graph.dot",
            Ask::ExportSvg => ".graph.svg",
            Ask::ExportTimeline => ".timeline.csv",
        }
    }
    pub fn cmd(self, p: PathBuf) -> Cmd {
        match self {
            Ask::Open => Cmd::Open(p),
            Ask::SaveSession => Cmd::SaveSession(p),
            Ask::LoadSession => Cmd::LoadSession(p),
            Ask::LoadTrace => Cmd::LoadTrace(p),
            Ask::ExportDot => Cmd::ExportDot(p),
            Ask::ExportSvg => Cmd::ExportSvg(p),
            Ask::ExportTimeline => Cmd::ExportTimeline(p),
        }
    }
}

/// The keyboard: (key, modifiers, command, what it does). The help overlay and every
/// tooltip read this table.
pub fn shortcuts() -> Vec<(KeyboardShortcut, Cmd, &'static str)> {
    let k = |m: Modifiers, key: Key| KeyboardShortcut::new(m, key);
    let n = Modifiers::NONE;
    let c = Modifiers::COMMAND;
    vec![
        (k(n, Key::Space), Cmd::Round, "one opportunistic round: every steppable statement steps"),
        (k(n, Key::N), Cmd::Advance, "one step of the chosen strategy"),
        (k(n, Key::S), Cmd::NextStrategy, "choose the next strategy (opportunistic, call-by-value, lazy) for N, Run and Run until"),
        (k(n, Key::C), Cmd::Cbv, "one call-by-value step"),
        (k(n, Key::L), Cmd::Lazy, "one lazy step"),
        (k(n, Key::Enter), Cmd::StepSelected, "step the selected statement"),
        (k(n, Key::ArrowLeft), Cmd::Back, "step back in history"),
        (k(n, Key::ArrowRight), Cmd::Forward, "step forward in history"),
        (k(c, Key::R), Cmd::Restart, "restart from the initial term"),
        (k(n, Key::P), Cmd::RunPause, "run or pause (speed in the toolbar)"),
        (k(n, Key::U), Cmd::RunUntil, "run until the chosen event (within the step budget)"),
        (k(n, Key::Escape), Cmd::Cancel, "cancel what is running; close windows"),
        (k(n, Key::W), Cmd::ResolveAll, "resolve pending tasks from the trace or the world file (a stream: its next chunk)"),
        (k(n, Key::G), Cmd::GraphMode, "graph of external calls, or of every statement"),
        (k(n, Key::T), Cmd::Tidy, "tidy the graph (full layered layout)"),
        (k(n, Key::F), Cmd::Focus, "focus the graph on the selected node's upstream and downstream"),
        (k(n, Key::Num0), Cmd::FitView, "fit the graph in view (never below legible size)"),
        (k(n, Key::M), Cmd::Minimap, "show or hide the minimap (when the graph does not fit)"),
        (k(n, Key::Plus), Cmd::ZoomIn, "zoom in"),
        (k(n, Key::Minus), Cmd::ZoomOut, "zoom out"),
        (k(n, Key::Q), Cmd::Practice, "practice mode on or off: predict, then check"),
        (k(c, Key::Enter), Cmd::CheckPractice, "check the prediction (practice mode)"),
        (k(n, Key::V), Cmd::Confluence(Order::Reversed), "confluence: finish under the reversed order and compare"),
        (k(n, Key::A), Cmd::AllPaths, "all paths: every reduction order of a small program"),
        (k(n, Key::B), Cmd::Tab(Tab::Stepper), "before/after view of the last step"),
        (k(n, Key::F1), Cmd::Help, "this help"),
        (k(n, Key::F2), Cmd::Projector, "projector theme (light, large type) on or off"),
        (k(n, Key::F3), Cmd::Panel(Panel::Source), "show or hide the source panel"),
        (k(n, Key::F4), Cmd::Panel(Panel::Term), "show or hide the labeled term panel"),
        (k(n, Key::F6), Cmd::Panel(Panel::Dock), "show or hide the bottom panel (tasks, history, timeline, before/after)"),
        (k(n, Key::F5), Cmd::Reload, "reload the program from disk"),
        (k(c, Key::O), Cmd::Ask(Ask::Open), "open a program"),
        (k(c, Key::S), Cmd::Ask(Ask::SaveSession), "save the session"),
        (k(c, Key::L), Cmd::Ask(Ask::LoadSession), "load a session"),
    ]
}

/// A tooltip with the command's shortcut, if it has one.
pub fn tip(what: &str, cmd: &Cmd) -> String {
    match shortcuts().into_iter().find(|(_, c, _)| c == cmd) {
        Some((sc, _, _)) => format!("{what} ({})", sc.format(&egui::ModifierNames::NAMES, cfg!(target_os = "macos"))),
        None => what.to_string(),
    }
}
