-- The language a cabinet's client reads its reports in (#30): the scheduled report's PDF and
-- caption, and the default of a share link made from its report page ('en', 'ru', written only
-- by `admin cabinet set --report-language`; like `report_schedule`, no CHECK on `cabinets`,
-- whose table keeps none). NULL: the owner's language, as before.
ALTER TABLE cabinets ADD COLUMN report_language TEXT;
