//! `d9lens deploy s3://BUCKET[/PREFIX]`: the built site into a bucket, in the
//! order the core's plan gives, with the core's presigned requests.

use std::path::Path;
use std::process::ExitCode;

use super::args::{Allow, UploadArgs};
use super::{dist, failure, print_allowed};
use d9lens_core::fmt::bytes;
use d9lens_core::s3::{Endpoint, ErrorKind};
use d9lens_core::site::manifest::{MANIFEST_CACHE_CONTROL, MANIFEST_CONTENT_TYPE};
use d9lens_core::site::{
    DeployPlan, DistFile, Manifest, Origin, PreviousDeploy, Sha256Hex, SiteError, SitePath, Step, Warning, plan_deploy,
    site_url,
};
use d9lens_http::{Client, FetchError};

pub fn run(mut args: UploadArgs) -> Result<ExitCode, String> {
    let config =
        crate::aws_credentials::s3_config(&args.bucket, args.endpoint.as_deref(), args.region.as_deref(), None)?;
    let url = site_url(&config, &args.prefix);
    if let Endpoint::Custom(_) = config.endpoint {
        // The page served from this endpoint knows it by the meta (the CSP already
        // allows its own origin).
        args.allow.add(Origin::parse(&url).map_err(|e| e.to_string())?);
    }
    let files = match read_site(&args.dist, &args.allow) {
        Ok(files) => files,
        Err(e) => return Ok(failure(e)),
    };
    let dist_files = files
        .iter()
        .map(|(path, bytes)| DistFile {
            path: path.clone(),
            size: bytes.len() as u64,
            sha256: Sha256Hex::of(bytes),
        })
        .collect();

    let client = Client::new(config);
    let manifest_key = args.prefix.manifest_key();
    let previous = match previous_deploy(&client, &manifest_key) {
        Ok(previous) => previous,
        Err(e) if args.dry_run => {
            eprintln!("d9lens: reading {manifest_key}: {e}");
            PreviousDeploy::Unknown
        }
        Err(PreviousError::Fetch(e)) => {
            eprintln!("d9lens: reading the previous deploy's manifest {manifest_key} failed.");
            return Ok(crate::s3::failed(&e, &client.config()));
        }
        Err(e @ PreviousError::Manifest(_)) => {
            return Ok(failure(format!(
                "{manifest_key}: {e}. Move it away to deploy (the files it lists then stay in the bucket)."
            )));
        }
    };
    let plan = match plan_deploy(dist_files, &args.prefix, &previous) {
        Ok(plan) => plan,
        Err(e) => return Ok(failure(format!("{}: {e}", args.dist.display()))),
    };

    let target = format!("s3://{}/{}", args.bucket, args.prefix);
    if args.dry_run {
        println!(
            "Dry run of the deploy of {} to {target}: nothing is sent but the GET of the previous manifest.",
            args.dist.display()
        );
    }
    print_warnings(&plan);
    print_allowed(&args.allow);
    for step in &plan.steps {
        println!("{}", describe(step));
        if args.dry_run {
            continue;
        }
        if let Err(e) = send(&client, step, &files) {
            eprintln!("d9lens: {} failed; the deploy stopped there.", describe(step));
            return Ok(crate::s3::failed(&e, &client.config()));
        }
    }
    if !args.dry_run {
        let total: u64 = plan.uploads().map(|u| u.size).sum();
        println!(
            "Deployed {} files ({}) to {target}, deleted {}.",
            plan.uploads().count(),
            bytes(total),
            plan.deletes().count()
        );
    }
    println!("Open: {url}");
    Ok(ExitCode::SUCCESS)
}

