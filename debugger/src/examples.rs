//! The bundled examples (the paper's programs among them), compiled into the binary so the
//! Examples menu works wherever `opal` is installed.

pub struct Example {
    pub name: &'static str,
    pub source: &'static str,
    pub world: Option<&'static str>,
}

macro_rules! examples {
    ($($name:literal $(+ $w:tt)?),* $(,)?) => {
        &[$(Example {
            name: $name,
            source: include_str!(concat!("../../examples/", $name, ".opal")),
            world: examples!(@world $name $($w)?),
        }),*]
    };
    (@world $name:literal world) => { Some(include_str!(concat!("../../examples/", $name, ".world.toml"))) };
    (@world $name:literal) => { None };
}

pub const EXAMPLES: &[Example] = examples![
    "city_excursions" + world,
    "text_to_speech" + world,
    "fact_check" + world,
    "tree_of_thoughts" + world,
    "json_dec" + world,
    "fig2b_core" + world,
    "fork_join" + world,
    "streaming" + world,
    "poppy_tree_of_thoughts" + world,
    "camel_tool_use" + world,
    "confluence",
    "sum",
    "diverge",
];
