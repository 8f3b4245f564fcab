//! The admin actions: trigger, pause, resume and skip the next fire of a job; force-release a
//! lease or have this node step down from it; start a batch of a partitioned job. Each is recorded in the action log once it
//! succeeded, with who asked and from where.

use std::net::SocketAddr;

use axum::Json;
use axum::body::Bytes;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::{HeaderMap, StatusCode};
use baton::core::ForceReleaseParams;
use baton::core::action::RecordActionParams;
use baton::core::cluster::batch_not_found;
use baton::core::job::{TriggerOutcome, TriggerParams, job_not_registered};
use baton::core::schedule::JobName;
use baton::core::{Job, JobStore, Trigger};
use baton::{LeaseName, StoreTime};
use serde_json::{Value, json};

use super::leases::lease_not_found;
use crate::error::{ApiError, ApiResult};
use crate::params::name;
use crate::state::AppState;
use crate::views::{BatchView, ExecutionView, JobView, LeaseView};

/// The header that names who asks; "api" when absent or unfit.
pub(crate) const ACTOR_HEADER: &str = "x-baton-actor";
/// The longest actor name kept, in bytes.
const MAX_ACTOR_BYTES: usize = 100;

/// Who asked and from where, as recorded with each action.
pub(crate) struct Caller {
    actor: String,
    peer: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let peer = ConnectInfo::<SocketAddr>::from_request_parts(parts, state)
            .await
            .map_or_else(|_| "unknown".to_string(), |ConnectInfo(addr)| addr.to_string());
        Ok(Caller { actor: actor(&parts.headers)?, peer })
    }
}

/// The `X-Baton-Actor` header, "api" when absent; any value but 1 to 100 bytes of printable
/// ASCII text is refused, so that the action log never loses who asked.
fn actor(headers: &HeaderMap) -> Result<String, ApiError> {
    let Some(value) = headers.get(ACTOR_HEADER) else { return Ok("api".to_string()) };
    let printable = |text: &&str| text.bytes().all(|byte| (b' '..=b'~').contains(&byte));
    let fits = |text: &&str| !text.trim().is_empty() && text.len() <= MAX_ACTOR_BYTES;
    match value.to_str().ok().filter(printable).filter(fits) {
        Some(text) => Ok(text.to_string()),
        None => {
            let shown = match value.len() <= MAX_ACTOR_BYTES {
                true => format!("{:?}", String::from_utf8_lossy(value.as_bytes())),
                false => format!("of {} bytes", value.len()),
            };
            Err(ApiError::invalid_input(format!(
                "invalid X-Baton-Actor header {shown}: expected 1 to {MAX_ACTOR_BYTES} bytes of \
                 printable ASCII text"
            )))
        }
    }
}

/// Records an action that succeeded; if recording fails the caller learns it, with what was
/// done.
async fn record_action(
    state: &AppState,
    caller: &Caller,
    action: &str,
    target: String,
    outcome: &str,
) -> ApiResult<()> {
    let params = RecordActionParams {
        actor: caller.actor.clone(),
        action: action.to_string(),
        target,
        detail: Some(format!("from {}: {outcome}", caller.peer)),
    };
    match state.backend.actions().record_action(params).await {
        Ok(_) => Ok(()),
        Err(err) => {
            let failed = ApiError::from(err);
            Err(ApiError::new(
                failed.status(),
                failed.code(),
                format!("{outcome}, but recording the action failed: {failed}"),
            ))
        }
    }
}

fn job_target(job: &JobName) -> String {
    format!("job/{job}")
}

fn lease_target(lease: &LeaseName) -> String {
    format!("lease/{lease}")
}

async fn existing_job(store: &dyn JobStore, job: &JobName) -> ApiResult<Job> {
    Ok(store.job_get(job).await?.ok_or_else(|| job_not_registered(job))?)
}

/// Records a run-now execution of the job, due at once.
pub(crate) async fn trigger(
    State(state): State<AppState>,
    caller: Caller,
    Path(job): Path<String>,
) -> ApiResult<Json<Value>> {
    let job: JobName = name(&job)?;
    let params = TriggerParams {
        job: job.clone(),
        fire_key: None,
        scheduled_at: None,
        trigger: Trigger::Manual,
        claim_for: None,
    };
    let (execution, recorded) = match state.backend.jobs().trigger(params).await? {
        TriggerOutcome::Recorded(execution) => (execution, true),
        TriggerOutcome::Existing(execution) => (execution, false),
        _ => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "unexpected trigger outcome",
            ));
        }
    };
    let outcome = format!("execution {} due now", execution.id);
    record_action(&state, &caller, "job.trigger", job_target(&job), &outcome).await?;
    Ok(Json(json!({ "recorded": recorded, "execution": ExecutionView::from(&execution) })))
}

/// Pauses the job: its fires are recorded as skipped until it is resumed.
pub(crate) async fn pause(
    state: State<AppState>,
    caller: Caller,
    job: Path<String>,
) -> ApiResult<Json<JobView>> {
    set_paused(state, caller, job, true).await
}

/// Resumes a paused job.
pub(crate) async fn resume(
    state: State<AppState>,
    caller: Caller,
    job: Path<String>,
) -> ApiResult<Json<JobView>> {
    set_paused(state, caller, job, false).await
}

