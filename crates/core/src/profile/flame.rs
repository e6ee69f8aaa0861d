//! The flamegraph of a set of weighted stacks: a tree of frames, laid out in
//! pre-order so a subtree is one contiguous run of nodes (`end`), which makes
//! zooming, level of detail and search single loops. Built, ordered, searched
//! and sliced without recursion: a stack can be tens of thousands of frames
//! deep.

use super::labels::{Label, LabelId, Path, ROOT};
use crate::hashing::FastMap;
use std::sync::Arc;

/// Kernel addresses kept per `[kernel]` node for its tooltip.
pub const MAX_ADDRESSES: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub label: LabelId,
    /// Index of the parent node (the root is its own parent).
    pub parent: u32,
    pub depth: u32,
    /// One past the last node of this node's subtree.
    pub end: u32,
    /// Where the node starts, in weight from the left edge of the root.
    pub offset: u64,
    pub total: u64,
    pub self_weight: u64,
    /// A comparison's other side, through this node (0 outside comparisons).
    pub baseline: u64,
}

/// How children are laid out left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// By name, as flamegraph.pl and inferno do: the same frame sits at the
    /// same place in two graphs.
    #[default]
    Name,
    /// Heaviest first ("left heavy"); equals keep their first-seen order.
    Heaviest,
}

/// Stacks in, tree out.
#[derive(Default)]
pub struct Builder {
    nodes: Vec<TrieNode>,
    index: FastMap<(u32, LabelId), u32>,
    kernel: FastMap<u32, Vec<Arc<str>>>,
}

struct TrieNode {
    label: LabelId,
    parent: u32,
    total: u64,
    self_weight: u64,
    baseline: u64,
    children: Vec<u32>,
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            nodes: vec![TrieNode {
                label: ROOT,
                parent: 0,
                total: 0,
                self_weight: 0,
                baseline: 0,
                children: Vec::new(),
            }],
            index: FastMap::default(),
            kernel: FastMap::default(),
        }
    }

    /// One stack (root first) of `weight`; a zero weight adds nothing.
    pub fn add(&mut self, weight: u64, path: &Path) {
        if weight == 0 {
            return;
        }
        let mut kernel = path.kernel.iter().peekable();
        let mut at = 0u32;
        self.nodes[0].total += weight;
        for (i, &label) in path.labels.iter().enumerate() {
            at = self.child(at, label);
            self.nodes[at as usize].total += weight;
            if let Some((_, addrs)) = kernel.next_if(|(k, _)| *k == i) {
                let kept = self.kernel.entry(at).or_default();
                for a in addrs {
                    if kept.len() < MAX_ADDRESSES && !kept.contains(a) {
                        kept.push(a.clone());
                    }
                }
            }
        }
        self.nodes[at as usize].self_weight += weight;
    }

    /// One stack of the side a comparison is measured against: it weighs
    /// nothing in the layout (which is the other side's), only in `change`.
    pub fn add_baseline(&mut self, weight: u64, path: &Path) {
        let mut at = 0u32;
        self.nodes[0].baseline += weight;
        for &label in &path.labels {
            at = self.child(at, label);
            self.nodes[at as usize].baseline += weight;
        }
    }

    fn child(&mut self, parent: u32, label: LabelId) -> u32 {
        if let Some(&c) = self.index.get(&(parent, label)) {
            return c;
        }
        let c = self.nodes.len() as u32;
        self.nodes.push(TrieNode {
            label,
            parent,
            total: 0,
            self_weight: 0,
            baseline: 0,
            children: Vec::new(),
        });
        self.nodes[parent as usize].children.push(c);
        self.index.insert((parent, label), c);
        c
    }

    /// Lays the tree out in pre-order, children in `order`.
    pub fn finish(mut self, labels: Vec<Label>, order: Order) -> FlameGraph {
        let keys: Vec<(u64, LabelId)> = self.nodes.iter().map(|n| (n.total, n.label)).collect();
        for n in &mut self.nodes {
            match order {
                Order::Heaviest => n.children.sort_by_key(|&c| std::cmp::Reverse(keys[c as usize].0)),
                Order::Name => n.children.sort_by(|&a, &b| {
                    let text = |c: u32| &labels[keys[c as usize].1 as usize].text;
                    text(a).cmp(text(b))
                }),
            }
        }
        // Subtree sizes: a child is always created after its parent.
        let mut size = vec![1u32; self.nodes.len()];
        for i in (1..self.nodes.len()).rev() {
            let p = self.nodes[i].parent as usize;
            size[p] += size[i];
        }
        let mut out: Vec<Node> = Vec::with_capacity(self.nodes.len());
        let mut kernel = FastMap::default();
        // (trie node, parent's index in `out`, depth, offset)
        let mut stack = vec![(0u32, 0u32, 0u32, 0u64)];
        while let Some((t, parent, depth, offset)) = stack.pop() {
            let at = out.len() as u32;
            let n = &self.nodes[t as usize];
            out.push(Node {
                label: n.label,
                parent,
                depth,
                end: at + size[t as usize],
                offset,
                total: n.total,
                self_weight: n.self_weight,
                baseline: n.baseline,
            });
            if let Some(addrs) = self.kernel.remove(&t) {
                kernel.insert(at, addrs);
            }
            let mut x = offset + (n.total - n.self_weight);
            // Pushed last child first, so the first is laid out next.
            for &c in n.children.iter().rev() {
                let total = self.nodes[c as usize].total;
                x -= total;
                stack.push((c, at, depth + 1, x));
            }
        }
        FlameGraph {
            nodes: out,
            labels,
            kernel,
        }
    }
}

