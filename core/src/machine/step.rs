//! The step rules (SEMANTICS.md §2–§4): reduce an alias, a call, a projection, garbage;
//! dispatch an external call as a task and resolve it, inlining bodies and results in label
//! order.

use super::*;

pub(super) fn sym_v() -> crate::names::Sym {
    static V: std::sync::OnceLock<crate::names::Sym> = std::sync::OnceLock::new();
    *V.get_or_init(|| crate::names::Sym::intern("v"))
}

/// Where `Machine::put` inserts the next replacement of a statement.
pub(super) struct Insert {
    pub(super) prev: u32,
    pub(super) label: LabelId,
    pub(super) bind: VarId,
    pub(super) at: u32,
    pub(super) next: u32,
}

/// `fun p: st := prj 1 p; ap := prj 2 p; (x_i := <c_i>; st := ap (st, x_i))*; [st := rest (st, ap)]; st`
pub(super) fn partial_list_template(items: &[Prim], more: bool) -> Arc<Template> {
    let mut t = Template::with_names(vec![
        Name::plain("p"),
        Name::plain("state"),
        Name::plain("append"),
    ]);
    t.push(1, TOp::Prj(1, TVar::Local(0)));
    t.push(2, TOp::Prj(2, TVar::Local(0)));
    let mut state = 1u32;
    let fresh = |t: &mut Template, base: &str, i: u32| {
        t.names.push(Name {
            base: crate::names::Sym::intern(base),
            idx: i,
        });
        t.names.len() as u32 - 1
    };
    for (i, c) in items.iter().enumerate() {
        let i = i as u32 + 1;
        let x = fresh(&mut t, "x", i);
        let op = t.prim_op(c.clone());
        t.push(x, op);
        let tu = fresh(&mut t, "t", i);
        let op = t.tuple_op([TVar::Local(state), TVar::Local(x)]);
        t.push(tu, op);
        let st = fresh(&mut t, "state", i);
        t.push(st, TOp::Call(TVar::Local(2), TVar::Local(tu)));
        state = st;
    }
    if more {
        let k = items.len() as u32 + 1;
        let tu = fresh(&mut t, "t", k);
        let op = t.tuple_op([TVar::Local(state), TVar::Local(2)]);
        t.push(tu, op);
        let st = fresh(&mut t, "state", k);
        t.push(st, TOp::Call(TVar::Free(0), TVar::Local(tu)));
        state = st;
        t.free = vec![Name::plain("rest")];
    }
    t.ret = TVar::Local(state);
    Arc::new(t)
}

impl Machine {
    /// Takes one step at `s` if it is steppable. Dispatch returns the new task; the caller
    /// starts the external call. The statements the step created are in `created()`.
    pub fn step(&mut self, s: StmtId) -> Option<StepEvent> {
        let rule = self.steppable(s).ok()?;
        // Garbage is used by nothing, so it is never on the chain of needs.
        if s.raw() != self.lazy_proposed && rule != Rule::ReduceGc {
            self.lazy_stack.clear();
        }
        let label = self.stmts[s].label;
        if !self.data_watch.is_empty() {
            self.data_changed(self.stmts[s].bind);
        }
        self.steps[rule as usize] += 1;
        self.created.clear();
        let task = match rule {
            Rule::ReduceAlias => {
                self.reduce_alias(s);
                None
            }
            Rule::ReduceGc => {
                self.remove(s);
                None
            }
            Rule::ReduceProj => {
                self.reduce_proj(s)?;
                None
            }
            Rule::ReduceCall => {
                self.reduce_call(s)?;
                None
            }
            Rule::Dispatch => Some(self.dispatch(s, label)?),
            Rule::Resolve => Some(self.resolve(s, label)?),
        };
        self.advance_walks();
        Some(StepEvent { rule, label, task })
    }

