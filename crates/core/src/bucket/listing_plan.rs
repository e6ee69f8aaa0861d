//! Which ListObjectsV2 requests find what a bucket holds: a walk of dial9's
//! partitions with delimiter listings, as values, fed back the parsed pages.
//!
//! One listing pages sequentially (each page needs the previous page's token),
//! so listing a big bucket in one go is as slow as its page count. The walk
//! splits the bucket into partitions that list independently, several at once:
//!
//! ```text
//! {start}                    delimiter   find version=1/ and YYYY-MM-DD/ (a few levels down)
//! …/version=1/               delimiter   its date=D/
//! …/version=1/date=D/        delimiter   its service=S/ (and objects such as _SUCCESS)
//! …/service=S/               delimiter   its time=HHMM/, grouped by hour
//! …/service=S/time=HH        flat        one hour of one service (time=HH00 … time=HH59)
//! …/YYYY-MM-DD/              delimiter   its HHMM/, grouped by hour
//! …/YYYY-MM-DD/HH            flat        one hour of every positional service
//! anything else              flat        kept visible, up to `max_other_objects`
//! ```
//!
//! A [`Scope`] narrows the walk: the shape alone (the delimiter levels and
//! the newest day's minutes), or a time window (only the days, hours and
//! 10-minute blocks it touches; an hour over one page goes on in blocks at
//! once). Changing the scope plans what the new one adds, nothing twice.
//!
//! Every object of every page is the caller's to catalogue; the plan only
//! decides what to list next and counts. Caps never cut silently: a
//! partition left out (or listed only in part) is in [`ListingPlan::not_listed`]
//! with the reason.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::layout::{KeyDate, KeyTime, decode_partition_value};
use super::scope::{HourParts, Scope, Shape, minute_start};
use crate::s3::listing::ListPage;
use crate::s3::request::ListObjectsV2;

/// Listings in flight at once: what a browser sends in parallel to one host
/// over HTTP/1.1; more would only queue in the browser.
pub const DEFAULT_CONCURRENCY: usize = 6;
/// Partitions listed at most (dial9's viewer caps its fan-out at 2,000 prefixes).
pub const DEFAULT_MAX_PARTITIONS: usize = 2_000;
/// Objects listed at most, so a huge bucket cannot exhaust the page's memory.
pub const DEFAULT_MAX_OBJECTS: u64 = 200_000;
/// Objects listed at most from one prefix outside the layout (not segments).
pub const DEFAULT_MAX_OTHER_OBJECTS: u64 = 10_000;
/// Folder levels below the start searched for a layout before listing flat.
pub const DEFAULT_SEARCH_DEPTH: usize = 3;
/// Not-listed partitions a [`ListingProgress`] names (the count covers all).
pub const PROGRESS_NOT_LISTED: usize = 50;

const DELIMITER: &str = "/";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingLimits {
    pub concurrency: usize,
    pub max_partitions: usize,
    pub max_objects: u64,
    pub max_other_objects: u64,
    pub search_depth: usize,
    /// ListObjectsV2 `max-keys` (`None`: S3's 1,000).
    pub page_size: Option<u16>,
}

impl Default for ListingLimits {
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            max_partitions: DEFAULT_MAX_PARTITIONS,
            max_objects: DEFAULT_MAX_OBJECTS,
            max_other_objects: DEFAULT_MAX_OTHER_OBJECTS,
            search_depth: DEFAULT_SEARCH_DEPTH,
            page_size: None,
        }
    }
}

/// A request to send: answer it with [`ListingPlan::on_page`] or [`ListingPlan::on_failed`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListRequest {
    pub id: u32,
    pub list: ListObjectsV2,
}

/// A prefix the walk did not list, or listed only in part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotListed {
    pub prefix: String,
    /// Objects of it that were listed before it stopped (0: none).
    pub objects_listed: u64,
    pub reason: NotListedReason,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum NotListedReason {
    /// The walk reached its object cap.
    ObjectCap { max_objects: u64 },
    /// The walk reached its partition budget.
    PartitionBudget { max_partitions: usize },
    /// A prefix outside the layout held more objects than are listed of one.
    OtherCap { max_other_objects: u64 },
    /// Its listing failed (the message names the cause, never a credential).
    Failed { message: String },
}

