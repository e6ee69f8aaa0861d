//! The visible window of the timeline and how input moves it (wheel zoom at
//! the pointer, drag, W/A/S/D, F to fit, Z to undo a zoom), on an axis of
//! nanoseconds from the scene's start. [`KEYS`] is what `?` lists.

/// The narrowest window: a few hundred nanoseconds still shows single polls.
pub const MIN_SPAN_NS: f64 = 200.0;

/// One key press zooms by this factor or pans by this share of the window.
const KEY_ZOOM: f64 = 1.5;
const KEY_PAN: f64 = 0.2;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub start: f64,
    pub end: f64,
    /// The whole axis: [0, total].
    pub total: f64,
}

/// A view key: W/S zoom in/out at the centre, A/D pan, F fits the whole
/// axis; Z (undo) is [`ViewHistory`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavKey {
    ZoomIn,
    ZoomOut,
    Left,
    Right,
    Fit,
    Undo,
}

/// The timeline's keys as `?` lists them: the keys, what they do.
pub const KEYS: &[(&str, &str)] = &[
    ("W  ↑  +", "zoom in"),
    ("S  ↓  −", "zoom out"),
    ("A  ←", "move left"),
    ("D  →", "move right"),
    ("F", "fit: the whole timeline"),
    ("Z", "undo the last zoom or window"),
    ("Esc", "clear the selected poll and window"),
    ("?", "show or hide these keys"),
];

impl NavKey {
    /// By `KeyboardEvent.key` (letters in either case, the arrow keys).
    pub fn from_key(key: &str) -> Option<NavKey> {
        match key {
            "w" | "W" | "ArrowUp" | "+" | "=" => Some(NavKey::ZoomIn),
            "s" | "S" | "ArrowDown" | "-" => Some(NavKey::ZoomOut),
            "a" | "A" | "ArrowLeft" => Some(NavKey::Left),
            "d" | "D" | "ArrowRight" => Some(NavKey::Right),
            "f" | "F" => Some(NavKey::Fit),
            "z" | "Z" => Some(NavKey::Undo),
            _ => None,
        }
    }
}

/// Zooms and windows to undo, newest last: a view is recorded when the
/// next one has another span (a pan is not a step of its own), at most
/// [`ViewHistory::MAX`] of them.
#[derive(Debug, Clone, Default)]
pub struct ViewHistory {
    past: std::collections::VecDeque<View>,
    /// The view an undo went back to: seeing it next is not a new step.
    undone: Option<View>,
}

impl ViewHistory {
    pub const MAX: usize = 100;

    /// The view moved from `previous` to `next` (by any input).
    pub fn observe(&mut self, previous: View, next: View) {
        if self.undone.take() == Some(next) || previous.span() == next.span() {
            return;
        }
        if self.past.len() == Self::MAX {
            self.past.pop_front();
        }
        self.past.push_back(previous);
    }

    /// The view before the last zoom or window, if any.
    pub fn undo(&mut self) -> Option<View> {
        let back = self.past.pop_back()?;
        self.undone = Some(back);
        Some(back)
    }

    /// Where `key` takes `view` (Undo: back a step, or stay).
    pub fn key(&mut self, view: View, key: NavKey) -> View {
        match key {
            NavKey::Undo => self.undo().unwrap_or(view),
            key => view.key(key),
        }
    }
}

impl View {
    /// The whole axis in view.
    pub fn all(total: f64) -> View {
        let total = total.max(MIN_SPAN_NS);
        View {
            start: 0.0,
            end: total,
            total,
        }
    }

    pub fn span(&self) -> f64 {
        self.end - self.start
    }

    /// A window of the axis, clamped to it and at least `MIN_SPAN_NS` wide.
    pub fn window(&self, start: f64, end: f64) -> View {
        let (start, end) = if start <= end { (start, end) } else { (end, start) };
        let span = (end - start).clamp(MIN_SPAN_NS, self.total);
        let mid = (start + end) / 2.0;
        let start = (mid - span / 2.0).clamp(0.0, self.total - span);
        View {
            start,
            end: start + span,
            total: self.total,
        }
    }

