//! A bucket in memory answering ListObjectsV2 the way S3 does: keys in byte
//! order, `prefix`, `delimiter` (keys below the next delimiter rolled up into
//! one common prefix), `max-keys` counting objects and common prefixes alike,
//! and continuation tokens. Answers are XML, read back by the real parser.

use d9lens_core::bucket::layout::{KeyDate, KeyTime};
use d9lens_core::s3::{ListObjectsV2, ListPage, parse_list_page};

pub struct Bucket {
    /// (key, size), sorted by key.
    objects: Vec<(String, u64)>,
}

impl Bucket {
    pub fn new(objects: impl IntoIterator<Item = (String, u64)>) -> Self {
        let mut objects: Vec<(String, u64)> = objects.into_iter().collect();
        objects.sort();
        objects.dedup_by(|a, b| a.0 == b.0);
        Self { objects }
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.objects.iter().map(|(k, _)| k.as_str())
    }

    /// The ListObjectsV2 answer, as S3 sends it.
    pub fn list_xml(&self, list: &ListObjectsV2) -> String {
        let prefix = list.prefix.as_str();
        let max_keys = usize::from(list.max_keys.unwrap_or(1000).clamp(1, 1000));
        // The token is the index of the first key not returned yet.
        let mut i = match &list.continuation_token {
            Some(token) => token.parse::<usize>().expect("a token of this bucket"),
            // S3 starts after `start-after` when it lies past the prefix.
            None => match list.start_after.as_deref().filter(|s| *s >= prefix) {
                Some(after) => self.objects.partition_point(|(k, _)| k.as_str() <= after),
                None => self.objects.partition_point(|(k, _)| k.as_str() < prefix),
            },
        };
        let below = |i: usize| self.objects.get(i).filter(|(k, _)| k.starts_with(prefix));
        let (mut contents, mut common) = (String::new(), String::new());
        let mut count = 0;
        while count < max_keys
            && let Some((key, size)) = below(i)
        {
            let rolled = list.delimiter.as_deref().and_then(|d| {
                key[prefix.len()..]
                    .find(d)
                    .map(|at| &key[..prefix.len() + at + d.len()])
            });
            match rolled {
                Some(cp) => {
                    common.push_str(&format!(
                        "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
                        escape(cp)
                    ));
                    while below(i).is_some_and(|(k, _)| k.starts_with(cp)) {
                        i += 1;
                    }
                }
                None => {
                    contents.push_str(&format!(
                        "<Contents><Key>{}</Key><LastModified>2026-12-01T10:00:00.000Z</LastModified>\
                         <Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                        escape(key)
                    ));
                    i += 1;
                }
            }
            count += 1;
        }
        let truncated = below(i).is_some();
        let token = if truncated {
            format!("<NextContinuationToken>{i}</NextContinuationToken>")
        } else {
            String::new()
        };
        let delimiter = list
            .delimiter
            .as_deref()
            .map_or(String::new(), |d| format!("<Delimiter>{}</Delimiter>", escape(d)));
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
             <Name>bucket</Name><Prefix>{}</Prefix>{delimiter}<KeyCount>{count}</KeyCount><MaxKeys>{max_keys}</MaxKeys>\
             <IsTruncated>{truncated}</IsTruncated>{token}{contents}{common}</ListBucketResult>",
            escape(prefix)
        )
    }

    pub fn list(&self, list: &ListObjectsV2) -> ListPage {
        parse_list_page(self.list_xml(list).as_bytes()).expect("a well-formed listing")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Segments per boot in [`hundred_thousand_keys`].
pub const PER_BOOT: u64 = 500;
/// 2026-11-30 20:00 UTC: the second boots run past midnight.
pub const T0: u64 = 1_795_996_800 + 20 * 3600;

/// 4 services × 25 hosts × 2 boots × 500 one-minute segments, minus 4 lost
/// ones, plus 4 junk objects: 100,000 (key, size). The first boot uses the v1
/// layout under `dial9-traces/`, the second the positional one.
pub fn hundred_thousand_keys() -> Vec<(String, u64)> {
    const SERVICES: u64 = 4;
    const HOSTS: u64 = 25;
    let mut keys = Vec::new();
    for s in 0..SERVICES {
        let svc = format!("svc{s}");
        keys.push((
            format!("dial9-traces/version=1/date=2026-11-30/service={svc}/_SUCCESS"),
            0,
        ));
        for h in 0..HOSTS {
            let instance = format!("ip-10-{s}-{}-{}", h % 5, h + 1);
            for boot in 0..2u64 {
                let first = T0 + h + boot * (PER_BOOT * 60 + 600);
                for i in 0..PER_BOOT {
                    if h == 0 && boot == 1 && i == 251 {
                        continue;
                    }
                    let start = first + i * 60;
                    let date = KeyDate::from_epoch_secs(start).unwrap();
                    let time = KeyTime::from_epoch_secs(start);
                    let key = if boot == 0 {
                        format!(
                            "dial9-traces/version=1/date={date}/service={svc}/time={time}/instance={instance}/boot=bta{}/{start}-{i}.bin.gz",
                            (b'a' + (h % 26) as u8) as char
                        )
                    } else {
                        format!(
                            "dial9-traces/{date}/{time}/{svc}/{instance}/btb{}-{h}/{start}-{i}.bin.gz",
                            (b'a' + s as u8) as char
                        )
                    };
                    let size = if i % 10 == 0 { 2_000_000 } else { 50_000 + i };
                    keys.push((key, size));
                }
            }
        }
    }
    assert_eq!(keys.len(), 100_000);
    keys
}