impl fmt::Display for NotListed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.prefix.is_empty() {
            "(bucket root)"
        } else {
            &self.prefix
        };
        let part = match self.objects_listed {
            0 => "not listed".to_owned(),
            n => format!("listed only in part ({n} objects)"),
        };
        let why = match &self.reason {
            NotListedReason::ObjectCap { max_objects } => format!("the listing stopped at {max_objects} objects"),
            NotListedReason::PartitionBudget { max_partitions } => {
                format!("the listing stops after {max_partitions} prefixes")
            }
            NotListedReason::OtherCap { max_other_objects } => {
                format!("at most {max_other_objects} objects are listed from a prefix outside the trace layout")
            }
            NotListedReason::Failed { message } => format!("its listing failed: {message}"),
        };
        write!(f, "{prefix}: {part}, {why}")
    }
}

/// Where the walk stands, for a progress line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingProgress {
    /// Partitions planned so far (listed, listing, waiting).
    pub partitions: usize,
    /// Partitions listed to their last page.
    pub partitions_listed: usize,
    pub in_flight: usize,
    pub pages: u64,
    /// Objects in the pages so far (overlapping prefixes may repeat one).
    pub objects: u64,
    pub done: bool,
    pub not_listed_count: usize,
    /// The first [`PROGRESS_NOT_LISTED`] of [`ListingPlan::not_listed`].
    pub not_listed: Vec<NotListed>,
}

impl ListingProgress {
    /// One sentence saying what a cap left out; `None` when nothing was.
    pub fn truncation_note(&self) -> Option<String> {
        let n = self.not_listed_count;
        (n > 0).then(|| {
            format!(
                "{n} prefix{} of the bucket {} not listed completely, so the summary leaves out what {} hold{}: \
                 narrow the prefix to see {}.",
                if n == 1 { "" } else { "es" },
                if n == 1 { "was" } else { "were" },
                if n == 1 { "it" } else { "they" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "it" } else { "them" },
            )
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// An answer to a request the plan is not waiting for.
    UnknownRequest(u32),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownRequest(id) => write!(f, "no listing request {id} is waiting for an answer"),
        }
    }
}

impl std::error::Error for PlanError {}

/// What the children of a delimiter listing are, or a flat listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Level {
    /// Not in a layout yet: `depth` folder levels below the start.
    Search {
        depth: usize,
    },
    V1Root,
    V1Date,
    V1Service,
    PositionalDate,
    /// Every key below; `other`: outside the layout, capped.
    Flat {
        other: bool,
    },
}

impl Level {
    fn delimited(self) -> bool {
        !matches!(self, Level::Flat { .. })
    }

    /// The level of a folder (`""` or ending in `/`) from its components.
    fn of_folder(folder: &str) -> Level {
        let components: Vec<&str> = folder.split('/').filter(|c| !c.is_empty()).collect();
        let below = |i: usize| &components[i + 1..];
        if let Some(i) = components.iter().rposition(|c| *c == "version=1") {
            return match below(i) {
                [] => Level::V1Root,
                [date] if v1_date(date) => Level::V1Date,
                [date, service] if v1_date(date) && v1_service(service) => Level::V1Service,
                [date, service, ..] if v1_date(date) && v1_service(service) => Level::Flat { other: false },
                _ => Level::Flat { other: true },
            };
        }
        if components.iter().any(|c| c.starts_with("version=")) {
            return Level::Flat { other: true };
        }
        match components.iter().rposition(|c| KeyDate::parse(c).is_some()) {
            Some(i) if below(i).is_empty() => Level::PositionalDate,
            Some(_) => Level::Flat { other: false },
            None => Level::Search { depth: 0 },
        }
    }
}

fn v1_date(component: &str) -> bool {
    v1_day(component).is_some()
}

fn v1_service(component: &str) -> bool {
    component.strip_prefix("service=").is_some_and(|s| !s.is_empty())
}

/// `(folder, last component)` of a common prefix such as `a/b/c/`: `("a/b/", "c")`.
fn split_child(child: &str) -> (&str, &str) {
    let dir = child.strip_suffix('/').unwrap_or(child);
    match dir.rfind('/') {
        Some(i) => (&child[..=i], &dir[i + 1..]),
        None => ("", dir),
    }
}

