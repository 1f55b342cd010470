//! OPAL source text to a surface syntax tree.
pub mod ast;
pub mod lexer;
pub mod parser;