/// How a node of a differential flamegraph changed, as a share of all samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// The node's share of the baseline's samples.
    pub before: f64,
    /// Its share of the samples laid out.
    pub after: f64,
}

impl Change {
    /// Percentage points gained (negative: lost).
    pub fn points(&self) -> f64 {
        (self.after - self.before) * 100.0
    }
}

/// A laid-out flamegraph.
#[derive(Debug, Clone)]
pub struct FlameGraph {
    nodes: Vec<Node>,
    labels: Vec<Label>,
    kernel: FastMap<u32, Vec<Arc<str>>>,
}

/// What a search matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// Per node: its label contains the needle.
    pub hits: Vec<bool>,
    /// The weight of the stacks that hold a match (each counted once,
    /// however often the name recurs in it).
    pub weight: u64,
}

/// A node on screen: `x` and `width` in pixels, and its row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub node: u32,
    pub x: f64,
    pub width: f64,
    pub row: u32,
}

impl FlameGraph {
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    pub fn label(&self, i: u32) -> &Label {
        &self.labels[self.nodes[i as usize].label as usize]
    }

    /// In a differential graph (one with a baseline), how node `i` changed.
    pub fn change(&self, i: u32) -> Option<Change> {
        let root = &self.nodes[0];
        if root.baseline == 0 || root.total == 0 {
            return None;
        }
        let n = &self.nodes[i as usize];
        Some(Change {
            before: n.baseline as f64 / root.baseline as f64,
            after: n.total as f64 / root.total as f64,
        })
    }

    /// A `[kernel]` node's addresses (at most `MAX_ADDRESSES`).
    pub fn kernel_addresses(&self, i: u32) -> &[Arc<str>] {
        self.kernel.get(&i).map_or(&[], Vec::as_slice)
    }

    pub fn total(&self) -> u64 {
        self.nodes[0].total
    }

