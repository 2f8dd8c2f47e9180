-- adcab foundation: people, plans, cabinets, access, keys, groups, campaigns, the service clock,
-- and the simulator's own state (sim_*), which stands for the ad platform's side.
-- Money is stored as INTEGER micro-units (1 = 0.000001) so it is exact, sortable and summable.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    plan          TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'agency')),
    subscription  TEXT NOT NULL DEFAULT 'active' CHECK (subscription IN ('active', 'expired')),
    created_at    TEXT NOT NULL
);

-- A cabinet's id is the platform's account id.
CREATE TABLE cabinets (
    id                  INTEGER PRIMARY KEY,
    owner_id            INTEGER NOT NULL REFERENCES users(id),
    name                TEXT NOT NULL,
    cabinet_type        TEXT NOT NULL CHECK (cabinet_type IN ('euro', 'ton', 'stars')),
    is_active           INTEGER NOT NULL DEFAULT 1,
    balance_micros      INTEGER NOT NULL DEFAULT 0,
    balance_updated_at  TEXT NOT NULL,
    min_budget          INTEGER NOT NULL,
    ad_button           INTEGER NOT NULL DEFAULT 0,
    crypto_filters      INTEGER NOT NULL DEFAULT 0,
    auth_expired        INTEGER NOT NULL DEFAULT 0,
    locked              INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL
);
CREATE INDEX cabinets_owner ON cabinets(owner_id);

CREATE TABLE team_members (
    agency_id  INTEGER NOT NULL REFERENCES users(id),
    member_id  INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (agency_id, member_id)
);
CREATE INDEX team_members_member ON team_members(member_id);

-- A cabinet an agency shares with one of its members.
CREATE TABLE cabinet_shares (
    agency_id   INTEGER NOT NULL,
    member_id   INTEGER NOT NULL,
    cabinet_id  INTEGER NOT NULL REFERENCES cabinets(id),
    access      TEXT NOT NULL CHECK (access IN ('manager', 'viewer')),
    PRIMARY KEY (member_id, cabinet_id),
    FOREIGN KEY (agency_id, member_id) REFERENCES team_members(agency_id, member_id) ON DELETE CASCADE
);

CREATE TABLE api_keys (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id),
    key_hash        TEXT NOT NULL UNIQUE,
    manage          INTEGER NOT NULL DEFAULT 0,
    postbacks       INTEGER NOT NULL DEFAULT 0,
    partner         INTEGER NOT NULL DEFAULT 0,
    scope_all       INTEGER NOT NULL DEFAULT 1,
    webhook_url     TEXT,
    webhook_secret  TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    revoked_at      TEXT,
    last_used_at    TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

-- The ticked cabinets of a key whose scope is not "All".
CREATE TABLE api_key_cabinets (
    key_id      INTEGER NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    cabinet_id  INTEGER NOT NULL REFERENCES cabinets(id),
    PRIMARY KEY (key_id, cabinet_id)
);

