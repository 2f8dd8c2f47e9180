# The schedule's week grid.
week-grid = Hours the campaign runs, by day
week-legend = Schedule
week-help = Tick the hours the ad may be shown. No hour ticked: around the clock.
week-always = Runs around the clock.
week-on = runs
week-zone = Time zone
week-zone-viewer = each viewer's local time
week-day-mon = Mon
week-day-tue = Tue
week-day-wed = Wed
week-day-thu = Thu
week-day-fri = Fri
week-day-sat = Sat
week-day-sun = Sun
