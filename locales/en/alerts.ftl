# Alerts sent to Telegram chats (and, in English, to the keys' webhooks).
alert-cabinet = Cabinet “{ $name }”
alert-cabinet-id = Cabinet { $id }
alert-campaign = Campaign { $ad } “{ $title }” ({ $cabinet })
alert-campaign-id = Campaign { $ad } ({ $cabinet })
alert-named = { $ad } “{ $title }”
alert-and-more = { $list } and { $count } more
alert-declined-one = { $campaign } was declined by the platform's review.
alert-declined-one-reason = { $campaign } was declined by the platform's review: { $reason }
alert-declined-many = { $count } campaigns of { $cabinet } were declined by the platform's review: { $list }.
alert-budget-low-one = { $campaign } is running low on budget.
alert-budget-low-many = { $count } campaigns of { $cabinet } are running low on budget: { $list }.
alert-balance-low = { $cabinet }'s balance does not cover another day of spending.
alert-session-expired = { $cabinet }'s platform session expired: changes fail until it is reconnected.
alert-webhook-failing = The webhook deliveries of API key { $key } keep failing (the last three).
alert-held = { $count ->
    [one] { $cabinet }: { $count } more alert of this hour was held back (at most { $cap } are sent an hour); the rules' logs and the panel show every condition.
   *[other] { $cabinet }: { $count } more alerts of this hour were held back (at most { $cap } are sent an hour); the rules' logs and the panel show every condition.
}
alert-rule-one = { $text } (rule “{ $rule }”, campaign { $ad })
alert-rule-many = { $text } (rule “{ $rule }”, { $count } campaigns of { $cabinet }: { $list })
alert-digest = Your last 24 hours, to { $to }:
alert-digest-line = { $name }: { $spent } { $currency } spent, { $views } views, { $actions } actions
alert-digest-line-alerts = { $count ->
    [one] { $name }: { $spent } { $currency } spent, { $views } views, { $actions } actions, { $count } alert
   *[other] { $name }: { $spent } { $currency } spent, { $views } views, { $actions } actions, { $count } alerts
}
alert-digest-more = and { $count } more cabinets
