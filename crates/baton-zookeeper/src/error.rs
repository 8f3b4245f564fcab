//! Maps client errors onto baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a request whose answer was lost is reported with an unknown outcome
//! ([`ErrorKind::Unavailable`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use zookeeper_client::Error as ZkError;

use crate::url::Target;

/// The portable kind of a client error. The client reports a broken connection (reset by a
/// member that died, a member that stopped answering) as a custom error carrying the cause:
/// the request's outcome is unknown, as after a connection loss.
pub(crate) fn kind_of(err: &ZkError) -> ErrorKind {
    match err {
        ZkError::Custom(_)
        | ZkError::ConnectionLoss
        | ZkError::Timeout
        | ZkError::NoHosts
        | ZkError::Throttled
        | ZkError::SessionMoved
        | ZkError::SessionExpired
        | ZkError::NotReadOnly
        | ZkError::ClientClosed => ErrorKind::Unavailable,
        ZkError::NoAuth | ZkError::AuthFailed => ErrorKind::InvalidInput,
        _ => ErrorKind::Internal,
    }
}

/// The error of a failed request; `action` says what was being done ("renewing lease x").
pub(crate) fn request_error(target: &Target, action: impl Display, err: &ZkError) -> Error {
    let endpoint = target.endpoint();
    match kind_of(err) {
        ErrorKind::InvalidInput => Error::invalid_input(format!(
            "{action}: ZooKeeper at {endpoint} refused access ({err}): check the digest \
             credentials (USER:PASSWORD@) of the URL"
        )),
        ErrorKind::Unavailable => Error::new(
            ErrorKind::Unavailable,
            format!("{action} in ZooKeeper at {endpoint}: {err}: the outcome is unknown"),
        ),
        kind => Error::new(kind, format!("{action} in ZooKeeper at {endpoint}: {err}")),
    }
}

/// A request that kept meeting concurrent changes.
pub(crate) fn conflict(action: impl Display) -> Error {
    Error::new(ErrorKind::Conflict, format!("{action}: the lease kept changing meanwhile"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_answers_have_unknown_outcomes() {
        assert!(kind_of(&ZkError::ConnectionLoss).outcome_unknown());
        assert!(kind_of(&ZkError::SessionExpired).outcome_unknown());
        assert_eq!(kind_of(&ZkError::NoAuth), ErrorKind::InvalidInput);
        assert_eq!(kind_of(&ZkError::BadVersion), ErrorKind::Internal);
        let target = crate::url::parse("zk://u:pw@127.0.0.1:2").unwrap();
        let err = request_error(&target, "reading lease x", &ZkError::NoAuth);
        assert!(!err.to_string().contains("pw"), "{err}");
    }
}
