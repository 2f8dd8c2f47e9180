# Оповещения в чаты Telegram.
alert-cabinet = Кабинет «{ $name }»
alert-cabinet-id = Кабинет { $id }
alert-campaign = Кампания { $ad } «{ $title }» ({ $cabinet })
alert-campaign-id = Кампания { $ad } ({ $cabinet })
alert-named = { $ad } «{ $title }»
alert-and-more = { $list } и ещё { $count }
alert-declined-one = { $campaign }: объявление отклонено модерацией.
alert-declined-one-reason = { $campaign }: объявление отклонено модерацией: { $reason }
alert-declined-many = { $cabinet }: модерация отклонила { $count ->
    [one] { $count } кампанию
    [few] { $count } кампании
   *[many] { $count } кампаний
}: { $list }.
alert-budget-low-one = { $campaign }: бюджет заканчивается.
alert-budget-low-many = { $cabinet }: бюджет заканчивается у { $count ->
    [one] { $count } кампании
   *[other] { $count } кампаний
}: { $list }.
alert-balance-low = { $cabinet }: баланса не хватит ещё на день расходов.
alert-session-expired = { $cabinet }: сессия на платформе истекла, изменения не пройдут, пока кабинет не подключат заново.
alert-webhook-failing = Вебхуки API-ключа { $key } не доставляются (три последних попытки).
alert-held = { $cabinet }: ещё { $count ->
    [one] { $count } оповещение за этот час задержано
    [few] { $count } оповещения за этот час задержаны
   *[many] { $count } оповещений за этот час задержаны
} (в час отправляется не больше { $cap }); все условия видны в журналах правил и в панели.
alert-rule-one = { $text } (правило «{ $rule }», кампания { $ad })
alert-rule-many = { $text } (правило «{ $rule }», { $count } кампаний: { $cabinet }: { $list })
alert-digest = Ваши последние 24 часа, по { $to }:
alert-digest-line = { $name }: расход { $spent } { $currency }, показов { $views }, действий { $actions }
alert-digest-line-alerts = { $name }: расход { $spent } { $currency }, показов { $views }, действий { $actions }, оповещений { $count }
alert-digest-more = и ещё кабинетов: { $count }
