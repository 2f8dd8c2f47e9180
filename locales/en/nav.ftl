# The navigation and the page shell.
nav-sections = Sections
nav-home = Home
nav-cabinets = Cabinets
nav-campaigns = Campaigns
nav-rules = Rules
nav-tasks = Tasks
nav-keys = API & Webhooks
nav-team = Team
nav-sim = Simulator
nav-settings = Settings
nav-api-docs = API reference
nav-menu = Menu
nav-sign-out = Sign out
nav-sign-out-everywhere = Sign out everywhere
nav-reports = Reports
