//! LONG POLLS (>1ms): polls that held a worker thread.

use super::stack::{headline, stack_view};
use super::widgets::{Lazy, Section, opt_loc, show_on_timeline};
use crate::page::flame::FlamePanel;
use d9lens_core::fmt::fmt_dur;
use d9lens_core::report::{LongPoll, Moment, Profiles, Report, Stack};
use leptos::prelude::*;
use std::sync::Arc;

/// How many long polls the table lists, as the text report does.
const SHOWN: usize = 10;
/// Samples of one kind listed per poll before "N more".
const SAMPLES_SHOWN: usize = 20;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let lp = &r.long_polls;
    let threshold = match lp.threshold_ns {
        0 => "1ms".to_string(),
        ns if ns % 1_000_000 == 0 => format!("{}ms", ns / 1_000_000),
        ns => fmt_dur(ns as f64),
    };
    let title_sub = format!("polls over {threshold}");
    let body = if lp.count == 0 {
        view! { <p class="ok">"None found"</p> }.into_any()
    } else {
        let shown: Vec<LongPoll> = lp.worst.iter().take(SHOWN).cloned().collect();
        view! {
            <div class="headline">
                <span class="big" data-testid="long-polls-count">{lp.count.to_string()}</span>
                <span>" long poll(s) — worst "</span>
                <span class="big" data-testid="long-polls-worst">{lp.worst_ns.map_or("n/a".into(), |w| fmt_dur(w as f64))}</span>
            </div>
            <p class="muted">{format!("Showing the worst {}, ranked by duration", shown.len())}</p>
            <div class="table-wrap">
                <table class="data long-polls">
                    <thead>
                        <tr>
                            <th class="num">"Duration"</th>
                            <th class="num">"Worker"</th>
                            <th class="num">"At"</th>
                            <th class="num">"Task"</th>
                            <th>"Spawn location"</th>
                            <th class="num">"Sched samples"</th>
                            <th class="num">"CPU samples"</th>
                            <th>"File"</th>
                            <th><span class="visually-hidden">"Timeline"</span></th>
                        </tr>
                    </thead>
                    {shown.into_iter().map(poll_rows).collect_view()}
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        <Section title="Long polls" testid="section-long-polls" subtitle=title_sub>
            {body}
        </Section>
    }
}

fn poll_rows(p: LongPoll) -> impl IntoView {
    let has_samples = !p.sched_samples.is_empty() || !p.cpu_samples.is_empty();
    let moment = Moment::from(&p);
    let sched = p.sched_samples;
    let cpu = p.cpu_samples;
    let (n_sched, n_cpu) = (sched.len(), cpu.len());
    let (flame_sched, flame_cpu, dur) = (sched.clone(), cpu.clone(), p.dur_ns);
    view! {
        <tbody class="poll">
            <tr data-testid="long-poll-row">
                <td class="num strong">{fmt_dur(p.dur_ns as f64)}</td>
                <td class="num">{p.worker.to_string()}</td>
                <td class="num">{fmt_dur(p.start_offset_ns as f64)}</td>
                <td class="num">{p.task_id.to_string()}</td>
                <td class="loc">{opt_loc(&p.spawn_loc)}</td>
                <td class="num">{n_sched.to_string()}</td>
                <td class="num">{n_cpu.to_string()}</td>
                <td class="file">{p.file.clone()}</td>
                <td>{show_on_timeline(Some(moment))}</td>
            </tr>
            <tr class="poll-detail">
                <td colspan="9">
                    {if has_samples {
                        view! {
                            <div class="sample-groups">
                                <Lazy summary="flamegraph of these samples".to_string() class="poll-flame">
                                    <FlamePanel
                                        profiles=Arc::new(Profiles::from_samples(&flame_cpu, &flame_sched))
                                        title=(format!("Flamegraph of the {} poll's samples", fmt_dur(dur as f64)), "poll-flamegraph")
                                    />
                                </Lazy>
                                {samples_view("scheduling (off-CPU) sample", "blocking call stack", sched)}
                                {samples_view("CPU sample", "on-CPU stack", cpu)}
                            </div>
                        }
                            .into_any()
                    } else {
                        view! { <span class="muted">"(no profiling samples captured during this poll)"</span> }.into_any()
                    }}
                </td>
            </tr>
        </tbody>
    }
}

fn samples_view(kind: &'static str, what: &'static str, samples: Vec<Stack>) -> impl IntoView {
    (!samples.is_empty()).then(|| {
        let total = samples.len();
        let shown: Vec<Stack> = samples.into_iter().take(SAMPLES_SHOWN).collect();
        let more = total - shown.len();
        view! {
            <div class="sample-group">
                <div class="sample-kind">{format!("{total} {kind}(s) — {what}s")}</div>
                {shown
                    .into_iter()
                    .map(|frames| {
                        let summary = headline(&frames);
                        view! {
                            <Lazy summary=summary class="stack-details">
                                {stack_view(&frames)}
                            </Lazy>
                        }
                    })
                    .collect_view()}
                {(more > 0).then(|| view! { <p class="muted">{format!("… {more} more")}</p> })}
            </div>
        }
    })
}
