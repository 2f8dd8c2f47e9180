# Scheduled client reports: the caption of the PDF sent to a cabinet's Telegram chat.
scheduled-caption = { $cabinet }: report for { $first } – { $last }
