//! CPU HOTSPOTS (on-CPU samples): the application call tree and top stacks.

use super::stack::stack_groups;
use super::widgets::{Lazy, Section, bar};
use d9lens_core::fmt::pct;
use d9lens_core::report::{HotspotRow, Report};
use leptos::prelude::*;

/// Levels of the tree open at first.
const OPEN_DEPTH: usize = 2;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let h = &r.cpu_hotspots;
    (h.samples > 0).then(|| {
        let total = h.samples;
        let tree = nest(&h.tree);
        let top = h.top_stacks.clone();
        view! {
            <Section title="CPU hotspots" testid="section-cpu-hotspots" subtitle=format!("{} CPU sample(s)", total)>
                {(!tree.is_empty())
                    .then(|| {
                        view! {
                            <h3>"Call tree (application frames, outermost first)"</h3>
                            <p class="muted">
                                "Frames under 1% of samples are hidden; straight call chains are folded — open them to see every frame."
                            </p>
                            <div class="tree">
                                {visible(&tree, total).into_iter().map(|n| node_view(n, total, 0)).collect_view()}
                            </div>
                        }
                    })}
                {(!top.is_empty())
                    .then(|| {
                        view! {
                            <h3>"Top stacks"</h3>
                            {stack_groups(top, total)}
                        }
                    })}
            </Section>
        }
    })
}

/// A call-tree node rebuilt from the report's flat depth-first rows.
struct HotspotNode {
    name: String,
    count: u64,
    self_count: u64,
    children: Vec<HotspotNode>,
}

/// Rows are depth-first: each row's children are the following rows one level deeper.
fn nest(rows: &[HotspotRow]) -> Vec<HotspotNode> {
    fn take(rows: &[HotspotRow], i: &mut usize, depth: u32) -> Vec<HotspotNode> {
        let mut out = Vec::new();
        while let Some(r) = rows.get(*i).filter(|r| r.depth == depth) {
            *i += 1;
            let children = take(rows, i, depth + 1);
            out.push(HotspotNode {
                name: r.name.clone(),
                count: r.count,
                self_count: r.self_count,
                children,
            });
        }
        out
    }
    take(rows, &mut 0, 0)
}

/// Children shown: at least 1% of all samples, biggest first (stable).
fn visible(nodes: &[HotspotNode], total: u64) -> Vec<&HotspotNode> {
    let mut out: Vec<&HotspotNode> = nodes
        .iter()
        .filter(|n| n.count as f64 / total as f64 * 100.0 >= 1.0)
        .collect();
    out.sort_by_key(|n| std::cmp::Reverse(n.count));
    out
}

fn node_view(node: &HotspotNode, total: u64, depth: usize) -> AnyView {
    // Fold a straight chain (one visible child carrying every sample, no self time).
    let mut chain = vec![node.name.clone()];
    let mut cur = node;
    loop {
        let kids = visible(&cur.children, total);
        if cur.self_count == 0 && kids.len() == 1 && kids[0].count == cur.count {
            cur = kids[0];
            chain.push(cur.name.clone());
        } else {
            break;
        }
    }
    let share = cur.count as f64 / total as f64 * 100.0;
    let self_text = (cur.self_count > 0).then(|| format!("self {}", cur.self_count));
    let folded = chain.len() - 1;
    let row = view! {
        <span class="node-row">
            <span class="node-count">{format!("{} ({}%)", cur.count, pct(cur.count as f64, total as f64, 1))}</span>
            {bar(share)}
            <span class="node-name">{cur.name.clone()}</span>
            {self_text.map(|s| view! { <span class="chip">{s}</span> })}
        </span>
    };
    let chain_view = (folded > 0).then(|| {
        let chain = chain.clone();
        view! {
            <Lazy summary=format!("via {folded} caller frame(s)") class="chain">
                <ol class="stack outer-first">
                    {chain.iter().map(|n| view! { <li><span class="frame">{n.clone()}</span></li> }).collect_view()}
                </ol>
            </Lazy>
        }
    });
    let kids = visible(&cur.children, total);
    if kids.is_empty() {
        view! { <div class="node leaf">{row} {chain_view}</div> }.into_any()
    } else {
        let children: Vec<AnyView> = kids.into_iter().map(|k| node_view(k, total, depth + 1)).collect();
        view! {
            <details class="node" open=depth < OPEN_DEPTH>
                <summary>{row}</summary>
                {chain_view}
                <div class="node-children">{children}</div>
            </details>
        }
        .into_any()
    }
}
