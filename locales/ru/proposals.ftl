# Предложения правил (правила с одобрением): список на главной и описания изменений для
# панели и бота.
proposals-title = Ждут вашего одобрения
proposals-lead = Эти изменения предлагают правила, которые сначала спрашивают. При одобрении ограничения правила проверяются заново, и только потом что-то меняется.
proposals-readings = Показатели:
proposals-expires = Истекает
proposals-approve = Одобрить
proposals-reject = Отклонить
proposals-already = Это предложение уже { $state }.
proposal-change-pause = остановить кампанию
proposal-change-resume = запустить кампанию
proposal-change-cpm = ставка { $from } → { $to } { $currency }
proposal-change-add-budget = пополнить бюджет на { $amount } { $currency }
proposal-state-pending = ожидает решения
proposal-state-approved = одобрено
proposal-state-rejected = отклонено
proposal-state-expired = истекло
proposal-state-failed = одобрено, но выполнить не удалось
