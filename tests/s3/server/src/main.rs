//! `d9lens-s3-server`: the S3 server of d9lens's tests and demo. It is s3s-fs 0.14.1's
//! own binary (same options, same service: an S3 API over a directory that verifies
//! SigV4, header-signed or presigned), plus `--public-read BUCKET/PREFIX`: anonymous
//! GetObject / HeadObject of keys under that prefix, as a bucket policy allowing public
//! read of a site would (see `access.rs`). Every other unsigned request gets 403.
//! And `--cors-origin ORIGIN`: a bucket CORS rule for that origin (`*`: any),
//! answered by the server itself as S3 does (see `cors.rs`). Listings read only the
//! folders they need (see `listing.rs`).
//!
//!   d9lens-s3-server --host 127.0.0.1 --port 9000 --access-key AK --secret-key SK \
//!       [--public-read site-bucket/tools/d9lens/]... [--cors-origin '*'] DIR
//!
//! Logs go to stderr, filtered by RUST_LOG (e.g. `info`).

mod access;
mod cors;
mod listing;

use std::path::PathBuf;

use clap::{CommandFactory, Parser};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;
use s3s::auth::SimpleAuth;
use s3s::host::MultiDomain;
use s3s::service::S3ServiceBuilder;
use s3s_fs::Result;
use tokio::net::TcpListener;
use tracing::info;

use crate::access::{PublicPrefix, PublicRead};
use crate::cors::{CorsRule, Verdict};

#[derive(Debug, Parser)]
#[command(version)]
struct Opt {
    /// Host name to listen on.
    #[arg(long, default_value = "localhost")]
    host: String,

    /// Port number to listen on.
    #[arg(long, default_value = "8014")]
    port: u16,

    /// Access key used for authentication.
    #[arg(long)]
    access_key: Option<String>,

    /// Secret key used for authentication.
    #[arg(long)]
    secret_key: Option<String>,

    /// Domain names used for virtual-hosted-style requests.
    #[arg(long)]
    domain: Vec<String>,

    /// Lets anonymous GetObject / HeadObject read keys under BUCKET/PREFIX (repeatable;
    /// `BUCKET` alone: the whole bucket). Needs --access-key / --secret-key.
    #[arg(long, value_name = "BUCKET/PREFIX")]
    public_read: Vec<PublicPrefix>,

    /// Answers CORS for this origin, as S3 does with a bucket CORS rule allowing it
    /// (repeatable; `*`: any origin). Without it, no CORS headers at all.
    #[arg(long, value_name = "ORIGIN")]
    cors_origin: Vec<String>,

    /// Root directory of stored data.
    root: PathBuf,
}

fn check_cli_args(opt: &Opt) {
    use clap::error::ErrorKind;
    let mut cmd = Opt::command();
    if opt.access_key.is_some() != opt.secret_key.is_some() {
        cmd.error(
            ErrorKind::MissingRequiredArgument,
            "access key and secret key must be specified together",
        )
        .exit();
    }
    // Without auth s3s checks no access at all: everything would be public anyway.
    if !opt.public_read.is_empty() && opt.access_key.is_none() {
        cmd.error(
            ErrorKind::MissingRequiredArgument,
            "--public-read needs --access-key and --secret-key",
        )
        .exit();
    }
    if let Some(s) = opt.domain.iter().find(|s| s.contains('/')) {
        cmd.error(
            ErrorKind::InvalidValue,
            format!("expected domain name, found URL-like string: {s:?}"),
        )
        .exit();
    }
}

fn main() -> Result {
    let opt = Opt::parse();
    check_cli_args(&opt);
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    run(opt)
}

#[tokio::main]
async fn run(opt: Opt) -> Result {
    let service = {
        let mut b = S3ServiceBuilder::new(listing::Store::new(&opt.root)?);
        if let (Some(ak), Some(sk)) = (opt.access_key, opt.secret_key) {
            b.set_auth(SimpleAuth::from_single(ak, sk));
            b.set_access(PublicRead::new(opt.public_read.clone()));
            info!(public_read = ?opt.public_read, "authentication is enabled");
        }
        if !opt.domain.is_empty() {
            b.set_host(MultiDomain::new(&opt.domain)?);
            info!("virtual-hosted-style requests are enabled");
        }
        b.build()
    };
    let cors = CorsRule::new(opt.cors_origin.clone());
    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let verdict = cors.check(req.method(), req.headers(), s3s::Body::empty);
        let s3 = service.clone();
        async move {
            match verdict {
                Verdict::Answer(preflight) => Ok(preflight),
                Verdict::Pass(add) => {
                    let mut answer = hyper::service::Service::call(&s3, req).await?;
                    answer.headers_mut().extend(add);
                    Ok::<_, s3s::HttpError>(answer)
                }
            }
        }
    });

    let listener = TcpListener::bind((opt.host.as_str(), opt.port)).await?;
    info!("server is running at http://{}", listener.local_addr()?);

    let http_server = ConnBuilder::new(TokioExecutor::new());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut ctrl_c = std::pin::pin!(tokio::signal::ctrl_c());
    loop {
        let socket = tokio::select! {
            res = listener.accept() => match res {
                Ok((socket, _)) => socket,
                Err(err) => {
                    tracing::error!("error accepting connection: {err}");
                    continue;
                }
            },
            _ = ctrl_c.as_mut() => break,
        };
        let conn = http_server.serve_connection(TokioIo::new(socket), service.clone());
        let conn = graceful.watch(conn.into_owned());
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }

    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(std::time::Duration::from_secs(10)) => {}
    }
    info!("server is stopped");
    Ok(())
}
