//! Live externals through the real binary (issue 7): `llm` against a scripted streaming server
//! on 127.0.0.1 (success, HTTP errors, malformed events, dropped and stalled connections),
//! record and replay of a live stream, and process pipelines behind `--allow-exec`.

use opal_e2e::{default_signals, opal, pid_of, root, LlmServer};
use std::process::{Command, Output};

fn llm_run(server: &LlmServer, model: &str, extra: &[&str]) -> Output {
    Command::new(opal())
        .args(["run", "tests/live/llm.opal"])
        .args(extra)
        .current_dir(root())
        .env("OPAL_LLM_BASE_URL", &server.url)
        .env("OPAL_LLM_MODEL", model)
        .env("OPAL_LLM_API_KEY", "test-key")
        .env("OPAL_LLM_IDLE_TIMEOUT_MS", "400")
        .output()
        .expect("run opal")
}

fn out(o: &Output) -> (String, String, Option<i32>) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

#[test]
fn llm_streams_each_delta_as_a_list_element() {
    let server = LlmServer::start();
    let (stdout, stderr, code) = out(&llm_run(&server, "ok", &[]));
    assert_eq!(
        (stdout.as_str(), code),
        ("Hel\nlo\n world\n", Some(0)),
        "{stderr}"
    );
    let reqs = server.requests.lock().expect("requests");
    assert_eq!(reqs.len(), 1);
    let r = reqs[0].to_ascii_lowercase();
    assert!(r.starts_with("post /v1/chat/completions "), "{r}");
    assert!(r.contains("authorization: bearer test-key"), "{r}");
    assert!(
        reqs[0].contains(r#""stream":true"#)
            && reqs[0].contains(r#""content":"Say hello""#)
            && reqs[0].contains(r#""role":"user""#),
        "{}",
        reqs[0]
    );
}

#[test]
fn llm_stream_ending_with_finish_reason_and_no_done_is_complete() {
    let server = LlmServer::start();
    let (stdout, stderr, code) = out(&llm_run(&server, "finish", &[]));
    assert_eq!((stdout.as_str(), code), ("Bye\n", Some(0)), "{stderr}");
}

#[test]
fn llm_failures_are_failed_tasks_with_clear_messages() {
    let server = LlmServer::start();
    // (model, what arrives before the failure, words the message must contain)
    let cases = [
        ("http401", "", "HTTP 401 Unauthorized"),
        ("http401", "", "Incorrect API key provided"),
        ("malformed", "Hel\n", "malformed event"),
        (
            "drop",
            "Hel\n",
            "closed before the stream finished, after 1 chunk",
        ),
        ("stall", "Hel\n", "nothing arrived for 400 ms while waiting for the next chunk after 1 chunk(s) (OPAL_LLM_IDLE_TIMEOUT_MS), the stream stalled"),
        ("error-event", "", "Rate limit reached"),
    ];
    for (model, printed, words) in cases {
        let (stdout, stderr, code) = out(&llm_run(&server, model, &[]));
        assert_eq!(code, Some(3), "{model}: {stderr}");
        assert_eq!(stdout, printed, "{model}");
        assert!(
            stderr.contains("the external call `llm` failed") && stderr.contains(words),
            "{model}: {stderr}"
        );
    }
    // Nothing listens: a connection error, not a hang.
    let closed = LlmServer {
        url: "http://127.0.0.1:9/v1".into(),
        requests: Default::default(),
    };
    let (_, stderr, code) = out(&llm_run(&closed, "ok", &[]));
    assert_eq!(code, Some(3));
    assert!(
        stderr.contains("cannot reach http://127.0.0.1:9/v1/chat/completions"),
        "{stderr}"
    );
}

#[test]
fn a_recorded_live_stream_replays_with_its_timing() {
    let server = LlmServer::start();
    let dir = std::env::temp_dir().join(format!("opal-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (t1, t2) = (dir.join("live.json"), dir.join("replayed.json"));
    let (stdout, stderr, code) = out(&llm_run(
        &server,
        "ok",
        &["--record", t1.to_str().expect("path")],
    ));
    assert_eq!(
        (stdout.as_str(), code),
        ("Hel\nlo\n world\n", Some(0)),
        "{stderr}"
    );
    // No server now: every chunk comes from the trace, at its recorded time.
    let nowhere = LlmServer {
        url: "http://127.0.0.1:9/v1".into(),
        requests: Default::default(),
    };
    let args = [
        "--replay",
        t1.to_str().expect("path"),
        "--timing",
        "--record",
        t2.to_str().expect("path"),
    ];
    let (stdout, stderr, code) = out(&llm_run(&nowhere, "ok", &args));
    assert_eq!(
        (stdout.as_str(), code),
        ("Hel\nlo\n world\n", Some(0)),
        "{stderr}"
    );
    let times = |p: &std::path::Path| -> Vec<f64> {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).expect("trace")).expect("json");
        v["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["external"] == "llm")
            .map(|e| e["resolved_at_ms"].as_f64().expect("time"))
            .collect()
    };
    // A stream is one run of events under its call's label, numbered by chunk.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&t1).expect("trace")).expect("json");
    let evs: Vec<&serde_json::Value> = v["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["external"] == "llm")
        .collect();
    assert!(evs.iter().all(|e| e["label"] == evs[0]["label"]), "{evs:?}");
    let chunks: Vec<u64> = evs
        .iter()
        .map(|e| e["chunk"].as_u64().expect("chunk"))
        .collect();
    assert_eq!(chunks, (0..evs.len() as u64).collect::<Vec<_>>());
    let (live, replayed) = (times(&t1), times(&t2));
    assert_eq!(live.len(), replayed.len());
    assert!(
        live.len() >= 2,
        "one event per delivery of the stream: {live:?}"
    );
    for (a, b) in live.iter().zip(&replayed) {
        // Replay waits at least until each recorded resolve time (a lower bound, not a speed test).
        assert!(*b >= a - 1.0, "live {live:?} replayed {replayed:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 28: `llm_chat` takes a list of (role, content) messages (a list the program builds
/// reaches the external as data), and sends them in the list's order.
#[test]
fn llm_chat_sends_a_list_of_messages() {
    let server = LlmServer::start();
    let dir = std::env::temp_dir().join(format!("opal-chat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("chat.opal");
    let src = "system := (\"system\", \"Be brief.\")\nfor chunk in llm_chat [system, (\"user\", \"Say hello\")]:\n    print (&stdout, chunk)\n";
    std::fs::write(&f, src).expect("write program");
    let o = Command::new(opal())
        .arg("run")
        .arg(&f)
        .env("OPAL_LLM_BASE_URL", &server.url)
        .env("OPAL_LLM_MODEL", "ok")
        .env("OPAL_LLM_API_KEY", "test-key")
        .output()
        .expect("run opal");
    let (stdout, stderr, code) = out(&o);
    assert_eq!(
        (stdout.as_str(), code),
        ("Hel\nlo\n world\n", Some(0)),
        "{stderr}"
    );
    let reqs = server.requests.lock().expect("requests");
    let body = reqs
        .first()
        .and_then(|r| r.split("\r\n\r\n").nth(1))
        .unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(body).expect("request body is JSON");
    let sent = serde_json::json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}]);
    assert_eq!(v["messages"], sent, "{body}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn pipe_run(src: &str, allow: bool) -> Output {
    let dir = std::env::temp_dir().join(format!("opal-pipe-{}-{}", std::process::id(), src.len()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("p.opal");
    std::fs::write(&f, src).expect("write program");
    let mut c = Command::new(opal());
    c.args(["run", f.to_str().expect("path")]);
    if allow {
        c.arg("--allow-exec");
    }
    c.output().expect("run opal")
}

#[test]
fn processes_need_allow_exec_and_run_without_a_shell() {
    let src = std::fs::read_to_string(root().join("tests/live/pipe.opal")).expect("pipe.opal");
    let (stdout, stderr, code) = out(&pipe_run(&src, false));
    assert_eq!((stdout.as_str(), code), ("", Some(3)));
    assert!(stderr.contains("pass --allow-exec"), "{stderr}");
    let (stdout, stderr, code) = out(&pipe_run(&src, true));
    assert_eq!(
        (stdout.as_str(), code),
        ("HELLO\nWORLD\n", Some(0)),
        "{stderr}"
    );
    // Arguments are passed as they are: `$HOME` and `;` reach the program untouched.
    let (stdout, _, code) = out(&pipe_run(
        "(i, o) := create_process (\"echo\", \"$HOME;\", \"a b\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n",
        true,
    ));
    assert_eq!((stdout.as_str(), code), ("$HOME; a b\n", Some(0)));
}

#[test]
fn process_failures_are_failed_tasks() {
    let (_, stderr, code) = out(&pipe_run(
        "(i, o) := create_process \"/nonexistent/program\"\nprint (&stdout, i)\n",
        true,
    ));
    assert_eq!(code, Some(3));
    assert!(
        stderr.contains("cannot start `/nonexistent/program`"),
        "{stderr}"
    );
    // Output that arrived is kept; a non-zero exit fails the rest of the stream.
    let src = "(i, o) := create_process (\"sh\", \"-c\", \"echo partial; exit 7\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n";
    let (stdout, stderr, code) = out(&pipe_run(src, true));
    assert_eq!((stdout.as_str(), code), ("partial\n", Some(3)), "{stderr}");
    assert!(stderr.contains("exited with exit status: 7"), "{stderr}");
}

/// Is a process running whose command line (arguments separated by NUL) contains `needle`?
fn running(needle: &str) -> bool {
    pid_of(needle).is_some()
}

#[test]
fn children_are_killed_and_reaped_when_the_run_ends() {
    // The program ends while `sleep` still runs; the run must not leave it behind.
    let marker = format!(
        "{}.{}",
        300 + std::process::id() % 1000,
        std::process::id() % 97
    );
    let src = format!(
        "(i, o) := create_process (\"sleep\", \"{marker}\")\nprint (&stdout, \"started\")\n"
    );
    let (stdout, stderr, code) = out(&pipe_run(&src, true));
    assert_eq!((stdout.as_str(), code), ("started\n", Some(0)), "{stderr}");
    assert!(
        !running(&format!("sleep\0{marker}")),
        "a child outlived the run"
    );
}

#[test]
fn ctrl_c_stops_the_children_too() {
    let marker = format!(
        "{}.{}",
        400 + std::process::id() % 1000,
        std::process::id() % 89
    );
    let dir = std::env::temp_dir().join(format!("opal-int-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("wait.opal");
    let src = format!(
        "(i, o) := create_process (\"sleep\", \"{marker}\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n"
    );
    std::fs::write(&f, src).expect("write");
    let mut c = Command::new(opal());
    c.args(["run", f.to_str().expect("path"), "--allow-exec"])
        .stderr(std::process::Stdio::piped());
    let child = default_signals(&mut c, &[libc::SIGINT])
        .spawn()
        .expect("spawn opal");
    let running = |m: &str| running(&format!("sleep\0{m}"));
    for _ in 0..200 {
        if running(&marker) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(running(&marker), "the child never started");
    // The shell's builtin `kill`: no procps needed.
    let _ = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status();
    let o = child.wait_with_output().expect("wait");
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!running(&marker), "the child outlived the interrupted run");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 28: a run with real processes records a trace that replays with the same output,
/// without `--allow-exec` and without starting a process: the descriptors `create_process`
/// returns are written in the trace as names that read back as the same handles.
#[test]
fn a_recorded_process_pipeline_replays_without_allow_exec() {
    let dir = std::env::temp_dir().join(format!("opal-pipe-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("pipe.opal");
    // Two children: `tr` upper-cases, `cat` gives its input back (written as a tuple).
    let src = "(i, o) := create_process (\"tr\", \"a-z\", \"A-Z\")\n() := fd_write_and_close (i, \"hello\\nworld\\n\")\n(ci, co) := create_process \"cat\"\n() := fd_write_and_close (ci, (\"one\\n\", \"two\\n\"))\nfor line in fd_read_and_close o:\n    print (&stdout, line)\nfor line in fd_read_and_close co:\n    print (&stdout, line)\n";
    std::fs::write(&f, src).expect("write program");
    let trace = dir.join("pipe.trace.json");
    let run = |extra: &[&str]| {
        Command::new(opal())
            .arg("run")
            .arg(&f)
            .args(extra)
            .output()
            .expect("run opal")
    };
    let expected = "HELLO\nWORLD\none\ntwo\n";
    let (stdout, stderr, code) = out(&run(&[
        "--allow-exec",
        "--record",
        trace.to_str().expect("path"),
    ]));
    assert_eq!((stdout.as_str(), code), (expected, Some(0)), "{stderr}");
    // No --allow-exec: every result comes from the trace (a live call would fail).
    let (stdout, stderr, code) = out(&run(&["--replay", trace.to_str().expect("path")]));
    assert_eq!((stdout.as_str(), code), (expected, Some(0)), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    // The descriptors are written as OPAL names that read back as the same handles.
    let text = std::fs::read_to_string(&trace).expect("trace");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut results: Vec<&str> = v["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["external"] == "create_process")
        .map(|e| e["result"].as_str().unwrap_or(""))
        .collect();
    results.sort();
    assert_eq!(
        results,
        ["(proc1_stdin, proc1_stdout)", "(proc2_stdin, proc2_stdout)"],
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29: writing to a child that already exited is a failed call naming the child; opal
/// ignores SIGPIPE (it used to die of it: exit status 141, nothing printed). 1 MiB is more
/// than a pipe holds, so the write meets the closed pipe whether or not the child has exited
/// when it starts.
#[test]
fn writing_to_a_child_that_exited_is_a_failed_call_naming_it() {
    let src = "(i, _o) := create_process (\"sh\", \"-c\", \"exit 0\")\ns := \"x\"\nn := 0\nwhile n < 20:\n    s := s + s\n    n := n + 1\nr := fd_write_and_close (i, s)\nprint (&stdout, r)\n";
    let o = pipe_run(src, true);
    let (stdout, stderr, code) = out(&o);
    assert_eq!(
        (stdout.as_str(), code),
        ("", Some(3)),
        "{stderr} ({:?})",
        o.status
    );
    assert!(
        stderr.contains("error[R0002]")
            && stderr.contains("`sh -c exit 0` stopped reading its input")
            && stderr.contains("broken pipe"),
        "{stderr}"
    );
}

/// Issue 29: SIGTERM and SIGHUP stop and reap the children as SIGINT does (a `sleep` was left
/// running under init), and opal exits with 128 + the signal's number.
#[test]
fn sigterm_and_sighup_stop_the_children_too() {
    let dir = std::env::temp_dir().join(format!("opal-term-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (signal, code, said) in [
        ("TERM", 143, "terminated (SIGTERM)"),
        ("HUP", 129, "hung up (SIGHUP)"),
    ] {
        let marker = format!(
            "{}.{}{}",
            30 + std::process::id() % 1000,
            std::process::id() % 79,
            code
        );
        let f = dir.join(format!("{signal}.opal"));
        // The shell forks `sleep` (a grandchild of opal): stopping the child stops it too.
        let src = format!(
            "(i, o) := create_process (\"sh\", \"-c\", \"sleep {marker}; echo done\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n"
        );
        std::fs::write(&f, src).expect("write");
        let mut c = Command::new(opal());
        c.args(["run", f.to_str().expect("path"), "--allow-exec"])
            .stderr(std::process::Stdio::piped());
        let child = default_signals(&mut c, &[libc::SIGTERM, libc::SIGHUP])
            .spawn()
            .expect("spawn opal");
        let needle = format!("sleep\0{marker}");
        let start = std::time::Instant::now();
        let pid = loop {
            match pid_of(&needle) {
                Some(pid) => break pid,
                None if start.elapsed() < std::time::Duration::from_secs(5) => {
                    std::thread::sleep(std::time::Duration::from_millis(25))
                }
                None => panic!("the child never started"),
            }
        };
        let _ = Command::new("sh")
            .args(["-c", &format!("kill -{signal} {}", child.id())])
            .status();
        // Opal's own exit first: a grandchild left running would hold the stderr pipe open.
        let mut child = child;
        let exited = std::time::Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st,
                _ if exited.elapsed() < std::time::Duration::from_secs(10) => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                _ => panic!("{signal}: opal did not exit"),
            }
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        let running = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|st| {
            st.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        });
        if running {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        let o = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(status.code(), Some(code), "{signal}: {stderr} ({status:?})");
        assert_eq!(
            stderr.trim(),
            format!("opal: {said}; child processes stopped"),
            "{signal}: the child's death is not reported as a failed call"
        );
        // Killed with its parent's group: not running (its parent, opal's child, was reaped by
        // opal; an orphaned grandchild's zombie is init's to reap).
        assert!(!running, "{signal}: the grandchild outlived opal");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29: when stdout's reader goes away (`opal run x | head`), opal stops its children and
/// ends quietly with 141 (SIGPIPE ignored, EPIPE handled); other commands end as quietly (no
/// panic message from a failed print).
#[test]
fn a_closed_stdout_ends_opal_quietly_and_stops_the_children() {
    use std::io::BufRead;
    let marker = format!(
        "{}.{}",
        600 + std::process::id() % 1000,
        std::process::id() % 71
    );
    let dir = std::env::temp_dir().join(format!("opal-head-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join("many.opal");
    let src = format!("(_i, _o) := create_process (\"sleep\", \"{marker}\")\nn := 0\nwhile n < 1000000:\n    print (&stdout, n)\n    n := n + 1\n");
    std::fs::write(&f, src).expect("write");
    let mut child = Command::new(opal())
        .args(["run", f.to_str().expect("path"), "--allow-exec"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn opal");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    assert_eq!(first, "0\n");
    // The reader is dropped here: head has read enough.
    let o = child.wait_with_output().expect("wait");
    assert_eq!(
        o.status.code(),
        Some(141),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(
        pid_of(&format!("sleep\0{marker}")).is_none(),
        "the child outlived opal"
    );
    // Another command whose output is cut short: no "failed printing to stdout" panic.
    let mut child = Command::new(opal())
        .args(["step", "examples/city_excursions.opal"])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(
        (o.status.code(), String::from_utf8_lossy(&o.stderr).as_ref()),
        (Some(141), "")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29: one line read from a child is at most 16 MiB; a longer one fails the list with a
/// message naming the child instead of growing until memory runs out.
#[test]
fn a_line_over_the_limit_fails_the_list_naming_the_child() {
    let src = "(i, o) := create_process (\"head\", \"-c\", \"17000000\", \"/dev/zero\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, \"a line\")\n";
    let (stdout, stderr, code) = out(&pipe_run(src, true));
    assert_eq!((stdout.as_str(), code), ("", Some(3)), "{stderr}");
    assert!(
        stderr.contains("`head -c 17000000 /dev/zero` wrote a line longer than 16 MiB"),
        "{stderr}"
    );
    // Up to the limit a line is read whole.
    let src = "(i, o) := create_process (\"head\", \"-c\", \"16777216\", \"/dev/zero\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, \"a line\")\n";
    let (stdout, stderr, code) = out(&pipe_run(src, true));
    assert_eq!((stdout.as_str(), code), ("a line\n", Some(0)), "{stderr}");
}

/// A run whose one child is `sh -c script` and whose output is printed line by line, started
/// with `dfl` at their default action and `ign` ignored (whatever the test inherited).
fn start_script(name: &str, script: &str, dfl: &[i32], ign: &'static [i32]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let dir = std::env::temp_dir().join(format!("opal-sig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join(format!("{name}.opal"));
    let src = format!(
        "(i, o) := create_process (\"sh\", \"-c\", \"{script}\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n"
    );
    std::fs::write(&f, src).expect("write");
    let mut c = Command::new(opal());
    c.args(["run", f.to_str().expect("path"), "--allow-exec"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    default_signals(&mut c, dfl);
    // SAFETY: only signal(2), async-signal-safe, between fork and exec.
    unsafe {
        c.pre_exec(move || {
            for &s in ign {
                libc::signal(s, libc::SIG_IGN);
            }
            Ok(())
        });
    }
    c.spawn().expect("spawn opal")
}

/// The id of the running process whose arguments are exactly `sleep marker`, once it runs.
fn sleeping(marker: &str) -> u32 {
    let start = std::time::Instant::now();
    loop {
        match pid_of(&format!("sleep\0{marker}\0")) {
            Some(pid) => return pid,
            None if start.elapsed() < std::time::Duration::from_secs(20) => {
                std::thread::sleep(std::time::Duration::from_millis(25))
            }
            None => panic!("`sleep {marker}` never started"),
        }
    }
}

/// Is `pid` gone (or a zombie)? Waits up to 10 s for it; kills it if it still runs then, so a
/// failing test leaves nothing behind.
fn gone(pid: u32) -> bool {
    let dead = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |st| {
            st.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
    };
    let start = std::time::Instant::now();
    while !dead() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let d = dead();
    if !d {
        // SAFETY: kill(2) of a leftover `sleep` this test started.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    d
}

/// Opal's exit status, once it exits (killed after 20 s). Its pipes are read later (`output`),
/// after `gone` has killed what was left running: a descendant would hold stderr open.
fn ended(child: &mut std::process::Child) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return st,
            _ if start.elapsed() < std::time::Duration::from_secs(20) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                return child.wait().expect("wait");
            }
        }
    }
}

/// Opal's stdout and stderr, once it exited.
fn output(child: std::process::Child) -> (String, String) {
    let o = child.wait_with_output().expect("wait");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Issue 29: every catchable signal whose default action ends a process ends opal as SIGTERM
/// does: the child, what it started and the orphan it left behind in a session of its own
/// (`setsid`, handed to opal as the subreaper) are stopped, and opal exits with 128 + the
/// signal's number (SIGQUIT without a core dump). They used to end opal at once (SIGQUIT with a
/// core), leaving the children running.
#[test]
fn every_ending_signal_stops_the_children_and_their_orphans() {
    let mut signals = vec![
        (libc::SIGQUIT, "SIGQUIT".to_string()),
        (libc::SIGUSR1, "SIGUSR1".into()),
        (libc::SIGUSR2, "SIGUSR2".into()),
        (libc::SIGALRM, "SIGALRM".into()),
        (libc::SIGABRT, "SIGABRT".into()),
        (libc::SIGXCPU, "SIGXCPU".into()),
        (libc::SIGXFSZ, "SIGXFSZ".into()),
        (libc::SIGVTALRM, "SIGVTALRM".into()),
        (libc::SIGPROF, "SIGPROF".into()),
        (libc::SIGIO, "SIGIO".into()),
        (libc::SIGPWR, "SIGPWR".into()),
        (libc::SIGSTKFLT, "SIGSTKFLT".into()),
    ];
    for k in [0, 5, libc::SIGRTMAX() - 1 - libc::SIGRTMIN()] {
        signals.push((libc::SIGRTMIN() + k, format!("SIGRTMIN+{k}")));
    }
    let base = 700 + std::process::id() % 1000;
    for (sig, name) in signals {
        let (orphan_m, child_m) = (format!("{base}.{sig:02}1"), format!("{base}.{sig:02}2"));
        let script = format!(
            "(setsid sleep {orphan_m} >/dev/null 2>&1 </dev/null &); sleep {child_m}; echo done"
        );
        let mut child = start_script(&name, &script, &[sig], &[]);
        let (orphan, grandchild) = (sleeping(&orphan_m), sleeping(&child_m));
        // SAFETY: kill(2) of the opal this test started.
        unsafe {
            libc::kill(child.id() as libc::pid_t, sig);
        }
        let status = ended(&mut child);
        let (orphan_gone, grandchild_gone) = (gone(orphan), gone(grandchild));
        let (_, stderr) = output(child);
        assert_eq!(
            status.code(),
            Some(128 + sig),
            "{name}: {stderr} ({status:?})"
        );
        assert_eq!(
            stderr.trim(),
            format!("opal: ended by {name}; child processes stopped"),
            "{name}"
        );
        assert!(
            grandchild_gone,
            "{name}: what the child started outlived opal"
        );
        assert!(
            orphan_gone,
            "{name}: the child's orphan (setsid) outlived opal"
        );
    }
}

/// Issue 29: the orphan a child leaves behind in a session of its own is handed to opal (the
/// subreaper) and stopped when the run ends; it used to run on under init.
#[test]
fn an_orphan_in_its_own_session_is_stopped_when_the_run_ends() {
    let marker = format!(
        "{}.{}",
        800 + std::process::id() % 1000,
        std::process::id() % 67
    );
    let script = format!("(setsid sleep {marker} >/dev/null 2>&1 </dev/null & echo $!)");
    let mut child = start_script("orphan", &script, &[], &[]);
    let status = ended(&mut child);
    let (stdout, stderr) = output(child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    // The shell printed the orphan's id before the run ended.
    let pid: u32 = stdout.trim().parse().expect("the orphan's id");
    assert!(gone(pid), "the orphan `sleep {marker}` outlived the run");
}

/// Issue 29: a signal opal was started with ignored (`nohup`, SIGINT and SIGQUIT in a
/// background job of a non-interactive shell) stays ignored: SIGHUP does not end this run, and
/// SIGTERM, at its default, still does. Opal used to install its handler over it.
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    let marker = format!(
        "{}.{}",
        900 + std::process::id() % 1000,
        std::process::id() % 61
    );
    let child = start_script(
        "nohup",
        &format!("sleep {marker}; echo done"),
        &[libc::SIGTERM],
        &[libc::SIGHUP],
    );
    let sleep = sleeping(&marker);
    // The child runs, so opal's handlers are installed: SIGHUP must still be ignored.
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).expect("status");
    let mask = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    let hup = 1u64 << (libc::SIGHUP - 1);
    assert_eq!(
        (mask("SigIgn:") & hup, mask("SigCgt:") & hup),
        (hup, 0),
        "{status}"
    );
    // SAFETY: kill(2) of the opal this test started.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGHUP);
    }
    let mut child = child;
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(matches!(child.try_wait(), Ok(None)), "SIGHUP ended opal");
    // SAFETY: as above.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = ended(&mut child);
    let sleep_gone = gone(sleep);
    let (_, stderr) = output(child);
    assert_eq!(status.code(), Some(143), "{stderr} ({status:?})");
    assert!(sleep_gone, "the child outlived opal");
}
