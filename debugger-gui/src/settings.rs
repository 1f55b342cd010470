//! What is remembered between launches (eframe persistence). Saved settings from earlier
//! versions must keep loading: the strategy is stored under its command-line name
//! (`opportunistic`, `cbv`, `lazy`), and a name this version does not know falls back to the
//! default instead of losing every other setting.

use crate::cmd::{GraphMode, Tab};
use opal_debugger::session::Strategy;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What is remembered between launches (eframe persistence).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub projector: bool,
    pub source: bool,
    /// `None`: shown when the window is wide enough.
    pub term: Option<bool>,
    /// `None`: open when the window is tall enough.
    pub dock: Option<bool>,
    pub tab: Tab,
    pub mode: GraphMode,
    pub zoom: f32,
    /// What N, Run and Run until advance by.
    #[serde(with = "strategy_name")]
    pub strategy: Strategy,
    pub speed: f32,
    pub auto_resolve: bool,
    pub step_budget: usize,
    pub show_pure: bool,
    pub prelude: bool,
    /// The term in the core notation (`x'1@5.6 := …`) instead of the program's names.
    pub core_names: bool,
    pub minimap: bool,
    pub last_file: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            projector: false,
            source: true,
            term: None,
            dock: None,
            tab: Tab::Tasks,
            mode: GraphMode::Calls,
            zoom: 1.0,
            strategy: Strategy::Opportunistic,
            speed: 4.0,
            auto_resolve: true,
            step_budget: opal_debugger::session::DEFAULT_STEP_BUDGET,
            show_pure: false,
            prelude: false,
            core_names: false,
            minimap: true,
            last_file: None,
        }
    }
}

/// The strategy as its command-line name (`Strategy::name`), the form earlier versions saved
/// as a plain string. `opal_core`'s `Strategy` has no serde of its own (the core does not
/// persist it), hence this adapter rather than a rename on the enum.
mod strategy_name {
    use opal_debugger::session::Strategy;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(s: &Strategy, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(s.name())
    }

    /// An unknown name (a newer version's strategy, a hand edit) is the default strategy:
    /// failing here would drop every other remembered setting with it.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Strategy, D::Error> {
        let name = String::deserialize(d)?;
        Ok(Strategy::parse(&name).unwrap_or(Strategy::Opportunistic))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// eframe's storage, in memory: the settings go through the same (RON) form as on disk.
    #[derive(Default)]
    struct Store(Option<String>);
    impl eframe::Storage for Store {
        fn get_string(&self, _: &str) -> Option<String> {
            self.0.clone()
        }
        fn set_string(&mut self, _: &str, value: String) {
            self.0 = Some(value);
        }
        fn remove_string(&mut self, _: &str) {
            self.0 = None;
        }
        fn flush(&mut self) {}
    }

    #[test]
    fn the_strategy_is_saved_under_its_command_line_name() {
        for s in Strategy::ALL {
            let settings = Settings {
                strategy: s,
                ..Settings::default()
            };
            let mut store = Store::default();
            eframe::set_value(&mut store, "k", &settings);
            let saved = store.0.clone().unwrap();
            assert!(
                saved.contains(&format!("strategy:\"{}\"", s.name())),
                "{saved}"
            );
            assert_eq!(eframe::get_value::<Settings>(&store, "k"), Some(settings));
        }
    }

    #[test]
    fn an_unknown_strategy_falls_back_to_the_default_and_keeps_the_rest() {
        let settings = Settings {
            strategy: Strategy::Lazy,
            speed: 2.0,
            ..Settings::default()
        };
        let mut store = Store::default();
        eframe::set_value(&mut store, "k", &settings);
        store.0 = store
            .0
            .map(|s| s.replace("strategy:\"lazy\"", "strategy:\"eager\""));
        let back: Settings = eframe::get_value(&store, "k").expect("still loads");
        assert_eq!(back.strategy, Strategy::Opportunistic);
        assert_eq!(back.speed, 2.0);
    }
}
