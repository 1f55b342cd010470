//! The debugger window. Every button, menu entry, shortcut and graph click becomes a `Cmd`;
//! `DebuggerApp::run_cmd` is the one place that changes the session, so the keyboard and the
//! mouse can never disagree. Panels only draw and push commands.

use crate::examples::EXAMPLES;
use crate::graph::{Graph, Layout};
use crate::session::{Confluence, Kind, Order, Quiz, Session, Strategy, Until, Verdict};
use crate::timeline::Timeline;
use crate::view::{kind_color, GraphEvent, GraphView};
use eframe::egui::{self, Color32, Key, KeyboardShortcut, Modifiers, RichText};
use opal_core::machine::trace::Trace;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Everything the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Round,
    Advance,
    Cbv,
    Lazy,
    Step(String),
    StepSelected,
    Back,
    Forward,
    Goto(usize),
    Restart,
    RunPause,
    RunUntil,
    ResolveWorld(String),
    ResolveTrace(String),
    ResolveHand(String, String),
    ResolveLive(String),
    ResolveAll,
    Select(Option<String>),
    TogglePrelude,
    Tidy,
    FitView,
    Focus,
    Practice,
    CheckPractice,
    Confluence(Order),
    Help,
    Projector,
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
    fn title(self) -> &'static str {
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
    fn suffix(self) -> &'static str {
        match self {
            Ask::Open => ".opal",
            Ask::SaveSession | Ask::LoadSession => ".session.json",
            Ask::LoadTrace => ".trace.json",
            Ask::ExportDot => ".graph.dot",
            Ask::ExportSvg => ".graph.svg",
            Ask::ExportTimeline => ".timeline.csv",
        }
    }
    fn cmd(self, p: PathBuf) -> Cmd {
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
        (k(n, Key::C), Cmd::Cbv, "one call-by-value step"),
        (k(n, Key::L), Cmd::Lazy, "one lazy step"),
        (k(n, Key::Enter), Cmd::StepSelected, "step the selected statement"),
        (k(n, Key::ArrowLeft), Cmd::Back, "step back in history"),
        (k(n, Key::ArrowRight), Cmd::Forward, "step forward in history"),
        (k(c, Key::R), Cmd::Restart, "restart from the initial term"),
        (k(n, Key::P), Cmd::RunPause, "run or pause (speed slider in the toolbar)"),
        (k(n, Key::U), Cmd::RunUntil, "run until the chosen event"),
        (k(n, Key::W), Cmd::ResolveAll, "resolve every pending task from the trace or the world file"),
        (k(n, Key::T), Cmd::Tidy, "tidy the graph (full layered layout)"),
        (k(n, Key::F), Cmd::Focus, "focus the graph on the selected node's upstream and downstream"),
        (k(n, Key::Num0), Cmd::FitView, "fit the graph in view"),
        (k(n, Key::Q), Cmd::Practice, "practice mode on or off"),
        (k(c, Key::Enter), Cmd::CheckPractice, "check the prediction (practice mode)"),
        (k(n, Key::V), Cmd::Confluence(Order::Reversed), "confluence: finish under the reversed order and compare"),
        (k(n, Key::F1), Cmd::Help, "this help"),
        (k(n, Key::F2), Cmd::Projector, "projector theme (light, large type) on or off"),
        (k(n, Key::F5), Cmd::Reload, "reload the program from disk"),
        (k(c, Key::O), Cmd::Ask(Ask::Open), "open a program"),
        (k(c, Key::S), Cmd::Ask(Ask::SaveSession), "save the session"),
        (k(c, Key::L), Cmd::Ask(Ask::LoadSession), "load a session"),
    ]
}

struct Practice {
    quiz: Quiz,
    ticked: BTreeSet<String>,
    verdict: Option<Verdict>,
}

struct Dialog {
    ask: Ask,
    path: String,
}

