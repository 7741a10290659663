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

#[test]
fn http_addresses_default_to_loopback() {
    let parse = |args: &[&str]| {
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        match cli.command {
            Some(Command::Serve(serve)) => Ok(serve.http.map(|a| a.to_string())),
            other => Err(format!("{other:?}")),
        }
    };
    assert_eq!(parse(&["bin", "serve"]), Ok(None));
    for (args, want) in [
        (&["--http"][..], "127.0.0.1:8080"),
        (&["--http", "9000"], "127.0.0.1:9000"),
        (&["--http=localhost:9001"], "127.0.0.1:9001"),
        (&["--http", "0.0.0.0:80"], "0.0.0.0:80"),
        (&["--http", "[::1]:81"], "[::1]:81"),
    ] {
        let argv: Vec<&str> = ["bin", "serve"].iter().chain(args).copied().collect();
        assert_eq!(parse(&argv), Ok(Some(want.to_owned())), "{args:?}");
    }
    // The "HTTP only" flags exist with the `http-server` feature; `--http`
    // always (refused at run time without it).
    #[cfg(feature = "http-server")]
    assert_eq!(
        parse(&["bin", "serve", "--http", "--stateless"]),
        Ok(Some("127.0.0.1:8080".to_owned()))
    );
    let err = parse(&["bin", "serve", "--http", "example.com:80"]).unwrap_err();
    assert!(
        err.contains("is not PORT, localhost:PORT or IP:PORT"),
        "{err}"
    );
}