#[derive(Debug, Clone)]
struct Partition {
    prefix: String,
    level: Level,
    objects: u64,
    pages: u64,
    /// Every continuation token its pages gave: one given again is a loop
    /// (A → B → A as much as A → A).
    tokens: HashSet<String>,
    /// Common prefixes of its delimiter listing so far, planned once it is
    /// complete (and again when the scope changes).
    children: Vec<String>,
    complete: bool,
    /// Where its first page starts (a block going on from an hour's page).
    start_after: Option<String>,
    /// It lists one whole hour (`…time=HH`, `…/YYYY-MM-DD/HH`).
    whole_hour: bool,
}

/// The walk over one bucket (or one prefix of it). Feed it every answer to
/// the requests it hands out; it is done when [`ListingPlan::is_done`].
#[derive(Debug, Clone)]
pub struct ListingPlan {
    limits: ListingLimits,
    partitions: Vec<Partition>,
    /// Partitions whose next page may be requested, with the token to continue from.
    ready: VecDeque<(usize, Option<String>)>,
    in_flight: BTreeMap<u32, usize>,
    next_id: u32,
    /// (prefix, delimited) of every partition planned: overlapping children are listed once.
    planned: HashSet<(String, bool)>,
    objects: u64,
    pages: u64,
    listed: usize,
    stopped: bool,
    not_listed: Vec<NotListed>,
    scope: Scope,
    shape: Shape,
    /// Each v1 root's newest day (the shape lists its services' minutes).
    newest_days: HashMap<String, KeyDate>,
}

impl ListingPlan {
    /// The walk of everything under `prefix` (`""`: the whole bucket). A
    /// prefix may end mid-component (`…/service=pay`): its children are read
    /// as its folder's.
    pub fn new(prefix: &str, limits: ListingLimits) -> Self {
        Self::scoped(prefix, limits, Scope::Everything)
    }

    /// The walk of what `scope` needs under `prefix`.
    pub fn scoped(prefix: &str, limits: ListingLimits, scope: Scope) -> Self {
        let limits = ListingLimits {
            concurrency: limits.concurrency.max(1),
            max_partitions: limits.max_partitions.max(1),
            ..limits
        };
        let mut plan = Self {
            limits,
            partitions: Vec::new(),
            ready: VecDeque::new(),
            in_flight: BTreeMap::new(),
            next_id: 0,
            planned: HashSet::new(),
            objects: 0,
            pages: 0,
            listed: 0,
            stopped: false,
            not_listed: Vec::new(),
            scope,
            shape: Shape::default(),
            newest_days: HashMap::new(),
        };
        let folder = &prefix[..prefix.rfind('/').map_or(0, |i| i + 1)];
        plan.add(prefix.to_owned(), Level::of_folder(folder));
        plan
    }

