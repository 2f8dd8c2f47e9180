# Главная: что требует внимания и итоги по клиентам за период.
home-title = Главная
home-lead = Что требует вашего внимания сейчас и как отработали кампании клиентов.
home-attention = Требует внимания
home-attention-none = Сейчас ничего не требует внимания.
home-new = новое
home-more = и ещё { $count }
home-show-all = Показать все
home-open = Открыть
home-declined = Отклонено модерацией
home-declined-reason = Причина: { $reason }
home-declined-no-reason = Платформа не указала причину.
home-recreate = Пересоздать
home-in-review = На модерации больше 24 часов
home-in-review-since = На модерации с
home-out-of-budget = Остановлено: закончился бюджет
home-about-to-stop = Скоро остановится: при текущем расходе бюджета не хватит на сутки
home-about-to-stop-detail = Остаток бюджета { $budget }, расход за последние 24 часа { $spent }: { $hours ->
    [0] закончится в течение часа
    [one] хватит примерно на { $hours } час
    [few] хватит примерно на { $hours } часа
   *[many] хватит примерно на { $hours } часов
}
home-amount = Сумма
home-add-budget = Пополнить бюджет
home-low-balance = Баланса кабинета не хватит на сутки
home-low-balance-detail = Баланс { $balance }, расход за последние 24 часа { $spent }
home-session-expired = Сессия платформы истекла
home-session-expired-detail = Изменения и синхронизация остановлены, пока оператор не переподключит кабинет.
home-webhook-failing = Вебхуки не доходят
home-webhook-failing-detail = Последние три отправки на { $url } завершились ошибкой.
home-automation = Автоматизация за последние 7 дней
home-automation-acted = Правило «{ $rule }» сработало
home-automation-proposed = Правило «{ $rule }» предлагает (тестовый режим)
home-automation-failed = Правило «{ $rule }» не смогло выполнить действие
home-automation-deleted-rule = удалённое правило
home-auto-cpm = Авто-CPM изменил ставку с { $from } на { $to }
home-rule-log = Журнал правила
home-totals = Итоги по клиентам
home-period = Период
home-period-today = Сегодня
home-period-yesterday = Вчера
home-period-7d = 7 дней
home-period-30d = 30 дней
home-period-month = Этот месяц
home-period-custom = Свой период
home-from = С
home-to = По
home-show = Показать
home-period-bad = Укажите обе даты в виде ГГГГ-ММ-ДД, первая не позже второй, не больше 366 дней.
home-span = { $from } – { $to }, дни по часовому поясу { $zone }
home-versus = Изменение к периоду { $from } – { $to }
home-col-client = Клиент
home-col-currency = Валюта
home-col-spend = Расход
home-col-views = Показы
home-col-clicks = Клики
home-col-ctr = CTR
home-col-cpm = CPM
home-col-actions = Действия
home-col-conversions = Конверсии
home-col-revenue = Выручка
home-total = Итого, { $currency }
home-no-change = нет данных за прошлый период
home-trend = Расход по дням
home-trend-series = Расход, { $currency }
home-no-cabinets = Кабинетов пока нет. Их подключает оператор или открывает вам агентство.
home-col-roas = ROAS
home-col-profit = Прибыль
home-across = Все клиенты в { $currency }
home-across-lead = Суммы в других валютах пересчитаны по курсу на { $date } (или по последнему курсу за неделю до этой даты); курс указан рядом с каждой суммой.
home-across-spend = Расход
home-across-revenue = Доход
home-across-roas = ROAS
home-across-profit = Прибыль
home-rate = по курсу 1 { $from } = { $rate } { $to }, { $date }
home-rate-missing = { $currency }: курс неизвестен, здесь не учтено, показано без пересчёта
