# The owner's reporting currency, on /settings (#30).
settings-currency = Reporting currency
settings-currency-default = The service's default ({ $currency })
settings-currency-help = Totals across your cabinets on the home and cabinets pages are converted into it, with each rate and its date beside the figure. Your team sees them in it too.
settings-currency-save = Save currency
settings-currency-saved = The reporting currency is saved.
settings-currency-bad = Choose a currency from the list.
settings-currency-stars = Telegram Stars (STARS)
