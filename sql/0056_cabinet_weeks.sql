-- What each cabinet's daily rows come to per UTC week (Monday to Sunday; `week` is the
-- Monday's `YYYY-MM-DD`): its stats (`cabinet_weeks`, from `cabinet_days`, with how many days
-- it holds) and its conversions per event and currency (`cabinet_conversion_weeks`, from
-- `cabinet_conversion_days`, amounts in the same two parts). A span read from kept rows takes
-- each UTC week whose seven days all count in one of its spans from a week's row, and only the
-- days around them from the daily rows (`store::kept`, `store::converted`): the 30 days before
-- the home page's 30, or a cabinet's total over 30 days, read about a dozen rows instead of 30.
--
-- Kept by triggers on the daily rows, as those are kept by triggers on the hours and the
-- conversions: whatever changes a day changes its week, and a week left with no day (no
-- conversion) is removed, so each table equals its daily rows summed by week exactly (`adcab
-- check --deep` compares them).
CREATE TABLE cabinet_weeks (
    account_id    INTEGER NOT NULL,
    week          TEXT NOT NULL,
    days          INTEGER NOT NULL,
    views         INTEGER NOT NULL,
    opens         INTEGER NOT NULL,
    clicks        INTEGER NOT NULL,
    actions       INTEGER NOT NULL,
    spent_micros  INTEGER NOT NULL,
    PRIMARY KEY (account_id, week)
) WITHOUT ROWID;

INSERT INTO cabinet_weeks (account_id, week, days, views, opens, clicks, actions, spent_micros)
SELECT account_id, date(day, '-6 days', 'weekday 1'), COUNT(*), SUM(views), SUM(opens),
    SUM(clicks), SUM(actions), SUM(spent_micros)
FROM cabinet_days GROUP BY account_id, date(day, '-6 days', 'weekday 1');

CREATE TRIGGER cabinet_days_week_insert AFTER INSERT ON cabinet_days
BEGIN
    INSERT INTO cabinet_weeks (account_id, week, days, views, opens, clicks, actions,
        spent_micros)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), 1, new.views, new.opens,
        new.clicks, new.actions, new.spent_micros)
    ON CONFLICT (account_id, week) DO UPDATE SET days = days + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TRIGGER cabinet_days_week_delete AFTER DELETE ON cabinet_days
BEGIN
    UPDATE cabinet_weeks SET days = days - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1');
    DELETE FROM cabinet_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND days <= 0;
END;

-- A day's sums rewritten in place (an hour of it written): the difference, one statement.
CREATE TRIGGER cabinet_days_week_update AFTER UPDATE ON cabinet_days
WHEN old.account_id = new.account_id
    AND date(old.day, '-6 days', 'weekday 1') = date(new.day, '-6 days', 'weekday 1')
BEGIN
    UPDATE cabinet_weeks SET views = views - old.views + new.views,
        opens = opens - old.opens + new.opens, clicks = clicks - old.clicks + new.clicks,
        actions = actions - old.actions + new.actions,
        spent_micros = spent_micros - old.spent_micros + new.spent_micros
    WHERE account_id = new.account_id AND week = date(new.day, '-6 days', 'weekday 1');
END;

-- A day moved to another cabinet or week: out of the old week, into the new one.
CREATE TRIGGER cabinet_days_week_move AFTER UPDATE ON cabinet_days
WHEN old.account_id <> new.account_id
    OR date(old.day, '-6 days', 'weekday 1') <> date(new.day, '-6 days', 'weekday 1')
BEGIN
    UPDATE cabinet_weeks SET days = days - 1, views = views - old.views,
        opens = opens - old.opens, clicks = clicks - old.clicks,
        actions = actions - old.actions, spent_micros = spent_micros - old.spent_micros
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1');
    DELETE FROM cabinet_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND days <= 0;
    INSERT INTO cabinet_weeks (account_id, week, days, views, opens, clicks, actions,
        spent_micros)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), 1, new.views, new.opens,
        new.clicks, new.actions, new.spent_micros)
    ON CONFLICT (account_id, week) DO UPDATE SET days = days + 1,
        views = views + excluded.views, opens = opens + excluded.opens,
        clicks = clicks + excluded.clicks, actions = actions + excluded.actions,
        spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TABLE cabinet_conversion_weeks (
    account_id   INTEGER NOT NULL,
    week         TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    currency     TEXT NOT NULL,
    count        INTEGER NOT NULL,
    priced       INTEGER NOT NULL,
    amount_high  INTEGER NOT NULL,
    amount_low   INTEGER NOT NULL,
    PRIMARY KEY (account_id, week, event_type, currency)
) WITHOUT ROWID;

