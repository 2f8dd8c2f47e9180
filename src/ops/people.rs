//! Owns how people come in and keep their own account: an agency owner's invitation (the
//! person created if new, the cabinets shared, a one-time link when they have no password
//! yet), the operator's reset link, spending a link (a new password, the person's other
//! sessions ended), and a person's own password and settings. Links are random tokens stored
//! only as SHA-256, good for [`LINK_HOURS`] of the service clock and once. Faces parse the
//! input; these functions make the change. Blocking.

use rusqlite::Connection;

use super::{bad, now_iso, refused, require_cabinet, require_user, Done, OpsError, TeamAccess};
use crate::clock;
use crate::domain::access::{Access, Plan};
use crate::domain::password;
use crate::domain::Why;
use crate::i18n::Lang;
use crate::primitives::{random_hex, sha256_hex};
use crate::services::Services;
use crate::store::invites::{self, Kind, Link, NewLink};
use crate::store::users::{self, User};
use crate::store::{alerts, sessions, teams, zone_days, StoreError};

/// How long a link stays good, in hours of the service clock.
pub const LINK_HOURS: i64 = 72;

/// The longest email address taken (RFC 5321's path limit).
const MAX_EMAIL: usize = 254;

/// An agency owner's invitation: who, and which of the owner's cabinets with what access.
#[derive(Debug, Clone)]
pub struct Invitation {
    pub email: String,
    pub cabinets: Vec<i64>,
    pub access: TeamAccess,
    /// The language the invitation page and message speak to the person until they choose one.
    pub language: Lang,
}

/// What an invitation did.
#[derive(Debug, Clone)]
pub struct Invited {
    pub user_id: i64,
    pub email: String,
    /// The person did not exist and was created.
    pub created: bool,
    /// The one-time link's token, made when the person has no password yet; shown once.
    pub token: Option<String>,
    /// The person's Telegram chat, where the link may be sent.
    pub chat: Option<i64>,
    /// The language for what is sent to them: their own setting, else the one chosen for the
    /// invitation.
    pub language: Option<Lang>,
}

/// A new invitation link for `member` of `agency`'s team who has not set a password yet (the
/// first one was lost or ran out); the older one stops working.
pub fn invite_link(s: &Services, agency: i64, member: i64) -> Result<Invited, OpsError> {
    s.db.write_blocking(|tx| {
        let person = teams::members(tx, agency)?
            .contains(&member)
            .then(|| users::get(tx, member))
            .transpose()?
            .flatten()
            .ok_or_else(|| {
                bad(
                    "member",
                    format!("user {member} is not in the team of user {agency}"),
                )
            })?;
        if !may_link(tx, member, agency, false)? {
            return Err(bad(
                "member",
                format!("user {member} has a password or was not invited by user {agency}"),
            ));
        }
        // The new link speaks the language chosen for the person's last invitation.
        let language = invites::last_language(tx, member)?;
        Ok(Invited {
            user_id: member,
            email: person.email,
            created: false,
            token: Some(new_link(tx, member, Kind::Invite, Some(agency), language)?),
            chat: alerts::user_chat(tx, member)?,
            language: person.language.or(language),
        })
    })
}

/// `admin user reset-link`: `{"link": URL}`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ResetLink {
    pub link: String,
}

/// A person's own settings; `None` language or zone follows the browser, `None` chat unlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub language: Option<Lang>,
    pub time_zone: Option<chrono_tz::Tz>,
    pub telegram_chat: Option<i64>,
}

/// Whether `email` reads as an address: one `@` with text on both sides, no spaces, not too
/// long.
pub fn is_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !domain.contains('@')
        && email.len() <= MAX_EMAIL
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The link's URL under the panel's public origin, `None` when `[panel] public_url` is unset.
pub fn link_url(public_url: &str, token: &str) -> Option<String> {
    let origin = public_url.trim_end_matches('/');
    (!origin.is_empty()).then(|| format!("{origin}/invite/{token}"))
}

fn unix_now(conn: &Connection) -> Result<i64, StoreError> {
    Ok(clock::now(conn)?.timestamp())
}

