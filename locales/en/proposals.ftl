# A rule's proposals (rules that ask first): the home page's list, and their changes as the
# panel and the bot word them.
proposals-title = Waiting for your approval
proposals-lead = Rules that ask first propose these changes; an approval checks the rule's guards again before anything is done.
proposals-readings = Readings:
proposals-expires = Expires
proposals-approve = Approve
proposals-reject = Reject
proposals-already = This proposal is already { $state }.
proposal-change-pause = pause the campaign
proposal-change-resume = resume the campaign
proposal-change-cpm = bid { $from } → { $to } { $currency }
proposal-change-add-budget = add { $amount } { $currency } to the budget
proposal-state-pending = waiting
proposal-state-approved = approved
proposal-state-rejected = rejected
proposal-state-expired = expired
proposal-state-failed = approved, but it could not be done