    pub fn limits(&self) -> &ListingLimits {
        &self.limits
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// What the listings so far say of the bucket's shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Goes on with another scope (the shape, then a window, then a wider
    /// one): what it needs below the delimiter listings already done is
    /// planned; a partition already listed is not listed again.
    pub fn set_scope(&mut self, scope: Scope) {
        self.scope = scope;
        for index in 0..self.partitions.len() {
            if self.partitions[index].complete && self.partitions[index].level.delimited() {
                self.plan_children(index);
            }
        }
    }

    /// The next request to send, while fewer than `concurrency` are in flight.
    pub fn next_request(&mut self) -> Option<ListRequest> {
        if self.in_flight.len() >= self.limits.concurrency {
            return None;
        }
        let (index, token) = self.ready.pop_front()?;
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.in_flight.insert(id, index);
        let partition = &self.partitions[index];
        Some(ListRequest {
            id,
            list: ListObjectsV2 {
                prefix: partition.prefix.clone(),
                delimiter: partition.level.delimited().then(|| DELIMITER.to_owned()),
                start_after: if token.is_none() {
                    partition.start_after.clone()
                } else {
                    None
                },
                continuation_token: token,
                max_keys: self.limits.page_size,
            },
        })
    }

    /// Every request that may be sent now.
    pub fn next_requests(&mut self) -> Vec<ListRequest> {
        std::iter::from_fn(|| self.next_request()).collect()
    }

    /// The answer to request `id`. Its objects are the caller's to catalogue.
    pub fn on_page(&mut self, id: u32, page: &ListPage) -> Result<(), PlanError> {
        let index = self.in_flight.remove(&id).ok_or(PlanError::UnknownRequest(id))?;
        let found = page.contents.len() as u64;
        self.pages += 1;
        self.objects += found;
        let limits = self.limits;
        let partition = &mut self.partitions[index];
        partition.pages += 1;
        partition.objects += found;
        if partition.level.delimited() {
            // Only what lies below the prefix: anything else would widen the walk.
            let below = |c: &&String| c.len() > partition.prefix.len() && c.starts_with(&partition.prefix);
            partition
                .children
                .extend(page.common_prefixes.iter().filter(below).cloned());
        }
        let other_full =
            partition.level == Level::Flat { other: true } && partition.objects >= limits.max_other_objects;
        if self.objects >= limits.max_objects {
            self.stop();
        }
        let partition = &mut self.partitions[index];
        if let (Some(_), Some(last)) = (&page.next_continuation_token, page.contents.last())
            && partition.whole_hour
            && self.scope.splits_hours()
            && !self.stopped
            && let Some(block) = block_of(&partition.prefix, &last.key)
        {
            // The rest of the hour in its 10-minute blocks, at once.
            partition.complete = true;
            self.listed += 1;
            let prefix = partition.prefix.clone();
            self.add_block(&prefix, block, Some(last.key.clone()));
            for b in block + 1..6 {
                self.add_block(&prefix, b, None);
            }
            return Ok(());
        }
        match page.next_continuation_token.clone() {
            Some(_) if self.stopped => self.give_up(
                index,
                NotListedReason::ObjectCap {
                    max_objects: limits.max_objects,
                },
            ),
            Some(token) if partition.tokens.contains(&token) => self.give_up(
                index,
                NotListedReason::Failed {
                    message: "the server returned a continuation token it had given before (a listing loop)".into(),
                },
            ),
            Some(_) if other_full => self.give_up(
                index,
                NotListedReason::OtherCap {
                    max_other_objects: limits.max_other_objects,
                },
            ),
            Some(token) => {
                partition.tokens.insert(token.clone());
                self.ready.push_back((index, Some(token)));
            }
            None => {
                self.listed += 1;
                partition.complete = true;
                self.plan_children(index);
            }
        }
        Ok(())
    }

    /// Request `id` failed for good (`message` says why, for the user).
    pub fn on_failed(&mut self, id: u32, message: &str) -> Result<(), PlanError> {
        let index = self.in_flight.remove(&id).ok_or(PlanError::UnknownRequest(id))?;
        self.give_up(
            index,
            NotListedReason::Failed {
                message: message.to_owned(),
            },
        );
        Ok(())
    }

    /// Nothing in flight and nothing left to request.
    pub fn is_done(&self) -> bool {
        self.in_flight.is_empty() && self.ready.is_empty()
    }

    /// Every prefix left out or listed in part, in the order it happened.
    pub fn not_listed(&self) -> &[NotListed] {
        &self.not_listed
    }

    pub fn progress(&self) -> ListingProgress {
        ListingProgress {
            partitions: self.partitions.len(),
            partitions_listed: self.listed,
            in_flight: self.in_flight.len(),
            pages: self.pages,
            objects: self.objects,
            done: self.is_done(),
            not_listed_count: self.not_listed.len(),
            not_listed: self.not_listed.iter().take(PROGRESS_NOT_LISTED).cloned().collect(),
        }
    }

    /// Plans `prefix` unless it is planned already or a cap forbids it.
    fn add(&mut self, prefix: String, level: Level) {
        self.add_from(prefix, level, None);
    }

    /// The 10-minute block `block` of the whole-hour prefix `hour`.
    fn add_block(&mut self, hour: &str, block: u8, start_after: Option<String>) {
        self.add_from(format!("{hour}{block}"), Level::Flat { other: false }, start_after);
    }

    /// `add`, the first page starting after `start_after`: whether it was planned.
    fn add_from(&mut self, prefix: String, level: Level, start_after: Option<String>) -> bool {
        if !self.planned.insert((prefix.clone(), level.delimited())) {
            return false;
        }
        let reason = if self.stopped {
            NotListedReason::ObjectCap {
                max_objects: self.limits.max_objects,
            }
        } else if self.partitions.len() >= self.limits.max_partitions {
            NotListedReason::PartitionBudget {
                max_partitions: self.limits.max_partitions,
            }
        } else {
            self.ready.push_back((self.partitions.len(), None));
            self.partitions.push(Partition {
                prefix,
                level,
                objects: 0,
                pages: 0,
                tokens: HashSet::new(),
                children: Vec::new(),
                complete: false,
                start_after,
                whole_hour: false,
            });
            return true;
        };
        self.not_listed.push(NotListed {
            prefix,
            objects_listed: 0,
            reason,
        });
        false
    }

    /// Stops listing `index` (what is below it is covered by its entry).
    fn give_up(&mut self, index: usize, reason: NotListedReason) {
        let partition = &mut self.partitions[index];
        partition.children.clear();
        self.not_listed.push(NotListed {
            prefix: partition.prefix.clone(),
            objects_listed: partition.objects,
            reason,
        });
    }

    /// The object cap is reached: nothing more is requested.
    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let reason = NotListedReason::ObjectCap {
            max_objects: self.limits.max_objects,
        };
        for (index, _) in std::mem::take(&mut self.ready) {
            self.give_up(index, reason.clone());
        }
    }

