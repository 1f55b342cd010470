//! What the user can ask for: every button, menu entry, shortcut and graph click becomes a
//! `Cmd`, which `DebuggerApp::run_cmd` carries out, one handler per concern. The keyboard table
//! lives here too, so the help overlay and every tooltip name the same keys.

use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};
use opal_core::machine::label::{LabelKey, LabelPath};
use opal_core::machine::StmtId;
use opal_debugger::session::{Action, Order, Quiz, Strategy, Until};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything the user can do, by concern; each concern has its own handler in
/// `app/commands.rs`. Each part converts `Into<Cmd>`, so callers write
/// `run_cmd(SessionCmd::Round)` and panels `out.push(GraphCmd::Tidy.into())`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Session(SessionCmd),
    File(FileCmd),
    Graph(GraphCmd),
    Window(WindowCmd),
    Teach(TeachCmd),
    Run(RunCmd),
}

/// What changes the term: steps, resolutions, travel in history and the jobs that step
/// (run until, confluence, a path of all paths). Refused while a job owns the session.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionCmd {
    Round,
    /// Rounds until the graph shown changes (several rounds can change nothing it shows).
    RoundVisible,
    Advance,
    Cbv,
    Lazy,
    Step(StmtId),
    StepSelected,
    Back,
    Forward,
    Goto(usize),
    Restart,
    RunUntil,
    ResolveWorld(LabelPath),
    ResolveTrace(LabelPath),
    ResolveHand(LabelPath, String),
    /// A live external's call (allowed while a job runs: the reply comes later).
    ResolveLive(LabelPath),
    ResolveAll,
    Confluence(Order),
    Travel(Vec<Action>),
}

/// Programs, session files, traces and exports.
#[derive(Clone, Debug, PartialEq)]
pub enum FileCmd {
    Open(PathBuf),
    OpenExample(usize),
    Reload,
    SaveSession(PathBuf),
    LoadSession(PathBuf),
    LoadTrace(PathBuf),
    ExportDot(PathBuf),
    ExportSvg(PathBuf),
    ExportTimeline(PathBuf),
}

/// What the graph shows and how (mode, groups, layout, zoom, selection).
#[derive(Clone, Debug, PartialEq)]
pub enum GraphCmd {
    Select(Option<LabelKey>),
    ToggleGroup(LabelKey),
    TogglePrelude,
    /// The term panel in the core notation or by the program's names.
    ToggleCoreNames,
    /// Pure calls (print, add) shown in the graph of calls or not.
    ShowPure(bool),
    GraphMode,
    Tidy,
    FitView,
    Minimap,
    ZoomIn,
    ZoomOut,
    Focus,
}

/// The window itself: theme, panels, tabs, help, the file dialog, Esc.
#[derive(Clone, Debug, PartialEq)]
pub enum WindowCmd {
    Help,
    Projector,
    Panel(Panel),
    Tab(Tab),
    Ask(Ask),
    Cancel,
    CloseConfluence,
}

/// Practice mode and the all-paths window.
#[derive(Clone, Debug, PartialEq)]
pub enum TeachCmd {
    Practice,
    CheckPractice,
    SetQuiz(Quiz),
    /// A statement ticked (or unticked) as predicted.
    Tick(LabelKey, bool),
    AllPaths,
}

/// Run and what N, Run and Run until go by (remembered settings but the goal).
#[derive(Clone, Debug, PartialEq)]
pub enum RunCmd {
    RunPause,
    NextStrategy,
    /// The strategy chosen in the tool row or the More menu.
    SetStrategy(Strategy),
    SetUntil(Until),
    SetSpeed(f32),
    SetAutoResolve(bool),
    SetStepBudget(usize),
}

macro_rules! into_cmd {
    ($($part:ident => $variant:ident),*) => {$(
        impl From<$part> for Cmd {
            fn from(c: $part) -> Cmd {
                Cmd::$variant(c)
            }
        }
    )*};
}
into_cmd!(SessionCmd => Session, FileCmd => File, GraphCmd => Graph, WindowCmd => Window, TeachCmd => Teach, RunCmd => Run);

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
    pub fn cmd(self, p: PathBuf) -> FileCmd {
        match self {
            Ask::Open => FileCmd::Open(p),
            Ask::SaveSession => FileCmd::SaveSession(p),
            Ask::LoadSession => FileCmd::LoadSession(p),
            Ask::LoadTrace => FileCmd::LoadTrace(p),
            Ask::ExportDot => FileCmd::ExportDot(p),
            Ask::ExportSvg => FileCmd::ExportSvg(p),
            Ask::ExportTimeline => FileCmd::ExportTimeline(p),
        }
    }
}

