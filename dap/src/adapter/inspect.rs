//! Inspecting a stop: the stack (the statement in focus and the calls that put it there),
//! the scopes and variables (the program's names first), the Debug Console (an expression
//! over them, or a `:command`), the task graph.

use super::*;

const HELP: &str = "an OPAL expression over the variables in scope (city, length excursions) \
    answers its value; commands: :resolve LABEL EXPRESSION (a pending task's result; a list \
    ending in ... is partial), :why LABEL (why a statement can or cannot step), :step LABEL \
    (step that statement), :round (one action of the strategy: an opportunistic round), :rule \
    (one rule step), :help";

impl Adapter {
    pub(super) fn scopes(&mut self) -> Result<Value, String> {
        self.session()?;
        Ok(json!({"scopes": [
            {"name": "Locals", "variablesReference": SCOPE_LOCALS, "expensive": false, "presentationHint": "locals"},
            {"name": "Statement (core)", "variablesReference": SCOPE_STATEMENT, "expensive": false},
            {"name": "Labeled term", "variablesReference": SCOPE_TERM, "expensive": false},
            {"name": "Pending tasks", "variablesReference": SCOPE_TASKS, "expensive": false},
            {"name": "Output", "variablesReference": SCOPE_OUTPUT, "expensive": false},
        ]}))
    }

