//! Each span's parent: the one the recorder declared (`parent_span_id`), or
//! else the innermost span of the same task that encloses it, as `tracing`'s
//! contextual parent would be (dial9's layer leaves `parent_span_id` empty
//! for those). Chains are never followed further than `MAX_PARENT_DEPTH`:
//! a deeper one, or a cycle a crafted file declares, is cut and counted.

use super::detail::NONE;
use crate::hashing::FastMap;

/// Spans nested deeper than this are cut from their parent.
pub const MAX_PARENT_DEPTH: u32 = 64;

/// What `resolve` needs of a span.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    pub start: u64,
    pub end: u64,
    /// 0: not known.
    pub task: u64,
    /// The recorder's id of the span, and of its parent (0: none).
    pub span_id: u64,
    pub declared: u64,
    /// A single-event span (a metrique entry): on a tie it is the inner one.
    pub single: bool,
}

/// The parent of each node (an index, or `NONE`), and how many links were
/// cut. `nodes` are by start.
pub fn resolve(nodes: &[Node]) -> (Vec<u32>, u64) {
    let mut parent = vec![NONE; nodes.len()];
    // Declared parents: the span with that id open when the child started
    // (ids are reused once a span closes).
    let mut by_id: FastMap<u64, Vec<u32>> = FastMap::default();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.span_id != 0) {
        by_id.entry(n.span_id).or_default().push(i as u32);
    }
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.declared != 0) {
        let Some(candidates) = by_id.get(&n.declared) else {
            continue;
        };
        // The last one started at or before the child.
        let k = candidates.partition_point(|&c| nodes[c as usize].start <= n.start);
        if let Some(&c) = k.checked_sub(1).map(|k| &candidates[k])
            && c as usize != i
        {
            parent[i] = c;
        }
    }
    // The rest: the innermost enclosing span of the same task, by a sweep
    // over each task's spans (by start, the longer first on a tie, a
    // single-event span inside a span of the same bounds).
    let mut order: Vec<u32> = (0..nodes.len() as u32)
        .filter(|&i| nodes[i as usize].task != 0)
        .collect();
    order.sort_by_key(|&i| {
        let n = &nodes[i as usize];
        (n.task, n.start, std::cmp::Reverse(n.end), n.single, i)
    });
    let mut open: Vec<u32> = Vec::new();
    let mut task = 0;
    for &i in &order {
        let n = &nodes[i as usize];
        if n.task != task {
            open.clear();
            task = n.task;
        }
        while open
            .last()
            .is_some_and(|&o| nodes[o as usize].end < n.end || nodes[o as usize].end <= n.start)
        {
            open.pop();
        }
        if parent[i as usize] == NONE
            && let Some(&o) = open.last()
        {
            parent[i as usize] = o;
        }
        open.push(i);
    }
    let cut = cut_deep_chains(&mut parent);
    (parent, cut)
}

/// Cuts the link of any node more than `MAX_PARENT_DEPTH` links from a
/// root, or on a cycle; returns how many were cut. Each node walks up at
/// most that far, so the whole is linear in the nodes.
fn cut_deep_chains(parent: &mut [u32]) -> u64 {
    const UNKNOWN: u32 = u32::MAX;
    let mut depth = vec![UNKNOWN; parent.len()];
    let mut path: Vec<u32> = Vec::new();
    let mut cut = 0;
    for i in 0..parent.len() {
        if depth[i] != UNKNOWN {
            continue;
        }
        path.clear();
        let mut at = i as u32;
        // Walk up until a node of known depth, a root, or too far.
        let base = loop {
            if depth[at as usize] != UNKNOWN {
                break Some(depth[at as usize]);
            }
            if path.len() as u32 > MAX_PARENT_DEPTH {
                break None;
            }
            path.push(at);
            match parent[at as usize] {
                NONE => break Some(u32::MAX),
                p => at = p,
            }
        };
        match base {
            // `u32::MAX`: the last node of the path is a root.
            Some(d) => {
                let mut d = d;
                for &n in path.iter().rev() {
                    d = d.wrapping_add(1);
                    if d > MAX_PARENT_DEPTH {
                        parent[n as usize] = NONE;
                        cut += 1;
                        d = 0;
                    }
                    depth[n as usize] = d;
                }
            }
            // Too long or a cycle: this node starts afresh.
            None => {
                parent[i] = NONE;
                depth[i] = 0;
                cut += 1;
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(start: u64, end: u64, task: u64) -> Node {
        Node {
            start,
            end,
            task,
            span_id: 0,
            declared: 0,
            single: false,
        }
    }

    #[test]
    fn spans_of_a_task_nest_in_the_innermost_around_them() {
        let nodes = [
            node(0, 100, 1),  // request
            node(10, 20, 1),  // parse, in request
            node(15, 18, 1),  // in parse
            node(30, 90, 1),  // lookup, in request
            node(31, 40, 2),  // another task: a root
            node(95, 100, 1), // render, in request
            node(150, 160, 1),
        ];
        let (parent, cut) = resolve(&nodes);
        assert_eq!(parent, [NONE, 0, 1, 0, NONE, 0, NONE]);
        assert_eq!(cut, 0);
    }

    #[test]
    fn a_declared_parent_wins_and_ids_reused_find_the_open_one() {
        let mut nodes = vec![node(0, 10, 1), node(20, 30, 1), node(22, 25, 2)];
        nodes[0].span_id = 7;
        nodes[1].span_id = 7;
        nodes[2].declared = 7;
        let (parent, _) = resolve(&nodes);
        assert_eq!(parent, [NONE, NONE, 1]);
    }

    #[test]
    fn deep_chains_and_cycles_are_cut_and_counted() {
        // A 100,000-deep declared chain.
        let n = 100_000u64;
        let nodes: Vec<Node> = (0..n)
            .map(|i| Node {
                start: i,
                end: 2 * n - i,
                task: 0,
                span_id: i + 1,
                declared: i,
                single: false,
            })
            .collect();
        let (parent, cut) = resolve(&nodes);
        assert!(cut >= n / u64::from(MAX_PARENT_DEPTH + 1) - 1, "{cut}");
        // Every node is within the depth of a root.
        let depth = |mut i: usize| {
            let mut d = 0;
            while parent[i] != NONE {
                i = parent[i] as usize;
                d += 1;
                assert!(d <= MAX_PARENT_DEPTH);
            }
            d
        };
        assert!((0..n as usize).all(|i| depth(i) <= MAX_PARENT_DEPTH));
        // Two spans that declare each other.
        let mut pair = vec![node(0, 10, 0), node(0, 10, 0)];
        (pair[0].span_id, pair[0].declared) = (1, 2);
        (pair[1].span_id, pair[1].declared) = (2, 1);
        let (parent, cut) = resolve(&pair);
        assert_eq!(cut, 1);
        assert!(parent.contains(&NONE));
    }
}