/// Makes a new link for `user`, replacing any open one, speaking `language` to a person who
/// has none set; returns its token.
fn new_link(
    conn: &Connection,
    user: i64,
    kind: Kind,
    made_by: Option<i64>,
    language: Option<Lang>,
) -> Result<String, StoreError> {
    let now = unix_now(conn)?;
    let token = random_hex(32);
    invites::drop_open_of_user(conn, user)?;
    invites::insert(
        conn,
        &NewLink {
            token_hash: &sha256_hex(&token),
            user_id: user,
            kind,
            made_by,
            created_at: now,
            expires_at: now + LINK_HOURS * 3600,
            language,
        },
    )?;
    Ok(token)
}

/// Whether `agency` may be given a link that sets `person`'s password: only for someone
/// without a password whom this invitation created, or this agency invited before. Anyone
/// else (a person with a password, an account the operator made) stays out of the owner's
/// hands; the operator's reset link serves them.
fn may_link(
    conn: &Connection,
    person: i64,
    agency: i64,
    created: bool,
) -> Result<bool, StoreError> {
    if sessions::password_of(conn, person)?.is_some() {
        return Ok(false);
    }
    Ok(created || invites::invited_by(conn, person, agency)?)
}

/// An agency owner invites a person by email to some of their cabinets: the person is created
/// if no one has the email, joins the team with the access given to each cabinet, and gets a
/// one-time link to set their password when [`may_link`] allows it. Anyone else gets no link
/// (the owner would hold a key to their account): they sign in as before and find the
/// cabinets.
pub fn invite(s: &Services, agency: i64, invitation: &Invitation) -> Result<Invited, OpsError> {
    let email = invitation.email.trim().to_string();
    if !is_email(&email) {
        return Err(refused(
            "email",
            format!("'{email}' is not an email address"),
            Why::Email,
        ));
    }
    if invitation.cabinets.is_empty() {
        return Err(refused(
            "cabinet",
            "choose at least one cabinet",
            Why::Required,
        ));
    }
    let access = match invitation.access {
        TeamAccess::Manager => Access::Manager,
        TeamAccess::Viewer => Access::Viewer,
    };
    s.db.write_blocking(|tx| {
        let owner = require_user(tx, agency)?;
        if owner.plan != Plan::Agency {
            return Err(bad(
                "agency",
                format!("user {agency} is not on the Agency plan"),
            ));
        }
        for cabinet in &invitation.cabinets {
            if require_cabinet(tx, *cabinet)?.owner_id != agency {
                return Err(bad(
                    "cabinet",
                    format!("cabinet {cabinet} does not belong to user {agency}"),
                ));
            }
        }
        let (person, created) = match users::by_email(tx, &email)? {
            Some(person) => (person, false),
            None => {
                let now = now_iso(tx)?;
                let id = users::insert(tx, &email, Plan::Free, &now)?;
                (require_user(tx, id)?, true)
            }
        };
        if person.id == agency {
            return Err(bad(
                "email",
                "the agency owner cannot be their own team member",
            ));
        }
        teams::add_member(tx, agency, person.id)?;
        for cabinet in &invitation.cabinets {
            teams::share(tx, agency, person.id, *cabinet, access)?;
        }
        let token = if may_link(tx, person.id, agency, created)? {
            Some(new_link(
                tx,
                person.id,
                Kind::Invite,
                Some(agency),
                Some(invitation.language),
            )?)
        } else {
            None
        };
        Ok(Invited {
            user_id: person.id,
            email: person.email,
            created,
            token,
            chat: alerts::user_chat(tx, person.id)?,
            language: person.language.or(Some(invitation.language)),
        })
    })
}

