-- One row: the rule the stored `campaign_refs` were computed under (a version of the
-- derivation and the configured tracker parameters). A start whose rule differs, or finds no
-- row, re-indexes every campaign; any other start skips that work.
CREATE TABLE refs_indexed_under (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    rule  TEXT NOT NULL
);
