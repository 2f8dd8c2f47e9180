# People: the Team page, invitations and reset links, a person's own settings.

## The Team page
people-team-title = Team
people-team-lead = People who work in your cabinets, each with Manager (changes campaigns) or Viewer (reads) access per cabinet.
people-team-empty = No one in your team yet. Invite a person below.
people-team-person = Person
people-team-access = Cabinets and access
people-team-actions = Actions
people-team-manager = Manager
people-team-viewer = Viewer
people-team-save = Save
people-team-take-away = Take away
people-team-remove = Remove from the team
people-team-no-password = Has not set a password yet
people-team-new-link = New invitation link
people-team-only-agency = A team belongs to an owner on the Agency plan.
people-team-no-place = This person has no such place in your team.
people-team-not-yours = Choose one of your own cabinets.
people-team-pick-access = Choose Manager or Viewer.

## Inviting
people-invite-title = Invite a person
people-invite-lead = Give their email and the cabinets they work in. A person new to adcab is created and gets a one-time link to set their password.
people-invite-email = Email
people-invite-cabinets = Cabinets
people-invite-access = Access
people-invite-language = Their language
people-invite-language-help = The invitation page and message speak it until they choose their own.
people-invite-submit = Invite
people-invite-no-cabinets = You own no cabinet to share yet.
people-invite-email-invalid = Enter an email address, such as anna@example.com.
people-invite-email-self = You own this team: invite someone else.
people-invite-pick-cabinet = Tick at least one of your cabinets.
people-invited-new = { $email } was created and added to your team.
people-invited-existing = { $email } was added to your team with the access you chose.
people-invited-no-link = No link was made: they have a password already, or their account was not made by your invitation. They find the cabinets when they sign in; a forgotten password is reset by the operator.
people-invite-link = One-time link
people-invite-link-once = Copy it now: it is shown only this once and works once, for 72 hours.
people-invite-sent = The link was also sent to their Telegram chat.
people-invite-not-sent-no-chat = They have no Telegram chat linked: pass the link on yourself.
people-invite-not-sent-no-bot = adcab has no Telegram bot set up, so the link was not sent: pass it on yourself.
people-invite-not-sent-failed = The link could not be sent to their Telegram chat: pass it on yourself.
people-invite-message = You are invited to work in adcab with { $agency }. Set your password here (the link works once, for 72 hours): { $link }

## The link's page
people-link-invite-title = Welcome to adcab
people-link-reset-title = Choose a new password
people-link-for = For { $email }
people-link-lead = Choose a password of at least { $min } characters. You are signed in as soon as it is saved.
people-link-invalid-title = This link does not work
people-link-invalid = The link is unknown, already used or expired. Ask whoever sent it for a new one.
people-link-submit = Save and sign in
people-link-limited = Too many attempts. Wait 15 minutes and try again.
people-link-busy = Many passwords are being checked right now. Try again shortly.

## Passwords
people-password-new = New password
people-password-again = New password again
people-password-current = Current password
people-password-short = A password has at least { $min } characters.
people-password-long = A password has at most { $max } bytes.
people-password-mismatch = The two passwords differ.
people-password-wrong = This is not your current password.

## Settings
people-settings-title = Settings
people-settings-lead = Your password, language, time zone and Telegram chat.
people-settings-profile = Language, time zone and Telegram
people-settings-language = Language
people-settings-language-browser = As my browser
people-settings-language-en = English
people-settings-language-ru = Русский
people-settings-zone = Time zone
people-settings-zone-browser = As my browser
people-settings-zone-bad = Choose a time zone from the list, such as Europe/Berlin.
people-settings-language-bad = Choose English, Russian or your browser's language.
people-settings-chat = Telegram chat id
people-settings-chat-help = Alerts and links go to this chat. Leave it empty to unlink.
people-settings-chat-bad = A chat id is a whole number, such as 123456789 or -1001234567890.
people-settings-save = Save
people-settings-password = Password
people-settings-password-help = Your other browsers are signed out when the password changes.
people-settings-password-save = Change password
people-settings-saved = Saved.
people-settings-password-saved = Password changed. Your other browsers are signed out.
people-invite-not-sent-no-address = adcab does not know the address people open it at ([panel] public_url), so the link was not sent: pass it on yourself.
people-team-not-member = This person is not in your team, or has set a password already.
