-- An alert in Russian beside its English `text` (which the `alert` webhook event carries):
-- a Telegram chat of a person who reads the panel in Russian, or of a cabinet whose owner
-- does, gets this one. NULL for alerts raised before; they are sent in English.
ALTER TABLE alerts ADD COLUMN text_ru TEXT;
