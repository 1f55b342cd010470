//! `run_native`: the window `opal debug` opens, after the program and its world file were
//! checked on the terminal.

use super::{Cmd, DebuggerApp, FileCmd, Settings, SETTINGS_KEY};
use eframe::egui;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

const APP_ID: &str = "opal-debugger";

/// What the command line asked for.
struct Args {
    file: Option<PathBuf>,
    world: Option<PathBuf>,
    trace: Option<PathBuf>,
    max_steps: Option<usize>,
}

/// Opens the debugger window (`opal debug`). `file` None opens the last file, else the first
/// bundled example.
/// `max_steps` sets the step budget of long-running jobs (run until, confluence) as More ▸ step
/// budget does, and is remembered like it.
pub fn run_native(
    file: Option<&Path>,
    world: Option<&Path>,
    trace: Option<&Path>,
    max_steps: Option<usize>,
    live: Option<opal_debugger::live::LiveFactory>,
) -> Result<(), String> {
    if let Some(f) = file {
        check_files(f, world)?;
    }
    let args = Args {
        file: file.map(Path::to_path_buf),
        world: world.map(Path::to_path_buf),
        trace: trace.map(Path::to_path_buf),
        max_steps,
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("OPAL debugger")
            .with_app_id(APP_ID)
            .with_inner_size([1500.0, 950.0])
            .with_min_inner_size([640.0, 400.0]),
        persist_window: true,
        ..Default::default()
    };
    let (tx, rx) = mpsc::channel::<String>();
    let result = eframe::run_native(
        APP_ID,
        options,
        Box::new(move |cc| match start(cc, &args, live) {
            Ok(app) => Ok(Box::new(app)),
            Err(e) => {
                let _ = tx.send(e.clone());
                Err(e.into())
            }
        }),
    );
    if let Ok(e) = rx.try_recv() {
        return Err(e);
    }
    result.map_err(|e| format!("cannot open a window: {e}"))
}

/// Checks the program before opening a window: a file that cannot be read is refused on the
/// terminal; one that does not compile is reported there too, and the window opens on its
/// errors and reloads it once it is fixed (a lecturer fixes a typo in the editor).
fn check_files(f: &Path, world: Option<&Path>) -> Result<(), String> {
    let meta = std::fs::metadata(f).map_err(|e| format!("{}: cannot read: {e}", f.display()))?;
    // The window polls FILE as a program's text: a directory (or a FIFO) would open on an
    // error it can never recover from.
    if meta.is_dir() {
        return Err(format!("{}: is a directory; give one OPAL program (`opal debug FILE.opal`), or none for the bundled examples", f.display()));
    }
    if !meta.is_file() {
        return Err(format!(
            "{}: is not a regular file; give one OPAL program (`opal debug FILE.opal`)",
            f.display()
        ));
    }
    // A world file named on the command line is read like the program: one that cannot be
    // read is refused here; one with errors opens the window on them, as a program does.
    if let Some(w) = world {
        let meta = std::fs::metadata(w)
            .map_err(|e| format!("{}: cannot read the world file: {e}", w.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "{}: the world file is not a regular file; give the path of a `.world.toml` file",
                w.display()
            ));
        }
    }
    let app = DebuggerApp::from_file(f, world);
    if let (None, Some(e)) = (&app.session, &app.errors) {
        eprintln!("{e}");
    }
    Ok(())
}

/// The app as the window opens: remembered settings, the program (the one named, else the
/// last one, else the first example), the trace, live externals. Err: a trace that does not
/// load (the window closes and `opal debug` says why).
fn start(
    cc: &eframe::CreationContext,
    args: &Args,
    live: Option<opal_debugger::live::LiveFactory>,
) -> Result<DebuggerApp, String> {
    let mut settings: Settings = cc
        .storage
        .and_then(|s| eframe::get_value(s, SETTINGS_KEY))
        .unwrap_or_default();
    if let Some(n) = args.max_steps {
        settings.step_budget = n.max(1);
    }
    let mut app = DebuggerApp::empty();
    app.autosave_dir = std::env::var_os("OPAL_DEBUGGER_STATE")
        .map(PathBuf::from)
        .or_else(|| eframe::storage_dir(APP_ID));
    app.settings = settings.clone();
    match (&args.file, &settings.last_file) {
        (Some(f), _) => app.open(f, args.world.as_deref(), false),
        (None, Some(last)) if last.exists() => app.open(last, None, false),
        _ => app.open_example(0, false),
    }
    if app.session.is_none() && args.file.is_none() {
        app.open_example(0, false);
    }
    app.apply_settings(settings);
    if let Some(t) = &args.trace {
        app.run_cmd(Cmd::File(FileCmd::LoadTrace(t.clone())));
        if app.session.as_ref().is_some_and(|s| !s.has_trace()) {
            return Err(app.status.clone());
        }
    }
    if let Some(make) = live {
        let ctx = cc.egui_ctx.clone();
        match opal_debugger::live::LiveWorker::spawn(
            make,
            Some(Box::new(move || ctx.request_repaint())),
        ) {
            Ok(w) => app.set_live(w),
            Err(e) => app.status = e,
        }
    }
    Ok(app)
}
