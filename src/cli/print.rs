//! Owns writing the command line's lines: a line on stdout that ends the process quietly when
//! its reader has gone (`adcab config show | head`), as other Unix tools end, instead of a
//! panic; a line on stderr that is dropped when stderr is closed.

use std::fmt::Display;
use std::io::{ErrorKind, Write};

/// The exit code of a command whose reader closed the pipe: 128 + SIGPIPE, what a shell
/// reports for a tool stopped by a closed pipe.
pub const CLOSED_PIPE: i32 = 141;

/// Writes `line` and a newline on stdout. A closed pipe ends the process with
/// [`CLOSED_PIPE`] and nothing more said; any other failure to write says so on stderr and
/// exits 1.
pub fn out(line: impl Display) {
    match write_line(&mut std::io::stdout().lock(), &line) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(CLOSED_PIPE),
        Err(e) => {
            err(format_args!(
                "adcab: cannot write the answer on stdout: {e}"
            ));
            std::process::exit(1);
        }
    }
}

/// Writes `line` on stdout for a process that goes on whether or not anyone reads it (`serve`'s
/// first words): a closed stdout loses the line, nothing else.
pub fn out_or_drop(line: impl Display) {
    let _ = write_line(&mut std::io::stdout().lock(), &line);
}

/// Writes `line` and a newline on stderr; a closed stderr loses it.
pub fn err(line: impl Display) {
    let _ = write_line(&mut std::io::stderr().lock(), &line);
}

fn write_line(to: &mut impl Write, line: &impl Display) -> std::io::Result<()> {
    writeln!(to, "{line}")?;
    to.flush()
}
