//! The queries a check would ask, one line each, listed without asking them
//! (`autosync check --show queries`).

use kpl::{Kernel, Space};

use super::pairs::{conflicting_pairs, many_blocks, orders};
use super::queries::Order;
use super::term::Class;
use super::{StaticVerifier, symbolic};

impl StaticVerifier {
    /// The queries [`Oracle::check`](crate::Oracle::check) would ask about `kernel`, one line each, without
    /// asking them (`autosync check --show queries`): a divergence query per barrier
    /// whose guard is not block-uniform, then for each pair of conflicting accesses (in
    /// program order) one query per race type and scope. Screening, which may spare some
    /// pair queries depending on solver time, is not applied; verdict paths are untouched.
    pub fn describe_queries(&self, kernel: &Kernel) -> Vec<String> {
        let sum = symbolic::summarize(kernel, &self.opts);
        let many_blocks = many_blocks(&sum) && !self.opts.only_intra_group;
        let mut out = Vec::new();
        for bar in &sum.barriers {
            if bar.grid && sum.class(&bar.pred) > Class::Grid {
                out.push(format!(
                    "divergence: grid barrier at {}:{} (threads of the grid)",
                    bar.span.line, bar.span.col
                ));
            } else if sum.class(&bar.pred) > Class::Block {
                out.push(format!(
                    "divergence: barrier at {}:{}",
                    bar.span.line, bar.span.col
                ));
            }
        }
        for (a, b) in conflicting_pairs(&sum.accesses) {
            let mut scopes = vec!["same block"];
            if a.space == Space::Global && many_blocks {
                scopes.push("different blocks");
            }
            for order in orders(a, b) {
                let order = match order {
                    Order::Intra => "same iteration".to_string(),
                    Order::Inter { depth, forward } => format!(
                        "different iterations at loop depth {depth} ({} first)",
                        if forward { "earlier" } else { "later" }
                    ),
                };
                for scope in &scopes {
                    out.push(format!(
                        "race on `{}`: {} {}:{} / {} {}:{}, {order}, {scope}",
                        a.array,
                        a.kind.word(),
                        a.span.line,
                        a.span.col,
                        b.kind.word(),
                        b.span.line,
                        b.span.col
                    ));
                }
            }
        }
        out
    }
}
