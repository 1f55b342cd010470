//! The debugger window's state and its one place of action. Every button, menu entry,
//! shortcut and graph click becomes a `Cmd`; `DebuggerApp::run_cmd` is the one place that
//! changes the session, so the keyboard and the mouse can never disagree. Panels
//! (`panels.rs`, `paths.rs`, `view.rs`, `timeline.rs`) only draw and push commands.
//!
//! Nothing the window does can freeze it: long work is a session job polled a few
//! milliseconds per frame (Esc cancels), tidy runs on a worker thread, and the session is
//! autosaved so a killed window reopens where it was.

use crate::layout::Layout;
use crate::paths::PathsView;
use crate::timeline::Timeline;
use crate::view::GraphView;
use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};
use opal_core::files::write_file_safely;
use opal_core::machine::label::LabelKey;
use opal_core::machine::trace::Trace;
use opal_core::machine::StmtId;
use opal_debugger::examples::EXAMPLES;
use opal_debugger::graph::Graph;
use opal_debugger::session::{Action, Confluence, Order, Quiz, Session, Standing, Strategy, Until, Verdict};
use opal_debugger::{JobSpec, Poll};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Everything the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Round,
    Advance,
    NextStrategy,
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

/// What is remembered between launches (eframe persistence).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub projector: bool,
    pub source: bool,
    /// `None`: shown when the window is wide enough.
    pub term: Option<bool>,
    /// `None`: open when the window is tall enough.
    pub dock: Option<bool>,
    pub tab: Tab,
    pub mode: GraphMode,
    pub zoom: f32,
    pub strategy: String,
    pub speed: f32,
    pub auto_resolve: bool,
    pub step_budget: usize,
    pub show_pure: bool,
    pub prelude: bool,
    pub minimap: bool,
    pub last_file: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            projector: false,
            source: true,
            term: None,
            dock: None,
            tab: Tab::Tasks,
            mode: GraphMode::Calls,
            zoom: 1.0,
            strategy: "opportunistic".into(),
            speed: 4.0,
            auto_resolve: true,
            step_budget: opal_debugger::session::DEFAULT_STEP_BUDGET,
            show_pure: false,
            prelude: false,
            minimap: true,
            last_file: None,
        }
    }
}

pub(crate) struct Practice {
    pub quiz: Quiz,
    pub ticked: BTreeSet<LabelKey>,
    pub verdict: Option<Verdict>,
}

pub(crate) struct Dialog {
    pub ask: Ask,
    pub path: String,
}

/// Where the program came from.
pub enum Origin {
    File(PathBuf),
    Example(usize),
    Text,
}

/// What the panels read every frame, rebuilt once per revision.
#[derive(Default)]
pub(crate) struct Cache {
    pub revision: Option<u64>,
    pub statements: Vec<StmtId>,
    pub standing: Option<Standing>,
    pub pending: Vec<(StmtId, String)>,
    pub stepper: Option<Option<opal_debugger::session::Stepper>>,
}

pub struct DebuggerApp {
    pub session: Option<Session>,
    pub origin: Origin,
    pub name: String,
    /// Compile errors of the program on disk (the last good session stays usable).
    pub errors: Option<String>,
    /// The last message for the status line.
    pub status: String,
    pub selected: Option<LabelKey>,
    pub settings: Settings,
    pub until: Until,
    pub running: bool,
    /// The graph as drawn (grouped) and the full one it was grouped from.
    pub graph: Graph,
    pub layout: Layout,
    pub view: GraphView,
    /// Groups the user opened.
    pub open_groups: HashSet<LabelKey>,
    pub timeline: Timeline,
    pub(crate) practice: Option<Practice>,
    pub confluence: Option<Confluence>,
    pub paths: Option<PathsView>,
    /// What the user typed to resolve each pending task.
    pub(crate) hand: HashMap<String, String>,
    pub(crate) dialog: Option<Dialog>,
    pub help: bool,
    /// The session file last saved or loaded (the dialogs' default).
    last_session: Option<PathBuf>,
    live: Option<opal_debugger::live::LiveCalls>,
    mtime: Option<SystemTime>,
    /// The world file given with `--world` (else `NAME.world.toml` beside the program is
    /// used), kept across reloads.
    world_file: Option<PathBuf>,
    /// When the world file in use was last changed (`None`: there is none): a change reloads.
    world_mtime: Option<SystemTime>,
    /// Why the last typed answer was refused, for the task it was typed for.
    pub hand_error: Option<(String, String)>,
    /// The file is missing (deleted, or moved away by an editor saving it).
    file_gone: bool,
    /// The whole action log from before a reload whose replay may stop early (a file saved
    /// half-way, emptied for a moment): the next reload replays it again, so a transient edit
    /// loses no work. Dropped once the user acts on the new program.
    kept: Option<Vec<Action>>,
    /// The source line last scrolled into view (scroll only when it changes).
    pub(crate) scrolled_to: Option<usize>,
    pub(crate) cache: Cache,
    /// Where the autosave goes (none in tests unless set).
    pub autosave_dir: Option<PathBuf>,
    autosaved: Option<(u64, f64)>,
    pub(crate) now: f64,
    last_run: f64,
    last_poll: f64,
    /// Frame times while a job runs (for the benchmark and the status line).
    pub job_frames: Vec<f32>,
    /// The window title last set.
    title: String,
    /// The window's size in points, last frame (panels that start hidden on a small window).
    pub(crate) screen: egui::Vec2,
    /// The user chose the graph mode for this program (else a program with no asynchronous
    /// external shows its statements: its graph of calls would stay empty).
    mode_chosen: bool,
}

