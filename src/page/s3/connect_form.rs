//! The connection panel: bucket, region, prefix, endpoint and credentials.

use super::S3State;
use super::bucket_picker::BucketChoices;
use super::errors_view::ProblemView;
use leptos::ev;
use leptos::prelude::*;

#[component]
pub fn ConnectForm(s3: S3State) -> impl IntoView {
    let f = s3.form;
    let paste = RwSignal::new(String::new());
    let on_paste = move |ev: ev::Event| {
        let area: web_sys::HtmlTextAreaElement = event_target(&ev);
        let text = area.value();
        if text.trim().is_empty() {
            return;
        }
        if s3.paste_credentials(&text) {
            // The pasted secret does not stay on screen.
            area.set_value("");
            paste.set(String::new());
        }
    };
    let on_submit = move |ev: ev::SubmitEvent| {
        ev.prevent_default();
        s3.connect();
    };
    let keys_disabled = move || f.public.get();
    let picker_shown = Memo::new(move |_| s3.buckets.with(|b| *b != BucketChoices::None));
    // The local demo bucket can only be on this machine.
    let (loopback, insecure, same_origin) = s3
        .site
        .with_value(|s| (s.loopback, s.insecure, s.served_from.is_some()));
    view! {
        <section class="card s3-connect" data-testid="s3-connect-panel">
            <h2 class="panel-title">"Analyze traces in an S3 bucket"</h2>
            <p class="muted small">
                {if same_origin {
                    "The page talks to S3 directly from this browser, on its own origin: no CORS rule is needed. "
                } else {
                    "The page talks to S3 directly from this browser; the bucket needs a CORS rule for this page's origin. "
                }}
                "Keys stay in this tab's memory (and in its session storage only if you tick \"remember\"): never in the URL."
            </p>
            {insecure.then(|| view! {
                <p class="notice" data-testid="insecure-page" role="alert">
                    "This page was served over plain HTTP: keys typed here cross the network unencrypted, and anyone on the way could have altered the page. "
                    "Open it over HTTPS (the bucket's REST endpoint or CloudFront, see the README's \"Share it with your team\")."
                </p>
            })}
            <form class="s3-form" on:submit=on_submit autocomplete="off">
                <div class="field-grid">
                    <label class="field">
                        <span>"Bucket"</span>
                        <input type="text" data-testid="s3-bucket" bind:value=f.bucket placeholder="my-trace-bucket" spellcheck="false" />
                    </label>
                    <label class="field">
                        <span>"Region"</span>
                        <input type="text" data-testid="s3-region" bind:value=f.region placeholder="us-east-1" spellcheck="false" />
                    </label>
                    <label class="field">
                        <span>"Prefix " <span class="muted">"(optional)"</span></span>
                        <input type="text" data-testid="s3-prefix" bind:value=f.prefix placeholder="dial9-traces/" spellcheck="false" />
                    </label>
                    <label class="field">
                        <span>"Endpoint " <span class="muted">"(empty: AWS S3)"</span></span>
                        <input type="url" data-testid="s3-endpoint" bind:value=f.endpoint placeholder="https://s3.example.com" spellcheck="false" />
                    </label>
                </div>
                <label class="check">
                    <input type="checkbox" data-testid="s3-public" bind:checked=f.public />
                    " Public bucket (no credentials)"
                </label>
                <div class="field-grid" class:disabled=keys_disabled>
                    <label class="field">
                        <span>"Access key ID"</span>
                        <input type="text" data-testid="s3-access-key" bind:value=f.access_key prop:disabled=keys_disabled spellcheck="false" autocomplete="off" />
                    </label>
                    <label class="field">
                        <span>"Secret access key"</span>
                        <input type="password" data-testid="s3-secret-key" bind:value=f.secret_key prop:disabled=keys_disabled autocomplete="off" />
                    </label>
                    <label class="field">
                        <span>"Session token " <span class="muted">"(temporary keys)"</span></span>
                        <input type="password" data-testid="s3-session-token" bind:value=f.session_token prop:disabled=keys_disabled autocomplete="off" />
                    </label>
                    <label class="field">
                        <span>"Assume role ARN " <span class="muted">"(optional)"</span></span>
                        <input type="text" data-testid="s3-role-arn" bind:value=f.role_arn prop:disabled=keys_disabled placeholder="arn:aws:iam::123456789012:role/trace-reader" spellcheck="false" />
                    </label>
                </div>
                <details class="paste">
                    <summary>"Paste credentials (JSON from aws sts / aws configure export-credentials, or AWS_… lines)"</summary>
                    <textarea data-testid="s3-paste" rows="4" spellcheck="false" autocomplete="off" prop:value=move || paste.get() on:input=on_paste placeholder="{\"AccessKeyId\": \"…\", \"SecretAccessKey\": \"…\", \"SessionToken\": \"…\"}"></textarea>
                </details>
                <details class="paste" data-testid="s3-lambda">
                    <summary>"Analyze on AWS Lambda (optional: a d9lens-lambda function URL, auth type AWS_IAM; docs/lambda.md)"</summary>
                    <div class="form-row">
                        <label class="field">
                            <span>"Function URL"</span>
                            <input type="url" data-testid="s3-lambda-url" bind:value=f.lambda_url placeholder="https://….lambda-url.us-east-1.on.aws/" spellcheck="false" />
                        </label>
                        <label class="field inline">
                            <span>"Invocations at once"</span>
                            <input type="number" min="1" max="500" data-testid="s3-lambda-jobs" bind:value=f.lambda_jobs />
                        </label>
                        <label class="field">
                            <span>"Results prefix " <span class="muted">"(optional: where the function may store results too large to answer)"</span></span>
                            <input type="text" data-testid="s3-lambda-results" bind:value=f.lambda_results placeholder="d9lens-results/" spellcheck="false" />
                        </label>
                    </div>
                </details>
                <div class="form-row">
                    <label class="check">
                        <input type="checkbox" data-testid="s3-remember" bind:checked=f.remember />
                        " Remember the keys in this tab"
                    </label>
                    <label class="field inline">
                        <span>"Keys per listing page"</span>
                        <input type="number" min="1" max="1000" data-testid="s3-max-keys" bind:value=f.max_keys />
                    </label>
                    <label class="field inline">
                        <span>"List at most (objects)"</span>
                        <input type="number" min="1" data-testid="s3-max-objects" bind:value=f.max_objects />
                    </label>
                </div>
                <div class="form-actions">
                    <button type="submit" class="button primary" data-testid="s3-connect" prop:disabled=move || s3.connecting.get()>
                        {move || if s3.connecting.get() { "Connecting…" } else { "Connect and list" }}
                    </button>
                    <button type="button" class="button" data-testid="s3-list-buckets"
                        prop:disabled=move || s3.buckets.with(|b| *b == BucketChoices::Listing)
                        on:click=move |_| s3.list_buckets()>
                        "List buckets"
                    </button>
                    {loopback.then(|| view! {
                        <button type="button" class="button" data-testid="s3-demo" on:click=move |_| s3.try_demo()>
                            "Try the demo bucket"
                        </button>
                    })}
                    {move || s3.connected.get().map(|c| view! { <span class="muted" data-testid="s3-connected">"Bucket: " {c}</span> })}
                </div>
            </form>
            // Its view is in the bucket chunk: drawn once there is something to show.
            {move || picker_shown.get().then(|| crate::page::chunks::bucket_picker(s3))}
            {move || s3.note.get().map(|n| view! { <p class="note" data-testid="s3-note">{n}</p> })}
            {move || s3.approve_host.get().map(|host| view! {
                <div class="problem warning" role="alertdialog" data-testid="s3-endpoint-approval" data-host=host.clone()>
                    <p>
                        <strong>{format!("This link sends your requests to {host}.")}</strong>
                        " It is not AWS, and not where this page came from. Your keys only sign the requests (they are never sent), "
                        "but whoever runs that host sees what you list and download. Send them there only if you know it."
                    </p>
                    <div class="form-actions">
                        <button type="button" class="button primary" data-testid="s3-endpoint-approve" on:click=move |_| s3.approve_endpoint()>
                            {format!("Send my requests to {host}")}
                        </button>
                        <button type="button" class="button" on:click=move |_| s3.approve_host.set(None)>"Cancel"</button>
                    </div>
                </div>
            })}
            {move || s3.problem.get().map(|p| view! { <ProblemView problem=p /> })}
        </section>
    }
}
