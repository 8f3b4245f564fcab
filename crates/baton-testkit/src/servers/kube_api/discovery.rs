//! Discovery, as much as kubectl and clients need: `/version`, the core group's versions
//! (`/api`), the groups (`/apis`, `/apis/<group>`) and each group version's resources. Only the
//! legacy documents are served, as `application/json`: a client asking for aggregated
//! discovery (kubectl does) sees a plain answer and falls back to them.

use serde_json::{Value, json};

use super::resources::Resource;

/// A discovery document.
pub(super) enum Document {
    Version,
    CoreVersions,
    Groups,
    Group(&'static str),
    /// The resources of a group (empty for the core group) and version.
    Resources(&'static str, &'static str),
}

impl Document {
    /// The document of the group `name`, if served.
    pub(super) fn group(name: &str) -> Option<Document> {
        let resource =
            Resource::ALL.into_iter().find(|r| !name.is_empty() && r.describe().group == name)?;
        Some(Document::Group(resource.describe().group))
    }

    /// The document of `group`/`version`'s resources, if served.
    pub(super) fn resources(group: &str, version: &str) -> Option<Document> {
        let resource = Resource::ALL.into_iter().find(|resource| {
            let described = resource.describe();
            !group.is_empty() && described.group == group && described.version == version
        })?;
        let described = resource.describe();
        Some(Document::Resources(described.group, described.version))
    }

    /// The document, for a server reached at `address` (`host:port`).
    pub(super) fn render(&self, address: &str) -> Value {
        match self {
            Document::Version => json!({
                "major": "1",
                "minor": "32",
                "gitVersion": "v1.32.0",
                "gitCommit": "baton-testkit-emulation",
                "gitTreeState": "clean",
                "buildDate": "2024-12-11T00:00:00Z",
                "goVersion": "go1.23.3",
                "compiler": "gc",
                "platform": "linux/amd64",
            }),
            Document::CoreVersions => json!({
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{ "clientCIDR": "0.0.0.0/0", "serverAddress": address }],
            }),
            Document::Groups => {
                let groups: Vec<Value> = groups().into_iter().map(group).collect();
                json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
            }
            Document::Group(name) => {
                let mut document = group(name);
                document["kind"] = json!("APIGroup");
                document["apiVersion"] = json!("v1");
                document
            }
            Document::Resources(group, version) => {
                let resources: Vec<Value> = Resource::ALL
                    .into_iter()
                    .map(Resource::describe)
                    .filter(|resource| resource.group == *group && resource.version == *version)
                    .map(|resource| {
                        let mut entry = json!({
                            "name": resource.plural,
                            "singularName": resource.singular,
                            "namespaced": resource.namespaced,
                            "kind": resource.kind,
                            "verbs": resource.verbs,
                        });
                        if !resource.short_names.is_empty() {
                            entry["shortNames"] = json!(resource.short_names);
                        }
                        entry
                    })
                    .collect();
                let group_version = match *group {
                    "" => version.to_string(),
                    group => format!("{group}/{version}"),
                };
                let mut document = json!({
                    "kind": "APIResourceList",
                    "groupVersion": group_version,
                    "resources": resources,
                });
                if !group.is_empty() {
                    document["apiVersion"] = json!("v1");
                }
                document
            }
        }
    }
}

/// The named groups served, in order.
fn groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = Vec::new();
    for resource in Resource::ALL.map(Resource::describe) {
        if !resource.group.is_empty() && !groups.contains(&resource.group) {
            groups.push(resource.group);
        }
    }
    groups
}

/// The group `name` as an `APIGroup` (without its kind), its one version preferred.
fn group(name: &str) -> Value {
    let version = Resource::ALL
        .map(Resource::describe)
        .into_iter()
        .find(|resource| resource.group == name)
        .map_or("v1", |resource| resource.version);
    let entry = json!({ "groupVersion": format!("{name}/{version}"), "version": version });
    json!({ "name": name, "versions": [entry.clone()], "preferredVersion": entry })
}
