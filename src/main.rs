//! The `adcab` binary: parses the command line and hands it to the library.

fn main() -> std::process::ExitCode {
    adcab::cli::main()
}
