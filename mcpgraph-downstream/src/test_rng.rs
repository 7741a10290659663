//! A small deterministic random source for the property tests of the
//! wire-level parsers (`downstream`'s `wire`, its id scanner, `sse`'s event
//! parser) and of the native expression functions.

/// A seeded random source: the same seed gives the same sequence.
pub(crate) struct TestRng(u64);

impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    /// xorshift64*.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `bytes` cut into pieces at random places (some of them empty).
    pub(crate) fn pieces<'a>(&mut self, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = (0..self.below(6))
            .map(|_| self.below(bytes.len() + 1))
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
}
