//! Owns outbound webhooks: signing (`sign`), the address guard applied when a URL is saved and
//! again at every delivery (`guard`), and sending one event with its single retry (`deliver`).

pub mod deliver;
pub mod guard;
pub mod sign;
