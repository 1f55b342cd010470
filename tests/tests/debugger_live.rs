//! The step debugger with real live externals (issue 5 with issue 7): a pending `llm` task is
//! called live against the scripted streaming server, its chunks arrive one by one as
//! deliveries the user steps with the resolve rule, and the session keeps them as actions, so
//! travelling back and forth replays them without calling the server again.

use opal_debugger_gui::app::{DebuggerApp, SessionCmd};
use opal_debugger_gui::live::LiveWorker;
use opal_e2e::{pid_of, LlmServer};
use std::time::{Duration, Instant};

fn worker(server: &LlmServer, model: &str) -> LiveWorker {
    let config = opal_live::LlmConfig {
        base_url: server.url.clone(),
        api_key: Some("test-key".into()),
        model: Some(model.into()),
        timeout: Duration::from_millis(5000),
        idle: Duration::from_millis(2000),
        retries: 3,
    };
    LiveWorker::spawn(
        Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::new(config, false))),
        None,
    )
    .expect("worker")
}

/// Frames until `done` holds (the window polls live replies every frame), at most 10 s; with
/// `step`, a round after each frame, as a user pressing Space would.
fn frames_until(app: &mut DebuggerApp, step: bool, mut done: impl FnMut(&DebuggerApp) -> bool) {
    let ctx = eframe::egui::Context::default();
    let start = Instant::now();
    while !done(app) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {}",
            app.status
        );
        let mut out = ctx.run_ui(Default::default(), |ui| app.show(ui));
        out.textures_delta.clear();
        if step {
            app.run_cmd(SessionCmd::Round);
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
    let src =
        std::fs::read_to_string(opal_e2e::root().join("tests/live/llm.opal")).expect("program");
    let mut app = DebuggerApp::from_source("llm.opal", &src, None);
    app.set_live(worker(&server, "ok"));
    while session(&app).pending().is_empty() {
        app.run_cmd(SessionCmd::Round);
    }
    let call = session(&app).pending()[0].1.clone();
    let label = session(&app).pending_labels()[0].clone();
    assert!(call.contains("llm"), "{call}");
    app.run_cmd(SessionCmd::ResolveLive(label.clone()));
    assert!(app.status.contains("called `llm` live"), "{}", app.status);
    // Step rounds whenever something arrived, until the program has printed the whole answer.
    frames_until(&mut app, true, |a| {
        a.session
            .as_ref()
            .is_some_and(|s| s.output() == "Hel\nlo\n world\n")
            && a.live_in_flight() == 0
    });
    assert_eq!(app.live_in_flight(), 0, "the stream's call is over");
    let s = session(&app);
    let live: Vec<&String> = s
        .history()
        .iter()
        .filter(|h| h.contains("by the live external"))
        .collect();
    assert!(
        live.len() >= 2,
        "the stream arrived in deliveries: {:?}",
        s.history()
    );
    assert_eq!(server.requests.lock().expect("requests").len(), 1);
    // Back to the start and forward again: the answer replays from the session, no new request.
    let end = s.position();
    let out = s.output().to_string();
    app.run_cmd(SessionCmd::Goto(0));
    app.run_cmd(SessionCmd::Goto(end));
    assert_eq!(session(&app).output(), out);
    assert_eq!(server.requests.lock().expect("requests").len(), 1);
}

/// Issue 33: a refused call's retries are said in the window's status line as they happen.
#[test]
fn a_live_calls_retries_show_in_the_window() {
    let server = LlmServer::start();
    let src =
        std::fs::read_to_string(opal_e2e::root().join("tests/live/llm.opal")).expect("program");
    let mut app = DebuggerApp::from_source("llm.opal", &src, None);
    app.set_live(worker(&server, "busy"));
    while session(&app).pending().is_empty() {
        app.run_cmd(SessionCmd::Round);
    }
    let label = session(&app).pending_labels()[0].clone();
    app.run_cmd(SessionCmd::ResolveLive(label));
    frames_until(&mut app, false, |a| a.status.contains("HTTP 429"));
    assert!(
        app.status
            .contains("llm: HTTP 429 Too Many Requests; retry"),
        "{}",
        app.status
    );
    frames_until(&mut app, true, |a| {
        a.session
            .as_ref()
            .is_some_and(|s| s.output() == "Hel\nlo\n world\n")
            && a.live_in_flight() == 0
    });
    assert_eq!(server.requests.lock().expect("requests").len(), 3);
}

#[test]
fn a_failing_live_call_fails_its_task_with_the_servers_message() {
    let server = LlmServer::start();
    let src =
        std::fs::read_to_string(opal_e2e::root().join("tests/live/llm.opal")).expect("program");
    let mut app = DebuggerApp::from_source("llm.opal", &src, None);
    app.set_live(worker(&server, "http401"));
    while session(&app).pending().is_empty() {
        app.run_cmd(SessionCmd::Round);
    }
    let label = session(&app).pending_labels()[0].clone();
    app.run_cmd(SessionCmd::ResolveLive(label.clone()));
    frames_until(&mut app, false, |a| a.live_in_flight() == 0);
    let s = session(&app);
    assert!(s.pending().is_empty());
    assert!(
        s.rows()
            .iter()
            .any(|r| r.status.is_failed() && r.status.to_string().contains("401")),
        "{:?}",
        s.rows()
    );
    // A task that is not a live external says so.
    let mut app = DebuggerApp::from_source("c.opal", "b := coin ()\nprint (&stdout, b)\n", None);
    app.set_live(worker(&server, "ok"));
    while session(&app).pending().is_empty() {
        app.run_cmd(SessionCmd::Round);
    }
    let label = session(&app).pending_labels()[0].clone();
    app.run_cmd(SessionCmd::ResolveLive(label));
    frames_until(&mut app, false, |a| a.live_in_flight() == 0);
    assert!(app.status.contains("not a live external"), "{}", app.status);
    assert_eq!(
        session(&app).pending().len(),
        1,
        "the task stays pending for another way"
    );
}

