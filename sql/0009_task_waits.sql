-- A task the platform asked to wait (a flood wait on its cabinet's token) is not run again
-- before this moment (unix seconds of real time: the wait is transport time, not business
-- time); other cabinets' tasks run meanwhile.
ALTER TABLE tasks ADD COLUMN wait_until INTEGER;
