//! `/api/v1/openapi.json`: the hand-written OpenAPI 3.1 document of every route.

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

/// The document, embedded in the binary.
pub(crate) const DOCUMENT: &str = include_str!("../openapi.json");

/// Serves the document.
pub(crate) async fn document() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], DOCUMENT)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::DOCUMENT;

    #[tokio::test]
    async fn every_route_is_documented_and_every_documented_route_is_served() {
        let backend = baton::connect("memory://").await.unwrap();
        let state = crate::state::AppState::for_tests(backend);
        let (_, table) = crate::routes(&state);
        let served: BTreeSet<(String, String)> = table
            .iter()
            .map(|(method, path)| (method.as_str().to_lowercase(), path.to_string()))
            .collect();
        assert_eq!(served.len(), table.len(), "a route is added twice");

        let document: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
        assert_eq!(document["openapi"], "3.1.0");
        let mut documented = BTreeSet::new();
        for (path, operations) in document["paths"].as_object().unwrap() {
            for method in operations.as_object().unwrap().keys() {
                documented.insert((method.clone(), path.clone()));
            }
        }
        let undocumented: Vec<_> = served.difference(&documented).collect();
        let unserved: Vec<_> = documented.difference(&served).collect();
        assert!(undocumented.is_empty(), "routes missing from openapi.json: {undocumented:?}");
        assert!(unserved.is_empty(), "openapi.json lists routes not served: {unserved:?}");
    }
}
