-- One-time links that let a person set their panel password: an invitation an agency owner
-- made from the Team page (`invite`), or a reset link the operator made with
-- `adcab admin user reset-link` (`reset`). The link carries a random token; only its SHA-256
-- is stored. Times are the service clock's, in unix seconds: a link is good until
-- `expires_at` and once (`used_at` set when it was spent). `made_by` is the agency owner who
-- invited, NULL for the operator.
CREATE TABLE invitations (
    token_hash  TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    kind        TEXT NOT NULL CHECK (kind IN ('invite', 'reset')),
    made_by     INTEGER REFERENCES users(id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER
) WITHOUT ROWID;

CREATE INDEX invitations_by_user ON invitations (user_id);
