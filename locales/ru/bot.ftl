# Telegram-бот: предложения с кнопками «Одобрить» / «Отклонить» и команды в чате.
bot-not-linked-person = Ваш Telegram-аккаунт не привязан ни к кому в adcab, поэтому бот не может действовать от вашего имени. Попросите оператора указать ваш чат (admin user set --telegram-chat).
bot-not-linked-chat = Этот чат не привязан к кабинету. Отправляйте команды в чате кабинета или в личном чате с ботом.
bot-no-access = Это может сделать только владелец кабинета или менеджер с доступом к нему.
bot-help = Команды: /status (расход за сегодня и что требует внимания), /pause <id или точное название кампании>, /pauseall (с подтверждением).
bot-status-head = Сегодня (UTC):
bot-status-cabinet = { $cabinet }: потрачено { $spent } { $currency }
bot-status-fine =   всё в порядке
bot-status-attention =   требует внимания: отклонено — { $declined }, без бюджета — { $out }, скоро остановятся — { $soon }, ждут решения — { $proposals }
bot-pause-which = Какую кампанию остановить? Отправьте /pause <id или точное название>.
bot-pause-none = Активной кампании «{ $name }» здесь нет.
bot-pause-many = Кампаний с названием «{ $name }» несколько — отправьте её id.
bot-paused = Остановлена: { $title } (#{ $id }).
bot-pause-failed = Не удалось остановить { $title } (#{ $id }): { $why }.
bot-pauseall-none = Здесь нет запущенных кампаний.
bot-pauseall-ask = Остановить все запущенные кампании ({ $count })? Ничего не произойдёт, пока вы не нажмёте кнопку.
bot-pauseall-button = Остановить ({ $count })
bot-pauseall-done = Остановлено { $done } из { $count } запущенных кампаний.
bot-pauseall-expired = Это подтверждение уже недействительно — отправьте /pauseall ещё раз.
bot-unknown-button = Эта кнопка уже недействительна.
bot-approve = Одобрить
bot-reject = Отклонить
bot-answer-approved = Одобрено и выполнено.
bot-answer-rejected = Отклонено, ничего не изменилось.
bot-answer-not-done = Одобрено, но не выполнено: { $why }.
bot-answer-already = Это предложение уже { $state }.
bot-proposal = Правило «{ $rule }» предлагает: { $change }
    Кампания: { $title } (#{ $id }), кабинет { $cabinet }
    Показатели: { $readings }
    Истекает в { $expires } UTC, если его не одобрят.
bot-proposal-approved = Одобрил(а) { $person } ({ $via }): выполнено.
bot-proposal-rejected = Отклонил(а) { $person } ({ $via }): ничего не изменилось.
bot-proposal-failed = Одобрил(а) { $person } ({ $via }), но не выполнено: { $why }.
bot-proposal-expired = Срок истёк: никто не принял решение, ничего не изменилось.