    /// The children of a completed delimiter listing, by what its level and
    /// the scope make of them.
    fn plan_children(&mut self, index: usize) {
        let parent = &self.partitions[index];
        let (level, parent_prefix) = (parent.level, parent.prefix.clone());
        let children = parent.children.clone();
        let other = Level::Flat { other: true };
        // Outside the layout nothing is dated: only the full walk lists it.
        let everything = self.scope == Scope::Everything;
        let shape = self.scope == Scope::Shape;
        match level {
            Level::Search { depth } => {
                // The shape lists the newest positional day, to learn until when there is data.
                let newest = children.iter().filter_map(|c| KeyDate::parse(split_child(c).1)).max();
                for child in children {
                    let name = split_child(&child).1;
                    if name == "version=1" {
                        self.add(child, Level::V1Root);
                    } else if let Some(day) = KeyDate::parse(name) {
                        self.shape.days.entry(day).or_default();
                        if self.scope.wants_day(day) || (shape && Some(day) == newest) {
                            self.add(child, Level::PositionalDate);
                        }
                    } else if !name.starts_with("version=") && depth + 1 < self.limits.search_depth && name != "dumps" {
                        // `dumps/` (triggered dumps' manifests) sits beside a layout, never above one.
                        self.add(child, Level::Search { depth: depth + 1 });
                    } else if everything {
                        self.add(child, other);
                    }
                }
            }
            Level::V1Root => {
                let newest = children.iter().filter_map(|c| v1_day(split_child(c).1)).max();
                for child in children {
                    match v1_day(split_child(&child).1) {
                        Some(day) => {
                            self.shape.days.entry(day).or_default();
                            if Some(day) == newest {
                                self.newest_days.insert(v1_root(&child).to_owned(), day);
                            }
                            // The shape lists every day's services: the calendar.
                            if shape || self.scope.wants_day(day) {
                                self.add(child, Level::V1Date);
                            }
                        }
                        None if everything => self.add(child, other),
                        None => {}
                    }
                }
            }
            Level::V1Date => {
                for child in children {
                    let (folder, name) = split_child(&child);
                    let day = day_of(folder);
                    match (name.strip_prefix("service="), day) {
                        (Some(service), Some(day)) if !service.is_empty() => {
                            if let Ok(service) = decode_partition_value(service) {
                                self.shape.days.entry(day).or_default().insert(service);
                            }
                            let newest = self.newest_days.get(v1_root(&child)) == Some(&day);
                            if self.scope.wants_day(day) || (shape && newest) {
                                self.add(child, Level::V1Service);
                            }
                        }
                        _ if everything => self.add(child, other),
                        _ => {}
                    }
                }
            }
            Level::V1Service => self.plan_hours(&parent_prefix, children, "time="),
            Level::PositionalDate => self.plan_hours(&parent_prefix, children, ""),
            Level::Flat { .. } => {}
        }
    }

