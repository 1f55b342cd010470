//! `DebuggerApp::run_cmd`, the one place that carries out what the user asked for: one
//! handler per part of `Cmd`. Only the session's and the files' commands touch the session,
//! and they are refused while a job runs (it owns the session until it ends or Esc).

use super::{strategy_label, DebuggerApp, Origin, Practice, Said};
use crate::cmd::{
    Cmd, FileCmd, GraphCmd, GraphMode, Panel, RunCmd, SessionCmd, TeachCmd, WindowCmd,
};
use crate::layout::Layout;
use crate::panels::Dialog;
use crate::paths::PathsView;
use opal_core::files::write_file_safely;
use opal_core::machine::trace::Trace;
use opal_debugger::session::{Quiz, Session, Strategy};
use opal_debugger::JobSpec;
use std::collections::BTreeSet;

impl DebuggerApp {
    /// Does `cmd`; the status line says what happened or why not (an error also stops Run).
    pub fn run_cmd(&mut self, cmd: impl Into<Cmd>) {
        let said = match cmd.into() {
            Cmd::Session(c) => self.session_cmd(c),
            Cmd::File(c) => self.file_cmd(c),
            Cmd::Graph(c) => self.graph_cmd(c),
            Cmd::Window(c) => self.window_cmd(c),
            Cmd::Teach(c) => self.teach_cmd(c),
            Cmd::Run(c) => self.run_setting_cmd(c),
        };
        match said {
            None => {}
            Some(Ok(m)) => self.status = m,
            Some(Err(e)) => {
                self.status = e;
                self.running = false;
            }
        }
    }

    /// The window itself: theme, panels, tabs, help, the file dialog, Esc.
    fn window_cmd(&mut self, cmd: WindowCmd) -> Said {
        match cmd {
            WindowCmd::Help => self.panels.windows.help = !self.panels.windows.help,
            WindowCmd::Projector => self.settings.projector = !self.settings.projector,
            WindowCmd::Panel(p) => {
                let (term, dock) = (self.term_shown(), self.dock_shown());
                let s = &mut self.settings;
                match p {
                    Panel::Source => s.source = !s.source,
                    Panel::Term => s.term = Some(!term),
                    Panel::Dock => s.dock = Some(!dock),
                }
            }
            WindowCmd::Tab(t) => {
                self.settings.tab = t;
                self.settings.dock = Some(true);
            }
            WindowCmd::Ask(ask) => {
                self.panels.windows.dialog = Some(Dialog {
                    ask,
                    path: self.default_path(ask),
                })
            }
            WindowCmd::Cancel => return self.cancel(),
            WindowCmd::CloseConfluence => self.confluence = None,
        }
        None
    }

    /// Esc: closes help and the dialog, pauses Run, cancels what runs (the session's job, the
    /// tidy, the all-paths search); with nothing running, closes the teaching windows.
    fn cancel(&mut self) -> Said {
        self.panels.windows.help = false;
        self.panels.windows.dialog = None;
        self.running = false;
        let mut what = Vec::new();
        if let Some(m) = self.session.as_mut().and_then(|s| s.cancel()) {
            what.push(m);
        }
        if self.layout.cancel_tidy() {
            what.push("cancelled tidy".into());
        }
        if self
            .panels
            .windows
            .paths
            .as_mut()
            .is_some_and(|p| p.cancel())
        {
            what.push("cancelled the all-paths search".into());
        }
        if !what.is_empty() {
            self.changed();
            return Some(Ok(what.join("; ")));
        }
        // Nothing was running: Esc closes the teaching windows, as F1 says.
        let mut closed = Vec::new();
        if self.confluence.take().is_some() {
            closed.push("the confluence window");
        }
        if self.panels.windows.paths.take().is_some() {
            closed.push("the all-paths window");
        }
        if closed.is_empty() {
            return None;
        }
        Some(Ok(format!("closed {}", closed.join(" and "))))
    }

