use clap::Parser;

fn main() -> std::process::ExitCode {
    match tolerance::cli::run(tolerance::cli::Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tolerance: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
