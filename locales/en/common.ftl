# Words every page uses.
common-campaigns = { $count ->
    [one] { $count } campaign
   *[other] { $count } campaigns
}
common-save = Save
common-cancel = Cancel
common-back = Back
common-request = Request
common-error-back = Back to the campaigns
export-unknown-format = The download format must be csv or xlsx.
export-csv = CSV
export-xlsx = Excel
export-download = Download