    /// reduce-proj: `x := prj i y` with `y` bound to a tuple becomes an alias of component i.
    fn reduce_proj(&mut self, s: StmtId) -> Option<()> {
        let MOp::Prj(i, x) = self.stmts[s].op else {
            return None;
        };
        let xb = self.binder(x)?;
        let MOp::Tuple(xs) = self.stmts[xb].op else {
            return None;
        };
        let xi = *self.tuple(xs).get(i as usize - 1)?;
        let mut at = self.open(s);
        self.put(&mut at, None, MOp::Alias(xi), None);
        Some(())
    }

    /// reduce-call: `x := f w` with `f` bound to a function inlines its body with `w`.
    fn reduce_call(&mut self, s: StmtId) -> Option<()> {
        let MOp::Call(f, w) = self.stmts[s].op else {
            return None;
        };
        let fb = self.binder(f)?;
        let MOp::Fun(clo) = self.stmts[fb].op else {
            return None;
        };
        let mut env = std::mem::take(&mut self.scratch_env);
        env.clear();
        let Some((tpl, clo_env)) = self.closure(clo) else {
            self.scratch_env = env;
            return None;
        };
        let tpl = tpl.clone();
        env.extend_from_slice(clo_env);
        self.inline(s, &tpl, &env, Some(w), false);
        self.scratch_env = env;
        Some(())
    }

    /// dispatch: `x := f w` with `f` an external and `w` ready becomes a pending task.
    fn dispatch(&mut self, s: StmtId, label: LabelId) -> Option<TaskId> {
        let MOp::Call(f, w) = self.stmts[s].op else {
            return None;
        };
        let ext = match self.binder(f).map(|b| self.stmts[b].op) {
            Some(MOp::Prim(p)) => match self.prim(p) {
                Prim::Ext(e) => e.clone(),
                _ => return None,
            },
            _ => return None,
        };
        let arg = match self.pexp_ready(w) {
            Ok(()) => self.pexp_of(w),
            Err(_) => self.data_arg(w).ok()?,
        };
        // An ordered call's argument is `(seq, x)`: the external sees x alone. (`join`
        // takes tokens too, as data: only an ordered external's token is taken off.)
        let is_ordered = self.ordered.contains(&ext);
        let (arg, ordered) = match arg {
            PExp::Tuple(mut xs)
                if is_ordered
                    && xs.len() == 2
                    && matches!(&xs[0], PExp::Prim(Prim::Handle(h)) if &**h == crate::ir::SEQ_TOKEN) =>
            {
                (xs.pop().unwrap_or(PExp::Tuple(vec![])), true)
            }
            other => (other, false),
        };
        let rec = TaskRec {
            stmt: s,
            label,
            ext,
            arg,
            outcome: None,
            stream: None,
            dispatched_at_ms: 0.0,
            resolved_at_ms: None,
            ordered,
        };
        let t = self.new_task(rec);
        let op = std::mem::replace(&mut self.stmts[s].op, MOp::Task(t));
        self.drop_op(op);
        self.dispatched += 1;
        self.walks.forget_stmt(s);
        Some(t)
    }

    /// resolve: a task whose outcome arrived is replaced by its result (inlined in label
    /// order), a value, or a partial list; a failed task stays.
    fn resolve(&mut self, s: StmtId, label: LabelId) -> Option<TaskId> {
        let MOp::Task(t) = self.stmts[s].op else {
            return None;
        };
        if let Some(Outcome::Failed(_)) = self.tasks[t].outcome {
            return None;
        }
        // Taken out while the resolution inlines it (which needs `&mut self`), then put back.
        let outcome = self.tasks[t].outcome.take()?;
        let ordered = self.tasks[t].ordered;
        match &outcome {
            Outcome::Expr(tpl, _) => self.inline(s, tpl, &[], None, ordered),
            Outcome::Value(c) => {
                let v = self.new_var(
                    Name {
                        base: sym_v(),
                        idx: 0,
                    },
                    label,
                );
                let mut at = self.open(s);
                let c = self.new_prim(c.clone());
                self.put(&mut at, Some(v), c, None);
                self.finish(&mut at, v, ordered);
            }
            Outcome::Partial { items, more } => self.resolve_partial(s, t, items, *more, ordered),
            Outcome::Failed(_) => {}
        }
        self.tasks[t].outcome = Some(outcome);
        // The task's record stays readable until the strategies next recycle slots.
        self.tasks[t].stmt = StmtId::from_raw(NONE);
        self.freed_tasks.push(t.raw());
        Some(t)
    }

