# Отчёты клиентам по расписанию: подпись к PDF, который уходит в Telegram-чат кабинета.
scheduled-caption = { $cabinet }: отчёт за { $first } – { $last }
