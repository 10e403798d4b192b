//! Prints the KPL that the CUDA front end makes of a `.cu` file (a development aid):
//! `cargo run -p autosync-cuda --example cuda_lower -- FILE [-I DIR]...`
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: cuda_lower FILE [-I DIR]...");
        std::process::exit(2);
    };
    let mut opts = cuda::Options::default();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-I" => opts.include_dirs.extend(args.next().map(Into::into)),
            "--alias" => opts.alias = true,
            _ => {}
        }
    }
    let text = std::fs::read_to_string(&path).expect("readable file");
    match cuda::translate(std::path::Path::new(&path), &text, &opts) {
        Ok(t) => {
            for k in &t.kernels {
                for n in &k.notes {
                    println!("// note: {n}");
                }
                print!("{}", kpl::print(std::slice::from_ref(&k.kernel)));
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
