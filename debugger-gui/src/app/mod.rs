//! The debugger window's state and its one place of action. Every button, menu entry,
//! shortcut and graph click becomes a `Cmd`; `DebuggerApp::run_cmd` is the one place that
//! changes the app and the session (`commands.rs`, one handler per concern), so the keyboard
//! and the mouse can never disagree. Panels (`panels/`, owned here as `Panels`) read the state
//! through `state::AppView`, change only their own UI state, and push commands.
//!
//! Nothing the window does can freeze it: long work is a session job polled a few
//! milliseconds per frame (Esc cancels), tidy runs on a worker thread, and the session is
//! autosaved so a killed window reopens where it was.

pub use crate::cmd::{
    shortcuts, strategy_label, tip, Ask, Cmd, FileCmd, GraphCmd, GraphMode, Panel, RunCmd,
    SessionCmd, Tab, TeachCmd, WindowCmd,
};
mod commands;
mod native;
mod watch;

pub use native::run_native;

use crate::layout::Layout;
use crate::panels::Panels;
pub use crate::settings::Settings;
use crate::state::{AppView, Broken, Cache, Practice};
use eframe::egui::{self, Key};
use opal_core::files::write_file_safely;
use opal_core::machine::label::{LabelKey, LabelPath};
use opal_debugger::examples::EXAMPLES;
use opal_debugger::graph::Graph;
use opal_debugger::session::{Action, Confluence, Session, Strategy, Until};
use opal_debugger::{JobSpec, Poll};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// What a command has the status line say: nothing, what happened, or why not (an error also
/// stops Run).
type Said = Option<Result<String, String>>;

/// Where the program came from.
pub enum Origin {
    File(PathBuf),
    Example(usize),
    Text,
}

