//! Entry points for the fuzz targets in `fuzz/`: the downstream wire
//! parsers, reached without a process or a socket. Not an API.

#[cfg(feature = "http-client")]
use crate::sse::parser::SseParser;
use crate::wire::{IdScanner, decode, oversized};

/// Feeds `bytes` to every downstream wire parser: each line to the stdio
/// decoder, and the whole in two pieces (split where the first byte says)
/// to the id scanner that follows an oversized reply and to the SSE event
/// parser (with the `http-client` feature, which the fuzz target's default
/// build has), whose events are decoded in turn.
pub fn wire(bytes: &[u8]) {
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        let _ = decode("fuzz", line);
    }
    let split = bytes
        .first()
        .map_or(0, |b| usize::from(*b) % (bytes.len() + 1));
    let (head, tail) = bytes.split_at(split);
    let mut scanner = IdScanner::default();
    scanner.feed(head);
    scanner.feed(tail);
    let _ = scanner.reply_id();
    let _ = oversized("fuzz", &scanner);
    #[cfg(feature = "http-client")]
    {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        parser.feed(head, &mut events);
        parser.feed(tail, &mut events);
        for event in events {
            if let crate::sse::parser::Event::Message { data, .. } = event {
                let _ = decode("fuzz", &data);
            }
        }
    }
}
