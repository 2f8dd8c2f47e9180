# The sign-in page.
login-title = Sign in
login-lead = Sign in to manage your cabinets and campaigns.
login-email = Email
login-password = Password
login-submit = Sign in
login-too-many = Too many failed sign-ins. Wait 15 minutes and try again.
login-busy = Many sign-ins are being checked right now. Try again shortly.
login-wrong = Wrong email or password.
