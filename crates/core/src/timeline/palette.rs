//! Stable colours for spawn locations and span names: the same text gets the
//! same colour in every file, selection and session (a hash of the text, not
//! the order things were seen in).

/// Hues 10° apart, two lightnesses: 72 colours, so a handful of spawn
/// locations rarely share one.
const HUE_STEP: u64 = 10;
const HUES: u64 = 360 / HUE_STEP;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Colour {
    pub hue: u16,
    pub saturation: u8,
    pub lightness: u8,
}

impl Colour {
    pub fn css(&self) -> String {
        format!("hsl({} {}% {}%)", self.hue, self.saturation, self.lightness)
    }

    /// The same colour as sRGB bytes (CSS Color 4's HSL conversion).
    pub fn rgb(&self) -> [u8; 3] {
        let (s, l) = (f64::from(self.saturation) / 100.0, f64::from(self.lightness) / 100.0);
        let a = s * l.min(1.0 - l);
        let f = |n: f64| {
            let k = (n + f64::from(self.hue) / 30.0) % 12.0;
            let v = l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0);
            (v * 255.0).round() as u8
        };
        [f(0.0), f(8.0), f(4.0)]
    }
}

/// FNV-1a: tiny, stable across platforms and releases (unlike `Hash`).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The colour of a spawn location or span name; `None` (unknown) is grey.
pub fn colour(text: Option<&str>) -> Colour {
    match text {
        None => Colour {
            hue: 0,
            saturation: 0,
            lightness: 60,
        },
        Some(t) => {
            let h = fnv1a(t);
            Colour {
                hue: ((h % HUES) * HUE_STEP) as u16,
                saturation: 65,
                lightness: [46, 60][((h >> 32) & 1) as usize],
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_depend_on_the_text_only() {
        let a = colour(Some("examples/metrics-service/src/main.rs:334:14"));
        assert_eq!(a, colour(Some("examples/metrics-service/src/main.rs:334:14")));
        assert_eq!(a.css(), format!("hsl({} 65% {}%)", a.hue, a.lightness));
        assert_eq!(colour(None).saturation, 0);
        // As browsers turn hsl() into pixels.
        let rgb = |hue, saturation, lightness| {
            Colour {
                hue,
                saturation,
                lightness,
            }
            .rgb()
        };
        assert_eq!(rgb(0, 0, 60), [153, 153, 153]);
        assert_eq!(rgb(0, 65, 46), [194, 41, 41]);
        assert_eq!(rgb(120, 65, 60), [87, 219, 87]);
        assert_eq!(rgb(210, 65, 46), [41, 117, 194]);
        let distinct: std::collections::HashSet<_> =
            (0..40).map(|i| colour(Some(&format!("src/lib.rs:{i}:1")))).collect();
        assert!(distinct.len() >= 25, "{} colours for 40 locations", distinct.len());
    }
}
