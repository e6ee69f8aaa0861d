//! Below the timeline: the selected poll in depth, and the brushed window's
//! report. Both are answered by a worker from the file (`analysis::inspect`).

use crate::page::flame::FlamePanel;
use crate::page::report::Lazy;
use crate::page::session::AppState;
use d9lens_core::analysis::diagnose::Target;
use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery, PollInspection};
use d9lens_core::analysis::zoom::Zoom;
use d9lens_core::analysis::{Merger, Options};
use d9lens_core::fmt::{fmt_dur, to_fixed};
use d9lens_core::report::{FileError, Profiles};
use d9lens_core::timeline::{PollRef, Scene};
use d9lens_core::trace::Window;
use leptos::prelude::*;
use std::sync::Arc;

#[derive(Clone)]
enum Asked<T> {
    Waiting,
    Answered(T),
    Failed(String),
}

/// Asks the worker about `file`; shows `waiting` until the answer, then
/// what `show` makes of it (`None`: the file no longer has what was asked).
fn ask<V: IntoView + 'static>(
    state: AppState,
    file: &str,
    query: InspectQuery,
    waiting: &'static str,
    show: fn(InspectAnswer) -> Option<V>,
) -> impl IntoView + use<V> {
    let answer = RwSignal::new(Asked::Waiting);
    state.inspect(file, query, move |a| {
        answer.set(match a {
            Ok(a) => Asked::Answered(a),
            Err(e) => Asked::Failed(e),
        })
    });
    move || match answer.get() {
        Asked::Waiting => view! { <p class="muted">{waiting}</p> }.into_any(),
        Asked::Failed(e) => view! { <p class="bad">{e}</p> }.into_any(),
        Asked::Answered(a) => match show(a) {
            Some(v) => v.into_any(),
            None => view! { <p class="muted">"The file has no answer to this any more."</p> }.into_any(),
        },
    }
}

#[component]
pub fn PollDetail(state: AppState, scene: Arc<Scene>, poll: PollRef) -> impl IntoView {
    let f = &scene.files[poll.file];
    let lane = &f.lanes[poll.lane];
    let task = lane.polls.task.get(poll.poll);
    let (start, dur) = (lane.polls.start(poll.poll), lane.polls.dur(poll.poll));
    let answer = ask(
        state,
        &f.file,
        InspectQuery::Poll {
            worker: lane.worker,
            start,
        },
        "Looking at the task and its samples…",
        |a| match a {
            InspectAnswer::Poll(p) => Some(inspection(*p)),
            _ => None,
        },
    );
    let head = format!(
        "Poll of {} · task {} · worker {}",
        fmt_dur(dur as f64),
        f.tasks.get(task as usize),
        lane.worker
    );
    let loc = f.task_loc(task).unwrap_or("(unknown spawn location)").to_string();
    let at = format!("{} after the start of {}", fmt_dur((start - f.start) as f64), f.file);
    view! {
        <div class="tl-detail" data-testid="poll-detail" data-task=f.tasks.get(task as usize).to_string() data-worker=lane.worker.to_string()>
            <h3>{head}</h3>
            <p><code class="loc" data-testid="poll-detail-loc">{loc}</code></p>
            <p class="muted">{at}</p>
            {answer}
        </div>
    }
}

