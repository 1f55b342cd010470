//! Helpers shared by the end-to-end tests: where the repository and the real `opal` binary are.

use std::path::PathBuf;
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `opal` binary of this test's target directory and profile, rebuilt once per test
/// process so a test never runs a stale binary (this crate does not depend on `opal-cli`).
pub fn opal() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test exe");
            let dir = exe
                .parent()
                .and_then(|p| p.parent())
                .expect("target dir")
                .to_path_buf();
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut c = Command::new(cargo);
            c.args(["build", "-q", "-p", "opal-cli", "--bin", "opal"])
                .current_dir(root());
            if dir.ends_with("release") {
                c.arg("--release");
            }
            assert!(
                c.status().expect("cargo build").success(),
                "building opal failed"
            );
            dir.join(if cfg!(windows) { "opal.exe" } else { "opal" })
        })
        .clone()
}

/// Runs `opal` with `args` in the repository root and waits for it.
pub fn run(args: &[&str]) -> std::process::Output {
    Command::new(opal())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run opal")
}

/// What a run printed on stdout, lossily decoded.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The id of a running process whose command line (arguments separated by NUL) contains
/// `needle` (a zombie's is empty). Reads /proc directly, so the tests need no procps.
pub fn pid_of(needle: &str) -> Option<u32> {
    let dir = std::fs::read_dir("/proc").ok()?;
    dir.flatten().find_map(|e| {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let pid = e.file_name().to_str()?.parse().ok()?;
        String::from_utf8_lossy(&cmdline)
            .contains(needle)
            .then_some(pid)
    })
}

/// Starts `c`'s process with `signals` at their default action and unblocked, whatever this test
/// process inherited: CI may start the tests with SIGINT, SIGQUIT and SIGHUP ignored, an
/// ignored signal stays ignored across exec, and opal leaves a signal it was started with
/// ignored ignored. Every test that sends opal a signal starts it through this.
#[cfg(unix)]
pub fn default_signals<'a>(c: &'a mut Command, signals: &[i32]) -> &'a mut Command {
    use std::os::unix::process::CommandExt;
    let signals = signals.to_vec();
    // SAFETY: between fork and exec only signal(2), sigemptyset(3), sigaddset(3) and
    // sigprocmask(2) run, all async-signal-safe, on a vector allocated before the fork.
    unsafe {
        c.pre_exec(move || {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for &s in &signals {
                libc::signal(s, libc::SIG_DFL);
                libc::sigaddset(&mut set, s);
            }
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

/// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for the `llm` tests.
/// The request's `model` picks the script: `ok` streams "Hel", "lo", " world" 40 ms apart
/// then `[DONE]`; `finish` ends with `finish_reason` and no `[DONE]`; `http401` answers an
/// error body; `malformed` sends one chunk then broken JSON; `drop` closes the connection
/// after one chunk; `stall` sends one chunk and then nothing; `error-event` sends an error
/// object; `busy` is refused with 429 (`Retry-After: 0`) twice, then answers as `ok`;
/// `busy-1s` once with `Retry-After: 1`; `down` always answers 503. Every request is kept in
/// `requests`. One request per connection, each answer saying `connection: close` (without it
/// the client may send a retry on the connection this server has just closed: a flaky
/// "connection reset by peer").
pub struct LlmServer {
    pub url: String,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl LlmServer {
    pub fn start() -> LlmServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let log = log.clone();
                std::thread::spawn(move || serve_llm(conn, &log));
            }
        });
        LlmServer { url, requests }
    }
}

/// One connection of [`LlmServer`]: reads the request, keeps it in `log`, answers it by the
/// script its model names.
fn serve_llm(mut conn: std::net::TcpStream, log: &std::sync::Mutex<Vec<String>>) {
    use std::io::{BufRead, BufReader, Read};
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut head = String::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let body = String::from_utf8_lossy(&body).into_owned();
    let model = serde_json_model(&body);
    // How many requests for this model came before this one (scripts that answer differently
    // the first times: "busy").
    let before = {
        let mut log = log.lock().expect("log");
        let tag = format!("\"model\":\"{model}\"");
        let before = log.iter().filter(|r| r.contains(&tag)).count();
        log.push(format!("{head}{body}"));
        before
    };
    llm_script(&model, before, &mut conn);
}

/// Plays the script of `model` (see [`LlmServer`]) on `conn`.
fn llm_script(model: &str, before: usize, conn: &mut std::net::TcpStream) {
    use std::io::Write;
    let sse =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    let delta = |t: &str| {
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{t}\"}},\"finish_reason\":null}}]}}\n\n")
    };
    let pause = || std::thread::sleep(std::time::Duration::from_millis(40));
    let mut w = |s: &str| {
        let _ = conn.write_all(s.as_bytes());
        let _ = conn.flush();
    };
    let refuse = |status: &str, retry_after: &str| {
        let b = r#"{"error": {"message": "Slow down"}}"#;
        format!("HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n{retry_after}content-length: {}\r\n\r\n{b}", b.len())
    };
    match model {
        // Refused twice (429, come back at once), then the usual answer.
        "busy" if before < 2 => w(&refuse("429 Too Many Requests", "retry-after: 0\r\n")),
        // Refused once, asking for a second.
        "busy-1s" if before < 1 => w(&refuse("429 Too Many Requests", "retry-after: 1\r\n")),
        "down" => w(&refuse("503 Service Unavailable", "")),
        "http401" => {
            let b = r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#;
            w(&format!("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{b}", b.len()));
        }
        "malformed" => {
            w(sse);
            w(&delta("Hel"));
            w("data: {\"choices\": [\n\n");
        }
        "drop" => {
            w(sse);
            w(&delta("Hel"));
        }
        "stall" => {
            w(sse);
            w(&delta("Hel"));
            std::thread::sleep(std::time::Duration::from_secs(5));
        }
        "error-event" => {
            w(sse);
            w("data: {\"error\": {\"message\": \"Rate limit reached\"}}\n\n");
        }
        "finish" => {
            w(sse);
            w(&delta("Bye"));
            w("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
        }
        _ => {
            w(sse);
            for t in ["Hel", "lo", " world"] {
                pause();
                w(&delta(t));
            }
            w("data: [DONE]\n\n");
        }
    }
}

/// The `"model"` of a JSON request body (kept dependency-free: a string search suffices here).
fn serde_json_model(body: &str) -> String {
    let Some(i) = body.find("\"model\":") else {
        return String::new();
    };
    let rest = body[i + 8..].trim_start().trim_start_matches('"');
    rest.split('"').next().unwrap_or_default().to_string()
}
