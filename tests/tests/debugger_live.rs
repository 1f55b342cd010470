//! The step debugger with real live externals (issue 5 with issue 7): a pending `llm` task is
//! called live against the scripted streaming server, its chunks arrive one by one as
//! deliveries the user steps with the resolve rule, and the session keeps them as actions, so
//! travelling back and forth replays them without calling the server again.

use opal_debugger_gui::app::{Cmd, DebuggerApp};
use opal_debugger_gui::live::LiveWorker;
use opal_e2e::LlmServer;
use std::time::{Duration, Instant};

fn worker(server: &LlmServer, model: &str) -> LiveWorker {
    let config = opal_live::LlmConfig {
        base_url: server.url.clone(),
        api_key: Some("test-key".into()),
        model: Some(model.into()),
        timeout: Duration::from_millis(2000),
    };
    LiveWorker::spawn(Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::new(config, false))), None).expect("worker")
}

/// Frames until `done` holds (the window polls live replies every frame), at most 10 s; with
/// `step`, a round after each frame, as a user pressing Space would.
fn frames_until(app: &mut DebuggerApp, step: bool, mut done: impl FnMut(&DebuggerApp) -> bool) {
    let ctx = eframe::egui::Context::default();
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out: {}", app.status);
        let mut out = ctx.run_ui(Default::default(), |ui| app.show(ui));
        out.textures_delta.clear();
        if step {
            app.run_cmd(Cmd::Round);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn session(app: &DebuggerApp) -> &opal_debugger::session::Session {
    app.session.as_ref().expect("session")
}

#[test]
fn a_live_llm_stream_resolves_chunk_by_chunk_and_replays_from_the_session() {
    let server = LlmServer::start();
    let src = std::fs::read_to_string(opal_e2e::root().join("tests/live/llm.opal")).expect("program");
    let mut app = DebuggerApp::from_source("llm.opal", &src, None);
    app.set_live(worker(&server, "ok"));
    while session(&app).pending().is_empty() {
        app.run_cmd(Cmd::Round);
    }
    let call = session(&app).pending()[0].1.clone();
    let label = session(&app).pending_labels()[0].clone();
    assert!(call.contains("llm"), "{call}");
    app.run_cmd(Cmd::ResolveLive(label.clone()));
    assert!(app.status.contains("called `llm` live"), "{}", app.status);
    // Step rounds whenever something arrived, until the program has printed the whole answer.
    frames_until(&mut app, true, |a| a.session.as_ref().is_some_and(|s| s.output() == "Hel\nlo\n world\n") && a.live_in_flight() == 0);
    assert_eq!(app.live_in_flight(), 0, "the stream's call is over");
    let s = session(&app);
    let live: Vec<&String> = s.history().iter().filter(|h| h.contains("by the live external")).collect();
    assert!(live.len() >= 2, "the stream arrived in deliveries: {:?}", s.history());
    assert_eq!(server.requests.lock().expect("requests").len(), 1);
    // Back to the start and forward again: the answer replays from the session, no new request.
    let end = s.position();
    let out = s.output().to_string();
    app.run_cmd(Cmd::Goto(0));
    app.run_cmd(Cmd::Goto(end));
    assert_eq!(session(&app).output(), out);
    assert_eq!(server.requests.lock().expect("requests").len(), 1);
}

#[test]
fn a_failing_live_call_fails_its_task_with_the_servers_message() {
    let server = LlmServer::start();
    let src = std::fs::read_to_string(opal_e2e::root().join("tests/live/llm.opal")).expect("program");
    let mut app = DebuggerApp::from_source("llm.opal", &src, None);
    app.set_live(worker(&server, "http401"));
    while session(&app).pending().is_empty() {
        app.run_cmd(Cmd::Round);
    }
    let label = session(&app).pending_labels()[0].clone();
    app.run_cmd(Cmd::ResolveLive(label.clone()));
    frames_until(&mut app, false, |a| a.live_in_flight() == 0);
    let s = session(&app);
    assert!(s.pending().is_empty());
    assert!(s.rows().iter().any(|r| r.status.contains("failed") && r.status.contains("401")), "{:?}", s.rows());
    // A task that is not a live external says so.
    let mut app = DebuggerApp::from_source("c.opal", "b := coin ()\nprint (&stdout, b)\n", None);
    app.set_live(worker(&server, "ok"));
    while session(&app).pending().is_empty() {
        app.run_cmd(Cmd::Round);
    }
    let label = session(&app).pending_labels()[0].clone();
    app.run_cmd(Cmd::ResolveLive(label));
    frames_until(&mut app, false, |a| a.live_in_flight() == 0);
    assert!(app.status.contains("not a live external"), "{}", app.status);
    assert_eq!(session(&app).pending().len(), 1, "the task stays pending for another way");
}
