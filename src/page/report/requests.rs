//! REQUESTS: the span explorer (per span name its percentiles, where the
//! time went, its fields' values, child spans and slowest instances),
//! filtered by field values, and slow versus typical for one name: the same
//! answers as `d9lens spans`, from the run's kept details.

use super::charts::chart;
use super::widgets::{DataTable, Section, show_on_timeline};
use crate::page::flame::FlamePanel;
use crate::page::frame_text::frame_text;
use d9lens_core::fmt::fmt_dur;
use d9lens_core::requests::explore::{Explorer, Instance, SpanSummary, explore};
use d9lens_core::requests::kept::Details;
use d9lens_core::requests::query::{Query, parse_where};
use d9lens_core::requests::slow::{Extra, SlowVsTypical, Threshold, slow_vs_typical};
use d9lens_core::requests::split::Split;
use leptos::prelude::*;
use std::sync::Arc;

pub fn view(details: Arc<Details>) -> impl IntoView + use<> {
    (!details.is_empty()).then(|| view! { <SpanExplorer details=details /> })
}

fn dur(ns: u64) -> String {
    fmt_dur(ns as f64)
}

#[component]
fn SpanExplorer(details: Arc<Details>) -> impl IntoView {
    let filters = RwSignal::new(Vec::<(String, String)>::new());
    let chosen = RwSignal::new(None::<String>);
    let typed = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let for_explorer = details.clone();
    // The browser benchmark reads how long the last answer took.
    let explore_ms = StoredValue::new(0.0);
    let explorer = Memo::new(move |_| {
        let query = Query {
            fields: filters.get(),
            ..Query::default()
        };
        let started = crate::clock::now_ms();
        let e = explore(&for_explorer, &query);
        explore_ms.set_value(crate::clock::now_ms() - started);
        e
    });
    let add = move |pair: (String, String)| {
        filters.update(|f| {
            if !f.contains(&pair) {
                f.push(pair)
            }
        })
    };
    let apply = move || match parse_where(&typed.get_untracked()) {
        Ok(pair) => {
            add(pair);
            typed.set(String::new());
            problem.set(None);
        }
        Err(e) => problem.set(Some(e)),
    };
    let chips = move || {
        filters
            .get()
            .into_iter()
            .map(|(k, v)| {
                let pair = (k.clone(), v.clone());
                view! {
                    <span class="chip" data-testid="span-filter-chip">
                        {format!("{k} = {v}")}
                        <button type="button" class="link-button" aria-label="remove this filter"
                            on:click=move |_| filters.update(|f| f.retain(|p| *p != pair))>"×"</button>
                    </span>
                }
            })
            .collect_view()
    };
    let left_out = details.left_out_note();
    let details_for_panel = details.clone();
    view! {
        <Section title="Requests: span explorer" testid="section-requests"
            subtitle="per span name: where the time went; filter by a field value, compare the slow instances with the rest".to_string()>
            {left_out.map(|note| view! { <p class="muted" data-testid="requests-left-out">{note}</p> })}
            <form class="span-filter" on:submit=move |ev| { ev.prevent_default(); apply() }>
                <label>
                    "Only instances with "
                    <input type="text" data-testid="span-filter" placeholder="field=value, e.g. route=GET /api/users"
                        prop:value=move || typed.get() on:input=move |ev| typed.set(event_target_value(&ev)) />
                </label>
                <button type="submit">"Filter"</button>
                {chips}
            </form>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            {move || {
                let e = explorer.get();
                view! {
                    <div data-testid="explorer-table" data-explore-ms=format!("{:.2}", explore_ms.get_value())>
                        {summary_table(&e, chosen)}
                    </div>
                }
            }}
            {move || {
                let e = explorer.get();
                let name = chosen.get()?;
                let s = e.spans.into_iter().find(|s| s.name == name)?;
                Some(view! {
                    <SpanPanel summary=s details=details_for_panel.clone() filters=filters.get() add=Callback::new(add) />
                })
            }}
        </Section>
    }
}