/// A live call in flight: what arrived and is not yet delivered. A stream's elements go to
/// whichever of its tasks is pending (the first, then each continuation after its resolve).
struct LiveCallState {
    origin: String,
    ext: String,
    items: Vec<opal_core::ir::Prim>,
    value: Option<Result<opal_core::ir::PExp, String>>,
    error: Option<String>,
    ended: bool,
    delivered: bool,
}

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
    /// The last message for the status line.
    pub status: String,
    pub selected: Option<String>,
    pub strategy: Strategy,
    pub until: Until,
    pub running: bool,
    /// Actions per second while running.
    pub speed: f32,
    pub auto_resolve: bool,
    pub show_prelude: bool,
    pub graph: Graph,
    pub layout: Layout,
    pub view: GraphView,
    pub timeline: Timeline,
    practice: Option<Practice>,
    pub confluence: Option<Confluence>,
    /// What the user typed to resolve each pending task.
    hand: HashMap<String, String>,
    dialog: Option<Dialog>,
    pub help: bool,
    pub projector: bool,
    /// The session file last saved or loaded (the dialogs' default).
    last_session: Option<PathBuf>,
    live: Option<crate::live::LiveWorker>,
    live_calls: HashMap<u64, LiveCallState>,
    next_live: u64,
    mtime: Option<SystemTime>,
    /// The source line last scrolled into view (scroll only when it changes).
    scrolled_to: Option<usize>,
    now: f64,
    last_run: f64,
    last_poll: f64,
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
            strategy: Strategy::Opportunistic,
            until: Until::Dispatch,
            running: false,
            speed: 4.0,
            auto_resolve: true,
            show_prelude: false,
            graph: Graph::default(),
            layout: Layout::default(),
            view: GraphView::default(),
            timeline: Timeline::default(),
            practice: None,
            confluence: None,
            hand: HashMap::new(),
            dialog: None,
            help: false,
            projector: false,
            last_session: None,
            live: None,
            live_calls: HashMap::new(),
            next_live: 0,
            mtime: None,
            scrolled_to: None,
            now: 0.0,
            last_run: 0.0,
            last_poll: 0.0,
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
        let source = match std::fs::read(path) {
            Ok(b) => match String::from_utf8(b) {
                Ok(s) => s,
                Err(e) => return self.fail(format!("{shown}: not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())),
            },
            Err(e) => return self.fail(format!("{shown}: cannot read: {e}")),
        };
        let world_path = world.map(Path::to_path_buf).or_else(|| opal_core::world::path_beside(path).filter(|w| w.exists()));
        let world = match &world_path {
            Some(w) => match std::fs::read_to_string(w) {
                Ok(t) => Some((t, w.display().to_string())),
                Err(e) => return self.fail(format!("{}: cannot read the world file: {e}", w.display())),
            },
            None => None,
        };
        self.origin = Origin::File(path.to_path_buf());
        self.name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(shown.clone());
        self.mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        self.load(&source, world.as_ref().map(|(t, n)| (t.as_str(), n.as_str())), &shown, reload);
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
            Ok(s) => {
                let keep = self.session.as_ref().filter(|_| reload).map(|old| old.actions()[..old.position()].to_vec());
                self.session = Some(s);
                self.errors = None;
                self.status = format!("opened {shown}");
                if let (Some(actions), Some(s)) = (keep, self.session.as_mut()) {
                    if !actions.is_empty() {
                        let (n, err) = s.replay(&actions);
                        self.status = match err {
                            None => format!("reloaded {shown}: replayed all {n} actions"),
                            Some(e) => format!("reloaded {shown}: replayed {n} of {} actions; {e}", actions.len()),
                        };
                    }
                }
                self.selected = None;
                self.practice = None;
                self.confluence = None;
                self.running = false;
                self.graph = self.session.as_ref().map(|s| Graph::of(s, self.show_prelude)).unwrap_or_default();
                self.layout = Layout::new(&self.graph);
                self.view.fit = true;
            }
            Err(diags) => self.fail(rendered(&diags, shown, source)),
        }
    }

    /// The graph of the state shown; the layout follows incrementally.
    fn rebuild_graph(&mut self) {
        if let Some(s) = &self.session {
            self.graph = Graph::of(s, self.show_prelude);
            self.layout.update(&self.graph, self.now);
        }
    }

    /// After the session's state changed: the graph, new nodes into view, stale selections.
    fn changed(&mut self) {
        self.rebuild_graph();
        if let Some(s) = &self.session {
            let born: Vec<(i32, i32)> = self.layout.placed.values().filter(|p| p.born == self.now).map(|p| p.cell).collect();
            self.view.reveal(&born);
            if let Some(sel) = &self.selected {
                if !self.graph.nodes.iter().any(|n| &n.label == sel) && s.find(sel).is_err() {
                    self.selected = None;
                }
            }
            if let Some(p) = &mut self.practice {
                p.ticked.clear();
                p.verdict = None;
            }
        }
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

    /// Lets pending tasks be resolved by live externals (`llm`, processes).
    pub fn set_live(&mut self, worker: crate::live::LiveWorker) {
        self.live = Some(worker);
    }
    pub fn has_live(&self) -> bool {
        self.live.is_some()
    }
    /// Live calls still in flight.
    pub fn live_in_flight(&self) -> usize {
        self.live_calls.len()
    }

    fn call_live(&mut self, label: &str) -> Result<String, String> {
        let worker = self.live.as_ref().ok_or("no live externals in this window (start it with `opal debug FILE`)")?;
        let s = self.session.as_ref().ok_or("no program is open")?;
        if self.live_calls.values().any(|c| c.origin == label) {
            return Err(format!("{label} is already being called"));
        }
        let (ext, arg) = s.task_call(label)?;
        let id = self.next_live;
        self.next_live += 1;
        worker.call(id, &ext, arg)?;
        self.live_calls.insert(
            id,
            LiveCallState { origin: label.to_string(), ext: ext.clone(), items: Vec::new(), value: None, error: None, ended: false, delivered: false },
        );
        Ok(format!("called `{ext}` live for {label}: it resolves when the answer arrives"))
    }

    /// Takes what live calls reported and delivers it to the tasks that wait for it.
    fn pump_live(&mut self) {
        let Some(worker) = &self.live else { return };
        for r in worker.poll() {
            use crate::live::Reply;
            let id = match &r {
                Reply::Value(id, _) | Reply::Chunk(id, _) | Reply::End(id) | Reply::NotLive(id) => *id,
            };
            let Some(c) = self.live_calls.get_mut(&id) else { continue };
            match r {
                Reply::Value(_, v) => c.value = Some(v),
                Reply::Chunk(_, Ok(p)) => c.items.push(p),
                Reply::Chunk(_, Err(e)) => c.error = Some(e),
                Reply::End(_) => c.ended = true,
                Reply::NotLive(_) => {
                    // The task stays pending for another way of resolving it.
                    self.status = format!("`{}` is not a live external: resolve {} by hand, from the world file or a trace", c.ext, c.origin);
                    self.live_calls.remove(&id);
                }
            }
        }
        let Some(s) = self.session.as_mut() else { return };
        let mut done = Vec::new();
        let mut changed = false;
        for (id, c) in self.live_calls.iter_mut() {
            let target = if c.delivered { s.stream_continuation(&c.origin) } else { Some(c.origin.clone()) };
            let Some(target) = target.filter(|t| s.task_call(t).is_ok()) else { continue };
            let r = if let Some(v) = c.value.take() {
                done.push(*id);
                match v {
                    Ok(e) => s.resolve_live(&target, e.to_string(), false, None),
                    Err(e) => s.resolve_live(&target, String::new(), false, Some(e)),
                }
            } else if !c.items.is_empty() || c.ended || c.error.is_some() {
                let more = !(c.ended || c.error.is_some() && c.items.is_empty());
                let items: Vec<String> = c.items.drain(..).map(|p| p.to_string()).collect();
                let r = if items.is_empty() && c.error.is_some() {
                    done.push(*id);
                    s.resolve_live(&target, String::new(), false, c.error.clone())
                } else {
                    if !more {
                        done.push(*id);
                    }
                    s.resolve_live(&target, format!("[{}]", items.join(", ")), more, None)
                };
                c.delivered = true;
                r
            } else {
                continue;
            };
            changed = true;
            self.status = match r {
                Ok(m) => m,
                Err(e) => {
                    done.push(*id);
                    e
                }
            };
        }
        for id in done {
            self.live_calls.remove(&id);
        }
        if changed {
            self.changed();
        }
    }

    /// Does `cmd`; the status line says what happened or why not.
    pub fn run_cmd(&mut self, cmd: Cmd) {
        let result: Result<String, String> = match cmd {
            Cmd::Help => {
                self.help = !self.help;
                return;
            }
            Cmd::Projector => {
                self.projector = !self.projector;
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
            Cmd::TogglePrelude => {
                self.show_prelude = !self.show_prelude;
                self.rebuild_graph();
                return;
            }
            Cmd::Reload => {
                match &self.origin {
                    Origin::File(p) => {
                        let p = p.clone();
                        self.open(&p, None, true);
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
                self.layout.tidy(&self.graph, self.now);
                Ok("tidied the graph".into())
            }
            Cmd::FitView => {
                self.view.fit = true;
                return;
            }
            Cmd::Focus => {
                self.view.focus = !self.view.focus;
                Ok(if self.view.focus { "graph focused on the selected node" } else { "graph shows everything" }.into())
            }
            Cmd::RunPause => {
                self.running = !self.running;
                Ok(if self.running { format!("running: {} at {:.0} actions/s", strategy_label(self.strategy), self.speed) } else { "paused".into() })
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
            other => {
                let Some(s) = self.session.as_mut() else {
                    self.status = "no program is open: File > Open or File > Examples".into();
                    return;
                };
                let before = s.revision();
                let r = match other {
                    Cmd::Round => s.round(),
                    Cmd::Advance => s.advance(self.strategy),
                    Cmd::Cbv => s.step_cbv(),
                    Cmd::Lazy => s.step_lazy(),
                    Cmd::Step(l) => s.step(&l),
                    Cmd::StepSelected => match &self.selected {
                        Some(l) => s.step(&l.clone()),
                        None => Err("select a statement first (click its row or node)".into()),
                    },
                    Cmd::Back => {
                        if s.back() {
                            Ok(format!("back to step {}", s.position()))
                        } else {
                            Err("at the start of history".into())
                        }
                    }
                    Cmd::Forward => {
                        if s.forward() {
                            Ok(format!("forward to step {}", s.position()))
                        } else {
                            Err("at the end of history".into())
                        }
                    }
                    Cmd::Goto(i) => s.goto(i).map(|_| format!("at step {i}")),
                    Cmd::Restart => {
                        s.restart();
                        Ok("restarted: the initial term".into())
                    }
                    Cmd::RunUntil => {
                        let until = self.until.clone();
                        s.run_until(self.strategy, &until, self.auto_resolve, crate::session::RUN_LIMIT)
                    }
                    Cmd::ResolveWorld(l) => s.resolve_from_world(&l),
                    Cmd::ResolveTrace(l) => s.resolve_from_trace(&l),
                    Cmd::ResolveHand(l, src) => s.resolve_with(&l, &src),
                    Cmd::ResolveAll => s.resolve_all().map(|n| format!("resolved {n} pending tasks")),
                    Cmd::Confluence(order) => {
                        let c = s.confluence(order);
                        let msg = if c.truncated {
                            format!("confluence: gave up after {} steps (the program may diverge)", crate::session::STEP_LIMIT)
                        } else if c.identical() {
                            format!("confluence: {} gives the identical final term", c.order)
                        } else {
                            format!("confluence: {} gives a different final term", c.order)
                        };
                        self.confluence = Some(c);
                        Ok(msg)
                    }
                    Cmd::SaveSession(p) => {
                        self.last_session = Some(p.clone());
                        write_atomically(&p, &s.to_json()).map(|_| format!("saved the session to {}", p.display()))
                    }
                    Cmd::LoadSession(p) => std::fs::read_to_string(&p)
                        .inspect(|_| self.last_session = Some(p.clone()))
                        .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                        .and_then(|t| s.load_json(&t).map_err(|e| format!("{}: {e}", p.display()))),
                    Cmd::LoadTrace(p) => std::fs::read_to_string(&p)
                        .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                        .and_then(|t| Trace::parse(&t).map_err(|e| format!("{}: {e}", p.display())))
                        .and_then(|t| s.set_trace(t).map(|_| format!("loaded the trace {}: pending tasks resolve from it", p.display()))),
                    Cmd::ExportDot(p) => write_atomically(&p, &self.graph.to_dot()).map(|_| format!("wrote {}", p.display())),
                    Cmd::ExportSvg(p) => write_atomically(&p, &self.layout.to_svg(&self.graph)).map(|_| format!("wrote {}", p.display())),
                    Cmd::ExportTimeline(p) => write_atomically(&p, &s.timeline_csv()).map(|_| format!("wrote {}", p.display())),
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

    /// One frame of the running debugger: what `eframe::App::ui` and the tests call.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let dt = ctx.input(|i| i.stable_dt).min(0.1);
        self.now = ctx.input(|i| i.time);
        apply_theme(&ctx, self.projector);
        let mut cmds: Vec<Cmd> = Vec::new();
        if !ctx.egui_wants_keyboard_input() && self.dialog.is_none() {
            for (sc, cmd, _) in shortcuts() {
                if ctx.input_mut(|i| i.consume_shortcut(&sc)) {
                    cmds.push(cmd);
                }
            }
        }
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            self.help = false;
            self.dialog = None;
        }

        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| self.menu_ui(ui, &mut cmds));
        });
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar_ui(ui, &mut cmds));
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                if let Some(s) = &self.session {
                    let m = s.machine();
                    ui.label(format!("step {} of {}", s.position(), s.actions().len()));
                    ui.separator();
                    ui.label(format!("{} statements · {} pending", m.iter().count(), s.pending().len()));
                    ui.separator();
                }
                ui.label(&self.status);
            });
        });
        if let Some(e) = &self.errors {
            let e = e.clone();
            egui::Panel::top("errors").show(ui, |ui| {
                ui.colored_label(Color32::from_rgb(0xc0, 0x20, 0x20), RichText::new(e).monospace());
                ui.label("Fix the program and reload (F5); the session below is the last one that compiled.");
            });
        }
        // The projector theme enlarges everything 1.5x: its panels have their own ids and
        // smaller default sizes, so the task graph keeps most of the screen.
        let (pid, side, timeline_h) = if self.projector { ("-projector", 0.62, 120.0) } else { ("", 1.0, 170.0) };
        egui::Panel::bottom(format!("timeline{pid}")).resizable(true).default_size(timeline_h).show(ui, |ui| {
            ui.heading("Timeline");
            if let Some(s) = &self.session {
                let now_ms = ctx.input(|i| i.time) * 1000.0;
                self.timeline.ui(ui, s.calls(), s.position(), now_ms);
            }
        });
        egui::Panel::left(format!("source{pid}")).resizable(true).default_size(300.0 * side).show(ui, |ui| self.source_ui(ui));
        egui::Panel::right(format!("tasks{pid}")).resizable(true).default_size(330.0 * side).show(ui, |ui| self.side_ui(ui, &mut cmds));
        egui::CentralPanel::default().show(ui, |ui| {
            egui::Panel::top("term").resizable(true).default_size(260.0).show(ui, |ui| self.term_ui(ui, &mut cmds));
            ui.horizontal(|ui| {
                ui.heading("Task graph");
                if ui.button("Tidy").on_hover_text(tip("full layered layout", &Cmd::Tidy)).clicked() {
                    cmds.push(Cmd::Tidy);
                }
                if ui.button("Fit").on_hover_text(tip("fit the graph in view", &Cmd::FitView)).clicked() {
                    cmds.push(Cmd::FitView);
                }
                let mut focus = self.view.focus;
                if ui.toggle_value(&mut focus, "Focus").on_hover_text(tip("show only the selected node's upstream and downstream", &Cmd::Focus)).clicked() {
                    cmds.push(Cmd::Focus);
                }
                let mut prelude = self.show_prelude;
                if ui.checkbox(&mut prelude, "prelude").on_hover_text("show the environment and prelude statements (labels 0.…)").changed() {
                    cmds.push(Cmd::TogglePrelude);
                }
                ui.weak("drag to pan · scroll or pinch to zoom · double-click a green node to step it");
            });
            let ev = self.view.ui(ui, &self.graph, &self.layout, self.selected.as_deref(), self.now);
            match ev {
                Some(GraphEvent::Select(l)) => cmds.push(Cmd::Select(Some(l))),
                Some(GraphEvent::Step(l)) => cmds.push(Cmd::Step(l)),
                None => {}
            }
        });

        self.dialogs_ui(&ctx, &mut cmds);

        // Run: one action per 1/speed seconds; a stall resolves from the world or pauses.
        if self.running {
            if self.now - self.last_run >= 1.0 / self.speed as f64 {
                self.last_run = self.now;
                if let Some(s) = self.session.as_mut() {
                    let r = s.advance(self.strategy);
                    let r = match r {
                        Err(_) if self.auto_resolve && !s.pending().is_empty() => s.resolve_all().map(|n| format!("resolved {n} pending tasks")),
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
            ctx.request_repaint_after(std::time::Duration::from_secs_f32(1.0 / self.speed));
        }
        // Reload when the file changes on disk (polled once a second).
        if let Origin::File(p) = &self.origin {
            if self.now - self.last_poll > 1.0 {
                self.last_poll = self.now;
                let m = std::fs::metadata(p).and_then(|m| m.modified()).ok();
                if m.is_some() && m != self.mtime {
                    cmds.push(Cmd::Reload);
                }
            }
            ctx.request_repaint_after(std::time::Duration::from_secs(1));
        }
        for c in cmds {
            self.run_cmd(c);
        }
        self.pump_live();
        if self.layout.animate(dt, self.now) {
            ctx.request_repaint();
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
        ui.menu_button("File", |ui| {
            for (ask, label) in
                [(Ask::Open, "Open…"), (Ask::SaveSession, "Save session…"), (Ask::LoadSession, "Load session…"), (Ask::LoadTrace, "Load trace…")]
            {
                if ui.button(label).on_hover_text(tip(ask.title(), &Cmd::Ask(ask))).clicked() {
                    cmds.push(Cmd::Ask(ask));
                }
            }
            if ui.button("Reload").on_hover_text(tip("reload the program from disk", &Cmd::Reload)).clicked() {
                cmds.push(Cmd::Reload);
            }
            ui.menu_button("Examples", |ui| {
                for (i, e) in EXAMPLES.iter().enumerate() {
                    if ui.button(e.name).clicked() {
                        cmds.push(Cmd::OpenExample(i));
                    }
                }
            });
            ui.separator();
            for (ask, label) in
                [(Ask::ExportDot, "Export graph as DOT…"), (Ask::ExportSvg, "Export graph as SVG…"), (Ask::ExportTimeline, "Export timeline as CSV…")]
            {
                if ui.button(label).clicked() {
                    cmds.push(Cmd::Ask(ask));
                }
            }
            ui.separator();
            if ui.button("Quit").clicked() {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
        });
        ui.menu_button("Step", |ui| {
            for (cmd, label) in [
                (Cmd::Round, "Round"),
                (Cmd::Advance, "Step (strategy)"),
                (Cmd::Cbv, "Call-by-value step"),
                (Cmd::Lazy, "Lazy step"),
                (Cmd::Back, "Back"),
                (Cmd::Forward, "Forward"),
                (Cmd::Restart, "Restart"),
                (Cmd::RunUntil, "Run until"),
                (Cmd::ResolveAll, "Resolve all pending"),
            ] {
                if ui.button(label).on_hover_text(tip(label, &cmd)).clicked() {
                    cmds.push(cmd);
                }
            }
        });
        ui.menu_button("Teach", |ui| {
            if ui.button("Practice mode").on_hover_text(tip("predict, then check", &Cmd::Practice)).clicked() {
                cmds.push(Cmd::Practice);
            }
            for order in [Order::Reversed, Order::Random(7), Order::Cbv] {
                if ui
                    .button(format!("Confluence: {}", order.name()))
                    .on_hover_text("finish the program under another step order with the same resolutions and compare the final terms")
                    .clicked()
                {
                    cmds.push(Cmd::Confluence(order));
                }
            }
        });
        ui.menu_button("View", |ui| {
            if ui.button("Projector theme").on_hover_text(tip("light theme with large type", &Cmd::Projector)).clicked() {
                cmds.push(Cmd::Projector);
            }
            if ui.button("Keyboard shortcuts").on_hover_text(tip("help", &Cmd::Help)).clicked() {
                cmds.push(Cmd::Help);
            }
        });
        ui.label(RichText::new(&self.name).strong());
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
        ui.horizontal_wrapped(|ui| {
            for (cmd, label, what) in [
                (Cmd::Round, "Round", "one opportunistic round: every steppable statement steps"),
                (Cmd::Cbv, "CBV step", "one call-by-value step"),
                (Cmd::Lazy, "Lazy step", "one lazy step"),
                (Cmd::Back, "Back", "step back in history"),
                (Cmd::Forward, "Forward", "step forward in history"),
                (Cmd::Restart, "Restart", "restart from the initial term"),
            ] {
                if ui.button(label).on_hover_text(tip(what, &cmd)).clicked() {
                    cmds.push(cmd);
                }
            }
            ui.separator();
            let run = if self.running { "Pause" } else { "Run" };
            if ui.button(run).on_hover_text(tip("run or pause", &Cmd::RunPause)).clicked() {
                cmds.push(Cmd::RunPause);
            }
            egui::ComboBox::from_label("strategy").selected_text(strategy_label(self.strategy)).show_ui(ui, |ui| {
                for s in Strategy::ALL {
                    ui.selectable_value(&mut self.strategy, s, strategy_label(s));
                }
            });
            ui.add(egui::Slider::new(&mut self.speed, 0.5..=60.0).logarithmic(true).text("actions/s"));
            ui.separator();
            if ui.button("Run until").on_hover_text(tip("run until the event on the right", &Cmd::RunUntil)).clicked() {
                cmds.push(Cmd::RunUntil);
            }
            let until_text = match &self.until {
                Until::Dispatch => "next dispatch".to_string(),
                Until::Resolve => "next resolve".to_string(),
                Until::Steps(l) => format!("{l} steps"),
            };
            egui::ComboBox::from_label("until").selected_text(until_text).show_ui(ui, |ui| {
                ui.selectable_value(&mut self.until, Until::Dispatch, "next dispatch");
                ui.selectable_value(&mut self.until, Until::Resolve, "next resolve");
                if let Some(l) = &self.selected {
                    ui.selectable_value(&mut self.until, Until::Steps(l.clone()), format!("{l} steps"));
                } else {
                    ui.weak("select a statement to run until it steps");
                }
            });
            ui.checkbox(&mut self.auto_resolve, "auto-resolve").on_hover_text("when nothing can step, resolve pending tasks from the trace or the world file");
        });
    }

    fn source_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Source");
        let Some(s) = &self.session else {
            ui.weak("No program. File > Open (Ctrl+O) or File > Examples.");
            return;
        };
        let sel_line = self.selected.as_ref().and_then(|l| s.find(l).ok()).and_then(|st| s.line_of(st));
        let last_line = s.last_steps().iter().find_map(|t| t.line);
        let hl = sel_line.or(last_line);
        let scrolled_to = self.scrolled_to;
        egui::ScrollArea::both().id_salt("source").auto_shrink([false, false]).show(ui, |ui| {
            for (i, line) in s.source().lines().enumerate() {
                let n = i + 1;
                let text = RichText::new(format!("{n:>4}  {line}")).monospace();
                let text = if Some(n) == hl { text.background_color(Color32::from_rgba_unmultiplied(0xff, 0xd0, 0x40, 0x90)) } else { text };
                let r = ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                if Some(n) == hl && scrolled_to != hl {
                    r.scroll_to_me(Some(egui::Align::Center));
                }
            }
        });
        self.scrolled_to = hl;
    }

    fn term_ui(&mut self, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
        let Some(s) = &self.session else { return };
        let rows = s.rows();
        let prelude = rows.iter().filter(|r| r.prelude).count();
        ui.horizontal(|ui| {
            ui.heading("Labeled term");
            let mut p = self.show_prelude;
            if ui.checkbox(&mut p, format!("prelude rows ({prelude})")).on_hover_text("show the environment and prelude statements (labels 0.…)").changed() {
                cmds.push(Cmd::TogglePrelude);
            }
        });
        if let Some(p) = &mut self.practice {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new("Practice").strong());
                ui.selectable_value(&mut p.quiz, Quiz::Steppable, "which statements are steppable?");
                ui.selectable_value(&mut p.quiz, Quiz::Dispatch, "which calls dispatch in the next round?");
                if ui.button("Check").on_hover_text(tip("check the prediction", &Cmd::CheckPractice)).clicked() {
                    cmds.push(Cmd::CheckPractice);
                }
            });
            if let Some(v) = &p.verdict {
                if v.correct() {
                    ui.colored_label(Color32::from_rgb(0x20, 0x90, 0x20), format!("Correct: {} right.", v.right.len()));
                } else {
                    for (l, why) in &v.wrong {
                        ui.colored_label(Color32::from_rgb(0xc0, 0x20, 0x20), format!("wrong: {l} is not steppable that way: {why}"));
                    }
                    for (l, why) in &v.missed {
                        ui.colored_label(Color32::from_rgb(0xc0, 0x60, 0x00), format!("missed {l}: {why}"));
                    }
                }
            }
        }
        let shown: Vec<&crate::session::Row> = rows.iter().filter(|r| self.show_prelude || !r.prelude).collect();
        let row_h = ui.text_style_height(&egui::TextStyle::Monospace).max(ui.spacing().interact_size.y) + 2.0;
        egui::ScrollArea::vertical().id_salt("term").auto_shrink([false, false]).show_rows(ui, row_h, shown.len(), |ui, range| {
            for r in &shown[range] {
                ui.horizontal(|ui| {
                    if let Some(p) = &mut self.practice {
                        let mut on = p.ticked.contains(&r.label);
                        if ui.checkbox(&mut on, format!("tick {}", r.label)).changed() {
                            if on {
                                p.ticked.insert(r.label.clone());
                            } else {
                                p.ticked.remove(&r.label);
                            }
                        }
                    } else {
                        let b = ui.add_enabled(r.steppable, egui::Button::new(format!("step {}", r.label)));
                        let b = b
                            .on_hover_text(format!("step {} ({})", r.label, r.status))
                            .on_disabled_hover_text(format!("{} cannot step: {}", r.label, r.status));
                        if b.clicked() {
                            cmds.push(Cmd::Step(r.label.clone()));
                        }
                    }
                    let sel = self.selected.as_deref() == Some(r.label.as_str());
                    // One line per row: a function's body is in the tooltip.
                    let first = r.text.lines().next().unwrap_or("");
                    let more = if r.text.contains('\n') { " …" } else { "" };
                    let text = RichText::new(format!("{}  {}{more}", r.label, crate::graph::short(first, 90))).monospace();
                    let resp = ui.selectable_label(sel, text).on_hover_text(format!("{}\n{}", r.text, r.status));
                    if resp.clicked() {
                        cmds.push(Cmd::Select(if sel { None } else { Some(r.label.clone()) }));
                    }
                    let status = match (r.kind, self.practice.is_some()) {
                        (_, true) => "?".to_string(),
                        (Kind::Steppable(rule), _) => rule.name().to_string(),
                        _ => r.status.clone(),
                    };
                    let color = if self.practice.is_some() { ui.visuals().weak_text_color() } else { kind_color(r.kind).gamma_multiply(1.0) };
                    let chip = RichText::new(crate::graph::short(&status, 70)).color(Color32::BLACK).background_color(color);
                    ui.label(chip).on_hover_text(&r.status);
                });
            }
        });
    }

    fn side_ui(&mut self, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
        let Some(s) = &self.session else { return };
        let pending = s.pending();
        let row_h = ui.spacing().interact_size.y + 2.0;
        let third = (ui.available_height() / 3.0).max(120.0);
        ui.heading(format!("Pending tasks ({})", pending.len()));
        if pending.is_empty() {
            ui.weak("No task waits for a result.");
        }
        // One line per task (a program may have thousands in flight); the selected one (or the
        // first) gets the resolution editor below.
        let chosen = pending.iter().find(|(l, _)| self.selected.as_ref() == Some(l)).or(pending.first()).map(|(l, c)| (l.clone(), c.clone()));
        egui::ScrollArea::vertical().id_salt("pending").max_height(third * 0.6).auto_shrink([false, true]).show_rows(ui, row_h, pending.len(), |ui, range| {
            for (label, call) in &pending[range] {
                ui.horizontal(|ui| {
                    let on = chosen.as_ref().is_some_and(|(l, _)| l == label);
                    if ui
                        .selectable_label(on, RichText::new(crate::graph::short(call, 40)).monospace())
                        .on_hover_text(format!("{call}\nclick to resolve it below"))
                        .clicked()
                    {
                        cmds.push(Cmd::Select(Some(label.clone())));
                    }
                    if s.has_world() && ui.small_button("world").on_hover_text(format!("resolve {label} as the world file answers")).clicked() {
                        cmds.push(Cmd::ResolveWorld(label.clone()));
                    }
                    if s.has_trace() && ui.small_button("trace").on_hover_text(format!("resolve {label} as the loaded trace recorded")).clicked() {
                        cmds.push(Cmd::ResolveTrace(label.clone()));
                    }
                    if self.live.is_some() && ui.small_button("live").on_hover_text(format!("call the real external for {label} (llm, processes)")).clicked() {
                        cmds.push(Cmd::ResolveLive(label.clone()));
                    }
                });
            }
        });
        if let Some((label, call)) = chosen {
            ui.group(|ui| {
                ui.label(RichText::new(format!("{label}  {}", crate::graph::short(&call, 60))).monospace());
                let choices = s.choices(&label);
                if !choices.is_empty() {
                    ui.horizontal_wrapped(|ui| {
                        ui.label("pick:");
                        for c in choices {
                            if ui.button(&c).on_hover_text(format!("resolve {label} with {c}")).clicked() {
                                cmds.push(Cmd::ResolveHand(label.clone(), c));
                            }
                        }
                    });
                }
                ui.horizontal(|ui| {
                    let name = ui.label("result:");
                    let text = self.hand.entry(label.clone()).or_default();
                    let edit = ui.add(egui::TextEdit::singleline(text).hint_text("an OPAL expression, e.g. \"yes\"").desired_width(150.0)).labelled_by(name.id);
                    let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                    if ui.button(format!("Resolve {label}")).on_hover_text("deliver the expression (checked first)").clicked() || enter {
                        cmds.push(Cmd::ResolveHand(label.clone(), text.clone()));
                    }
                });
            });
        }
        ui.separator();
        ui.heading("Output");
        egui::ScrollArea::vertical().id_salt("output").max_height(third * 0.7).auto_shrink([false, true]).stick_to_bottom(true).show(ui, |ui| {
            if s.output().is_empty() {
                ui.weak("Nothing printed yet.");
            } else {
                ui.label(RichText::new(s.output()).monospace());
            }
        });
        ui.separator();
        ui.heading("History");
        let history = s.history();
        let position = s.position();
        egui::ScrollArea::vertical().id_salt("history").auto_shrink([false, false]).show_rows(ui, row_h, history.len() + 1, |ui, range| {
            for i in range {
                let text = if i == 0 { RichText::new("0  initial term") } else { RichText::new(format!("{i}  {}", history[i - 1])) };
                let text = if i > position { text.weak() } else { text };
                if ui.selectable_label(position == i, text).on_hover_text("go to the state after this action").clicked() {
                    cmds.push(Cmd::Goto(i));
                }
            }
        });
    }

    fn dialogs_ui(&mut self, ctx: &egui::Context, cmds: &mut Vec<Cmd>) {
        if self.help {
            let mut open = true;
            egui::Window::new("Keyboard shortcuts").open(&mut open).collapsible(false).show(ctx, |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (sc, _, what) in shortcuts() {
                        ui.monospace(ctx.format_shortcut(&sc));
                        ui.label(what);
                        ui.end_row();
                    }
                });
                ui.label("Click 'step' on a row (or double-click a green node) to step that statement; hover any row or node for why it can or cannot step.");
            });
            self.help &= open;
        }
        if let Some(c) = &self.confluence {
            let mut open = true;
            let c = c.clone();
            egui::Window::new("Confluence").open(&mut open).default_width(720.0).show(ctx, |ui| {
                if c.truncated {
                    ui.colored_label(Color32::from_rgb(0xc0, 0x60, 0x00), "One run did not finish within the step limit; the terms are not final.");
                } else if c.identical() {
                    ui.colored_label(Color32::from_rgb(0x20, 0x90, 0x20), "Identical final terms and output: the step order did not matter.");
                } else {
                    ui.colored_label(Color32::from_rgb(0xc0, 0x20, 0x20), "The final terms differ.");
                }
                ui.columns(2, |cols| {
                    cols[0].label(RichText::new(format!("your order, then rounds ({} steps)", c.mine_steps)).strong());
                    cols[0].label(RichText::new(&c.mine).monospace());
                    cols[0].label(RichText::new(&c.mine_output).monospace());
                    cols[1].label(RichText::new(format!("{} ({} steps)", c.order, c.theirs_steps)).strong());
                    cols[1].label(RichText::new(&c.theirs).monospace());
                    cols[1].label(RichText::new(&c.theirs_output).monospace());
                });
            });
            if !open {
                self.confluence = None;
            }
        }
        if let Some(d) = &mut self.dialog {
            let mut open = true;
            let mut go = None;
            egui::Window::new(d.ask.title()).open(&mut open).collapsible(false).show(ctx, |ui| {
                ui.horizontal(|ui| {
                    let name = ui.label("path:");
                    let r = ui.add(egui::TextEdit::singleline(&mut d.path).desired_width(420.0)).labelled_by(name.id);
                    if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        go = Some(PathBuf::from(&d.path));
                    }
                });
                if matches!(d.ask, Ask::Open | Ask::LoadSession | Ask::LoadTrace) {
                    // A small file browser: the directory of the typed path, filtered by type.
                    let dir =
                        if d.path.ends_with('/') { PathBuf::from(&d.path) } else { PathBuf::from(&d.path).parent().map(Path::to_path_buf).unwrap_or_default() };
                    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
                    egui::ScrollArea::vertical().max_height(240.0).show(ui, |ui| {
                        if ui.button("..").clicked() {
                            d.path = format!("{}/", dir.join("..").display());
                        }
                        let mut entries: Vec<(bool, String)> = std::fs::read_dir(&dir)
                            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| (e.path().is_dir(), e.file_name().to_string_lossy().into_owned())).collect())
                            .unwrap_or_default();
                        entries.sort();
                        for (is_dir, name) in entries.iter().rev().filter(|(is_dir, n)| *is_dir || n.ends_with(".json") || n.ends_with(d.ask.suffix())).rev() {
                            if name.starts_with('.') {
                                continue;
                            }
                            let shown = if *is_dir { format!("{name}/") } else { name.clone() };
                            if ui.selectable_label(false, shown).clicked() {
                                let p = dir.join(name);
                                if *is_dir {
                                    d.path = format!("{}/", p.display());
                                } else {
                                    d.path = p.display().to_string();
                                }
                            }
                        }
                    });
                }
                if ui.button(d.ask.title()).clicked() {
                    go = Some(PathBuf::from(&d.path));
                }
            });
            if let Some(p) = go {
                cmds.push(d.ask.cmd(p));
                self.dialog = None;
            } else if !open {
                self.dialog = None;
            }
        }
    }
}

