# Страницы ошибок и отказы, которые панель формулирует сама.
error-title-not-found = Не найдено
error-title-forbidden = Нет доступа
error-title-bad-request = Не удалось прочитать запрос
error-title-conflict = Не выполнено
error-title-method = Неверный тип запроса
error-title-too-many = Слишком много изменений
error-title-unavailable = Сервис занят
error-title-internal = Что-то пошло не так
error-page = Ошибка
error-not-found = Такой страницы нет, или у вас нет к ней доступа.
error-csrf = Срок действия формы истёк. Вернитесь назад, обновите страницу и отправьте форму ещё раз.
error-cross-site = Изменение, отправленное с другого сайта, отклонено.
error-method = Эта страница не принимает такой запрос.
error-rate-limited = { $seconds ->
    [one] Вы вносите изменения быстрее, чем adcab успевает их принять. Подождите { $seconds } секунду и отправьте ещё раз.
    [few] Вы вносите изменения быстрее, чем adcab успевает их принять. Подождите { $seconds } секунды и отправьте ещё раз.
   *[many] Вы вносите изменения быстрее, чем adcab успевает их принять. Подождите { $seconds } секунд и отправьте ещё раз.
}
error-busy = adcab сейчас занят. Повторите через минуту.
error-full = adcab сейчас не может сохранить изменения. Попробуйте позже; оператор уже знает о проблеме.
error-internal = Что-то пошло не так на нашей стороне. Ошибка записана в журнал; попробуйте ещё раз.
error-form-too-large = Форма больше { $kb } КБ.
error-form-late = Форма не пришла вовремя.
error-form-unreadable = Не удалось прочитать форму.
error-form-not-utf8 = Форма должна быть в кодировке UTF-8.
error-form-encoding = Форма закодирована неверно.
# Правила доступа (формулировки API).
error-auth-key-missing = Нет заголовка X-API-Key.
error-auth-key-invalid = API-ключ неверный, отозван или просрочен.
error-auth-no-accounts = API-ключ не даёт доступа ни к одному активному кабинету.
error-auth-plan-keys = API-ключи недоступны на тарифе владельца ключа (нужен Pro или Agency).
error-auth-read-only-key = У этого ключа нет права «Управление кампаниями».
error-auth-partner = Партнёрские ключи не могут вносить изменения.
error-auth-viewer = У вас доступ к этому кабинету только на просмотр.
error-auth-plan = Ваш тариф не включает это действие; нужен активный тариф Pro или Agency.
error-auth-subscription = У владельца кабинета нет активной подписки.
error-auth-inactive = Кабинет отключён.
error-auth-account-id = Укажите account_id: { $why }.
error-auth-no-cabinet = Кабинет с таким account_id недоступен с этим ключом.
error-auth-tracker = Этот адрес трекера недействителен; возможно, его заменили в панели.
error-auth-expired = Сессия кабинета на платформе истекла; владелец подключает его заново в панели.
error-auth-locked = Кабинет на автоматическом управлении; ручные изменения заблокированы.
# Отказы операций.
error-not-live = Это не действующие кампании кабинета: { $ids }.
error-queue-full = { $limit ->
    [one] В очереди кабинета уже { $limit } операция.
    [few] В очереди кабинета уже { $limit } операции.
   *[many] В очереди кабинета уже { $limit } операций.
}
error-budget-unchanged = Платформа приняла пополнение, но бюджет кампании не изменился.
error-less-budget = Бюджет кампании меньше этой суммы.
error-auto-cpm-locked = Ставкой этой кампании управляет Auto CPM; отключите его, чтобы задать ставку вручную.
error-viewer-zone = Часовой пояс зрителя подходит только для кампаний с таргетингом на аудиторию (users).
error-not-declined = Пересоздать можно только отклонённую кампанию.
error-platform-balance = На балансе кабинета недостаточно средств.
error-platform-not-found = На платформе нет такого объявления или кабинета.
error-platform-expired = Платформа не приняла токен кабинета; подключите кабинет заново.
error-platform-unreachable = Платформа не ответила. Повторите через несколько минут.
error-platform-wait = { $seconds ->
    [one] Платформа просит подождать { $seconds } секунду до следующего изменения.
    [few] Платформа просит подождать { $seconds } секунды до следующего изменения.
   *[many] Платформа просит подождать { $seconds } секунд до следующего изменения.
}
error-platform-unsupported = Платформа этого не поддерживает.
error-platform-refused = Платформа отказала: { $why }
# Отказ по полю, сформулированный по типу причины ($field — подпись поля).
error-why-required = Заполните поле «{ $field }».
error-why-kind = В поле «{ $field }» значение неверного типа.
error-why-number = В поле «{ $field }» нужно число, например 2.50.
error-why-decimals = { $scale ->
    [0] В поле «{ $field }» нужно целое число.
    [one] В поле «{ $field }» не больше { $scale } знака после запятой.
    [few] В поле «{ $field }» не больше { $scale } знаков после запятой.
   *[many] В поле «{ $field }» не больше { $scale } знаков после запятой.
}
error-why-negative = Значение поля «{ $field }» не может быть отрицательным.
error-why-positive = Значение поля «{ $field }» должно быть больше 0.
error-why-too-large = Значение поля «{ $field }» — не больше { $max }.
error-why-length = В поле «{ $field }» от { $min } до { $max } символов.
error-why-too-long = { $max ->
    [one] Значение в поле «{ $field }» — не длиннее { $max } символа.
   *[other] Значение в поле «{ $field }» — не длиннее { $max } символов.
}
error-why-range = В поле «{ $field }» нужно целое число от { $min } до { $max }.
error-why-one-of = В поле «{ $field }» допустимо одно из значений: { $allowed }.
error-why-too-many = { $max ->
    [one] В поле «{ $field }» не больше { $max } значения.
   *[other] В поле «{ $field }» не больше { $max } значений.
}
error-why-below-floor = Бюджет — 0 или не меньше { $min } { $currency }.
error-why-time = Выберите дату и время в поле «{ $field }».
error-why-past = Значение поля «{ $field }» должно быть в будущем.
error-why-too-far = { $days ->
    [one] Поле «{ $field }» — не дальше чем через { $days } день.
    [few] Поле «{ $field }» — не дальше чем через { $days } дня.
   *[many] Поле «{ $field }» — не дальше чем через { $days } дней.
}
error-why-order = Значение поля «{ $field }» должно быть позже (или больше) парного значения.
error-why-link = Это не ссылка на канал или бота, не @имя и не адрес сайта.
error-why-username = В поле «{ $field }» есть значение, которое не является публичным @именем или ссылкой t.me.
error-why-unknown = В поле «{ $field }» указано то, чего нет на платформе.
error-why-not-here = Поле «{ $field }» здесь не используется; оставьте его пустым.
error-why-hours = Часы — от 0 до 23.
error-why-no-hours = Выберите хотя бы один час недели.
error-why-zone = Выберите часовой пояс, который платформа принимает для этого объявления.
error-why-no-media = Платформа показывает медиа только при некоторых типах таргетинга; уберите медиа или смените тип таргетинга.
error-why-email = Это не адрес электронной почты.
error-why-taken = Это значение уже занято; выберите другое.
error-why-password-short = { $min ->
    [one] В пароле должно быть не меньше { $min } символа.
   *[other] В пароле должно быть не меньше { $min } символов.
}
error-why-password-long = Пароль — не больше { $max } байт.
# Подписи полей вне формы создания кампании, для отказа, который называет поле.
error-field-value = Значение
error-field-name = Название
error-field-percent = Процент
error-field-min_cpm = Минимальная ставка CPM
error-field-max_cpm = Максимальная ставка CPM
error-field-max_per_day = Не больше в сутки
error-field-cooldown_hours = Перерыв между срабатываниями
error-field-window_hours = Период
error-field-ad_ids = Кампании
error-field-target = Цель
error-field-goal = Цель
error-field-metric = Показатель
error-field-op = Сравнение
error-why-one-country = При выборе городов укажите ровно одну страну — страну этих городов.
