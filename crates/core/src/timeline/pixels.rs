//! A row of the timeline as pixels: the page fills worker lanes, counter
//! rows and span rows here and puts each row on its canvas at once
//! (thousands of canvas rectangles a frame cost more to raster than the
//! pixels do). Rectangles are given in CSS pixels and filled at the device's
//! scale, whole device pixels, blended in 8-bit fixed point.

/// An sRGB colour's bytes.
pub type Rgb = [u8; 3];

/// `colour` as the word a `RowPixels` holds: RGBA bytes in memory order, as
/// the canvas' `ImageData` takes them.
pub fn word([r, g, b]: Rgb) -> u32 {
    u32::from_ne_bytes([r, g, b, 255])
}

/// One row's pixels, over a buffer reused from frame to frame.
pub struct RowPixels<'a> {
    buf: &'a mut Vec<u32>,
    w: usize,
    h: usize,
    scale: f64,
}

impl<'a> RowPixels<'a> {
    /// `width` × `height` CSS pixels at `scale` device pixels each, filled
    /// with `background`.
    pub fn new(buf: &'a mut Vec<u32>, width: f64, height: f64, scale: f64, background: Rgb) -> RowPixels<'a> {
        let size = |v: f64| (v * scale).round().max(0.0) as usize;
        let (w, h) = (size(width), size(height));
        buf.clear();
        buf.resize(w * h, word(background));
        RowPixels { buf, w, h, scale }
    }

    /// Device pixels across and down.
    pub fn size(&self) -> (usize, usize) {
        (self.w, self.h)
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The pixels, row by row.
    pub fn words(&self) -> &[u32] {
        self.buf
    }

    /// Fills CSS pixels `[x0, x1) × [y0, y1)` with `colour` at `alpha`
    /// (0 to 1), clipped to the row; a rectangle narrower than a device
    /// pixel still fills one.
    pub fn fill(&mut self, x0: f64, x1: f64, y0: f64, y1: f64, colour: Rgb, alpha: f64) {
        let at = |v: f64, most: usize| ((v * self.scale).round().max(0.0) as usize).min(most);
        let left = at(x0, self.w);
        let (x0, x1) = (left, at(x1, self.w).max(left + 1).min(self.w));
        let (y0, y1) = (at(y0, self.h), at(y1, self.h));
        // The colour's share of each channel, of 256.
        let a = (alpha.clamp(0.0, 1.0) * 256.0).round() as u32;
        let over = colour.map(|c| u32::from(c) * a);
        for line in y0..y1 {
            let row = &mut self.buf[line * self.w + x0..line * self.w + x1];
            if a >= 256 {
                row.fill(word(colour));
                continue;
            }
            for px in row {
                let [r, g, b, _] = px.to_ne_bytes();
                let mix = |i: usize, under: u8| ((over[i] + u32::from(under) * (256 - a) + 128) >> 8) as u8;
                *px = word([mix(0, r), mix(1, g), mix(2, b)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(p: &RowPixels, x: usize, y: usize) -> Rgb {
        let [r, g, b, a] = p.words()[y * p.size().0 + x].to_ne_bytes();
        assert_eq!(a, 255, "opaque");
        [r, g, b]
    }

    #[test]
    fn rectangles_fill_whole_device_pixels_and_stay_in_the_row() {
        let mut buf = Vec::new();
        let mut p = RowPixels::new(&mut buf, 10.0, 4.0, 2.0, [255, 255, 255]);
        assert_eq!(p.size(), (20, 8));
        p.fill(1.0, 3.0, 1.0, 2.0, [10, 20, 30], 1.0);
        assert_eq!(pixel(&p, 2, 2), [10, 20, 30]);
        assert_eq!(pixel(&p, 5, 3), [10, 20, 30]);
        assert_eq!(pixel(&p, 6, 2), [255, 255, 255]);
        assert_eq!(pixel(&p, 2, 4), [255, 255, 255]);
        // Narrower than a device pixel: one pixel. Outside the row: clipped.
        p.fill(7.1, 7.1, 0.0, 4.0, [0, 0, 0], 1.0);
        assert_eq!(pixel(&p, 14, 0), [0, 0, 0]);
        p.fill(-5.0, 50.0, -1.0, 99.0, [1, 2, 3], 1.0);
        assert!(p.words().iter().all(|&w| w == word([1, 2, 3])));
    }

    #[test]
    fn translucent_colours_blend_over_what_is_there() {
        let mut buf = Vec::new();
        let mut p = RowPixels::new(&mut buf, 2.0, 1.0, 1.0, [255, 255, 255]);
        // The counter blue at 55% over white, as a canvas blends it (±1).
        p.fill(0.0, 1.0, 0.0, 1.0, [47, 111, 228], 0.55);
        let [r, g, b] = pixel(&p, 0, 0);
        assert!(
            r.abs_diff(141) <= 1 && g.abs_diff(176) <= 1 && b.abs_diff(240) <= 1,
            "{r} {g} {b}"
        );
        // Twice: darker still; at alpha 0, nothing.
        p.fill(0.0, 1.0, 0.0, 1.0, [47, 111, 228], 0.55);
        assert!(pixel(&p, 0, 0)[0] < r);
        p.fill(1.0, 2.0, 0.0, 1.0, [0, 0, 0], 0.0);
        assert_eq!(pixel(&p, 1, 0), [255, 255, 255]);
    }
}
