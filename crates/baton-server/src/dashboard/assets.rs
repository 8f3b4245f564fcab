//! The stylesheet and the script, embedded in the binary.

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;

const CSS: &str = include_str!("../../assets/dashboard.css");
const JS: &str = include_str!("../../assets/dashboard.js");

/// The stylesheet.
pub(crate) async fn css() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/css; charset=utf-8"), (CACHE_CONTROL, "max-age=300")], CSS)
}

/// The script: live refresh, the token box and the admin buttons.
pub(crate) async fn js() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/javascript; charset=utf-8"), (CACHE_CONTROL, "max-age=300")], JS)
}
