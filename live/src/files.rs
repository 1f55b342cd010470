//! Files and the environment: `read_file path` and `list_dir path` (readonly), `write_file
//! (path, text)` and `append_file (path, text)` (sequential), `getenv name | (name, default)`
//! (readonly). A relative path is from the working directory, as in Python. They run on
//! tokio's blocking pool, so a slow disk holds up nothing else.

use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;

/// The largest file `read_file` takes: the text is one string in memory.
pub const MAX_FILE: u64 = 256 << 20;

pub fn start(ext: &str, arg: &PExp) -> LiveCall {
    let ext = ext.to_string();
    let arg = arg.clone();
    LiveCall::Value(Box::pin(async move {
        let what = ext.clone();
        tokio::task::spawn_blocking(move || run(&ext, &arg))
            .await
            .map_err(|e| format!("{what}: {e}"))?
    }))
}

fn run(ext: &str, arg: &PExp) -> Result<PExp, String> {
    let text = |e: &PExp| match e {
        PExp::Prim(Prim::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    match (ext, arg) {
        ("read_file", p) => {
            let path =
                text(p).ok_or_else(|| format!("read_file needs a path (a string); got {p}"))?;
            read(&path).map(|s| PExp::str(&s))
        }
        ("list_dir", p) => {
            let path =
                text(p).ok_or_else(|| format!("list_dir needs a path (a string); got {p}"))?;
            list(&path)
        }
        ("write_file" | "append_file", PExp::Tuple(xs)) if xs.len() == 2 => {
            let (Some(path), Some(body)) = (text(&xs[0]), text(&xs[1])) else {
                return Err(format!("{ext} needs (path, text), both strings; got {arg}"));
            };
            write(&path, &body, ext == "append_file")?;
            Ok(PExp::Tuple(vec![]))
        }
        ("getenv", PExp::Tuple(xs)) if xs.len() == 2 => match text(&xs[0]) {
            Some(name) => Ok(env(&name)?.map_or_else(|| xs[1].clone(), |v| PExp::str(&v))),
            None => Err(format!(
                "getenv needs a variable's name (a string); got {}",
                xs[0]
            )),
        },
        ("getenv", n) => match text(n) {
            Some(name) => Ok(env(&name)?.map_or(PExp::Tuple(vec![]), |v| PExp::str(&v))),
            None => Err(format!(
                "getenv needs a variable's name (a string), or (name, default); got {n}"
            )),
        },
        _ => Err(format!("{ext} needs (path, text), both strings; got {arg}")),
    }
}

/// The file's text, through the core's guarded reader: regular files only (a FIFO or
/// `/dev/zero` would block or never end), at most `MAX_FILE` bytes, UTF-8.
fn read(path: &str) -> Result<String, String> {
    opal_core::files::read_text(std::path::Path::new(path), "the file", MAX_FILE)
        .map_err(|e| format!("read_file: {e}"))
}

fn list(path: &str) -> Result<PExp, String> {
    let entries =
        std::fs::read_dir(path).map_err(|e| format!("list_dir: cannot list {path}: {e}"))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("list_dir: cannot list {path}: {e}"))?;
        match entry.file_name().into_string() {
            Ok(n) => names.push(n),
            Err(n) => return Err(format!("list_dir: a name in {path} is not UTF-8: {n:?}")),
        }
    }
    names.sort();
    Ok(PExp::List(names.iter().map(|n| PExp::str(n)).collect()))
}

/// `write_file` replaces the file as every file opal writes is written (atomically, keeping
/// its permissions; a FIFO or a device refused); `append_file` adds to a regular file or
/// creates it.
fn write(path: &str, body: &str, append: bool) -> Result<(), String> {
    use std::io::Write;
    let p = std::path::Path::new(path);
    if !append {
        return opal_core::files::write_file_safely(p, body.as_bytes())
            .map_err(|e| format!("write_file: {e}"));
    }
    if let Ok(meta) = std::fs::metadata(p) {
        if !meta.is_file() {
            return Err(format!(
                "append_file: cannot append to {path}: it is not a regular file"
            ));
        }
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .map_err(|e| format!("append_file: cannot open {path}: {e}"))?;
    f.write_all(body.as_bytes())
        .and_then(|_| f.flush())
        .map_err(|e| format!("append_file: cannot write {path}: {e}"))
}

fn env(name: &str) -> Result<Option<String>, String> {
    if name.is_empty() || name.contains(['=', '\0']) {
        return Err(format!("getenv: `{name}` is not a variable's name"));
    }
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(format!("getenv: the value of {name} is not UTF-8 text"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(s: &str) -> PExp {
        PExp::str(s)
    }

    #[test]
    fn files_are_written_appended_read_and_listed() {
        let dir = std::env::temp_dir().join(format!("opal-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join("b.txt").to_string_lossy().into_owned();
        let pair = |a: &str, b: &str| PExp::Tuple(vec![st(a), st(b)]);
        assert_eq!(
            run("write_file", &pair(&f, "one\n")),
            Ok(PExp::Tuple(vec![]))
        );
        assert_eq!(
            run("append_file", &pair(&f, "two\n")),
            Ok(PExp::Tuple(vec![]))
        );
        assert_eq!(run("read_file", &st(&f)), Ok(st("one\ntwo\n")));
        assert_eq!(run("write_file", &pair(&f, "3")), Ok(PExp::Tuple(vec![])));
        assert_eq!(run("read_file", &st(&f)), Ok(st("3")));
        std::fs::write(dir.join("a.txt"), "").expect("a");
        let listed = run("list_dir", &st(&dir.to_string_lossy()));
        assert_eq!(listed, Ok(PExp::List(vec![st("a.txt"), st("b.txt")])));
        std::fs::write(dir.join("bin"), [0xff, 0xfe]).expect("bin");
        let e = run("read_file", &st(&dir.join("bin").to_string_lossy())).unwrap_err();
        assert!(e.contains("not UTF-8 text"), "{e}");
        let e = run("read_file", &st(&dir.to_string_lossy())).unwrap_err();
        assert!(e.contains("it is a directory"), "{e}");
        let e = run("read_file", &st(&dir.join("nope").to_string_lossy())).unwrap_err();
        assert!(
            e.starts_with("read_file: cannot read") && e.contains("nope"),
            "{e}"
        );
        // Nothing that would block or never end: a device is refused at once.
        let e = run("read_file", &st("/dev/zero")).unwrap_err();
        assert!(e.contains("give the path of a regular file"), "{e}");
        let e = run("append_file", &PExp::Tuple(vec![st("/dev/null"), st("x")])).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = run("write_file", &st(&f)).unwrap_err();
        assert!(e.contains("needs (path, text)"), "{e}");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn getenv_answers_unit_or_the_default_when_unset() {
        let path = run("getenv", &st("PATH"));
        assert!(matches!(path, Ok(PExp::Prim(Prim::Str(_)))), "{path:?}");
        let unset = "OPAL_SURELY_UNSET_VARIABLE";
        assert_eq!(run("getenv", &st(unset)), Ok(PExp::Tuple(vec![])));
        let d = PExp::Tuple(vec![st(unset), st("x")]);
        assert_eq!(run("getenv", &d), Ok(st("x")));
        assert!(run("getenv", &st("A=B")).is_err());
    }
}
