# Страница задач: массовые изменения и создание кампаний, что делает каждая и чем закончилась каждая кампания.
tasks-title = Задачи
tasks-lead = Массовые изменения и создание кампаний выполняются задачами, по одной кампании за раз. Здесь 50 последних.
tasks-empty = Задач пока нет.
tasks-empty-hint = Выберите кампании в списке и примените действие — задача появится здесь.
tasks-empty-link = Открыть список кампаний
tasks-col-task = Задача
tasks-col-cabinet = Кабинет
tasks-col-status = Статус
tasks-col-progress = Прогресс
tasks-col-done = Успешно
tasks-col-failed = С ошибкой
tasks-col-created = Создана
tasks-col-by = Кто запустил
tasks-col-actions = Действия
tasks-cancel = Отменить
tasks-resume = Продолжить
tasks-status-pending = в очереди
tasks-status-running = выполняется
tasks-status-paused = на паузе
tasks-status-completed = выполнена
tasks-status-failed = с ошибкой
tasks-status-cancelled = отменена
tasks-by-api = Вы, через API
tasks-by-task = Вы, задачей через API
tasks-by-panel = Вы, в панели
tasks-by-automation = Автоматизация
tasks-by-sync = Платформа
tasks-by-operator = Оператор
tasks-by-system = Сам adcab
tasks-names-one = { $first }
tasks-names-two = { $first } и { $second }
tasks-names-three = { $first }, { $second } и { $third }
tasks-names-more = { $first }, { $second } и ещё { $count }
tasks-do-pause = Поставить на паузу: { $names }
tasks-do-resume = Возобновить: { $names }
tasks-do-add-budget = Пополнить бюджет на { $amount }: { $names }
tasks-do-withdraw-budget = Вывести { $amount } из бюджета: { $names }
tasks-do-withdraw-all = Вывести весь бюджет: { $names }
tasks-do-set-cpm = Установить ставку CPM { $amount }: { $names }
tasks-do-set-schedule = Задать расписание: { $names }
tasks-do-clear-schedule = Убрать расписание: { $names }
tasks-do-delete = Удалить: { $names }
tasks-do-create = Создать: { $names }
tasks-do-copy = Создать копии: { $names }
tasks-do-recreate = Пересоздать: { $names }
tasks-do-unknown = Задача типа { $kind }
tasks-items = Результат по каждой кампании ({ $done } из { $total })
tasks-item-ok = готово
tasks-item-failed = ошибка: { $reason }
tasks-item-waiting = ещё не обработана
tasks-items-more = { $count ->
    [one] Ещё { $count } кампания не показана.
    [few] Ещё { $count } кампании не показаны.
   *[many] Ещё { $count } кампаний не показано.
}
# Итог задачи (почему остановлена или на паузе, почему не выполнен элемент).
tasks-outcome-cabinet-gone = Кабинет больше не существует.
tasks-outcome-cabinet-inactive = Кабинет отключён.
tasks-outcome-session-expired = Сессия кабинета на платформе истекла; подключите его заново в панели.
tasks-outcome-platform-silent = Платформа не ответила; задача остановлена.
tasks-outcome-unreadable = Сохранённые данные задачи не читаются, поэтому она остановлена; запустите операцию ещё раз.
tasks-outcome-out-of-balance = Баланс кабинета закончился на элементе { $item }; пополните кабинет и возобновите задачу.
tasks-outcome-no-such-campaign = В кабинете нет такой кампании, или она удалена.
tasks-outcome-not-declined = Пересоздать можно только отклонённую кампанию.
tasks-outcome-ad-balance = Бюджет кампании меньше этой суммы.
tasks-outcome-auto-cpm-locked = Ставкой этой кампании управляет Auto CPM; выключите его, чтобы задать ставку.
tasks-outcome-viewer-zone = Часовой пояс зрителя подходит только для кампаний с таргетингом на аудиторию (users).