    /// Minute folders (`{marker}HHMM/`) grouped into one flat listing per hour
    /// (`{folder}{marker}HH`, a prefix match on all its minutes), or per
    /// 10-minute block where the scope covers only part of the hour; other
    /// children that no hour covers, flat on their own (full walk only).
    fn plan_hours(&mut self, parent_prefix: &str, children: Vec<String>, marker: &str) {
        // Hour prefix → its day, hour and the 10-minute blocks holding data.
        let mut hours: BTreeMap<String, (KeyDate, u8, BTreeSet<u8>)> = BTreeMap::new();
        let mut others = Vec::new();
        for child in children {
            let (folder, name) = split_child(&child);
            match (name.strip_prefix(marker).and_then(KeyTime::parse), day_of(folder)) {
                (Some(time), Some(day)) => {
                    self.shape.saw_minute(minute_start(day, time));
                    let hour = format!("{folder}{marker}{:02}", time.hour());
                    // A start prefix narrower than the hour (`time=140`) is listed as given.
                    let hour = if hour.starts_with(parent_prefix) {
                        hour
                    } else {
                        parent_prefix.to_owned()
                    };
                    let entry = hours.entry(hour).or_insert((day, time.hour(), BTreeSet::new()));
                    entry.2.insert(time.minute() / 10);
                }
                _ => others.push(child),
            }
        }
        if self.scope == Scope::Everything {
            for child in others {
                if !hours.keys().any(|hour| child.starts_with(hour.as_str())) {
                    self.add(child, Level::Flat { other: true });
                }
            }
        }
        let flat = Level::Flat { other: false };
        for (hour, (day, h, blocks)) in hours {
            let as_given = hour == parent_prefix;
            match self.scope.hour_parts(day, h, &blocks) {
                None => {}
                Some(_) if as_given => self.add(hour, flat),
                Some(HourParts::Whole) => {
                    // Blocks listed for a narrower window: the rest of the hour in blocks too.
                    let listed = |b: &u8| self.planned.contains(&(format!("{hour}{b}"), false));
                    if blocks.iter().any(listed) {
                        let rest: Vec<u8> = blocks.iter().copied().filter(|b| !listed(b)).collect();
                        rest.into_iter().for_each(|b| self.add_block(&hour, b, None));
                    } else if self.add_from(hour, flat, None) {
                        self.partitions.last_mut().expect("just added").whole_hour = true;
                    }
                }
                // The hour listed whole already (a wider window before) covers the blocks.
                Some(HourParts::Blocks(wanted)) if !self.planned.contains(&(hour.clone(), false)) => {
                    wanted.into_iter().for_each(|b| self.add_block(&hour, b, None));
                }
                Some(HourParts::Blocks(_)) => {}
            }
        }
    }
}

/// The 10-minute block (the minute's tens digit) of `key` below the
/// whole-hour prefix `hour`.
fn block_of(hour: &str, key: &str) -> Option<u8> {
    let digit = key.strip_prefix(hour)?.bytes().next()?;
    (b'0'..=b'5').contains(&digit).then(|| digit - b'0')
}

/// The day of a partition folder: its rightmost `date=YYYY-MM-DD` or `YYYY-MM-DD` component.
fn day_of(folder: &str) -> Option<KeyDate> {
    folder
        .split('/')
        .rev()
        .find_map(|c| KeyDate::parse(c.strip_prefix("date=").unwrap_or(c)))
}

fn v1_day(component: &str) -> Option<KeyDate> {
    component.strip_prefix("date=").and_then(KeyDate::parse)
}

/// A v1 path up to its `version=1/`: the root its days belong to.
fn v1_root(path: &str) -> &str {
    path.rfind("version=1/")
        .map_or(path, |i| &path[..i + "version=1/".len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_placed_in_the_layout() {
        let cases = [
            ("", Level::Search { depth: 0 }),
            ("dial9-traces/", Level::Search { depth: 0 }),
            ("dial9-traces/version=1/", Level::V1Root),
            ("version=1/date=2026-11-30/", Level::V1Date),
            ("version=1/date=2026-11-30/service=payments%2Fapi/", Level::V1Service),
            (
                "version=1/date=2026-11-30/service=a/time=1405/",
                Level::Flat { other: false },
            ),
            ("version=1/date=soon/", Level::Flat { other: true }),
            ("version=1/_tmp/x/", Level::Flat { other: true }),
            ("version=2/", Level::Flat { other: true }),
            ("p/2026-11-30/", Level::PositionalDate),
            ("p/2026-11-30/0814/checkout/", Level::Flat { other: false }),
        ];
        for (folder, level) in cases {
            assert_eq!(Level::of_folder(folder), level, "{folder:?}");
        }
        assert_eq!(split_child("a/b/c/"), ("a/b/", "c"));
        assert_eq!(split_child("c/"), ("", "c"));
    }
}
