//! Watching the program and its world file on disk without repainting the window to do it:
//! a thread looks at their metadata once a second and wakes the window only when something
//! changed (an idle window repainting every second cost 2 % of a core under software GL).

use eframe::egui;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// How often the files are looked at.
const PERIOD: Duration = Duration::from_secs(1);

/// A watch on some files; it stops when dropped.
pub struct Watch {
    pub paths: Vec<PathBuf>,
    stop: Arc<AtomicBool>,
    changed: Arc<AtomicBool>,
}

/// What a look at a file sees: whether it is there, when it was written, how long it is.
fn stamp(p: &PathBuf) -> Option<(Option<SystemTime>, u64)> {
    std::fs::metadata(p)
        .ok()
        .map(|m| (m.modified().ok(), m.len()))
}

impl Watch {
    pub fn start(paths: Vec<PathBuf>, ctx: egui::Context) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let changed = Arc::new(AtomicBool::new(false));
        let (s, c, watched) = (stop.clone(), changed.clone(), paths.clone());
        std::thread::spawn(move || {
            let mut last: Vec<_> = watched.iter().map(stamp).collect();
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(PERIOD);
                let now: Vec<_> = watched.iter().map(stamp).collect();
                if now != last {
                    last = now;
                    c.store(true, Ordering::Relaxed);
                    ctx.request_repaint();
                }
            }
        });
        Watch {
            paths,
            stop,
            changed,
        }
    }

    /// Did a file change since the last call?
    pub fn take_changed(&self) -> bool {
        self.changed.swap(false, Ordering::Relaxed)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_on_disk_is_seen_and_wakes_the_window() {
        let dir = std::env::temp_dir().join(format!("opal-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (program, world) = (dir.join("p.opal"), dir.join("p.world.toml"));
        std::fs::write(&program, "1\n").expect("write");
        let _ = std::fs::remove_file(&world);
        let w = Watch::start(
            vec![program.clone(), world.clone()],
            egui::Context::default(),
        );
        std::thread::sleep(PERIOD + PERIOD / 2);
        assert!(!w.take_changed(), "nothing changed yet");
        // A world file appearing beside the program counts, as an edit does.
        std::fs::write(&world, "").expect("write");
        let seen = (0..40).any(|_| {
            std::thread::sleep(PERIOD / 10);
            w.take_changed()
        });
        assert!(seen, "the new world file was seen within 4 s");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