    pub(super) fn new_task(&mut self, rec: TaskRec) -> TaskId {
        match self.free_tasks.pop() {
            Some(i) => {
                self.tasks[TaskId::from_raw(i)] = rec;
                TaskId::from_raw(i)
            }
            None => {
                self.tasks.push(rec);
                TaskId::from_raw(self.tasks.len() as u32 - 1)
            }
        }
    }

    /// Records the outcome of a task's external call; the task becomes resolvable.
    pub fn deliver(&mut self, t: TaskId, outcome: Outcome, at_ms: f64) {
        if !self.task_live(t) {
            return;
        }
        let task = &mut self.tasks[t];
        if task.outcome.is_some() {
            return;
        }
        task.outcome = Some(outcome);
        task.resolved_at_ms = Some(at_ms);
        let s = task.stmt;
        self.mark_dirty(s);
    }

    pub(super) fn reduce_alias(&mut self, s: StmtId) {
        let (y, x) = {
            let n = &self.stmts[s];
            match n.op {
                MOp::Alias(x) => (n.bind, x),
                _ => return,
            }
        };
        // Hold x while the alias leaves, so its use count does not pass through zero (which
        // would mark its binder dirty for nothing when y's uses are about to become x's).
        self.vars[x].count += 1;
        let y_own = self.own_source_name(y);
        self.remove(s);
        if x == y {
            self.drop_use(x);
            return;
        }
        // Every occurrence of y becomes x. When x occurs in fewer statements than y, the same
        // term is reached by renaming x's occurrences to y and giving y x's binding, name and
        // label instead: each step then costs the smaller use list, and a long chain of
        // aliases (a lazy left fold defers one call per element, all using one function,
        // renamed at every element) costs O(n log n) in all instead of O(n²).
        // (A y nothing uses was freed by the removal: its slot is not ours to rename into.)
        let len = |v: VarId| self.spill.slice(&self.vars[v].uses).len();
        if self.vars[y].binder != FREED
            && len(x) < len(y)
            && x != self.ret
            && !self.on_lazy_stack(x, y)
            && !self.data_watch.contains_key(&x)
        {
            self.alias_into(y, x, y_own);
            return;
        }
        self.names_move(y, y_own, x);
        if !self.walks.is_idle() {
            self.walks.survives(y, x);
        }
        let mut notify = std::mem::take(&mut self.scratch_stmts);
        notify.clear();
        self.rename_occurrences(y, x, &mut notify);
        if self.ret == y {
            self.ret = x;
            self.vars[x].count += 1;
            self.vars[y].count = self.vars[y].count.saturating_sub(1);
        }
        self.drop_use(x);
        self.release_var(y);
        for &u in &notify {
            self.notify(u);
        }
        self.scratch_stmts = notify;
    }