impl DebuggerApp {
    fn empty() -> DebuggerApp {
        DebuggerApp {
            session: None,
            origin: Origin::Text,
            name: String::new(),
            errors: None,
            status: String::new(),
            selected: None,
            settings: Settings::default(),
            until: Until::Dispatch,
            running: false,
            graph: Graph::default(),
            layout: Layout::default(),
            view: GraphView::default(),
            open_groups: HashSet::new(),
            timeline: Timeline::default(),
            practice: None,
            confluence: None,
            paths: None,
            hand: HashMap::new(),
            dialog: None,
            help: false,
            last_session: None,
            live: None,
            mtime: None,
            world_file: None,
            world_mtime: None,
            hand_error: None,
            file_gone: false,
            kept: None,
            scrolled_to: None,
            cache: Cache::default(),
            autosave_dir: None,
            autosaved: None,
            now: 0.0,
            last_run: 0.0,
            last_poll: 0.0,
            job_frames: Vec::new(),
            title: String::new(),
            screen: egui::vec2(1500.0, 950.0),
            mode_chosen: false,
        }
    }

    /// A window on `source` (named `name`, with an optional world file's text).
    pub fn from_source(name: &str, source: &str, world: Option<&str>) -> DebuggerApp {
        let mut app = DebuggerApp::empty();
        app.name = name.to_string();
        let world_name = opal_core::world::path_beside(Path::new(name)).map(|w| w.display().to_string()).unwrap_or_default();
        app.load(source, world.map(|w| (w, world_name.as_str())), name, false);
        app
    }

    /// A window on a file; `world` overrides `NAME.world.toml` beside it.
    pub fn from_file(path: &Path, world: Option<&Path>) -> DebuggerApp {
        let mut app = DebuggerApp::empty();
        app.open(path, world, false);
        app
    }

    pub fn from_example(i: usize) -> DebuggerApp {
        let mut app = DebuggerApp::empty();
        app.open_example(i, false);
        app
    }

    /// Remembered settings (theme, panels, zoom, strategy, …) take effect.
    pub fn apply_settings(&mut self, s: Settings) {
        self.view.zoom = s.zoom.clamp(crate::view::MIN_ZOOM, crate::view::MAX_ZOOM);
        self.view.fit = false;
        self.view.centre = true;
        self.view.minimap = s.minimap;
        if let Some(sess) = &mut self.session {
            sess.step_budget = s.step_budget.max(1);
        }
        self.settings = s;
        self.rebuild_graph();
    }

    /// The settings to remember now.
    pub fn current_settings(&self) -> Settings {
        let mut s = self.settings.clone();
        s.zoom = self.view.zoom;
        if let Origin::File(p) = &self.origin {
            s.last_file = Some(p.clone());
        }
        s
    }

    /// Is the labeled term panel shown (by default only on a window at least 1100 points wide)?
    pub fn term_shown(&self) -> bool {
        self.settings.term.unwrap_or(self.screen.x >= 1100.0)
    }

    /// Is the bottom dock open (by default only on a big enough window)?
    pub fn dock_shown(&self) -> bool {
        self.settings.dock.unwrap_or(self.screen.x >= 1100.0 && self.screen.y >= 560.0)
    }

    /// The graph shown: the remembered mode, except that a program with no asynchronous
    /// external (§3.4's, a sum) shows its statements until the user picks a mode.
    pub fn mode(&self) -> GraphMode {
        match &self.session {
            Some(s) if !self.mode_chosen && self.settings.mode == GraphMode::Calls && !s.has_async_externals() => GraphMode::Statements,
            _ => self.settings.mode,
        }
    }

    pub fn strategy(&self) -> Strategy {
        Strategy::parse(&self.settings.strategy).unwrap_or(Strategy::Opportunistic)
    }

    fn open_example(&mut self, i: usize, reload: bool) {
        let Some(e) = EXAMPLES.get(i) else { return };
        self.origin = Origin::Example(i);
        self.name = format!("{}.opal", e.name);
        self.mtime = None;
        let world_name = format!("examples/{}.world.toml", e.name);
        self.load(e.source, e.world.map(|w| (w, world_name.as_str())), &format!("examples/{}.opal", e.name), reload);
    }

    fn open(&mut self, path: &Path, world: Option<&Path>, reload: bool) {
        let shown = path.display().to_string();
        let limit = opal_core::files::MAX_READ;
        let source = match opal_core::files::read_text(path, "the program", limit) {
            Ok(s) => s,
            Err(e) => return self.fail(e),
        };
        self.world_file = world.map(Path::to_path_buf);
        let world_path = self.world_path(path);
        self.world_mtime = world_path.as_deref().and_then(modified);
        let world = match &world_path {
            Some(w) => match opal_core::files::read_text(w, "the world file", limit) {
                Ok(t) => Some((t, w.display().to_string())),
                Err(e) => return self.fail(e),
            },
            None => None,
        };
        self.origin = Origin::File(path.to_path_buf());
        self.name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(shown.clone());
        self.mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        self.load(&source, world.as_ref().map(|(t, n)| (t.as_str(), n.as_str())), &shown, reload);
    }