pub struct DebuggerApp {
    pub session: Option<Session>,
    pub origin: Origin,
    pub name: String,
    /// Compile errors of the program on disk (the last good session stays usable).
    pub errors: Option<String>,
    /// The program when it does not compile (`AppView::broken`).
    broken: Option<Broken>,
    /// The last message for the status line.
    pub status: String,
    pub selected: Option<LabelKey>,
    pub settings: Settings,
    pub until: Until,
    pub running: bool,
    /// The graph as drawn (grouped) and the full one it was grouped from.
    pub graph: Graph,
    pub layout: Layout,
    /// The panels, each with its own UI state (the graph's view, the dialog, all paths, …).
    pub panels: Panels,
    /// Groups the user opened.
    pub open_groups: HashSet<LabelKey>,
    pub practice: Option<Practice>,
    pub confluence: Option<Confluence>,
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
    pub hand_error: Option<(LabelPath, String)>,
    /// The file is missing (deleted, or moved away by an editor saving it).
    file_gone: bool,
    /// The whole action log from before a reload whose replay may stop early (a file saved
    /// half-way, emptied for a moment): the next reload replays it again, so a transient edit
    /// loses no work. Dropped once the user acts on the new program.
    kept: Option<Vec<Action>>,
    pub(crate) cache: Cache,
    /// Where the autosave goes (none in tests unless set).
    pub autosave_dir: Option<PathBuf>,
    autosaved: Option<(u64, f64)>,
    pub(crate) now: f64,
    last_run: f64,
    last_poll: f64,
    /// The program's file and its world file, watched by a thread (wakes the window only on
    /// a change).
    watch: Option<watch::Watch>,
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
            broken: None,
            status: String::new(),
            selected: None,
            settings: Settings::default(),
            until: Until::Dispatch,
            running: false,
            graph: Graph::default(),
            layout: Layout::default(),
            panels: Panels::default(),
            open_groups: HashSet::new(),
            practice: None,
            confluence: None,
            last_session: None,
            live: None,
            mtime: None,
            world_file: None,
            world_mtime: None,
            hand_error: None,
            file_gone: false,
            kept: None,
            cache: Cache::default(),
            autosave_dir: None,
            autosaved: None,
            now: 0.0,
            last_run: 0.0,
            last_poll: 0.0,
            watch: None,
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
        let world_name = opal_core::world::path_beside(Path::new(name))
            .map(|w| w.display().to_string())
            .unwrap_or_default();
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
        let view = &mut self.panels.graph.view;
        view.zoom = s.zoom.clamp(crate::view::MIN_ZOOM, crate::view::MAX_ZOOM);
        view.chosen = view.zoom;
        view.fit = false;
        view.centre = true;
        view.minimap = s.minimap;
        if let Some(sess) = &mut self.session {
            sess.step_budget = s.step_budget.max(1);
        }
        self.settings = s;
        self.rebuild_graph();
    }

    /// The settings to remember now.
    pub fn current_settings(&self) -> Settings {
        let mut s = self.settings.clone();
        s.zoom = self.panels.graph.view.chosen;
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
        self.settings
            .dock
            .unwrap_or(self.screen.x >= 1100.0 && self.screen.y >= 560.0)
    }

    /// The graph shown: the remembered mode, except that a program with no asynchronous
    /// external (§3.4's, a sum) shows its statements until the user picks a mode.
    pub fn mode(&self) -> GraphMode {
        match &self.session {
            Some(s)
                if !self.mode_chosen
                    && self.settings.mode == GraphMode::Calls
                    && !s.has_async_externals() =>
            {
                GraphMode::Statements
            }
            _ => self.settings.mode,
        }
    }

    pub fn strategy(&self) -> Strategy {
        self.settings.strategy
    }

    fn open_example(&mut self, i: usize, reload: bool) {
        let Some(e) = EXAMPLES.get(i) else { return };
        self.origin = Origin::Example(i);
        self.name = format!("{}.opal", e.name);
        self.mtime = None;
        let world_name = format!("examples/{}.world.toml", e.name);
        self.load(
            e.source,
            e.world.map(|w| (w, world_name.as_str())),
            &format!("examples/{}.opal", e.name),
            reload,
        );
    }

    fn open(&mut self, path: &Path, world: Option<&Path>, reload: bool) {
        let shown = path.display().to_string();
        let limit = opal_core::files::MAX_READ;
        let source = match opal_core::files::read_text(path, "the program", limit) {
            Ok(s) => s,
            Err(e) => return self.fail(e.to_string()),
        };
        self.world_file = world.map(Path::to_path_buf);
        let world_path = self.world_path(path);
        self.world_mtime = world_path.as_deref().and_then(modified);
        let world = match &world_path {
            Some(w) => match opal_core::files::read_text(w, "the world file", limit) {
                Ok(t) => Some((t, w.display().to_string())),
                Err(e) => return self.fail(e.to_string()),
            },
            None => None,
        };
        self.origin = Origin::File(path.to_path_buf());
        self.name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(shown.clone());
        self.mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        self.load(
            &source,
            world.as_ref().map(|(t, n)| (t.as_str(), n.as_str())),
            &shown,
            reload,
        );
    }

    /// The world file a program at `path` is run with: `--world`'s, else the one beside it.
    fn world_path(&self, path: &Path) -> Option<PathBuf> {
        self.world_file
            .clone()
            .or_else(|| opal_core::world::path_beside(path).filter(|w| w.exists()))
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
        match Session::for_file(shown, source, world) {
            Ok(mut s) => {
                s.step_budget = self.settings.step_budget.max(1);
                let keep = match (self.session.as_ref().filter(|_| reload), self.kept.take()) {
                    (Some(old), kept) => {
                        let now = old.actions()[..old.position()].to_vec();
                        Some(
                            kept.filter(|k| k.len() > now.len() && k.starts_with(&now))
                                .unwrap_or(now),
                        )
                    }
                    (None, _) => None,
                };
                self.kept = keep.clone();
                self.session = Some(s);
                self.errors = None;
                self.broken = None;
                self.status = format!("opened {shown}");
                self.selected = None;
                self.practice = None;
                self.confluence = None;
                self.panels.windows.paths = None;
                self.running = false;
                self.open_groups.clear();
                self.autosaved = None;
                self.mode_chosen = reload && self.mode_chosen;
                self.cache = Cache::default();
                self.rebuild_graph();
                self.layout = Layout::new(&self.graph);
                self.panels.graph.view.fit = true;
                match keep {
                    Some(actions) if !actions.is_empty() => {
                        let n = actions.len();
                        self.start_job(
                            JobSpec::Replay(actions),
                            format!("reloaded {shown}: replaying {n} actions"),
                        );
                    }
                    _ => self.restore_autosave(),
                }
            }
            Err(diags) => {
                self.broken = Some(Broken::new(source, &diags));
                self.fail(rendered(&diags, shown, source))
            }
        }
    }

    /// The graph of the state shown, grouped to a legible size; the layout follows.
    pub(crate) fn rebuild_graph(&mut self) {
        let Some(s) = &self.session else { return };
        let full = match self.mode() {
            GraphMode::Calls => s.call_graph(self.settings.show_pure),
            GraphMode::Statements => s.statement_graph(self.settings.prelude),
        };
        let hot: HashSet<LabelKey> = s
            .last_steps()
            .iter()
            .flat_map(|t| std::iter::once(t.key).chain(t.created.iter().copied()))
            .collect();
        self.graph = s.grouped(&full, MAX_NODES, &self.open_groups, &hot);
    }

    /// After the session's state changed: the graph, new nodes into view, stale selections.
    fn changed(&mut self) {
        self.rebuild_graph();
        let animate = self.session.as_ref().is_none_or(|s| s.busy().is_none());
        let born = self.layout.update(&self.graph, self.now, animate);
        // Follow the activity: what was born, else where the last step happened.
        let hot: Vec<(i32, i32)> = match &self.session {
            Some(s) => s
                .last_steps()
                .iter()
                .filter_map(|t| self.layout.placed.get(&t.key).map(|p| p.cell))
                .collect(),
            None => vec![],
        };
        let all = crate::layout::bounds(
            self.layout
                .placed
                .values()
                .map(|p| crate::layout::cell_pos(p.cell)),
        );
        self.panels
            .graph
            .view
            .reveal(if born.is_empty() { &hot } else { &born }, all);
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
        self.cache.program_statements = (self.cache.statements.iter().copied())
            .filter(|st| !s.is_machinery(*st) && !s.is_folded(*st))
            .collect();
        self.cache.standing = Some(s.standing());
        self.cache.lazy_done = matches!(s.machine().lazy_next(), opal_core::machine::Lazy::Done);
        self.cache.pending = s.pending();
        self.cache.failures.clear();
        for (st, why) in s.failures() {
            let line = s.line_of(st).unwrap_or(1);
            let text = format!("{}: {why}", s.row(st).label);
            self.cache.failures.entry(line).or_default().push(text);
        }
        self.cache.stepper = None;
    }

    fn default_path(&self, ask: Ask) -> String {
        if let (Some(p), Ask::SaveSession | Ask::LoadSession) = (&self.last_session, ask) {
            return p.display().to_string();
        }
        let stem = self
            .name
            .strip_suffix(".opal")
            .unwrap_or(&self.name)
            .to_string();
        match (&self.origin, ask) {
            (_, Ask::Open) => std::env::current_dir()
                .map(|d| format!("{}/", d.display()))
                .unwrap_or_default(),
            (Origin::File(p), _) => p
                .with_file_name(format!("{stem}{}", ask.suffix()))
                .display()
                .to_string(),
            _ => format!("{stem}{}", ask.suffix()),
        }
    }

    // ---- autosave ------------------------------------------------------------------------

    /// Where this program's autosave lives: one file per program path (or example).
    fn autosave_path(&self) -> Option<PathBuf> {
        let dir = self.autosave_dir.as_ref()?;
        let id = match &self.origin {
            Origin::File(p) => std::fs::canonicalize(p)
                .unwrap_or(p.clone())
                .display()
                .to_string(),
            Origin::Example(i) => format!("example:{i}"),
            Origin::Text => format!("text:{}", self.name),
        };
        let hash = opal_core::machine::trace::sha256_hex(&id);
        Some(
            dir.join("autosave")
                .join(format!("{}.session.json", &hash[..16])),
        )
    }

    /// The window's clock (seconds), as the layout's animations see it.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Writes the session (at most once a second, and only after a change).
    pub fn autosave(&mut self, force: bool) {
        let (Some(path), Some(s)) = (self.autosave_path(), &self.session) else {
            return;
        };
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
        let Some(path) = self.autosave_path() else {
            return;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let Some(s) = &self.session else { return };
        match s.saved_actions(&text) {
            Ok((actions, _, _)) if actions.is_empty() => {}
            Ok((actions, position, same)) => {
                let n = actions.len();
                let (spec, what) = if same {
                    (
                        JobSpec::Load(text),
                        format!("restored the autosaved session ({n} actions); Ctrl+R starts over"),
                    )
                } else {
                    (JobSpec::Replay(actions), format!("the program changed since the autosave: replaying its {n} actions as far as they apply"))
                };
                let _ = position;
                self.start_job(spec, what);
            }
            Err(e) => {
                self.status = format!(
                    "{}: the autosave is unreadable ({e}); starting fresh",
                    path.display()
                )
            }
        }
    }

    fn start_job(&mut self, spec: JobSpec, what: String) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
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

    fn call_live(&mut self, label: &LabelPath) -> Result<String, String> {
        let s = self.session.as_ref().ok_or("no program is open")?;
        let live = self
            .live
            .as_mut()
            .ok_or("no live externals in this window (start it with `opal debug FILE`)")?;
        live.call(s, label)
    }

    /// Takes what live calls reported and delivers it to the tasks that wait for it.
    fn pump_live(&mut self) {
        let (Some(live), Some(s)) = (self.live.as_mut(), self.session.as_mut()) else {
            return;
        };
        let p = live.pump(s);
        // What the externals said (a retry, a Python external's print) shows like a message:
        // the last line in the status line.
        let said = p
            .output
            .iter()
            .filter_map(|(_, t)| t.lines().rev().find(|l| !l.trim().is_empty()))
            .map(str::to_string);
        if let Some(m) = p.messages.into_iter().chain(said).last() {
            self.status = m;
        }
        if p.changed {
            self.changed();
        }
    }

    /// Works on the session's job for a slice of this frame.
    fn poll_job(&mut self, frame_start: std::time::Instant) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let before = s.revision();
        let Some(p) = s.poll(Duration::from_millis(12)) else {
            return;
        };
        match p {
            Poll::Working(p) => {
                self.status = format!("{}: {} of {}… (Esc cancels)", p.what, p.done, p.total);
                self.job_frames
                    .push(frame_start.elapsed().as_secs_f32() * 1000.0);
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
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.revision() != before)
        {
            self.changed();
        }
    }

    /// Runs the session's job to its end at once (tests and benchmarks; the window polls).
    pub fn settle(&mut self) {
        while self.session.as_ref().is_some_and(|s| s.busy().is_some()) {
            self.poll_job(std::time::Instant::now());
        }
    }

    /// One frame of the running debugger: what `eframe::App::ui` and the tests call. In this
    /// order: the keys, the background work (job, tidy, all paths), the panels, Run's step,
    /// the file on disk, live replies, the autosave.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let frame_start = std::time::Instant::now();
        let ctx = ui.ctx().clone();
        let dt = ctx.input(|i| i.stable_dt).min(0.1);
        self.now = ctx.input(|i| i.time);
        self.chrome(&ctx);
        for c in self.keys(&ctx) {
            self.run_cmd(c);
        }
        self.poll_work(frame_start);
        // At once: a command may name a statement by its slot, valid only in the state drawn.
        for c in self.draw(ui) {
            self.run_cmd(c);
        }
        if self.running && self.session.as_ref().is_some_and(|s| s.busy().is_none()) {
            self.run_step();
            ctx.request_repaint_after(Duration::from_secs_f32(1.0 / self.settings.speed));
        }
        if let Origin::File(p) = &self.origin {
            let p = p.clone();
            let paths: Vec<PathBuf> = std::iter::once(p.clone())
                .chain(
                    self.world_file
                        .clone()
                        .or_else(|| opal_core::world::path_beside(&p)),
                )
                .collect();
            if self.watch.as_ref().is_none_or(|w| w.paths != paths) {
                self.watch = Some(watch::Watch::start(paths, ctx.clone()));
            }
            if let Some(c) = self.watch_file(&p) {
                self.run_cmd(c);
            }
        }
        self.pump_live();
        self.autosave(false);
        let busy = self.session.as_ref().is_some_and(|s| s.busy().is_some())
            || self.layout.tidying()
            || self.panels.windows.paths.as_ref().is_some_and(|p| p.busy());
        if self.layout.animate(dt, self.now) || busy {
            ctx.request_repaint();
        }
    }

    /// The theme and the window's title.
    fn chrome(&mut self, ctx: &egui::Context) {
        apply_theme(ctx, self.settings.projector);
        let title = format!("OPAL debugger — {}", self.name);
        if self.title != title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    /// The shortcuts pressed this frame; while a text field, the file dialog or the dock's
    /// answer field (the dock clicked last) has the keyboard, only Esc.
    fn keys(&self, ctx: &egui::Context) -> Vec<Cmd> {
        let mut cmds = Vec::new();
        let typing = ctx.egui_wants_keyboard_input() || self.panels.dock.typing();
        if !typing && self.panels.windows.dialog.is_none() {
            for (sc, cmd, _) in shortcuts() {
                if ctx.input_mut(|i| i.consume_shortcut(&sc)) {
                    cmds.push(cmd);
                }
            }
        } else if ctx.input(|i| i.key_pressed(Key::Escape)) {
            cmds.push(WindowCmd::Cancel.into());
        }
        cmds
    }

    /// A slice of the session's job, then what the tidy and the all-paths workers finished.
    fn poll_work(&mut self, frame_start: std::time::Instant) {
        self.poll_job(frame_start);
        if self.layout.poll_tidy(&self.graph, self.now) {
            self.status = "tidied the graph".into();
            let view = &mut self.panels.graph.view;
            if std::mem::take(&mut view.fit_after_tidy) {
                view.fit = true;
                view.fit_asked = true;
            }
        }
        if let Some(p) = &mut self.panels.windows.paths {
            if p.poll() {
                self.status = format!("all paths: {}", p.summary().unwrap_or_default());
            }
        }
    }

    /// Draws the panels; what the user did, to be run at once.
    fn draw(&mut self, ui: &mut egui::Ui) -> Vec<Cmd> {
        self.refresh_cache();
        self.screen = ui.ctx().content_rect().size();
        // The before/after view needs the session mutably: computed here, when its tab shows.
        if self.dock_shown() && self.settings.tab == Tab::Stepper && self.cache.stepper.is_none() {
            if let Some(s) = self.session.as_mut().filter(|s| s.busy().is_none()) {
                self.cache.stepper = Some(s.before_last());
            }
        }
        let mut cmds = Vec::new();
        // The panels are taken out for the frame: they change only themselves while they read
        // the rest of the app.
        let mut panels = std::mem::take(&mut self.panels);
        panels.ui(ui, &self.app_view(), &mut cmds);
        self.panels = panels;
        cmds
    }

    /// What the panels read this frame.
    fn app_view(&self) -> AppView<'_> {
        AppView {
            session: self.session.as_ref(),
            settings: &self.settings,
            name: &self.name,
            status: &self.status,
            errors: self.errors.as_deref(),
            broken: self.broken.as_ref().filter(|_| self.session.is_none()),
            selected: self.selected,
            running: self.running,
            until: &self.until,
            mode: self.mode(),
            term_shown: self.term_shown(),
            dock_shown: self.dock_shown(),
            graph: &self.graph,
            layout: &self.layout,
            practice: self.practice.as_ref(),
            confluence: self.confluence.as_ref(),
            hand_error: self.hand_error.as_ref(),
            cache: &self.cache,
            live: self.has_live(),
            now: self.now,
            screen: self.screen,
        }
    }

    /// Run: one action per 1/speed seconds; a stall resolves from the world or pauses.
    fn run_step(&mut self) {
        if self.now - self.last_run < 1.0 / self.settings.speed as f64 {
            return;
        }
        self.last_run = self.now;
        let strategy = self.strategy();
        let auto = self.settings.auto_resolve;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let r = match s.advance(strategy) {
            Err(_) if auto && !s.pending().is_empty() => s
                .resolve_all()
                .map(|n| format!("resolved {n} pending tasks")),
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

    /// Reload when the file changes on disk (polled once a second): the command, if it did.
    fn watch_file(&mut self, p: &Path) -> Option<Cmd> {
        let signalled = self.watch.as_ref().is_some_and(|w| w.take_changed());
        if !signalled && self.now - self.last_poll <= 1.0 {
            return None;
        }
        self.last_poll = self.now;
        let meta = match std::fs::metadata(p) {
            Ok(meta) => meta,
            Err(_) => {
                if !self.file_gone {
                    self.file_gone = true;
                    self.status = format!("{} is gone from disk; the session stays, and reloads when the file is back", self.name);
                }
                return None;
            }
        };
        self.file_gone = false;
        let m = meta.modified().ok();
        let world_changed = self.world_path(p).as_deref().and_then(modified) != self.world_mtime;
        if world_changed && (m.is_none() || m == self.mtime) {
            return Some(FileCmd::Reload.into());
        }
        if m.is_some() && m != self.mtime {
            if meta.len() == 0 {
                // Editors empty a file before writing it: wait for the text.
                self.mtime = m;
                self.status = format!(
                    "{} is empty on disk; the session stays until it has a program again",
                    self.name
                );
            } else {
                return Some(FileCmd::Reload.into());
            }
        }
        None
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
    diags
        .iter()
        .map(|d| opal_core::diag::render(d, file, text, &index))
        .collect()
}

/// The projector theme: light, everything 1.5× (14-point graph text is 21 pixels).
fn apply_theme(ctx: &egui::Context, projector: bool) {
    let zoom = if projector { 1.5 } else { 1.0 };
    let theme = if projector {
        egui::ThemePreference::Light
    } else {
        egui::ThemePreference::System
    };
    if ctx.options(|o| o.theme_preference) != theme {
        ctx.set_theme(theme);
    }
    if (ctx.zoom_factor() - zoom).abs() > f32::EPSILON {
        ctx.set_zoom_factor(zoom);
    }
}

/// When `path` was last changed, if it exists.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}