    /// Every occurrence of `from` becomes `to`: the operands, the use counts and the use lists
    /// move over; the statements that changed are appended to `renamed`.
    pub(super) fn rename_occurrences(&mut self, from: VarId, to: VarId, renamed: &mut Vec<StmtId>) {
        let mut uses = std::mem::take(&mut self.vars[from].uses);
        let mut users = std::mem::take(&mut self.scratch_users);
        users.clear();
        users.extend_from_slice(self.spill.slice(&uses));
        self.spill.clear(&mut uses);
        for &u in &users {
            let mut n = 0;
            let mut sub = |v: &mut VarId| {
                if *v == from {
                    *v = to;
                    n += 1;
                }
            };
            match &mut self.stmts[u].op {
                MOp::Alias(v) | MOp::Prj(_, v) => sub(v),
                MOp::Call(a, b) => {
                    sub(a);
                    sub(b)
                }
                MOp::Tuple(o) => n = self.operands.rename(*o, from, to),
                MOp::Fun(c) => {
                    if let Some(c) = self.closures.get(c.0) {
                        n = self.operands.rename(c.env, from, to);
                    }
                }
                MOp::Prim(_) | MOp::Task(_) | MOp::Gone => {}
            }
            if n == 0 {
                continue;
            }
            let tv = &mut self.vars[to];
            tv.count += n;
            if self.spill.last(&tv.uses) != Some(u) {
                let (stmts, operands, closures) = (&self.stmts, &self.operands, &self.closures);
                self.spill.push(&mut tv.uses, u, |u| {
                    still_uses(stmts, operands, closures, u, to)
                });
            }
            self.vars[from].count -= n.min(self.vars[from].count);
            renamed.push(u);
        }
        self.vars[from].uses = uses;
        self.scratch_users = users;
    }

    /// Is x on the lazy chain of needs (`lazy_stack`), where renaming it would leave a stale
    /// entry? A lazy step of `y := x` has y on top, and x below it would be a cycle of needs;
    /// so the O(depth) search runs only for a step the lazy strategy did not propose.
    pub(super) fn on_lazy_stack(&self, x: VarId, y: VarId) -> bool {
        match self.lazy_stack.last() {
            None => false,
            Some(&top) if top == y => false,
            Some(_) => self.lazy_stack.contains(&x),
        }
    }

    /// reduce-alias of `y := x` (already removed) by renaming x's occurrences to y: y takes
    /// x's binding statement, name and label, so the term reads exactly as if y had become x.
    /// y's own users now see x's binding: they may step if it is a value.
    pub(super) fn alias_into(&mut self, y: VarId, x: VarId, y_own: Option<SourceName>) {
        if !self.walks.is_idle() {
            self.walks.survives(x, y);
        }
        let mut renamed = std::mem::take(&mut self.scratch_stmts);
        renamed.clear();
        self.rename_occurrences(x, y, &mut renamed);
        self.scratch_stmts = renamed;
        // y is x now: its binding statement, and the name and label it prints with.
        let b = self.vars[x].binder;
        let (name, fresh) = (self.vars[x].name, self.vars[x].fresh);
        let x_own = self.own_source_name(x);
        let yv = &mut self.vars[y];
        yv.binder = b;
        yv.name = name;
        yv.fresh = fresh;
        if b < FREED {
            self.stmts[StmtId::from_raw(b)].bind = y;
        }
        self.names_take_identity(x, x_own, y, y_own);
        let xv = &mut self.vars[x];
        xv.binder = NONE;
        xv.count = 0; // the hold taken for the alias's removal
        self.release_var(x);
        // y's users waited for y's binding (an alias): a value there may let them step. A
        // binding that is not a value becomes one only through a step that renames y, which
        // tells them then.
        if b < FREED && self.stmts[StmtId::from_raw(b)].op.is_value() {
            let mut users = std::mem::take(&mut self.scratch_users);
            users.clear();
            users.extend_from_slice(self.spill.slice(&self.vars[y].uses));
            for &u in &users {
                self.notify(u);
            }
            self.scratch_users = users;
        }
        // Nothing may use y any more (its statements were garbage): it is then garbage too.
        if self.vars[y].count == 0 && b < FREED {
            self.mark_dirty(StmtId::from_raw(b));
        }
    }

