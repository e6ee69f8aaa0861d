//! The deploy plan: from the built files and the previous deploy's manifest to the
//! ordered list of requests that publishes the site.
//!
//! Order matters to visitors during the deploy: every asset first, then the pages
//! (the root `index.html` last), then the manifest, then the deletes. A visitor
//! thus never loads an index that names a file not uploaded yet, nor one whose
//! files were already deleted.

use std::collections::BTreeSet;
use std::fmt;

use super::content::{CacheControl, content_type};
use super::error::SiteError;
use super::manifest::{MANIFEST_VERSION, Manifest, ManifestEntry, Sha256Hex};
use super::path::{MANIFEST_NAME, MAX_KEY_BYTES, Prefix, SitePath};

/// One file of the built site, as the shell read it (the digest of the bytes it
/// will upload, e.g. of the rewritten `index.html`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistFile {
    pub path: SitePath,
    pub size: u64,
    pub sha256: Sha256Hex,
}

/// What is known of the deploy before this one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreviousDeploy {
    /// No manifest under the prefix: nothing to delete.
    FirstDeploy,
    Manifest(Manifest),
    /// The manifest could not be read (a dry run without the network): the plan
    /// lists no deletes and says that stale files are unknown.
    Unknown,
}

/// One PutObject of a site file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    pub path: SitePath,
    pub key: String,
    pub content_type: &'static str,
    pub cache_control: CacheControl,
    pub size: u64,
}

/// One request of the deploy, in the order they must be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Upload(Upload),
    /// The new manifest (`application/json`, `no-cache`), after every upload.
    WriteManifest {
        key: String,
        json: String,
    },
    /// A file of the previous deploy that the new site no longer has.
    Delete {
        key: String,
    },
}

/// Something the deploy does that its user may want to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// A non-page file whose name carries no content hash: cached for five minutes
    /// only, and visitors may mix old and new files for that long.
    NotContentHashed(SitePath),
    /// A key of the previous manifest that is not a file under the prefix: left alone.
    ForeignKey(String),
    /// The previous manifest could not be read: stale files are not deleted.
    StaleUnknown,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotContentHashed(p) => write!(
                f,
                "{p} is not content-hashed: cached for 5 minutes only (Trunk's filehash names files by content)"
            ),
            Self::ForeignKey(k) => write!(
                f,
                "the previous manifest lists {k:?}, which is not a file under the prefix: not deleted"
            ),
            Self::StaleUnknown => f.write_str("the previous deploy's manifest could not be read: stale files unknown"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeployPlan {
    pub steps: Vec<Step>,
    pub warnings: Vec<Warning>,
}

impl DeployPlan {
    pub fn uploads(&self) -> impl Iterator<Item = &Upload> {
        self.steps.iter().filter_map(|s| match s {
            Step::Upload(u) => Some(u),
            _ => None,
        })
    }

    pub fn deletes(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|s| match s {
            Step::Delete { key } => Some(key.as_str()),
            _ => None,
        })
    }
}

