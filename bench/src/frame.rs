//! `frame`: the step debugger window's frame time (CPU: layout and tessellation) on big
//! graphs and while a job runs.

use std::time::{Duration, Instant};

/// A program whose task graph has about `n` nodes: `n/2` independent calls, each used by a
/// statement that also uses the previous one (a ladder of def-use edges).
fn frame_source(n: usize) -> String {
    let mut s = String::from("extern f\nacc0 := 0\n");
    for i in 1..=n / 2 {
        s.push_str(&format!("a{i} := f {i}\nacc{i} := (a{i}, acc{})\n", i - 1));
    }
    s.push_str(&format!("print (&stdout, acc{})\n", n / 2));
    s
}

/// A fan-out of `n` external calls in one loop, each answered by the world file's default.
fn fan_out_source(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!(
        "extern f\nfor x in [{}]:\n    print (&stdout, f x)\n",
        items.join(", ")
    )
}

/// Frame time of the debugger window (CPU: egui's layout and tessellation, what must fit in
/// 16 ms, and the session's slice of a running job) with a 1 000-node statement graph, a
/// 1 000-call fan-out in the call graph, and while a confluence check runs.
pub fn bench_frame() {
    let mut frames = Frames {
        ctx: eframe::egui::Context::default(),
        t: 0.0,
    };
    // A benchmark program that does not compile ends the benchmark.
    if frame_statements(&mut frames).is_some() && frame_calls(&mut frames).is_some() {
        frame_confluence(&mut frames);
    }
}

/// Draws frames of the debugger window, each 1/60 s after the last.
struct Frames {
    ctx: eframe::egui::Context,
    t: f64,
}

impl Frames {
    /// One frame, timed.
    fn frame(&mut self, app: &mut opal_debugger_gui::app::DebuggerApp) -> Duration {
        use eframe::egui;
        let size = egui::vec2(1600.0, 1000.0);
        self.t += 1.0 / 60.0;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            time: Some(self.t),
            ..Default::default()
        };
        let start = Instant::now();
        let mut out = self.ctx.run_ui(input, |ui| app.show(ui));
        out.textures_delta.clear();
        let prims = self.ctx.tessellate(out.shapes, out.pixels_per_point);
        std::hint::black_box(prims.len());
        start.elapsed()
    }
}

fn frame_report(name: &str, app: &opal_debugger_gui::app::DebuggerApp, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let members: usize = app.graph.nodes.iter().map(|n| n.members).sum();
    println!(
        "frame {name}: {} nodes drawn for {members}, {} edges: median {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} samples)",
        app.graph.nodes.len(),
        app.graph.edges.len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 95 / 100]),
        ms(times[times.len() - 1]),
        times.len()
    );
}

/// The debugger window on `src`; `None` (after saying so) when the program does not compile.
fn frame_open(src: &str, world: Option<&str>) -> Option<opal_debugger_gui::app::DebuggerApp> {
    let app = opal_debugger_gui::app::DebuggerApp::from_source("frame.opal", src, world);
    if app.session.is_none() {
        println!(
            "frame: the benchmark program does not compile: {:?}",
            app.errors
        );
        return None;
    }
    Some(app)
}

/// 1. The statement graph of a 1 000-statement ladder, grouped to a legible size.
fn frame_statements(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::{GraphCmd, SessionCmd};
    let mut app = frame_open(&frame_source(1_000), Some("[f]\ndefault = '1'\n"))?;
    app.run_cmd(GraphCmd::GraphMode);
    for _ in 0..5 {
        frames.frame(&mut app);
    }
    let mut times: Vec<Duration> = (0..120).map(|_| frames.frame(&mut app)).collect();
    frame_report("statements, idle", &app, &mut times);
    let mut stepping = Vec::new();
    for _ in 0..40 {
        let before = app.session.as_ref().map(|s| s.revision());
        app.run_cmd(SessionCmd::Round);
        if app.session.as_ref().map(|s| s.revision()) == before {
            app.run_cmd(SessionCmd::ResolveAll);
            continue;
        }
        for _ in 0..3 {
            stepping.push(frames.frame(&mut app));
        }
    }
    frame_report(
        "statements, stepping rounds (animating)",
        &app,
        &mut stepping,
    );
    Some(())
}

/// 2. A 1 000-call fan-out in the call graph: every call dispatched and pending.
fn frame_calls(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::SessionCmd;
    let mut app = frame_open(&fan_out_source(1_000), Some("[f]\ndefault = '\"done\"'\n"))?;
    app.settings.auto_resolve = false;
    app.until = opal_debugger::session::Until::End;
    app.run_cmd(SessionCmd::RunUntil);
    let mut running = Vec::new();
    while app.session.as_ref().is_some_and(|s| s.busy().is_some()) {
        running.push(frames.frame(&mut app));
    }
    if !running.is_empty() {
        frame_report(
            "calls, while running until all 1 000 are dispatched",
            &app,
            &mut running,
        );
    }
    let mut times: Vec<Duration> = (0..120).map(|_| frames.frame(&mut app)).collect();
    frame_report("calls, 1 000 pending, idle", &app, &mut times);
    let mut resolving = Vec::new();
    for _ in 0..30 {
        app.run_cmd(SessionCmd::ResolveAll);
        app.run_cmd(SessionCmd::Round);
        for _ in 0..3 {
            resolving.push(frames.frame(&mut app));
        }
    }
    frame_report(
        "calls, resolving and stepping (collapsing)",
        &app,
        &mut resolving,
    );
    Some(())
}

/// 3. Frames during a running confluence check: the fan-out, and §3.4's divergent program.
fn frame_confluence(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::SessionCmd;
    for (name, src, world) in [
        (
            "confluence on the 1 000-call fan-out",
            fan_out_source(1_000),
            Some("[f]\ndefault = '\"done\"'\n"),
        ),
        (
            "confluence on §3.4's divergent program",
            include_str!("../../examples/diverge.opal").to_string(),
            None,
        ),
    ] {
        let mut app = frame_open(&src, world)?;
        app.run_cmd(SessionCmd::Confluence(
            opal_debugger::session::Order::Reversed,
        ));
        let mut times = Vec::new();
        let start = Instant::now();
        while app.session.as_ref().is_some_and(|s| s.busy().is_some())
            && start.elapsed() < Duration::from_secs(20)
        {
            times.push(frames.frame(&mut app));
        }
        if times.is_empty() {
            println!("frame {name}: finished within one frame");
        } else {
            frame_report(name, &app, &mut times);
        }
        println!("frame {name}: {}", app.status);
    }
    Some(())
}
