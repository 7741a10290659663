//! The server's own stdin and stdout for `serve` over stdio, driven by the
//! runtime's reactor.
//!
//! tokio's `stdin()`/`stdout()` run every read and write on the blocking
//! thread pool: measured, 16 futex calls and two thread wake-ups per
//! request and reply, the larger part of a short call's latency. MCP clients
//! start servers with their standard streams on pipes (Python's
//! `subprocess`, Rust's `Command`) or on socket pairs (Node's
//! `child_process`, hence the TypeScript SDK and the inspector), and both
//! can be polled: then the serving thread reads and writes them itself.
//! Anything else (a terminal, a file) keeps tokio's blocking handles.

use tokio::io::{AsyncRead, AsyncWrite};

/// The two halves rmcp's transport takes.
pub(crate) type Halves = (
    Box<dyn AsyncRead + Send + Unpin>,
    Box<dyn AsyncWrite + Send + Unpin>,
);

/// stdin and stdout, polled by the reactor when they are pipes or sockets.
/// Must be called inside a tokio runtime with I/O enabled.
pub fn halves() -> Halves {
    #[cfg(unix)]
    if let Some(halves) = sockets::halves() {
        return halves;
    }
    // FIFOs: rmcp reopens them through /proc/self/fd, so O_NONBLOCK stays
    // on descriptions of their own; anything else: tokio's blocking
    // handles.
    let (read, write) = rmcp::transport::stdio_pipes();
    (Box::new(read), Box::new(write))
}

#[cfg(unix)]
mod sockets {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;

    use super::Halves;

    /// stdin and stdout when both are sockets. A socket cannot be reopened
    /// through /proc, so these are duplicates set non-blocking: that flag
    /// is shared with fds 0 and 1, which only this process holds (children
    /// get pipes or /dev/null) and which nothing else reads or writes while
    /// the server speaks MCP on them.
    pub(super) fn halves() -> Option<Halves> {
        let read = tokio::net::UnixStream::from_std(socket(std::io::stdin().as_fd())?).ok()?;
        let write = tokio::net::UnixStream::from_std(socket(std::io::stdout().as_fd())?).ok()?;
        tracing::debug!("stdio: serving on the sockets of stdin and stdout");
        Some((Box::new(read), Box::new(write)))
    }

    /// A non-blocking duplicate of `fd`, if it is a socket.
    fn socket(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::os::unix::net::UnixStream> {
        let owned: OwnedFd = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        if !file.metadata().ok()?.file_type().is_socket() {
            return None;
        }
        let stream = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
        stream.set_nonblocking(true).ok()?;
        Some(stream)
    }
}
