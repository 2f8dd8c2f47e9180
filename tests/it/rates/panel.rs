//! The panel's totals across cabinets of different currencies, converted into the reporting
//! currency at the kept rates, with each rate and its date beside the figure.
