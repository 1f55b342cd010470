//! Writing the user's files: traces (`--record`), formatted sources (`opal fmt`), graphs
//! (`--dot`), man pages, and the debugger's sessions, autosaves and exports. Every writer goes
//! through [`write_file_safely`], so all of them treat links, devices and failures one way
//! (`docs/cli.md`, "Writing files"):
//!
//! * a symbolic link is followed: its target is written and the link stays a link;
//! * a regular file (or a new name) is replaced through a temporary file in the target's own
//!   directory (a rename is atomic only within one file system), synced before the rename, with
//!   the original's permissions, so a crash or a full disk never leaves half a file;
//! * a terminal, `/dev/null` or another character device is written where it is, and so is a
//!   name of an open descriptor (`/dev/stdout`, `/dev/fd/1`): that stream is what the user named,
//!   and a rename would turn the device into a regular file;
//! * a directory, a FIFO, a socket or a block device is refused (opening a FIFO nobody reads
//!   would block for ever);
//! * the temporary file is removed on every failure.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a file was not written: its `Display` names the path, the reason and what to do.
#[derive(Debug)]
pub enum WriteError {
    /// The path is empty.
    EmptyPath,
    /// The path names something other than a file; `what` is "a directory", "a FIFO (named pipe)", ….
    NotAFile { path: PathBuf, what: &'static str },
    /// The path ends in `/`, `.` or `..`: it names a directory, never a file; `ends` says which.
    NotAFileName { path: PathBuf, ends: &'static str },
    /// The file name has more bytes than a directory entry holds ([`MAX_NAME`]).
    NameTooLong { path: PathBuf, len: usize },
    /// The directory that would hold a new file does not exist, or is not a directory.
    NoDirectory { path: PathBuf, dir: PathBuf },
    /// The file's permissions forbid writing it (it was made read-only on purpose).
    ReadOnly { path: PathBuf },
    /// The system refused; `doing` says at which step.
    Io {
        path: PathBuf,
        doing: String,
        source: io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::EmptyPath => write!(
                f,
                "the file name is empty: give the path of the file to write"
            ),
            WriteError::NotAFile { path, what } => write!(
                f,
                "cannot write `{}`: it is {what}; give the path of a regular file",
                path.display()
            ),
            WriteError::NotAFileName { path, ends } => {
                write!(f, "cannot write `{}`: it ends in `{ends}`, so it names a directory, not a file; give the path of a file", path.display())
            }
            WriteError::NameTooLong { path, len } => {
                write!(f, "cannot write `{}`: the file name is {len} bytes, over the {MAX_NAME} a file name may have; choose a shorter name", path.display())
            }
            WriteError::NoDirectory { path, dir } => {
                write!(f, "cannot write `{}`: the directory `{}` does not exist; create it first, or write elsewhere", path.display(), dir.display())
            }
            WriteError::ReadOnly { path } => {
                write!(f, "cannot write `{}`: the file is read-only; make it writable (`chmod u+w`), or write elsewhere", path.display())
            }
            WriteError::Io {
                path,
                doing,
                source,
            } => {
                write!(f, "cannot write `{}`: {doing}: {source}", path.display())?;
                match source.kind() {
                    io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                        write!(
                            f,
                            "; check the permissions of `{}`, or write elsewhere",
                            parent_dir(path).display()
                        )
                    }
                    io::ErrorKind::StorageFull
                    | io::ErrorKind::QuotaExceeded
                    | io::ErrorKind::FileTooLarge => {
                        write!(f, "; free some space, or write elsewhere")
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Writes `bytes` to `path` as the module comment says: symlinks followed, regular files
/// replaced atomically with their permissions, terminals and descriptors written in place,
/// everything else refused.
pub fn write_file_safely(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    match plan(path)? {
        Target::Replace { real, old } => replace(&real, bytes, old.as_ref()),
        Target::InPlace { real, append } => write_in_place(&real, bytes, append),
    }
}

/// What [`write_file_safely`] would refuse, found without touching the file: run before a long run whose
/// output goes to `path`, so a bad path costs a second, not the run. For a regular file or a
/// new name it also creates and removes a temporary file in the directory, the one sure test
/// that the directory takes new files (permissions, a read-only mount, ACLs).
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    match plan(path)? {
        Target::Replace { real, .. } => {
            let (tmp, _file) = create_temporary(&real)?;
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        Target::InPlace { .. } => Ok(()),
    }
}

/// Where and how a path is written.
enum Target {
    /// A regular file, or a name that does not exist yet: replaced through a temporary file.
    Replace {
        real: PathBuf,
        old: Option<Metadata>,
    },
    /// A character device or an open descriptor: opened and written where it is (appended for a
    /// descriptor, so a trace sent to a redirected stdout follows the program's output).
    InPlace { real: PathBuf, append: bool },
}

/// Symbolic links are followed at most this many times (Linux's own limit, ELOOP).
const MAX_LINKS: usize = 40;

/// The most bytes of a file name (one path component): `NAME_MAX` of Linux's file systems, and
/// of most others.
pub const MAX_NAME: usize = 255;

/// A name a file can be written under: it does not end in `/`, `.` or `..` (the `Path` API reads
/// `new.json/` and `x/.` as `new.json` and `x`, and so would the pre-check, but the final rename
/// fails), and its last component fits a directory entry.
fn check_name(path: &Path) -> Result<(), WriteError> {
    let text = path.to_string_lossy();
    let ends = if text.ends_with('/') {
        Some("/")
    } else if text == ".." || text.ends_with("/..") {
        Some("..")
    } else if text == "." || text.ends_with("/.") {
        Some(".")
    } else {
        None
    };
    if let Some(ends) = ends {
        return Err(WriteError::NotAFileName {
            path: path.to_path_buf(),
            ends,
        });
    }
    let len = path.file_name().map_or(0, |n| n.len());
    if len > MAX_NAME {
        return Err(WriteError::NameTooLong {
            path: path.to_path_buf(),
            len,
        });
    }
    Ok(())
}

fn plan(path: &Path) -> Result<Target, WriteError> {
    if path.as_os_str().is_empty() {
        return Err(WriteError::EmptyPath);
    }
    check_name(path)?;
    let io_err = |doing: &str, source| WriteError::Io {
        path: path.to_path_buf(),
        doing: doing.to_string(),
        source,
    };
    let Some(real) = follow_links(path).map_err(|e| io_err("following its symbolic links", e))?
    else {
        return Ok(Target::InPlace {
            real: path.to_path_buf(),
            append: true,
        });
    };
    // A link's target is a name too (`ln -s dir/ link`).
    check_name(&real)?;
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() => {
            if m.permissions().readonly() {
                return Err(WriteError::ReadOnly { path: real });
            }
            Ok(Target::Replace { real, old: Some(m) })
        }
        Ok(m) => match kind(&m) {
            None => Ok(Target::InPlace {
                real,
                append: false,
            }),
            Some(what) => Err(WriteError::NotAFile { path: real, what }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent_dir(&real);
            match std::fs::metadata(&dir) {
                Ok(d) if d.is_dir() => Ok(Target::Replace { real, old: None }),
                Ok(_) => Err(WriteError::NoDirectory { path: real, dir }),
                Err(e)
                    if e.kind() == io::ErrorKind::NotFound
                        || e.kind() == io::ErrorKind::NotADirectory =>
                {
                    Err(WriteError::NoDirectory { path: real, dir })
                }
                Err(e) => Err(WriteError::Io {
                    path: real,
                    doing: format!("reading the directory `{}`", dir.display()),
                    source: e,
                }),
            }
        }
        Err(e) => Err(WriteError::Io {
            path: real,
            doing: "reading what it is".into(),
            source: e,
        }),
    }
}

/// The most opal reads of any one file (a program, a world file, a trace): far beyond what
/// anyone writes or records, and a bound on what a wrong path can make it hold in memory.
pub const MAX_READ: u64 = 1 << 30;

/// Why a file could not be read. `what` names the file for the user ("the program", "the world
/// file", …); every message says which file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The system refused (it does not exist, permissions, …).
    #[error("cannot read {what} `{}`: {source}", path.display())]
    Io {
        what: String,
        path: PathBuf,
        source: io::Error,
    },
    /// It is a directory, a FIFO, a device, …: `is` says which.
    #[error("cannot read {what} `{}`: it is {is}; give the path of a regular file", path.display())]
    NotAFile {
        what: String,
        path: PathBuf,
        is: &'static str,
    },
    /// It holds more than the limit.
    #[error("cannot read {what} `{}`: it is {len} bytes, over the {} MiB opal reads", path.display(), limit >> 20)]
    TooBig {
        what: String,
        path: PathBuf,
        len: u64,
        limit: u64,
    },
    /// Its bytes are not UTF-8; `offset` is the first invalid byte.
    #[error("{what} `{}` is not UTF-8 text (invalid byte at offset {offset})", path.display())]
    NotUtf8 {
        what: String,
        path: PathBuf,
        offset: usize,
    },
}

/// Reads a file the user named or that sits beside their program (`what`: "the program",
/// "the world file", …): only a regular file (after following links), of at most `limit`
/// bytes. A device such as `/dev/zero` never ends and a FIFO waits for a writer for ever
/// (opening it already does), so both are refused before anything is opened.
pub fn read_regular(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let io = |source| ReadError::Io {
        what: what.to_string(),
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        let is = kind(&meta).unwrap_or("a device");
        return Err(ReadError::NotAFile {
            what: what.to_string(),
            path: path.to_path_buf(),
            is,
        });
    }
    let over = |len: u64| ReadError::TooBig {
        what: what.to_string(),
        path: path.to_path_buf(),
        len,
        limit,
    };
    if meta.len() > limit {
        return Err(over(meta.len()));
    }
    let file = File::open(path).map_err(io)?;
    // The whole file at once, not by doubling (a big world file would pass through vectors of
    // 2, 4, … 512 MiB). The size may be wrong (files in /proc say 0) or grow: the vector then
    // grows as needed, and nothing is read past the limit.
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(meta.len() as usize).map_err(|e| {
        io(io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("{} bytes: {e}", meta.len()),
        ))
    })?;
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(over(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_regular`], as UTF-8 text.
pub fn read_text(path: &Path, what: &str, limit: u64) -> Result<String, ReadError> {
    let bytes = read_regular(path, what, limit)?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        what: what.to_string(),
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// What a path that is neither a regular file nor a character device is, for the refusal;
/// `None` for a character device, which is written in place.
fn kind(m: &Metadata) -> Option<&'static str> {
    if m.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_char_device() {
            return None;
        }
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
}

/// The path a chain of symbolic links ends at (which may not exist yet: a dangling link
/// creates its target), or `None` when the chain reaches a name of an open descriptor.
fn follow_links(path: &Path) -> io::Result<Option<PathBuf>> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if names_a_descriptor(&p) {
            return Ok(None);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p)?;
                // A relative target is relative to the link's directory, not to ours.
                p = parent_dir(&p).join(target);
            }
            Ok(_) => return Ok(Some(p)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(p)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a row (a loop?)"
    )))
}

/// Whether `p` is an entry of a process's descriptor table (`/proc/self/fd/1`, and so
/// `/dev/stdout` and `/dev/fd/1`, which lead there). Its "link" is no path: a pipe's reads
/// `pipe:[1234]`, a file's names the file the shell opened, which a rename would take away
/// from under the program's own output.
fn names_a_descriptor(p: &Path) -> bool {
    let Ok(dir) = std::fs::canonicalize(parent_dir(p)) else {
        return false;
    };
    let parts: Vec<_> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    matches!(parts.as_slice(), [root, proc, _, fd] if root == "/" && proc == "proc" && fd == "fd")
}

/// The directory holding `p` (`.` for a bare file name).
fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new file beside `real`, hidden and named after it, never one that exists already.
fn create_temporary(real: &Path) -> Result<(PathBuf, File), WriteError> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = parent_dir(real);
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut last = None;
    for _ in 0..8 {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let suffix = format!(".opal-tmp-{}-{n}", std::process::id());
        // The target's name is cut so the temporary one fits a directory entry too (a target
        // of up to MAX_NAME bytes must work).
        let mut room = MAX_NAME.saturating_sub(1 + suffix.len()).min(name.len());
        while !name.is_char_boundary(room) {
            room -= 1;
        }
        let tmp = dir.join(format!(".{}{suffix}", &name[..room]));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                return Err(WriteError::Io {
                    path: real.to_path_buf(),
                    doing: format!("creating a temporary file in `{}`", dir.display()),
                    source: e,
                })
            }
        }
    }
    let source = last.unwrap_or_else(|| io::Error::other("no free temporary name"));
    Err(WriteError::Io {
        path: real.to_path_buf(),
        doing: format!("creating a temporary file in `{}`", dir.display()),
        source,
    })
}

/// Writes a temporary file beside `real`, syncs it and renames it over `real`; on any failure
/// the temporary file is removed and `real` is as it was.
fn replace(real: &Path, bytes: &[u8], old: Option<&Metadata>) -> Result<(), WriteError> {
    let (tmp, file) = create_temporary(real)?;
    let done = fill(file, bytes, old).and_then(|()| {
        std::fs::rename(&tmp, real).map_err(|e| ("renaming the temporary file over it", e))
    });
    if let Err((doing, source)) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(WriteError::Io {
            path: real.to_path_buf(),
            doing: doing.into(),
            source,
        });
    }
    // The rename itself is durable only once the directory is synced; a failure here loses
    // nothing the user has (the file is complete either way), so it is not reported.
    if let Ok(d) = File::open(parent_dir(real)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The temporary file's contents and the original's owner and permissions, synced to disk.
fn fill(
    mut file: File,
    bytes: &[u8],
    old: Option<&Metadata>,
) -> Result<(), (&'static str, io::Error)> {
    file.write_all(bytes)
        .map_err(|e| ("writing a temporary file", e))?;
    if let Some(old) = old {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Only root may give a file away: for anyone else the new file is theirs, as the
            // old one almost always was, so a refusal is not an error.
            if let Ok(now) = file.metadata() {
                if (now.uid(), now.gid()) != (old.uid(), old.gid()) {
                    let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
                }
            }
        }
        file.set_permissions(old.permissions())
            .map_err(|e| ("giving the temporary file the original's permissions", e))?;
    }
    file.sync_all()
        .map_err(|e| ("syncing a temporary file to disk", e))
}

/// Writes a character device or an open descriptor where it is: no temporary file, no rename,
/// never created or truncated.
fn write_in_place(real: &Path, bytes: &[u8], append: bool) -> Result<(), WriteError> {
    let io_err = |doing: &str, source| WriteError::Io {
        path: real.to_path_buf(),
        doing: doing.to_string(),
        source,
    };
    let mut f = OpenOptions::new()
        .write(true)
        .append(append)
        .open(real)
        .map_err(|e| io_err("opening it", e))?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .map_err(|e| io_err("writing", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("opal-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        d
    }

    /// Names in `dir` other than the ones a test made: a temporary file left behind.
    fn leftovers(dir: &Path, made: &[&str]) -> Vec<String> {
        let names: Vec<String> = std::fs::read_dir(dir)
            .map(|r| {
                r.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names
            .into_iter()
            .filter(|n| !made.contains(&n.as_str()))
            .collect()
    }

    #[test]
    fn a_new_file_and_a_replaced_one_keep_nothing_else_behind() {
        let d = temp_dir("new");
        let p = d.join("t.json");
        assert!(write_file_safely(&p, b"one").is_ok());
        assert!(write_file_safely(&p, b"two").is_ok());
        assert_eq!(std::fs::read_to_string(&p).ok().as_deref(), Some("two"));
        assert_eq!(leftovers(&d, &["t.json"]), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_followed_and_kept_and_permissions_survive() {
        use std::os::unix::fs::PermissionsExt;
        let d = temp_dir("link");
        let real = d.join("real.opal");
        let link = d.join("link.opal");
        let _ = std::fs::write(&real, "old");
        let _ = std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640));
        let _ = std::os::unix::fs::symlink("real.opal", &link);
        assert!(write_file_safely(&link, b"new").is_ok());
        assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(std::fs::read_to_string(&real).ok().as_deref(), Some("new"));
        assert_eq!(
            std::fs::metadata(&real)
                .map(|m| m.permissions().mode() & 0o777)
                .ok(),
            Some(0o640)
        );
        // A dangling link creates its target.
        let dangling = d.join("dangling");
        let _ = std::os::unix::fs::symlink("made.txt", &dangling);
        assert!(write_file_safely(&dangling, b"x").is_ok());
        assert_eq!(
            std::fs::read_to_string(d.join("made.txt")).ok().as_deref(),
            Some("x")
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn empty_paths_directories_and_missing_directories_are_refused() {
        let d = temp_dir("refuse");
        assert!(matches!(
            write_file_safely(Path::new(""), b"x"),
            Err(WriteError::EmptyPath)
        ));
        assert!(matches!(
            check_writable(Path::new("")),
            Err(WriteError::EmptyPath)
        ));
        let e = write_file_safely(&d, b"x").map_err(|e| e.to_string());
        assert!(
            e.as_ref().is_err_and(|e| e.contains("it is a directory")),
            "{e:?}"
        );
        let missing = d.join("no/such/t.json");
        let e = check_writable(&missing).map_err(|e| e.to_string());
        assert!(
            e.as_ref()
                .is_err_and(|e| e.contains("does not exist") && e.contains("no/such")),
            "{e:?}"
        );
        assert_eq!(leftovers(&d, &[]), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Names the `Path` API reads as another name (`new.json/` as `new.json`, `x/.` as `x`) are
    /// refused by the pre-check, as the final rename would be; nothing is made.
    #[test]
    fn names_ending_in_a_slash_a_dot_or_two_dots_are_refused_before_anything_is_written() {
        let d = temp_dir("names");
        let _ = std::fs::write(d.join("file.json"), "keep");
        for name in ["new.json/", "x/.", "x/..", "file.json/", "file.json/.", "."] {
            let p = if name == "." {
                PathBuf::from(".")
            } else {
                PathBuf::from(format!("{}/{name}", d.display()))
            };
            for got in [check_writable(&p), write_file_safely(&p, b"x")] {
                let e = got.map_err(|e| e.to_string());
                assert!(
                    e.as_ref()
                        .is_err_and(|e| e.contains("so it names a directory, not a file")),
                    "{name}: {e:?}"
                );
            }
        }
        assert_eq!(leftovers(&d, &["file.json"]), Vec::<String>::new());
        assert_eq!(
            std::fs::read_to_string(d.join("file.json")).ok().as_deref(),
            Some("keep")
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A name of 255 bytes (the most a directory entry holds) is written, though its temporary
    /// file's name is longer than that uncut; 256 bytes are refused before anything is made.
    #[test]
    fn a_name_of_255_bytes_is_written_and_256_refused() {
        let d = temp_dir("long");
        let p = d.join("é".repeat(120) + &"a".repeat(MAX_NAME - 240));
        assert!(check_writable(&p).is_ok());
        let done = write_file_safely(&p, b"one").and_then(|()| write_file_safely(&p, b"two"));
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(std::fs::read_to_string(&p).ok().as_deref(), Some("two"));
        let too_long = d.join("b".repeat(MAX_NAME + 1));
        for got in [
            check_writable(&too_long),
            write_file_safely(&too_long, b"x"),
        ] {
            let e = got.map_err(|e| e.to_string());
            assert!(
                e.as_ref()
                    .is_err_and(|e| e.contains("the file name is 256 bytes, over the 255")),
                "{e:?}"
            );
        }
        let kept = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert_eq!(leftovers(&d, &[&kept]), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The file is read into a vector of its own size, not grown by doubling.
    #[test]
    fn a_file_is_read_into_a_vector_of_its_size() {
        let d = temp_dir("read");
        let p = d.join("big.txt");
        let _ = std::fs::write(&p, vec![b'x'; 300_000]);
        let bytes = read_regular(&p, "the file", MAX_READ).unwrap_or_default();
        assert_eq!((bytes.len(), bytes.capacity()), (300_000, 300_000));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let d = temp_dir("ro");
        let p = d.join("ro.opal");
        let _ = std::fs::write(&p, "keep");
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444));
        assert!(matches!(
            write_file_safely(&p, b"x"),
            Err(WriteError::ReadOnly { .. })
        ));
        assert!(matches!(
            check_writable(&p),
            Err(WriteError::ReadOnly { .. })
        ));
        assert_eq!(std::fs::read_to_string(&p).ok().as_deref(), Some("keep"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn character_devices_are_written_in_place_and_a_full_one_fails() {
        assert!(write_file_safely(Path::new("/dev/null"), b"x").is_ok());
        let e = write_file_safely(Path::new("/dev/full"), b"x").map_err(|e| e.to_string());
        assert!(
            e.as_ref()
                .is_err_and(|e| e.contains("/dev/full") && e.contains("free some space")),
            "{e:?}"
        );
        assert!(std::fs::metadata("/dev/full").is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_char_device()
        }));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn descriptor_names_are_recognised() {
        assert!(names_a_descriptor(Path::new("/proc/self/fd/1")));
        assert!(names_a_descriptor(Path::new("/dev/fd/1")));
        assert!(!names_a_descriptor(Path::new("/dev/stdout")));
        assert!(!names_a_descriptor(Path::new("/tmp/x")));
    }
}
