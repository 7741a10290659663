//! A graph file through load, validate and generate: any text gives
//! diagnostics or code, never a panic; generated code pretty-prints.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let output = mcpgraph_codegen::generate_str(text, "fuzz.yaml", &Default::default());
    if output.is_ok() {
        mcpgraph_codegen::pretty(&output.tokens).expect("generated code parses");
    }
    for item in &output.diagnostics.items {
        let _ = output.diagnostics.render(item);
    }
});
