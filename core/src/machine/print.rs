//! Printing labeled terms in the textual core form (SEMANTICS.md §1).

use super::template::{TOp, TVar, Template};
use super::{MOp, Machine, StmtId, VarId};
use crate::desugar::Program;
use crate::ir::write_op;
use std::fmt::Write;

/// The initial labeled term of a program, environment (`0.k`) hidden unless `with_env`.
pub fn print_initial(p: &Program, with_env: bool) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    if with_env {
        for (i, s) in p.env.iter().enumerate() {
            let mut t = format!("{} := ", s.bind);
            write_op(&mut t, &s.op, 0);
            rows.push((format!("0.{}", i + 1), t));
        }
    }
    for (i, s) in p.body.stmts.iter().enumerate() {
        let mut t = format!("{} := ", s.bind);
        write_op(&mut t, &s.op, 0);
        rows.push(((i + 1).to_string(), t));
    }
    rows.push((String::new(), format!("ret {}", p.body.ret_name())));
    layout(rows)
}

/// Labels in a left column; nested lines indented under their statement.
fn layout(rows: Vec<(String, String)>) -> String {
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) + 2;
    let mut out = String::new();
    for (label, text) in rows {
        for (i, line) in text.lines().enumerate() {
            if i == 0 {
                let _ = writeln!(out, "{label:<w$}{line}");
            } else {
                let _ = writeln!(out, "{:<w$}{line}", "");
            }
        }
    }
    out
}

impl Machine {
    /// The statement's text: `x := o`, nested bodies on further lines indented by two.
    pub fn stmt_text(&self, s: StmtId) -> String {
        self.stmt_text_with(s, &mut |v| self.var_name(v))
    }

    /// `stmt_text` with the variables named by `name` (a view abbreviates deep labels).
    pub fn stmt_text_with(&self, s: StmtId, name: &mut dyn FnMut(VarId) -> String) -> String {
        let n = &self.stmts[s];
        let mut out = format!("{} := ", name(n.bind));
        self.op_text(&mut out, &n.op, name);
        out
    }

    fn op_text(&self, out: &mut String, op: &MOp, name: &mut dyn FnMut(VarId) -> String) {
        match op {
            MOp::Alias(y) => out.push_str(&name(*y)),
            MOp::Call(f, x) => {
                let _ = write!(out, "{} {}", name(*f), name(*x));
            }
            MOp::Tuple(xs) => {
                let names: Vec<String> = self.tuple(*xs).iter().map(|x| name(*x)).collect();
                let _ = write!(
                    out,
                    "({}{})",
                    names.join(", "),
                    if xs.len() == 1 { "," } else { "" }
                );
            }
            MOp::Prj(i, x) => {
                let _ = write!(out, "prj {i} {}", name(*x));
            }
            MOp::Prim(p) => {
                let _ = write!(out, "<{}>", self.prim(*p));
            }
            MOp::Task(t) => {
                let task = &self.tasks[*t];
                out.push_str(&task.text());
            }
            MOp::Fun(c) => {
                if let Some((tpl, env)) = self.closure(*c) {
                    let env: Vec<String> = env.iter().map(|v| name(*v)).collect();
                    template_text(out, tpl, &env, 2);
                }
            }
            MOp::Gone => out.push_str("<removed>"),
        }
    }

    /// The whole term, one statement per line with its label; `ret x` last.
    pub fn print_term(&self, with_env: bool) -> String {
        self.print_term_with(with_env, &|v| self.var_name(v))
    }

    /// `print_term` with the program's names where the machine keeps them
    /// (`keep_source_names`): `city@5.6.6 := "Honolulu"`, not `x'1@5.6 := <"Honolulu">`'s
    /// alias. For display (a debugger's graph of every path); states are told apart by
    /// `print_term`.
    pub fn print_term_named(&self, with_env: bool) -> String {
        self.print_term_with(with_env, &|v| self.shown_name(v))
    }

    fn print_term_with(&self, with_env: bool, name: &dyn Fn(VarId) -> String) -> String {
        let mut rows = Vec::new();
        for s in self.iter() {
            let label = self.label_of(s);
            if !with_env && label.starts_with("0.") {
                continue;
            }
            rows.push((label, self.stmt_text_with(s, &mut |v| name(v))));
        }
        rows.push((String::new(), format!("ret {}", name(self.ret))));
        layout(rows)
    }
}

fn template_text(out: &mut String, t: &Template, env: &[String], indent: usize) {
    let name = |v: TVar| -> String {
        match v {
            TVar::Free(i) => env.get(i as usize).cloned().unwrap_or_else(|| "?".into()),
            TVar::Local(i) => t.names[i as usize].to_string(),
        }
    };
    let _ = writeln!(out, "fun {}:", t.names[0]);
    let pad = " ".repeat(indent);
    for s in &t.stmts {
        let _ = write!(out, "{pad}{} := ", t.names[s.local as usize]);
        match s.op {
            TOp::Alias(y) => out.push_str(&name(y)),
            TOp::Call(f, x) => {
                let _ = write!(out, "{} {}", name(f), name(x));
            }
            TOp::Tuple(start, len) => {
                let xs = t.tuple(start, len);
                let ns: Vec<String> = xs.iter().map(|x| name(*x)).collect();
                let _ = write!(
                    out,
                    "({}{})",
                    ns.join(", "),
                    if xs.len() == 1 { "," } else { "" }
                );
            }
            TOp::Prj(i, x) => {
                let _ = write!(out, "prj {i} {}", name(x));
            }
            TOp::Prim(i) => {
                let _ = write!(out, "<{}>", t.prim(i));
            }
            TOp::Fun(i) => {
                let (inner, caps) = t.fun(i);
                let inner_env: Vec<String> = caps.iter().map(|c| name(*c)).collect();
                template_text(out, inner, &inner_env, indent + 2);
                out.pop();
            }
        }
        out.push('\n');
    }
    let _ = write!(out, "{pad}ret {}", name(t.ret));
}
