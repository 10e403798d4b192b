use z3::ast::Int;
use z3::{Params, SatResult, Solver};
fn main() {
    for round in 0..3 {
        let t = std::time::Instant::now();
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        let s = Solver::new();
        if round == 1 {
            let mut p = Params::new();
            p.set_u32("timeout", 10000);
            s.set_params(&p);
        }
        s.assert(x.lt(&y));
        s.assert(y.lt(&x));
        let r = s.check();
        eprintln!("{r:?} {:?}", t.elapsed());
    }
    let t = std::time::Instant::now();
    for _ in 0..100 {
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        let s = Solver::new();
        s.assert(x.lt(&y));
        s.assert((&y + 1).lt(&x));
        assert_eq!(s.check(), SatResult::Unsat);
    }
    eprintln!("100 fresh: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let s = Solver::new();
    for _ in 0..100 {
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        s.push();
        s.assert(x.lt(&y));
        s.assert((&y + 1).lt(&x));
        assert_eq!(s.check(), SatResult::Unsat);
        s.pop(1);
    }
    eprintln!("100 push/pop: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    for _ in 0..100 {
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        let s = Solver::new_for_logic("QF_LIA").unwrap();
        s.assert(x.lt(&y));
        s.assert((&y + 1).lt(&x));
        assert_eq!(s.check(), SatResult::Unsat);
    }
    eprintln!("100 QF_LIA: {:?}", t.elapsed());
}
