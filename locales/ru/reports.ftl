# Отчёты для клиентов: /reports, /reports/{account_id} и ссылка /r/{token}.
reports-index-title = Отчёты для клиентов
reports-index-lead = Отчёт по кабинету за любые дни: итоги, изменение к прошлому периоду, график по дням, каждая кампания и конверсии. Отправьте клиенту ссылку, которая открывается без входа, или скачайте файл.
reports-title = Отчёт
reports-span = { $from } – { $to } (сутки UTC)
reports-previous = Изменения — к периоду { $from } – { $to } той же длины перед этим.
reports-group = Группа
reports-group-all = Все кампании
reports-totals = Итоги
reports-change-title = Изменение к прошлому периоду
reports-change-none = В прошлом периоде сравнивать не с чем
reports-spent = Расход
reports-views = Показы
reports-clicks = Клики
reports-ctr = CTR
reports-cpm = CPM
reports-actions = Действия
reports-conversions = Конверсии
reports-revenue = Выручка
reports-cpa = CPA
reports-roas = ROAS
reports-fee-title = Расход с комиссией агентства
reports-fee-platform = Расход в рекламной платформе
reports-fee-line = Комиссия агентства ({ $percent }%)
reports-fee-client = Итого для клиента
reports-daily = По дням
reports-campaigns = Кампании
reports-campaign = Кампания
reports-no-stats = За эти дни ни одна кампания не откручивалась.
reports-all = Все кампании
reports-events = Конверсии по событиям
reports-no-events = За эти дни конверсий не было.
reports-event = Событие
reports-count = Количество
reports-revenue-native = Выручка в валюте трекера
reports-event-lead = Лид
reports-event-conversion = Конверсия
reports-event-purchase = Покупка
reports-rate = Выручка в { $currency } пересчитана по курсу 1 { $currency } = { $rate } { $into } на { $day }.
reports-no-rate = Курса { $currency } на эти дни нет: выручка ({ $amount } { $currency }) не вошла в пересчитанные суммы и ROAS.
reports-note = Цифры взяты из почасовой статистики платформы, которую сохранил adcab; CPA — расход на одно действие, ROAS — выручка на единицу расхода.
reports-from = С
reports-to = По
reports-show = Показать
reports-bad-span = Эти даты не составляют период не длиннее 366 дней (начало не позже конца): показаны последние 7 дней.
reports-bad-group = Группа указана не числом.
reports-share-title = Поделиться с клиентом
reports-share-lead = Ссылка открывает этот отчёт без входа, только для просмотра. Открыть её может любой, у кого она есть, пока она не истечёт или вы её не отзовёте.
reports-share-span = Период
reports-share-fixed-days = { $from } – { $to }, фиксированный
reports-share-last7 = Последние 7 дней, всегда актуально
reports-share-last30 = Последние 30 дней, всегда актуально
reports-share-expires = Срок действия
reports-share-days = { $days ->
    [one] { $days } день
    [few] { $days } дня
   *[many] { $days } дней
}
reports-share-create = Создать ссылку
reports-share-created = Ссылка создана. Скопируйте её сейчас: она показывается только один раз.
reports-share-none = Действующих ссылок нет.
reports-share-made = Создана
reports-share-until = Действует до
reports-share-revoke = Отозвать
reports-share-now = Сейчас:
reports-shared-gone = Ссылка на отчёт не работает: возможно, срок её действия истёк или её отозвали. Попросите у отправителя новую.
reports-shared-limited = Слишком много попыток с вашего адреса. Подождите немного и попробуйте снова.
reports-shared-failed = Не удалось показать отчёт. Попробуйте через минуту.