    /// A statement's operands changed: it and, through tuples, its users may now step.
    pub(super) fn notify(&mut self, s: StmtId) {
        self.mark_dirty(s);
        if !matches!(self.stmts[s].op, MOp::Tuple(_)) {
            return;
        }
        let mut stack = std::mem::take(&mut self.scratch_notify);
        stack.clear();
        stack.push(s);
        while let Some(u) = stack.pop() {
            self.mark_dirty(u);
            if let MOp::Tuple(_) = self.stmts[u].op {
                let b = self.stmts[u].bind;
                for &w in self.spill.slice(&self.vars[b].uses) {
                    if self.stmts[w].is_alive() && !self.in_dirty[w] {
                        stack.push(w);
                    }
                }
            }
        }
        self.scratch_notify = stack;
    }

    /// Starts replacing statement `s`: it leaves the term; `put` inserts its replacements.
    pub(super) fn open(&mut self, s: StmtId) -> Insert {
        let n = &self.stmts[s];
        // What replaces a statement is not the call the program wrote: it keeps the place only.
        let at = match unmarked(n.at) {
            NONE => NONE,
            at => at | INHERITED,
        };
        let (label, bind) = (n.label, n.bind);
        let prev = self.unlink(s);
        self.free_stmt(s);
        Insert {
            prev,
            label,
            bind,
            at,
            next: 1,
        }
    }

    /// Inserts the next replacement statement `ℓ.i`; `None` binds the replaced statement's variable.
    pub(super) fn put(
        &mut self,
        at: &mut Insert,
        bind: Option<VarId>,
        op: MOp,
        pos: Option<u32>,
    ) -> StmtId {
        let l = self.labels.child(at.label, at.next);
        at.next += 1;
        let id = self.push_stmt(l, bind.unwrap_or(at.bind), op, pos.unwrap_or(at.at));
        self.link_after(at.prev, id);
        at.prev = id.raw();
        // Only what can step goes in the dirty set now, decided while the node is in cache:
        // every later change that could make a statement steppable marks it then. A new value
        // can only step by reduce-gc, and only if nothing uses it once the step is done
        // (`inline` marks those); a call or projection is decided now, since what it waits on
        // is bound earlier in the term and no later statement of this step changes it.
        let now = match op {
            MOp::Alias(_) => true,
            _ if op.is_value() => false,
            // A dispatch made by this step that waits for its data (a `print xs` in a branch
            // while `xs` still streams) watches it, as a round's candidate does: nothing else
            // would mark it dirty when the data completes.
            _ => match self.steppable(id) {
                Ok(_) => true,
                Err(Blocked::WaitData(v)) => {
                    self.watch_data(v, id, self.data_cost.get());
                    false
                }
                Err(_) => false,
            },
        };
        if now {
            self.mark_dirty(id);
        }
        self.created.push(id);
        id
    }

    /// reduce-call and resolve: `x' := w; s̄'; z := y'` with the body freshened at ℓ.
    /// Statements keep the source span they were written at (the debugger's current line).
    pub(super) fn inline(
        &mut self,
        s: StmtId,
        tpl: &Template,
        env: &[VarId],
        arg: Option<VarId>,
        ordered: bool,
    ) {
        let (label, at) = (self.stmts[s].label, self.stmts[s].at);
        if at != NONE && at & LIBRARY_CALL != 0 {
            self.library_entered.push((label, unmarked(at)));
        }
        let mut locals = std::mem::take(&mut self.scratch_locals);
        locals.clear();
        for n in &tpl.names {
            let v = self.new_var(*n, label);
            locals.push(v);
        }
        let map = |v: TVar| match v {
            TVar::Free(i) => env[i as usize],
            TVar::Local(i) => locals[i as usize],
        };
        let mut at = self.open(s);
        if let Some(w) = arg {
            self.put(&mut at, Some(locals[0]), MOp::Alias(w), None);
        }
        for ts in &tpl.stmts {
            let op = match ts.op {
                TOp::Alias(y) => MOp::Alias(map(y)),
                TOp::Call(f, x) => MOp::Call(map(f), map(x)),
                TOp::Tuple(start, len) => MOp::Tuple(
                    self.operands
                        .alloc(tpl.tuple(start, len).iter().map(|x| map(*x))),
                ),
                TOp::Prj(i, x) => MOp::Prj(i, map(x)),
                TOp::Prim(i) => self.new_prim(tpl.prim(i).clone()),
                TOp::Fun(i) => {
                    let (t, caps) = tpl.fun(i);
                    self.new_fun(t.clone(), caps.iter().map(|c| map(*c)))
                }
            };
            self.put(
                &mut at,
                Some(locals[ts.local as usize]),
                op,
                (ts.at != NONE).then_some(ts.at),
            );
        }
        self.finish(&mut at, map(tpl.ret), ordered);
        // Binders of the template that no statement uses are garbage already: a value bound
        // to one is steppable by reduce-gc (`put` left it unmarked).
        for &v in &locals {
            if self.vars[v].count == 0 {
                if let Some(b) = self.binder(v) {
                    self.mark_dirty(b);
                }
            }
            self.release_var(v);
        }
        self.scratch_locals = locals;
    }

