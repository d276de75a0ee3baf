use clap::Parser;

fn main() -> std::process::ExitCode {
    match tolerance::app::run(tolerance::app::Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tolerance: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
