//! The runner's seeded randomness: a SplitMix64 generator (no dependency,
//! same sequence on every platform) and the random JSON data both
//! generators evaluate their cases on.

use serde_json::{Map, Value, json};

/// SplitMix64: tiny, fast, and good enough to draw test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Numbers the cases use: zero, negatives, fractions, big and small.
const NUMBERS: &[f64] = &[
    0.0, 1.0, 2.0, 3.0, -1.0, -2.5, 0.5, 10.0, 1.5, 100.0, 7.0, -0.0, 1e21, 0.1,
];

/// Strings: empty, numeric, with spaces and commas (for `$trim`/`$split`).
pub const STRINGS: &[&str] = &[
    "", "a", "abc", "Hello", "1", "10", "2.5", "-3", "0", " padded ", "a,b,c", "x y", "true",
    "null",
];

pub fn number(rng: &mut Rng) -> Value {
    let n = rng.pick(NUMBERS);
    if rng.chance(0.2) {
        json!((rng.below(2000) as f64 - 1000.0) / 8.0)
    } else {
        json!(n)
    }
}

pub fn string(rng: &mut Rng) -> Value {
    Value::from(rng.pick(STRINGS))
}

/// Any scalar: numbers, strings, booleans, null.
pub fn scalar(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0..=2 => number(rng),
        3..=5 => string(rng),
        6 => Value::Bool(rng.chance(0.5)),
        _ => Value::Null,
    }
}

/// Any value, nesting at most `depth` levels of arrays and objects.
pub fn value(rng: &mut Rng, depth: u32) -> Value {
    if depth == 0 || rng.chance(0.6) {
        return scalar(rng);
    }
    let len = rng.below(4);
    if rng.chance(0.5) {
        Value::Array((0..len).map(|_| value(rng, depth - 1)).collect())
    } else {
        let mut map = Map::new();
        for _ in 0..len {
            let key = rng.pick(FIELDS);
            map.insert(key.to_owned(), value(rng, depth - 1));
        }
        Value::Object(map)
    }
}

/// The field names of generated data, which generated paths read.
pub const FIELDS: &[&str] = &[
    "n", "price", "qty", "s", "name", "flag", "nums", "tags", "items", "nested", "x", "y", "z",
];

/// The data a generated case runs on: an object with the fields
/// [`FIELDS`] name, each usually of its expected type, sometimes of
/// another (mixed types) and sometimes absent (missing paths).
pub fn data(rng: &mut Rng) -> Value {
    let mut map = Map::new();
    for &field in FIELDS {
        if rng.chance(0.1) {
            continue;
        }
        let value = if rng.chance(0.1) {
            value(rng, 2)
        } else {
            typed_field(rng, field)
        };
        map.insert(field.to_owned(), value);
    }
    Value::Object(map)
}

fn typed_field(rng: &mut Rng, field: &str) -> Value {
    match field {
        "n" | "price" | "qty" | "x" => number(rng),
        "s" | "name" | "y" => string(rng),
        "flag" => Value::Bool(rng.chance(0.5)),
        "nums" => Value::Array((0..rng.below(5)).map(|_| number(rng)).collect()),
        "tags" => Value::Array((0..rng.below(4)).map(|_| string(rng)).collect()),
        "items" => Value::Array((0..rng.below(4)).map(|_| item(rng)).collect()),
        "nested" => json!({"x": number(rng), "y": string(rng), "z": [number(rng), number(rng)]}),
        _ => value(rng, 2),
    }
}

fn item(rng: &mut Rng) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), string(rng));
    map.insert("price".into(), number(rng));
    if rng.chance(0.8) {
        map.insert("qty".into(), number(rng));
    }
    if rng.chance(0.3) {
        map.insert("tags".into(), json!([string(rng)]));
    }
    Value::Object(map)
}

/// Data for an expression that came without any (graph files, suite
/// cases): every dotted name path it spells (`entry.a.b`) present, with
/// a random value at its end.
pub fn data_for(source: &str, rng: &mut Rng) -> Value {
    let mut root = Value::Object(Map::new());
    for path in name_paths(source) {
        let mut current = &mut root;
        for (i, name) in path.iter().enumerate() {
            let Value::Object(map) = current else { break };
            let last = i + 1 == path.len();
            current = map.entry(name.clone()).or_insert_with(|| {
                if last {
                    value(rng, 2)
                } else {
                    Value::Object(Map::new())
                }
            });
        }
    }
    root
}

/// The dotted paths of plain names in `source` (not `$variables`, not
/// inside string literals).
fn name_paths(source: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut chars = source.chars().peekable();
    let mut quote = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
        } else if c.is_alphabetic() || c == '_' {
            let mut name = String::from(c);
            while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                name.push(d);
                chars.next();
            }
            current.push(name);
            if chars.peek() == Some(&'.') {
                chars.next();
                continue;
            }
        } else if c == '$' {
            while chars
                .peek()
                .is_some_and(|d| d.is_alphanumeric() || *d == '_')
            {
                chars.next();
            }
            if chars.peek() == Some(&'.') {
                chars.next();
                continue;
            }
        }
        if !current.is_empty() {
            paths.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        paths.push(current);
    }
    paths
}
