//! Where a span's time went: on the CPU, blocked inside a poll, waiting to
//! be polled after a wake, or idle awaiting something. The four parts of an
//! instance add up to its duration, or to none of it when no poll of its
//! task tells (then the whole is unattributed).

use serde::{Deserialize, Serialize};

/// One span instance's time, in ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// Inside its task's polls, running.
    pub on_cpu: u64,
    /// Inside its task's polls, the thread switched out (off-CPU samples:
    /// a blocking call).
    pub blocked: u64,
    /// Woken, waiting for a worker to poll it.
    pub sched_delay: u64,
    /// Idle between polls, awaiting something (I/O, a timer, another task).
    pub async_wait: u64,
}

impl Split {
    pub fn total(&self) -> u64 {
        self.on_cpu
            .saturating_add(self.blocked)
            .saturating_add(self.sched_delay)
            .saturating_add(self.async_wait)
    }

    pub fn add(&mut self, o: &Split) {
        self.on_cpu = self.on_cpu.saturating_add(o.on_cpu);
        self.blocked = self.blocked.saturating_add(o.blocked);
        self.sched_delay = self.sched_delay.saturating_add(o.sched_delay);
        self.async_wait = self.async_wait.saturating_add(o.async_wait);
    }

    /// The four parts with their names, in the order they are shown.
    pub fn parts(&self) -> [(Part, u64); 4] {
        [
            (Part::OnCpu, self.on_cpu),
            (Part::Blocked, self.blocked),
            (Part::SchedDelay, self.sched_delay),
            (Part::AsyncWait, self.async_wait),
        ]
    }
}

/// One part of a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    OnCpu,
    Blocked,
    SchedDelay,
    AsyncWait,
}

impl Part {
    pub fn label(self) -> &'static str {
        match self {
            Part::OnCpu => "on-CPU",
            Part::Blocked => "blocked in a poll",
            Part::SchedDelay => "scheduling delay",
            Part::AsyncWait => "async wait",
        }
    }
}

/// One poll of a task, as the split reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskPoll {
    pub start: u64,
    pub end: u64,
    /// Wake → this poll, when known.
    pub delay: u64,
    /// Off-CPU samples taken in it: their range in the caller's list.
    pub off_cpu: (u32, u32),
}

/// An off-CPU sample in a poll: when, and how long its thread stayed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffCpu {
    pub ts: u64,
    pub ns: u64,
}

/// The split of `[start, end)` of a task whose polls (by start) are
/// `polls`; `None` when none of them overlaps it.
pub fn split(start: u64, end: u64, polls: &[TaskPoll], off_cpu: &[OffCpu]) -> Option<Split> {
    let mut s = Split::default();
    // Time accounted for so far, from `start` on.
    let mut at = start;
    let first = polls.partition_point(|p| p.end <= start);
    let mut any = false;
    for p in polls[first..].iter().take_while(|p| p.start < end) {
        let (a, b) = (p.start.max(at), p.end.min(end));
        if b <= a {
            continue;
        }
        any = true;
        if a > at {
            // The gap before this poll: its last `delay` ns waited for a worker.
            let gap = a - at;
            let sched = if p.start >= at { p.delay.min(gap) } else { 0 };
            s.sched_delay += sched;
            s.async_wait += gap - sched;
        }
        let in_poll = b - a;
        let samples = off_cpu.get(p.off_cpu.0 as usize..p.off_cpu.1 as usize).unwrap_or(&[]);
        let blocked: u64 = samples
            .iter()
            .filter(|o| o.ts >= a && o.ts < b)
            .map(|o| o.ns.min(b - o.ts))
            .fold(0, u64::saturating_add)
            .min(in_poll);
        s.blocked += blocked;
        s.on_cpu += in_poll - blocked;
        at = b;
    }
    if !any {
        return None;
    }
    // The span ended while its task was not in a poll.
    s.async_wait += end.saturating_sub(at);
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll(start: u64, end: u64, delay: u64) -> TaskPoll {
        TaskPoll {
            start,
            end,
            delay,
            off_cpu: (0, 0),
        }
    }

    #[test]
    fn the_parts_add_up_to_the_duration() {
        // Polled 10..20 (3 ns of it blocked), woken at 25, polled 30..40, idle, polled 60..65.
        let mut polls = vec![poll(10, 20, 0), poll(30, 40, 5), poll(60, 65, 0)];
        polls[0].off_cpu = (0, 1);
        let off = [OffCpu { ts: 15, ns: 3 }];
        let s = split(10, 65, &polls, &off).unwrap();
        assert_eq!(
            s,
            Split {
                on_cpu: 7 + 10 + 5,
                blocked: 3,
                sched_delay: 5,
                async_wait: 5 + 20,
            }
        );
        assert_eq!(s.total(), 55);
    }

    #[test]
    fn a_span_starting_inside_a_poll_and_ending_after_its_last() {
        let polls = [poll(0, 10, 0), poll(20, 30, 8)];
        let s = split(5, 40, &polls, &[]).unwrap();
        // 5..10 running, 10..20 gap (8 of it the wake's delay), 20..30 running, 30..40 idle.
        assert_eq!(s.on_cpu, 15);
        assert_eq!(s.sched_delay, 8);
        assert_eq!(s.async_wait, 2 + 10);
        assert_eq!(s.total(), 35);
    }

    #[test]
    fn blocked_time_is_cut_at_the_span_and_the_poll() {
        let mut polls = [poll(0, 100, 0)];
        polls[0].off_cpu = (0, 2);
        // One switch-out of 80 ns inside a span of 0..50, one outside it.
        let off = [OffCpu { ts: 10, ns: 80 }, OffCpu { ts: 60, ns: 30 }];
        let s = split(0, 50, &polls, &off).unwrap();
        assert_eq!((s.blocked, s.on_cpu), (40, 10));
    }

    #[test]
    fn overlapping_polls_of_a_damaged_trace_are_counted_once() {
        let polls = [poll(0, 50, 0), poll(20, 70, 0)];
        let s = split(0, 100, &polls, &[]).unwrap();
        assert_eq!(s.total(), 100);
        assert_eq!(s.on_cpu, 70);
    }

    #[test]
    fn no_poll_of_its_task_leaves_the_span_unattributed() {
        assert_eq!(split(10, 20, &[poll(30, 40, 0)], &[]), None);
        assert_eq!(split(10, 20, &[], &[]), None);
    }
}
