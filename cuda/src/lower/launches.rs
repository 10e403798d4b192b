//! Launch contexts: a lowered kernel once per distinct launch the host code makes of it
//! (`k#1`, `k#2`), each with the facts of its launch, and without grid barriers where
//! the launch is not cooperative.

use super::Lowered;
use crate::Options;
use crate::program::Program;
use kpl::ir::{Expr, StmtKind};

/// The kernel `l` once per launch context: the launch of `opts` (flags over header)
/// over the host code's launches of this instance (when the flags and the header say
/// nothing of the sizes) over its `__launch_bounds__`. With several distinct host
/// contexts the kernel is checked for each, numbered in text order (`k#1`, `k#2`).
pub(super) fn launch_contexts(
    prog: &Program,
    opts: &Options,
    f: usize,
    host: &crate::host::HostCode,
    instances: &[String],
    l: Lowered,
) -> Vec<Lowered> {
    let def = &prog.funcs[f];
    let bounds = kpl::Launch {
        max_threads: crate::host::launch_bound(prog, def.node),
        ..kpl::Launch::default()
    }
    .from(kpl::launch::Origin::Bounds);
    let given = &opts.launch;
    let sized = given.block.iter().chain(&given.grid).any(Option::is_some);
    let params: Vec<String> = def
        .params()
        .into_iter()
        .filter_map(|p| p.child_by_field_name("declarator"))
        .filter_map(|d| crate::program::declarator_name(d, prog.src))
        .collect();
    let scalars: Vec<(String, kpl::IntTy)> = l
        .kernel
        .typed_scalars()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let mut contexts: Vec<kpl::Launch> = Vec::new();
    // Why the host launches do not tell all, if they do not.
    let unread = host
        .escaped
        .get(&def.name)
        .map(|at| {
            format!(
                "the host code uses `{}` at line {} other than by launching it",
                def.name, at.line
            )
        })
        .or_else(|| {
            host.unparsed.get(&def.name).map(|at| {
                format!(
                    "the host code names `{}` in text it could not parse ({}:{})",
                    def.name, at.file, at.line
                )
            })
        })
        .or_else(|| {
            // A launch may hide in a macro of what was not read.
            prog.map.unread.first().map(|source| {
                format!(
                    "the host code may launch `{}` through a macro of {source}",
                    def.name
                )
            })
        });
    for h in host
        .launches
        .iter()
        .filter(|h| !sized && unread.is_none() && h.kernel == def.name)
    {
        for c in &h.contexts {
            // A context whose template arguments are not known launches an instance
            // the open one stands for.
            let open = !l.kernel.name.contains('<');
            let this = match (&c.template_args, h.instance(c)) {
                _ if def.template.is_none() => true,
                // An instance the front end could not make (a type it cannot bind) is
                // the open instance's.
                (Some(_), Some(name)) => name == l.kernel.name || (open && !instances.contains(&name)),
                _ => open,
            };
            if !this {
                continue;
            }
            let launch = c.launch(&params, &scalars, &h.site);
            match contexts.iter_mut().find(|x| same_launch(x, &launch)) {
                Some(x) => {
                    if !x.sites.contains(&h.site) {
                        x.sites.push(h.site.clone());
                    }
                }
                None => contexts.push(launch),
            }
        }
    }
    if contexts.is_empty() {
        let mut l = l;
        l.launch = given.clone().over(&bounds);
        if let Some(why) = unread.filter(|_| !sized) {
            l.notes.push(format!("{why}: checked for every launch"));
        }
        return vec![l];
    }
    let many = contexts.len() > 1;
    let mut out: Vec<Lowered> = Vec::new();
    for ctx in contexts {
        let launch = given.clone().over(&ctx).over(&bounds);
        let mut k = l.clone();
        k.kernel = launch.constrain(&l.kernel);
        if !launch.cooperative
            && launch.sources.contains(&kpl::launch::Origin::Host)
            && drop_grid_barriers(&mut k.kernel.body)
        {
            let lines: Vec<String> = launch.sites.iter().map(|s| s.line.to_string()).collect();
            k.notes.push(format!(
                "the host code launches `{}` at line {} without a cooperative launch (`cudaLaunchCooperativeKernel`), \
                 where a grid sync is undefined: it is checked as no synchronization there",
                def.name,
                lines.join(", ")
            ));
        }
        if many {
            // Numbered in text order, not by line: a fix that moves the launches keeps
            // the names (the notes say the lines).
            k.kernel.name = format!("{}#{}", l.kernel.name, out.len() + 1);
        }
        k.notes.push(launch.describe());
        k.launch = launch;
        out.push(k);
    }
    out
}

/// Replaces each grid barrier in `block` by a statement that does nothing, for a
/// launch that is not cooperative; whether there was one.
fn drop_grid_barriers(block: &mut kpl::Block) -> bool {
    let mut dropped = false;
    for s in &mut block.stmts {
        if s.kind.is_grid_barrier() {
            s.kind = StmtKind::Assume(Expr::Int(1));
            dropped = true;
        }
        for b in s.blocks_mut() {
            dropped |= drop_grid_barriers(b);
        }
    }
    dropped
}

/// Two host launches that give the same facts (their sites aside).
fn same_launch(a: &kpl::Launch, b: &kpl::Launch) -> bool {
    kpl::Launch {
        sites: Vec::new(),
        ..a.clone()
    } == kpl::Launch {
        sites: Vec::new(),
        ..b.clone()
    }
}
