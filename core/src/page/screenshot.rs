//! Limits of a screenshot sent to the model: the visible part of a tab, scaled down so its
//! longer side fits, and re-encoded at lower JPEG quality while its bytes are too many.

/// Longer side of the image the model gets, in pixels. Gemini tiles images in 768-pixel
/// squares; two tiles across keep text on a page legible.
pub const MAX_SIDE: u32 = 1536;
/// Bytes of the encoded image at most (the request's inline data is limited to 20 MB in all).
pub const MAX_BYTES: usize = 1_500_000;
/// JPEG qualities tried in turn until the image fits [`MAX_BYTES`].
pub const QUALITIES: [f64; 4] = [0.85, 0.7, 0.5, 0.3];

/// The size to draw a `width`×`height` capture at: the same when it fits, else scaled so its
/// longer side is `max_side`, keeping the aspect ratio (each side at least 1).
pub fn fit(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longer = width.max(height);
    if longer <= max_side || longer == 0 {
        return (width, height);
    }
    let scale = |side: u32| {
        ((side as u64 * max_side as u64 + longer as u64 / 2) / longer as u64).max(1) as u32
    };
    (scale(width), scale(height))
}

/// Base64 characters for `bytes` bytes.
pub fn base64_len(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_are_scaled_to_fit_keeping_their_shape() {
        assert_eq!(fit(800, 600, MAX_SIDE), (800, 600));
        assert_eq!(fit(3072, 1728, MAX_SIDE), (1536, 864));
        assert_eq!(fit(1000, 4000, 1000), (250, 1000));
        assert_eq!(fit(5000, 1, 1000), (1000, 1));
        assert_eq!(fit(0, 0, 1000), (0, 0));
    }

    #[test]
    fn base64_grows_by_a_third() {
        assert_eq!(base64_len(3), 4);
        assert_eq!(base64_len(4), 8);
    }
}
