//! For the property tests of the wire parsers: bytes cut into pieces at
//! random places, as a stream delivers them.

/// `bytes` cut into pieces at random places (some of them empty).
pub(crate) fn pieces<'a>(rng: &mut fastrand::Rng, bytes: &'a [u8]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = (0..rng.usize(..6))
        .map(|_| rng.usize(..=bytes.len()))
        .collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for cut in cuts {
        pieces.push(&bytes[from..cut]);
        from = cut;
    }
    pieces.push(&bytes[from..]);
    pieces
}
