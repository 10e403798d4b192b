//! Prints what one AutoSync run on a `.kpl` file tried (races with options, refuted
//! placements) with the static verifier on an 8×2 launch: a debugging aid for the
//! brute-force comparison (`cargo run --release -p synth --example rounds -- FILE.kpl`;
//! `ROUNDS_BEFORE=1` without loop-instance places).

use kpl::LabelTree;
use oracle::CheckOptions;
use oracle::verifier::StaticVerifier;
use synth::{PaperCost, SynthOptions};

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: rounds FILE.kpl"))?;
    let src = std::fs::read_to_string(path)?;
    let k = kpl::parse(&src)?.remove(0);
    let t = LabelTree::new(&k);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    // `ROUNDS_BEFORE=1`: without loop-instance places (issue #19 part 1's options).
    opts.loop_instances = std::env::var_os("ROUNDS_BEFORE").is_none();
    let mut o = StaticVerifier::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        race_directions: true,
        ..CheckOptions::default()
    });
    let s = synth::synthesize(&k, &mut o, &opts)?;
    let names = |ls: &[kpl::Label]| ls.iter().map(|l| t.name(*l)).collect::<Vec<_>>();
    if let Some(tr) = &s.trace {
        for (i, r) in tr.races.iter().enumerate() {
            println!(
                "race {i}: {}-{} intra {} inter {:?}",
                t.name(r.options.first),
                t.name(r.options.second),
                r.race.intra,
                r.race.inter
            );
            for (j, o) in r.options.options.iter().enumerate() {
                println!("   option {j}: {:?}", names(o));
            }
        }
        for b in &tr.blocked {
            println!(
                "refuted for race {}: {:?} (intra {} inter {:?})",
                b.race,
                names(&b.placement),
                b.still.intra,
                b.still.inter
            );
        }
    }
    println!(
        "{:?} {:?} cost {} calls {}",
        s.outcome,
        names(&s.inserted),
        s.cost,
        s.stats.oracle_calls
    );
    Ok(())
}
