# Names of campaign and cabinet states.
status-active = Active
status-in-review = In Review
status-declined = Declined
status-paused = Paused
status-stopped = Stopped
status-on-hold = On Hold
status-deleted = Deleted
status-cabinet-active = Active
status-cabinet-inactive = Inactive
status-cabinet-locked = Locked
status-cabinet-expired = Session expired
status-access-owner = owner
status-access-manager = manager
status-access-viewer = viewer
