//! `setBreakpoints` and `setFunctionBreakpoints`. The protocol answers one breakpoint per
//! requested breakpoint, in order (a client matches them by position), so a request that cannot
//! be a breakpoint (a line of `-1` or `1.5`, a function breakpoint without a name) is answered
//! unverified with a message, never dropped.

use super::{externals_used, Adapter, LineBreakpoint};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The lines a `setBreakpoints` request asks for, in order: each a line, or why it is not one.
fn requested_lines(args: &Value) -> Result<Vec<Result<usize, String>>, String> {
    let line = |v: &Value| -> Result<usize, String> {
        v.as_u64()
            .filter(|l| *l >= 1)
            .and_then(|l| usize::try_from(l).ok())
            .ok_or_else(|| format!("`line` must be a line number (1 or more), not {v}"))
    };
    let list = |key: &str| match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(format!(
            "setBreakpoints: `{key}` must be an array, not {other}"
        )),
    };
    // `lines` is the deprecated form; `breakpoints` wins when both are there.
    Ok(match (list("breakpoints")?, list("lines")?) {
        (Some(bps), _) => bps
            .iter()
            .map(|b| {
                b.get("line")
                    .ok_or_else(|| "a breakpoint without a `line`".to_string())
                    .and_then(line)
            })
            .collect(),
        (None, Some(lines)) => lines.iter().map(line).collect(),
        (None, None) => Vec::new(),
    })
}

impl Adapter {
    pub(super) fn is_program(&self, path: &str) -> bool {
        let p = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
        self.program.as_deref() == Some(p.as_path())
    }

    fn next_breakpoint_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// A breakpoint at `line`, moved to the next line that has a statement: (breakpoint, the
    /// message when it cannot stop anywhere).
    pub(super) fn verify(&mut self, line: usize) -> (LineBreakpoint, Option<String>) {
        let id = self.next_breakpoint_id();
        let lines: BTreeSet<usize> = self
            .session
            .as_ref()
            .map(|s| s.statement_lines())
            .unwrap_or_default();
        match lines.range(line..).next() {
            Some(&at) => (LineBreakpoint { id, line: at }, None),
            None => (
                LineBreakpoint { id, line: 0 },
                Some(format!("no statement on line {line} or after it")),
            ),
        }
    }

    pub(super) fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let path = args
            .pointer("/source/path")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let requested = requested_lines(args)?;
        let valid: Vec<usize> = requested
            .iter()
            .filter_map(|r| r.as_ref().ok().copied())
            .collect();
        // Not verifiable now: every requested breakpoint unverified, with why.
        let unverified = |this: &mut Adapter, why: &str| -> Value {
            let bps: Vec<Value> = requested
                .iter()
                .map(|r| {
                    let id = this.next_breakpoint_id();
                    match r {
                        Ok(l) => json!({"id": id, "verified": false, "line": l, "message": why}),
                        Err(m) => json!({"id": id, "verified": false, "message": m}),
                    }
                })
                .collect();
            json!({"breakpoints": bps})
        };
        if self.session.is_none() {
            self.early_breakpoints.push((path, valid));
            return Ok(unverified(self, "waiting for the program to launch"));
        }
        if !self.is_program(&path) {
            return Ok(unverified(self, "not the program being debugged"));
        }
        let mut out = Vec::new();
        self.breakpoints.clear();
        for r in requested {
            let l = match r {
                Ok(l) => l,
                Err(m) => {
                    let id = self.next_breakpoint_id();
                    out.push(json!({"id": id, "verified": false, "message": m}));
                    continue;
                }
            };
            let (bp, why) = self.verify(l);
            match why {
                None => {
                    out.push(json!({"id": bp.id, "verified": true, "line": bp.line,
                                    "message": if bp.line == l { Value::Null } else { json!(format!("moved from line {l} to the next line with a statement")) }}));
                    self.breakpoints.push(bp);
                }
                Some(m) => {
                    out.push(json!({"id": bp.id, "verified": false, "line": l, "message": m}))
                }
            }
        }
        Ok(json!({"breakpoints": out}))
    }

    pub(super) fn set_function_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let requested: Vec<Option<String>> = match args.get("breakpoints") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|b| {
                    b.get("name")
                        .and_then(Value::as_str)
                        .filter(|n| !n.is_empty())
                        .map(str::to_string)
                })
                .collect(),
            Some(other) => {
                return Err(format!(
                    "setFunctionBreakpoints: `breakpoints` must be an array, not {other}"
                ))
            }
        };
        let used = self
            .session
            .as_ref()
            .map(externals_used)
            .unwrap_or_default();
        self.function_breakpoints.clear();
        let mut out = Vec::new();
        for name in requested {
            let id = self.next_breakpoint_id();
            match name {
                None => out.push(json!({"id": id, "verified": false, "message": "a function breakpoint needs a `name`: the name of an external"})),
                Some(name) => {
                    if self.session.is_some() && !used.contains(&name) {
                        out.push(json!({"id": id, "verified": false, "message": format!("the program calls no external named `{name}`")}));
                    } else {
                        out.push(json!({"id": id, "verified": true}));
                    }
                    self.function_breakpoints.push((id, name));
                }
            }
        }
        Ok(json!({"breakpoints": out}))
    }
}
