# Названия статусов кампаний и кабинетов.
status-active = Активна
status-in-review = На модерации
status-declined = Отклонена
status-paused = Приостановлена платформой
status-stopped = Остановлена
status-on-hold = На паузе
status-deleted = Удалена
status-cabinet-active = Активен
status-cabinet-inactive = Отключён
status-cabinet-locked = Заблокирован
status-cabinet-expired = Сессия истекла
status-access-owner = владелец
status-access-manager = менеджер
status-access-viewer = просмотр
