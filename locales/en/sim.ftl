# The simulator's page.
sim-title = Simulator
sim-lead = This adcab runs on its built-in simulator: a trial. Move its clock on and decide reviews to watch campaigns deliver.
sim-clock = Service clock
sim-now = Now:
sim-step-hours = { $count ->
    [one] +{ $count } hour
   *[other] +{ $count } hours
}
sim-step-days = { $count ->
    [one] +{ $count } day
   *[other] +{ $count } days
}
sim-step-weeks = { $count ->
    [one] +{ $count } week
   *[other] +{ $count } weeks
}
sim-clock-shared = The clock is shared by every cabinet; a person who may change one of their cabinets moves it.
sim-clock-refused = The simulator's clock is shared by every cabinet: only a person who may change one of their cabinets moves it.
sim-step-unknown = Choose one of the offered steps.
sim-decision-unknown = Approve or decline.
sim-in-review = In review
sim-nothing-waits = Nothing waits for review in your cabinets.
sim-campaign = Campaign
sim-cabinet = Cabinet
sim-text = Text
sim-decision = Decision
sim-approve = Approve
sim-decline = Decline
