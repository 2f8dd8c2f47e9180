# Валюта отчётности владельца, на /settings (#30).
settings-currency = Валюта отчётности
settings-currency-default = По умолчанию для сервиса ({ $currency })
settings-currency-help = Итоги по вашим кабинетам на главной и на странице кабинетов пересчитываются в эту валюту, курс и его дата указаны рядом с суммой. Ваша команда тоже видит итоги в ней.
settings-currency-save = Сохранить валюту
settings-currency-saved = Валюта отчётности сохранена.
settings-currency-bad = Выберите валюту из списка.
settings-currency-stars = Telegram Stars (STARS)
