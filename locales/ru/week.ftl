# Сетка расписания по дням недели.
week-grid = Часы показа по дням
week-legend = Расписание
week-help = Отметьте часы, когда объявление можно показывать. Ни одного часа — круглосуточно.
week-always = Показывается круглосуточно.
week-on = показ
week-zone = Часовой пояс
week-zone-viewer = местное время зрителя
week-day-mon = Пн
week-day-tue = Вт
week-day-wed = Ср
week-day-thu = Чт
week-day-fri = Пт
week-day-sat = Сб
week-day-sun = Вс
