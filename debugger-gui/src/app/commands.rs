//! `DebuggerApp::run_cmd`, the one place that carries out what the user asked for, by concern:
//! the window's own commands, the graph's, and the session's (the only ones that change the
//! term, and refused while a job owns the session).

use super::{strategy_label, DebuggerApp, Dialog, Origin, Practice, Said};
use crate::cmd::{Cmd, GraphMode, Panel};
use crate::layout::Layout;
use crate::paths::PathsView;
use opal_core::files::write_file_safely;
use opal_core::machine::trace::Trace;
use opal_debugger::session::{Quiz, Strategy};
use opal_debugger::JobSpec;
use std::collections::BTreeSet;

impl DebuggerApp {
    /// Does `cmd`; the status line says what happened or why not.
    pub fn run_cmd(&mut self, cmd: Cmd) {
        let said = match self.window_cmd(cmd).or_else(|cmd| self.graph_cmd(cmd)) {
            Ok(said) => said,
            Err(cmd) => self.session_cmd(cmd),
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

    /// The window's own commands (panels, dialogs, files, Run, the teaching windows);
    /// `Err(cmd)` hands back a command that is not one of them.
    fn window_cmd(&mut self, cmd: Cmd) -> Result<Said, Cmd> {
        let r = match cmd {
            Cmd::Help => {
                self.help = !self.help;
                return Ok(None);
            }
            Cmd::Projector => {
                self.settings.projector = !self.settings.projector;
                return Ok(None);
            }
            Cmd::NextStrategy => {
                let all = Strategy::ALL;
                let i = all.iter().position(|s| *s == self.strategy()).unwrap_or(0);
                let next = all[(i + 1) % all.len()];
                self.settings.strategy = next;
                self.status = format!("strategy: {} (N steps it, Run and Run until use it)", strategy_label(next));
                return Ok(None);
            }
            Cmd::SetStrategy(s) => {
                self.settings.strategy = s;
                return Ok(None);
            }
            Cmd::Panel(p) => {
                let (term, dock) = (self.term_shown(), self.dock_shown());
                let s = &mut self.settings;
                match p {
                    Panel::Source => s.source = !s.source,
                    Panel::Term => s.term = Some(!term),
                    Panel::Dock => s.dock = Some(!dock),
                }
                return Ok(None);
            }
            Cmd::Tab(t) => {
                self.settings.tab = t;
                self.settings.dock = Some(true);
                return Ok(None);
            }
            Cmd::Ask(ask) => {
                self.dialog = Some(Dialog { ask, path: self.default_path(ask) });
                return Ok(None);
            }
            Cmd::Open(p) => {
                self.open(&p, None, false);
                return Ok(None);
            }
            Cmd::OpenExample(i) => {
                self.open_example(i, false);
                return Ok(None);
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
                return Ok(None);
            }
            Cmd::ResolveLive(l) => self.call_live(&l),
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
                        return Ok(None);
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
                    None => return Ok(None),
                }
                Ok("searching every reduction path from the initial term… (Esc cancels)".into())
            }
            cmd => return Err(cmd),
        };
        Ok(Some(r))
    }

    /// What the graph shows and how (mode, groups, layout, zoom, selection).
    fn graph_cmd(&mut self, cmd: Cmd) -> Result<Said, Cmd> {
        let r = match cmd {
            Cmd::RefreshGraph => {
                self.rebuild_graph();
                let born = self.layout.update(&self.graph, self.now, true);
                let all = crate::layout::bounds(self.layout.placed.values().map(|p| crate::layout::cell_pos(p.cell)));
                self.view.reveal(&born, all);
                return Ok(None);
            }
            Cmd::TogglePrelude => {
                self.settings.prelude = !self.settings.prelude;
                self.rebuild_graph();
                self.layout.update(&self.graph, self.now, true);
                return Ok(None);
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
                return Ok(None);
            }
            Cmd::Select(l) => {
                self.selected = l;
                return Ok(None);
            }
            Cmd::Tidy => {
                self.layout.start_tidy(&self.graph);
                Ok("tidying the graph… (Esc cancels)".into())
            }
            Cmd::FitView => {
                self.view.fit = true;
                self.view.fit_asked = true;
                return Ok(None);
            }
            Cmd::Minimap => {
                self.view.minimap = !self.view.minimap;
                self.settings.minimap = self.view.minimap;
                return Ok(None);
            }
            Cmd::ZoomIn | Cmd::ZoomOut => {
                self.view.zoom_by(if cmd == Cmd::ZoomIn { 1.2 } else { 1.0 / 1.2 });
                return Ok(None);
            }
            Cmd::Focus => {
                self.view.focus = !self.view.focus;
                Ok(if self.view.focus { "graph focused on the selected node" } else { "graph shows everything" }.into())
            }
            cmd => return Err(cmd),
        };
        Ok(Some(r))
    }

    /// Commands on the session: steps, resolutions, travel in history, jobs, session files and
    /// exports. Refused while a job runs (it owns the session until it ends or Esc).
    fn session_cmd(&mut self, cmd: Cmd) -> Said {
        let Some(s) = self.session.as_mut() else {
            self.status = "no program is open: File > Open or File > Examples".into();
            return None;
        };
        if let Some(p) = s.busy() {
            self.status = format!("{} is running ({} of {}); Esc cancels it", p.what, p.done, p.total);
            return None;
        }
        let before = s.revision();
        // Acting on the reloaded program starts a history of its own.
        let acts = matches!(
            cmd,
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
        let r = match cmd {
            Cmd::Round => s.round(),
            Cmd::Advance => s.advance(self.settings.strategy),
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
                let back = cmd == Cmd::Back;
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
                let strategy = self.settings.strategy;
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
            Cmd::ExportTimeline(p) => {
                write_file_safely(&p, opal_debugger::timeline::csv(s.calls()).as_bytes()).map_err(|e| e.to_string()).map(|_| format!("wrote {}", p.display()))
            }
            _ => return None,
        };
        // Saving, exporting or a refused step change nothing: the graph and the
        // practice ticks stay.
        if self.session.as_ref().is_some_and(|s| s.revision() != before) {
            self.changed();
        }
        Some(r)
    }
}
