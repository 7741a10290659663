//! The tools the test server lists: `(name, description)`.

pub const TOOLS: &[(&str, &str)] = &[
    (
        "structured",
        "Returns `value` as structuredContent (and as text)",
    ),
    ("json_text", "Returns `value` serialised as JSON text"),
    ("text", "Returns `text` as a plain text item"),
    ("image", "Returns an image item"),
    (
        "echo_meta",
        "Returns the request's _meta as structuredContent",
    ),
    (
        "ask",
        "Asks for the user's name, then the model's opinion (input_required rounds)",
    ),
    (
        "ask_each",
        "Asks each question of `ask` the client declared it answers (elicitation, sampling, roots), in one input_required round",
    ),
    ("audio", "Returns a text item, then a WAV as an audio item"),
    ("empty", "Returns no content at all"),
    ("fail", "Returns isError with `message`"),
    (
        "echo_args",
        "Returns the arguments it received as structuredContent",
    ),
    ("sleep", "Waits `ms` milliseconds, then returns {slept: ms}"),
    (
        "read_slowly",
        "Appends `item` to the file `log`, waits `ms`, returns {item}; read-only",
    ),
    (
        "write_slowly",
        "Appends `item` to the file `log`, waits `ms`, returns {item}; neither read-only nor idempotent",
    ),
    (
        "crash",
        "Writes `stderr_lines` lines (default 1) on stderr, then exits 3 without answering",
    ),
    (
        "hang",
        "Never answers; counts the call as cancelled when the client cancels it",
    ),
    (
        "freeze",
        "Blocks the whole process (pings go unanswered too) for `ms` (default: an hour)",
    ),
    (
        "garbage",
        "Writes a non-JSON line on stdout, then answers {ok: true} (or never, if `answer` is false)",
    ),
    (
        "malformed",
        "Answers with a JSON line that is not a valid reply, then never properly",
    ),
    ("huge", "Returns a text item of `bytes` bytes"),
    (
        "flaky",
        "Fails the first `failures` calls counted in the file `counter` (`how`: crash, hang or error), then returns {call: n}",
    ),
    (
        "wedge",
        "Never answers, and neither does its session afterwards (pings included); other sessions are served",
    ),
    (
        "stats",
        "Returns {calls, cancelled, protocol}: tool calls so far, hang calls cancelled by the client, and the call's protocol version",
    ),
    (
        "list_directory",
        "file_utils' tool: `path` `@crash`, `@hang`, `@garbage`, `@malformed`, `@huge:<bytes>` misbehave",
    ),
];