    /// The world file a program at `path` is run with: `--world`'s, else the one beside it.
    fn world_path(&self, path: &Path) -> Option<PathBuf> {
        self.world_file.clone().or_else(|| opal_core::world::path_beside(path).filter(|w| w.exists()))
    }

    fn fail(&mut self, e: String) {
        self.errors = Some(e.clone());
        self.status = e;
    }

    /// Compiles and starts a session; on errors the previous session stays (nothing is lost).
    /// `world` is the world file's text and the name its errors are reported under.
    fn load(&mut self, source: &str, world: Option<(&str, &str)>, shown: &str, reload: bool) {
        let world = match world {
            Some((text, name)) => match opal_core::world::parse_world(text) {
                Ok(w) => Some(w),
                Err(diags) => return self.fail(rendered(&diags, name, text)),
            },
            None => None,
        };
        match Session::new(source, world) {
            Ok(mut s) => {
                s.step_budget = self.settings.step_budget.max(1);
                let keep = match (self.session.as_ref().filter(|_| reload), self.kept.take()) {
                    (Some(old), kept) => {
                        let now = old.actions()[..old.position()].to_vec();
                        Some(kept.filter(|k| k.len() > now.len() && k.starts_with(&now)).unwrap_or(now))
                    }
                    (None, _) => None,
                };
                self.kept = keep.clone();
                self.session = Some(s);
                self.errors = None;
                self.status = format!("opened {shown}");
                self.selected = None;
                self.practice = None;
                self.confluence = None;
                self.paths = None;
                self.running = false;
                self.open_groups.clear();
                self.autosaved = None;
                self.mode_chosen = reload && self.mode_chosen;
                self.cache = Cache::default();
                self.rebuild_graph();
                self.layout = Layout::new(&self.graph);
                self.view.fit = true;
                match keep {
                    Some(actions) if !actions.is_empty() => {
                        let n = actions.len();
                        self.start_job(JobSpec::Replay(actions), format!("reloaded {shown}: replaying {n} actions"));
                    }
                    _ => self.restore_autosave(),
                }
            }
            Err(diags) => self.fail(rendered(&diags, shown, source)),
        }
    }

    /// The graph of the state shown, grouped to a legible size; the layout follows.
    pub(crate) fn rebuild_graph(&mut self) {
        let Some(s) = &self.session else { return };
        let full = match self.mode() {
            GraphMode::Calls => s.call_graph(self.settings.show_pure),
            GraphMode::Statements => s.statement_graph(self.settings.prelude),
        };
        let hot: HashSet<LabelKey> = s.last_steps().iter().flat_map(|t| std::iter::once(t.key).chain(t.created.iter().copied())).collect();
        self.graph = s.grouped(&full, MAX_NODES, &self.open_groups, &hot);
    }

    /// After the session's state changed: the graph, new nodes into view, stale selections.
    fn changed(&mut self) {
        self.rebuild_graph();
        let animate = self.session.as_ref().is_none_or(|s| s.busy().is_none());
        let born = self.layout.update(&self.graph, self.now, animate);
        // Follow the activity: what was born, else where the last step happened.
        let hot: Vec<(i32, i32)> = match &self.session {
            Some(s) => s.last_steps().iter().filter_map(|t| self.layout.placed.get(&t.key).map(|p| p.cell)).collect(),
            None => vec![],
        };
        let all = crate::layout::bounds(self.layout.placed.values().map(|p| crate::layout::cell_pos(p.cell)));
        self.view.reveal(if born.is_empty() { &hot } else { &born }, all);
        if let (Some(sel), Some(s)) = (self.selected, &self.session) {
            if !self.graph.nodes.iter().any(|n| n.key == sel) && s.find(sel).is_none() {
                self.selected = None;
            }
        }
        if let Some(p) = &mut self.practice {
            p.ticked.clear();
            p.verdict = None;
        }
    }

    /// The per-revision cache the panels read.
    pub(crate) fn refresh_cache(&mut self) {
        let Some(s) = &self.session else { return };
        if self.cache.revision == Some(s.revision()) {
            return;
        }
        self.cache.revision = Some(s.revision());
        self.cache.statements = s.statements();
        self.cache.standing = Some(s.standing());
        self.cache.pending = s.pending();
        self.cache.stepper = None;
    }

    fn default_path(&self, ask: Ask) -> String {
        if let (Some(p), Ask::SaveSession | Ask::LoadSession) = (&self.last_session, ask) {
            return p.display().to_string();
        }
        let stem = self.name.strip_suffix(".opal").unwrap_or(&self.name).to_string();
        match (&self.origin, ask) {
            (_, Ask::Open) => std::env::current_dir().map(|d| format!("{}/", d.display())).unwrap_or_default(),
            (Origin::File(p), _) => p.with_file_name(format!("{stem}{}", ask.suffix())).display().to_string(),
            _ => format!("{stem}{}", ask.suffix()),
        }
    }

    // ---- autosave ------------------------------------------------------------------------

    /// Where this program's autosave lives: one file per program path (or example).
    fn autosave_path(&self) -> Option<PathBuf> {
        let dir = self.autosave_dir.as_ref()?;
        let id = match &self.origin {
            Origin::File(p) => std::fs::canonicalize(p).unwrap_or(p.clone()).display().to_string(),
            Origin::Example(i) => format!("example:{i}"),
            Origin::Text => format!("text:{}", self.name),
        };
        let hash = opal_core::machine::trace::sha256_hex(&id);
        Some(dir.join("autosave").join(format!("{}.session.json", &hash[..16])))
    }

