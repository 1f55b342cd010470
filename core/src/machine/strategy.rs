//! The three evaluation strategies of SEMANTICS.md §5, by the names the CLI, traces and the
//! debugger's settings use.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Opportunistic,
    Cbv,
    Lazy,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Opportunistic, Strategy::Cbv, Strategy::Lazy];
    pub fn parse(s: &str) -> Option<Strategy> {
        match s {
            "opportunistic" => Some(Strategy::Opportunistic),
            "cbv" => Some(Strategy::Cbv),
            "lazy" => Some(Strategy::Lazy),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Opportunistic => "opportunistic",
            Strategy::Cbv => "cbv",
            Strategy::Lazy => "lazy",
        }
    }
}
