//! Exhaustive exploration of step orders (for `opal explore` and confluence tests).
//!
//! Every task is resolved by one fixed resolution (pure externals, the world file's first
//! reply, `coin`'s first choice), delivered at dispatch; resolving is still its own step.

use super::run::{eval_pure, Host};
use super::{Machine, Outcome, Rule, StmtId, TaskId};
use crate::ir::PExp;
use crate::world::{Reply, World};
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

pub struct Explored {
    pub states: usize,
    pub normal_forms: Vec<String>,
    pub truncated: bool,
}

/// The fixed resolution of a task, computed without waiting.
pub fn resolve_now(host: &mut Host, ext: &str, arg: &PExp) -> Outcome {
    if let Some(w) = host.world.as_ref().and_then(|w| w.get(ext)).cloned() {
        if let Some(outcome) = host.choose(&w, super::run::Choice::First) {
            return outcome;
        }
        return match w.reply(arg) {
            Some((Reply::Result(src), _)) => host.compile_result(&src).unwrap_or_else(Outcome::Failed),
            Some((Reply::Stream(chunks, _), _)) => {
                Outcome::Partial { items: chunks.iter().map(|c| crate::ir::Prim::Str(Arc::from(c.as_str()))).collect(), more: false }
            }
            None => Outcome::Failed(format!("no world response for `{ext}` {arg}")),
        };
    }
    match ext {
        "coin" => host.compile_result("true").unwrap_or_else(Outcome::Failed),
        "sleep" => host.compile_result("()").unwrap_or_else(Outcome::Failed),
        _ => eval_pure(ext, arg, &mut |_, _| {}, tokio::time::Instant::now()).unwrap_or_else(Outcome::Failed),
    }
}

/// Steps `s` and, on dispatch, delivers the task's fixed resolution.
pub fn step_resolving(m: &mut Machine, host: &mut Host, s: StmtId) -> Option<super::StepEvent> {
    let ev = m.step(s)?;
    if ev.rule == Rule::Dispatch {
        if let Some(t) = ev.task {
            deliver_now(m, host, t);
        }
    }
    Some(ev)
}

pub fn deliver_now(m: &mut Machine, host: &mut Host, t: TaskId) {
    let (ext, arg) = (m.tasks[t.0 as usize].ext.clone(), m.tasks[t.0 as usize].arg.clone());
    let o = resolve_now(host, &ext, &arg);
    m.deliver(t, o, 0.0);
}

pub fn steppable(m: &Machine) -> Vec<StmtId> {
    m.iter().filter(|s| m.steppable(*s).is_ok()).collect()
}

pub fn explore(start: &Machine, world: Option<World>, max_states: usize) -> Explored {
    let mut host = Host::new(world, false);
    let mut seen: HashSet<String> = HashSet::new();
    let mut nfs: Vec<String> = Vec::new();
    let mut queue = VecDeque::new();
    seen.insert(start.print_term(true));
    queue.push_back(start.clone());
    let mut truncated = false;
    while let Some(m) = queue.pop_front() {
        let cands = steppable(&m);
        if cands.is_empty() {
            let t = m.print_term(false);
            if !nfs.contains(&t) {
                nfs.push(t);
            }
            continue;
        }
        for s in cands {
            let mut next = m.clone();
            step_resolving(&mut next, &mut host, s);
            let key = next.print_term(true);
            if seen.insert(key) {
                if seen.len() >= max_states {
                    truncated = true;
                    break;
                }
                queue.push_back(next);
            }
        }
        if truncated {
            break;
        }
    }
    Explored { states: seen.len(), normal_forms: nfs, truncated }
}