INSERT INTO cabinet_conversion_weeks (account_id, week, event_type, currency, count, priced,
    amount_high, amount_low)
SELECT account_id, date(day, '-6 days', 'weekday 1'), event_type, currency, SUM(count),
    SUM(priced), SUM(amount_high), SUM(amount_low)
FROM cabinet_conversion_days
GROUP BY account_id, date(day, '-6 days', 'weekday 1'), event_type, currency;

CREATE TRIGGER conversion_days_week_insert AFTER INSERT ON cabinet_conversion_days
BEGIN
    INSERT INTO cabinet_conversion_weeks (account_id, week, event_type, currency, count,
        priced, amount_high, amount_low)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), new.event_type,
        new.currency, new.count, new.priced, new.amount_high, new.amount_low)
    ON CONFLICT (account_id, week, event_type, currency) DO UPDATE SET
        count = count + excluded.count, priced = priced + excluded.priced,
        amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;

CREATE TRIGGER conversion_days_week_delete AFTER DELETE ON cabinet_conversion_days
BEGIN
    UPDATE cabinet_conversion_weeks SET count = count - old.count,
        priced = priced - old.priced, amount_high = amount_high - old.amount_high,
        amount_low = amount_low - old.amount_low
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND event_type = old.event_type AND currency = old.currency;
    DELETE FROM cabinet_conversion_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND event_type = old.event_type AND currency = old.currency AND count <= 0;
END;

-- A day's row changed in place (a conversion added to it or taken out): the difference, one
-- statement. Its count may come to 0 here; the day's removal that follows removes the week's
-- row with it if that empties the week.
CREATE TRIGGER conversion_days_week_update AFTER UPDATE ON cabinet_conversion_days
WHEN old.account_id = new.account_id
    AND date(old.day, '-6 days', 'weekday 1') = date(new.day, '-6 days', 'weekday 1')
    AND old.event_type = new.event_type AND old.currency = new.currency
BEGIN
    UPDATE cabinet_conversion_weeks SET count = count - old.count + new.count,
        priced = priced - old.priced + new.priced,
        amount_high = amount_high - old.amount_high + new.amount_high,
        amount_low = amount_low - old.amount_low + new.amount_low
    WHERE account_id = new.account_id AND week = date(new.day, '-6 days', 'weekday 1')
        AND event_type = new.event_type AND currency = new.currency;
END;

-- A day's row moved to another cabinet, week, event or currency: out of the old week's row,
-- into the new one.
CREATE TRIGGER conversion_days_week_move AFTER UPDATE ON cabinet_conversion_days
WHEN old.account_id <> new.account_id
    OR date(old.day, '-6 days', 'weekday 1') <> date(new.day, '-6 days', 'weekday 1')
    OR old.event_type <> new.event_type OR old.currency <> new.currency
BEGIN
    UPDATE cabinet_conversion_weeks SET count = count - old.count,
        priced = priced - old.priced, amount_high = amount_high - old.amount_high,
        amount_low = amount_low - old.amount_low
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND event_type = old.event_type AND currency = old.currency;
    DELETE FROM cabinet_conversion_weeks
    WHERE account_id = old.account_id AND week = date(old.day, '-6 days', 'weekday 1')
        AND event_type = old.event_type AND currency = old.currency AND count <= 0;
    INSERT INTO cabinet_conversion_weeks (account_id, week, event_type, currency, count,
        priced, amount_high, amount_low)
    VALUES (new.account_id, date(new.day, '-6 days', 'weekday 1'), new.event_type,
        new.currency, new.count, new.priced, new.amount_high, new.amount_low)
    ON CONFLICT (account_id, week, event_type, currency) DO UPDATE SET
        count = count + excluded.count, priced = priced + excluded.priced,
        amount_high = amount_high + excluded.amount_high,
        amount_low = amount_low + excluded.amount_low;
END;
