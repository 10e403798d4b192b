use z3::{Params, Solver};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&args[1]).unwrap();
    let s = Solver::new();
    let mut p = Params::new();
    p.set_u32("timeout", 5000);
    s.set_params(&p);
    let t = std::time::Instant::now();
    s.from_string(src.clone());
    let r = s.check();
    eprintln!("fresh: {r:?} {:?}", t.elapsed());
}