    /// The window's clock (seconds), as the layout's animations see it.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Writes the session (at most once a second, and only after a change).
    pub fn autosave(&mut self, force: bool) {
        let (Some(path), Some(s)) = (self.autosave_path(), &self.session) else { return };
        if s.busy().is_some() {
            return;
        }
        let rev = s.revision();
        if let Some((r, t)) = self.autosaved {
            if r == rev || (!force && self.now - t < 1.0) {
                return;
            }
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match write_file_safely(&path, s.to_json().as_bytes()) {
            Ok(()) => self.autosaved = Some((rev, self.now)),
            Err(e) => self.status = format!("autosave failed: {e}"),
        }
    }

    /// Reopens where a killed window was: the autosave's actions replay (as far as they
    /// still apply if the program changed since).
    fn restore_autosave(&mut self) {
        let Some(path) = self.autosave_path() else { return };
        let Ok(text) = std::fs::read_to_string(&path) else { return };
        let Some(s) = &self.session else { return };
        match s.saved_actions(&text) {
            Ok((actions, _, _)) if actions.is_empty() => {}
            Ok((actions, position, same)) => {
                let n = actions.len();
                let (spec, what) = if same {
                    (JobSpec::Load(text), format!("restored the autosaved session ({n} actions); Ctrl+R starts over"))
                } else {
                    (JobSpec::Replay(actions), format!("the program changed since the autosave: replaying its {n} actions as far as they apply"))
                };
                let _ = position;
                self.start_job(spec, what);
            }
            Err(e) => self.status = format!("{}: the autosave is unreadable ({e}); starting fresh", path.display()),
        }
    }

    fn start_job(&mut self, spec: JobSpec, what: String) {
        let Some(s) = self.session.as_mut() else { return };
        match s.start(spec) {
            Ok(_) => self.status = format!("{what}… (Esc cancels)"),
            Err(e) => self.status = e,
        }
    }

    // ---- live externals --------------------------------------------------------------------

    /// Lets pending tasks be resolved by live externals (`llm`, processes).
    pub fn set_live(&mut self, worker: opal_debugger::live::LiveWorker) {
        self.live = Some(opal_debugger::live::LiveCalls::new(worker));
    }
    pub fn has_live(&self) -> bool {
        self.live.is_some()
    }
    /// Live calls still in flight.
    pub fn live_in_flight(&self) -> usize {
        self.live.as_ref().map(|l| l.in_flight()).unwrap_or(0)
    }

    fn call_live(&mut self, label: &str) -> Result<String, String> {
        let s = self.session.as_ref().ok_or("no program is open")?;
        let live = self.live.as_mut().ok_or("no live externals in this window (start it with `opal debug FILE`)")?;
        live.call(s, label)
    }

    /// Takes what live calls reported and delivers it to the tasks that wait for it.
    fn pump_live(&mut self) {
        let (Some(live), Some(s)) = (self.live.as_mut(), self.session.as_mut()) else { return };
        let (messages, changed) = live.pump(s);
        if let Some(m) = messages.into_iter().last() {
            self.status = m;
        }
        if changed {
            self.changed();
        }
    }

    // ---- commands -------------------------------------------------------------------------

    /// Does `cmd`; the status line says what happened or why not.
    pub fn run_cmd(&mut self, cmd: Cmd) {
        let result: Result<String, String> = match cmd {
            Cmd::Help => {
                self.help = !self.help;
                return;
            }
            Cmd::Projector => {
                self.settings.projector = !self.settings.projector;
                return;
            }
            Cmd::NextStrategy => {
                let all = Strategy::ALL;
                let i = all.iter().position(|s| *s == self.strategy()).unwrap_or(0);
                let next = all[(i + 1) % all.len()];
                self.settings.strategy = next.name().to_string();
                self.status = format!("strategy: {} (N steps it, Run and Run until use it)", strategy_label(next));
                return;
            }
            Cmd::Panel(p) => {
                let (term, dock) = (self.term_shown(), self.dock_shown());
                let s = &mut self.settings;
                match p {
                    Panel::Source => s.source = !s.source,
                    Panel::Term => s.term = Some(!term),
                    Panel::Dock => s.dock = Some(!dock),
                }
                return;
            }
            Cmd::Tab(t) => {
                self.settings.tab = t;
                self.settings.dock = Some(true);
                return;
            }
            Cmd::Ask(ask) => {
                self.dialog = Some(Dialog { ask, path: self.default_path(ask) });
                return;
            }
            Cmd::Open(p) => {
                self.open(&p, None, false);
                return;
            }
            Cmd::OpenExample(i) => {
                self.open_example(i, false);
                return;
            }
            Cmd::RefreshGraph => {
                self.rebuild_graph();
                let born = self.layout.update(&self.graph, self.now, true);
                let all = crate::layout::bounds(self.layout.placed.values().map(|p| crate::layout::cell_pos(p.cell)));
                self.view.reveal(&born, all);
                return;
            }
            Cmd::TogglePrelude => {
                self.settings.prelude = !self.settings.prelude;
                self.rebuild_graph();
                self.layout.update(&self.graph, self.now, true);
                return;
            }
            Cmd::GraphMode => {
                // From the mode shown (a program without externals opens on statements).
                let shown = self.mode();
                self.mode_chosen = true;
                self.settings.mode = match shown {
                    GraphMode::Calls => GraphMode::Statements,
                    GraphMode::Statements => GraphMode::Calls,
                };
                self.open_groups.clear();
                self.rebuild_graph();
                self.layout = Layout::new(&self.graph);
                self.view.fit = true;
                Ok(match self.settings.mode {
                    GraphMode::Calls => "graph: external calls (dispatched, streaming, queued)".into(),
                    GraphMode::Statements => "graph: every statement, def-use edges".into(),
                })
            }
            Cmd::ToggleGroup(k) => {
                if !self.open_groups.insert(k) {
                    self.open_groups.remove(&k);
                }
                self.rebuild_graph();
                let born = self.layout.update(&self.graph, self.now, true);
                let all = crate::layout::bounds(self.layout.placed.values().map(|p| crate::layout::cell_pos(p.cell)));
                self.view.reveal(&born, all);
                return;
            }
            Cmd::Reload => {
                match &self.origin {
                    Origin::File(p) => {
                        let (p, world) = (p.clone(), self.world_file.clone());
                        self.open(&p, world.as_deref(), true);
                    }
                    Origin::Example(i) => {
                        let i = *i;
                        self.open_example(i, true);
                    }
                    Origin::Text => self.status = "nothing to reload: the program did not come from a file".into(),
                }
                return;
            }
            Cmd::Select(l) => {
                self.selected = l;
                return;
            }
            Cmd::ResolveLive(l) => self.call_live(&l),
            Cmd::Tidy => {
                self.layout.start_tidy(&self.graph);
                Ok("tidying the graph… (Esc cancels)".into())
            }
            Cmd::FitView => {
                self.view.fit = true;
                self.view.fit_asked = true;
                return;
            }
            Cmd::Minimap => {
                self.view.minimap = !self.view.minimap;
                self.settings.minimap = self.view.minimap;
                return;
            }
            Cmd::ZoomIn | Cmd::ZoomOut => {
                self.view.zoom_by(if cmd == Cmd::ZoomIn { 1.2 } else { 1.0 / 1.2 });
                return;
            }
            Cmd::Focus => {
                self.view.focus = !self.view.focus;
                Ok(if self.view.focus { "graph focused on the selected node" } else { "graph shows everything" }.into())
            }
            Cmd::RunPause => {
                self.running = !self.running;
                Ok(if self.running {
                    format!("running: {} at {:.0} actions/s (P pauses)", strategy_label(self.strategy()), self.settings.speed)
                } else {
                    "paused".into()
                })
            }
            Cmd::Cancel => {
                self.help = false;
                self.dialog = None;
                self.running = false;
                let mut what = Vec::new();
                if let Some(m) = self.session.as_mut().and_then(|s| s.cancel()) {
                    what.push(m);
                }
                if self.layout.cancel_tidy() {
                    what.push("cancelled tidy".into());
                }
                if self.paths.as_mut().is_some_and(|p| p.cancel()) {
                    what.push("cancelled the all-paths search".into());
                }
                if what.is_empty() {
                    // Nothing was running: Esc closes the teaching windows, as F1 says.
                    let mut closed = Vec::new();
                    if self.confluence.take().is_some() {
                        closed.push("the confluence window");
                    }
                    if self.paths.take().is_some() {
                        closed.push("the all-paths window");
                    }
                    if closed.is_empty() {
                        return;
                    }
                    Ok(format!("closed {}", closed.join(" and ")))
                } else {
                    self.changed();
                    Ok(what.join("; "))
                }
            }
            Cmd::Practice => {
                self.practice = match self.practice {
                    Some(_) => None,
                    None => Some(Practice { quiz: Quiz::Steppable, ticked: BTreeSet::new(), verdict: None }),
                };
                Ok(if self.practice.is_some() { "practice: tick the statements you predict, then Check (Ctrl+Enter)" } else { "practice mode off" }.into())
            }
            Cmd::CheckPractice => match (&mut self.practice, &self.session) {
                (Some(p), Some(s)) => {
                    let v = s.check(p.quiz, &p.ticked);
                    let msg = if v.correct() {
                        format!("correct: {} right", v.right.len())
                    } else {
                        format!("{} right, {} wrong, {} missed", v.right.len(), v.wrong.len(), v.missed.len())
                    };
                    p.verdict = Some(v);
                    Ok(msg)
                }
                _ => Err("practice mode is off (Q turns it on)".into()),
            },
            Cmd::AllPaths => {
                match &self.session {
                    Some(s) => self.paths = Some(PathsView::start(s)),
                    None => return,
                }
                Ok("searching every reduction path from the initial term… (Esc cancels)".into())
            }
            other => {
                let Some(s) = self.session.as_mut() else {
                    self.status = "no program is open: File > Open or File > Examples".into();
                    return;
                };
                if let Some(p) = s.busy() {
                    self.status = format!("{} is running ({} of {}); Esc cancels it", p.what, p.done, p.total);
                    return;
                }
                let before = s.revision();
                // Acting on the reloaded program starts a history of its own.
                let acts = matches!(
                    other,
                    Cmd::Round
                        | Cmd::Advance
                        | Cmd::Cbv
                        | Cmd::Lazy
                        | Cmd::Step(_)
                        | Cmd::StepSelected
                        | Cmd::Restart
                        | Cmd::RunUntil
                        | Cmd::ResolveWorld(_)
                        | Cmd::ResolveTrace(_)
                        | Cmd::ResolveHand(..)
                        | Cmd::ResolveAll
                );
                if acts {
                    self.kept = None;
                }
                let r = match other {
                    Cmd::Round => s.round(),
                    Cmd::Advance => s.advance(Strategy::parse(&self.settings.strategy).unwrap_or(Strategy::Opportunistic)),
                    Cmd::Cbv => s.step_cbv(),
                    Cmd::Lazy => s.step_lazy(),
                    Cmd::Step(st) => {
                        if s.machine().stmt(st).is_alive() {
                            s.step_stmt(st)
                        } else {
                            Err("that statement is gone".into())
                        }
                    }
                    Cmd::StepSelected => match self.selected.and_then(|k| s.find(k)) {
                        Some(st) => s.step_stmt(st),
                        None => Err("select a statement first (click its row or node)".into()),
                    },
                    Cmd::Back | Cmd::Forward => {
                        let back = other == Cmd::Back;
                        let (at, end) = (s.position(), s.actions().len());
                        match (back, at, end) {
                            (true, 0, _) => Err("at the start of history".into()),
                            (false, a, e) if a >= e => Err("at the end of history".into()),
                            _ => {
                                let to = if back { at - 1 } else { at + 1 };
                                // Far from a checkpoint (a long history thins them out): a job.
                                if s.replay_cost(to) > 64 {
                                    s.start(JobSpec::Goto(to))
                                } else {
                                    s.goto(to).map(|_| format!("{} to step {to}", if back { "back" } else { "forward" }))
                                }
                            }
                        }
                    }
                    Cmd::Goto(i) => {
                        if s.replay_cost(i) > 64 {
                            s.start(JobSpec::Goto(i))
                        } else {
                            s.goto(i).map(|_| format!("at step {i}"))
                        }
                    }
                    Cmd::Restart => {
                        s.restart();
                        Ok("restarted: the initial term".into())
                    }
                    Cmd::RunUntil => {
                        let strategy = Strategy::parse(&self.settings.strategy).unwrap_or(Strategy::Opportunistic);
                        s.start(JobSpec::RunUntil { strategy, until: self.until.clone(), auto_resolve: self.settings.auto_resolve })
                    }
                    Cmd::ResolveWorld(l) => s.resolve_from_world(&l),
                    Cmd::ResolveTrace(l) => s.resolve_from_trace(&l),
                    Cmd::ResolveHand(l, src) => {
                        let r = s.resolve_with(&l, &src);
                        // Shown under the field too: the status line is far from where one types.
                        self.hand_error = r.as_ref().err().map(|e| (l.clone(), e.clone()));
                        r
                    }
                    Cmd::ResolveAll => s.resolve_all().map(|n| format!("resolved {n} pending tasks")),
                    Cmd::Confluence(order) => {
                        self.confluence = None;
                        s.start(JobSpec::Confluence(order))
                    }
                    Cmd::Travel(actions) => {
                        let n = actions.len();
                        s.start(JobSpec::Replay(actions)).map(|_| format!("travelling along a path of {n} actions…"))
                    }
                    Cmd::SaveSession(p) => {
                        self.last_session = Some(p.clone());
                        write_file_safely(&p, s.to_json().as_bytes()).map_err(|e| e.to_string()).map(|_| format!("saved the session to {}", p.display()))
                    }
                    Cmd::LoadSession(p) => std::fs::read_to_string(&p)
                        .inspect(|_| self.last_session = Some(p.clone()))
                        .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                        .and_then(|t| s.start(JobSpec::Load(t)).map_err(|e| format!("{}: {e}", p.display()))),
                    Cmd::LoadTrace(p) => std::fs::read_to_string(&p)
                        .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                        .and_then(|t| Trace::parse(&t).map_err(|e| format!("{}: {e}", p.display())))
                        .and_then(|t| s.set_trace(t).map(|_| format!("loaded the trace {}: pending tasks resolve from it", p.display()))),
                    Cmd::ExportDot(p) => {
                        let dot = self.graph.to_dot(|n| crate::panels::node_text(s, n, false).title);
                        write_file_safely(&p, dot.as_bytes()).map_err(|e| e.to_string()).map(|_| format!("wrote {}", p.display()))
                    }
                    Cmd::ExportSvg(p) => {
                        let svg = self.layout.to_svg(&self.graph, |n| crate::panels::node_text(s, n, false).title);
                        write_file_safely(&p, svg.as_bytes()).map_err(|e| e.to_string()).map(|_| format!("wrote {}", p.display()))
                    }
                    Cmd::ExportTimeline(p) => write_file_safely(&p, opal_debugger::timeline::csv(s.calls()).as_bytes())
                        .map_err(|e| e.to_string())
                        .map(|_| format!("wrote {}", p.display())),
                    _ => return,
                };
                // Saving, exporting or a refused step change nothing: the graph and the
                // practice ticks stay.
                if self.session.as_ref().is_some_and(|s| s.revision() != before) {
                    self.changed();
                }
                r
            }
        };
        match result {
            Ok(m) => self.status = m,
            Err(e) => {
                self.status = e;
                self.running = false;
            }
        }
    }

    /// Works on the session's job for a slice of this frame.
    fn poll_job(&mut self, frame_start: std::time::Instant) {
        let Some(s) = self.session.as_mut() else { return };
        let before = s.revision();
        let Some(p) = s.poll(Duration::from_millis(12)) else { return };
        match p {
            Poll::Working(p) => {
                self.status = format!("{}: {} of {}… (Esc cancels)", p.what, p.done, p.total);
                self.job_frames.push(frame_start.elapsed().as_secs_f32() * 1000.0);
            }
            Poll::Done(r) => {
                if let Some(c) = s.take_confluence() {
                    self.confluence = Some(c);
                }
                self.status = match r {
                    Ok(m) => m,
                    Err(e) => e,
                };
            }
        }
        if self.session.as_ref().is_some_and(|s| s.revision() != before) {
            self.changed();
        }
    }

    /// Runs the session's job to its end at once (tests and benchmarks; the window polls).
    pub fn settle(&mut self) {
        while self.session.as_ref().is_some_and(|s| s.busy().is_some()) {
            self.poll_job(std::time::Instant::now());
        }
    }

    /// One frame of the running debugger: what `eframe::App::ui` and the tests call.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let frame_start = std::time::Instant::now();
        let ctx = ui.ctx().clone();
        let dt = ctx.input(|i| i.stable_dt).min(0.1);
        self.now = ctx.input(|i| i.time);
        apply_theme(&ctx, self.settings.projector);
        let title = format!("OPAL debugger — {}", self.name);
        if self.title != title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        let mut cmds: Vec<Cmd> = Vec::new();
        if !ctx.egui_wants_keyboard_input() && self.dialog.is_none() {
            for (sc, cmd, _) in shortcuts() {
                if ctx.input_mut(|i| i.consume_shortcut(&sc)) {
                    cmds.push(cmd);
                }
            }
        } else if ctx.input(|i| i.key_pressed(Key::Escape)) {
            cmds.push(Cmd::Cancel);
        }
        for c in cmds.drain(..) {
            self.run_cmd(c);
        }
        self.poll_job(frame_start);
        if self.layout.poll_tidy(&self.graph, self.now) {
            self.status = "tidied the graph".into();
        }
        if let Some(p) = &mut self.paths {
            if p.poll() {
                self.status = format!("all paths: {}", p.summary().unwrap_or_default());
            }
        }
        self.refresh_cache();
        crate::panels::frame(self, ui, &mut cmds);
        // At once: a command may name a statement by its slot, valid only in the state drawn.
        for c in cmds.drain(..) {
            self.run_cmd(c);
        }

        // Run: one action per 1/speed seconds; a stall resolves from the world or pauses.
        if self.running && self.session.as_ref().is_some_and(|s| s.busy().is_none()) {
            if self.now - self.last_run >= 1.0 / self.settings.speed as f64 {
                self.last_run = self.now;
                let strategy = self.strategy();
                let auto = self.settings.auto_resolve;
                if let Some(s) = self.session.as_mut() {
                    let r = match s.advance(strategy) {
                        Err(_) if auto && !s.pending().is_empty() => s.resolve_all().map(|n| format!("resolved {n} pending tasks")),
                        r => r,
                    };
                    match r {
                        Ok(m) => self.status = m,
                        Err(e) => {
                            self.status = format!("paused: {e}");
                            self.running = false;
                        }
                    }
                    self.changed();
                }
            }
            ctx.request_repaint_after(Duration::from_secs_f32(1.0 / self.settings.speed));
        }
        // Reload when the file changes on disk (polled once a second).
        if let Origin::File(p) = &self.origin {
            if self.now - self.last_poll > 1.0 {
                self.last_poll = self.now;
                match std::fs::metadata(p) {
                    Err(_) => {
                        if !self.file_gone {
                            self.file_gone = true;
                            self.status = format!("{} is gone from disk; the session stays, and reloads when the file is back", self.name);
                        }
                    }
                    Ok(meta) => {
                        self.file_gone = false;
                        let m = meta.modified().ok();
                        let world_changed = self.world_path(p).as_deref().and_then(modified) != self.world_mtime;
                        if world_changed && (m.is_none() || m == self.mtime) {
                            cmds.push(Cmd::Reload);
                        } else if m.is_some() && m != self.mtime {
                            if meta.len() == 0 {
                                // Editors empty a file before writing it: wait for the text.
                                self.mtime = m;
                                self.status = format!("{} is empty on disk; the session stays until it has a program again", self.name);
                            } else {
                                cmds.push(Cmd::Reload);
                            }
                        }
                    }
                }
            }
            ctx.request_repaint_after(Duration::from_secs(1));
        }
        for c in cmds {
            self.run_cmd(c);
        }
        self.pump_live();
        self.autosave(false);
        let busy = self.session.as_ref().is_some_and(|s| s.busy().is_some()) || self.layout.tidying() || self.paths.as_ref().is_some_and(|p| p.busy());
        if self.layout.animate(dt, self.now) || busy {
            ctx.request_repaint();
        }
    }
}

