//! Hands a request to the handler of its verb, for the kind of its resource.

use hyper::Response;

use super::event::Event;
use super::lease::Lease;
use super::namespace::Namespace;
use super::query::Query;
use super::resources::{Kind, Resource};
use super::response::HttpBody;
use super::routes::{Target, Verb};
use super::status::ApiError;
use super::storage::Store;
use super::{reads, watch, writes};

/// A request on a resource path, past authentication and authorization.
pub(super) struct Call<'a> {
    pub(super) target: &'a Target,
    pub(super) verb: Verb,
    pub(super) query: &'a Query,
    pub(super) media_type: Option<&'a str>,
    pub(super) body: &'a [u8],
}

/// Answers `call`.
pub(super) async fn serve(store: &Store, call: Call<'_>) -> Result<Response<HttpBody>, ApiError> {
    match call.target.resource {
        Resource::Leases => serve_kind::<Lease>(store, call).await,
        Resource::Events => serve_kind::<Event>(store, call).await,
        Resource::Namespaces => serve_kind::<Namespace>(store, call).await,
    }
}

async fn serve_kind<K: Kind>(
    store: &Store,
    call: Call<'_>,
) -> Result<Response<HttpBody>, ApiError> {
    let Call { target, verb, query, media_type, body } = call;
    let namespace = target.namespace.as_deref();
    let name = target.name.as_deref().unwrap_or_default();
    match verb {
        Verb::Get => reads::get::<K>(store, namespace, name).await,
        Verb::List => reads::list::<K>(store, namespace, query).await,
        Verb::Watch => watch::watch::<K>(store, namespace, query).await,
        Verb::Create => writes::create::<K>(store, namespace, query, media_type, body).await,
        Verb::Update => writes::update::<K>(store, namespace, name, query, media_type, body).await,
        Verb::Patch => writes::patch::<K>(store, namespace, name, query, media_type, body).await,
        Verb::Delete => writes::delete::<K>(store, namespace, name, query, body).await,
    }
}
