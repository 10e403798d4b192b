use z3::{Params, Solver};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = &args[1];
    let src = std::fs::read_to_string(path).unwrap();
    let s = Solver::new();
    let mut p = Params::new();
    p.set_u32("timeout", 5000);
    for kv in &args[2..] {
        let (k, v) = kv.split_once('=').unwrap();
        if let Ok(n) = v.parse::<u32>() {
            p.set_u32(k, n);
        } else if v == "true" || v == "false" {
            p.set_bool(k, v == "true");
        } else {
            p.set_symbol(k, v);
        }
    }
    s.set_params(&p);
    s.push();
    let t = std::time::Instant::now();
    s.from_string(src.clone());
    let r = s.check();
    eprintln!("{path} {:?}: {r:?} {:?}", &args[2..], t.elapsed());
}
