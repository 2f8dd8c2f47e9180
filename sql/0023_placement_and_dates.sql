-- Where a campaign's ad shows (`channel_post`, `video_banner`, ...), fixed when it is made and
-- reported back by the platform; NULL for copies stored before placements were kept (the
-- platform's placement for their target type).
ALTER TABLE campaigns ADD COLUMN placement TEXT;

-- When a campaign starts and ends (Unix seconds on whole minutes, NULL for none). adcab's own
-- record: a platform clears its dates on a pause, adcab keeps them and sends them again on a
-- resume, so a sync never writes the platform's over them.
ALTER TABLE campaigns ADD COLUMN starts_at INTEGER;
ALTER TABLE campaigns ADD COLUMN ends_at INTEGER;
