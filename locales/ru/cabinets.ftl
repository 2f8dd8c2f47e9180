# Страница кабинетов.
cabinets-title = Кабинеты
cabinets-lead = Рекламные кабинеты, к которым у вас есть доступ: баланс и кампании. Расход считается по суткам UTC по часам сервиса.
cabinets-none = Кабинетов пока нет.
cabinets-none-how = Кабинеты подключает оператор или открывает вам ваше агентство. Команда оператора:
cabinets-cabinet = Кабинет
cabinets-state = Состояние
cabinets-balance = Баланс
cabinets-campaigns = Кампании
cabinets-no-campaigns = нет
cabinets-spend-today = Расход сегодня
cabinets-spend-week = Расход за 7 дней
cabinets-access = Ваш доступ
cabinets-new-campaign = Новая кампания
cabinets-report = Отчёт для клиента
cabinets-across = Все кабинеты в { $currency }
