-- The language a cabinet's client reads its reports in (#30): the scheduled report's PDF and
-- caption, and the default of a share link made from its report page ('en', 'ru'). NULL: the
-- owner's language, as before.
ALTER TABLE cabinets ADD COLUMN report_language TEXT
    CHECK (report_language IS NULL OR report_language IN ('en', 'ru'));
