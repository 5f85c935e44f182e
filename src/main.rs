//! Entry point. In the browser (wasm32) it mounts the web app; natively it is the CLI.

#[cfg(target_arch = "wasm32")]
fn main() {
    paracalc::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // A panic is an internal error: print one line, exit 1, never a trace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("paracalc: internal error: {info}");
    }));
    let result = std::panic::catch_unwind(|| paracalc::cli::run(&args));
    match result {
        Ok(Ok(out)) => {
            print!("{out}");
            if !out.ends_with('\n') {
                println!();
            }
        }
        Ok(Err(e)) => {
            eprintln!("{}", e.message);
            std::process::exit(e.code);
        }
        Err(_) => std::process::exit(1),
    }
}
