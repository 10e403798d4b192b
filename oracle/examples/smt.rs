use z3::{Params, Solver, Tactic};
fn main() {
    let mode = std::env::args().nth(1).unwrap();
    for path in std::env::args().skip(2) {
        let src = std::fs::read_to_string(&path).unwrap();
        eprintln!("read {}", src.len());
        let t = std::time::Instant::now();
        let s = match mode.as_str() {
            "qfnia" => Tactic::new("qfnia").solver(),
            _ => Solver::new(),
        };
        let mut p = Params::new();
        p.set_u32("timeout", 5000);
        s.set_params(&p);
        if mode == "inc" {
            s.push();
        }
        s.from_string(src.clone());
        eprintln!("loaded");
        let r = s.check();
        eprintln!("{path} {mode}: {r:?} {:?}", t.elapsed());
    }
}
