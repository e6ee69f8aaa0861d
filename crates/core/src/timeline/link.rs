//! The timeline's part of the page's URL fragment: the view, the selected
//! poll and the brushed window, so a link reopens the same moment. It sits
//! beside whatever else the fragment holds (`s3&bucket=…`, `demo`), which
//! it leaves as it is; it never holds anything secret.

use crate::s3::encode::{form_decode, uri_encode};

const VIEW: &str = "tv";
const POLL: &str = "tp";
const WINDOW: &str = "tw";

/// A poll by file, worker and start (trace ns): stable across reloads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollLink {
    pub file: String,
    pub worker: u64,
    pub start: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimelineLink {
    /// The visible window, ns on the scene's axis.
    pub view: Option<(u64, u64)>,
    pub poll: Option<PollLink>,
    /// The brushed window whose report is shown, ns on the scene's axis.
    pub window: Option<(u64, u64)>,
}

fn pair(v: &str) -> Option<(u64, u64)> {
    let (a, b) = v.split_once('-')?;
    let (a, b) = (a.parse().ok()?, b.parse().ok()?);
    (a < b).then_some((a, b))
}

impl TimelineLink {
    /// Reads the timeline's keys of a fragment (with or without `#`).
    pub fn from_fragment(fragment: &str) -> TimelineLink {
        let mut link = TimelineLink::default();
        for part in fragment.trim_start_matches('#').split('&') {
            let Some((k, v)) = part.split_once('=') else { continue };
            let v = form_decode(v);
            match k {
                VIEW => link.view = pair(&v),
                WINDOW => link.window = pair(&v),
                POLL => {
                    // worker~start~file (the file last: it may hold `~`).
                    let mut it = v.splitn(3, '~');
                    let (w, s, f) = (it.next(), it.next(), it.next());
                    link.poll = match (w.and_then(|w| w.parse().ok()), s.and_then(|s| s.parse().ok()), f) {
                        (Some(worker), Some(start), Some(file)) if !file.is_empty() => Some(PollLink {
                            file: file.to_string(),
                            worker,
                            start,
                        }),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        link
    }

    /// `fragment` with its timeline keys replaced by this link's. Its first
    /// part says what the page shows (`s3`, `demo`, or nothing when it is
    /// empty or one of ours), so it stays first: a part behind it never moves
    /// up to take its place.
    pub fn apply(&self, fragment: &str) -> String {
        let ours = |p: &str| [VIEW, POLL, WINDOW].contains(&p.split_once('=').map_or(p, |kv| kv.0));
        let mut rest = fragment.trim_start_matches('#').split('&');
        let first = rest.next().filter(|p| !ours(p)).unwrap_or_default();
        let rest: Vec<&str> = rest.filter(|p| !p.is_empty() && !ours(p)).collect();
        let mut parts: Vec<String> = Vec::new();
        if !first.is_empty() || !rest.is_empty() {
            parts.push(first.to_string());
        }
        parts.extend(rest.into_iter().map(str::to_string));
        if let Some((a, b)) = self.view {
            parts.push(format!("{VIEW}={a}-{b}"));
        }
        if let Some(p) = &self.poll {
            let v = format!("{}~{}~{}", p.worker, p.start, p.file);
            parts.push(format!("{POLL}={}", uri_encode(&v, true)));
        }
        if let Some((a, b)) = self.window {
            parts.push(format!("{WINDOW}={a}-{b}"));
        }
        parts.join("&")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bucket::link::BucketLink;

    #[test]
    fn round_trips_beside_the_rest_of_the_fragment() {
        let link = TimelineLink {
            view: Some((1_000, 40_000_000)),
            poll: Some(PollLink {
                file: "dial9/2026-12-04/a~b&c=d.bin.gz".into(),
                worker: 1,
                start: 9_705_885_004,
            }),
            window: Some((5, 9)),
        };
        let fragment = link.apply("#s3&bucket=b&region=r&tv=1-2");
        assert!(
            fragment.starts_with("s3&bucket=b&region=r&tv=1000-40000000&tp="),
            "{fragment}"
        );
        assert_eq!(TimelineLink::from_fragment(&fragment), link);
        assert_eq!(TimelineLink::default().apply(&fragment), "s3&bucket=b&region=r");
    }

    #[test]
    fn a_rewrite_leaves_the_first_part_first() {
        let link = TimelineLink {
            view: Some((1, 2)),
            ..TimelineLink::default()
        };
        // The links fuzz target's find: a rewrite dropped an empty first
        // part, or one of its own keys, and `s3…` behind it moved up, so a
        // fragment that was no bucket's state became one.
        assert_eq!(link.apply("&s3&bucket=b"), "&s3&bucket=b&tv=1-2");
        assert_eq!(link.apply("#tv=5-6&s3&bucket=b"), "&s3&bucket=b&tv=1-2");
        assert_eq!(link.apply("&#tv=5-6"), "&#tv=5-6&tv=1-2");
        for fragment in ["&s3&bucket=b", "tv=5-6&s3&bucket=b", "&#tv=5-6", "demo&&tw=1-3&x"] {
            let rewritten = link.apply(fragment);
            assert_eq!(TimelineLink::from_fragment(&rewritten), link, "{rewritten}");
            assert_eq!(link.apply(&rewritten), rewritten);
            assert_eq!(
                BucketLink::from_fragment(&rewritten),
                BucketLink::from_fragment(fragment),
                "{rewritten}"
            );
        }
        // Nothing else in the fragment: only the timeline's keys.
        assert_eq!(link.apply(""), "tv=1-2");
        assert_eq!(link.apply("#tv=5-6&tw=1-9"), "tv=1-2");
        assert_eq!(TimelineLink::default().apply("tv=5-6"), "");
    }

    #[test]
    fn bad_values_read_as_absent() {
        let l = TimelineLink::from_fragment("demo&tv=9-3&tp=x~1~f&tw=1-&tp2=1");
        assert_eq!(l, TimelineLink::default());
    }
}
