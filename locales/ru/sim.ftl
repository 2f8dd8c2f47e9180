# Страница симулятора.
sim-title = Симулятор
sim-lead = Этот adcab работает на встроенном симуляторе: это пробный режим. Переводите часы вперёд и решайте модерацию, чтобы увидеть, как кампании откручиваются.
sim-clock = Часы сервиса
sim-now = Сейчас:
sim-step-hours = { $count ->
    [one] +{ $count } час
    [few] +{ $count } часа
   *[many] +{ $count } часов
}
sim-step-days = { $count ->
    [one] +{ $count } день
    [few] +{ $count } дня
   *[many] +{ $count } дней
}
sim-step-weeks = { $count ->
    [one] +{ $count } неделя
    [few] +{ $count } недели
   *[many] +{ $count } недель
}
sim-clock-shared = Часы общие для всех кабинетов; переводит их тот, кто может менять хотя бы один из своих кабинетов.
sim-clock-refused = Часы симулятора общие для всех кабинетов: переводить их может только тот, кто может менять хотя бы один из своих кабинетов.
sim-step-unknown = Выберите один из предложенных шагов.
sim-decision-unknown = Одобрите или отклоните.
sim-in-review = На модерации
sim-nothing-waits = В ваших кабинетах ничего не ждёт модерации.
sim-campaign = Кампания
sim-cabinet = Кабинет
sim-text = Текст
sim-decision = Решение
sim-approve = Одобрить
sim-decline = Отклонить
