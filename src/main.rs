//! The `adcab` binary: parses the command line and hands it to the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    adcab::cli::main(adcab::cli::Cli::parse())
}
