-- What the platform last said about a public channel or bot a person looked up or targeted:
-- its title and picture, so targeting reads "Title (@username)" rather than a bare name.
-- Keyed by the platform's kind (`sim`, `telegram`) and the lower-case username without `@`.
CREATE TABLE peer_titles (
    platform    TEXT NOT NULL,
    username    TEXT NOT NULL,
    title       TEXT,
    photo_url   TEXT,
    seen_at     TEXT NOT NULL,
    PRIMARY KEY (platform, username)
) WITHOUT ROWID;
