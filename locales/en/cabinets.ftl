# The cabinets page.
cabinets-title = Cabinets
cabinets-lead = Ad accounts you reach, with their money and campaigns. Spend is counted in UTC days of the service clock.
cabinets-none = No cabinets yet.
cabinets-none-how = Cabinets are connected by the operator, or shared with you by your agency. The operator's command:
cabinets-cabinet = Cabinet
cabinets-state = State
cabinets-balance = Balance
cabinets-campaigns = Campaigns
cabinets-no-campaigns = none
cabinets-spend-today = Spend today
cabinets-spend-week = Spend, 7 days
cabinets-access = Your access
cabinets-new-campaign = New campaign
cabinets-report = Client report
cabinets-across = All cabinets in { $currency }
