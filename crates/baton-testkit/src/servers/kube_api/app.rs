//! The way of every request: authentication (a bearer token), routing, authorization (leases
//! of a namespace can be forbidden), the body (at most kube-apiserver's 3 MiB), the handler.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::AUTHORIZATION;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};

use super::super::http_emulation::{Handler, LostAnswer};
use super::codec;
use super::handlers::{self, Call};
use super::query::Query;
use super::resources::Resource;
use super::response::{self, HttpBody};
use super::routes::{self, Route, Target, Verb};
use super::status::ApiError;
use super::storage::Store;

/// The user the bearer token authenticates, as authorization errors name it.
const USER: &str = "baton-test";
/// kube-apiserver's default limit on a request body.
const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The server's state, shared by its connections.
pub(super) struct App {
    store: Store,
    token: String,
    /// `host:port`, as discovery reports the server's address.
    address: String,
    /// The namespaces whose leases the user may not touch.
    forbidden: Mutex<BTreeSet<String>>,
    /// The Leases whose next replace, patch or delete is applied and its answer lost.
    losing: Mutex<BTreeSet<String>>,
}

impl App {
    /// The server over `store`, accepting `token`, reached at `address`.
    pub(super) fn new(store: Store, token: String, address: String) -> App {
        App { store, token, address, forbidden: Mutex::default(), losing: Mutex::default() }
    }

    /// The objects.
    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    /// Forbids every leases request in `namespace` from now on.
    pub(super) fn forbid_leases(&self, namespace: &str) {
        self.forbidden().insert(namespace.to_string());
    }

    fn forbidden(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.forbidden.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Applies the next replace, patch or delete of the Lease `name` (in any namespace) and
    /// loses its answer.
    pub(super) fn lose_answer_to(&self, name: &str) {
        self.losing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(name.to_string());
    }

    /// Whether `request` is the write whose answer is to be lost (once).
    fn loses_answer(&self, request: &Request<Incoming>) -> bool {
        let write = matches!(*request.method(), Method::PUT | Method::PATCH | Method::DELETE);
        let name = match routes::route(request.uri().path()) {
            Some(Route::Resource(target)) if write && target.resource == Resource::Leases => {
                target.name
            }
            _ => None,
        };
        let mut losing = self.losing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        name.is_some_and(|name| losing.remove(&name))
    }

    async fn serve(&self, request: Request<Incoming>) -> Result<Response<HttpBody>, ApiError> {
        self.authenticate(request.headers())?;
        let route = routes::route(request.uri().path()).ok_or_else(ApiError::path_not_found)?;
        let target = match route {
            Route::Discovery(_) if request.method() != Method::GET => {
                return Err(ApiError::method_not_allowed());
            }
            Route::Discovery(document) => {
                return Ok(response::json(StatusCode::OK, &document.render(&self.address)));
            }
            Route::Resource(target) => target,
        };
        let query = Query::parse(request.uri().query());
        let verb = target.verb(request.method(), &query)?;
        self.authorize(&target, verb, &query)?;
        let media_type = codec::media_type(request.headers());
        let body = match verb.has_body() {
            true => read_body(request.into_body()).await?,
            false => Bytes::new(),
        };
        let call = Call {
            target: &target,
            verb,
            query: &query,
            media_type: media_type.as_deref(),
            body: &body,
        };
        handlers::serve(&self.store, call).await
    }

    /// Refuses a request without the server's bearer token.
    fn authenticate(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let header =
            headers.get(AUTHORIZATION).and_then(|value| value.to_str().ok()).unwrap_or_default();
        match header.trim().split_once(' ') {
            Some((scheme, token))
                if scheme.eq_ignore_ascii_case("bearer") && token.trim() == self.token =>
            {
                Ok(())
            }
            _ => Err(ApiError::unauthorized()),
        }
    }

    /// Refuses a leases request in a forbidden namespace, worded as RBAC's denial.
    fn authorize(&self, target: &Target, verb: Verb, query: &Query) -> Result<(), ApiError> {
        let Some(namespace) = target.namespace.as_deref() else { return Ok(()) };
        if target.resource != Resource::Leases || !self.forbidden().contains(namespace) {
            return Ok(());
        }
        let resource = target.resource.describe();
        // For a LIST or WATCH of one object by name, the authorizer sees that name.
        let selected = query.get("fieldSelector").and_then(|selector| {
            let name = selector
                .strip_prefix("metadata.name==")
                .or_else(|| selector.strip_prefix("metadata.name="))?;
            (!name.contains(',')).then_some(name)
        });
        let name = target.name.as_deref().or(selected).unwrap_or_default();
        let why = format!(
            "User {USER:?} cannot {} resource {:?} in API group {:?} in the namespace {namespace:?}",
            verb.as_str(),
            resource.plural,
            resource.group
        );
        Err(ApiError::forbidden(resource, name, why))
    }
}

impl Handler for App {
    /// Answers `request`, or serves it and loses the answer (see
    /// [`lose_answer_to`](App::lose_answer_to)).
    async fn answer(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<Response<HttpBody>, LostAnswer> {
        let lost = self.loses_answer(&request);
        let answer = self.serve(request).await.unwrap_or_else(response::error);
        match lost {
            true => Err(LostAnswer),
            false => Ok(answer),
        }
    }
}

/// The whole body, refused past the limit.
async fn read_body(body: Incoming) -> Result<Bytes, ApiError> {
    match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) if err.is::<http_body_util::LengthLimitError>() => {
            Err(ApiError::too_large(MAX_BODY_BYTES))
        }
        Err(err) => Err(ApiError::bad_request(format!("reading the request body: {err}"))),
    }
}
