//! Owns the service's domain values, parsed once at the edge and trusted after: money and
//! currencies, cabinet and campaign enums, promote links, and the targeting lists.

pub mod access;
pub mod campaign;
pub mod conversion;
pub mod countries;
pub mod link;
pub mod media;
pub mod money;
pub mod schedule;
pub mod stats;
pub mod targeting;
