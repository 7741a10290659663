//! The reference side: one long-running `node tests/differential/reference.mjs`
//! child fed every case as a JSON line on stdin (by a writer thread) and
//! read back, one JSON line per case, by a reader thread, while the runner
//! evaluates its own side.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

use serde_json::{Value, json};

use super::corpus::{Case, Input};

/// The running reference process.
pub struct Reference {
    child: Child,
    writer: JoinHandle<std::io::Result<()>>,
    reader: JoinHandle<Result<(), String>>,
    results: mpsc::Receiver<Value>,
    next: usize,
}

impl Reference {
    /// Starts the reference on every case (`DIFFERENTIAL_NODE` names the
    /// node binary; `node` on the PATH by default).
    pub fn start(root: &Path, cases: &[Case]) -> Result<Self, String> {
        let node = std::env::var("DIFFERENTIAL_NODE").unwrap_or_else(|_| "node".into());
        let script = root.join("tests/differential/reference.mjs");
        let mut child = Command::new(&node)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start `{node} {}`: {e}", script.display()))?;
        let requests: Vec<String> = cases
            .iter()
            .enumerate()
            .map(|(id, case)| request(id, case).to_string())
            .collect();
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let writer = std::thread::spawn(move || {
            let mut out = BufWriter::new(stdin);
            for line in requests {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            out.flush()
        });
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (sender, results) = mpsc::sync_channel(4096);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.map_err(|e| e.to_string())?;
                let value: Value = serde_json::from_str(&line)
                    .map_err(|e| format!("reference said `{line}`: {e}"))?;
                if sender.send(value).is_err() {
                    break;
                }
            }
            Ok(())
        });
        Ok(Self {
            child,
            writer,
            reader,
            results,
            next: 0,
        })
    }

    /// The result of the next case, in case order.
    pub fn next_result(&mut self) -> Result<Value, String> {
        let value = self
            .results
            .recv()
            .map_err(|_| format!("the reference stopped before case {}", self.next))?;
        if value["id"].as_u64() != Some(self.next as u64) {
            return Err(format!(
                "case {}: the reference answered {value}",
                self.next
            ));
        }
        self.next += 1;
        Ok(value)
    }

    /// Waits for the process to end.
    pub fn finish(mut self) -> Result<(), String> {
        drop(self.results);
        let written = self.writer.join().map_err(|_| "the writer panicked")?;
        let read = self.reader.join().map_err(|_| "the reader panicked")?;
        let status = self.child.wait().map_err(|e| e.to_string())?;
        written.map_err(|e| format!("writing to the reference: {e}"))?;
        read?;
        if !status.success() {
            return Err(format!("the reference exited with {status}"));
        }
        Ok(())
    }
}

fn request(id: usize, case: &Case) -> Value {
    match &case.input {
        Input::Jsonata(expr) => {
            json!({"id": id, "kind": "jsonata", "expr": expr, "data": case.data})
        }
        Input::Logic(rule) => json!({"id": id, "kind": "logic", "rule": rule, "data": case.data}),
    }
}
