//! From a URL to what the client needs: the HTTPS client, the region and the credentials,
//! found as the SDK finds them, except that the region is never asked of the instance metadata
//! service (so that a missing region fails at once instead of probing the network).

use std::time::Duration;

use aws_config::environment::region::EnvironmentVariableRegionProvider;
use aws_config::meta::region::RegionProviderChain;
use aws_config::profile::{ProfileFileCredentialsProvider, ProfileFileRegionProvider};
use aws_config::provider_config::ProviderConfig;
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use aws_sdk_dynamodb::config::{Region, SharedCredentialsProvider, SharedHttpClient};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
use baton_core::{Error, Result};

use crate::url::Target;

/// What the client is built from.
pub(crate) struct Settings {
    pub(crate) table: String,
    pub(crate) region: Region,
    pub(crate) endpoint: Option<String>,
    pub(crate) credentials: SharedCredentialsProvider,
    pub(crate) http: SharedHttpClient,
    pub(crate) timeout: Duration,
}

/// The HTTPS client of every request, DynamoDB's and the credential providers' (STS, SSO,
/// container and instance roles): rustls on ring, as the rest of the workspace.
fn http_client() -> SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https()
}

/// The shared config and credentials files the target names (the default ones otherwise).
fn profile_files(target: &Target) -> EnvConfigFiles {
    let mut files = EnvConfigFiles::builder().include_default_config_file(true);
    files = match &target.credentials_file {
        Some(path) => files.with_file(EnvConfigFileKind::Credentials, path),
        None => files.include_default_credentials_file(true),
    };
    files.build()
}

/// The region: the URL's, else `AWS_REGION` (or `AWS_DEFAULT_REGION`), else the profile's.
async fn region(target: &Target) -> Result<Region> {
    if let Some(region) = &target.region {
        return Ok(Region::new(region.clone()));
    }
    let mut profile = ProfileFileRegionProvider::builder().profile_files(profile_files(target));
    if let Some(name) = &target.profile {
        profile = profile.profile_name(name);
    }
    let chain = RegionProviderChain::first_try(EnvironmentVariableRegionProvider::new())
        .or_else(profile.build());
    chain.region().await.ok_or_else(|| {
        Error::invalid_input(format!(
            "no AWS region for DynamoDB table {}: give one in the URL (?region=eu-west-1), in \
             AWS_REGION, or in the profile's config",
            target.table
        ))
    })
}

/// The credentials: those of the profile the URL names (or of the credentials file it names),
/// else the SDK's default chain (environment, profile, web identity, container, instance).
async fn credentials(
    target: &Target,
    region: &Region,
    http: &SharedHttpClient,
) -> SharedCredentialsProvider {
    let config =
        ProviderConfig::default().with_http_client(http.clone()).with_region(Some(region.clone()));
    if target.profile.is_some() || target.credentials_file.is_some() {
        let mut provider = ProfileFileCredentialsProvider::builder()
            .configure(&config)
            .profile_files(profile_files(target));
        if let Some(name) = &target.profile {
            provider = provider.profile_name(name);
        }
        return SharedCredentialsProvider::new(provider.build());
    }
    // The region is given, so that the chain never asks the instance metadata service for one.
    let chain = aws_config::default_provider::credentials::DefaultCredentialsChain::builder()
        .region(region.clone())
        .configure(config)
        .build()
        .await;
    SharedCredentialsProvider::new(chain)
}

/// The settings `target` names.
pub(crate) async fn settings(target: Target) -> Result<Settings> {
    let region = region(&target).await?;
    let http = http_client();
    let credentials = credentials(&target, &region, &http).await;
    Ok(Settings {
        table: target.table,
        region,
        endpoint: target.endpoint,
        credentials,
        http,
        timeout: target.timeout,
    })
}
