// Every build-time check against a lock (`lock_checks.lock.json`, beside the
// graph): a tool the server lacks, a required argument missing, arguments
// a closed schema refuses or an open one does not list, a literal of the
// wrong type, an `{expr}` argument of another type, paths into an output
// its `outputSchema` does not allow, and lock coverage. The warnings are
// denied (`deny(warnings)`), so that each shows here as an error.
mcpgraph::mcpgraph!("ui/lock_checks.yaml", deny(warnings));

fn main() -> std::process::ExitCode {
    Server::main()
}
