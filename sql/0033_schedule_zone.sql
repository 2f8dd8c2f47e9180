-- The IANA zone a campaign's schedule was given in (`Europe/Berlin`): the platform holds only
-- an offset, so adcab keeps the name beside the schedule, answers it back, and re-sends the
-- schedule with the zone's new offset when its clocks change. NULL for a schedule given as an
-- offset or `viewer`, and for no schedule.
ALTER TABLE campaigns ADD COLUMN schedule_zone TEXT;

-- The zone's offset (`+HH:MM`) the schedule could not be moved to (not one of the platform's
-- time zones, or the platform refused it), recorded once so the job does not ask again until
-- the zone's offset changes once more; NULL while the platform holds the zone's offset.
ALTER TABLE campaigns ADD COLUMN schedule_zone_refused TEXT;

-- The campaigns whose schedule follows a zone: what the hourly look at the zones reads.
CREATE INDEX campaigns_schedule_zone ON campaigns(schedule_zone)
    WHERE schedule_zone IS NOT NULL;