    /// Zooms by `factor` (> 1 zooms in) keeping the point at `anchor`
    /// (0 = left edge, 1 = right edge) where it is.
    pub fn zoom(&self, factor: f64, anchor: f64) -> View {
        if !(factor.is_finite() && factor > 0.0) {
            return *self;
        }
        let anchor = anchor.clamp(0.0, 1.0);
        let at = self.start + anchor * self.span();
        let span = (self.span() / factor).clamp(MIN_SPAN_NS, self.total);
        let start = (at - anchor * span).clamp(0.0, self.total - span);
        View {
            start,
            end: start + span,
            total: self.total,
        }
    }

    /// Moves by `share` of the window (negative: earlier).
    pub fn pan(&self, share: f64) -> View {
        if !share.is_finite() {
            return *self;
        }
        let span = self.span();
        let start = (self.start + share * span).clamp(0.0, self.total - span);
        View {
            start,
            end: start + span,
            total: self.total,
        }
    }

    /// The wheel's zoom factor for a `deltaY` (pixels; a trackpad sends small ones).
    pub fn wheel(&self, delta_y: f64, anchor: f64) -> View {
        self.zoom((-delta_y.clamp(-500.0, 500.0) * 0.002).exp(), anchor)
    }

    pub fn key(&self, key: NavKey) -> View {
        match key {
            NavKey::ZoomIn => self.zoom(KEY_ZOOM, 0.5),
            NavKey::ZoomOut => self.zoom(1.0 / KEY_ZOOM, 0.5),
            NavKey::Left => self.pan(-KEY_PAN),
            NavKey::Right => self.pan(KEY_PAN),
            NavKey::Fit => View::all(self.total),
            // Only a history knows where to go back to.
            NavKey::Undo => *self,
        }
    }

    /// Axis time → x in a canvas `width` pixels wide.
    pub fn x(&self, t: f64, width: f64) -> f64 {
        (t - self.start) / self.span() * width
    }

    /// x → axis time.
    pub fn t(&self, x: f64, width: f64) -> f64 {
        self.start + x / width * self.span()
    }
}

/// Tick marks of a time axis: a round step giving about `target` ticks.
pub fn ticks(view: &View, target: usize) -> (f64, Vec<f64>) {
    let raw = view.span() / target.max(1) as f64;
    let pow = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * pow)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * pow);
    let first = (view.start / step).ceil() * step;
    let ticks = (0..=target * 2 + 2)
        .map(|i| first + i as f64 * step)
        .take_while(|t| *t <= view.end)
        .collect();
    (step, ticks)
}

