//! Owns the `invitations` table: one-time links that let a person set their panel password
//! (an agency owner's invitation or the operator's reset link), by the SHA-256 of their token,
//! with their expiry, whether they were spent, and the language the inviter chose for the
//! person. It does not decide what a link may do.

use rusqlite::{params, Connection};

use super::{optional, parsed, StoreError};
use crate::i18n::Lang;

/// What a link was made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An agency owner invited the person from the Team page.
    Invite,
    /// The operator made a reset link for a forgotten password.
    Reset,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Invite => "invite",
            Kind::Reset => "reset",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        match s {
            "invite" => Some(Kind::Invite),
            "reset" => Some(Kind::Reset),
            _ => None,
        }
    }
}

/// A link as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub user_id: i64,
    pub kind: Kind,
    /// The agency owner who invited; `None` for the operator.
    pub made_by: Option<i64>,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    /// The language the inviter chose for the person (invitations only).
    pub language: Option<Lang>,
}

impl Link {
    /// Whether the link may still be spent at `now` (service clock, unix seconds).
    pub fn open_at(&self, now: i64) -> bool {
        self.used_at.is_none() && now < self.expires_at
    }
}

/// A new link for `user`, made by `made_by` (an agency owner; `None`: the operator).
pub struct NewLink<'a> {
    pub token_hash: &'a str,
    pub user_id: i64,
    pub kind: Kind,
    pub made_by: Option<i64>,
    pub created_at: i64,
    pub expires_at: i64,
    pub language: Option<Lang>,
}

pub fn insert(conn: &Connection, link: &NewLink) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO invitations (token_hash, user_id, kind, made_by, created_at, expires_at,
            language)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        link.token_hash,
        link.user_id,
        link.kind.as_str(),
        link.made_by,
        link.created_at,
        link.expires_at,
        link.language.map(Lang::code)
    ])?;
    Ok(())
}

pub fn get(conn: &Connection, token_hash: &str) -> Result<Option<Link>, StoreError> {
    optional(
        conn.prepare_cached(
            "SELECT user_id, kind, made_by, expires_at, used_at, language FROM invitations
             WHERE token_hash = ?1",
        )?
        .query_row([token_hash], |r| {
            Ok(Link {
                user_id: r.get(0)?,
                kind: parsed(r, 1, "invitations.kind", Kind::parse)?,
                made_by: r.get(2)?,
                expires_at: r.get(3)?,
                used_at: r.get(4)?,
                language: r
                    .get::<_, Option<String>>(5)?
                    .as_deref()
                    .and_then(Lang::parse),
            })
        }),
    )
}

/// Whether `agency` ever invited `user` (a link of theirs is on record, spent or not).
pub fn invited_by(conn: &Connection, user_id: i64, agency: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM invitations
             WHERE user_id = ?1 AND made_by = ?2 AND kind = 'invite')",
        )?
        .query_row(params![user_id, agency], |r| r.get(0))?)
}

/// The language chosen for `user`'s newest invitation that has one, for a new link of theirs.
pub fn last_language(conn: &Connection, user_id: i64) -> Result<Option<Lang>, StoreError> {
    let code: Option<String> = optional(
        conn.prepare_cached(
            "SELECT language FROM invitations
             WHERE user_id = ?1 AND kind = 'invite' AND language IS NOT NULL
             ORDER BY created_at DESC LIMIT 1",
        )?
        .query_row([user_id], |r| r.get(0)),
    )?;
    Ok(code.as_deref().and_then(Lang::parse))
}

/// Spends the link at `now` if it is still open then; returns whether it was.
pub fn spend(conn: &Connection, token_hash: &str, now: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE invitations SET used_at = ?2
             WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
        )?
        .execute(params![token_hash, now])?
        == 1)
}

/// Removes every link of `user` not yet spent (a newer one replaces them, or one was spent);
/// returns how many.
pub fn drop_open_of_user(conn: &Connection, user_id: i64) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached("DELETE FROM invitations WHERE user_id = ?1 AND used_at IS NULL")?
        .execute([user_id])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_spent_once_and_not_after_its_expiry() {
        let conn = crate::store::test_db();
        let link = |hash: &'static str, expires_at| NewLink {
            token_hash: hash,
            user_id: 1,
            kind: Kind::Reset,
            made_by: None,
            created_at: 100,
            expires_at,
            language: None,
        };
        insert(&conn, &link("a", 200)).unwrap();
        insert(&conn, &link("b", 200)).unwrap();
        assert!(get(&conn, "a").unwrap().unwrap().open_at(150));
        assert!(!spend(&conn, "a", 200).unwrap(), "expired at 200");
        assert!(spend(&conn, "a", 199).unwrap());
        assert!(!spend(&conn, "a", 199).unwrap(), "spent");
        assert!(!get(&conn, "a").unwrap().unwrap().open_at(150));
        assert_eq!(drop_open_of_user(&conn, 1).unwrap(), 1, "only b was open");
        assert_eq!(get(&conn, "b").unwrap(), None);
        assert_eq!(get(&conn, "c").unwrap(), None);
    }

    #[test]
    fn an_invitation_keeps_the_language_chosen_for_the_person() {
        let conn = crate::store::test_db();
        let link = NewLink {
            token_hash: "r",
            user_id: 1,
            kind: Kind::Invite,
            made_by: None,
            created_at: 100,
            expires_at: 200,
            language: Some(Lang::Ru),
        };
        insert(&conn, &link).unwrap();
        assert_eq!(get(&conn, "r").unwrap().unwrap().language, Some(Lang::Ru));
        assert_eq!(last_language(&conn, 1).unwrap(), Some(Lang::Ru));
        assert_eq!(last_language(&conn, 2).unwrap(), None);
    }
}