impl eframe::App for DebuggerApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

/// Diagnostics as `opal check` prints them (`file:line:col: error[code]: …`, the line, a caret).
fn rendered(diags: &[opal_core::diag::Diagnostic], file: &str, text: &str) -> String {
    let index = opal_core::span::LineIndex::new(text);
    diags.iter().map(|d| opal_core::diag::render(d, file, text, &index)).collect()
}

/// What the toolbar calls each strategy (what one "advance" of it does).
fn strategy_label(s: Strategy) -> &'static str {
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

/// Writes `text` to `path` through a temporary file and a rename, so a crash never leaves
/// half a file where the user's work was.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_file_name(format!(".{}.tmp-{}", path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("{}: cannot write: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot write: {e}", path.display())
    })
}

/// Opens the debugger window (`opal debug`). `file` None opens the first bundled example.
pub fn run_native(file: Option<&Path>, world: Option<&Path>, trace: Option<&Path>, live: Option<crate::live::LiveFactory>) -> Result<(), String> {
    let mut app = match file {
        Some(f) => DebuggerApp::from_file(f, world),
        None => DebuggerApp::from_example(0),
    };
    if app.session.is_none() {
        return Err(app.errors.unwrap_or_else(|| "cannot open the program".into()));
    }
    if let Some(t) = trace {
        app.run_cmd(Cmd::LoadTrace(t.to_path_buf()));
        if app.session.as_ref().is_some_and(|s| !s.has_trace()) {
            return Err(app.status);
        }
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title(format!("OPAL debugger — {}", app.name)).with_inner_size([1500.0, 950.0]),
        ..Default::default()
    };
    eframe::run_native(
        "opal-debugger",
        options,
        Box::new(move |cc| {
            if let Some(make) = live {
                match crate::live::LiveWorker::spawn(make, Some(cc.egui_ctx.clone())) {
                    Ok(w) => app.set_live(w),
                    Err(e) => app.status = e,
                }
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| format!("cannot open a window: {e}"))
}