fn summary_table(e: &Explorer, chosen: RwSignal<Option<String>>) -> impl IntoView + use<> {
    if e.spans.is_empty() {
        return view! { <p class="muted" data-testid="requests-empty">"No span instance matches."</p> }.into_any();
    }
    let rows = e
        .spans
        .iter()
        .map(|s| {
            let name = s.name.clone();
            let is_chosen = {
                let name = name.clone();
                move || chosen.get().as_deref() == Some(name.as_str())
            };
            let open = {
                let name = name.clone();
                move |_| chosen.set(Some(name.clone()))
            };
            let Split { on_cpu, blocked, sched_delay, async_wait } = s.split;
            view! {
                <tr data-testid="explorer-row" data-name=name.clone() data-count=s.count.to_string()
                    class:chosen=is_chosen>
                    <td class="loc">
                        <button type="button" class="link-button" data-testid="explorer-open" on:click=open>{name.clone()}</button>
                    </td>
                    <td class="num">{s.count.to_string()}</td>
                    <td class="num" data-testid="p50" data-ns=s.p50_ns.to_string()>{dur(s.p50_ns)}</td>
                    <td class="num">{dur(s.p90_ns)}</td>
                    <td class="num" data-testid="p99" data-ns=s.p99_ns.to_string()>{dur(s.p99_ns)}</td>
                    <td class="num">{dur(s.p999_ns)}</td>
                    <td class="num" data-testid="max" data-ns=s.max_ns.to_string()>{dur(s.max_ns)}</td>
                    <td class="num" data-testid="on-cpu" data-ns=on_cpu.to_string()>{dur(on_cpu)}</td>
                    <td class="num" data-testid="blocked" data-ns=blocked.to_string()>{dur(blocked)}</td>
                    <td class="num" data-testid="sched-delay" data-ns=sched_delay.to_string()>{dur(sched_delay)}</td>
                    <td class="num" data-testid="async-wait" data-ns=async_wait.to_string()>{dur(async_wait)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <DataTable columns=&[
            ("Span", ""), ("Instances", "num"), ("p50", "num"), ("p90", "num"), ("p99", "num"), ("p99.9", "num"),
            ("max", "num"), ("on-CPU", "num"), ("blocked in a poll", "num"), ("scheduling delay", "num"),
            ("async wait", "num"),
        ]>
            {rows}
        </DataTable>
    }
    .into_any()
}

/// One span name: its histogram, fields' values (each a filter), child
/// spans, slowest instances, and slow versus typical.
#[component]
fn SpanPanel(
    summary: SpanSummary,
    details: Arc<Details>,
    filters: Vec<(String, String)>,
    add: Callback<(String, String)>,
) -> impl IntoView {
    let name = summary.name.clone();
    let fields = summary
        .fields
        .iter()
        .map(|f| {
            let values = f
                .values
                .iter()
                .map(|(v, n)| {
                    let pair = (f.name.clone(), v.clone());
                    view! {
                        <li>
                            <button type="button" class="link-button" data-testid="field-value"
                                data-field=f.name.clone() data-value=v.clone()
                                on:click=move |_| add.run(pair.clone())>{v.clone()}</button>
                            {format!(" {n}")}
                        </li>
                    }
                })
                .collect_view();
            let other = (f.other > 0)
                .then(|| view! { <li class="muted">{format!("{} other values: {}", f.other_values, f.other)}</li> });
            view! {
                <div class="field-values" data-testid="span-field" data-field=f.name.clone()>
                    <h4>{f.name.clone()}</h4>
                    <ul class="plain">{values}{other}</ul>
                </div>
            }
        })
        .collect_view();
    let children = summary
        .children
        .iter()
        .map(|c| {
            view! {
                <tr data-testid="span-child" data-name=c.name.clone()>
                    <td class="loc">{c.name.clone()}</td>
                    <td class="num">{c.count.to_string()}</td>
                    <td class="num">{dur(c.total_ns)}</td>
                </tr>
            }
        })
        .collect_view();
    let has_children = !summary.children.is_empty();
    // Frames of the trace: text nodes only.
    let awaits = summary
        .awaits
        .iter()
        .map(|a| {
            view! {
                <tr data-testid="span-await" data-frame=a.frame.clone() data-ns=a.wait_ns.to_string()>
                    <td class="loc"><code>{a.frame.clone()}</code></td>
                    <td class="num">{a.dumps.to_string()}</td>
                    <td class="num">{dur(a.wait_ns)}</td>
                </tr>
            }
        })
        .collect_view();
    let has_awaits = !summary.awaits.is_empty();
    let threshold = RwSignal::new(Threshold::Percentile(99.0));
    let typed = RwSignal::new("p99".to_string());
    let problem = RwSignal::new(None::<String>);
    let slow_name = name.clone();
    // (Derived, not memoized: an answer is read once per threshold.)
    let slow_ms = StoredValue::new(0.0);
    let slow = Signal::derive(move || {
        let query = Query {
            name: Some(slow_name.clone()),
            fields: filters.clone(),
            ..Query::default()
        };
        let started = crate::clock::now_ms();
        let answer = slow_vs_typical(&details, &query, threshold.get()).map(Arc::new);
        slow_ms.set_value(crate::clock::now_ms() - started);
        answer
    });
    let pick = move || match Threshold::parse(&typed.get_untracked()) {
        Ok(t) => {
            threshold.set(t);
            problem.set(None);
        }
        Err(e) => problem.set(Some(e)),
    };
    view! {
        <div class="span-panel" data-testid="span-panel" data-name=name.clone()>
            <h3>{name.clone()}</h3>
            <div class="charts">{chart(format!("{name}: duration"), "span", summary.histogram.clone())}</div>
            <div class="field-grid">{fields}</div>
            {has_children.then(|| view! {
                <h4>"Child spans"</h4>
                <DataTable columns=&[("Span", ""), ("Instances", "num"), ("Time in all", "num")]>{children}</DataTable>
            })}
            {has_awaits.then(|| view! {
                <h4>"Async wait by await"</h4>
                <p class="muted">"What the task dumps taken inside these spans were awaiting, and the idle time after each dump until the span's end."</p>
                <DataTable columns=&[("Awaiting", ""), ("Task dumps", "num"), ("Idle after them", "num")]>{awaits}</DataTable>
            })}
            <h4>"Slowest instances"</h4>
            {instances(summary.exemplars.clone(), "exemplar")}
            <h4>"Slow versus typical"</h4>
            <form class="slow-pick" on:submit=move |ev| { ev.prevent_default(); pick() }>
                <label>
                    "Slow means over "
                    <input type="text" data-testid="slow-threshold" size="8" prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev)) />
                </label>
                {["p95", "p99", "p99.9"].map(|p| view! {
                    <button type="button" data-testid=format!("slow-{p}") on:click=move |_| { typed.set(p.into()); pick() }>{p}</button>
                })}
                <button type="submit">"Compare"</button>
            </form>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            {move || {
                let answer = match slow.get() {
                    Some(s) => slow_view(&s).into_any(),
                    None => view! { <p class="muted">"Nothing to compare."</p> }.into_any(),
                };
                view! { <div data-testid="slow-answer" data-slow-ms=format!("{:.2}", slow_ms.get_value())>{answer}</div> }
            }}
        </div>
    }
}

fn instances(list: Vec<Instance>, testid: &'static str) -> impl IntoView {
    let rows = list
        .into_iter()
        .map(|i| {
            let fields = i
                .fields
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let start = i.moment.start_ns.to_string();
            view! {
                <tr data-testid=testid data-dur=i.dur_ns.to_string() data-start=start>
                    <td class="num">{dur(i.dur_ns)}</td>
                    <td class="num">{i.task.to_string()}</td>
                    <td class="loc">{fields}</td>
                    <td>{show_on_timeline(Some(i.moment))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <DataTable columns=&[("Duration", "num"), ("Task", "num"), ("Fields", ""), ("", "")]>{rows}</DataTable>
    }
}

fn slow_view(s: &SlowVsTypical) -> impl IntoView + use<> {
    let lifts = s
        .fields
        .iter()
        .map(|l| {
            let lift = match l.lift.is_finite() {
                true => format!("×{:.1}", l.lift),
                false => "only slow".into(),
            };
            view! {
                <tr data-testid="slow-lift" data-field=l.field.clone() data-value=l.value.clone()>
                    <td class="loc">{format!("{} = {}", l.field, l.value)}</td>
                    <td class="num">{l.slow.to_string()}</td>
                    <td class="num">{l.typical.to_string()}</td>
                    <td class="num">{lift}</td>
                </tr>
            }
        })
        .collect_view();
    let blocking = s
        .blocking
        .iter()
        .map(|b| {
            view! {
                <tr data-testid="slow-blocking">
                    <td class="loc">{frame_text(&b.frame)}</td>
                    <td class="num">{b.count.to_string()}</td>
                    <td class="num">{dur(b.blocked_ns)}</td>
                </tr>
            }
        })
        .collect_view();
    let (parts, children) = (extra(&s.parts, "slow-part"), extra(&s.children, "slow-child"));
    let exemplars = instances(s.exemplars.clone(), "slow-exemplar");
    let columns: &'static [(&str, &str)] = &[
        ("", ""),
        ("Slow, mean", "num"),
        ("Typical, mean", "num"),
        ("Extra", "num"),
    ];
    view! {
        <div class="slow" data-testid="slow-vs-typical" data-slow=s.slow.to_string() data-typical=s.typical.to_string()>
            <p>
                {format!(
                    "{} slow instances (over {}) against {} typical: {} against {} on average.",
                    s.slow,
                    dur(s.threshold_ns),
                    s.typical,
                    dur(s.slow_mean_ns),
                    dur(s.typical_mean_ns)
                )}
            </p>
            <h4>"Where the extra time is"</h4>
            <DataTable columns=columns>{parts}{children}</DataTable>
            {(!s.fields.is_empty()).then(|| view! {
                <h4>"Field values over-represented among the slow"</h4>
                <DataTable columns=&[("Field value", ""), ("Slow", "num"), ("Typical", "num"), ("Lift", "num")]>{lifts}</DataTable>
            })}
            {(!s.blocking.is_empty()).then(|| view! {
                <h4>"Calls that blocked inside the slow instances"</h4>
                <DataTable columns=&[("Call", ""), ("Samples", "num"), ("Blocked", "num")]>{blocking}</DataTable>
            })}
            <h4>"Slowest"</h4>
            {exemplars}
            <FlamePanel profiles=s.slow_profiles.clone() before=s.typical_profiles.clone()
                title=("Slow versus typical: stacks".to_string(), "flame-slow") />
        </div>
    }
}

fn extra(list: &[Extra], testid: &'static str) -> impl IntoView + use<> {
    list.iter()
        .map(|e| {
            view! {
                <tr data-testid=testid data-name=e.name.clone() data-extra=e.extra_ns().to_string()>
                    <td class="loc">{e.name.clone()}</td>
                    <td class="num">{dur(e.slow_mean_ns)}</td>
                    <td class="num">{dur(e.typical_mean_ns)}</td>
                    <td class="num">{fmt_signed(e.extra_ns())}</td>
                </tr>
            }
        })
        .collect_view()
}

fn fmt_signed(ns: i64) -> String {
    match ns < 0 {
        true => format!("−{}", dur(ns.unsigned_abs())),
        false => format!("+{}", dur(ns as u64)),
    }
}
