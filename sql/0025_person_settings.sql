-- A person's own settings in the panel: the language pages are written in (`en`, `ru`; NULL
-- follows the browser), the time zone times are shown in (an IANA name such as
-- `Europe/Berlin`; NULL follows the browser), and when they last read the home page's
-- "needs attention" list (unix seconds; what happened since is marked new).
ALTER TABLE users ADD COLUMN language TEXT;
ALTER TABLE users ADD COLUMN time_zone TEXT;
ALTER TABLE users ADD COLUMN attention_seen_at INTEGER;
