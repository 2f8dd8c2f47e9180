# Слова, которые нужны на всех страницах.
common-campaigns = { $count ->
    [one] { $count } кампания
    [few] { $count } кампании
   *[many] { $count } кампаний
}
common-save = Сохранить
common-cancel = Отмена
common-back = Назад
common-request = Запрос
common-error-back = Вернуться к кампаниям
export-unknown-format = Формат выгрузки — csv или xlsx.
export-csv = CSV
export-xlsx = Excel
export-download = Скачать
