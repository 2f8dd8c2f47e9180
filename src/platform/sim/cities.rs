//! Owns the simulator's small catalogue of cities (a few per a few countries, numbered as the
//! platform numbers its locations) and how a `users` ad's cities, given by id or by name, are
//! found in its one country.

use crate::domain::targeting::CityEntry;

/// (id, name, country)
const CITIES: &[(i64, &str, &str)] = &[
    (101, "New York", "US"),
    (102, "Los Angeles", "US"),
    (105, "San Francisco", "US"),
    (201, "London", "GB"),
    (202, "Manchester", "GB"),
    (301, "Berlin", "DE"),
    (302, "Munich", "DE"),
    (304, "Hamburg", "DE"),
    (501, "Paris", "FR"),
    (601, "Madrid", "ES"),
    (602, "Barcelona", "ES"),
];

/// The cities of `country` whose name holds `query` (case aside), in catalogue order.
pub(super) fn look_up(country: &str, query: &str) -> Vec<CityEntry> {
    let query = query.trim().to_lowercase();
    CITIES
        .iter()
        .filter(|(_, name, cc)| {
            cc.eq_ignore_ascii_case(country) && name.to_lowercase().contains(&query)
        })
        .map(|(id, name, cc)| CityEntry {
            id: *id,
            name: (*name).to_string(),
            country: (*cc).to_string(),
        })
        .collect()
}

/// The id of a city of `country` named by its id or its whole name (case aside).
pub(super) fn find(country: &str, city: &serde_json::Value) -> Option<i64> {
    CITIES
        .iter()
        .filter(|(_, _, cc)| cc.eq_ignore_ascii_case(country))
        .find(|(id, name, _)| match city {
            serde_json::Value::Number(n) => n.as_i64() == Some(*id),
            serde_json::Value::String(s) => s.eq_ignore_ascii_case(name),
            _ => false,
        })
        .map(|(id, ..)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cities_are_found_by_id_or_name_in_their_country_only() {
        assert_eq!(find("DE", &json!("berlin")), Some(301));
        assert_eq!(find("DE", &json!(302)), Some(302));
        assert_eq!(find("FR", &json!(301)), None);
        assert_eq!(look_up("de", "bur").len(), 1);
    }
}