    /// Run and the typed settings it goes by.
    fn run_setting_cmd(&mut self, cmd: RunCmd) -> Said {
        match cmd {
            RunCmd::RunPause => {
                self.running = !self.running;
                return Some(Ok(if self.running {
                    format!(
                        "running: {} at {:.0} actions/s (P pauses)",
                        strategy_label(self.strategy()),
                        self.settings.speed
                    )
                } else {
                    "paused".into()
                }));
            }
            RunCmd::NextStrategy => {
                let all = Strategy::ALL;
                let i = all.iter().position(|s| *s == self.strategy()).unwrap_or(0);
                let next = all[(i + 1) % all.len()];
                self.settings.strategy = next;
                self.status = format!(
                    "strategy: {} (N steps it, Run and Run until use it)",
                    strategy_label(next)
                );
            }
            RunCmd::SetStrategy(s) => self.settings.strategy = s,
            RunCmd::SetUntil(u) => self.until = u,
            RunCmd::SetSpeed(v) => self.settings.speed = v,
            RunCmd::SetAutoResolve(on) => self.settings.auto_resolve = on,
            RunCmd::SetStepBudget(n) => {
                self.settings.step_budget = n;
                if let Some(s) = &mut self.session {
                    s.step_budget = n;
                }
            }
        }
        None
    }

    /// Practice mode and the all-paths window.
    fn teach_cmd(&mut self, cmd: TeachCmd) -> Said {
        let r = match cmd {
            TeachCmd::Practice => {
                self.practice = match self.practice {
                    Some(_) => None,
                    None => Some(Practice {
                        quiz: Quiz::Steppable,
                        ticked: BTreeSet::new(),
                        verdict: None,
                    }),
                };
                Ok(if self.practice.is_some() {
                    "practice: tick the statements you predict, then Check (Ctrl+Enter)"
                } else {
                    "practice mode off"
                }
                .into())
            }
            TeachCmd::CheckPractice => match (&mut self.practice, &self.session) {
                (Some(p), Some(s)) => {
                    let v = s.check(p.quiz, &p.ticked);
                    let msg = if v.correct() {
                        format!("correct: {} right", v.right.len())
                    } else {
                        format!(
                            "{} right, {} wrong, {} missed",
                            v.right.len(),
                            v.wrong.len(),
                            v.missed.len()
                        )
                    };
                    p.verdict = Some(v);
                    Ok(msg)
                }
                _ => Err("practice mode is off (Q turns it on)".into()),
            },
            TeachCmd::SetQuiz(q) => {
                if let Some(p) = &mut self.practice {
                    p.quiz = q;
                }
                return None;
            }
            TeachCmd::Tick(k, on) => {
                if let Some(p) = &mut self.practice {
                    if on {
                        p.ticked.insert(k);
                    } else {
                        p.ticked.remove(&k);
                    }
                }
                return None;
            }
            TeachCmd::AllPaths => {
                let s = self.session.as_ref()?;
                self.panels.windows.paths = Some(PathsView::start(s));
                Ok("searching every reduction path from the initial term… (Esc cancels)".into())
            }
        };
        Some(r)
    }

