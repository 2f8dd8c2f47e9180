# Error pages and the refusals the panel words itself.
error-title-not-found = Not found
error-title-forbidden = Not allowed
error-title-bad-request = Cannot read the request
error-title-conflict = Not done
error-title-method = Wrong kind of request
error-title-too-many = Too many changes
error-title-unavailable = Busy
error-title-internal = Something went wrong
error-page = Error
error-not-found = There is no such page, or it is not yours to see.
error-csrf = This form has expired. Go back, reload the page and send it again.
error-cross-site = A change sent from another site was refused.
error-method = This page does not take that kind of request.
error-rate-limited = You are making changes faster than adcab takes them. Wait { $seconds } seconds and send it again.
error-busy = adcab is busy right now. Try again in a moment.
error-full = adcab cannot store changes right now. Try again later; the operator was told.
error-internal = Something went wrong on our side. It was logged; try again.
error-form-too-large = The form is larger than { $kb } KB.
error-form-late = The form did not arrive in time.
error-form-unreadable = The form could not be read.
error-form-not-utf8 = The form is not UTF-8 text.
error-form-encoding = The form is badly encoded.
# Access rules (the API's sentences).
error-auth-key-missing = The X-API-Key header is missing.
error-auth-key-invalid = The API key is wrong, revoked or expired.
error-auth-no-accounts = The API key reaches no active cabinet.
error-auth-plan-keys = API keys are not available on the key owner's plan (Pro or Agency needed).
error-auth-read-only-key = This key lacks the Manage campaigns permission.
error-auth-partner = Partner keys cannot make changes.
error-auth-viewer = You have Viewer access to this cabinet.
error-auth-plan = Your plan does not include this action; an active Pro or Agency plan is needed.
error-auth-subscription = The cabinet owner has no active subscription.
error-auth-inactive = The cabinet is deactivated.
error-auth-account-id = Send account_id: { $why }.
error-auth-no-cabinet = No cabinet with this account_id is reachable with this key.
error-auth-tracker = This tracker URL is not valid; it may have been rotated in the panel.
error-auth-expired = The cabinet's platform session expired; the owner reconnects it in the panel.
error-auth-locked = The cabinet is under automatic management; manual changes are blocked.
# An operation's refusals.
error-not-live = These are not live campaigns of the cabinet: { $ids }.
error-queue-full = The cabinet already has { $limit } operations queued.
error-budget-unchanged = The platform took the top-up but the budget did not move.
error-less-budget = The campaign has less budget than the amount.
error-auto-cpm-locked = Auto CPM manages this campaign's bid; switch it off to set one.
error-viewer-zone = The viewer's time zone applies only to campaigns that target an audience (users).
error-not-declined = Only a declined campaign can be recreated.
error-platform-balance = The cabinet balance is too low.
error-platform-not-found = The platform has no such ad or account.
error-platform-expired = The platform refused the cabinet's token; reconnect the cabinet.
error-platform-unreachable = The platform did not answer. Try again in a few minutes.
error-platform-wait = The platform asks to wait { $seconds } seconds before the next change.
error-platform-unsupported = The platform does not support this.
error-platform-refused = The platform refused: { $why }
# A field's refusal, worded from its typed reason ($field is the field's label).
error-why-required = Fill in “{ $field }”.
error-why-kind = “{ $field }” has a value of the wrong kind.
error-why-number = “{ $field }” takes a number, such as 2.50.
error-why-decimals = { $scale ->
    [0] “{ $field }” takes a whole number.
    [one] “{ $field }” takes at most { $scale } decimal.
   *[other] “{ $field }” takes at most { $scale } decimals.
}
error-why-negative = “{ $field }” cannot be negative.
error-why-positive = “{ $field }” must be greater than 0.
error-why-too-large = “{ $field }” can be at most { $max }.
error-why-length = “{ $field }” takes { $min } to { $max } characters.
error-why-too-long = { $max ->
    [one] An entry of “{ $field }” has at most { $max } character.
   *[other] An entry of “{ $field }” has at most { $max } characters.
}
error-why-range = “{ $field }” takes a whole number from { $min } to { $max }.
error-why-one-of = “{ $field }” takes one of: { $allowed }.
error-why-too-many = { $max ->
    [one] “{ $field }” takes at most { $max } entry.
   *[other] “{ $field }” takes at most { $max } entries.
}
error-why-below-floor = A budget is 0 or at least { $min } { $currency }.
error-why-time = Choose a date and time for “{ $field }”.
error-why-past = “{ $field }” must be in the future.
error-why-too-far = { $days ->
    [one] “{ $field }” can be at most { $days } day ahead.
   *[other] “{ $field }” can be at most { $days } days ahead.
}
error-why-order = “{ $field }” must come after the value it is paired with.
error-why-link = This is not a link to a channel or bot, an @username or a website address.
error-why-username = An entry of “{ $field }” is not a public @username or t.me link.
error-why-unknown = “{ $field }” names something the platform does not know.
error-why-not-here = “{ $field }” does not apply here; leave it out.
error-why-hours = Hours run from 0 to 23.
error-why-no-hours = Choose at least one hour of the week.
error-why-zone = Choose a time zone the platform takes for this ad.
error-why-no-media = The platform shows media only on some target types; remove the media or change the target type.
error-why-email = This is not an email address.
error-why-taken = This is taken already; choose another.
error-why-password-short = { $min ->
    [one] A password has at least { $min } character.
   *[other] A password has at least { $min } characters.
}
error-why-password-long = A password has at most { $max } bytes.
# Labels of fields outside the create form, for a refusal that names one.
error-field-value = Value
error-field-name = Name
error-field-percent = Percent
error-field-min_cpm = Lowest CPM bid
error-field-max_cpm = Highest CPM bid
error-field-max_per_day = At most a day
error-field-cooldown_hours = Pause between runs
error-field-window_hours = Window
error-field-ad_ids = Campaigns
error-field-target = Target
error-field-goal = Goal
error-field-metric = Metric
error-field-op = Comparison
error-why-one-country = With cities, choose exactly one country: the cities’ own.
