-- Cabinets on a real platform: the platform's own account id (an opaque string) beside adcab's
-- integer id, and the sealed credential the connector calls it with (the account's token,
-- encrypted with the key in `secret.key`; never stored in the clear). Simulated cabinets have
-- neither. An uploaded file keeps the platform's reference to it (a photo or video id).
ALTER TABLE cabinets ADD COLUMN platform_id TEXT;
ALTER TABLE cabinets ADD COLUMN credential TEXT;
CREATE UNIQUE INDEX cabinets_platform_id ON cabinets(platform_id) WHERE platform_id IS NOT NULL;
ALTER TABLE media ADD COLUMN platform_ref TEXT;