    /// What the graph shows and how (mode, groups, layout, zoom, selection).
    fn graph_cmd(&mut self, cmd: GraphCmd) -> Said {
        let view = &mut self.panels.graph.view;
        match cmd {
            GraphCmd::ShowPure(on) => {
                self.settings.show_pure = on;
                self.regroup();
            }
            GraphCmd::ToggleCoreNames => self.settings.core_names = !self.settings.core_names,
            GraphCmd::TogglePrelude => {
                self.settings.prelude = !self.settings.prelude;
                self.rebuild_graph();
                self.layout.update(&self.graph, self.now, true);
            }
            GraphCmd::GraphMode => return Some(Ok(self.switch_mode())),
            GraphCmd::ToggleGroup(k) => {
                if !self.open_groups.insert(k) {
                    self.open_groups.remove(&k);
                }
                self.regroup();
            }
            GraphCmd::Select(l) => self.selected = l,
            GraphCmd::Tidy => {
                self.layout.pane = view.pane_at_floor();
                self.layout.start_tidy(&self.graph);
                return Some(Ok("tidying the graph… (Esc cancels)".into()));
            }
            GraphCmd::FitView => {
                view.fit = true;
                view.fit_asked = true;
                // A layout grown step by step (a chain straight down) may not fit where a
                // tidy one does: tidy first, and fit again when it is done.
                let all = crate::layout::bounds(
                    (self.layout.placed.values()).map(|p| crate::layout::cell_pos(p.cell)),
                );
                if !view.fits_at_floor(all) && !self.layout.tidying() {
                    self.layout.pane = view.pane_at_floor();
                    self.layout.start_tidy(&self.graph);
                    view.fit_after_tidy = true;
                }
            }
            GraphCmd::Minimap => {
                view.minimap = !view.minimap;
                self.settings.minimap = view.minimap;
            }
            GraphCmd::ZoomIn => view.zoom_by(1.2),
            GraphCmd::ZoomOut => view.zoom_by(1.0 / 1.2),
            GraphCmd::Focus => {
                view.focus = !view.focus;
                return Some(Ok(if view.focus {
                    "graph focused on the selected node"
                } else {
                    "graph shows everything"
                }
                .into()));
            }
        }
        None
    }

    /// The graph rebuilt (its settings or open groups changed), new nodes placed and shown.
    fn regroup(&mut self) {
        self.rebuild_graph();
        let born = self.layout.update(&self.graph, self.now, true);
        let all = crate::layout::bounds(
            self.layout
                .placed
                .values()
                .map(|p| crate::layout::cell_pos(p.cell)),
        );
        self.panels.graph.view.reveal(&born, all);
    }

    /// The other graph than the one shown (a program without externals opens on statements),
    /// laid out afresh.
    fn switch_mode(&mut self) -> String {
        let shown = self.mode();
        self.mode_chosen = true;
        self.settings.mode = match shown {
            GraphMode::Calls => GraphMode::Statements,
            GraphMode::Statements => GraphMode::Calls,
        };
        self.open_groups.clear();
        self.rebuild_graph();
        self.layout = Layout::new(&self.graph);
        self.panels.graph.view.fit = true;
        match self.settings.mode {
            GraphMode::Calls => "graph: external calls (dispatched, streaming, queued)".into(),
            GraphMode::Statements => "graph: every statement, def-use edges".into(),
        }
    }

    /// The session's revision if it can take a command now; else the status says why not.
    fn idle(&mut self) -> Option<u64> {
        let Some(s) = self.session.as_ref() else {
            self.status = "no program is open: File > Open or File > Examples".into();
            return None;
        };
        if let Some(p) = s.busy() {
            self.status = format!(
                "{} is running ({} of {}); Esc cancels it",
                p.what, p.done, p.total
            );
            return None;
        }
        Some(s.revision())
    }

    /// Rounds until the graph shown changes: at most 1 000, and at most a quarter of a second
    /// of them, so a program whose rounds never show anything cannot hold the window.
    fn rounds_until_visible(&mut self) -> Result<String, String> {
        let start = std::time::Instant::now();
        let was = seen(&self.graph);
        for n in 0..1000 {
            let s = self.session.as_mut().ok_or("no program is open")?;
            if let Err(e) = s.round() {
                return if n == 0 {
                    Err(e)
                } else {
                    Ok(format!("{n} rounds, then: {e}"))
                };
            }
            self.rebuild_graph();
            if seen(&self.graph) != was {
                let s = if n == 0 { "" } else { "s" };
                return Ok(format!("{} round{s} until the graph changed", n + 1));
            }
            if start.elapsed() > std::time::Duration::from_millis(250) {
                return Ok(format!("{} rounds; the graph has not changed yet", n + 1));
            }
        }
        Ok("1000 rounds; the graph has not changed yet".into())
    }

