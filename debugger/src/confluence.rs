//! The confluence check: finish this session's term in opportunistic rounds and the program
//! from the start in another order, with the same resolutions, and compare the final terms
//! (the paper's confluence theorem, on this program). Runs in slices as a job.

use crate::kind::{kind_of, Kind};
use crate::state::{Action, By, Env, State};
use opal_core::machine::label::LabelKey;
use opal_core::machine::StmtId;
use std::collections::HashMap;
use std::time::Instant;

/// Which statements `order` picks among those steppable (for confluence runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Opportunistic rounds: everything steppable at once.
    Rounds,
    /// The last steppable statement in label order first.
    Reversed,
    /// A random steppable statement (xorshift from the seed).
    Random(u64),
    /// Call-by-value's next statement; where cbv is blocked, the first steppable one.
    Cbv,
}

impl Order {
    pub fn name(self) -> String {
        match self {
            Order::Rounds => "opportunistic rounds".into(),
            Order::Reversed => "reversed (last statement first)".into(),
            Order::Random(seed) => format!("random (seed {seed})"),
            Order::Cbv => "call-by-value".into(),
        }
    }
}

/// Two step orders under the same resolutions, run to the end.
#[derive(Clone, Debug)]
pub struct Confluence {
    pub order: String,
    pub mine_steps: usize,
    pub theirs_steps: usize,
    /// The final terms exactly (compared for identity).
    pub mine: String,
    pub theirs: String,
    /// The same, with values read back as the paper writes them (shown).
    pub mine_view: String,
    pub theirs_view: String,
    pub mine_output: String,
    pub theirs_output: String,
    /// A run did not finish within the step budget (the program may diverge).
    pub truncated: bool,
    pub budget: usize,
}

impl Confluence {
    pub fn identical(&self) -> bool {
        self.mine == self.theirs && self.mine_output == self.theirs_output
    }
}

/// A confluence check under way.
pub(crate) struct ConfluenceRun {
    pub order: Order,
    /// Finishing this session's term first, then the program from the start.
    theirs_turn: bool,
    mine: State,
    theirs: State,
    given: HashMap<LabelKey, Action>,
    mine_steps: usize,
    theirs_steps: usize,
    truncated: bool,
    rng: u64,
    start_at: usize,
}

/// A confluence result shows at most this many statements of each term.
const VIEW_ROWS: usize = 400;

/// What one unit of finishing work did.
enum Finish {
    Stepped(usize),
    Finished,
}

impl ConfluenceRun {
    /// Compares `mine` (the state shown, `start_at` actions in) finished in rounds with
    /// `initial` finished in `order`, both resolved as `given` says, else by the world file.
    pub(crate) fn new(
        order: Order,
        mine: &State,
        initial: &State,
        start_at: usize,
        given: HashMap<LabelKey, Action>,
    ) -> ConfluenceRun {
        let (mut mine, mut theirs) = (mine.clone(), initial.clone());
        mine.record = false;
        theirs.record = false;
        ConfluenceRun {
            order,
            theirs_turn: false,
            mine,
            theirs,
            given,
            mine_steps: 0,
            theirs_steps: 0,
            truncated: false,
            rng: match order {
                Order::Random(seed) => seed | 1,
                _ => 1,
            },
            start_at,
        }
    }

    /// Steps taken by both runs so far.
    pub(crate) fn steps(&self) -> usize {
        self.mine_steps + self.theirs_steps
    }

    /// Works until `deadline`; the result and what it says in words once both runs ended.
    pub(crate) fn work(
        &mut self,
        env: &mut Env,
        budget: usize,
        deadline: Instant,
    ) -> Option<(Confluence, String)> {
        let c = self;
        loop {
            let (st, steps, order) = if c.theirs_turn {
                (&mut c.theirs, &mut c.theirs_steps, c.order)
            } else {
                (&mut c.mine, &mut c.mine_steps, Order::Rounds)
            };
            let done = if *steps >= budget {
                c.truncated = true;
                true
            } else {
                match finish_step(env, st, order, &c.given, &mut c.rng) {
                    Finish::Stepped(n) => {
                        *steps += n;
                        false
                    }
                    Finish::Finished => true,
                }
            };
            if done {
                if c.theirs_turn {
                    return Some(c.result(budget));
                }
                c.theirs_turn = true;
            }
            if Instant::now() >= deadline {
                return None;
            }
        }
    }

