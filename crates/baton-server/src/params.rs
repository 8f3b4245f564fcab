//! Parsing what a request names: cursors, page sizes, names, ids and filters, each with one
//! clear 400 naming the value and what is accepted.

use std::str::FromStr;

use axum::extract::FromRequestParts;
use axum::extract::Query as AxumQuery;
use axum::http::request::Parts;
use baton::Cursor;
use baton::core::page::check_page_size;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// The page size when a request names none.
pub const DEFAULT_LIMIT: u32 = 100;

/// A query string deserialized into `T`, answering a JSON 400 when it does not fit.
pub(crate) struct Query<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        AxumQuery::<T>::from_request_parts(parts, state)
            .await
            .map(|AxumQuery(value)| Query(value))
            .map_err(|rejection| ApiError::invalid_input(rejection.body_text()))
    }
}

/// `after` and `limit` of a keyset page.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct PageQuery {
    pub after: Option<String>,
    pub limit: Option<String>,
}

impl PageQuery {
    /// The cursor to start after, if any; an empty `after=` is refused like any other value
    /// that is not a page's `next`.
    pub fn after(&self) -> Result<Option<Cursor>, ApiError> {
        Ok(self.after.as_deref().map(Cursor::parse).transpose()?)
    }

    /// The page size: [`DEFAULT_LIMIT`] unless given, 1 to 1000.
    pub fn limit(&self) -> Result<u32, ApiError> {
        let Some(text) = self.limit.as_deref() else { return Ok(DEFAULT_LIMIT) };
        let limit = text.parse::<u32>().map_err(|_| {
            ApiError::invalid_input(format!(
                "invalid page size {}: expected a whole number from 1 to {}",
                baton::core::echo::quoted(text),
                baton::core::page::MAX_PAGE_SIZE
            ))
        })?;
        Ok(check_page_size(limit)?)
    }
}

/// Parses an optional filter value (a name, a state, a status); empty counts as absent.
pub(crate) fn optional<T>(text: Option<&str>) -> Result<Option<T>, ApiError>
where
    T: FromStr<Err = baton::Error>,
{
    Ok(text.filter(|text| !text.is_empty()).map(str::parse).transpose()?)
}

/// Parses a name from the path, such as a job or lease name.
pub(crate) fn name<T>(text: &str) -> Result<T, ApiError>
where
    T: FromStr<Err = baton::Error>,
{
    Ok(text.parse()?)
}

/// Parses a record id from the path; `what` names the record, such as `execution`.
pub(crate) fn id(what: &str, text: &str) -> Result<i64, ApiError> {
    text.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
        ApiError::invalid_input(format!("invalid {what} id {text:?}: expected a positive integer"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_queries_name_the_bad_value() {
        let query = PageQuery { after: Some("42".into()), limit: Some("0".into()) };
        assert!(query.after().unwrap_err().to_string().contains("\"42\""));
        assert!(query.limit().unwrap_err().to_string().contains("invalid page size 0"));
        let query = PageQuery { after: Some("c42".into()), limit: Some("ten".into()) };
        assert_eq!(query.after().unwrap(), Some(Cursor::after(42)));
        assert!(query.limit().unwrap_err().to_string().contains("\"ten\""));
        assert_eq!(PageQuery::default().limit().unwrap(), DEFAULT_LIMIT);
        let empty = PageQuery { after: Some(String::new()), limit: None };
        assert!(empty.after().unwrap_err().to_string().starts_with("invalid cursor \"\""));
    }

    #[test]
    fn ids_must_be_positive_integers() {
        assert_eq!(id("execution", "7").unwrap(), 7);
        for bad in ["0", "-1", "x", ""] {
            let err = id("execution", bad).unwrap_err();
            assert!(err.to_string().starts_with("invalid execution id"), "{err}");
        }
    }
}