    /// The statement in focus, then the calls it runs inside, each at the line it was
    /// written (consecutive calls on one line, a loop's machinery, are one frame).
    pub(super) fn stack_trace(&mut self, args: &Value) -> Result<Value, String> {
        let path = self
            .program
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let name = self
            .program
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let focus = self.focus;
        let s = self.session()?;
        let Some(st) = focus.and_then(|k| s.find(k)) else {
            return Ok(json!({"stackFrames": [], "totalFrames": 0}));
        };
        let source = json!({"name": name, "path": path});
        let code = |line: Option<usize>| -> String {
            let text = line
                .and_then(|l| s.source().lines().nth(l.wrapping_sub(1)))
                .map(str::trim)
                .unwrap_or("");
            let text = text.strip_suffix(':').unwrap_or(text);
            match text.char_indices().nth(60) {
                Some((i, _)) => format!("{}…", &text[..i]),
                None => text.to_string(),
            }
        };
        let top = s.line_of(st);
        let mut lines: Vec<Option<usize>> = vec![top];
        for (_, line) in s.call_chain(st, 10_000) {
            if line.is_some() && lines.last() != Some(&line) {
                lines.push(line);
            }
        }
        let mut frames: Vec<Value> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let mut name = code(*line);
            if name.is_empty() {
                name = s.row(st).text;
            }
            frames.push(json!({
                "id": i,
                "name": name,
                "source": source,
                "line": line.unwrap_or(0),
                "column": 1,
            }));
        }
        let start = args.get("startFrame").and_then(Value::as_u64).unwrap_or(0) as usize;
        let levels = args
            .get("levels")
            .and_then(Value::as_u64)
            .filter(|l| *l > 0)
            .unwrap_or(200) as usize;
        let total = frames.len();
        let frames: Vec<Value> = frames.into_iter().skip(start).take(levels).collect();
        Ok(json!({"stackFrames": frames, "totalFrames": total}))
    }

    pub(super) fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args
            .get("variablesReference")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let start = args.get("start").and_then(Value::as_u64).unwrap_or(0) as usize;
        let count = args
            .get("count")
            .and_then(Value::as_u64)
            .filter(|c| *c > 0)
            .unwrap_or(u64::MAX) as usize;
        let focus = self.focus;
        let s = self.session()?;
        let var = |name: &str, value: String| json!({"name": name, "value": value, "variablesReference": 0});
        let vars: Vec<Value> = match reference {
            SCOPE_LOCALS => {
                let locals = match focus.and_then(|k| s.find(k)) {
                    Some(st) => s.locals(st),
                    None => s.top_locals(),
                };
                locals
                    .into_iter()
                    .skip(start)
                    .take(count)
                    .map(|l| json!({"name": l.name, "value": l.value, "variablesReference": 0, "evaluateName": l.name}))
                    .collect()
            }
            SCOPE_STATEMENT => match focus.and_then(|k| s.find(k)) {
                Some(st) => {
                    let row = s.row(st);
                    vec![
                        var("label", s.label_tip(st)),
                        var("statement", row.text.clone()),
                        var("status", row.status.to_string()),
                        var("core", row.core.clone()),
                        var("line", row.line.map(|l| l.to_string()).unwrap_or_else(|| "(none)".into())),
                        var("value", s.value_text(s.machine().stmt(st).bind)),
                    ]
                }
                None => vec![var("statement", "(none)".into())],
            },
            SCOPE_TERM => s
                .statements()
                .into_iter()
                .filter(|st| !s.is_prelude(*st))
                .skip(start)
                .take(count)
                .map(|st| {
                    let row = s.row(st);
                    json!({"name": row.label, "value": row.text, "variablesReference": 0, "type": row.status.to_string()})
                })
                .collect(),
            SCOPE_TASKS => s.pending().into_iter().map(|(st, call)| var(&s.row(st).label, call)).collect(),
            SCOPE_OUTPUT => s.output().lines().enumerate().skip(start).take(count).map(|(i, l)| var(&(i + 1).to_string(), l.to_string())).collect(),
            _ => return Err(format!("no variables with reference {reference}")),
        };
        Ok(json!({"variables": vars}))
    }

    /// The Debug Console, watches and hovers: an OPAL expression over the variables in scope
    /// at the focus (`city`, `length excursions`); `:resolve LABEL EXPRESSION`, `:why LABEL`,
    /// `:step LABEL` and `:help` are commands (a name never starts with `:`).
    pub(super) fn evaluate(&mut self, args: &Value) -> Result<Value, String> {
        let text = args
            .get("expression")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        let focus = self.focus;
        let s = self.session()?;
        let Some(command) = text.strip_prefix(':') else {
            let at = focus.and_then(|k| s.find(k));
            return match s.evaluate(at, &text) {
                Ok(v) => Ok(json!({"result": v, "variablesReference": 0})),
                Err(e) => {
                    let word = text.split_whitespace().next().unwrap_or("");
                    if ["resolve", "why", "step", "help"].contains(&word) {
                        Err(format!(
                            "{e}; the console's commands start with `:` (`:{word} …`)"
                        ))
                    } else {
                        Err(e)
                    }
                }
            };
        };
        let (cmd, rest) = command
            .split_once(char::is_whitespace)
            .map(|(c, r)| (c, r.trim()))
            .unwrap_or((command, ""));
        let result = match cmd {
            "resolve" => {
                let (label, expr) = rest.split_once(char::is_whitespace).ok_or(
                    "usage: :resolve LABEL EXPRESSION, e.g. :resolve 2 [\"Honolulu\", ...]",
                )?;
                let r = s.resolve_with(&s.parse_label(label)?, expr.trim())?;
                self.stopped("step", &r);
                r
            }
            "why" => {
                let label = s.parse_label(rest)?;
                let st = s
                    .find(label.key())
                    .ok_or_else(|| format!("no statement has label {rest} now"))?;
                let row = s.row(st);
                format!("{}: {}", row.text, row.status)
            }
            "step" => {
                let r = s.step(&s.parse_label(rest)?)?;
                self.stopped("step", &r);
                r
            }
            // The calculus rule by rule, from the console (VS Code sends the `instruction`
            // granularity only from its disassembly view).
            "round" | "rule" => {
                let granularity = json!({"granularity": "instruction"});
                let kind = if cmd == "round" {
                    StepKind::Over
                } else {
                    StepKind::In
                };
                self.step(kind, &granularity)?;
                format!(
                    "one {}",
                    if cmd == "round" {
                        "action"
                    } else {
                        "rule step"
                    }
                )
            }
            "" | "help" => HELP.into(),
            other => return Err(format!("unknown command `:{other}`; try :help")),
        };
        Ok(json!({"result": result, "variablesReference": 0}))
    }

    /// The custom request `opal/taskGraph` (`{"mode": "calls" | "statements"}`): the graph an
    /// editor draws.
    pub(super) fn task_graph(&mut self, args: &Value) -> Result<Value, String> {
        let statements = args.get("mode").and_then(Value::as_str) == Some("statements");
        let s = self.session()?;
        let full = if statements {
            s.statement_graph(false)
        } else {
            s.call_graph(false)
        };
        let g = s.grouped(&full, 80, &Default::default(), &Default::default());
        let nodes: Vec<Value> = g
            .nodes
            .iter()
            .map(|n| {
                let (title, detail) = match (n.title.is_empty(), n.stmt) {
                    (true, Some(st)) => {
                        let row = s.row(st);
                        (row.text, row.status.to_string())
                    }
                    _ => (n.title.clone(), n.detail.clone()),
                };
                json!({
                    "id": format!("{:x}", n.key.0),
                    "label": n.label,
                    "title": title,
                    "detail": detail,
                    "kind": kind_name(n.kind),
                    "state": n.call.map(|c| format!("{c:?}").to_lowercase()),
                    "members": n.members,
                    "line": n.line,
                })
            })
            .collect();
        let edges: Vec<Value> = g.edges.iter().map(|(a, b)| json!([a, b])).collect();
        // Edges that only order two calls (the sequencing token), for a client to draw dashed.
        let ordering: Vec<Value> = g.ordering.iter().map(|(a, b)| json!([a, b])).collect();
        Ok(
            json!({"nodes": nodes, "edges": edges, "ordering": ordering, "standing": s.standing().text()}),
        )
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Steppable(_) => "steppable",
        Kind::Value => "value",
        Kind::Waiting => "waiting",
        Kind::Pending => "pending",
        Kind::Stuck => "stuck",
    }
}
