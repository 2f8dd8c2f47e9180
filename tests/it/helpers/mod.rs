//! Test harness: `spawn_app` (server on port 0, temporary database), a typed HTTP client whose
//! calls state the status they expect (every answer checked against the OpenAPI document),
//! fixtures built through the panel, and an in-process webhook receiver that records headers
//! and raw bodies, and a browser for the web panel; one file each, all used from here.

mod app;
mod client;
mod fixtures;
pub mod openapi;
mod raw;
mod receiver;
mod wait;
mod web;

pub use app::{spawn_app, spawn_app_with, TestApp};
pub use client::Resp;
pub use fixtures::{campaign_body, printed, said, Camp};
pub use raw::{read_answer, read_head, RawResp};
pub use receiver::{Received, Receiver};
pub use wait::{in_one_rate_window, poll, wait_for, well_inside_a_minute};
pub use web::{Browser, Page};