    fn result(&self, budget: usize) -> (Confluence, String) {
        let c = self;
        // Unfinished terms are not compared (they are not final) and may be huge with deep
        // labels (garbage a reversed order never collects): only the first statements are shown.
        let exact = |st: &State| {
            if c.truncated {
                String::new()
            } else {
                st.machine.print_term(false)
            }
        };
        let result = Confluence {
            order: c.order.name(),
            mine_steps: c.start_at + c.mine_steps,
            theirs_steps: c.theirs_steps,
            mine: exact(&c.mine),
            theirs: exact(&c.theirs),
            mine_view: c.mine.view(VIEW_ROWS),
            theirs_view: c.theirs.view(VIEW_ROWS),
            mine_output: c.mine.output.clone(),
            theirs_output: c.theirs.output.clone(),
            truncated: c.truncated,
            budget,
        };
        let msg = if result.truncated {
            format!("confluence: did not finish within {budget} steps (the program may diverge); raise the step budget to go further")
        } else if result.identical() {
            format!(
                "confluence: {} gives the identical final term",
                result.order
            )
        } else {
            format!("confluence: {} gives a different final term", result.order)
        };
        (result, msg)
    }
}

/// One unit of work finishing `st` under `order`: a round, one step, or resolving what is
/// pending (as the session did, else as the world file answers, a stream chunk by chunk).
fn finish_step(
    env: &mut Env,
    st: &mut State,
    order: Order,
    given: &HashMap<LabelKey, Action>,
    rng: &mut u64,
) -> Finish {
    let m = &st.machine;
    let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
    if all.is_empty() {
        let pending: Vec<StmtId> = m
            .iter()
            .filter(|s| kind_of(m, *s) == Kind::Pending)
            .collect();
        if pending.is_empty() {
            return Finish::Finished;
        }
        for s in pending {
            let key = st.key(s);
            let label = st.machine.label_path(s);
            let a = match given.get(&key) {
                Some(a) => Ok(a.clone()),
                None => env.world_action(st, &label, By::World),
            };
            if a.and_then(|a| env.apply(st, &a, 0)).is_err() {
                return Finish::Finished;
            }
        }
        return Finish::Stepped(0);
    }
    let pick: Vec<StmtId> = match order {
        Order::Rounds => all,
        Order::Reversed => all.last().copied().into_iter().collect(),
        Order::Random(_) => {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            vec![all[(*rng % all.len() as u64) as usize]]
        }
        Order::Cbv => vec![m.cbv_next().unwrap_or(all[0])],
    };
    let mut n = 0;
    for s in pick {
        if env.step_in(st, s, 0, 0.0).is_some() {
            n += 1;
        }
    }
    Finish::Stepped(n.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, order: Order, budget: usize) -> (Confluence, String) {
        let (mut env, st) = crate::state::start("t.opal", src, None).expect("compiles");
        let mut c = ConfluenceRun::new(order, &st, &st, 0, HashMap::new());
        let far = Instant::now() + std::time::Duration::from_secs(3600);
        c.work(&mut env, budget, far).expect("ends")
    }

    #[test]
    fn every_order_gives_the_identical_final_term() {
        let src = "a := 1 + 2\nb := 3 + 4\nc := a * b\nprint (&stdout, c)\n";
        for order in [Order::Rounds, Order::Reversed, Order::Random(7), Order::Cbv] {
            let (r, msg) = run(src, order, 10_000);
            assert!(r.identical() && !r.truncated, "{msg}");
            assert_eq!(r.mine_output, "21\n");
            assert!(msg.ends_with("gives the identical final term"), "{msg}");
        }
    }

    #[test]
    fn a_run_past_the_budget_is_truncated_and_not_compared() {
        let items: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
        let src = format!(
            "total := 0\nfor n in [{}]:\n    total += n\nprint (&stdout, total)\n",
            items.join(", ")
        );
        let (r, msg) = run(&src, Order::Cbv, 5);
        assert!(r.truncated && r.mine.is_empty() && r.budget == 5, "{msg}");
        assert!(msg.contains("did not finish within 5 steps"), "{msg}");
    }
}