/// Plans the deploy of `files` under `prefix`. Refuses a site without a root
/// `index.html`, a path listed twice, a file named like the manifest, and keys over
/// S3's length limit.
pub fn plan_deploy(
    mut files: Vec<DistFile>,
    prefix: &Prefix,
    previous: &PreviousDeploy,
) -> Result<DeployPlan, SiteError> {
    // Assets, then pages, then the root index.html.
    files.sort_by(|a, b| upload_rank(&a.path).cmp(&upload_rank(&b.path)));
    if let Some(pair) = files.windows(2).find(|w| w[0].path == w[1].path) {
        return Err(SiteError::DuplicatePath(pair[0].path.to_string()));
    }
    if !files.last().is_some_and(|f| f.path.is_root_index()) {
        return Err(SiteError::MissingIndex);
    }
    let mut steps = Vec::with_capacity(files.len() + 1);
    let mut warnings = Vec::new();
    let mut entries = Vec::with_capacity(files.len());
    for file in files {
        if file.path.as_str() == MANIFEST_NAME {
            return Err(SiteError::ManifestCollision(file.path.to_string()));
        }
        let key = prefix.key(&file.path);
        if key.len() > MAX_KEY_BYTES {
            return Err(SiteError::KeyTooLong(key));
        }
        let cache_control = CacheControl::for_path(&file.path);
        if cache_control == CacheControl::Short {
            warnings.push(Warning::NotContentHashed(file.path.clone()));
        }
        entries.push(ManifestEntry {
            key: key.clone(),
            sha256: file.sha256,
            size: file.size,
        });
        steps.push(Step::Upload(Upload {
            content_type: content_type(file.path.file_name()),
            cache_control,
            size: file.size,
            key,
            path: file.path,
        }));
    }
    let uploaded: BTreeSet<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let manifest_key = prefix.manifest_key();
    let mut stale = BTreeSet::new();
    match previous {
        PreviousDeploy::FirstDeploy => {}
        PreviousDeploy::Unknown => warnings.push(Warning::StaleUnknown),
        PreviousDeploy::Manifest(old) => {
            for key in old.files.iter().map(|e| &e.key) {
                if uploaded.contains(key.as_str()) || *key == manifest_key {
                    continue;
                }
                match prefix.path_of(key) {
                    Some(_) => {
                        stale.insert(key.clone());
                    }
                    None => warnings.push(Warning::ForeignKey(key.clone())),
                }
            }
        }
    }
    let manifest = Manifest {
        version: MANIFEST_VERSION,
        files: entries,
    };
    steps.push(Step::WriteManifest {
        key: manifest_key,
        json: manifest.to_json(),
    });
    steps.extend(stale.into_iter().map(|key| Step::Delete { key }));
    Ok(DeployPlan { steps, warnings })
}

