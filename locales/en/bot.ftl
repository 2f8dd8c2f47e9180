# The Telegram bot: proposals with Approve / Reject buttons, and the chat commands.
bot-not-linked-person = Your Telegram account is not linked to anyone in adcab, so the bot cannot act for you. Ask the operator to set your chat (admin user set --telegram-chat).
bot-not-linked-chat = This chat is not linked to a cabinet. Use the commands in a cabinet's chat or in your own chat with the bot.
bot-no-access = Only a person with Manager or owner access to the cabinet can do this.
bot-help = Commands: /status (today's spend and what needs attention), /pause <campaign id or exact title>, /pauseall (asks to confirm).
bot-status-head = Today (UTC):
bot-status-cabinet = { $cabinet }: spent { $spent } { $currency }
bot-status-fine =   nothing needs attention
bot-status-attention =   needs attention: { $declined } declined, { $out } out of budget, { $soon } about to stop, { $proposals } proposals waiting
bot-pause-which = Which campaign? Send /pause <campaign id or exact title>.
bot-pause-none = No live campaign “{ $name }” here.
bot-pause-many = Several campaigns are called “{ $name }”; send its id instead.
bot-paused = Paused: { $title } (#{ $id }).
bot-pause-failed = Not paused: { $title } (#{ $id }): { $why }.
bot-pauseall-none = No campaign is running here.
bot-pauseall-ask = Pause all { $count } running campaigns? Nothing happens until you press the button.
bot-pauseall-button = Pause { $count }
bot-pauseall-done = Paused { $done } of { $count } running campaigns.
bot-pauseall-expired = This confirmation is no longer valid; send /pauseall again.
bot-unknown-button = This button is no longer valid.
bot-approve = Approve
bot-reject = Reject
bot-answer-approved = Approved: done.
bot-answer-rejected = Rejected: nothing was done.
bot-answer-not-done = Approved, but not done: { $why }.
bot-answer-already = This proposal is already { $state }.
bot-proposal = Rule “{ $rule }” proposes: { $change }
    Campaign: { $title } (#{ $id }), cabinet { $cabinet }
    Readings: { $readings }
    Expires at { $expires } UTC unless approved.
bot-proposal-approved = Approved by { $person } ({ $via }): done.
bot-proposal-rejected = Rejected by { $person } ({ $via }): nothing was done.
bot-proposal-failed = Approved by { $person } ({ $via }), but not done: { $why }.
bot-proposal-expired = Expired: nobody decided in time, nothing was done.