async fn set_paused(
    State(state): State<AppState>,
    caller: Caller,
    Path(job): Path<String>,
    paused: bool,
) -> ApiResult<Json<JobView>> {
    let job: JobName = name(&job)?;
    let store = state.backend.jobs();
    let job_record = store.job_set_paused(&job, paused).await?;
    let (action, outcome) =
        if paused { ("job.pause", "paused") } else { ("job.resume", "resumed") };
    record_action(&state, &caller, action, job_target(&job), &format!("job {job} {outcome}"))
        .await?;
    let now = store.now().await?;
    Ok(Json(JobView::from(&job_record).with_next_fires(&job_record, now, 1)))
}

/// Marks the job's next fire (after those already skipped) to be skipped.
pub(crate) async fn skip_next(
    State(state): State<AppState>,
    caller: Caller,
    Path(job): Path<String>,
) -> ApiResult<Json<Value>> {
    let job: JobName = name(&job)?;
    let store = state.backend.jobs();
    let job_record = existing_job(&*store, &job).await?;
    let skipped = job_record.skip_through.unwrap_or(StoreTime::from_millis(0));
    let from = store.now().await?.max(skipped);
    let next = job_record.definition.schedule.next_after(from).ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "conflict",
            format!("job {job} has no fire left to skip"),
        )
    })?;
    store.job_skip_through(&job, next).await?;
    let outcome = format!("the fire at {next} will be skipped");
    record_action(&state, &caller, "job.skip_next", job_target(&job), &outcome).await?;
    Ok(Json(json!({ "job": job.to_string(), "skipped": next.to_string() })))
}

/// Frees the lease whoever holds it; the next acquisition is recorded as `forced_release`.
pub(crate) async fn force_release(
    State(state): State<AppState>,
    caller: Caller,
    Path(lease): Path<String>,
) -> ApiResult<Json<Value>> {
    let lease: LeaseName = name(&lease)?;
    let store = state.backend.leases();
    store.get(&lease).await?.ok_or_else(|| lease_not_found(&lease))?;
    let previous = store.force_release(ForceReleaseParams { name: lease.clone() }).await?;
    let outcome = match &previous {
        Some(held) => format!(
            "released from {} (token {})",
            held.holder.as_ref().map_or("-", |holder| holder.as_str()),
            held.token
        ),
        None => "was not held; nothing changed".to_string(),
    };
    record_action(&state, &caller, "lease.force_release", lease_target(&lease), &outcome).await?;
    Ok(Json(json!({
        "released": previous.is_some(),
        "previous": previous.as_ref().map(LeaseView::from),
    })))
}

/// Has this node step down from the lease; 409 when the lease is not held here.
pub(crate) async fn step_down(
    State(state): State<AppState>,
    caller: Caller,
    Path(lease): Path<String>,
) -> ApiResult<Json<Value>> {
    let lease: LeaseName = name(&lease)?;
    state.backend.leases().get(&lease).await?.ok_or_else(|| lease_not_found(&lease))?;
    let node = state.node.node_id();
    if !state.node.step_down(&lease).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "not_held",
            format!("lease {lease} is not held by this node ({node}): ask the node that holds it"),
        ));
    }
    let outcome = format!("node {node} stepped down");
    record_action(&state, &caller, "lease.step_down", lease_target(&lease), &outcome).await?;
    Ok(Json(json!({ "stepped_down": true, "node": node })))
}

/// The body of `POST /api/v1/batches`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StartBatch {
    job: String,
}

/// Starts a batch of a partitioned job that this node runs (its partitioner lives in the
/// node's code or config): 201 with the batch, 404 when this node does not run the job.
pub(crate) async fn start_batch(
    State(state): State<AppState>,
    caller: Caller,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<BatchView>)> {
    let request: StartBatch = serde_json::from_slice(&body).map_err(|err| {
        ApiError::invalid_input(format!(
            "invalid body: {err}: expected {{\"job\": \"NAME\"}} naming a partitioned job"
        ))
    })?;
    let job: JobName = name(&request.job)?;
    let node = state.node.node_id();
    let Some(id) = state.node.start_batch(&job).await? else {
        return Err(ApiError::not_found(format!(
            "partitioned job {job} does not run on this node ({node}): ask a node whose \
             config has it"
        )));
    };
    let batch = state.backend.cluster().batch_get(id).await?.ok_or_else(|| batch_not_found(id))?;
    let outcome = format!("node {node} started batch {id}");
    record_action(&state, &caller, "batch.start", job_target(&job), &outcome).await?;
    Ok((StatusCode::CREATED, Json(BatchView::from(&batch))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACTOR_HEADER, value.parse().unwrap());
        headers
    }

    #[test]
    fn actors_are_printable_and_short_else_refused() {
        assert_eq!(actor(&headers("alice")).unwrap(), "alice");
        assert_eq!(actor(&headers("ops team")).unwrap(), "ops team");
        assert_eq!(actor(&headers(&"a".repeat(100))).unwrap(), "a".repeat(100));
        assert_eq!(actor(&HeaderMap::new()).unwrap(), "api");
        assert_eq!(
            actor(&headers(&"a".repeat(101))).unwrap_err().to_string(),
            "invalid X-Baton-Actor header of 101 bytes: expected 1 to 100 bytes of printable \
             ASCII text"
        );
        for refused in ["tab\there", "  ", ""] {
            let err = actor(&headers(refused)).unwrap_err();
            assert!(
                err.to_string().starts_with(&format!("invalid X-Baton-Actor header {refused:?}")),
                "{err}"
            );
        }
    }
}
