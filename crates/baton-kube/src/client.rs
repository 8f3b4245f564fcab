//! Requests to the API server: one namespace's Lease objects and Events, each request bounded
//! by the store's timeout, each failure classified by what it says about the write.
//!
//! The client never sends a request again on its own (kube's default retry of 429, 503 and 504
//! is switched off): a write whose answer was lost is resolved by reading the object back.

use std::future::Future;
use std::time::Duration;

use baton_core::{Error, ErrorKind};
use k8s_openapi::api::coordination::v1::Lease as LeaseObject;
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams, PostParams};

use crate::record::MANAGED_BY;

/// Why a request failed, by what it means for a write.
#[derive(Debug)]
pub(crate) enum Failure {
    /// 409: the object changed since it was read, or already exists. Nothing was written.
    Conflict,
    /// 404: the object (or for a create, its namespace) does not exist. Nothing was written.
    NotFound(String),
    /// The server refused the request (400, 401, 403, 422): nothing was written.
    Refused(Error),
    /// No answer, or a server error: a write may or may not have been applied.
    Unknown(Error),
}

impl Failure {
    /// The failure as the store trait reports it.
    pub(crate) fn into_error(self, what: &str) -> Error {
        match self {
            Failure::Conflict => Error::new(
                ErrorKind::Conflict,
                format!("{what}: the object changed meanwhile; try again"),
            ),
            Failure::NotFound(message) => {
                Error::new(ErrorKind::NotFound, format!("{what}: {message}"))
            }
            Failure::Refused(err) | Failure::Unknown(err) => err,
        }
    }
}

/// The Lease objects and Events of one namespace.
#[derive(Clone)]
pub(crate) struct Kube {
    pub(crate) client: kube::Client,
    leases: Api<LeaseObject>,
    events: Api<Event>,
    pub(crate) namespace: String,
    /// The API server's URL, for messages.
    pub(crate) server: String,
    timeout: Duration,
}

impl Kube {
    /// A client of `namespace` on `client`'s API server.
    pub(crate) fn new(
        client: kube::Client,
        namespace: String,
        server: String,
        timeout: Duration,
    ) -> Kube {
        Kube {
            leases: Api::namespaced(client.clone(), &namespace),
            events: Api::namespaced(client.clone(), &namespace),
            client,
            namespace,
            server,
            timeout,
        }
    }

    /// The Lease API, for watches.
    pub(crate) fn leases(&self) -> &Api<LeaseObject> {
        &self.leases
    }

    /// Reads one Lease object.
    pub(crate) async fn get(&self, name: &str) -> Result<Option<LeaseObject>, Failure> {
        self.call(self.leases.get_opt(name)).await
    }

    /// Creates a Lease object; a conflict means it already exists.
    pub(crate) async fn create(&self, object: &LeaseObject) -> Result<LeaseObject, Failure> {
        self.call(self.leases.create(&PostParams::default(), object)).await
    }

    /// Creates it without writing it (`dryRun=All`): what the server would answer.
    pub(crate) async fn create_dry_run(
        &self,
        object: &LeaseObject,
    ) -> Result<LeaseObject, Failure> {
        let params = PostParams { dry_run: true, ..PostParams::default() };
        self.call(self.leases.create(&params, object)).await
    }

    /// Replaces a Lease object if its `resourceVersion` is still the one in `object`.
    pub(crate) async fn replace(
        &self,
        name: &str,
        object: &LeaseObject,
    ) -> Result<LeaseObject, Failure> {
        self.call(self.leases.replace(name, &PostParams::default(), object)).await
    }

    /// Lists the Lease objects baton wrote, and the list's `resourceVersion`.
    pub(crate) async fn list(&self) -> Result<(Vec<LeaseObject>, String), Failure> {
        let params = ListParams::default().labels(&format!("{}={}", MANAGED_BY.0, MANAGED_BY.1));
        let list = self.call(self.leases.list(&params)).await?;
        Ok((list.items, list.metadata.resource_version.unwrap_or_default()))
    }

    /// Records an Event.
    pub(crate) async fn post_event(&self, event: &Event) -> Result<Event, Failure> {
        self.call(self.events.create(&PostParams::default(), event)).await
    }

    async fn call<T>(&self, request: impl Future<Output = kube::Result<T>>) -> Result<T, Failure> {
        match tokio::time::timeout(self.timeout, request).await {
            Ok(answer) => answer.map_err(|err| classify(err, &self.server, &self.namespace)),
            Err(_) => Err(Failure::Unknown(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the Kubernetes API server at {} did not answer within {:?}",
                    self.server, self.timeout
                ),
            ))),
        }
    }
}

/// What a client error says about the request.
fn classify(err: kube::Error, server: &str, namespace: &str) -> Failure {
    let status = match err {
        kube::Error::Api(status) => status,
        // An answer that cannot be read may be the answer to an applied write.
        kube::Error::SerdeError(err) => {
            return Failure::Unknown(Error::new(
                ErrorKind::Unavailable,
                format!(
                    "the API server at {server} sent an answer that is not a Kubernetes object: {err}"
                ),
            ));
        }
        // A credential plugin's failure carries its command line and output: never printed.
        other if is_auth_failure(&other) => {
            return Failure::Refused(Error::new(
                ErrorKind::Unavailable,
                "the kubeconfig's credentials could not be obtained (its credential plugin or token \
                 file failed); run kubectl with the same kubeconfig to see why",
            ));
        }
        other => {
            return Failure::Unknown(Error::new(
                ErrorKind::Unavailable,
                format!(
                    "cannot reach the Kubernetes API server at {server}: {}",
                    baton_core::url::single_line(&other.to_string())
                ),
            ));
        }
    };
    let message = baton_core::url::single_line(&status.message);
    match status.code {
        409 => Failure::Conflict,
        404 => Failure::NotFound(message),
        // Refused, not applied; perhaps for a while only (an authentication webhook down).
        401 => Failure::Refused(Error::new(
            ErrorKind::Unavailable,
            format!(
                "the Kubernetes API server at {server} refused the credentials (401 Unauthorized): check the kubeconfig's user or the service account's token"
            ),
        )),
        403 => Failure::Refused(Error::invalid_input(format!(
            "forbidden in namespace {namespace}: {message}; grant the Role and RoleBinding of deploy/kubernetes (leases: get, list, watch, create, update, patch; events: create)"
        ))),
        400 | 405 | 415 | 422 => Failure::Refused(Error::invalid_input(format!(
            "the Kubernetes API server at {server} refused the request ({} {}): {message}",
            status.code, status.reason
        ))),
        code => Failure::Unknown(Error::new(
            ErrorKind::Unavailable,
            format!(
                "the Kubernetes API server at {server} answered {code} {}: {message}",
                status.reason
            ),
        )),
    }
}

/// Whether `err` is, or wraps, a failure to obtain credentials.
fn is_auth_failure(err: &kube::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(current) = source {
        if current.is::<kube::client::AuthError>() {
            return true;
        }
        source = current.source();
    }
    matches!(err, kube::Error::Auth(_))
}
