//! `https://` downstream servers: nginx (started by this test on loopback)
//! terminates TLS with a certificate from a private CA made here with
//! `openssl`, in front of server-everything (SSE and streamable HTTP) and
//! the purpose-built test server (streamable HTTP).
//!
//! The CA is trusted the usual way, through `SSL_CERT_FILE`: set for this
//! whole test process (one test in this binary, set before any thread
//! starts) and per run of the `file_utils` binary. Without it, or with
//! another CA, the connection fails naming the certificate problem.

use std::path::Path;
use std::process::Command;

use mcpgraph::Engine;
use mcpgraph::{ServerSpec, TransportSpec};
use mcpgraph_tests::{
    Everything, Nginx, TempDir, bin_path, engine_call, example_dir, free_port, replace_server,
    test_server_http,
};
use serde_json::{Value, json};

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

type Server = downstream::Server;

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (Debian package openssl)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA (`<name>-ca.pem`) and a server certificate it signed for
/// 127.0.0.1 and localhost (`<name>.pem`, `<name>.key`), EC P-256.
fn make_ca_and_server_cert(dir: &Path, name: &str) {
    let ca_key = format!("{name}-ca.key");
    let ca = format!("{name}-ca.pem");
    let key = format!("{name}.key");
    let csr = format!("{name}.csr");
    let cert = format!("{name}.pem");
    let ext = format!("{name}.ext");
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &ca_key,
            "-out",
            &ca,
            "-days",
            "2",
            "-subj",
            &format!("/CN=mcpgraph test CA {name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &csr,
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        dir.join(&ext),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca,
            "-CAkey",
            &ca_key,
            "-set_serial",
            "2",
            "-days",
            "2",
            "-out",
            &cert,
            "-extfile",
            &ext,
        ],
    );
}

