//! One HTTP/1.1 message (a request or a response) read off a byte stream:
//! the start line, the headers, and the body framed by `Content-Length`,
//! by chunked transfer coding or, for a response, by the end of the stream
//! (none for a response to `HEAD` or with status 1xx, 204 or 304).
//!
//! The one reader of the test harness ([`crate::raw_http`], on a response
//! read to the end), the OTLP test's receiver (requests on a kept-alive
//! connection) and the benchmarks' HTTP client (responses on a kept-alive
//! connection). Blocking `std::io` only, so that each of them can use it;
//! it writes nothing and does not panic: a malformed message is an `Err`.
//! A chunked body cut short by the end of the stream ends there (a server
//! that closes an event stream mid-way), keeping what arrived.

use std::io::{BufRead, Read};

/// One message as read.
#[derive(Debug, Clone)]
pub struct Message {
    /// `METHOD TARGET HTTP/1.1` or `HTTP/1.1 STATUS REASON`.
    pub start_line: String,
    /// Header names lower-cased, values trimmed, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Message {
    /// The first header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The status code of a response (the start line's second word).
    pub fn status(&self) -> Result<u16, String> {
        self.start_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {:?}", self.start_line))
    }
}

/// The first header `name` (case-insensitive) of `headers` (names lower-cased).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Reads one request; `None` when the stream ends before a request line.
/// A request with neither `Content-Length` nor chunked coding has no body.
pub fn read_request(reader: &mut impl BufRead) -> Result<Option<Message>, String> {
    read_message(reader, None)
}

/// Reads the response to a `method` request. A response to `HEAD`, or with
/// status 1xx, 204 or 304, has no body; one with neither `Content-Length`
/// nor chunked coding has the rest of the stream as its body.
pub fn read_response(reader: &mut impl BufRead, method: &str) -> Result<Message, String> {
    read_message(reader, Some(method))?.ok_or_else(|| "connection closed".to_owned())
}

/// One message; `request_method` is `None` for a request, the method of the
/// request answered for a response.
fn read_message(
    reader: &mut impl BufRead,
    request_method: Option<&str>,
) -> Result<Option<Message>, String> {
    let Some(start_line) = read_line(reader)? else {
        return Ok(None);
    };
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?.ok_or("connection closed in the headers")?;
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut message = Message {
        start_line,
        headers,
        body: Vec::new(),
    };
    if let Some(method) = request_method {
        let status = message.status()?;
        if method.eq_ignore_ascii_case("HEAD") || status < 200 || status == 204 || status == 304 {
            return Ok(Some(message));
        }
    }
    let chunked = message
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length = message.header("content-length").map(str::parse::<u64>);
    message.body = match (chunked, length) {
        (true, _) => read_chunked(reader)?,
        (false, Some(Ok(n))) => {
            let mut body = Vec::new();
            reader
                .take(n)
                .read_to_end(&mut body)
                .map_err(|e| format!("read: {e}"))?;
            if body.len() as u64 != n {
                return Err(format!(
                    "connection closed after {} of {n} bytes",
                    body.len()
                ));
            }
            body
        }
        (false, Some(Err(e))) => return Err(format!("bad content-length: {e}")),
        (false, None) if request_method.is_some() => {
            let mut body = Vec::new();
            reader
                .read_to_end(&mut body)
                .map_err(|e| format!("read: {e}"))?;
            body
        }
        (false, None) => Vec::new(),
    };
    Ok(Some(message))
}

/// A chunked body, up to its last chunk and trailers or the end of the stream.
fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(size_line) = read_line(reader)? {
        let size = u64::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|e| format!("bad chunk size {size_line:?}: {e}"))?;
        if size == 0 {
            while read_line(reader)?.is_some_and(|trailer| !trailer.is_empty()) {}
            break;
        }
        let got = reader
            .take(size)
            .read_to_end(&mut body)
            .map_err(|e| format!("read: {e}"))?;
        if (got as u64) < size {
            break;
        }
        read_line(reader)?;
    }
    Ok(body)
}

/// One line without its line end; `None` at the end of the stream.
fn read_line(reader: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    let n = reader
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("read: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&line).trim_end().to_owned()))
}