/// `admin user reset-link`: a one-time link for person `id` to set a new password, under
/// `[panel] public_url`.
pub fn reset_link(s: &Services, id: i64) -> Result<ResetLink, OpsError> {
    let public = s.config.panel.public_url.clone();
    if link_url(&public, "").is_none() {
        return Err(bad(
            "public_url",
            "set [panel] public_url (the address people open the panel at) so the link can name it",
        ));
    }
    let token = s.db.write_blocking(|tx| {
        require_user(tx, id)?;
        Ok::<_, OpsError>(new_link(tx, id, Kind::Reset, None, None)?)
    })?;
    let link = link_url(&public, &token).unwrap_or_default();
    Ok(ResetLink { link })
}

/// The link `token` names and its person, if it may still be spent now. Reads only.
pub fn open_link(conn: &Connection, token: &str) -> Result<Option<(Link, User)>, StoreError> {
    let Some(link) = invites::get(conn, &sha256_hex(token))? else {
        return Ok(None);
    };
    if !link.open_at(unix_now(conn)?) {
        return Ok(None);
    }
    Ok(users::get(conn, link.user_id)?.map(|user| (link, user)))
}

/// Spends the link `token`: the person's password becomes `password`, every session they had
/// ends, their other open links go, and a person who chose no language takes the one the
/// inviter chose for them. Returns the person's id; `token` names the refusal of
/// a link unknown, spent or expired, `password` a password the rules refuse.
pub fn redeem(s: &Services, token: &str, password: &str) -> Result<i64, OpsError> {
    password::check(password)
        .map_err(|why| refused("password", why.to_string(), Why::from(why)))?;
    let hash = password::hash(password);
    let token_hash = sha256_hex(token);
    s.db.write_blocking(|tx| {
        let now = unix_now(tx)?;
        let link = invites::get(tx, &token_hash)?
            .filter(|l| l.open_at(now))
            .ok_or_else(|| bad("token", "the link is unknown, spent or expired"))?;
        if !invites::spend(tx, &token_hash, now)? {
            return Err(bad("token", "the link is unknown, spent or expired"));
        }
        require_user(tx, link.user_id)?;
        if let Some(language) = link.language {
            users::set_language_if_unset(tx, link.user_id, language)?;
        }
        sessions::set_password_hash(tx, link.user_id, &hash)?;
        sessions::delete_of_user(tx, link.user_id)?;
        invites::drop_open_of_user(tx, link.user_id)?;
        Ok(link.user_id)
    })
}

/// A person sets a new password (the current one already checked by the face): every other
/// session of theirs ends, the one hashed `keep` stays.
pub fn password_change(
    s: &Services,
    user: i64,
    password: &str,
    keep: &str,
) -> Result<Done, OpsError> {
    password::check(password)
        .map_err(|why| refused("password", why.to_string(), Why::from(why)))?;
    let hash = password::hash(password);
    s.db.write_blocking(|tx| {
        require_user(tx, user)?;
        sessions::set_password_hash(tx, user, &hash)?;
        sessions::delete_others_of_user(tx, user, keep)?;
        invites::drop_open_of_user(tx, user)?;
        Ok(Done {})
    })
}

/// A person saves their own settings.
pub fn settings_save(s: &Services, user: i64, settings: Settings) -> Result<Done, OpsError> {
    s.db.write_blocking(|tx| {
        require_user(tx, user)?;
        users::set_settings(tx, user, settings.language, settings.time_zone)?;
        // The home page's chart of spend per day in a person's zone reads its kept local days:
        // those of this zone added (filled from the hours), any no one's zone has any more
        // removed.
        zone_days::follow(tx, clock::now(tx)?.date_naive())?;
        alerts::set_user_chat(tx, user, settings.telegram_chat)?;
        Ok(Done {})
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_need_one_at_with_text_on_both_sides_and_no_spaces() {
        assert!(is_email("anna@agency.example"));
        for bad in ["anna", "@agency", "anna@", "an na@x.org", "a@b@c", ""] {
            assert!(!is_email(bad), "{bad}");
        }
        assert!(!is_email(&format!("{}@x.org", "a".repeat(250))));
    }

    #[test]
    fn links_need_the_public_url() {
        assert_eq!(
            link_url("https://ads.example/", "abc").as_deref(),
            Some("https://ads.example/invite/abc")
        );
        assert_eq!(link_url("", "abc"), None);
    }
}