    /// After a command on the session. Saving, exporting or a refused step change nothing:
    /// the graph and the practice ticks stay.
    fn after(&mut self, before: u64, r: Result<String, String>) -> Said {
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.revision() != before)
        {
            self.changed();
        }
        Some(r)
    }

    /// Steps, resolutions, travel in history and the jobs that step.
    fn session_cmd(&mut self, cmd: SessionCmd) -> Said {
        if let SessionCmd::ResolveLive(l) = &cmd {
            return Some(self.call_live(l));
        }
        let before = self.idle()?;
        // Acting on the reloaded program starts a history of its own.
        if acts(&cmd) {
            self.kept = None;
        }
        if cmd == SessionCmd::RoundVisible {
            let r = self.rounds_until_visible();
            return self.after(before, r);
        }
        let s = self.session.as_mut()?;
        let r = match cmd {
            SessionCmd::Round => s.round(),
            SessionCmd::Advance => s.advance(self.settings.strategy),
            SessionCmd::Cbv => s.step_cbv(),
            SessionCmd::Lazy => s.step_lazy(),
            SessionCmd::Step(st) if s.machine().stmt(st).is_alive() => s.step_stmt(st),
            SessionCmd::Step(_) => Err("that statement is gone".into()),
            SessionCmd::StepSelected => match self.selected.and_then(|k| s.find(k)) {
                Some(st) => s.step_stmt(st),
                None => Err("select a statement first (click its row or node)".into()),
            },
            SessionCmd::Back if s.position() == 0 => Err("at the start of history".into()),
            SessionCmd::Back => {
                let to = s.position() - 1;
                go(s, to, format!("back to step {to}"))
            }
            SessionCmd::Forward if s.position() >= s.actions().len() => {
                Err("at the end of history".into())
            }
            SessionCmd::Forward => {
                let to = s.position() + 1;
                go(s, to, format!("forward to step {to}"))
            }
            SessionCmd::Goto(i) => go(s, i, format!("at step {i}")),
            SessionCmd::Restart => {
                s.restart();
                Ok("restarted: the initial term".into())
            }
            SessionCmd::RunUntil => {
                let strategy = self.settings.strategy;
                s.start(JobSpec::RunUntil {
                    strategy,
                    until: self.until.clone(),
                    auto_resolve: self.settings.auto_resolve,
                })
            }
            SessionCmd::ResolveWorld(l) => s.resolve_from_world(&l),
            SessionCmd::ResolveTrace(l) => s.resolve_from_trace(&l),
            SessionCmd::ResolveHand(l, src) => {
                let r = s.resolve_with(&l, &src);
                // Shown under the field too: the status line is far from where one types.
                self.hand_error = r.as_ref().err().map(|e| (l.clone(), e.clone()));
                r
            }
            SessionCmd::ResolveAll => s
                .resolve_all()
                .map(|n| format!("resolved {n} pending tasks")),
            SessionCmd::Confluence(order) => {
                self.confluence = None;
                s.start(JobSpec::Confluence(order))
            }
            SessionCmd::Travel(actions) => {
                let n = actions.len();
                s.start(JobSpec::Replay(actions))
                    .map(|_| format!("travelling along a path of {n} actions…"))
            }
            // Handled above: they need the whole window, not only the session.
            SessionCmd::ResolveLive(_) | SessionCmd::RoundVisible => return None,
        };
        self.after(before, r)
    }

    /// Programs, session files, traces and exports; all but opening need the session idle.
    fn file_cmd(&mut self, cmd: FileCmd) -> Said {
        let p = match cmd {
            FileCmd::Open(p) => {
                self.open(&p, None, false);
                return None;
            }
            FileCmd::OpenExample(i) => {
                self.open_example(i, false);
                return None;
            }
            FileCmd::Reload => {
                self.reload();
                return None;
            }
            FileCmd::SaveSession(ref p)
            | FileCmd::LoadSession(ref p)
            | FileCmd::LoadTrace(ref p)
            | FileCmd::ExportDot(ref p)
            | FileCmd::ExportSvg(ref p)
            | FileCmd::ExportTimeline(ref p) => p.clone(),
        };
        let before = self.idle()?;
        let s = self.session.as_mut()?;
        let wrote = |r: Result<(), opal_core::files::WriteError>| {
            r.map_err(|e| e.to_string())
                .map(|_| format!("wrote {}", p.display()))
        };
        let r = match cmd {
            FileCmd::SaveSession(_) => {
                self.last_session = Some(p.clone());
                write_file_safely(&p, s.to_json().as_bytes())
                    .map_err(|e| e.to_string())
                    .map(|_| format!("saved the session to {}", p.display()))
            }
            FileCmd::LoadSession(_) => std::fs::read_to_string(&p)
                .inspect(|_| self.last_session = Some(p.clone()))
                .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                .and_then(|t| {
                    s.start(JobSpec::Load(t))
                        .map_err(|e| format!("{}: {e}", p.display()))
                }),
            FileCmd::LoadTrace(_) => std::fs::read_to_string(&p)
                .map_err(|e| format!("{}: cannot read: {e}", p.display()))
                .and_then(|t| Trace::parse(&t).map_err(|e| format!("{}: {e}", p.display())))
                .and_then(|t| {
                    s.set_trace(t).map(|_| {
                        format!(
                            "loaded the trace {}: pending tasks resolve from it",
                            p.display()
                        )
                    })
                }),
            FileCmd::ExportDot(_) => wrote(write_file_safely(
                &p,
                self.graph.to_dot(|n| label(s, n)).as_bytes(),
            )),
            FileCmd::ExportSvg(_) => wrote(write_file_safely(
                &p,
                self.layout.to_svg(&self.graph, |n| label(s, n)).as_bytes(),
            )),
            FileCmd::ExportTimeline(_) => wrote(write_file_safely(
                &p,
                opal_debugger::timeline::csv(s.calls()).as_bytes(),
            )),
            FileCmd::Open(_) | FileCmd::OpenExample(_) | FileCmd::Reload => return None,
        };
        self.after(before, r)
    }

    /// The program again, from where it came from, keeping the session's actions.
    fn reload(&mut self) {
        match &self.origin {
            Origin::File(p) => {
                let (p, world) = (p.clone(), self.world_file.clone());
                self.open(&p, world.as_deref(), true);
            }
            Origin::Example(i) => {
                let i = *i;
                self.open_example(i, true);
            }
            Origin::Text => {
                self.status = "nothing to reload: the program did not come from a file".into()
            }
        }
    }
}

