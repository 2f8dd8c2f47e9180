//! Owns people (`adcab admin user`, `member`, and the web panel's team page): adding them, their
//! plans and subscriptions, and agency teams (members and the cabinets shared with them).

use super::{bad, now_iso, refused, require_cabinet, require_user, Done, Id, OpsError};
use crate::domain::access::{Access, Plan};
use crate::domain::password;
use crate::domain::Why;
use crate::services::Services;
use crate::store::{alerts, sessions, teams, users, StoreError};

/// A person's subscription, as `admin user set --subscription` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Subscription {
    Active,
    Expired,
}

/// The access a team member is given to a shared cabinet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TeamAccess {
    Manager,
    Viewer,
}

/// One person in `admin user list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UserSummary {
    pub id: i64,
    pub email: String,
    pub plan: &'static str,
    pub subscription: &'static str,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct UserList {
    pub users: Vec<UserSummary>,
}

/// `admin user list`: every person with their plan and subscription.
pub fn user_list(s: &Services) -> Result<UserList, OpsError> {
    let users = s.db.read_blocking(users::list)?;
    Ok(UserList {
        users: users
            .into_iter()
            .map(|u| UserSummary {
                id: u.id,
                email: u.email,
                plan: u.plan.as_str(),
                subscription: if u.subscription_active {
                    "active"
                } else {
                    "expired"
                },
            })
            .collect(),
    })
}

/// The person with this email, if there is one (`adcab setup` run again finds its owner).
pub fn user_find(s: &Services, email: &str) -> Result<Option<Id>, OpsError> {
    let found = s.db.read_blocking(|c| users::by_email(c, email.trim()))?;
    Ok(found.map(|u| Id { id: u.id }))
}

pub fn user_add(s: &Services, email: &str, plan: Plan) -> Result<Id, OpsError> {
    add_user(s, email, plan, None)
}

/// `admin user add --password-stdin`: a person with their panel login password, in one step
/// (a password the rules refuse adds no one).
pub fn user_add_with_password(
    s: &Services,
    email: &str,
    plan: Plan,
    password: &str,
) -> Result<Id, OpsError> {
    password::check(password)
        .map_err(|why| refused("password", why.to_string(), Why::from(why)))?;
    add_user(s, email, plan, Some(password::hash(password)))
}

fn add_user(s: &Services, email: &str, plan: Plan, hash: Option<String>) -> Result<Id, OpsError> {
    let email = email.trim();
    if !email.contains('@') {
        return Err(refused(
            "email",
            format!("'{email}' is not an email address"),
            Why::Email,
        ));
    }
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        let id = match users::insert(tx, email, plan, &now) {
            Ok(id) => id,
            Err(StoreError::Conflict) => {
                return Err(refused(
                    "email",
                    format!("a user with email {email} exists"),
                    Why::Taken,
                ))
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(hash) = &hash {
            sessions::set_password_hash(tx, id, hash)?;
        }
        Ok(Id { id })
    })
}

pub fn user_set(
    s: &Services,
    id: i64,
    plan: Option<Plan>,
    subscription: Option<Subscription>,
    password: Option<&str>,
) -> Result<Id, OpsError> {
    let active = subscription.map(|v| v == Subscription::Active);
    let hash = password
        .map(|p| {
            password::check(p)
                .map_err(|why| refused("password", why.to_string(), Why::from(why)))?;
            Ok::<_, OpsError>(password::hash(p))
        })
        .transpose()?;
    s.db.write_blocking(|tx| {
        require_user(tx, id)?;
        if let Some(plan) = plan {
            users::set_plan(tx, id, plan)?;
        }
        if let Some(active) = active {
            users::set_subscription(tx, id, active)?;
        }
        if let Some(hash) = &hash {
            // A new password ends every session the old one opened.
            sessions::set_password_hash(tx, id, hash)?;
            sessions::delete_of_user(tx, id)?;
        }
        Ok(Id { id })
    })
}

pub fn member_add(
    s: &Services,
    agency: i64,
    member: i64,
    cabinet: i64,
    access: TeamAccess,
) -> Result<Done, OpsError> {
    let access = match access {
        TeamAccess::Manager => Access::Manager,
        TeamAccess::Viewer => Access::Viewer,
    };
    s.db.write_blocking(|tx| {
        let owner = require_user(tx, agency)
            .map_err(|_| bad("agency", format!("no user with id {agency}")))?;
        if owner.plan != Plan::Agency {
            return Err(bad(
                "agency",
                format!("user {agency} is not on the Agency plan"),
            ));
        }
        require_user(tx, member).map_err(|_| bad("member", format!("no user with id {member}")))?;
        if member == agency {
            return Err(bad(
                "member",
                "the agency owner cannot be their own team member",
            ));
        }
        let c = require_cabinet(tx, cabinet)?;
        if c.owner_id != agency {
            return Err(bad(
                "cabinet",
                format!("cabinet {cabinet} does not belong to user {agency}"),
            ));
        }
        teams::add_member(tx, agency, member)?;
        teams::share(tx, agency, member, cabinet, access)?;
        Ok(Done {})
    })
}

pub fn member_remove(
    s: &Services,
    agency: i64,
    member: i64,
    cabinet: Option<i64>,
) -> Result<Done, OpsError> {
    s.db.write_blocking(|tx| {
        let removed = match cabinet {
            Some(c) => teams::unshare(tx, agency, member, c)?,
            None => teams::remove_member(tx, agency, member)?,
        };
        if removed == 0 {
            return Err(bad(
                "member",
                format!("user {member} has no such place in the team of user {agency}"),
            ));
        }
        Ok(Done {})
    })
}

/// `admin user set --telegram-chat`: the chat a person's alerts go to, or none.
pub fn user_set_chat(s: &Services, id: i64, chat: &str) -> Result<Id, OpsError> {
    let chat = super::parse_chat(chat, "telegram-chat")?;
    s.db.write_blocking(|tx| {
        require_user(tx, id)?;
        alerts::set_user_chat(tx, id, chat)?;
        Ok(Id { id })
    })
}