/// Sort key of the upload order: assets, pages, the root index; by path within each.
fn upload_rank(path: &SitePath) -> (bool, bool, &str) {
    let page = CacheControl::for_path(path) == CacheControl::NoCache;
    (page, path.is_root_index(), path.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> DistFile {
        DistFile {
            path: SitePath::new(path).unwrap(),
            size: path.len() as u64,
            sha256: Sha256Hex::of(path.as_bytes()),
        }
    }

    fn dist() -> Vec<DistFile> {
        [
            "index.html",
            "d9lens-web-3f2a9c0d1e4b5a67_bg.wasm",
            "boot.js",
            "docs/help.html",
            "d9lens-web-3f2a9c0d1e4b5a67.js",
            "assets/main-0123456789abcdef.css",
        ]
        .into_iter()
        .map(file)
        .collect()
    }

    fn keys(plan: &DeployPlan) -> Vec<String> {
        plan.steps
            .iter()
            .map(|s| match s {
                Step::Upload(u) => format!("upload {}", u.key),
                Step::WriteManifest { key, .. } => format!("manifest {key}"),
                Step::Delete { key } => format!("delete {key}"),
            })
            .collect()
    }

    fn manifest_of(plan: &DeployPlan) -> Manifest {
        plan.steps
            .iter()
            .find_map(|s| match s {
                Step::WriteManifest { json, .. } => Some(Manifest::parse(json.as_bytes()).unwrap()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn first_deploy_uploads_assets_then_pages_then_index_then_the_manifest() {
        let prefix = Prefix::new("tools/d9lens").unwrap();
        let plan = plan_deploy(dist(), &prefix, &PreviousDeploy::FirstDeploy).unwrap();
        assert_eq!(
            keys(&plan),
            [
                "upload tools/d9lens/assets/main-0123456789abcdef.css",
                "upload tools/d9lens/boot.js",
                "upload tools/d9lens/d9lens-web-3f2a9c0d1e4b5a67.js",
                "upload tools/d9lens/d9lens-web-3f2a9c0d1e4b5a67_bg.wasm",
                "upload tools/d9lens/docs/help.html",
                "upload tools/d9lens/index.html",
                "manifest tools/d9lens/.d9lens-deploy.json",
            ]
        );
        let wasm = plan.uploads().find(|u| u.key.ends_with(".wasm")).unwrap();
        assert_eq!(wasm.content_type, "application/wasm");
        assert_eq!(wasm.cache_control, CacheControl::Immutable);
        let index = plan.uploads().last().unwrap();
        assert_eq!(
            (index.content_type, index.cache_control),
            ("text/html; charset=utf-8", CacheControl::NoCache)
        );
        assert_eq!(
            plan.warnings,
            [Warning::NotContentHashed(SitePath::new("boot.js").unwrap())]
        );
        let manifest = manifest_of(&plan);
        assert_eq!(manifest.files.len(), 6);
        assert_eq!(manifest.files[5].key, "tools/d9lens/index.html");
        assert_eq!(manifest.files[5].sha256, Sha256Hex::of(b"index.html"));
    }

    #[test]
    fn only_files_of_the_previous_manifest_are_deleted() {
        let prefix = Prefix::new("site/").unwrap();
        let entry = |key: &str| ManifestEntry {
            key: key.into(),
            sha256: Sha256Hex::of(b"old"),
            size: 3,
        };
        let previous = PreviousDeploy::Manifest(Manifest {
            version: MANIFEST_VERSION,
            files: vec![
                entry("site/d9lens-web-0000000000000aaa_bg.wasm"),
                entry("site/index.html"),
                entry("site/old/page.html"),
                entry("site/old/page.html"),
                entry("site/.d9lens-deploy.json"),
                entry("traces/2026/segment.bin.gz"),
                entry("site/../traces/x"),
                entry("site/"),
            ],
        });
        let plan = plan_deploy(dist(), &prefix, &previous).unwrap();
        let deletes: Vec<&str> = plan.deletes().collect();
        assert_eq!(
            deletes,
            ["site/d9lens-web-0000000000000aaa_bg.wasm", "site/old/page.html"]
        );
        // Deletes come after the manifest, which comes after every upload.
        let steps = keys(&plan);
        assert_eq!(steps[6], "manifest site/.d9lens-deploy.json");
        assert!(steps[7..].iter().all(|s| s.starts_with("delete ")));
        for foreign in ["traces/2026/segment.bin.gz", "site/../traces/x", "site/"] {
            assert!(
                plan.warnings.contains(&Warning::ForeignKey(foreign.into())),
                "{foreign}"
            );
        }
    }

    #[test]
    fn an_unreadable_previous_deploy_deletes_nothing_and_says_so() {
        let plan = plan_deploy(dist(), &Prefix::default(), &PreviousDeploy::Unknown).unwrap();
        assert_eq!(plan.deletes().count(), 0);
        assert!(plan.warnings.contains(&Warning::StaleUnknown));
        assert_eq!(plan.uploads().last().unwrap().key, "index.html");
    }

    #[test]
    fn refuses_sites_it_cannot_deploy_safely() {
        let root = Prefix::default();
        let mut no_index = dist();
        no_index.retain(|f| !f.path.is_root_index());
        assert_eq!(
            plan_deploy(no_index, &root, &PreviousDeploy::FirstDeploy),
            Err(SiteError::MissingIndex)
        );

        let mut twice = dist();
        twice.push(file("boot.js"));
        assert_eq!(
            plan_deploy(twice, &root, &PreviousDeploy::FirstDeploy),
            Err(SiteError::DuplicatePath("boot.js".into()))
        );

        let mut collision = dist();
        collision.push(file(".d9lens-deploy.json"));
        assert!(matches!(
            plan_deploy(collision, &root, &PreviousDeploy::FirstDeploy),
            Err(SiteError::ManifestCollision(_))
        ));

        let mut long = dist();
        long.push(file(&"a".repeat(1025)));
        assert!(matches!(
            plan_deploy(long, &root, &PreviousDeploy::FirstDeploy),
            Err(SiteError::KeyTooLong(_))
        ));
    }
}
