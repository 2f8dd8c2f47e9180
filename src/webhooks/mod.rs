//! Owns outbound webhooks: signing (`sign`), the address guard applied when a URL is saved and
//! again at every delivery (`guard`), sending one event with its single retry (`deliver`),
//! turning status changes and closed hours into events in the outbox (`events`), and the
//! sender that empties the outbox and logs every delivery (`sender`).

pub mod deliver;
pub mod events;
pub mod guard;
pub mod sender;
pub mod sign;
