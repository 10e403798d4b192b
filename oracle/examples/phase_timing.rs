use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let k = kpl::parse(&text).unwrap().remove(0);
    let opts = oracle::CheckOptions::default();
    let t = Instant::now();
    let sum = oracle::verifier::symbolic::summarize(&k, &opts);
    println!("summarize: {:?} ({} accesses)", t.elapsed(), sum.accesses.len());
    let t = Instant::now();
    let mut v = oracle::verifier::StaticVerifier::new(opts.clone());
    let r = oracle::Oracle::check(&mut v, &k).unwrap();
    println!("check: {:?} races {}", t.elapsed(), r.races.len());
    let t = Instant::now();
    let mut v = oracle::verifier::StaticVerifier::new(opts);
    v.screening = false;
    let r = oracle::Oracle::check(&mut v, &k).unwrap();
    println!("check no screen: {:?} races {}", t.elapsed(), r.races.len());
}
