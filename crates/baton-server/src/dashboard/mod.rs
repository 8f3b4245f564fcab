//! The dashboard: server-rendered pages of nodes, leases, jobs, executions and batches, with a
//! small script of our own for live refresh and the admin buttons.
//!
//! Every page reads a bounded amount: the newest records of a listing are found with
//! [`crate::tail`], never by reading a whole history.

mod alarms;
mod assets;
mod batches;
mod chart;
mod executions;
mod format;
mod headers;
mod hour;
mod jobs;
mod leases;
mod overview;
mod rows;
mod timeline;

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::WWW_AUTHENTICATE;
use axum::middleware::{Next, from_fn_with_state, map_response};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::auth::check_read;
use crate::error::ApiError;
use crate::routes::Routes;
use crate::state::AppState;

/// Every dashboard route; the pages need the read token when one is set, the assets never.
pub(crate) fn routes(state: &AppState) -> Routes {
    let assets = Routes::new()
        .get("/assets/dashboard.css", get(assets::css))
        .get("/assets/dashboard.js", get(assets::js));
    let pages = Routes::new()
        .get("/", get(overview::show))
        .get("/jobs/{name}", get(jobs::show))
        .get("/leases/{name}", get(leases::show))
        .get("/executions", get(executions::list))
        .get("/executions/{id}", get(executions::show))
        .get("/batches", get(batches::list))
        .get("/batches/{id}", get(batches::show))
        .layer(|router| router.route_layer(from_fn_with_state(state.clone(), require_read)));
    assets.merge(pages).layer(|router| router.layer(map_response(headers::secure)))
}

#[derive(Template)]
#[template(path = "unauthorized.html")]
struct Unauthorized {
    message: String,
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    title: String,
    message: String,
}

/// Answers a page that asks for the token (the script then fetches the page with it) when
/// the request may not read.
async fn require_read(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match check_read(&state.config, request.headers()) {
        Ok(()) => next.run(request).await,
        Err(err) => {
            let page = Unauthorized { message: err.to_string() };
            let challenge = [(WWW_AUTHENTICATE, crate::error::challenge())];
            (StatusCode::UNAUTHORIZED, challenge, render(&page)).into_response()
        }
    }
}

/// A page that could not be shown: the error as a page with its status.
pub(crate) struct PageError(ApiError);

impl<E: Into<ApiError>> From<E> for PageError {
    fn from(err: E) -> Self {
        PageError(err.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let title = status.canonical_reason().unwrap_or("Error").to_string();
        let page = ErrorPage { title, message: self.0.to_string() };
        (status, render(&page)).into_response()
    }
}

/// The result of a page handler.
pub(crate) type PageResult = Result<Html<String>, PageError>;

/// Renders a template; a template that fails to render is a bug, shown as such.
fn render(template: &impl Template) -> Html<String> {
    Html(template.render().unwrap_or_else(|err| {
        tracing::error!(%err, "a dashboard template failed to render");
        format!("<!doctype html><title>baton</title><p>This page failed to render: {err}</p>")
    }))
}

/// Renders a page handler's template.
fn page(template: &impl Template) -> PageResult {
    Ok(render(template))
}
