//! `auth login|logout|status SERVER`: OAuth for a downstream server.

use clap::Subcommand;

/// `auth` sub-commands.
#[derive(Subcommand, Debug)]
pub(in crate::cli) enum AuthCommand {
    /// Log in to SERVER and keep its tokens (a file only you can read).
    Login {
        /// The downstream server (a key of `mcpServers`).
        server: String,
    },
    /// Forget SERVER's tokens.
    Logout {
        /// The downstream server.
        server: String,
    },
    /// Whether there are tokens for SERVER, and where they are kept.
    Status {
        /// The downstream server.
        server: String,
    },
}
