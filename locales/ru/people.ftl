# Люди: страница команды, приглашения и ссылки для сброса пароля, личные настройки.

## Страница команды
people-team-title = Команда
people-team-lead = Люди, которые работают в ваших кабинетах. Для каждого кабинета — доступ менеджера (меняет кампании) или наблюдателя (только просмотр).
people-team-empty = В команде пока никого нет. Пригласите человека ниже.
people-team-person = Человек
people-team-access = Кабинеты и доступ
people-team-actions = Действия
people-team-manager = Менеджер
people-team-viewer = Наблюдатель
people-team-save = Сохранить
people-team-take-away = Забрать доступ
people-team-remove = Убрать из команды
people-team-no-password = Ещё не задал пароль
people-team-new-link = Новая ссылка-приглашение
people-team-only-agency = Команда есть только у владельца на тарифе Agency.
people-team-no-place = У этого человека нет такого места в вашей команде.
people-team-not-yours = Выберите один из своих кабинетов.
people-team-pick-access = Выберите «Менеджер» или «Наблюдатель».

## Приглашение
people-invite-title = Пригласить человека
people-invite-lead = Укажите почту и кабинеты, в которых человек будет работать. Если его ещё нет в adcab, он будет создан и получит одноразовую ссылку, чтобы задать пароль.
people-invite-email = Почта
people-invite-cabinets = Кабинеты
people-invite-access = Доступ
people-invite-language = Язык приглашения
people-invite-language-help = На этом языке будут страница приглашения и сообщение, пока человек не выберет свой язык.
people-invite-submit = Пригласить
people-invite-no-cabinets = У вас пока нет своих кабинетов, чтобы дать к ним доступ.
people-invite-email-invalid = Введите адрес почты, например anna@example.com.
people-invite-email-self = Это ваша команда — пригласите кого-нибудь другого.
people-invite-pick-cabinet = Отметьте хотя бы один свой кабинет.
people-invited-new = { $email } создан и добавлен в вашу команду.
people-invited-existing = { $email } добавлен в вашу команду с выбранным доступом.
people-invited-no-link = Ссылка не создана: у него уже есть пароль или его аккаунт создан не по вашему приглашению. Кабинеты появятся при входе; забытый пароль сбрасывает администратор.
people-invite-link = Одноразовая ссылка
people-invite-link-once = Скопируйте её сейчас: она показывается только один раз и работает один раз в течение 72 часов.
people-invite-sent = Ссылка также отправлена в его чат в Telegram.
people-invite-not-sent-no-chat = У него не привязан чат в Telegram — передайте ссылку сами.
people-invite-not-sent-no-bot = В adcab не настроен бот Telegram, поэтому ссылка не отправлена — передайте её сами.
people-invite-not-sent-failed = Не удалось отправить ссылку в его чат в Telegram — передайте её сами.
people-invite-message = Вас пригласили работать в adcab вместе с { $agency }. Задайте пароль по ссылке (она работает один раз, 72 часа): { $link }

## Страница ссылки
people-link-invite-title = Добро пожаловать в adcab
people-link-reset-title = Новый пароль
people-link-for = Для { $email }
people-link-lead = Придумайте пароль не короче { $min } символов. Как только он сохранится, вы войдёте в кабинет.
people-link-invalid-title = Ссылка не работает
people-link-invalid = Ссылка неизвестна, уже использована или устарела. Попросите того, кто её прислал, сделать новую.
people-link-submit = Сохранить и войти
people-link-limited = Слишком много попыток. Подождите 15 минут и попробуйте снова.
people-link-busy = Сейчас проверяется много паролей. Попробуйте чуть позже.

## Пароли
people-password-new = Новый пароль
people-password-again = Новый пароль ещё раз
people-password-current = Текущий пароль
people-password-short = Пароль должен быть не короче { $min } символов.
people-password-long = Пароль должен быть не длиннее { $max } байт.
people-password-mismatch = Пароли не совпадают.
people-password-wrong = Это не ваш текущий пароль.

## Настройки
people-settings-title = Настройки
people-settings-lead = Ваш пароль, язык, часовой пояс и чат в Telegram.
people-settings-profile = Язык, часовой пояс и Telegram
people-settings-language = Язык
people-settings-language-browser = Как в браузере
people-settings-language-en = English
people-settings-language-ru = Русский
people-settings-zone = Часовой пояс
people-settings-zone-browser = Как в браузере
people-settings-zone-bad = Выберите часовой пояс из списка, например Europe/Moscow.
people-settings-language-bad = Выберите английский, русский или язык браузера.
people-settings-chat = ID чата в Telegram
people-settings-chat-help = Сюда приходят уведомления и ссылки. Оставьте пустым, чтобы отвязать чат.
people-settings-chat-bad = ID чата — целое число, например 123456789 или -1001234567890.
people-settings-save = Сохранить
people-settings-password = Пароль
people-settings-password-help = При смене пароля вы выйдете из аккаунта в других браузерах.
people-settings-password-save = Сменить пароль
people-settings-saved = Сохранено.
people-settings-password-saved = Пароль изменён. В других браузерах вы вышли из аккаунта.
people-invite-not-sent-no-address = adcab не знает адрес, по которому его открывают ([panel] public_url), поэтому ссылка не отправлена — передайте её сами.
people-team-not-member = Этого человека нет в вашей команде, или он уже задал пароль.
