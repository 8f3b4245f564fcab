//! Requests to DynamoDB: one table, each request sent once and bounded by the store's timeout,
//! each failure classified by what it says about a write.
//!
//! The SDK's own retries are switched off: a conditional write whose answer was lost must not
//! be sent again blindly (the second attempt would meet its own first and report a conflict, or
//! worse, apply twice); the caller resolves it by reading the item back. Reads are not retried
//! either: the caller's next round reads again.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{Select, TransactWriteItem};
use baton_core::url::single_line;
use baton_core::{Error, ErrorKind};

use crate::connect::Settings;
use crate::keys::{self, Item};

/// Why a request failed, by what it means for a write.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The write's condition did not hold: nothing was written.
    ConditionFailed,
    /// A transaction was cancelled (a condition did not hold, or another transaction touched
    /// one of its items): nothing was written.
    Cancelled,
    /// The table does not exist (or not yet again): nothing was written.
    MissingTable(Error),
    /// DynamoDB refused the request (credentials, validation, throttling): nothing was
    /// written.
    Refused(Error),
    /// No answer, or a server error: a write may or may not have been applied.
    Unknown(Error),
}

impl Failure {
    /// The failure as the store trait reports it.
    pub(crate) fn into_error(self, what: &str) -> Error {
        match self {
            Failure::ConditionFailed | Failure::Cancelled => Error::new(
                ErrorKind::Conflict,
                format!("{what}: the item changed meanwhile; try again"),
            ),
            Failure::MissingTable(err) | Failure::Refused(err) | Failure::Unknown(err) => err,
        }
    }
}

/// One table, through one client.
#[derive(Clone)]
pub(crate) struct Dynamo {
    pub(crate) client: Client,
    pub(crate) table: String,
    /// The endpoint and region, for messages.
    pub(crate) endpoint: String,
}