/// Graphs with more nodes than this fold groups (see `Session::grouped`).
pub const MAX_NODES: usize = 80;

impl eframe::App for DebuggerApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    /// Settings reach the disk within two seconds of a change (eframe's default, 30 s, lost a
    /// theme switched just before the window was killed).
    fn auto_save_interval(&self) -> Duration {
        Duration::from_secs(2)
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, SETTINGS_KEY, &self.current_settings());
        self.autosave(true);
    }
}

pub const SETTINGS_KEY: &str = "opal-debugger-settings";

/// Diagnostics as `opal check` prints them (`file:line:col: error[code]: …`, the line, a caret).
fn rendered(diags: &[opal_core::diag::Diagnostic], file: &str, text: &str) -> String {
    let index = opal_core::span::LineIndex::new(text);
    diags.iter().map(|d| opal_core::diag::render(d, file, text, &index)).collect()
}

/// What the toolbar calls each strategy (what one "advance" of it does).
pub fn strategy_label(s: Strategy) -> &'static str {
    match s {
        Strategy::Opportunistic => "opportunistic round",
        Strategy::Cbv => "call-by-value",
        Strategy::Lazy => "lazy",
    }
}

/// A tooltip with the command's shortcut, if it has one.
pub fn tip(what: &str, cmd: &Cmd) -> String {
    match shortcuts().into_iter().find(|(_, c, _)| c == cmd) {
        Some((sc, _, _)) => format!("{what} ({})", sc.format(&egui::ModifierNames::NAMES, cfg!(target_os = "macos"))),
        None => what.to_string(),
    }
}