/// The keyboard: (key, modifiers, command, what it does). The help overlay and every
/// tooltip read this table.
pub fn shortcuts() -> Vec<(KeyboardShortcut, Cmd, &'static str)> {
    use {
        FileCmd as F, GraphCmd as G, RunCmd as R, SessionCmd as S, TeachCmd as T, WindowCmd as W,
    };
    let k = |m: Modifiers, key: Key| KeyboardShortcut::new(m, key);
    let n = Modifiers::NONE;
    let c = Modifiers::COMMAND;
    vec![
        // Before Space: a shortcut without Shift also matches with it.
        (k(Modifiers::SHIFT, Key::Space), S::RoundVisible.into(), "rounds until something in the graph changes"),
        (k(n, Key::Space), S::Round.into(), "one opportunistic round: every steppable statement steps"),
        (k(n, Key::N), S::Advance.into(), "one step of the chosen strategy"),
        (k(n, Key::S), R::NextStrategy.into(), "choose the next strategy (opportunistic, call-by-value, lazy) for N, Run and Run until"),
        (k(n, Key::C), S::Cbv.into(), "one call-by-value step"),
        (k(n, Key::L), S::Lazy.into(), "one lazy step"),
        (k(n, Key::Enter), S::StepSelected.into(), "step the selected statement"),
        (k(n, Key::ArrowLeft), S::Back.into(), "step back in history"),
        (k(n, Key::ArrowRight), S::Forward.into(), "step forward in history"),
        (k(c, Key::R), S::Restart.into(), "restart from the initial term"),
        (k(n, Key::P), R::RunPause.into(), "run or pause (speed in the toolbar)"),
        (k(n, Key::U), S::RunUntil.into(), "run until the chosen event (within the step budget)"),
        (k(n, Key::Escape), W::Cancel.into(), "cancel what is running; close windows"),
        (k(n, Key::W), S::ResolveAll.into(), "resolve pending tasks from the trace or the world file (a stream: its next chunk)"),
        (k(n, Key::G), G::GraphMode.into(), "graph of external calls, or of every statement"),
        (k(n, Key::T), G::Tidy.into(), "tidy the graph (full layered layout)"),
        (k(n, Key::F), G::Focus.into(), "focus the graph on the selected node's upstream and downstream"),
        (k(n, Key::Num0), G::FitView.into(), "fit the graph in view (never below legible size)"),
        (k(n, Key::M), G::Minimap.into(), "show or hide the minimap (when the graph does not fit)"),
        (k(n, Key::Plus), G::ZoomIn.into(), "zoom in"),
        (k(n, Key::Minus), G::ZoomOut.into(), "zoom out"),
        (k(n, Key::Q), T::Practice.into(), "practice mode on or off: predict, then check"),
        (k(c, Key::Enter), T::CheckPractice.into(), "check the prediction (practice mode)"),
        (k(n, Key::V), S::Confluence(Order::Reversed).into(), "confluence: finish under the reversed order and compare"),
        (k(n, Key::A), T::AllPaths.into(), "all paths: every reduction order of a small program"),
        (k(n, Key::B), W::Tab(Tab::Stepper).into(), "before/after view of the last step"),
        (k(n, Key::F1), W::Help.into(), "this help"),
        (k(n, Key::F2), W::Projector.into(), "projector theme (light, large type) on or off"),
        (k(n, Key::F3), W::Panel(Panel::Source).into(), "show or hide the source panel"),
        (k(n, Key::F4), W::Panel(Panel::Term).into(), "show or hide the labeled term panel"),
        (k(n, Key::F6), W::Panel(Panel::Dock).into(), "show or hide the bottom panel (tasks, history, timeline, before/after)"),
        (k(n, Key::F5), F::Reload.into(), "reload the program from disk"),
        (k(c, Key::O), W::Ask(Ask::Open).into(), "open a program"),
        (k(c, Key::S), W::Ask(Ask::SaveSession).into(), "save the session"),
        (k(c, Key::L), W::Ask(Ask::LoadSession).into(), "load a session"),
    ]
}

/// A tooltip with the command's shortcut, if it has one.
pub fn tip(what: &str, cmd: impl Into<Cmd>) -> String {
    let cmd = cmd.into();
    match shortcuts().into_iter().find(|(_, c, _)| *c == cmd) {
        Some((sc, _, _)) => format!(
            "{what} ({})",
            sc.format(&egui::ModifierNames::NAMES, cfg!(target_os = "macos"))
        ),
        None => what.to_string(),
    }
}

/// What the toolbar calls each strategy (what one "advance" of it does).
pub fn strategy_label(s: Strategy) -> &'static str {
    match s {
        Strategy::Opportunistic => "opportunistic round",
        Strategy::Cbv => "call-by-value",
        Strategy::Lazy => "lazy",
    }
}
