//! The command line's grammar, tested.

use super::*;

/// The lines read without clap read as clap reads them; the others are
/// left to clap.
#[test]
fn plain_lines_read_as_clap_reads_them() {
    let line = |args: &[&str]| -> Vec<std::ffi::OsString> {
        std::iter::once("bin")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect()
    };
    for args in [
        &[][..],
        &["serve"],
        &["--mcp", "servers.json"],
        &["--mcp", "servers.json", "serve"],
        &["--mcp=servers.json", "serve"],
        &["--mcp=servers.json"],
        &["--mcp", "serve"],
        &["--mcp", "serve", "serve"],
    ] {
        let fast = plain_serve(&line(args)).expect("a plain line");
        let clap = Cli::try_parse_from(line(args)).expect("clap reads it");
        assert_eq!(format!("{fast:?}"), format!("{clap:?}"), "{args:?}");
    }
    for args in [
        &["tools"][..],
        &["serve", "--http"],
        &["--mcp"],
        &["--mcp", "-x"],
        &["--mcp="],
        &["--log-level", "info", "serve"],
        &["serve", "--mcp", "servers.json"],
        &["--mcp", "a.json", "--mcp", "b.json"],
        &["--help"],
        &["--version"],
    ] {
        assert!(plain_serve(&line(args)).is_none(), "{args:?}");
    }
}

/// `--http` (its addresses are `mcpgraph-http`'s to test) is there with
/// or without the `http-server` feature: refused at run time without it.
#[test]
fn http_is_asked_for_with_or_without_the_feature() {
    let asked = |args: &[&str]| match Cli::try_parse_from(args).map(|cli| cli.command) {
        Ok(Some(Command::Serve(serve))) => Ok(serve.http.requested()),
        other => Err(format!("{other:?}")),
    };
    assert_eq!(asked(&["bin", "serve"]), Ok(false));
    assert_eq!(asked(&["bin", "serve", "--http"]), Ok(true));
    assert_eq!(asked(&["bin", "serve", "--http", "9000"]), Ok(true));
}
