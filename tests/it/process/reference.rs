//! The API reference on the real binary: the start banner names it, and the named address
//! answers the page without a key.

use super::{adcab, config, serve};

#[test]
fn the_start_banner_names_the_reference_and_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let server = serve(adcab(&config, &["serve"]));
    let line = server
        .printed
        .iter()
        .find(|l| l.starts_with("API reference: "))
        .expect("the banner names the reference");
    let url = line.trim_start_matches("API reference: ");
    assert!(url.ends_with("/api/docs"), "{url}");
    let page = ureq::get(url).call().unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.content_type(), "text/html");
    assert!(page
        .into_string()
        .unwrap()
        .contains("id=\"createCampaigns\""));
}
