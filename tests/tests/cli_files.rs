//! End-to-end tests of the files the `opal` command line reads and writes (issue 29): written
//! through links and never onto FIFOs, devices or directories; read only when regular; world
//! files and traces nested past every limit refused cleanly.

use opal_e2e::{opal, root, run, stdout};
use std::path::Path;
use std::process::{Command, Output};

// ---- writing files (issue 29): every file opal writes goes through opal_core::files --------

/// A private, empty directory for one test.
fn private_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("opal-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The names in `dir`, sorted (a temporary file left behind shows up here).
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs opal and kills it after 60 s: a writer that opened a FIFO would wait for ever.
fn run_within_a_minute(args: &[&str]) -> Output {
    let mut child = Command::new(opal())
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn opal");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("opal {args:?} did not finish within a minute (did it open a FIFO?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[cfg(unix)]
#[test]
fn record_writes_through_a_symlink_and_refuses_fifos_devices_directories_and_empty_names() {
    let dir = private_dir("record-kinds");
    record_through_a_symlink(&dir);
    record_refuses_a_fifo(&dir);
    record_refuses_a_directory_or_a_missing_one(&dir);
    let made = record_onto_a_device(&dir);
    assert_eq!(
        names_in(&dir),
        if made {
            vec!["d", "fifo", "full", "link.json", "real.json"]
        } else {
            vec!["d", "fifo", "link.json", "real.json"]
        }
    );
    record_refuses_an_empty_name(&root().join("examples/sum.opal"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
/// `dir/n` as an argument.
fn at(dir: &Path, n: &str) -> String {
    dir.join(n).to_string_lossy().into_owned()
}

#[cfg(unix)]
fn record_through_a_symlink(dir: &Path) {
    // A symlink: the target gets the trace, the link stays a link.
    std::os::unix::fs::symlink("real.json", dir.join("link.json")).expect("symlink");
    let o = run(&[
        "run",
        "examples/sum.opal",
        "--record",
        &at(dir, "link.json"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        std::fs::symlink_metadata(dir.join("link.json"))
            .expect("link")
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("real.json")).expect("target written"),
    )
    .expect("JSON");
    assert_eq!(v["version"], 1);
}

#[cfg(unix)]
fn record_refuses_a_fifo(dir: &Path) {
    use std::os::unix::fs::FileTypeExt;
    // A FIFO: refused before the run (nothing printed), never opened, still a FIFO.
    assert!(Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status()
        .expect("mkfifo")
        .success());
    let o = run_within_a_minute(&["run", "examples/sum.opal", "--record", &at(dir, "fifo")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(1), ""),
        "{err}"
    );
    assert!(
        err.contains("it is a FIFO (named pipe); give the path of a regular file")
            && err.contains("nothing was run"),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("fifo"))
            .expect("fifo")
            .file_type()
            .is_fifo(),
        "the FIFO was replaced"
    );
}

#[cfg(unix)]
fn record_refuses_a_directory_or_a_missing_one(dir: &Path) {
    // A directory: refused before the run.
    std::fs::create_dir(dir.join("d")).expect("mkdir");
    let o = run(&["run", "examples/sum.opal", "--record", &at(dir, "d")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(1), ""),
        "{err}"
    );
    assert!(err.contains("it is a directory"), "{err}");
    // A missing directory: refused before the run, and it says which.
    let o = run(&[
        "run",
        "examples/sum.opal",
        "--record",
        &at(dir, "no/t.json"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(1), ""),
        "{err}"
    );
    assert!(err.contains("does not exist; create it first"), "{err}");
}

#[cfg(unix)]
/// Whether the device could be made (the test then expects it in `dir`).
fn record_onto_a_device(dir: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    // A device node like /dev/full (made here; only root may): written in place, so the full
    // device fails with the reason and stays a device. Never the system's own /dev/full: the
    // old behaviour replaced it with a regular file.
    let made = Command::new("mknod")
        .arg(dir.join("full"))
        .args(["c", "1", "7"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let o = run_within_a_minute(&["run", "examples/sum.opal", "--record", &at(dir, "full")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("No space left on device"), "{err}");
        assert!(
            std::fs::symlink_metadata(dir.join("full"))
                .expect("device")
                .file_type()
                .is_char_device(),
            "the device was replaced"
        );
    } else {
        eprintln!("skipped the device node: mknod needs root");
    }
    made
}

#[cfg(unix)]
fn record_refuses_an_empty_name(sum: &Path) {
    // An empty name is a usage error before anything runs, and leaves nothing behind.
    let empty = private_dir("record-empty");
    let o = Command::new(opal())
        .args(["run", &sum.to_string_lossy(), "--record", ""])
        .current_dir(&empty)
        .output()
        .expect("run opal");
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(2), ""),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(names_in(&empty), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&empty);
}

#[cfg(unix)]
#[test]
fn fmt_formats_a_symlinks_target_keeps_the_link_and_fails_cleanly() {
    let dir = private_dir("fmt-link");
    let ugly = "x   :=  1+2\nprint (&stdout,x)\n";
    fmt_through_a_symlink(&dir, ugly);
    fmt_failing_half_way(&dir, ugly);
    fmt_in_a_read_only_directory(ugly);
    fmt_refuses_a_fifo(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The target is formatted, the link stays a link, the permissions stay.
#[cfg(unix)]
fn fmt_through_a_symlink(dir: &Path, ugly: &str) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::write(dir.join("real.opal"), ugly).expect("write");
    std::fs::set_permissions(
        dir.join("real.opal"),
        std::fs::Permissions::from_mode(0o640),
    )
    .expect("chmod");
    std::os::unix::fs::symlink("real.opal", dir.join("link.opal")).expect("symlink");
    let o = run(&["fmt", &dir.join("link.opal").to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        std::fs::symlink_metadata(dir.join("link.opal"))
            .expect("link")
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    let formatted = std::fs::read_to_string(dir.join("real.opal")).expect("read");
    assert_ne!(formatted, ugly, "the target was not formatted");
    assert_eq!(
        run(&["fmt", "--check", &dir.join("real.opal").to_string_lossy()])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        std::fs::metadata(dir.join("real.opal"))
            .expect("meta")
            .mode()
            & 0o777,
        0o640,
        "permissions changed"
    );
    assert_eq!(names_in(dir), vec!["link.opal", "real.opal"]);
}

#[cfg(unix)]
fn fmt_failing_half_way(dir: &Path, ugly: &str) {
    // A write that fails half way (a file-size limit of 0 blocks: EFBIG) leaves the original
    // and no temporary file.
    std::fs::write(dir.join("real.opal"), ugly).expect("write");
    let limited = format!(
        "ulimit -f 0; trap '' XFSZ; exec \"$0\" fmt {}",
        dir.join("real.opal").to_string_lossy()
    );
    let o = Command::new("sh")
        .args(["-c", &limited])
        .arg(opal())
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("writing a temporary file") && err.contains("free some space"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("real.opal")).expect("read"),
        ugly
    );
    assert_eq!(names_in(dir), vec!["link.opal", "real.opal"]);
}

#[cfg(unix)]
fn fmt_in_a_read_only_directory(ugly: &str) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // A directory opal may not write into: a clear error, the original intact. Root writes
    // anywhere, so as root the command runs as nobody.
    let ro = private_dir("fmt-ro");
    std::fs::write(ro.join("p.opal"), ugly).expect("write");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let mut cmd = Command::new(opal());
    cmd.args(["fmt", &ro.join("p.opal").to_string_lossy()]);
    if std::fs::metadata(&ro).expect("meta").uid() == 0 {
        use std::os::unix::process::CommandExt;
        cmd.uid(65534).gid(65534);
    }
    let o = cmd.output().expect("run opal");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("creating a temporary file in") && err.contains("check the permissions of"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(ro.join("p.opal")).expect("read"),
        ugly
    );
    assert_eq!(names_in(&ro), vec!["p.opal"]);
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let _ = std::fs::remove_dir_all(&ro);
}

#[cfg(unix)]
fn fmt_refuses_a_fifo(dir: &Path) {
    // A FIFO cannot be formatted in place: refused before it is read (reading waits for a
    // writer forever), within the guard's 20 s.
    let fifo = dir.join("pipe.opal");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success()),
        "mkfifo"
    );
    let o = Command::new("timeout")
        .arg("20")
        .arg(opal())
        .args(["fmt", &fifo.to_string_lossy()])
        .output()
        .expect("timeout");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("FIFO"), "{err}");
}

#[test]
fn debug_of_a_directory_exits_1_before_any_window() {
    let dir = private_dir("debug-dir");
    let o = Command::new(opal())
        .args(["debug", &dir.to_string_lossy()])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("run opal");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is a directory; give one OPAL program")
            && !err.contains("cannot open a window"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn debug_with_a_world_file_that_cannot_be_read_exits_1_before_any_window() {
    let dir = private_dir("debug-world");
    std::fs::write(dir.join("p.opal"), "extern ask\nprint (ask 1)\n").expect("write the program");
    for (world, says) in [
        ("missing.world.toml", "cannot read the world file"),
        (".", "the world file is not a regular file"),
    ] {
        let o = Command::new(opal())
            .args(["debug", "p.opal", "--world", world])
            .current_dir(&dir)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET")
            .output()
            .expect("run opal");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{world}: {err}");
        assert!(
            err.contains(says) && !err.contains("cannot open a window"),
            "{world}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 29, points 1 and 6: a world file or trace nested past every limit is a clean error from
/// every entry point (no stack overflow on any thread), and errors name the key or event.
mod limits {
    use super::{private_dir, run};
    use opal_e2e::opal;
    use serde_json::{json, Value};
    use std::io::Write;
    use std::process::{Command, Stdio};

    const PROGRAM: &str = "extern ask\nprint(ask(\"q\"))\n";

    /// `dir/p.opal` with `world` beside it as `dir/p.world.toml`.
    fn program_with_world(name: &str, world: &str) -> std::path::PathBuf {
        let dir = private_dir(name);
        std::fs::write(dir.join("p.opal"), PROGRAM).expect("write the program");
        std::fs::write(dir.join("p.world.toml"), world).expect("write the world file");
        dir
    }

    fn stderr_of(o: &std::process::Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    /// `opal dap`: initialize, launch the program, ask for the threads, disconnect; every answer.
    fn dap_launch(program: &std::path::Path) -> (Option<i32>, Vec<Value>) {
        let mut child = Command::new(opal())
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("opal dap");
        let requests = [
            json!({"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "opal"}}),
            json!({"seq": 2, "type": "request", "command": "launch", "arguments": {"program": program}}),
            json!({"seq": 3, "type": "request", "command": "threads"}),
            json!({"seq": 4, "type": "request", "command": "disconnect"}),
        ];
        let mut stdin = child.stdin.take().expect("stdin");
        for r in requests {
            let body = r.to_string();
            write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write a request");
        }
        drop(stdin);
        let out = child.wait_with_output().expect("opal dap ends");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let bodies = text
            .split("Content-Length:")
            .filter_map(|m| {
                m.find('{')
                    .and_then(|i| serde_json::from_str(m[i..].trim()).ok())
            })
            .collect();
        (out.status.code(), bodies)
    }

    fn response(msgs: &[Value], seq: i64) -> &Value {
        msgs.iter()
            .find(|m| m["type"] == "response" && m["request_seq"] == seq)
            .unwrap_or_else(|| panic!("no response to {seq}: {msgs:?}"))
    }

    /// Each of `cmds` on a program beside the world file `world` exits 1 with `error`.
    fn refused_world(name: &str, world: &str, cmds: &[&str], error: &str) {
        let dir = program_with_world(name, world);
        let p = dir.join("p.opal");
        for cmd in cmds {
            let o = run(&[cmd, p.to_str().expect("utf-8 path")]);
            let err = stderr_of(&o);
            assert_eq!(o.status.code(), Some(1), "{cmd}: {err}");
            assert!(err.contains(error), "{cmd}: {err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_key_of_20_000_dotted_parts_is_e0200_at_the_part_past_the_limit() {
        // `x` and 79 `.y` end at column 160: the 81st part starts at column 161.
        let world = format!("[ask]\ndefault = '1'\nx{} = 1\n", ".y".repeat(20_000));
        refused_world(
            "dotted-world",
            &world,
            &["check", "run"],
            "p.world.toml:3:161: error[E0200]: invalid world file: a key of 20001 dotted parts (at most 80)",
        );
    }

    #[test]
    fn a_world_file_of_too_many_tokens_is_refused_before_toml_reads_it() {
        // 600 000 headers: `toml` held some 2 GB for a file like this; the scan refuses it at
        // the line where it crosses 4 000 000 tokens (7 a line).
        let world = "[[f.f.f]]\n".repeat(600_000);
        let error = "p.world.toml:571429:1: error[E0200]: invalid world file: more than 4000000 keys, values and punctuation marks";
        refused_world("token-world", &world, &["check"], error);
    }

    #[test]
    fn a_world_file_nested_10_000_deep_is_e0200_from_every_entry_point() {
        let dir = program_with_world(
            "deep-world",
            &format!("[ask]\nx = {}\n", "[".repeat(10_000)),
        );
        let p = dir.join("p.opal");
        let ps = p.to_str().expect("utf-8 path");
        for cmd in ["check", "run", "step", "explore"] {
            let o = run(&[cmd, ps]);
            let err = stderr_of(&o);
            assert_eq!(o.status.code(), Some(1), "{cmd}: {err}");
            assert!(
                err.contains("p.world.toml:2:")
                    && err.contains("error[E0200]")
                    && err.contains("nest at most 80 deep"),
                "{cmd}: {err}"
            );
        }
        // The debugger loads the world file before it opens its window.
        let o = Command::new(opal())
            .args(["debug", ps])
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET")
            .output()
            .expect("debug");
        let err = stderr_of(&o);
        assert_eq!(o.status.code(), Some(1), "debug: {err}");
        assert!(
            err.contains("p.world.toml:2:") && err.contains("error[E0200]"),
            "debug: {err}"
        );
        // The adapter refuses the launch with the same error and keeps answering.
        let (code, msgs) = dap_launch(&p);
        assert_eq!(code, Some(0), "dap: {msgs:?}");
        let launch = response(&msgs, 2);
        assert_eq!(launch["success"], false, "{launch}");
        assert!(
            launch["message"]
                .as_str()
                .is_some_and(|m| m.contains("p.world.toml:2:") && m.contains("error[E0200]")),
            "{launch}"
        );
        assert_eq!(response(&msgs, 3)["success"], true);
        // The language server reads the world file on a worker thread when the program opens: it
        // answers, and the world file itself gets its E0200.
        let mut c =
            opal_lsp::client::StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start opal lsp");
        c.initialize(&format!("file://{}", dir.display()))
            .expect("initialize");
        let uri = format!("file://{ps}");
        c.open(&uri, PROGRAM);
        c.diagnostics(&uri, Some(1))
            .expect("the program's diagnostics");
        let hover = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}),
        );
        assert!(
            hover.is_ok_and(|h| h.to_string().contains("extern")),
            "the server answers after opening the program"
        );
        let world_uri = format!("file://{}", dir.join("p.world.toml").display());
        c.open(
            &world_uri,
            &std::fs::read_to_string(dir.join("p.world.toml")).expect("read"),
        );
        let ds = c
            .diagnostics(&world_uri, Some(1))
            .expect("the world file's diagnostics");
        assert!(
            ds[0]["code"] == "E0200" && ds[0]["range"]["start"]["line"] == 1,
            "{ds}"
        );
        assert_eq!(c.shutdown(), Some(0), "the server exits normally");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_out_of_range_delay_is_reported_at_its_key_and_readably() {
        let dir = program_with_world("latency", "[ask]\ndefault = '\"?\"'\nlatency_ms = 1e308\n");
        let o = run(&["run", dir.join("p.opal").to_str().expect("utf-8 path")]);
        let err = stderr_of(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(
                "p.world.toml:3:1: error[E0200]: `latency_ms` of `ask` is 1e308: a delay must be"
            ),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A recording of city_excursions changed by `edit`, replayed: exit code, stderr and the
    /// trace's text.
    fn replay_edited(name: &str, edit: impl FnOnce(&mut Value)) -> (Option<i32>, String, String) {
        let dir = private_dir(name);
        let t = dir.join("t.json");
        let ts = t.to_str().expect("utf-8 path");
        assert_eq!(
            run(&["run", "examples/city_excursions.opal", "--record", ts])
                .status
                .code(),
            Some(0)
        );
        let mut trace: Value =
            serde_json::from_str(&std::fs::read_to_string(&t).expect("the trace")).expect("JSON");
        edit(&mut trace);
        let text = serde_json::to_string_pretty(&trace).expect("JSON");
        std::fs::write(&t, &text).expect("write the trace");
        let o = run(&["run", "examples/city_excursions.opal", "--replay", ts]);
        let _ = std::fs::remove_dir_all(&dir);
        (o.status.code(), stderr_of(&o), text)
    }

    /// The first excursion call's event.
    fn excursion(trace: &mut Value) -> &mut Value {
        let evs = trace["events"].as_array_mut().expect("events");
        evs.iter_mut()
            .find(|e| e["external"] == "get_excursions_in")
            .expect("an excursion call")
    }

    /// The text from the line an error names (`(line N, `) to the end of that event.
    fn event_at_line<'a>(err: &str, text: &'a str) -> Vec<&'a str> {
        let n: usize = err
            .split("(line ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no line: {err}"));
        let lines: Vec<&str> = text.lines().skip(n - 1).collect();
        let end = lines
            .iter()
            .position(|l| l.trim_start().starts_with('}'))
            .unwrap_or(lines.len());
        assert_eq!(
            lines.first().map(|l| l.trim()),
            Some("{"),
            "line {n} starts an event"
        );
        lines[..end].to_vec()
    }

    #[test]
    fn a_broken_trace_is_refused_at_load_naming_the_event_and_its_line() {
        let (code, err, text) =
            replay_edited("trace-fun", |t| excursion(t)["result"] = json!("fun x:"));
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("`get_excursions_in`): result `fun x:` is not an OPAL expression"),
            "{err}"
        );
        assert!(
            event_at_line(&err, &text)
                .iter()
                .any(|l| l.contains("\"fun x:\"")),
            "{err}"
        );
        assert!(
            !err.contains("never dispatched"),
            "the cause alone, not the events a failed run never reached: {err}"
        );
        let (code, err, text) = replay_edited("trace-order", |t| {
            let e = excursion(t);
            e["dispatched_at_ms"] = json!(100.0);
            e["resolved_at_ms"] = json!(1.0);
        });
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains(
                "`get_excursions_in`): resolved at 1 ms, before it was dispatched at 100 ms"
            ),
            "{err}"
        );
        assert!(
            event_at_line(&err, &text)
                .iter()
                .any(|l| l.contains("\"resolved_at_ms\": 1.0")),
            "{err}"
        );
        let (code, err, text) = replay_edited("trace-strategy", |t| t["strategy"] = json!("weird"));
        assert_eq!(code, Some(1), "{err}");
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("\"strategy\""))
            .map(|i| i + 1);
        assert!(
            line.is_some_and(
                |n| err.contains(&format!("trace (line {n}): `strategy` is \"weird\""))
            ),
            "{err}"
        );
        let (code, err, _) = replay_edited("trace-deep", |t| {
            excursion(t)["result"] = json!("[".repeat(10_000))
        });
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("`get_excursions_in`): result `[[[[")
                && err.contains("nesting deeper than 200 levels"),
            "{err}"
        );
    }
}

/// Issue 29: the command line reads only regular files: `/dev/zero` as a program (it filled
/// memory) and a FIFO as the world file beside a program (it waited for a writer) are refused
/// at once, naming what they are.
#[cfg(unix)]
#[test]
fn devices_and_fifos_are_refused_not_read_for_ever() {
    let o = Command::new("timeout")
        .arg("20")
        .arg(opal())
        .args(["check", "/dev/zero"])
        .output()
        .expect("timeout");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("a device") && err.contains("regular file"),
        "{err}"
    );
    let dir = private_dir("fifo-world");
    std::fs::write(dir.join("p.opal"), "extern f\nprint (&stdout, f 1)\n").expect("write");
    assert!(
        Command::new("mkfifo")
            .arg(dir.join("p.world.toml"))
            .status()
            .is_ok_and(|s| s.success()),
        "mkfifo"
    );
    for cmd in ["check", "run"] {
        let o = Command::new("timeout")
            .arg("20")
            .arg(opal())
            .args([cmd, &dir.join("p.opal").to_string_lossy()])
            .output()
            .expect("timeout");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {err}");
        assert!(err.contains("FIFO"), "{cmd}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
