//! Criterion benchmarks: one oracle call and one whole synthesis on the paper's examples
//! (dynamic oracle) and on realistic SDK kernels (static verifier, with the launch of the
//! file's header), and the slow shapes of issue #15.

use criterion::{Criterion, criterion_group, criterion_main};
use oracle::{CheckOptions, Oracle};
use synth::{PaperCost, SynthOptions};

fn kernel(file: &str) -> kpl::Kernel {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(file);
    let text = std::fs::read_to_string(path).expect("example exists");
    kpl::parse(&text).expect("example parses").remove(0)
}

fn options() -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    }
}

fn bench(c: &mut Criterion) {
    for file in ["fig4.kpl", "reduction.kpl"] {
        let k = kernel(file);
        c.bench_function(&format!("dynamic oracle call {file}"), |b| {
            let mut o = oracle::dynamic::Interpreter::new(options());
            b.iter(|| o.check(&k).expect("oracle answers"))
        });
        c.bench_function(&format!("synthesis (dynamic) {file}"), |b| {
            let cost = PaperCost::default();
            let opts = SynthOptions::new(&cost);
            b.iter(|| {
                let mut o = oracle::dynamic::Interpreter::new(options());
                synth::synthesize(&k, &mut o, &opts).expect("synthesis runs")
            })
        });
    }
}

fn realistic(c: &mut Criterion) {
    for file in ["reduce0.cu", "matrixMul.cu", "convolutionRows.cu"] {
        let path = autosync_benches::suite::root()
            .join("benches/realistic")
            .join(file);
        let (kernels, launch) = autosync_benches::suite::load(&path).expect("realistic kernel loads");
        let k = kernels[0].clone();
        let stripped = k.without_movable_barriers();
        let opts = || launch.clone();
        c.bench_function(&format!("static oracle call {file} (fresh verifier)"), |b| {
            b.iter(|| {
                let mut o = oracle::verifier::StaticVerifier::new(opts());
                o.check(&k).expect("oracle answers")
            })
        });
        c.bench_function(&format!("synthesis (static) {file}"), |b| {
            let cost = PaperCost::default();
            let sopts = SynthOptions::new(&cost);
            b.iter(|| {
                let mut o = oracle::verifier::StaticVerifier::new(opts());
                synth::synthesize(&stripped, &mut o, &sopts).expect("synthesis runs")
            })
        });
    }
}

/// The slow shapes of issue #15 (`tests/corpus/slow/`): one fresh `check` each, with the
/// launch of the file's header, and Faial's access pattern at n = 400.
fn slow_shapes(c: &mut Criterion) {
    let mut group = c.benchmark_group("slow shapes");
    group.sample_size(10);
    for file in [
        "dct8x8RowsColumns.cu",
        "sha256Schedule.cu",
        "transposeDiagonal.cu",
    ] {
        let path = autosync_benches::suite::root()
            .join("tests/corpus/slow")
            .join(file);
        let (kernels, launch) = autosync_benches::suite::load(&path).expect("slow-shape kernel loads");
        let k = kernels[0].clone();
        group.bench_function(format!("static oracle call {file} (fresh verifier)"), |b| {
            b.iter(|| {
                let mut o = oracle::verifier::StaticVerifier::new(launch.clone());
                o.check(&k).expect("oracle answers")
            })
        });
    }
    let k = kpl::parse(&autosync_benches::patterns::Pattern::Accesses.kernel(400))
        .expect("pattern parses")
        .remove(0);
    group.bench_function("static oracle call Faial accesses n = 400", |b| {
        b.iter(|| {
            let mut o = oracle::verifier::StaticVerifier::new(CheckOptions::default());
            o.check(&k).expect("oracle answers")
        })
    });
    group.finish();
}

criterion_group!(benches, bench, realistic, slow_shapes);
criterion_main!(benches);
