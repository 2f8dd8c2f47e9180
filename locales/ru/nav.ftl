# Навигация и оболочка страницы.
nav-sections = Разделы
nav-home = Главная
nav-cabinets = Кабинеты
nav-campaigns = Кампании
nav-rules = Правила
nav-tasks = Задачи
nav-keys = API и вебхуки
nav-team = Команда
nav-sim = Симулятор
nav-settings = Настройки
nav-api-docs = Документация API
nav-menu = Меню
nav-sign-out = Выйти
nav-sign-out-everywhere = Выйти на всех устройствах
nav-reports = Отчёты
