//! Names and scopes: fresh core names, binding sites, resolving a use (E0100, "did you mean"),
//! and the handle use counts that alternatives (`if` branches) undo and merge.

use super::checks::handle_twice;
use super::*;

impl Desugarer {
    pub(super) fn user_name(&mut self, base: &str) -> Name {
        let base = if self.prelude_mode {
            is_keyword_alias(base).unwrap_or(base)
        } else {
            base
        };
        // Hidden names (the token, `%seq`) print as `seq'k`.
        let hidden = base.starts_with('%');
        let base = base.strip_prefix('%').unwrap_or(base);
        let sym = Sym::intern(base);
        let c = self.counters.entry(sym).or_insert(0);
        let n = Name { base: sym, idx: *c };
        *c += 1;
        if !hidden && !self.prelude_mode {
            self.symbols.user_names.push(n);
        }
        n
    }

    pub(super) fn temp(&mut self, base: &'static str) -> Name {
        // Interning takes a global lock; temporaries use a handful of bases, cached here.
        let sym = match self.temp_syms.iter().find(|(b, _)| *b == base) {
            Some((_, s)) => *s,
            None => {
                let s = Sym::intern(base);
                self.temp_syms.push((base, s));
                s
            }
        };
        let c = self.counters.entry(sym).or_insert(1);
        if *c == 0 {
            *c = 1;
        }
        let n = Name { base: sym, idx: *c };
        *c += 1;
        n
    }

    pub(super) fn emit(&mut self, op: Op, span: Span, target: Option<Name>) -> Name {
        let bind = target.unwrap_or_else(|| self.temp("t"));
        self.buf.push(Stmt { bind, op, span });
        bind
    }

    pub(super) fn define(
        &mut self,
        id: &str,
        span: Span,
        core: Name,
        known: Known,
        kind: DefKind,
        lint: bool,
    ) -> usize {
        let def = self.symbols.defs.len();
        self.symbols.defs.push(Def {
            name: id.to_string(),
            span,
            kind,
            core,
            known: known.clone(),
        });
        let handle = known == Known::Handle;
        let vi = self.vars.len();
        self.vars.push(Var {
            core,
            def,
            known,
            handle,
            used: false,
            lint_unused: lint,
            handle_uses: 0,
            first_use: None,
            handles_only: false,
        });
        let scope = self.scopes.last_mut().map(|s| &mut s.vars);
        if let Some(vars) = scope {
            if let Some(old) = vars.insert(id.to_string(), vi) {
                self.check_unused(old);
            }
        }
        self.block_locals.remove(id);
        vi
    }

    pub(super) fn pop_scope(&mut self) -> Scope {
        let s = self.scopes.pop().unwrap_or(Scope {
            kind: ScopeKind::Top,
            vars: FastMap::default(),
        });
        let mut vis: Vec<usize> = s.vars.values().copied().collect();
        vis.sort();
        for vi in vis {
            self.check_unused(vi);
        }
        s
    }

    pub(super) fn find_var(&self, id: &str) -> Option<(usize, bool)> {
        let mut crossed_repeat = false;
        for s in self.scopes.iter().rev() {
            if let Some(&vi) = s.vars.get(id) {
                return Some((vi, crossed_repeat));
            }
            if matches!(s.kind, ScopeKind::Loop | ScopeKind::Fun) {
                crossed_repeat = true;
            }
        }
        None
    }

    /// Changes a handle's use count, remembering the old one so branches can be undone.
    fn set_handle_uses(&mut self, vi: usize, uses: u32) {
        self.handle_log.push((vi, self.vars[vi].handle_uses));
        self.vars[vi].handle_uses = uses;
    }

    /// Desugars the first of two alternatives (an `if`'s branches): its handle uses are undone
    /// afterwards and returned, so `merge_alternatives` counts the larger of the two branches,
    /// not the sum. The log holds every change since `mark` with the value before it, so undoing
    /// a branch costs what the branch changed, not the number of variables.
    pub(super) fn first_alternative<R>(
        &mut self,
        branch: impl FnOnce(&mut Self) -> R,
    ) -> (R, BranchUses) {
        let mark = self.handle_log.len();
        let env_before = self.env_handle_uses.clone();
        let r = branch(self);
        let env = std::mem::replace(&mut self.env_handle_uses, env_before);
        let changed: Vec<(usize, u32)> = self.handle_log[mark..].to_vec();
        let vars = changed
            .iter()
            .map(|&(vi, _)| (vi, self.vars[vi].handle_uses))
            .collect();
        for &(vi, old) in changed.iter().rev() {
            self.set_handle_uses(vi, old);
        }
        (r, BranchUses { vars, env })
    }

    /// After the second alternative: each handle counts the larger of its two branches' uses.
    pub(super) fn merge_alternatives(&mut self, first: BranchUses) {
        for (vi, a) in first.vars {
            let merged = self.vars[vi].handle_uses.max(a);
            self.set_handle_uses(vi, merged);
        }
        // `stdout` and `stderr` themselves count the same way.
        for (h, (n, span)) in first.env {
            let e = self.env_handle_uses.entry(h).or_insert((n, span));
            if n > e.0 {
                *e = (n, span);
            }
        }
    }