/// One TLS server on nginx's port with `name`'s certificate, routing
/// `/sse` and `/message` to `sse`, `/mcp` to `streamable`, `/fs/…` to
/// `fs` (path without the prefix).
fn tls_server(certs: &Path, name: &str, port: u16, sse: u16, streamable: u16, fs: u16) -> String {
    let c = certs.display();
    let proxy = "proxy_http_version 1.1; proxy_set_header Connection \"\"; \
                 proxy_buffering off; proxy_read_timeout 60s;";
    format!(
        r#"    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {c}/{name}.pem;
        ssl_certificate_key {c}/{name}.key;
        location /sse {{ proxy_pass http://127.0.0.1:{sse}; {proxy} }}
        location /message {{ proxy_pass http://127.0.0.1:{sse}; {proxy} }}
        location /mcp {{ proxy_pass http://127.0.0.1:{streamable}; {proxy} }}
        location /fs/ {{ proxy_pass http://127.0.0.1:{fs}/; {proxy} }}
    }}
"#
    )
}

fn remote(transport: TransportSpec) -> Vec<ServerSpec> {
    replace_server("remote", transport)
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    engine_call(engine, tool, args).await
}

/// `file_utils --mcp FILE call count_files {"directory": "/data"} --trace` with
/// `filesystem` at `url` and `SSL_CERT_FILE` as given: (exit ok, stdout,
/// stderr).
fn count_files_over(url: &str, cert_file: Option<&Path>, dir: &Path) -> (bool, String, String) {
    let mcp = dir.join("file_utils_mcp.json");
    let config = json!({"mcpServers": {"filesystem": {"type": "streamableHttp", "url": url, "timeoutMs": 5000}}});
    std::fs::write(&mcp, config.to_string()).unwrap();
    let mut cmd = Command::new(bin_path("file_utils"));
    cmd.arg("--mcp")
        .arg(&mcp)
        .args([
            "call",
            "count_files",
            r#"{"directory": "/data"}"#,
            "--trace",
        ])
        .current_dir(example_dir("file_utils"))
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    if let Some(file) = cert_file {
        cmd.env("SSL_CERT_FILE", file);
    }
    let out = cmd.output().expect("run file_utils");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn https_downstream_servers_with_a_private_ca() {
    let certs = TempDir::new("tls");
    make_ca_and_server_cert(certs.path(), "trusted");
    make_ca_and_server_cert(certs.path(), "rogue");
    let trusted_ca = certs.path().join("trusted-ca.pem");
    let rogue_ca = certs.path().join("rogue-ca.pem");
    // SAFETY: the only test of this binary, before its runtime (or any
    // other thread of ours) exists; nothing else reads the environment yet.
    unsafe { std::env::set_var("SSL_CERT_FILE", &trusted_ca) };

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (sse, streamable, fs) = (free_port(), free_port(), free_port());
        let sse_server = Everything::start("sse", sse).await;
        let streamable_server = Everything::start("streamableHttp", streamable).await;
        let mut fs_server = test_server_http(env!("CARGO_BIN_EXE_mcpgraph-test-server"), fs).await;
        let certs_dir = certs.path().to_path_buf();
        let nginx = Nginx::start("tls", |_, port| {
            tls_server(&certs_dir, "trusted", port, sse, streamable, fs)
        })
        .await;
        let rogue = Nginx::start("tls-rogue", |_, port| {
            tls_server(&certs_dir, "rogue", port, sse, streamable, fs)
        })
        .await;
        let base = format!("https://127.0.0.1:{}", nginx.port());
        let localhost = format!("https://localhost:{}", nginx.port());

        // In process: SSE and streamable HTTP over TLS, concurrent calls.
        for transport in [
            TransportSpec::Sse {
                url: format!("{base}/sse"),
                headers: vec![],
            },
            TransportSpec::StreamableHttp {
                url: format!("{localhost}/mcp"),
                headers: vec![],
            },
        ] {
            let what = format!("{transport:?}");
            let e = Engine::start::<Server>(remote(transport), 2).unwrap();
            assert_eq!(
                call(&e, "remote_echo", json!({"message": "tls"})).await,
                Ok(json!("Echo: tls")),
                "{what}"
            );
            let mut calls = tokio::task::JoinSet::new();
            for i in 0..6 {
                let e = e.clone();
                calls.spawn(
                    async move { (i, call(&e, "remote_sum", json!({"a": i, "b": 1})).await) },
                );
            }
            while let Some(joined) = calls.join_next().await {
                let (i, r) = joined.unwrap();
                assert_eq!(
                    r,
                    Ok(json!(format!("The sum of {i} and 1 is {}.", i + 1))),
                    "{what}"
                );
            }
            e.shutdown().await;
        }

        // A certificate from a CA nobody trusts: the call fails and says why.
        for transport in [
            TransportSpec::StreamableHttp {
                url: format!("https://127.0.0.1:{}/mcp", rogue.port()),
                headers: vec![],
            },
            TransportSpec::Sse {
                url: format!("https://127.0.0.1:{}/sse", rogue.port()),
                headers: vec![],
            },
        ] {
            let e = Engine::start::<Server>(remote(transport), 1).unwrap();
            let err = call(&e, "remote_echo", json!({"message": "x"}))
                .await
                .unwrap_err();
            eprintln!("untrusted: {err}");
            assert!(err.contains("`remote`"), "{err}");
            assert!(
                err.contains("certificate") && err.contains("UnknownIssuer"),
                "names the certificate problem: {err}"
            );
            e.shutdown().await;
        }

        // The example binary, as deployed: SSL_CERT_FILE in its environment.
        let fs_url = format!("{base}/fs/mcp");
        let (ok, stdout, stderr) = count_files_over(&fs_url, Some(&trusted_ca), certs.path());
        assert!(ok, "file_utils over https: {stdout}\n{stderr}");
        // The trace shows the listing the test server sent over TLS.
        assert!(
            format!("{stdout}{stderr}").contains(r#""[FILE] a.txt\n[FILE] b.txt\n[DIR] sub""#),
            "{stdout}\n{stderr}"
        );
        for (ca, why) in [
            (None, "system roots"),
            (Some(rogue_ca.as_path()), "another CA"),
        ] {
            let (ok, stdout, stderr) = count_files_over(&fs_url, ca, certs.path());
            assert!(!ok, "{why}: must fail: {stdout}");
            assert!(
                stderr.contains("certificate") || stdout.contains("certificate"),
                "{why}: names the certificate problem:\n{stdout}\n{stderr}"
            );
        }

        drop(rogue);
        drop(nginx);
        let _ = fs_server.kill().await;
        sse_server.stop().await;
        streamable_server.stop().await;
    });
}