    /// The last statement of a replacement: `z := y`, or for an ordered call's resolution
    /// `k := <seq>; r := (k, y); z := r`, the token the next ordered call waits for. (It ends
    /// in an alias like every replacement: reduce-alias is what tells z's users.)
    pub(super) fn finish(&mut self, at: &mut Insert, y: VarId, ordered: bool) {
        if !ordered {
            self.put(at, None, MOp::Alias(y), None);
            return;
        }
        let k = self.new_var(Name::plain(crate::ir::SEQ_TOKEN), at.label);
        let token = self.new_prim(Prim::Handle(Arc::from(crate::ir::SEQ_TOKEN)));
        self.put(at, Some(k), token, None);
        let r = self.new_var(Name::plain("r"), at.label);
        let pair = MOp::Tuple(self.operands.alloc([k, y].into_iter()));
        self.put(at, Some(r), pair, None);
        self.put(at, None, MOp::Alias(r), None);
    }

    /// resolve of a streaming task: `h := <<rest>>` (if more), the partial list, `z := l`.
    pub(super) fn resolve_partial(
        &mut self,
        s: StmtId,
        t: TaskId,
        items: &[Prim],
        more: bool,
        ordered: bool,
    ) {
        let label = self.stmts[s].label;
        let tpl = partial_list_template(items, more);
        let mut at = self.open(s);
        let mut env = Vec::new();
        if more {
            let h = self.new_var(Name::plain("rest"), label);
            let old = &self.tasks[t];
            let rec = TaskRec {
                stmt: StmtId::from_raw(NONE),
                label: ROOT,
                ext: old.ext.clone(),
                arg: old.arg.clone(),
                outcome: None,
                stream: old.stream,
                dispatched_at_ms: old.resolved_at_ms.unwrap_or(old.dispatched_at_ms),
                resolved_at_ms: None,
                ordered: false,
            };
            let nt = self.new_task(rec);
            let hs = self.put(&mut at, Some(h), MOp::Task(nt), None);
            self.tasks[nt].stmt = hs;
            self.tasks[nt].label = self.stmts[hs].label;
            self.dispatched += 1;
            env.push(h);
        }
        let l = self.new_var(Name::plain("list"), label);
        let f = self.new_fun(tpl, env.into_iter());
        self.put(&mut at, Some(l), f, None);
        self.finish(&mut at, l, ordered);
    }

    /// The task that continues a stream's list, if the last step (a resolve) created one.
    pub fn continuation(&self, ev: &StepEvent) -> Option<TaskId> {
        self.created.first().and_then(|s| match self.stmts[*s].op {
            MOp::Task(nt) if ev.rule == Rule::Resolve => Some(nt),
            _ => None,
        })
    }
}