/// "Go to time": a time after the start (`1.5s`, `350ms`, `20us`, `800ns`,
/// a bare number is ms) or, when the axis has a wall clock, a UTC time of
/// day (`16:00:12.5`) → axis ns.
pub fn parse_time(text: &str, wall_origin: Option<i64>) -> Option<f64> {
    let t = text.trim().trim_start_matches('+');
    if let (Some(origin), true) = (wall_origin, t.contains(':')) {
        let mut parts = t.split(':');
        let h: i64 = parts.next()?.parse().ok()?;
        let m: i64 = parts.next()?.parse().ok()?;
        let s: f64 = parts.next().unwrap_or("0").parse().ok()?;
        if parts.next().is_some() || !(0..24).contains(&h) || !(0..60).contains(&m) || !(0.0..61.0).contains(&s) {
            return None;
        }
        const DAY: i64 = 86_400_000_000_000;
        let of_day = (h * 3600 + m * 60) as f64 * 1e9 + s * 1e9;
        let day_start = origin.div_euclid(DAY) * DAY;
        let mut at = day_start as f64 + of_day - origin as f64;
        if at < 0.0 {
            at += DAY as f64; // past midnight
        }
        return Some(at);
    }
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.trim().parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "" | "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        _ => return None,
    };
    Some(v * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_keeps_the_anchor_in_place_and_stays_on_the_axis() {
        let v = View::all(1000.0);
        let z = v.zoom(2.0, 0.25);
        assert_eq!((z.start, z.end), (125.0, 625.0));
        assert_eq!(z.t(0.25 * 800.0, 800.0), v.t(0.25 * 800.0, 800.0));
        let out = z.zoom(0.01, 0.9);
        assert_eq!((out.start, out.end), (0.0, 1000.0));
        let deep = View::all(1e9).zoom(1e12, 0.5);
        assert_eq!(deep.span(), MIN_SPAN_NS);
        assert_eq!(v.zoom(f64::NAN, 0.5), v);
    }

    #[test]
    fn pan_and_keys_clamp_to_the_axis() {
        let v = View::all(1000.0).zoom(4.0, 0.0);
        assert_eq!((v.start, v.end), (0.0, 250.0));
        assert_eq!(v.key(NavKey::Left), v);
        let r = v.key(NavKey::Right);
        assert_eq!((r.start, r.end), (50.0, 300.0));
        assert_eq!(v.pan(100.0).end, 1000.0);
        assert!(v.key(NavKey::ZoomIn).span() < v.span());
        assert_eq!(NavKey::from_key("S"), Some(NavKey::ZoomOut));
        assert_eq!(NavKey::from_key("x"), None);
    }

    #[test]
    fn f_fits_and_z_undoes_zooms_and_windows_but_not_pans() {
        let mut history = ViewHistory::default();
        let mut v = View::all(1000.0);
        let go = |h: &mut ViewHistory, v: &mut View, next: View| {
            h.observe(*v, next);
            *v = next;
        };
        let whole = v;
        go(&mut history, &mut v, whole.key(NavKey::ZoomIn));
        let zoomed = v;
        go(&mut history, &mut v, zoomed.key(NavKey::Right));
        let panned = v;
        go(&mut history, &mut v, panned.window(100.0, 110.0));
        // Z: back before the window, then before the zoom; the pan went with the zoom.
        let back = history.key(v, NavKey::Undo);
        assert_eq!(back, panned);
        go(&mut history, &mut v, back);
        let back = history.key(v, NavKey::Undo);
        assert_eq!(back, whole);
        go(&mut history, &mut v, back);
        assert_eq!(history.key(v, NavKey::Undo), v, "nothing left to undo");
        // F: the whole axis, itself a step Z undoes.
        go(&mut history, &mut v, whole.window(10.0, 510.0));
        let fit = v.key(NavKey::Fit);
        assert_eq!(fit, View::all(1000.0));
        go(&mut history, &mut v, fit);
        assert_eq!(history.undo().map(|u| u.span()), Some(500.0));
        assert_eq!(
            (NavKey::from_key("f"), NavKey::from_key("Z")),
            (Some(NavKey::Fit), Some(NavKey::Undo))
        );
        // Bounded.
        let mut long = ViewHistory::default();
        for i in 0..(ViewHistory::MAX + 10) {
            long.observe(View::all(1000.0).window(0.0, 10.0 + i as f64), View::all(1000.0));
        }
        assert_eq!(std::iter::from_fn(|| long.undo()).count(), ViewHistory::MAX);
    }

    #[test]
    fn windows_are_ordered_clamped_and_never_empty() {
        let v = View::all(1000.0);
        let w = v.window(900.0, 100.0);
        assert_eq!((w.start, w.end), (100.0, 900.0));
        let w = v.window(500.0, 500.0);
        assert_eq!(w.span(), MIN_SPAN_NS);
        assert_eq!(v.window(-50.0, 5000.0), v);
    }

    #[test]
    fn times_to_go_to() {
        assert_eq!(parse_time("1.5s", None), Some(1.5e9));
        assert_eq!(parse_time(" 350 ms", None), Some(350e6));
        assert_eq!(parse_time("+20us", None), Some(20e3));
        assert_eq!(parse_time("12", None), Some(12e6));
        assert_eq!(parse_time("soon", None), None);
        assert_eq!(parse_time("-3ms", None), None);
        let origin = 1_793_032_811_215_428_525; // 16:40:11.215…
        let at = parse_time("16:40:12.5", Some(origin)).unwrap();
        assert!((at - 1_284_571_475.0).abs() < 1e3, "{at}");
        assert_eq!(parse_time("25:00", Some(origin)), None);
    }

    #[test]
    fn ticks_are_round_and_inside_the_window() {
        let v = View::all(4_201_868_002.0);
        let (step, ticks) = ticks(&v, 8);
        assert_eq!(step, 1e9);
        assert_eq!(ticks, vec![0.0, 1e9, 2e9, 3e9, 4e9]);
    }
}