impl Dynamo {
    /// A client of `settings.table`: the SDK's retries off, every attempt bounded by
    /// `settings.timeout`.
    pub(crate) fn new(settings: Settings) -> Dynamo {
        use aws_sdk_dynamodb::config::{
            BehaviorVersion, retry::RetryConfig, timeout::TimeoutConfig,
        };
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(settings.timeout)
            .operation_attempt_timeout(settings.timeout)
            .operation_timeout(settings.timeout)
            .build();
        let endpoint = match &settings.endpoint {
            Some(url) => format!("{url} (region {})", settings.region),
            None => format!("region {}", settings.region),
        };
        let mut config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::v2026_01_12())
            .region(settings.region)
            .credentials_provider(settings.credentials)
            .http_client(settings.http)
            .retry_config(RetryConfig::disabled())
            .timeout_config(timeouts);
        if let Some(url) = settings.endpoint {
            config = config.endpoint_url(url);
        }
        Dynamo { client: Client::from_conf(config.build()), table: settings.table, endpoint }
    }

    /// Reads one item, strongly consistent.
    pub(crate) async fn get(&self, key: Item) -> Result<Option<Item>, Failure> {
        let request =
            self.client.get_item().table_name(&self.table).set_key(Some(key)).consistent_read(true);
        let output = request.send().await.map_err(|err| self.classify(err))?;
        Ok(output.item)
    }

    /// Reads every item of one partition in sort-key order, strongly consistent, page by page.
    pub(crate) async fn query(&self, partition: &str) -> Result<Vec<Item>, Failure> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let output = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("#pk = :pk")
                .set_expression_attribute_names(Some(keys::names(&[keys::PK])))
                .expression_attribute_values(":pk", keys::s(partition))
                .consistent_read(true)
                .select(Select::AllAttributes)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|err| self.classify(err))?;
            items.extend(output.items.unwrap_or_default());
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(items),
            }
        }
    }

    /// Writes several items at once, all or none.
    pub(crate) async fn transact(&self, items: Vec<TransactWriteItem>) -> Result<(), Failure> {
        match self.client.transact_write_items().set_transact_items(Some(items)).send().await {
            Ok(_) => Ok(()),
            Err(err) => match err.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                    let codes: Vec<&str> = cancelled
                        .cancellation_reasons()
                        .iter()
                        .filter_map(|reason| reason.code())
                        .filter(|code| *code != "None")
                        .collect();
                    let lost_race = |code: &&str| {
                        matches!(*code, "ConditionalCheckFailed" | "TransactionConflict")
                    };
                    match codes.iter().all(lost_race) {
                        true => Err(Failure::Cancelled),
                        false => Err(Failure::Refused(Error::new(
                            ErrorKind::Internal,
                            format!(
                                "DynamoDB at {} cancelled a transaction on table {}: {}",
                                self.endpoint,
                                self.table,
                                codes.join(", ")
                            ),
                        ))),
                    }
                }
                _ => Err(self.classify(err)),
            },
        }
    }

    /// What a failed request says about the write it carried.
    pub(crate) fn classify<E>(&self, err: SdkError<E, HttpResponse>) -> Failure
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    {
        let endpoint = &self.endpoint;
        let unknown = |kind, message: String| Failure::Unknown(Error::new(kind, message));
        let refused = |kind, message: String| Failure::Refused(Error::new(kind, message));
        let detail = single_line(&aws_sdk_dynamodb::error::DisplayErrorContext(&err).to_string());
        let status = err.raw_response().map(|response| response.status().as_u16());
        match &err {
            SdkError::TimeoutError(_) => {
                return unknown(
                    ErrorKind::Timeout,
                    format!("DynamoDB at {endpoint} did not answer in time"),
                );
            }
            SdkError::DispatchFailure(_) => {
                return unknown(
                    ErrorKind::Unavailable,
                    format!("cannot reach DynamoDB at {endpoint}: {detail}"),
                );
            }
            SdkError::ConstructionFailure(_) => {
                return refused(
                    ErrorKind::Unavailable,
                    format!("cannot send a request to DynamoDB at {endpoint}: {detail}"),
                );
            }
            SdkError::ResponseError(_) => {
                return unknown(
                    ErrorKind::Unavailable,
                    format!("{endpoint} sent an answer that is not DynamoDB's: {detail}"),
                );
            }
            _ => {}
        }
        let code = err.code().unwrap_or_default();
        let message = single_line(err.message().unwrap_or_default());
        match code {
            "ConditionalCheckFailedException" => Failure::ConditionFailed,
            "ResourceNotFoundException" => Failure::MissingTable(Error::new(
                ErrorKind::Unavailable,
                format!("table {} does not exist in DynamoDB at {endpoint}", self.table),
            )),
            "UnrecognizedClientException"
            | "InvalidSignatureException"
            | "SignatureDoesNotMatch"
            | "InvalidClientTokenId"
            | "MissingAuthenticationToken"
            | "MissingAuthenticationTokenException"
            | "IncompleteSignature"
            | "IncompleteSignatureException"
            | "ExpiredTokenException"
            | "AccessDeniedException" => refused(
                ErrorKind::Unavailable,
                format!(
                    "DynamoDB at {endpoint} refused the credentials ({code}): check the access key, its secret and its permissions on table {}",
                    self.table
                ),
            ),
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded"
            | "LimitExceededException"
            | "TransactionConflictException"
            | "TransactionInProgressException" => refused(
                ErrorKind::Unavailable,
                format!("DynamoDB at {endpoint} refused the request for now ({code}): {message}"),
            ),
            "ValidationException" | "SerializationException" => refused(
                ErrorKind::Internal,
                format!("DynamoDB at {endpoint} refused the request as invalid: {message}"),
            ),
            "" => match status {
                Some(401 | 403) => refused(
                    ErrorKind::Unavailable,
                    format!(
                        "DynamoDB at {endpoint} refused the credentials (HTTP {}): check the access key, its secret and its permissions on table {}",
                        status.unwrap_or_default(),
                        self.table
                    ),
                ),
                Some(status) if status >= 500 => unknown(
                    ErrorKind::Unavailable,
                    format!("DynamoDB at {endpoint} answered HTTP {status}"),
                ),
                _ => refused(
                    ErrorKind::Unavailable,
                    format!(
                        "{endpoint} does not answer as DynamoDB does (HTTP {}): is it a DynamoDB endpoint?",
                        status.map_or_else(|| "?".to_string(), |status| status.to_string())
                    ),
                ),
            },
            code if status.is_some_and(|status| status >= 500) => unknown(
                ErrorKind::Unavailable,
                format!("DynamoDB at {endpoint} failed the request ({code}): {message}"),
            ),
            code => refused(
                ErrorKind::Unavailable,
                format!("DynamoDB at {endpoint} refused the request ({code}): {message}"),
            ),
        }
    }
}
