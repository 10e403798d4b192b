//! One loop: the analysis passes to a fixpoint of uniformity classes, its candidate
//! invariants, trip count, the final pass over its body that records the facts, and the
//! values the thread leaves it with (the closed forms are `closed_forms`'s job).

use kpl::{Arith, BinOp, Block, Expr, Span, Stmt, StmtId, StmtKind};
use std::collections::{BTreeSet, HashMap};

use super::super::candidates;
use super::super::term::{AtomId, Builder, Class, LoopId, T, Term, any_node};
use super::syntax::{assigned_vars, break_before_assign, has_break, has_return, runs_once, subtree};
use super::{AtomKind, Candidate, Exec, LoopCx, LoopInfo, LoopInvariants, Origin, State, substitute_iter};

/// What the run of one loop works with: its header, and the thread's state at its entry.
struct LoopRun<'s> {
    stmt: &'s Stmt,
    lp: LoopId,
    /// The `for` loop's variable.
    for_var: Option<&'s str>,
    cond: &'s Expr,
    /// The `for` loop's step.
    step: Option<&'s Expr>,
    body: &'s Block,
    /// The variables assigned in the loop that exist before it, in name order.
    carried: Vec<String>,
    /// The environment at the loop's entry (with a `for` loop's variable initialized).
    env0: HashMap<String, T>,
    /// The iteration numbers of the enclosing loops.
    outer: Vec<T>,
    /// `Iter(lp)`.
    k: T,
    /// The iteration arguments of atoms created for the loop (`outer`, then `k`).
    args: Vec<T>,
    /// The thread's active and full predicates at the loop's entry.
    active_entry: T,
    full_entry: T,
}

/// What the analysis passes over a loop body found, at the fixpoint of the classes.
struct Analysis {
    /// The uniformity classes of the carried variables' start values.
    classes: Vec<Class>,
    /// The start-of-iteration atoms of the carried variables.
    starts: Vec<T>,
    /// The carried variables' end-of-iteration values over the start atoms.
    ends: Vec<T>,
    /// The guard over the start atoms.
    guard: T,
    /// The body's `return` and `break` flags at the end of an iteration.
    exits: (T, T),
    /// The first atom of the body (start atoms included).
    first_atom: usize,
}

/// The head of a loop body as the final pass sees it: the carried variables' values at
/// iteration `k`, the predicate of being there, and the enclosing loops.
struct LoopHead {
    forms: Vec<T>,
    pred: T,
    loops: Vec<LoopId>,
}

/// How a thread leaves a loop: after `trip` iterations, or by a `break` in iteration
/// `prev`.
struct LoopExit {
    trip: T,
    /// The trip count's atom (none when it is a known constant).
    trip_id: Option<AtomId>,
    /// The iteration before `trip` (`0` when there is none).
    prev: T,
    /// Whether the thread left by a `break` in iteration `prev`.
    broke: T,
    /// Whether the body has a `break`.
    exit_break: bool,
    /// Per carried variable: whether its value after the loop is exact (else an atom).
    exact: Vec<bool>,
}

