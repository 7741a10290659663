//! Switch rules (JSON Logic) compiled into trees: operators resolved to
//! [`Op`], constant parts kept as JSON, and the generator's slot reads
//! (`{"val": [SLOT_KEY, "i"]}`) turned into [`Node::Slot`]. The generator
//! compiles each rule here and writes the tree out as Rust; the runtime
//! evaluates it, and compiles here the rules it is given as text.

use serde_json::Value as Json;

/// How deeply a rule's arrays and objects may nest. Compiling and
/// evaluating a rule recurse on it, so a deeper rule is refused rather
/// than risking the stack; and the generator refuses a graph's YAML nested
/// deeper than this (`mcpgraph-codegen`'s `yaml::MAX_DEPTH` is this
/// constant), so every rule of a graph is within it.
pub const MAX_RULE_DEPTH: usize = 64;

/// The key of a switch rule's data under which the runtime puts the values
/// of the rule's `var`s (slots): the generator rewrites every `var` into a
/// read under this key. A NUL character cannot clash with a node id anyone
/// writes.
pub const SLOT_KEY: &str = "\u{0}";

/// The operators of json-logic-js 2.0.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    StrictEq,
    Ne,
    StrictNe,
    Gt,
    Ge,
    Lt,
    Le,
    Not,
    NotNot,
    Or,
    And,
    If,
    In,
    Cat,
    Substr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Max,
    Min,
    Merge,
    Var,
    Missing,
    MissingSome,
    All,
    Some,
    None,
    Map,
    Filter,
    Reduce,
    Log,
}

impl Op {
    /// The operator json-logic-js calls `name`.
    pub fn named(name: &str) -> Option<Op> {
        use Op::*;
        Option::Some(match name {
            "==" => Eq,
            "===" => StrictEq,
            "!=" => Ne,
            "!==" => StrictNe,
            ">" => Gt,
            ">=" => Ge,
            "<" => Lt,
            "<=" => Le,
            "!" => Not,
            "!!" => NotNot,
            "or" => Or,
            "and" => And,
            "if" | "?:" => If,
            "in" => In,
            "cat" => Cat,
            "substr" => Substr,
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Mod,
            "max" => Max,
            "min" => Min,
            "merge" => Merge,
            "var" => Var,
            "missing" => Missing,
            "missing_some" => MissingSome,
            "all" => All,
            "some" => Some,
            "none" => None,
            "map" => Map,
            "filter" => Filter,
            "reduce" => Reduce,
            "log" => Log,
            _ => return Option::None,
        })
    }
}

/// A compiled rule or part of one.
#[derive(Debug, PartialEq)]
pub enum Node {
    /// A constant number, converted once.
    Num(f64),
    /// A constant string.
    Str(String),
    /// Any other constant: `true`, `false`, `null`, an array without
    /// operations inside, or an object that is not an operation (not
    /// exactly one key).
    Lit(Json),
    /// An array with operations inside: evaluated item by item.
    Array(Box<[Node]>),
    /// The value of slot `i` (a `var` the generator lifted out).
    Slot(usize),
    /// A comparison or `in` written with two arguments (see [`is_binary`]).
    Binary(Op, Box<[Node; 2]>),
    /// Any other operation.
    Apply(Op, Args),
    /// An operator json-logic-js does not know: an error if evaluated.
    Unknown(Box<str>),
}

/// An operation's arguments.
#[derive(Debug, PartialEq)]
pub enum Args {
    /// One node per argument.
    List(Box<[Node]>),
    /// A slot standing for the whole argument list (`{"!": {"var": ..}}`).
    /// mcpGraph substitutes the value before json-logic-js looks at the
    /// arguments, so an array value is the argument list.
    Spread(usize),
}

/// Compiles a rule. It recurses on the rule: callers bound its depth first
/// (see [`nesting`]).
pub fn compile(rule: &Json) -> Node {
    match rule {
        Json::Array(items) => {
            let nodes: Vec<Node> = items.iter().map(compile).collect();
            if nodes.iter().all(Node::is_const) {
                Node::Lit(rule.clone())
            } else {
                Node::Array(nodes.into())
            }
        }
        Json::Object(map) if map.len() == 1 => {
            let Some((name, args)) = map.iter().next() else {
                return Node::Lit(rule.clone());
            };
            if let Some(slot) = slot_read(name, args) {
                return Node::Slot(slot);
            }
            let Some(op) = Op::named(name) else {
                return Node::Unknown(name.as_str().into());
            };
            let args = match args {
                Json::Array(items) if items.len() == 2 && is_binary(op) => {
                    return Node::Binary(op, Box::new([compile(&items[0]), compile(&items[1])]));
                }
                Json::Array(items) => Args::List(items.iter().map(compile).collect()),
                other => match compile(other) {
                    Node::Slot(slot) => Args::Spread(slot),
                    node => Args::List(Box::new([node])),
                },
            };
            Node::Apply(op, args)
        }
        Json::Number(n) => Node::Num(n.as_f64().unwrap_or(f64::NAN)),
        Json::String(s) => Node::Str(s.clone()),
        _ => Node::Lit(rule.clone()),
    }
}

/// How deeply `value`'s arrays and objects nest, if no deeper than `limit`;
/// measured without recursion, for values of any depth.
pub fn nesting(value: &Json, limit: usize) -> Option<usize> {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Json>> = match value {
            Json::Array(items) => Box::new(items.iter()),
            Json::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        let depth = depth + 1;
        if depth > limit {
            return None;
        }
        deepest = deepest.max(depth);
        stack.extend(children.map(|child| (child, depth)));
    }
    Some(deepest)
}

/// The slot a generated `{"val": [[depth]?, SLOT_KEY, "i"]}` reads.
fn slot_read(name: &str, args: &Json) -> Option<usize> {
    if name != "val" {
        return None;
    }
    let path = match args.as_array()?.as_slice() {
        [Json::Array(_), key, slot] | [key, slot] => (key, slot),
        _ => return None,
    };
    match path {
        (Json::String(key), Json::String(slot)) if key == SLOT_KEY => slot.parse().ok(),
        _ => None,
    }
}

impl Node {
    fn is_const(&self) -> bool {
        matches!(self, Node::Num(_) | Node::Str(_) | Node::Lit(_))
    }

    /// The first operator json-logic-js would not know, if any.
    pub fn unknown(&self) -> Option<&str> {
        match self {
            Node::Unknown(name) => Some(name),
            Node::Array(nodes) | Node::Apply(_, Args::List(nodes)) => {
                nodes.iter().find_map(Node::unknown)
            }
            Node::Binary(_, pair) => pair.iter().find_map(Node::unknown),
            _ => None,
        }
    }

    /// The number of slots the rule reads (one more than the highest).
    pub fn slots(&self) -> usize {
        match self {
            Node::Slot(i) | Node::Apply(_, Args::Spread(i)) => i + 1,
            Node::Array(nodes) | Node::Apply(_, Args::List(nodes)) => {
                nodes.iter().map(Node::slots).max().unwrap_or(0)
            }
            Node::Binary(_, pair) => pair.iter().map(Node::slots).max().unwrap_or(0),
            _ => 0,
        }
    }
}

/// Whether `op` written with two arguments compiles to [`Node::Binary`]
/// (the runtime applies it to the pair directly).
pub fn is_binary(op: Op) -> bool {
    use Op::*;
    matches!(op, Eq | Ne | StrictEq | StrictNe | Gt | Ge | Lt | Le | In)
}
