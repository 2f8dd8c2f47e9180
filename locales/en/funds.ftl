# Agency money: client cabinets and transfers between them and the main account.
error-funds-not-agency = Client cabinets and their money are part of the Agency plan.
error-funds-not-main = That cabinet is not the agency's main account.
error-funds-not-client = This cabinet is not a client cabinet of a main account.
error-funds-owner-only = Only the cabinet's owner may move money out of it.
error-funds-cap = This would pass the cabinet's monthly top-up cap of { $cap }; { $left } may still go in this month.
error-funds-not-enough = The account the money would come from does not have that much.
