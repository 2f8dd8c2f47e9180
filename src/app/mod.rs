//! Owns the application's assembly: the serving process (`serve`: recovery, the faces and the
//! jobs side by side until shutdown) and the first-run demo workspace.

pub mod demo;
pub mod serve;
