//! Owns reading the little HTML the platform writes for people (a decline's
//! `description_html`) as one line of plain text: tags dropped (a link keeps its address after
//! its words), the common character references decoded, whitespace collapsed. adcab stores and
//! shows the text, never the platform's markup.

/// `html` as one line of plain text.
pub fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    // The open link: its address and where its words start in `out`.
    let mut link: Option<(String, usize)> = None;
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&decoded(&rest[..open]));
        let Some(close) = rest[open..].find('>') else {
            // An unclosed tag: the markup is cut off, nothing after it is text.
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let closing = tag.starts_with('/');
        match name.as_str() {
            "a" if closing => {
                if let Some((href, start)) = link.take() {
                    let words = out[start..].trim();
                    if !href.is_empty() && words != href {
                        out.push_str(" (");
                        out.push_str(&href);
                        out.push(')');
                    }
                }
            }
            "a" => link = Some((href_of(tag).unwrap_or_default(), out.len())),
            "script" | "style" if !closing => {
                let end = format!("</{name}");
                rest = match rest.to_ascii_lowercase().find(&end) {
                    Some(at) => &rest[at..],
                    None => "",
                };
            }
            "br" | "p" | "div" | "li" | "ul" | "ol" | "tr" | "td" | "h1" | "h2" | "h3" => {
                out.push(' ')
            }
            _ => {}
        }
    }
    out.push_str(&decoded(rest));
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `href` of an `<a ...>` tag's inside, when it is a web address.
fn href_of(tag: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let at = lower.find("href=")? + "href=".len();
    let value = &tag[at..];
    let value = match value.chars().next()? {
        q @ ('"' | '\'') => value[1..].split(q).next()?,
        _ => value.split_whitespace().next()?,
    };
    let href = decoded(value);
    (href.starts_with("https://") || href.starts_with("http://")).then_some(href)
}

/// Text with its character references decoded: the five named ones, `&nbsp;`, and numeric
/// ones; anything else is left as it is.
fn decoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let reference = rest
            .find(';')
            .filter(|end| *end <= 10)
            .and_then(|end| Some((character(&rest[1..end])?, end)));
        match reference {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character a reference's name (between `&` and `;`) stands for.
fn character(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    #[test]
    fn paragraphs_and_emphasis_read_as_one_line() {
        let html = "<p>Your ad <b>promises</b> income.</p>\n<p>Edit it<br>and resubmit.</p>";
        assert_eq!(
            plain_text(html),
            "Your ad promises income. Edit it and resubmit."
        );
    }

    #[test]
    fn a_link_keeps_its_address_after_its_words() {
        let html =
            r#"See <a href="https://ads.telegram.org/guidelines?a=1&amp;b=2">the rules</a>."#;
        assert_eq!(
            plain_text(html),
            "See the rules (https://ads.telegram.org/guidelines?a=1&b=2)."
        );
        let bare = "<a href='https://t.me/x'>https://t.me/x</a> <a href=\"javascript:x()\">no</a>";
        assert_eq!(plain_text(bare), "https://t.me/x no");
    }

    #[test]
    fn character_references_are_decoded_and_unknown_ones_kept() {
        assert_eq!(
            plain_text("Fish &amp; chips &lt;3&nbsp;&#8212; &#x2014; &copy; & more"),
            "Fish & chips <3 — — &copy; & more"
        );
    }

    #[test]
    fn scripts_and_unclosed_tags_leave_no_markup() {
        assert_eq!(
            plain_text("ok<script>alert('x')</script> then<style>p{}</STYLE> done <b"),
            "ok then done"
        );
    }
}
