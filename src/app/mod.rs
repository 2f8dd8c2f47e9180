//! Owns the application's assembly: the serving process (`serve`: recovery, the faces and the
//! jobs side by side until shutdown), its connections (`conn`) and each request's way to its
//! face (`front`), and the first-run demo workspace.

pub mod conn;
pub mod demo;
pub mod front;
pub mod serve;