fn inspection(p: PollInspection) -> impl IntoView {
    let h = p.history;
    let flame = |profiles: Profiles, what: String, testid: &'static str| {
        let profiles = Arc::new(profiles);
        let title = format!("Flamegraph of {what}");
        view! {
            <Lazy summary=format!("flamegraph of {what}") class="poll-flame">
                <FlamePanel profiles=profiles.clone() title=(title.clone(), testid) />
            </Lazy>
        }
    };
    let task_flame = flame(p.task_profile, format!("task {}'s polls", p.task_id), "task-flamegraph");
    let spawn_flame = p.spawn_profile.map(|s| {
        flame(
            s,
            "the polls of every task spawned there".to_string(),
            "spawn-flamegraph",
        )
    });
    let ms = |v: f64| format!("{} ms", to_fixed(v, 3));
    let life = format!(
        "spawned {} · {} · woken {} time(s) · polled {} time(s)",
        h.spawned_ms.map_or("before the trace".into(), ms),
        h.terminated_ms
            .map_or("still alive at the end".into(), |t| format!("ended {}", ms(t))),
        h.wake_count,
        h.poll_count
    );
    // Who woke it: trace strings (spawn locations) only ever as text nodes.
    let wakes = (!h.wakes.is_empty()).then(|| {
        let list = h
            .wakes
            .iter()
            .take(5)
            .map(|w| {
                let by = match (w.waker, &w.waker_spawn_loc) {
                    (Some(t), Some(loc)) => format!("by task {t} ({loc})"),
                    (Some(t), None) => format!("by task {t}"),
                    (None, _) => "by an unknown waker".to_string(),
                };
                view! { <li>{format!("woken {} {by}", ms(w.at_ms))}</li> }
            })
            .collect_view();
        view! {
            <div class="muted" data-testid="task-wakes">
                "Last wakes before this poll:"
                <ul>{list}</ul>
            </div>
        }
    });
    let polls = h
        .polls
        .into_iter()
        .map(|q| {
            let idle = q.idle_after_ns.map_or(String::new(), |ns| fmt_dur(ns as f64));
            // A trace's frame: a text node only.
            let awaiting = q.awaiting.unwrap_or_default();
            view! {
                <tr class:this=q.this>
                    <td class="num">{ms(q.start_ms)}</td>
                    <td class="num">{q.worker.to_string()}</td>
                    <td class="num">{fmt_dur(q.dur_ns as f64)}</td>
                    <td class="num">{idle}</td>
                    <td><code data-testid="awaiting">{awaiting}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p data-testid="task-history">{life}</p>
        {wakes}
        {p.diagnosis.map(diagnosis)}
        {task_flame}
        {spawn_flame}
        <details class="lazy">
            <summary>"The task's polls around this one, and what it awaited between them"</summary>
            <div class="table-wrap">
                <table class="data">
                    <thead><tr><th class="num">"At"</th><th class="num">"Worker"</th><th class="num">"Duration"</th><th class="num">"Then idle"</th><th>"Awaiting (task dump)"</th></tr></thead>
                    <tbody>{polls}</tbody>
                </table>
            </div>
        </details>
    }
}

fn diagnosis(t: Target) -> impl IntoView {
    let stacks = t
        .stacks
        .into_iter()
        .map(|s| {
            view! {
                <li>
                    <div class="muted">{format!("{} sample(s)", s.count)}</div>
                    <ol class="stack">{s.frames.into_iter().map(|f| view! { <li><code>{f}</code></li> }).collect_view()}</ol>
                </li>
            }
        })
        .collect_view();
    let samples = format!(
        "{} on-CPU and {} off-CPU sample(s) inside the poll",
        t.on_cpu_samples, t.sched_samples
    );
    view! {
        <div class="tl-diagnosis" data-testid="poll-diagnosis">
            <p><strong>"Diagnosis: "</strong>{t.verdict.as_str()}" · "{samples}</p>
            <ul class="tl-stacks">{stacks}</ul>
        </div>
    }
}

#[component]
pub fn WindowReport(state: AppState, scene: Arc<Scene>, window: (f64, f64)) -> impl IntoView {
    let (a, b) = window;
    // Every file with time in the window, each answered on its own.
    let files: Vec<usize> = (0..scene.files.len())
        .filter(|&f| {
            let m = scene.maps[f];
            let file = &scene.files[f];
            m.axis(file.start) <= b && m.axis(file.end) >= a
        })
        .collect();
    analyze_window(state, &scene, &files, window);
    let parts = files
        .into_iter()
        .map(|f| {
            let m = scene.maps[f];
            let name = scene.files[f].file.clone();
            let answer = ask(
                state,
                &name,
                InspectQuery::Window {
                    start: m.ts(a),
                    end: m.ts(b),
                },
                "Analyzing the window…",
                |a| match a {
                    InspectAnswer::Window(z) => Some(zoom_view(*z)),
                    _ => None,
                },
            );
            let title = name.clone();
            view! {
                <div class="tl-window-file" data-file=name>
                    <h4>{title}</h4>
                    {answer}
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="tl-detail" data-testid="window-report">
            <h3>{format!("The window {} – {} ({})", fmt_dur(a), fmt_dur(b), fmt_dur(b - a))}</h3>
            {parts}
        </div>
    }
}

/// Asks each file for the analysis of what started in the window; once all
/// have answered, their merged report is the one the page's sections show
/// (`AppState::window_report`), until the window is cleared or replaced.
fn analyze_window(state: AppState, scene: &Scene, files: &[usize], (a, b): (f64, f64)) {
    on_cleanup(move || {
        state.window_report.try_set(None);
    });
    if files.is_empty() {
        return;
    }
    let label = format!("window {} – {}", fmt_dur(a), fmt_dur(b));
    let names: Vec<String> = files.iter().map(|&f| scene.files[f].file.clone()).collect();
    let asks = files
        .iter()
        .zip(&names)
        .map(|(&f, name)| {
            let (m, start) = (scene.maps[f], scene.files[f].start);
            let window = Window::new(m.ts(a).saturating_sub(start), m.ts(b).saturating_sub(start));
            (name.clone(), InspectQuery::Analysis { window })
        })
        .collect();
    // Disposed with the window (cleared or replaced): a late answer is dropped.
    let current = StoredValue::new(());
    state.inspect_each(asks, move |answers| {
        if current.try_get_value().is_none() {
            return;
        }
        let mut merger = Merger::new(Options::default())
            .with_label(label)
            .with_files(names.clone());
        for (file, answer) in names.into_iter().zip(answers) {
            match answer {
                Ok(InspectAnswer::Analysis(partial)) => merger.add(*partial),
                Ok(_) => {}
                Err(message) => merger.add_error(FileError {
                    file,
                    offset: None,
                    message,
                }),
            }
        }
        state.window_report.try_set(Some(Arc::new(merger.into_report())));
    });
}

fn zoom_view(z: Zoom) -> impl IntoView {
    let long = z.polls.iter().filter(|p| p.long).count();
    let workers = z
        .workers
        .into_iter()
        .map(|w| {
            view! {
                <tr data-testid="window-worker" data-worker=w.worker.to_string() data-pct=to_fixed(w.pct, 1)>
                    <td class="num">{w.worker.to_string()}</td>
                    <td class="num">{format!("{} ms", to_fixed(w.busy_ms, 2))}</td>
                    <td class="num">{format!("{}%", to_fixed(w.pct, 1))}</td>
                </tr>
            }
        })
        .collect_view();
    let threads = z
        .threads
        .into_iter()
        .take(8)
        .map(|t| {
            view! {
                <tr>
                    <td class="num">{t.tid.to_string()}</td>
                    <td class="num">{t.worker.map_or("-".into(), |w| w.to_string())}</td>
                    <td class="num">{t.on_cpu.to_string()}</td>
                    <td class="num">{t.off_cpu.to_string()}</td>
                    <td><code>{t.top_leaf.unwrap_or_default()}</code></td>
                </tr>
            }
        })
        .collect_view();
    let longest = z.longest_poll.map(|l| {
        let spans: Vec<String> = l.spans.iter().map(|s| format!("{} ×{}", s.name, s.count)).collect();
        view! {
            <p>{format!(
                "Longest poll: {} on worker {} (task {}){}",
                fmt_dur(l.dur_ns as f64),
                l.worker,
                l.task_id,
                if spans.is_empty() { String::new() } else { format!(", spans: {}", spans.join(", ")) }
            )}</p>
        }
    });
    let queue = z.queue.map(
        |q| view! { <p class="muted">{format!("Global queue {}–{} over {} sample(s)", q.min, q.max, q.points)}</p> },
    );
    view! {
        <p data-testid="window-polls">{format!("{} poll(s), {long} over 1 ms", z.polls.len())}</p>
        {longest}
        {queue}
        <div class="table-wrap">
            <table class="data">
                <thead><tr><th class="num">"Worker"</th><th class="num">"Busy"</th><th class="num">"Busy %"</th></tr></thead>
                <tbody>{workers}</tbody>
            </table>
        </div>
        <details class="lazy">
            <summary>"Threads sampled in the window"</summary>
            <div class="table-wrap">
                <table class="data">
                    <thead><tr>
                        <th class="num">"Thread"</th><th class="num">"Worker"</th><th class="num">"On-CPU"</th>
                        <th class="num">"Off-CPU"</th><th>"Top leaf"</th>
                    </tr></thead>
                    <tbody>{threads}</tbody>
                </table>
            </div>
        </details>
    }
}
