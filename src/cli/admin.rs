//! Owns running the `admin` and `sim` commands: each parsed command becomes one call of an
//! operation, and its answer the JSON object the command prints. Tokens and passwords are read
//! from standard input, never from the command line.

use serde::Serialize;
use serde_json::Value;

use super::args::{
    Admin, AutoCpmCmd, CabinetCmd, GroupCmd, KeyCmd, MemberCmd, PlatformCmd, RatesCmd, RuleCmd,
    Sim, TaskCmd, TrackerCmd, UserCmd, WebhookCmd,
};
use super::Failure;
use crate::ops::{self, By, OpsError};
use crate::services::Services;

/// An operation's answer as the JSON object the command prints.
fn printed<T: Serialize>(answer: Result<T, OpsError>) -> Result<Value, Failure> {
    serde_json::to_value(answer?).map_err(Failure::Answer)
}

/// The first line of stdin: a password piped in, never on the command line (where `ps` would
/// show it).
fn read_password() -> Result<String, OpsError> {
    super::stdin_line(&mut std::io::stdin().lock(), "password")
}

/// Runs one admin command.
pub fn admin(s: &Services, cmd: &Admin) -> Result<Value, Failure> {
    match cmd {
        Admin::User(UserCmd::Add {
            email,
            plan,
            password_stdin: false,
        }) => printed(ops::user_add(s, email, *plan)),
        Admin::User(UserCmd::Add {
            email,
            plan,
            password_stdin: true,
        }) => {
            let password = read_password()?;
            printed(ops::user_add_with_password(s, email, *plan, &password))
        }
        Admin::User(UserCmd::List) => printed(ops::user_list(s)),
        Admin::User(UserCmd::ResetLink { id }) => printed(ops::people::reset_link(s, *id)),
        Admin::User(UserCmd::Set {
            id,
            plan,
            subscription,
            password_stdin,
            telegram_chat,
        }) => {
            let password = password_stdin.then(read_password).transpose()?;
            if let Some(chat) = telegram_chat {
                ops::user_set_chat(s, *id, chat)?;
            }
            printed(ops::user_set(
                s,
                *id,
                *plan,
                *subscription,
                password.as_deref(),
            ))
        }
        Admin::Cabinet(CabinetCmd::Add(new)) => printed(ops::cabinet_add(s, new)),
        Admin::Cabinet(CabinetCmd::CreateRelated(new)) => {
            printed(ops::funds::create_related(s, new))
        }
        Admin::Cabinet(CabinetCmd::Set { id, change }) => printed(ops::cabinet_set(s, *id, change)),
        Admin::Member(MemberCmd::Add {
            agency,
            member,
            cabinet,
            access,
        }) => printed(ops::member_add(s, *agency, *member, *cabinet, *access)),
        Admin::Member(MemberCmd::Remove {
            agency,
            member,
            cabinet,
        }) => printed(ops::member_remove(s, *agency, *member, *cabinet)),
        Admin::Group(GroupCmd::Add {
            cabinet,
            name,
            color,
        }) => printed(ops::group_add(s, *cabinet, name, color.as_deref())),
        Admin::Key(KeyCmd::Create(new)) => printed(ops::key_create(s, new)),
        Admin::Key(KeyCmd::Set { id, change }) => {
            printed(ops::key_set(s, By::Operator, *id, change))
        }
        Admin::Key(KeyCmd::Revoke { id }) => printed(ops::key_revoke(s, By::Operator, *id)),
        Admin::Key(KeyCmd::RotateSecret { id }) => {
            printed(ops::key_rotate_secret(s, By::Operator, *id))
        }
        Admin::Key(KeyCmd::Ping { id }) => printed(ops::key_ping(s, By::Operator, *id)),
        Admin::Key(KeyCmd::List { user }) => printed(ops::key_list(s, *user)),
        Admin::Tracker(TrackerCmd::Rotate { user }) => printed(ops::tracker_rotate(s, *user)),
        Admin::Task(TaskCmd::Cancel { id }) => printed(ops::task_cancel(s, By::Operator, *id)),
        Admin::Task(TaskCmd::Resume { id }) => printed(ops::task_resume(s, By::Operator, *id)),
        Admin::History { account, ad } => printed(ops::history(s, *account, *ad)),
        Admin::Webhook(WebhookCmd::Log { key, limit }) => {
            printed(ops::webhook_log(s, *key, *limit))
        }
        Admin::Webhook(WebhookCmd::Resend { delivery }) => {
            printed(ops::webhook_resend(s, delivery))
        }
        Admin::Rule(RuleCmd::List { owner }) => printed(ops::rule_list(s, *owner)),
        Admin::AutoCpm(AutoCpmCmd::Log { account, ad }) => {
            printed(ops::auto_cpm_log(s, *account, *ad))
        }
        Admin::Cabinet(CabinetCmd::Connect {
            owner,
            token_stdin,
            related,
        }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::cabinet_connect(s, *owner, &token, *related))
        }
        Admin::Cabinet(CabinetCmd::Reconnect { id, token_stdin }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::cabinet_reconnect(s, *id, &token))
        }
        Admin::Cabinet(CabinetCmd::Sync { id }) => printed(ops::cabinet_sync(s, *id)),
        Admin::Cabinet(CabinetCmd::List { owner }) => printed(ops::cabinet_list(s, *owner)),
        Admin::Cabinet(CabinetCmd::Reconcile { id, month, fix }) => {
            printed(ops::cabinet_reconcile(s, *id, *month, *fix))
        }
        Admin::Rates(RatesCmd::Set {
            from,
            to,
            rate,
            date,
        }) => printed(ops::rate_set(s, from, to, *rate, *date)),
        Admin::Rates(RatesCmd::List) => printed(ops::rate_list(s)),
        Admin::Platform(PlatformCmd::Check { token_stdin }) => {
            let token = token_from_stdin(*token_stdin)?;
            printed(ops::platform_check(s, &token))
        }
    }
}

/// A platform token from standard input; `--token-stdin` must say so.
fn token_from_stdin(asked: bool) -> Result<String, OpsError> {
    use std::io::Read;
    if !asked {
        return Err(ops::bad(
            "token-stdin",
            "give the token on standard input with --token-stdin",
        ));
    }
    let mut text = String::new();
    std::io::stdin()
        .take(ops::MAX_TOKEN as u64 + 2)
        .read_to_string(&mut text)
        .map_err(|e| ops::bad("token-stdin", format!("cannot read standard input: {e}")))?;
    ops::read_token(&text)
}

/// Runs one sim command.
pub fn sim(s: &Services, cmd: &Sim) -> Result<Value, Failure> {
    match cmd {
        Sim::Advance { seconds } => printed(ops::sim_advance(s, *seconds)),
        Sim::Review {
            account,
            ad,
            approve,
            reason,
            ..
        } => printed(ops::sim_review(
            s,
            *account,
            *ad,
            *approve,
            reason.as_deref(),
        )),
        Sim::Fail {
            account,
            next,
            count,
        } => printed(ops::sim_fail(s, *account, *next, *count)),
        Sim::Now => printed(ops::sim_now(s)),
    }
}
