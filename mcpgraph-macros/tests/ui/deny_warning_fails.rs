// `deny(...)` in the macro call makes a lint's warnings errors: by name
// (`unknown_function`: `$substringBefor` in a filter predicate, a warning
// since only some evaluations reach it) or all of them (`warnings`).
mod by_name {
    mcpgraph::mcpgraph!("compat/substring_before_typo.yaml", deny(unknown_function));
}

mod all {
    mcpgraph::mcpgraph!("compat/entry_nothing.yaml", deny(warnings));
}

// A lint's own setting wins over `warnings`: this one compiles.
mod all_but_one {
    mcpgraph::mcpgraph!(
        "compat/entry_nothing.yaml",
        deny(warnings),
        allow(unknown_input_field)
    );
}

fn main() {}
