//! `GET /v1/targeting`: the lists and their shapes.

use crate::helpers::spawn_app;

#[test]
fn targeting_lists_countries_languages_topics_and_buttons() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let data = &app.get_ok("/targeting", &key)["data"];
    let countries = data["countries"].as_array().unwrap();
    assert_eq!(countries.len(), 250, "249 ISO 3166 codes plus FT");
    let code = |c: &str| countries.iter().any(|x| x["code"] == c);
    assert!(code("DE") && code("BR") && code("FT"));
    assert!(countries
        .iter()
        .all(|c| c["name"].as_str().is_some_and(|n| !n.is_empty())));
    let languages = data["languages"].as_array().unwrap();
    let lang = |c: &str| languages.iter().any(|x| x["code"] == c);
    assert!(lang("pt-br") && lang("pt-pt") && !lang("pt"));
    let topics: Vec<i64> = data["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    assert!(
        topics.windows(2).any(|w| w[1] - w[0] > 1),
        "ids are not consecutive"
    );
    let buttons: Vec<&str> = data["buttons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert_eq!(
        buttons,
        [
            "subscribe",
            "view",
            "read",
            "learn_more",
            "download",
            "open",
            "sign_up",
            "buy",
            "order",
            "play",
            "try",
            "leave_request"
        ]
    );
}
