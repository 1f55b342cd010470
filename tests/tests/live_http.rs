//! Issue 33 through the real binary: `llm`'s per-call options (sent and recorded in the
//! trace), retries on 429 and 5xx with `Retry-After` honoured and counted in `--stats`,
//! `http_get`/`http_post` against the scripted server, and the file and environment externals
//! in their order (a read sees the write before it).

use opal_e2e::{opal, LlmServer};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `src` (written to a fresh directory, the working directory) against `server`.
fn run(
    name: &str,
    src: &str,
    server: &LlmServer,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Output, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("opal-http-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("p.opal"), src).expect("write the program");
    let mut c = Command::new(opal());
    c.args(["run", "p.opal"])
        .args(args)
        .current_dir(&dir)
        .env("OPAL_LLM_BASE_URL", &server.url)
        .env("OPAL_LLM_MODEL", "ok")
        .env("OPAL_LLM_API_KEY", "test-key")
        .env("OPAL_LLM_IDLE_TIMEOUT_MS", "5000")
        .env_remove("OPAL_LLM_RETRIES");
    for (k, v) in env {
        c.env(k, v);
    }
    (c.output().expect("run opal"), dir)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const STREAM: &str =
    "for chunk in llm (\"Say hello\", {\"model\": MODEL}):\n    print_raw chunk\nprint \"\"\n";

#[test]
fn a_refused_call_is_retried_and_each_retry_is_said_and_counted() {
    let server = LlmServer::start();
    let src = STREAM.replace("MODEL", "\"busy\"");
    let (o, _) = run("busy", &src, &server, &[], &["--stats"]);
    let err = text(&o.stderr);
    assert_eq!(
        (text(&o.stdout).as_str(), o.status.code()),
        ("Hello world\n", Some(0)),
        "{err}"
    );
    assert!(
        err.contains("opal: llm: HTTP 429 Too Many Requests; retry 1 of 3 in 0.0 s"),
        "{err}"
    );
    assert!(err.contains("retry 2 of 3"), "{err}");
    assert!(err.contains("http requests: 3 (2 retried)"), "{err}");
    assert_eq!(server.requests.lock().expect("requests").len(), 3);
}

#[test]
fn retry_after_is_honoured_and_retries_are_bounded() {
    let server = LlmServer::start();
    let started = Instant::now();
    let (o, _) = run(
        "busy1s",
        &STREAM.replace("MODEL", "\"busy-1s\""),
        &server,
        &[],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not waited for"
    );
    assert!(
        text(&o.stderr).contains("retry 1 of 3 in 1.0 s"),
        "{}",
        text(&o.stderr)
    );

    // Always 503: one retry allowed, then the call fails saying so.
    let (o, _) = run(
        "down",
        &STREAM.replace("MODEL", "\"down\""),
        &server,
        &[("OPAL_LLM_RETRIES", "1")],
        &[],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("HTTP 503 Service Unavailable from")
            && err.contains("Slow down (after 1 retry)"),
        "{err}"
    );
    assert_eq!(requests_for(&server, "down"), 2);
    // No retries asked for: one request.
    let (o, _) = run(
        "down0",
        &STREAM.replace("MODEL", "\"down\""),
        &server,
        &[("OPAL_LLM_RETRIES", "0")],
        &[],
    );
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(requests_for(&server, "down"), 3);
}

/// How many requests the server has had for `model`.
fn requests_for(server: &LlmServer, model: &str) -> usize {
    let tag = format!("\"model\":\"{model}\"");
    let requests = server.requests.lock().expect("requests");
    requests.iter().filter(|r| r.contains(&tag)).count()
}

#[test]
fn per_call_options_are_sent_and_recorded() {
    let server = LlmServer::start();
    let src = "for chunk in llm (\"Say hello\", {\"model\": \"ok\", \"temperature\": 0.2, \"max_tokens\": 5, \"stop\": [\"!\"], \"json\": true}):\n    print_raw chunk\nprint \"\"\n";
    let (o, dir) = run(
        "options",
        src,
        &server,
        &[("OPAL_LLM_MODEL", "")],
        &["--record", "t.json"],
    );
    assert_eq!(
        (text(&o.stdout).as_str(), o.status.code()),
        ("Hello world\n", Some(0)),
        "{}",
        text(&o.stderr)
    );
    let sent = server.requests.lock().expect("requests")[0].clone();
    for field in [
        r#""temperature":0.2"#,
        r#""max_tokens":5"#,
        r#""stop":["!"]"#,
        r#""response_format":{"type":"json_object"}"#,
        r#""model":"ok""#,
    ] {
        assert!(sent.contains(field), "{field} not in {sent}");
    }
    let trace = std::fs::read_to_string(dir.join("t.json")).expect("the trace");
    assert!(
        trace.contains("temperature") && trace.contains("max_tokens"),
        "{trace}"
    );
    // An unknown option is the call's failure, naming the known ones.
    let bad = "for c in llm (\"x\", {\"temprature\": 1}):\n    print c\n";
    let (o, _) = run("badoption", bad, &server, &[], &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("unknown option \"temprature\"; the options are model, temperature"),
        "{err}"
    );
}

#[test]
fn http_get_and_post_send_headers_and_json_and_fail_on_errors() {
    let server = LlmServer::start();
    let src = format!(
        "body := http_get (\"{u}/page\", {{\"Authorization\": \"Bearer t0k\"}})\n\
         print (contains (body, \"[DONE]\"))\n\
         posted := http_post (\"{u}/hook\", {{\"model\": \"finish\", \"n\": [1, 2]}})\n\
         print (contains (posted, \"Bye\"))\n",
        u = server.url
    );
    let (o, _) = run("http", &src, &server, &[], &[]);
    assert_eq!(
        (text(&o.stdout).as_str(), o.status.code()),
        ("true\ntrue\n", Some(0)),
        "{}",
        text(&o.stderr)
    );
    let reqs = server.requests.lock().expect("requests").clone();
    assert!(
        reqs[0].starts_with("GET /v1/page ")
            && reqs[0]
                .to_ascii_lowercase()
                .contains("authorization: bearer t0k"),
        "{}",
        reqs[0]
    );
    assert!(
        reqs[1].starts_with("POST /v1/hook ")
            && reqs[1]
                .to_ascii_lowercase()
                .contains("content-type: application/json")
            && reqs[1].ends_with(r#"{"model":"finish","n":[1,2]}"#),
        "{}",
        reqs[1]
    );
    // A POST is never retried; its error names the status and the server's words.
    let src = format!(
        "print (http_post (\"{}/x\", {{\"model\": \"down\"}}))\n",
        server.url
    );
    let (o, _) = run("post503", &src, &server, &[], &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("http_post: HTTP 503 Service Unavailable from") && err.contains("Slow down"),
        "{err}"
    );
    assert!(!err.contains("retry"), "{err}");
}

#[test]
fn files_and_the_environment_run_in_program_order() {
    let server = LlmServer::start();
    // The read comes after the writes in program order, so it sees both, under every strategy.
    let src = "write_file (\"notes.txt\", \"one\\n\")\n\
               append_file (\"notes.txt\", \"two\\n\")\n\
               print_raw (read_file \"notes.txt\")\n\
               print (list_dir \".\")\n\
               print (getenv \"OPAL_TEST_CITY\")\n\
               print (getenv (\"OPAL_TEST_UNSET\", \"none\"))\n\
               print (read_file \"missing.txt\")\n";
    for strategy in ["opportunistic", "cbv", "lazy"] {
        let (o, dir) = run(
            &format!("files-{strategy}"),
            src,
            &server,
            &[("OPAL_TEST_CITY", "Honolulu")],
            &["--strategy", strategy],
        );
        let err = text(&o.stderr);
        assert_eq!(
            text(&o.stdout),
            "one\ntwo\n[\"notes.txt\", \"p.opal\"]\nHonolulu\nnone\n",
            "{strategy}: {err}"
        );
        assert_eq!(o.status.code(), Some(3), "{strategy}: {err}");
        assert!(
            err.contains("read_file: cannot read the file `missing.txt`"),
            "{strategy}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt"))
                .ok()
                .as_deref(),
            Some("one\ntwo\n")
        );
    }
    // Recorded, they replay without touching the disk: the trace holds every result.
    let city = [("OPAL_TEST_CITY", "Honolulu")];
    let (o, dir) = run("files-record", src, &server, &city, &["--record", "t.json"]);
    std::fs::remove_file(dir.join("notes.txt")).expect("the run wrote notes.txt");
    let replayed = Command::new(opal())
        .args(["run", "p.opal", "--replay", "t.json"])
        .current_dir(&dir)
        .output()
        .expect("replay");
    assert_eq!(
        text(&replayed.stdout),
        text(&o.stdout),
        "{}",
        text(&replayed.stderr)
    );
    assert!(!dir.join("notes.txt").exists(), "a replay writes nothing");
}

/// `opal explore` has no world outside the program: a file read without a world-file
/// answer is a stuck call that says how to give it one.
#[test]
fn explore_asks_for_a_world_file_for_the_outside_world() {
    let server = LlmServer::start();
    let (_, dir) = run(
        "explore",
        "print (read_file \"a.txt\")\n",
        &server,
        &[],
        &[],
    );
    let o = Command::new(opal())
        .args(["explore", "p.opal"])
        .current_dir(&dir)
        .output()
        .expect("explore");
    let all = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        all.contains("`read_file` touches the world outside the program")
            && all.contains("add a `[read_file]` table"),
        "{all}"
    );
}