/// The engine as the adapter drives it: rounds; when only pending tasks are left, each one that
/// is not being called yet is called live; replies are pumped in between. At most 10 s.
fn run_with_live_externals(
    s: &mut opal_debugger::session::Session,
    live: &mut opal_debugger::live::LiveCalls,
) -> Vec<String> {
    use opal_debugger::session::{Standing, Strategy};
    let mut messages = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        messages.extend(live.pump(s).messages);
        if s.advance(Strategy::Opportunistic).is_ok() {
            continue;
        }
        match s.standing() {
            Standing::Waiting(_) => {
                for label in s.pending_labels() {
                    if !live.calling(s, &label) {
                        match live.call(s, &label) {
                            Ok(m) | Err(m) => messages.push(m),
                        }
                    }
                }
                if live.in_flight() == 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => break,
        }
    }
    messages
}

fn process_worker(allow_exec: bool) -> opal_debugger::live::LiveWorker {
    let config = opal_live::LlmConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: None,
        model: None,
        timeout: Duration::from_millis(500),
        idle: Duration::from_millis(500),
        retries: 0,
    };
    opal_debugger::live::LiveWorker::spawn(
        Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::new(config, allow_exec))),
        None,
    )
    .expect("worker")
}

/// Issue 29: `tests/live/pipe.opal` under the debugger's engine with processes allowed prints
/// what `opal run --allow-exec` prints: the descriptors `create_process` returns resolve as the
/// same handles there (they were `proc1.stdin`, which the debugger could not read back). Not
/// allowed, the call stays pending and says how to allow it.
#[test]
fn the_pipe_program_prints_under_the_debugger_engine_what_opal_run_prints() {
    let path = opal_e2e::root().join("tests/live/pipe.opal");
    let src = std::fs::read_to_string(&path).expect("program");
    let run = std::process::Command::new(opal_e2e::opal())
        .arg("run")
        .arg(&path)
        .arg("--allow-exec")
        .output()
        .expect("opal run");
    let printed = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        (printed.as_str(), run.status.code()),
        ("HELLO\nWORLD\n", Some(0)),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let mut s = opal_debugger::session::Session::new(&src, None).expect("compiles");
    let mut live = opal_debugger::live::LiveCalls::new(process_worker(true));
    let messages = run_with_live_externals(&mut s, &mut live);
    assert_eq!(s.output(), printed, "{messages:#?}");
    assert!(
        matches!(s.standing(), opal_debugger::session::Standing::Finished),
        "{:?}",
        s.standing()
    );
    assert!(
        s.history()
            .iter()
            .any(|h| h.contains("by the live external")),
        "{:?}",
        s.history()
    );

    let mut s = opal_debugger::session::Session::new(&src, None).expect("compiles");
    let mut live = opal_debugger::live::LiveCalls::new(process_worker(false));
    let messages = run_with_live_externals(&mut s, &mut live);
    assert_eq!(s.output(), "");
    assert_eq!(s.pending().len(), 1, "create_process stays pending");
    assert!(
        messages.iter().any(
            |m| m.contains("`create_process` runs programs only when allowed")
                && m.contains("--allow-exec")
                && m.contains("allowExec")
        ),
        "{messages:#?}"
    );
}

/// Issue 29: a debugger that ends (its live calls dropped, as when the window closes) leaves
/// no child behind: the drop waits until the worker has killed and reaped them.
#[test]
fn dropping_the_debuggers_live_calls_kills_and_reaps_their_children() {
    let marker = format!(
        "{}.{}",
        500 + std::process::id() % 1000,
        std::process::id() % 83
    );
    let src = format!(
        "(i, o) := create_process (\"sleep\", \"{marker}\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n"
    );
    let mut s = opal_debugger::session::Session::new(&src, None).expect("compiles");
    let mut live = opal_debugger::live::LiveCalls::new(process_worker(true));
    let needle = format!("sleep\0{marker}");
    // Until the child runs and its output is being read (the read never ends by itself).
    let start = Instant::now();
    while !(pid_of(&needle).is_some()
        && live.in_flight() > 0
        && s.pending()
            .iter()
            .any(|(_, c)| c.contains("fd_read_and_close")))
    {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the child never started: {:?}",
            s.history()
        );
        live.pump(&mut s);
        if s.advance(opal_debugger::session::Strategy::Opportunistic)
            .is_err()
        {
            for label in s.pending_labels() {
                if !live.calling(&s, &label) {
                    let _ = live.call(&s, &label);
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let pid = pid_of(&needle).expect("the child runs");
    drop(live);
    // Not even a zombie: the child of this test process was reaped, not only killed.
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "a child outlived the debugger's live externals"
    );
}