CREATE TABLE tracker_tokens (
    user_id     INTEGER PRIMARY KEY REFERENCES users(id),
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE groups (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES cabinets(id),
    name        TEXT NOT NULL,
    color       TEXT NOT NULL,
    UNIQUE (account_id, name)
);

-- The service's copy of each ad. `synced_at` is when the ad's own settings were last read from
-- the platform; counters and status are refreshed separately.
CREATE TABLE campaigns (
    account_id           INTEGER NOT NULL REFERENCES cabinets(id),
    ad_id                INTEGER NOT NULL,
    title                TEXT NOT NULL,
    text                 TEXT NOT NULL,
    status               TEXT NOT NULL,
    active               INTEGER NOT NULL,
    promote_url          TEXT NOT NULL,
    link_kind            TEXT NOT NULL CHECK (link_kind IN ('bot', 'channel', 'site')),
    tme_path             TEXT,
    tme_username         TEXT,
    promote_host         TEXT,
    target_type          TEXT NOT NULL,
    targeting            TEXT NOT NULL,
    cpm_micros           INTEGER NOT NULL,
    budget_micros        INTEGER NOT NULL,
    spent_micros         INTEGER NOT NULL DEFAULT 0,
    daily_budget_micros  INTEGER,
    views                INTEGER NOT NULL DEFAULT 0,
    opens                INTEGER NOT NULL DEFAULT 0,
    clicks               INTEGER NOT NULL DEFAULT 0,
    actions              INTEGER NOT NULL DEFAULT 0,
    views_per_user       INTEGER NOT NULL,
    schedule             TEXT,
    media_token          TEXT,
    media_type           TEXT,
    picture              INTEGER NOT NULL DEFAULT 0,
    button               TEXT,
    website_name         TEXT,
    group_id             INTEGER REFERENCES groups(id),
    auto_cpm_enabled     INTEGER NOT NULL DEFAULT 0,
    created_at           INTEGER NOT NULL,
    synced_at            TEXT NOT NULL,
    status_changed_at    TEXT NOT NULL,
    PRIMARY KEY (account_id, ad_id)
);
CREATE INDEX campaigns_username ON campaigns(tme_username);
CREATE INDEX campaigns_host ON campaigns(promote_host);
CREATE INDEX campaigns_ad ON campaigns(ad_id);

-- One row: the offset of the service clock from system time, in seconds.
CREATE TABLE service_clock (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    offset_seconds  INTEGER NOT NULL
);
INSERT INTO service_clock (id, offset_seconds) VALUES (1, 0);

-- The simulator's side: what the platform itself holds.
CREATE TABLE sim_accounts (
    id              INTEGER PRIMARY KEY,
    cabinet_type    TEXT NOT NULL,
    balance_micros  INTEGER NOT NULL,
    next_ad_id      INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE sim_ads (
    account_id           INTEGER NOT NULL REFERENCES sim_accounts(id),
    ad_id                INTEGER NOT NULL,
    spec                 TEXT NOT NULL,
    status               TEXT NOT NULL,
    active               INTEGER NOT NULL,
    cpm_micros           INTEGER NOT NULL,
    budget_micros        INTEGER NOT NULL,
    spent_micros         INTEGER NOT NULL DEFAULT 0,
    daily_budget_micros  INTEGER,
    schedule             TEXT,
    views                INTEGER NOT NULL DEFAULT 0,
    opens                INTEGER NOT NULL DEFAULT 0,
    clicks               INTEGER NOT NULL DEFAULT 0,
    actions              INTEGER NOT NULL DEFAULT 0,
    review_requested_at  TEXT,
    decline_reason       TEXT,
    created_at           INTEGER NOT NULL,
    status_changed_at    TEXT NOT NULL,
    PRIMARY KEY (account_id, ad_id)
);

-- Faults the operator asked the simulator to inject on an account's next calls.
CREATE TABLE sim_faults (
    account_id  INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('timeout', 'refuse')),
    remaining   INTEGER NOT NULL CHECK (remaining > 0)
);

-- Every change made to a campaign, with where it came from.
CREATE TABLE campaign_history (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL,
    ad_id       INTEGER NOT NULL,
    at          TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('api', 'panel', 'automation')),
    action      TEXT NOT NULL,
    details     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX campaign_history_ad ON campaign_history(account_id, ad_id, id);

-- Every webhook delivery, with how it ended.
CREATE TABLE webhook_deliveries (
    id           INTEGER PRIMARY KEY,
    key_id       INTEGER NOT NULL REFERENCES api_keys(id),
    event        TEXT NOT NULL,
    delivery_id  TEXT NOT NULL,
    attempts     INTEGER NOT NULL,
    status       INTEGER,
    duration_ms  INTEGER NOT NULL,
    error        TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_key ON webhook_deliveries(key_id, id);
