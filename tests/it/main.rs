//! adcab's integration tests: the real server in-process on port 0 over a temporary database,
//! provisioned through the panel functions the CLI uses, called over HTTP.

#[path = "../support/fake_server.rs"]
mod fake_server;

mod helpers;

mod access;
mod account;
mod alerts;
mod approvals;
mod auto_cpm;
mod automation;
mod automation_across;
mod automation_fast;
mod automation_tree;
mod browser;
mod campaigns;
mod cli;
mod delivery;
mod demo;
mod docs;
mod errors;
mod events;
mod funds;
mod fuzz;
mod groups;
mod hardening;
mod health;
mod idempotency;
mod mcp;
mod mcp_http;
mod mcp_python;
pub mod media;
mod openapi;
mod operations;
mod operator;
mod postback;
mod process;
mod ratelimit;
mod rates;
mod readme;
mod samples;
mod scenarios;
mod scheduled_reports;
mod statement;
mod stats;
mod targeting;
mod tasks;
mod telegram;
mod templates;
mod web;
mod webhooks;
mod writes;
mod zones;
