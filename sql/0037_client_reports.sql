-- Client reports (#30): the agency's name and logo that head them, and the share links that
-- show one without a login.

-- An agency owner's name and logo, set on /settings. The logo is a PNG or JPEG of at most
-- 256 KiB, kept whole; `logo_type` is its media type.
CREATE TABLE agency_profiles (
    owner_id    INTEGER PRIMARY KEY,
    name        TEXT,
    logo        BLOB,
    logo_type   TEXT CHECK (logo_type IS NULL OR logo_type IN ('image/png', 'image/jpeg')),
    updated_at  TEXT NOT NULL
);

-- A share link of a cabinet's report: only the SHA-256 of its token is kept. `span` is
-- 'fixed' (the days `from_day`..`to_day`) or 'last7' / 'last30' (rolling, ending today);
-- `group_id` narrows it to one group of campaigns; `language` ('en', 'ru') is the one its page
-- speaks, NULL the reader's browser's. A link past `expires_at` or revoked answers like an
-- unknown one.
CREATE TABLE report_links (
    id          INTEGER PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    account_id  INTEGER NOT NULL,
    group_id    INTEGER,
    span        TEXT NOT NULL CHECK (span IN ('fixed', 'last7', 'last30')),
    from_day    TEXT,
    to_day      TEXT,
    language    TEXT CHECK (language IS NULL OR language IN ('en', 'ru')),
    created_by  INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    revoked_at  TEXT
);
CREATE INDEX report_links_account ON report_links(account_id, expires_at);
