//! Owns a client report's `?format=pdf`: the report rendered off the async runtime in the
//! reader's language, answered as an attachment named by its cabinet and days.

use hyper::StatusCode;

use crate::db;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::reports::{self, Report};
use crate::ops::OpsError;

/// The report as a PDF download, headed by the agency's `logo` when it has one.
pub async fn reply(report: Report, lang: Lang, logo: Option<Vec<u8>>) -> Result<Reply, OpsError> {
    let name = format!(
        "report-{}-{}-{}.pdf",
        report.account_id, report.from, report.to
    );
    let bytes = db::in_request(move || reports::pdf::render(&report, lang, logo))
        .await
        .map_err(|e| OpsError::Internal(format!("the report's PDF: {e}")))?;
    let mut reply =
        Reply::raw(bytes::Bytes::from(bytes), "application/pdf").with_status(StatusCode::OK);
    reply.headers.extend([
        (
            "content-disposition".into(),
            format!("attachment; filename=\"{name}\""),
        ),
        ("cache-control".into(), "no-store".into()),
        ("x-content-type-options".into(), "nosniff".into()),
    ]);
    Ok(reply)
}
