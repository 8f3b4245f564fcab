//! A router builder that keeps the table of its routes, so that the OpenAPI document can be
//! checked against what is really served.

use axum::Router;
use axum::http::Method;
use axum::routing::MethodRouter;

use crate::state::AppState;

/// One served route: its method and path, in the router's `{param}` syntax.
pub(crate) type Route = (Method, &'static str);

/// A router under construction and the routes added to it.
pub(crate) struct Routes {
    router: Router<AppState>,
    table: Vec<Route>,
}

impl Routes {
    /// No routes yet.
    pub fn new() -> Self {
        Routes { router: Router::new(), table: Vec::new() }
    }

    /// Serves `GET path`.
    pub fn get(self, path: &'static str, route: MethodRouter<AppState>) -> Self {
        self.add(Method::GET, path, route)
    }

    /// Serves `POST path`.
    pub fn post(self, path: &'static str, route: MethodRouter<AppState>) -> Self {
        self.add(Method::POST, path, route)
    }

    fn add(mut self, method: Method, path: &'static str, route: MethodRouter<AppState>) -> Self {
        self.table.push((method, path));
        self.router = self.router.route(path, route);
        self
    }

    /// Applies a layer to every route added so far (such as an authentication check).
    pub fn layer<F>(mut self, wrap: F) -> Self
    where
        F: FnOnce(Router<AppState>) -> Router<AppState>,
    {
        self.router = wrap(self.router);
        self
    }

    /// Adds every route of `other`.
    pub fn merge(mut self, other: Routes) -> Self {
        self.table.extend(other.table);
        self.router = self.router.merge(other.router);
        self
    }

    /// The router and its table.
    pub fn finish(self) -> (Router<AppState>, Vec<Route>) {
        (self.router, self.table)
    }
}
