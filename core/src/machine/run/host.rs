//! The host: externals that need no waiting (pure ones, a world's `choices`) and the
//! compiled result sources of a world file, cached by source.

use super::*;
use crate::machine::template::Template;
use std::sync::Arc;

/// Which of a world's `choices` a live run takes (`opal explore` fixes one resolution).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    First,
    Random,
}

/// Computes results of externals that need no waiting, and compiles result sources.
pub struct Host {
    pub world: Option<World>,
    cache: HashMap<String, Result<Arc<Template>, ResultError>>,
    rng: u64,
    pub allow_exec: bool,
    /// The externals the program declares itself: never the library's pure functions.
    declared: Vec<Arc<str>>,
}

impl Host {
    pub fn new(world: Option<World>, allow_exec: bool) -> Host {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(42);
        Host {
            world,
            cache: HashMap::new(),
            rng: seed | 1,
            allow_exec,
            declared: Vec::new(),
        }
    }

    pub(super) fn coin(&mut self) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng & 1 == 1
    }

    /// Compiles OPAL source (a result expression) into a closed template.
    pub fn compile_result(&mut self, src: &str) -> Result<Outcome, ResultError> {
        // A literal needs no desugaring: a world file with thousands of distinct numbers or
        // strings as results would otherwise compile (and cache) each one.
        if let Ok(PExp::Prim(p)) = crate::world::parse_pexp(src) {
            return Ok(Outcome::Value(p));
        }
        if let Some(r) = self.cache.get(src) {
            return r.clone().map(|t| Outcome::Expr(t, src.to_string()));
        }
        let r = compile_result_source(src);
        self.cache.insert(src.to_string(), r.clone());
        r.map(|t| Outcome::Expr(t, src.to_string()))
    }

    /// For an external that the world describes only by `choices`: one of them, compiled.
    pub fn choose(&mut self, w: &crate::world::WorldExt, how: Choice) -> Option<Outcome> {
        if w.choices.is_empty() || !w.responses.is_empty() || w.default.is_some() {
            return None;
        }
        let i = match how {
            Choice::First => 0,
            Choice::Random => {
                let i = (self.rng as usize) % w.choices.len();
                self.coin();
                i
            }
        };
        Some(
            self.compile_result(&w.choices[i])
                .unwrap_or_else(|e| Outcome::Failed(e.to_string())),
        )
    }

    /// This host for the program `m` runs: its own externals shadow the library's.
    pub fn declaring(mut self, m: &crate::machine::Machine) -> Host {
        self.declared = m.declared.to_vec();
        self
    }

    pub fn is_pure(&self, ext: &str) -> bool {
        self.world.as_ref().and_then(|w| w.get(ext)).is_none()
            && !self.declared.iter().any(|d| &**d == ext)
            && externals::standard(ext)
                .map(|d| d.kind == ExtKind::Pure)
                .unwrap_or(false)
    }
}

pub(super) fn is_stream_ext(ext: &str, host: &Host) -> bool {
    if let Some(w) = host.world.as_ref().and_then(|w| w.get(ext)) {
        return w
            .responses
            .iter()
            .any(|r| matches!(r.reply, Reply::Stream(..)));
    }
    externals::standard(ext)
        .map(|d| d.kind == ExtKind::Streaming)
        .unwrap_or(false)
}
