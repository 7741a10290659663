//! The downstream wire parsers: the stdio line decoder, the id scanner of
//! oversized replies, the SSE event parser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcpgraph_downstream::fuzzing::wire(data);
});
