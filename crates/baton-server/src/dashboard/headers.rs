//! Headers on every dashboard response: no MIME sniffing, no framing (clickjacking), and a
//! content security policy that allows only the dashboard's own script, styles and requests.

use axum::http::HeaderValue;
use axum::http::header::{CONTENT_SECURITY_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS};
use axum::response::Response;

/// The policy: everything from this origin only; inline style attributes are allowed (bars
/// and timelines size themselves with them), inline scripts are not.
pub(crate) const POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Adds the security headers to a dashboard response.
pub(crate) async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    response
}