/// The projector theme: light, everything 1.5× (14-point graph text is 21 pixels).
fn apply_theme(ctx: &egui::Context, projector: bool) {
    let zoom = if projector { 1.5 } else { 1.0 };
    let theme = if projector { egui::ThemePreference::Light } else { egui::ThemePreference::System };
    if ctx.options(|o| o.theme_preference) != theme {
        ctx.set_theme(theme);
    }
    if (ctx.zoom_factor() - zoom).abs() > f32::EPSILON {
        ctx.set_zoom_factor(zoom);
    }
}

/// Opens the debugger window (`opal debug`). `file` None opens the last file, else the first
/// bundled example.
/// `max_steps` sets the step budget of long-running jobs (run until, confluence) as More ▸ step
/// budget does, and is remembered like it.
pub fn run_native(
    file: Option<&Path>,
    world: Option<&Path>,
    trace: Option<&Path>,
    max_steps: Option<usize>,
    live: Option<opal_debugger::live::LiveFactory>,
) -> Result<(), String> {
    const APP_ID: &str = "opal-debugger";
    // Check the program before opening a window: a file that cannot be read is refused on the
    // terminal; one that does not compile is reported there too, and the window opens on its
    // errors and reloads it once it is fixed (a lecturer fixes a typo in the editor).
    if let Some(f) = file {
        let meta = std::fs::metadata(f).map_err(|e| format!("{}: cannot read: {e}", f.display()))?;
        // The window polls FILE as a program's text: a directory (or a FIFO) would open on an
        // error it can never recover from.
        if meta.is_dir() {
            return Err(format!("{}: is a directory; give one OPAL program (`opal debug FILE.opal`), or none for the bundled examples", f.display()));
        }
        if !meta.is_file() {
            return Err(format!("{}: is not a regular file; give one OPAL program (`opal debug FILE.opal`)", f.display()));
        }
        // A world file named on the command line is read like the program: one that cannot be
        // read is refused here; one with errors opens the window on them, as a program does.
        if let Some(w) = world {
            let meta = std::fs::metadata(w).map_err(|e| format!("{}: cannot read the world file: {e}", w.display()))?;
            if !meta.is_file() {
                return Err(format!("{}: the world file is not a regular file; give the path of a `.world.toml` file", w.display()));
            }
        }
        let app = DebuggerApp::from_file(f, world);
        if let (None, Some(e)) = (&app.session, &app.errors) {
            eprintln!("{e}");
        }
    }
    let file = file.map(Path::to_path_buf);
    let world = world.map(Path::to_path_buf);
    let trace = trace.map(Path::to_path_buf);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("OPAL debugger")
            .with_app_id(APP_ID)
            .with_inner_size([1500.0, 950.0])
            .with_min_inner_size([640.0, 400.0]),
        persist_window: true,
        ..Default::default()
    };
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let result = eframe::run_native(
        APP_ID,
        options,
        Box::new(move |cc| {
            let mut settings: Settings = cc.storage.and_then(|s| eframe::get_value(s, SETTINGS_KEY)).unwrap_or_default();
            if let Some(n) = max_steps {
                settings.step_budget = n.max(1);
            }
            let mut app = DebuggerApp::empty();
            app.autosave_dir = std::env::var_os("OPAL_DEBUGGER_STATE").map(PathBuf::from).or_else(|| eframe::storage_dir(APP_ID));
            app.settings = settings.clone();
            match (&file, &settings.last_file) {
                (Some(f), _) => app.open(f, world.as_deref(), false),
                (None, Some(last)) if last.exists() => app.open(last, None, false),
                _ => app.open_example(0, false),
            }
            if app.session.is_none() && file.is_none() {
                app.open_example(0, false);
            }
            app.apply_settings(settings);
            if let Some(t) = &trace {
                app.run_cmd(Cmd::LoadTrace(t.clone()));
                if app.session.as_ref().is_some_and(|s| !s.has_trace()) {
                    let _ = tx.send(app.status.clone());
                    return Err(app.status.clone().into());
                }
            }
            if let Some(make) = live {
                let ctx = cc.egui_ctx.clone();
                match opal_debugger::live::LiveWorker::spawn(make, Some(Box::new(move || ctx.request_repaint()))) {
                    Ok(w) => app.set_live(w),
                    Err(e) => app.status = e,
                }
            }
            Ok(Box::new(app))
        }),
    );
    if let Ok(e) = rx.try_recv() {
        return Err(e);
    }
    result.map_err(|e| format!("cannot open a window: {e}"))
}

/// When `path` was last changed, if it exists.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}