    pub fn max_depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }

    /// The root, …, `i`.
    pub fn ancestry(&self, i: u32) -> Vec<u32> {
        let mut out = vec![i];
        let mut at = i;
        while at != 0 {
            at = self.nodes[at as usize].parent;
            out.push(at);
        }
        out.reverse();
        out
    }

    pub fn first_child(&self, i: u32) -> Option<u32> {
        (i + 1 < self.nodes[i as usize].end).then_some(i + 1)
    }

    pub fn next_sibling(&self, i: u32) -> Option<u32> {
        let n = &self.nodes[i as usize];
        (i != 0 && n.end < self.nodes[n.parent as usize].end).then_some(n.end)
    }

    pub fn prev_sibling(&self, i: u32) -> Option<u32> {
        if i == 0 {
            return None;
        }
        let mut c = self.first_child(self.nodes[i as usize].parent)?;
        let mut prev = None;
        while c != i {
            prev = Some(c);
            c = self.next_sibling(c)?;
        }
        prev
    }

    /// Labels containing `needle`, ignoring ASCII case.
    pub fn search(&self, needle: &str) -> Search {
        let needle = needle.to_ascii_lowercase();
        let matching: Vec<bool> = self
            .labels
            .iter()
            .map(|l| !needle.is_empty() && l.text.to_ascii_lowercase().contains(&needle))
            .collect();
        let hits: Vec<bool> = self.nodes.iter().map(|n| matching[n.label as usize]).collect();
        let mut weight = 0;
        let mut covered = 0u32;
        for (i, n) in self.nodes.iter().enumerate().skip(1) {
            if hits[i] && i as u32 >= covered {
                weight += n.total;
                covered = n.end;
            }
        }
        Search { hits, weight }
    }

    /// The nodes to draw with `focus` filling `width` pixels: its nearest
    /// `ancestors` across the whole width above it, its subtree to scale, at
    /// most `rows` rows in all; a node narrower than `min_width` is left out
    /// with everything under it. Rows count from the top one drawn.
    pub fn rects(&self, focus: u32, width: f64, min_width: f64, ancestors: u32, rows: u32) -> Vec<Rect> {
        let f = &self.nodes[focus as usize];
        let top = f.depth.saturating_sub(ancestors);
        let last = top.saturating_add(rows);
        let mut out: Vec<Rect> = self
            .ancestry(focus)
            .into_iter()
            .skip(top as usize)
            .take((f.depth - top) as usize)
            .map(|a| Rect {
                node: a,
                x: 0.0,
                width,
                row: self.nodes[a as usize].depth - top,
            })
            .collect();
        if f.total == 0 {
            return out;
        }
        let scale = width / f.total as f64;
        let mut i = focus;
        while i < f.end {
            let n = &self.nodes[i as usize];
            let w = n.total as f64 * scale;
            if w < min_width || n.depth >= last {
                i = n.end;
                continue;
            }
            out.push(Rect {
                node: i,
                x: (n.offset - f.offset) as f64 * scale,
                width: w,
                row: n.depth - top,
            });
            i += 1;
        }
        out
    }

    /// The node drawn at (`x`, `row`) among `rects`.
    pub fn hit(rects: &[Rect], x: f64, row: u32) -> Option<u32> {
        rects
            .iter()
            .find(|r| r.row == row && x >= r.x && x < r.x + r.width)
            .map(|r| r.node)
    }

    /// The weighted stacks of the nodes labelled `label` (their outermost
    /// occurrences): callers (the function, then who called it, up to the
    /// root) and callees (the function's subtrees merged).
    pub fn sandwich(&self, label: LabelId, order: Order) -> (FlameGraph, FlameGraph) {
        let (mut callers, mut callees) = (Builder::new(), Builder::new());
        let mut covered = 0u32;
        let mut path = Path::default();
        for i in 1..self.nodes.len() as u32 {
            let n = self.nodes[i as usize];
            if n.label != label || i < covered {
                continue;
            }
            covered = n.end;
            path.labels.clear();
            let mut at = i;
            while at != 0 {
                path.labels.push(self.nodes[at as usize].label);
                at = self.nodes[at as usize].parent;
            }
            callers.add(n.total, &path);
            // Each node of the subtree with weight of its own: the labels
            // from the function down to it.
            let mut down: Vec<LabelId> = Vec::new();
            for j in i..n.end {
                let m = &self.nodes[j as usize];
                down.truncate((m.depth - n.depth) as usize);
                down.push(m.label);
                if m.self_weight > 0 {
                    path.labels.clone_from(&down);
                    callees.add(m.self_weight, &path);
                }
            }
        }
        (
            callers.finish(self.labels.clone(), order),
            callees.finish(self.labels.clone(), order),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::origin::Origin;

    /// Labels 0 (root), then one per letter.
    fn labels(names: &str) -> Vec<Label> {
        std::iter::once("all")
            .chain(names.split(' '))
            .map(|t| Label {
                text: Arc::from(t),
                origin: Origin::App,
            })
            .collect()
    }

    fn graph(stacks: &[(u64, &[u32])], order: Order) -> FlameGraph {
        let mut b = Builder::new();
        for &(w, s) in stacks {
            b.add(
                w,
                &Path {
                    labels: s.to_vec(),
                    kernel: Vec::new(),
                },
            );
        }
        b.finish(labels("main b a c"), order)
    }

    fn texts(g: &FlameGraph) -> Vec<String> {
        (0..g.nodes().len() as u32)
            .map(|i| format!("{}@{}+{}", g.label(i).text, g.node(i).offset, g.node(i).total))
            .collect()
    }

    #[test]
    fn lays_out_by_name_or_weight() {
        // main;b ×1, main;a ×3, main ×2 (self), main;a;c ×1
        let stacks: &[(u64, &[u32])] = &[(1, &[1, 2]), (3, &[1, 3]), (2, &[1]), (1, &[1, 3, 4])];
        let g = graph(stacks, Order::Name);
        assert_eq!(texts(&g), ["all@0+7", "main@0+7", "a@0+4", "c@0+1", "b@4+1"]);
        assert_eq!(g.node(1).self_weight, 2);
        assert_eq!(g.node(2).end, 4);
        let h = graph(&stacks[..2], Order::Heaviest);
        assert_eq!(texts(&h), ["all@0+4", "main@0+4", "a@0+3", "b@3+1"]);
        assert_eq!(g.ancestry(3), [0, 1, 2, 3]);
        assert_eq!(
            (g.first_child(1), g.next_sibling(2), g.prev_sibling(4)),
            (Some(2), Some(4), Some(2))
        );
        assert_eq!(g.next_sibling(4), None);
    }

    #[test]
    fn search_counts_each_stack_once() {
        // b recurses: main;b;b ×2, main;a;b ×1, main;a ×1
        let g = graph(&[(2, &[1, 2, 2]), (1, &[1, 3, 2]), (1, &[1, 3])], Order::Name);
        let s = g.search("B");
        assert_eq!(s.weight, 3);
        assert_eq!(s.hits.iter().filter(|&&h| h).count(), 3);
        assert_eq!(g.search("").weight, 0);
    }

    #[test]
    fn rects_skip_what_is_too_thin() {
        let g = graph(&[(999, &[1, 3]), (1, &[1, 2])], Order::Name);
        let r = g.rects(0, 100.0, 1.0, 8, 100);
        assert_eq!(r.iter().map(|r| r.node).collect::<Vec<_>>(), [0, 1, 2]);
        // Focused on `a`: root and main span the width above it.
        let r = g.rects(2, 100.0, 1.0, 8, 100);
        let got: Vec<(u32, f64, u32)> = r.iter().map(|r| (r.node, r.width, r.row)).collect();
        assert_eq!(got, [(0, 100.0, 0), (1, 100.0, 1), (2, 100.0, 2)]);
        assert_eq!(FlameGraph::hit(&r, 50.0, 1), Some(1));
        // One ancestor kept, two rows in all.
        let r = g.rects(2, 100.0, 1.0, 1, 2);
        let got: Vec<(u32, u32)> = r.iter().map(|r| (r.node, r.row)).collect();
        assert_eq!(got, [(1, 0), (2, 1)]);
        let r = g.rects(0, 100.0, 1.0, 1, 2);
        assert_eq!(r.iter().map(|r| r.node).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn sandwich_splits_callers_and_callees() {
        // main;a;c ×2, main;b;a ×1, main;b;a;a ×1 (recursion counted once)
        let g = graph(&[(2, &[1, 3, 4]), (1, &[1, 2, 3]), (1, &[1, 2, 3, 3])], Order::Name);
        let (callers, callees) = g.sandwich(3, Order::Name);
        assert_eq!(texts(&callers), ["all@0+4", "a@0+4", "b@0+2", "main@0+2", "main@2+2"]);
        assert_eq!(texts(&callees), ["all@0+4", "a@0+4", "a@0+1", "c@1+2"]);
    }

    #[test]
    fn a_baseline_changes_colours_not_layout() {
        let mut b = Builder::new();
        let path = |l: &[u32]| Path {
            labels: l.to_vec(),
            kernel: Vec::new(),
        };
        // After: main;a ×3, main;b ×1. Before: main;a ×1, main;b ×1, main;c ×2.
        b.add(3, &path(&[1, 3]));
        b.add(1, &path(&[1, 2]));
        b.add_baseline(1, &path(&[1, 3]));
        b.add_baseline(1, &path(&[1, 2]));
        b.add_baseline(2, &path(&[1, 4]));
        let g = b.finish(labels("main b a c"), Order::Name);
        assert_eq!(texts(&g), ["all@0+4", "main@0+4", "a@0+3", "b@3+1", "c@4+0"]);
        let a = g.change(2).unwrap();
        assert_eq!((a.before, a.after), (0.25, 0.75));
        assert!((a.points() - 50.0).abs() < 1e-9);
        assert_eq!(g.change(4).unwrap().after, 0.0);
        assert_eq!(graph(&[(1, &[1])], Order::Name).change(1), None);
        // Nothing of width 0 is drawn.
        assert!(g.rects(0, 100.0, 0.5, 8, 100).iter().all(|r| r.node != 4));
    }

    #[test]
    fn deep_stacks_need_no_recursion() {
        let deep: Vec<u32> = (0..200_000).map(|i| 1 + i % 4).collect();
        let g = graph(&[(1, &deep)], Order::Heaviest);
        assert_eq!(g.max_depth(), 200_000);
        assert_eq!(g.search("c").weight, 1);
        let (callers, _) = g.sandwich(4, Order::Name);
        assert_eq!(callers.total(), 1);
    }
}