    /// Resolves a use of a source name; reports an unbound name.
    pub(super) fn use_name(&mut self, id: &Ident, as_handle_arg: bool) -> (Name, Known) {
        if let Some((vi, repeated)) = self.find_var(&id.name) {
            let v = &mut self.vars[vi];
            v.used = true;
            let def = v.def;
            if v.handle && as_handle_arg && !self.prelude_mode {
                let uses = v.handle_uses + if repeated { 2 } else { 1 };
                if uses >= 2 {
                    let first = v.first_use.unwrap_or(id.span);
                    self.set_handle_uses(vi, 0); // report once per binding
                    self.diags.push(handle_twice(&id.name, id.span, first));
                } else {
                    v.first_use = Some(id.span);
                    self.set_handle_uses(vi, uses);
                }
            }
            let v = &self.vars[vi];
            // A carried environment handle (`stdout` threaded through a loop) has no source
            // definition: it still refers to the handle.
            let target = if def == NO_DEF {
                RefTarget::Handle(id.name.clone())
            } else {
                RefTarget::Def(def)
            };
            self.symbols.refs.push((id.span, target));
            return (v.core, v.known.clone());
        }
        let name = if self.prelude_mode {
            is_keyword_alias(&id.name).unwrap_or(&id.name)
        } else {
            id.name.as_str()
        };
        if let Some(target) = self.env_name(name) {
            self.used_env.insert(name.to_string());
            if as_handle_arg && externals::is_handle(name) && !self.prelude_mode {
                let repeated = self
                    .scopes
                    .iter()
                    .any(|s| matches!(s.kind, ScopeKind::Loop | ScopeKind::Fun));
                let e = self
                    .env_handle_uses
                    .entry(name.to_string())
                    .or_insert((0, id.span));
                e.0 += if repeated { 2 } else { 1 };
                if e.0 >= 2 {
                    let first = e.1;
                    e.0 = 0;
                    self.diags.push(handle_twice(name, id.span, first));
                }
            }
            let known = match &target {
                RefTarget::Prelude(p) => Known::Fun(prelude::arity(p)),
                RefTarget::External(e) => Known::Ext(e.clone()),
                _ => Known::Handle,
            };
            self.symbols.refs.push((id.span, target));
            return (Name::plain(name), known);
        }
        let mut d = Diagnostic::error("E0100", id.span, format!("unbound name `{}`", id.name));
        if let Some(kind) = self.block_locals.get(&id.name) {
            d = d.with_help(format!(
                "`{}` was first bound inside {kind} and is local to it; bind it before that block (e.g. `{} := …`) to use it afterwards",
                id.name, id.name
            ));
        } else if let Some(s) = self.suggest(&id.name) {
            d = d.with_help(format!("did you mean `{s}`?")).with_fix(s);
        } else {
            d = d.with_help(format!(
                "bind `{}` with `:=` before this line, or declare it with `extern {}`",
                id.name, id.name
            ));
        }
        self.diags.push(d);
        (Name::plain(&id.name), Known::Unknown)
    }

    pub(super) fn env_name(&self, name: &str) -> Option<RefTarget> {
        if self.externs.iter().any(|(e, _)| e == name) {
            return Some(RefTarget::External(name.to_string()));
        }
        if self.prelude_mode {
            if externals::standard(name).is_some() {
                return Some(RefTarget::External(name.to_string()));
            }
            return None;
        }
        if prelude::names().contains(&name) {
            return Some(RefTarget::Prelude(name.to_string()));
        }
        if externals::standard(name).is_some() {
            return Some(RefTarget::External(name.to_string()));
        }
        if externals::is_handle(name) {
            return Some(RefTarget::Handle(name.to_string()));
        }
        None
    }

    /// The closest name in scope, for "did you mean".
    fn suggest(&self, name: &str) -> Option<String> {
        if self.prelude_mode {
            return None;
        }
        let mut cands: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.vars.keys().cloned())
            .collect();
        cands.extend(
            prelude::names()
                .iter()
                .filter(|n| !matches!(**n, "if" | "not" | "and" | "or"))
                .map(|s| s.to_string()),
        );
        cands.extend(externals::STANDARD.iter().map(|e| e.name.to_string()));
        cands.extend(externals::HANDLES.iter().map(|h| h.0.to_string()));
        cands.extend(self.externs.iter().map(|e| e.0.clone()));
        let max = (name.len() / 3).max(1);
        cands
            .into_iter()
            .map(|c| (edit_distance(name, &c), c))
            .filter(|(d, _)| *d <= max)
            .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, c)| c)
    }

    /// An environment name the desugarer itself calls (operators, `if`, `fold`, `fix`).
    pub(super) fn env(&mut self, name: &str) -> Name {
        self.used_env.insert(name.to_string());
        Name::plain(name)
    }

    /// The current core name of a source name (after any rebinding).
    pub(super) fn current(&mut self, name: &str) -> Name {
        match self.find_var(name) {
            Some((vi, _)) => {
                self.vars[vi].used = true;
                self.vars[vi].core
            }
            None => self.env(name),
        }
    }
}

pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