/// The files of the built site in `dir`, its `index.html` rewritten to allow
/// `allow` (the file on disk stays as built).
fn read_site(dir: &Path, allow: &Allow) -> Result<dist::Files, String> {
    let mut files = dist::read(dir)?;
    let index = SitePath::new("index.html").expect("a valid path");
    let html = std::str::from_utf8(&files[&index])
        .map_err(|_| "it is not UTF-8 text".to_owned())
        .and_then(|html| allow.apply(html).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", dir.join("index.html").display()))?;
    files.insert(index, html.into_bytes());
    Ok(files)
}

/// Why the previous deploy is not known.
#[derive(Debug)]
enum PreviousError {
    Fetch(FetchError),
    Manifest(SiteError),
}

impl std::fmt::Display for PreviousError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Fetch(e) => f.write_str(&e.cause()),
            Self::Manifest(e) => e.fmt(f),
        }
    }
}

/// The previous deploy's manifest: none on a first deploy (404). A 403 is how S3
/// answers for a missing key when the identity may not list the bucket, so it
/// cannot tell a first deploy from an unreadable manifest: the deploy goes on
/// without deleting anything, and says so.
fn previous_deploy(client: &Client, key: &str) -> Result<PreviousDeploy, PreviousError> {
    match client.fetch(key, |config, now| config.get_object(key, None, now)) {
        Ok(resp) => Manifest::parse(&resp.body)
            .map(PreviousDeploy::Manifest)
            .map_err(PreviousError::Manifest),
        Err(FetchError::S3(e)) if matches!(e.kind(), Some(ErrorKind::NoSuchKey | ErrorKind::NotFound)) => {
            Ok(PreviousDeploy::FirstDeploy)
        }
        Err(FetchError::S3(e)) if matches!(e.kind(), Some(ErrorKind::AccessDenied)) => {
            eprintln!(
                "d9lens: reading {key}: {} S3 says so for a missing key too when the identity lacks \
                 s3:ListBucket; the deploy goes on but deletes nothing.",
                e.cause()
            );
            Ok(PreviousDeploy::Unknown)
        }
        Err(e) => Err(PreviousError::Fetch(e)),
    }
}

/// Sends one step of the plan.
fn send(client: &Client, step: &Step, files: &dist::Files) -> Result<(), FetchError> {
    match step {
        Step::Upload(u) => {
            let (ct, cc) = (u.content_type, u.cache_control.header_value());
            client.fetch_with_body(&u.key, &files[&u.path], |config, now| {
                config.put_object(&u.key, ct, cc, now)
            })
        }
        Step::WriteManifest { key, json } => client.fetch_with_body(key, json.as_bytes(), |config, now| {
            config.put_object(key, MANIFEST_CONTENT_TYPE, MANIFEST_CACHE_CONTROL, now)
        }),
        Step::Delete { key } => client.fetch(key, |config, now| config.delete_object(key, now)),
    }
    .map(drop)
}

/// `upload KEY (TYPE, CACHE, SIZE)` or `delete KEY`.
fn describe(step: &Step) -> String {
    match step {
        Step::Upload(u) => format!(
            "upload {} ({}, {}, {})",
            u.key,
            u.content_type,
            u.cache_control.header_value(),
            bytes(u.size)
        ),
        Step::WriteManifest { key, json } => format!(
            "upload {key} ({MANIFEST_CONTENT_TYPE}, {MANIFEST_CACHE_CONTROL}, {})",
            bytes(json.len() as u64)
        ),
        Step::Delete { key } => format!("delete {key}"),
    }
}

/// The plan's warnings on stderr, the files without a content hash on one line.
fn print_warnings(plan: &DeployPlan) {
    let unhashed: Vec<&str> = plan
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::NotContentHashed(p) => Some(p.as_str()),
            _ => None,
        })
        .collect();
    if !unhashed.is_empty() {
        eprintln!(
            "d9lens: warning: not content-hashed, so cached for 5 minutes only (visitors may mix versions \
             that long after a deploy): {}",
            unhashed.join(", ")
        );
    }
    for w in &plan.warnings {
        if !matches!(w, Warning::NotContentHashed(_)) {
            eprintln!("d9lens: warning: {w}");
        }
    }
}
