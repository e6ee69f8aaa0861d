//! "List buckets": the buckets the form's credentials may see (ListBuckets,
//! page by page as the core's [`BucketListing`] asks), each one click from
//! being opened. AWS S3 answers ListBuckets without CORS headers, so there the
//! browser gets no answer and the page says what to do instead.

use super::S3State;
use super::errors_view::Problem;
use crate::net::client::{drive, local_now};
use d9lens_core::s3::{Account, BucketEntry, BucketListing, S3Error};
use leptos::prelude::*;

/// Buckets shown at once; a filter narrows the rest.
const SHOWN: usize = 100;

/// What the picker holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum BucketChoices {
    #[default]
    None,
    Listing,
    Listed {
        buckets: Vec<BucketEntry>,
        /// More than the core's bound were there.
        truncated: bool,
    },
}

/// Every page of the account's buckets.
pub async fn list(account: &Account) -> Result<BucketChoices, Problem> {
    let mut listing = BucketListing::default();
    while listing.request(account, local_now()).is_some() {
        let sign = || listing.request(account, local_now()).expect("a page is due");
        let answer = drive(None, sign).await.map_err(|e| problem(&e))?;
        listing
            .on_body(&answer.body)
            .map_err(|e| Problem::bad_answer(&e.to_string()))?;
    }
    let (buckets, truncated) = listing.finish();
    Ok(BucketChoices::Listed { buckets, truncated })
}

fn problem(error: &S3Error) -> Problem {
    match error {
        S3Error::NetworkFailure { .. } => Problem {
            cause: "The endpoint did not let this page list the buckets (no answer a browser may read).".into(),
            fix: "AWS S3 answers ListBuckets without CORS, so from a browser only S3-compatible servers that allow it can \
                  list buckets. Type the bucket's name, or list them with `d9lens s3 ls` or `aws s3 ls`."
                .into(),
            // A bucket's CORS rule does not apply: ListBuckets names no bucket.
            cors_rule: None,
            ..Problem::from_s3(error)
        },
        _ => Problem::from_s3(error),
    }
}

#[component]
pub fn BucketPicker(s3: S3State) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    move || {
        match s3.buckets.get() {
        BucketChoices::None => None,
        BucketChoices::Listing => Some(
            view! { <p class="muted small" data-testid="bucket-picker" data-state="listing">"Listing the buckets…"</p> }
                .into_any(),
        ),
        BucketChoices::Listed { buckets, truncated } => {
            let total = buckets.len();
            let rows = move || {
                let needle = filter.get().to_lowercase();
                let matching: Vec<BucketEntry> =
                    buckets.iter().filter(|b| b.name.to_lowercase().contains(&needle)).cloned().collect();
                let more = matching.len().saturating_sub(SHOWN);
                let items = matching
                    .into_iter()
                    .take(SHOWN)
                    .map(|b| {
                        let about = [b.region.clone(), b.created.map(|t| format!("created {}", t.to_rfc3339().split('T').next().unwrap_or_default()))]
                            .into_iter()
                            .flatten()
                            .collect::<Vec<_>>()
                            .join(", ");
                        let (name, label) = (b.name.clone(), b.name.clone());
                        view! {
                            <li>
                                <button type="button" class="link-button" data-testid="bucket-choice" data-bucket=name
                                    on:click=move |_| s3.pick_bucket(&b)>{label}</button>
                                " " <span class="muted small">{about}</span>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <ul class="bucket-choices">{items}</ul>
                    {(more > 0).then(|| view! { <p class="muted small">{format!("and {more} more: type to narrow")}</p> })}
                }
            };
            let heading = match (total, truncated) {
                (0, _) => "No bucket is listed for these credentials.".to_owned(),
                (n, false) => format!("{n} bucket{}: pick one to open it.", if n == 1 { "" } else { "s" }),
                (n, true) => format!("The first {n} buckets (there are more): pick one to open it."),
            };
            Some(
                view! {
                    <div class="bucket-picker" data-testid="bucket-picker" data-state="listed" data-count=total.to_string()>
                        <p>{heading}</p>
                        {(total > 10).then(|| view! {
                            <input type="search" data-testid="bucket-filter" placeholder="filter by name" bind:value=filter spellcheck="false" />
                        })}
                        {rows}
                    </div>
                }
                .into_any(),
            )
        }
    }
    }
}
