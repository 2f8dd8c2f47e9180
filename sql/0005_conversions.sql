-- Inbound conversions: what clients report back about their campaigns, and how it is
-- attributed.

-- The invite link the platform made for a channel campaign (on the platform's and the
-- service's side).
ALTER TABLE sim_ads ADD COLUMN invite_link TEXT;
ALTER TABLE campaigns ADD COLUMN invite_link TEXT;

-- The values a postback can name a campaign by: `ref` (a bot link's start payload or a
-- website link's tracker parameter) or `invite` (a channel campaign's invite link,
-- normalised). One value may name several campaigns.
CREATE TABLE campaign_refs (
    kind        TEXT NOT NULL CHECK (kind IN ('ref', 'invite')),
    value       TEXT NOT NULL,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    PRIMARY KEY (kind, value, account_id, ad_id)
) WITHOUT ROWID;
CREATE INDEX campaign_refs_ad ON campaign_refs(account_id, ad_id);

-- One reported event per sender and `txid`: a re-send with the same `txid` updates it.
-- `holder_id` is the person whose key or tracker token sent it. Amounts in micro-units of
-- `currency`, never converted.
CREATE TABLE conversions (
    id             INTEGER PRIMARY KEY,
    holder_id      INTEGER NOT NULL,
    txid           TEXT NOT NULL,
    event_type     TEXT NOT NULL CHECK (event_type IN ('lead', 'conversion', 'purchase')),
    ref            TEXT,
    invite_link    TEXT,
    amount_micros  INTEGER,
    currency       TEXT,
    status         TEXT,
    account_id     INTEGER NOT NULL,
    received_at    TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    UNIQUE (holder_id, txid)
);
CREATE INDEX conversions_account ON conversions(account_id, id);

-- The campaigns each conversion is attributed to (all campaigns sharing its ref).
CREATE TABLE conversion_campaigns (
    conversion_id  INTEGER NOT NULL,
    account_id     INTEGER NOT NULL,
    ad_id          INTEGER NOT NULL,
    PRIMARY KEY (conversion_id, ad_id)
) WITHOUT ROWID;
CREATE INDEX conversion_campaigns_ad ON conversion_campaigns(account_id, ad_id);