/// Does the command act on the program (so a reload's kept actions are dropped)?
fn acts(cmd: &SessionCmd) -> bool {
    use SessionCmd::*;
    matches!(
        cmd,
        Round
            | RoundVisible
            | Advance
            | Cbv
            | Lazy
            | Step(_)
            | StepSelected
            | Restart
            | RunUntil
            | ResolveWorld(_)
            | ResolveTrace(_)
            | ResolveHand(..)
            | ResolveAll
    )
}

/// To position `to` in history: at once, or as a job when far from a checkpoint (a long
/// history thins them out).
fn go(s: &mut Session, to: usize, done: String) -> Result<String, String> {
    if s.replay_cost(to) > 64 {
        s.start(JobSpec::Goto(to))
    } else {
        s.goto(to).map(|_| done)
    }
}

/// A node's title as the exports write it.
fn label(s: &Session, n: &opal_debugger::graph::Node) -> String {
    crate::panels::node_text(s, n, false).title
}

/// What the graph shows of each node and edge: rounds that leave it equal changed nothing
/// the user can see.
fn seen(g: &opal_debugger::graph::Graph) -> impl PartialEq {
    let nodes: Vec<_> = g
        .nodes
        .iter()
        .map(|n| (n.key, n.kind, n.title.clone(), n.detail.clone(), n.members))
        .collect();
    (nodes, g.edges.clone())
}