impl Exec<'_> {
    /// Runs a loop: its analysis passes, the closed forms of its carried variables, its
    /// candidate invariants, its trip count, the final pass over its body (which records
    /// the body's facts) and the values the thread leaves it with.
    pub(super) fn run_loop(&mut self, s: &Stmt, st: &mut State) {
        let b = self.b;
        let Some(run) = self.enter_loop(s, st) else {
            return;
        };
        let lp = run.lp;
        let analysis = self.analysis_passes(&run);
        let start_ids: Vec<AtomId> = analysis
            .starts
            .iter()
            .map(|t| match &**t {
                Term::Atom(id, _) => *id,
                _ => unreachable!("start values are atoms"),
            })
            .collect();
        let annotated = self.inv_terms.remove(&lp).unwrap_or_default();
        let lcx = LoopCx {
            lp,
            k: run.k.clone(),
            args: run.args.clone(),
            starts: start_ids,
            guard: analysis.guard.clone(),
        };
        let forms = self.resolve(&lcx, &run.carried, &run.env0, &analysis.ends, &analysis.classes);
        let candidates = if self.record {
            Some(self.loop_candidates(&run, &lcx, &analysis, annotated))
        } else {
            None
        };

        // The final pass, which records facts.
        let mut env = run.env0.clone();
        for (v, f) in run.carried.iter().zip(&forms) {
            env.insert(v.clone(), f.clone());
        }
        let g = self.eval(&env, run.cond);
        let guard = b.truthy(g);
        let exit_break = has_break(run.body);
        let has_return = has_return(run.body);
        let exit_jumps = exit_break || has_return;
        let (trip, trip_id) = self.trip_count(&run, &guard, exit_jumps);
        if self.record {
            self.loops[lp] = Some(LoopInfo {
                stmt: s.id,
                trip: trip_id,
                trip_term: trip.clone(),
                guard: guard.clone(),
                exit_jumps,
                once: runs_once(run.body),
                exits: b.ff(),
            });
        }
        // The final pass, which records the body's facts. Inside an outer loop's
        // analysis pass nothing is recorded, and the analysis pass's exits (whose
        // classes bound the final pass's: the start atoms have the fixpoint classes)
        // are all that is needed; skipping the pass keeps nests linear instead of
        // exponential in their depth.
        let head_pred = b.and(run.full_entry.clone(), b.leaf(Term::InLoop(lp)));
        let head_loops = self.stack.clone();
        let (ret, brk) = if self.record {
            self.final_pass(&run, env, head_pred.clone())
        } else {
            analysis.exits.clone()
        };
        let trip_class = self.class(&guard).max(self.class(&ret)).max(self.class(&brk));
        if let Some(id) = trip_id {
            self.atoms[id].class = trip_class;
        }
        self.stack.pop();

        let exit = self.exit_values(
            &run,
            st,
            &forms,
            &analysis.classes,
            (trip, trip_id),
            exit_break,
            trip_class,
        );
        if has_return {
            // Whether a thread returned depends on how many iterations it ran, too.
            let ret_class = self.class(&ret).max(trip_class);
            let r = self.atom_with(AtomKind::Returned(lp), ret_class, run.outer.clone());
            let returned = b.and(run.active_entry.clone(), b.truthy(r));
            st.ret = b.or(st.ret.clone(), returned);
        }
        let head = LoopHead {
            forms,
            pred: head_pred,
            loops: head_loops,
        };
        self.record_invariants(&run, st, lcx, analysis.ends, candidates, head, exit);
    }

    /// Enters a loop: initializes a `for` loop's variable, finds the carried variables
    /// and pushes the loop (`None` for a statement that is no loop the kernel numbered).
    fn enter_loop<'s>(&mut self, s: &'s Stmt, st: &mut State) -> Option<LoopRun<'s>> {
        let b = self.b;
        let (for_var, cond, step, body) = match &s.kind {
            StmtKind::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let v = self.eval(&st.env, init);
                st.env.insert(var.clone(), v);
                (Some(var.as_str()), cond, Some(step), body)
            }
            StmtKind::While { cond, body } => (None, cond, None, body),
            _ => return None,
        };
        let &lp = self.loop_ids.get(&s.id)?;
        let active_entry = self.active(st);
        let full_entry = self.full(st);
        let mut assigned = BTreeSet::new();
        assigned_vars(body, &mut assigned);
        if let Some(v) = for_var {
            assigned.insert(v.to_string());
        }
        let carried: Vec<String> = assigned.into_iter().filter(|v| st.env.contains_key(v)).collect();
        let env0 = st.env.clone();
        let outer = self.iters();
        self.stack.push(lp);
        let k = b.leaf(Term::Iter(lp));
        let mut args = outer.clone();
        args.push(k.clone());
        Some(LoopRun {
            stmt: s,
            lp,
            for_var,
            cond,
            step,
            body,
            carried,
            env0,
            outer,
            k,
            args,
            active_entry,
            full_entry,
        })
    }

    /// Analysis passes: the end-of-iteration value of every carried variable, with the
    /// start-of-iteration values as opaque atoms; repeated until the uniformity classes
    /// of those atoms are stable. Nothing is recorded.
    fn analysis_passes(&mut self, run: &LoopRun) -> Analysis {
        let b = self.b;
        let (lp, carried, env0) = (run.lp, &run.carried, &run.env0);
        let mut classes: Vec<Class> = carried.iter().map(|v| self.class(&env0[v])).collect();
        // Atoms from here on belong to the body (or are the start atoms).
        let first_atom = self.atoms.len();
        loop {
            self.inv_terms.remove(&lp);
            let starts: Vec<T> = carried
                .iter()
                .zip(&classes)
                .map(|(v, c)| self.atom_with(AtomKind::Start(lp, v.clone()), *c, run.args.clone()))
                .collect();
            let mut env = env0.clone();
            for (v, x) in carried.iter().zip(&starts) {
                env.insert(v.clone(), x.clone());
            }
            let g = self.eval(&env, run.cond);
            let guard = b.truthy(g);
            let mut inner = State {
                env,
                path: b.tt(),
                ret: b.ff(),
                brk: b.ff(),
                cont: b.ff(),
                ctx: b.tt(),
            };
            let record = std::mem::replace(&mut self.record, false);
            self.reads.clear();
            self.block(run.body, &mut inner);
            self.record = record;
            if let (Some(v), Some(step)) = (run.for_var, run.step) {
                // `continue` still runs the step; `break`/`return` leave the loop, so
                // the step is unconditional for threads that reach the next iteration.
                let t = self.eval(&inner.env, step);
                inner.env.insert(v.to_string(), t);
            }
            let ends: Vec<T> = carried.iter().map(|v| inner.env[v].clone()).collect();
            let new: Vec<Class> = carried
                .iter()
                .zip(&ends)
                .map(|(v, e)| self.class(&env0[v]).max(self.class(e)))
                .collect();
            if new == classes {
                return Analysis {
                    classes,
                    starts,
                    ends,
                    guard,
                    exits: (inner.ret, inner.brk),
                    first_atom,
                };
            }
            classes = new;
        }
    }

    /// The loop's candidate invariants (generated from the analysis pass, closed forms
    /// under a condition, and the kernel's `invariant` statements at the head of the
    /// body), with the body's exits.
    fn loop_candidates(
        &mut self,
        run: &LoopRun,
        lcx: &LoopCx,
        analysis: &Analysis,
        annotated: Vec<(T, Span)>,
    ) -> (Vec<Candidate>, T) {
        let b = self.b;
        let (carried, env0, first_atom) = (&run.carried, &run.env0, analysis.first_atom);
        let exits = b.or(analysis.exits.0.clone(), analysis.exits.1.clone());
        let relevant: Vec<bool> = carried.iter().map(|v| self.relevant.contains(v)).collect();
        let mut cands = candidates::generate(
            &b,
            &relevant,
            &analysis.starts,
            &carried.iter().map(|v| env0[v].clone()).collect::<Vec<_>>(),
            &lcx.guard,
            &analysis.ends,
            &exits,
            &|id| id >= first_atom && !lcx.starts.contains(&id),
            &|id| {
                matches!(
                    self.atoms[id].kind,
                    AtomKind::Trip(_) | AtomKind::After(..) | AtomKind::Returned(_)
                )
            },
        );
        cands.extend(self.conditional_forms(lcx, carried, env0, &analysis.ends, &analysis.classes));
        let mut out: Vec<Candidate> = cands
            .into_iter()
            .map(|cond| Candidate {
                cond,
                origin: Origin::Generated,
            })
            .collect();
        out.extend(annotated.into_iter().map(|(cond, span)| Candidate {
            cond,
            origin: Origin::Annotated(span),
        }));
        (out, exits)
    }

    /// The loop's trip count: known when its guard is a known constant at every
    /// iteration and nothing jumps out, else an unknown (see the module doc), with its
    /// atom.
    fn trip_count(&mut self, run: &LoopRun, guard: &T, exit_jumps: bool) -> (T, Option<AtomId>) {
        let b = self.b;
        match constant_trip(&b, guard, run.lp).filter(|_| !exit_jumps) {
            Some(n) => (b.int(n), None),
            None => {
                let t = self.atom_with(AtomKind::Trip(run.lp), Class::Grid, run.outer.clone());
                let id = match &*t {
                    Term::Atom(id, _) => Some(*id),
                    _ => None,
                };
                (t, id)
            }
        }
    }

    /// The final pass over the body, with the carried variables at their values of
    /// iteration `k` (`env`), recording the body's facts; the body's `return` and
    /// `break` flags.
    fn final_pass(&mut self, run: &LoopRun, env: HashMap<String, T>, head_pred: T) -> (T, T) {
        let b = self.b;
        let mut inner = State {
            env,
            path: b.tt(),
            ret: b.ff(),
            brk: b.ff(),
            cont: b.ff(),
            ctx: head_pred,
        };
        self.reads.clear();
        self.block(run.body, &mut inner);
        if let Some(info) = self.loops[run.lp].as_mut() {
            info.exits = b.or(inner.ret.clone(), inner.brk.clone());
        }
        (inner.ret, inner.brk)
    }

    /// After the loop: carried variables hold their value at the exit iteration.
    /// When nothing is assigned before a `break` (on any path through the body),
    /// a thread that breaks in iteration `trip - 1` leaves with that iteration's head
    /// values, the others with the head values of iteration `trip`.
    /// Per variable: exact when the loop has no `break`, or no `break` follows an
    /// assignment to it (else an atom).
    #[allow(clippy::too_many_arguments)]
    fn exit_values(
        &mut self,
        run: &LoopRun,
        st: &mut State,
        forms: &[T],
        classes: &[Class],
        (trip, trip_id): (T, Option<AtomId>),
        exit_break: bool,
        trip_class: Class,
    ) -> LoopExit {
        let b = self.b;
        let lp = run.lp;
        let exact: Vec<bool> = run
            .carried
            .iter()
            .map(|v| {
                !exit_break
                    || (b.arith == Arith::Unbounded && break_before_assign(run.body, std::slice::from_ref(v)))
            })
            .collect();
        let (prev, broke) = {
            let later = b.bin(BinOp::Lt, b.int(0), trip.clone());
            let prev = b.ite(later.clone(), b.iter_add(trip.clone(), -1), b.int(0));
            let exits = self.loops[lp].as_ref().map_or(b.tt(), |i| i.exits.clone());
            let broke = b.and(later, substitute_iter(&b, &exits, lp, &prev));
            (prev, broke)
        };
        let at_exit = |form: &T| {
            let normal = substitute_iter(&b, form, lp, &trip);
            if exit_break {
                b.ite(broke.clone(), substitute_iter(&b, form, lp, &prev), normal)
            } else {
                normal
            }
        };
        for (((v, form), class), exact) in run.carried.iter().zip(forms).zip(classes).zip(&exact) {
            let after = if !exact {
                self.atom_with(
                    AtomKind::After(lp, v.clone()),
                    (*class).max(trip_class),
                    run.outer.clone(),
                )
            } else {
                at_exit(form)
            };
            let value = b.ite(run.active_entry.clone(), after, run.env0[v].clone());
            st.env.insert(v.clone(), value);
        }
        LoopExit {
            trip,
            trip_id,
            prev,
            broke,
            exit_break,
            exact,
        }
    }

    /// Keeps the loop's candidate invariants for the proof, with where the proved ones
    /// would hold (the head of the body, and after the loop), unless the closed forms
    /// already say all there is.
    #[allow(clippy::too_many_arguments)]
    fn record_invariants(
        &mut self,
        run: &LoopRun,
        st: &State,
        lcx: LoopCx,
        ends: Vec<T>,
        candidates: Option<(Vec<Candidate>, T)>,
        head: LoopHead,
        exit: LoopExit,
    ) {
        let b = self.b;
        let (lp, s, forms) = (run.lp, run.stmt, &head.forms);
        let LoopExit {
            trip,
            trip_id,
            prev,
            broke,
            exit_break,
            exact,
        } = exit;
        // Without a carried value lacking a closed form, an annotation or an unknown
        // trip count, the closed forms say all there is.
        let carried_atom = |t: &T| {
            any_node(t, &mut |n| {
                matches!(n, Term::Atom(id, _)
                    if matches!(&self.atoms[*id].kind, AtomKind::Carried(l, _) if *l == lp))
            })
        };
        let unresolved = forms.iter().any(carried_atom);
        let useful = |c: &Vec<Candidate>| {
            !c.is_empty()
                && (unresolved || trip_id.is_some() || c.iter().any(|x| x.origin != Origin::Generated))
        };
        if let Some((candidates, exits)) = candidates.filter(|(c, _)| useful(c)) {
            // Where the proved invariants hold after the loop: the head values of the
            // exit iteration (unknown after a `break` that follows assignments).
            let at = |k: &T| -> Vec<T> { forms.iter().map(|f| substitute_iter(&b, f, lp, k)).collect() };
            let after = if exit_break {
                vec![
                    (broke.clone(), at(&prev), prev.clone()),
                    (b.not(broke.clone()), at(&trip), trip.clone()),
                ]
            } else {
                vec![(b.tt(), at(&trip), trip.clone())]
            };
            let after_pred = b.and(self.full(st), run.active_entry.clone());
            let pos = |id: &StmtId| self.pos.get(id).copied().unwrap_or(u32::MAX);
            let mut last = pos(&s.id);
            for t in subtree(s) {
                last = last.max(pos(&t.id));
            }
            self.invariants.push(LoopInvariants {
                lp,
                starts: lcx.starts.clone(),
                inits: run.carried.iter().map(|v| run.env0[v].clone()).collect(),
                ends,
                guard: lcx.guard.clone(),
                exits,
                candidates,
                head: head.forms.clone(),
                after_exact: exact,
                in_loop: unresolved,
                head_pred: head.pred,
                head_loops: head.loops,
                head_pos: pos(&s.id),
                after,
                after_pred,
                after_loops: self.stack.clone(),
                after_pos: last,
            });
        }
    }
}

/// The number of iterations of a loop whose guard folds to a constant at every
/// iteration (`for (i = 0; i < 16; i++)`, or tabulated sequences), if it ends within a
/// few thousand iterations.
fn constant_trip(b: &Builder, guard: &T, lp: LoopId) -> Option<i64> {
    for i in 0..4096 {
        match substitute_iter(b, guard, lp, &b.int(i)).as_const()? {
            0 => return Some(i),
            _ => continue,
        }
    }
    None
}
