//! Random JSONata expressions over [`rng::data`](super::rng::data)'s
//! fields, built by the type they should produce so that most of them
//! mean something (the run reports the share the reference rejects).

use super::rng::{Rng, STRINGS};

/// The type an expression is built to have.
#[derive(Clone, Copy)]
enum Ty {
    Num,
    Str,
    Bool,
    Arr,
    Obj,
}

/// A random expression, at most `depth` levels of operators deep.
pub fn expr(rng: &mut Rng, depth: u32) -> String {
    let ty = rng.pick(&[Ty::Num, Ty::Str, Ty::Bool, Ty::Arr, Ty::Obj]);
    of(rng, ty, depth)
}

fn of(rng: &mut Rng, ty: Ty, depth: u32) -> String {
    if depth == 0 || rng.chance(0.2) {
        return leaf(rng, ty);
    }
    let d = depth - 1;
    if rng.chance(0.08) {
        let cond = of(rng, Ty::Bool, d);
        return format!("({cond} ? {} : {})", of(rng, ty, d), of(rng, ty, d));
    }
    match ty {
        Ty::Num => num(rng, d),
        Ty::Str => string(rng, d),
        Ty::Bool => boolean(rng, d),
        Ty::Arr => array(rng, d),
        Ty::Obj => object(rng, d),
    }
}

fn leaf(rng: &mut Rng, ty: Ty) -> String {
    let choices: &[&str] = match ty {
        Ty::Num => &[
            "n",
            "price",
            "qty",
            "nested.x",
            "items[0].price",
            "0",
            "-2",
            "1.5",
            "10",
            "x",
        ],
        Ty::Str => &[
            "s",
            "name",
            "nested.y",
            "items[0].name",
            "y",
            "\"ab\"",
            "\"\"",
            "\"12\"",
            "\" a b \"",
        ],
        Ty::Bool => &["flag", "true", "false", "absent"],
        Ty::Arr => &[
            "nums",
            "tags",
            "items",
            "nested.z",
            "items.price",
            "items.name",
            "[]",
            "[1, 2]",
            "z",
        ],
        Ty::Obj => &["nested", "items[0]", "$", "{}", "absent"],
    };
    rng.pick(choices).to_owned()
}

fn num(rng: &mut Rng, d: u32) -> String {
    match rng.below(10) {
        0..=2 => {
            let op = rng.pick(&["+", "-", "*", "/", "%"]);
            format!("({} {op} {})", of(rng, Ty::Num, d), of(rng, Ty::Num, d))
        }
        3 => format!("$count({})", of(rng, Ty::Arr, d)),
        4 => format!("$sum({})", num_array(rng, d)),
        5 => format!("$max({})", num_array(rng, d)),
        6 => format!("$length({})", of(rng, Ty::Str, d)),
        7 => format!(
            "$reduce({}, function($a, $b) {{ $a + $b }})",
            num_array(rng, d)
        ),
        8 => format!("-{}", of(rng, Ty::Num, d)),
        _ => format!("$count({}[{}])", pick_array(rng), predicate(rng, d)),
    }
}

fn string(rng: &mut Rng, d: u32) -> String {
    match rng.below(11) {
        0 | 1 => format!("({} & {})", of(rng, Ty::Str, d), any(rng, d)),
        2 => format!("$string({})", any(rng, d)),
        3 => {
            let (a, b) = (rng.below(7) as i64 - 3, rng.below(5));
            if rng.chance(0.5) {
                format!("$substring({}, {a})", of(rng, Ty::Str, d))
            } else {
                format!("$substring({}, {a}, {b})", of(rng, Ty::Str, d))
            }
        }
        4 => format!("$uppercase({})", of(rng, Ty::Str, d)),
        5 => format!("$trim({})", of(rng, Ty::Str, d)),
        6 => format!("$join({}, {})", str_array(rng, d), quoted(rng)),
        7 => {
            let (from, to) = (
                rng.pick(&["\"a\"", "\",\"", "\" \"", "/[0-9]+/", "/a|b/"]),
                quoted(rng),
            );
            format!("$replace({}, {from}, {to})", of(rng, Ty::Str, d))
        }
        8 => format!("$string({})", of(rng, Ty::Num, d)),
        9 => format!("$match({}, /[a-z]+/).match", of(rng, Ty::Str, d)),
        _ => format!("$join($keys({}), \",\")", of(rng, Ty::Obj, d)),
    }
}

fn boolean(rng: &mut Rng, d: u32) -> String {
    match rng.below(8) {
        0..=2 => {
            let op = rng.pick(&["=", "!=", "<", "<=", ">", ">="]);
            let ty = if rng.chance(0.7) { Ty::Num } else { Ty::Str };
            format!("({} {op} {})", of(rng, ty, d), of(rng, ty, d))
        }
        3 => {
            let op = rng.pick(&["and", "or"]);
            format!("({} {op} {})", of(rng, Ty::Bool, d), of(rng, Ty::Bool, d))
        }
        4 => {
            let needle = rng.pick(&["\"a\"", "\"\"", "/[0-9]/", "/^a/"]);
            format!("$contains({}, {needle})", of(rng, Ty::Str, d))
        }
        5 => format!("({} in {})", any_scalar(rng, d), of(rng, Ty::Arr, d)),
        6 => format!("$exists({})", any(rng, d)),
        _ => format!("$not({})", any(rng, d)),
    }
}

fn array(rng: &mut Rng, d: u32) -> String {
    match rng.below(14) {
        0 => format!("{}[{}]", pick_array(rng), predicate(rng, d)),
        1 => format!("[{}..{}]", rng.below(4) as i64 - 1, rng.below(6)),
        2 => format!("[{}, {}]", any(rng, d), any(rng, d)),
        3 => format!("$append({}, {})", of(rng, Ty::Arr, d), any(rng, d)),
        4 => format!("$sort({})", num_array(rng, d)),
        5 => format!("$reverse({})", of(rng, Ty::Arr, d)),
        6 => format!("$distinct({})", of(rng, Ty::Arr, d)),
        7 => format!("$split({}, {})", of(rng, Ty::Str, d), quoted(rng)),
        8 => format!(
            "$map({}, function($v) {{ {} }})",
            num_array(rng, d),
            lambda_body(rng)
        ),
        9 => format!(
            "$filter(items, function($v) {{ $v.price > {} }})",
            rng.below(5)
        ),
        10 => format!("$keys({})", of(rng, Ty::Obj, d)),
        11 => format!("$each({}, function($v, $k) {{ $k }})", of(rng, Ty::Obj, d)),
        12 => format!("$spread({})", of(rng, Ty::Obj, d)),
        _ => format!(
            "items.({} * {})",
            rng.pick(&["price", "qty"]),
            of(rng, Ty::Num, d)
        ),
    }
}

fn object(rng: &mut Rng, d: u32) -> String {
    match rng.below(5) {
        0 | 1 => {
            let fields: Vec<String> = (0..1 + rng.below(3))
                .map(|i| format!("\"k{i}\": {}", any(rng, d)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        2 => format!("$merge([{}, {}])", of(rng, Ty::Obj, d), of(rng, Ty::Obj, d)),
        3 => format!(
            "items{{name: {}}}",
            rng.pick(&["price", "$sum(price)", "qty"])
        ),
        _ => format!("$lookup({}, \"x\") ? nested : {{}}", of(rng, Ty::Obj, d)),
    }
}

fn any(rng: &mut Rng, d: u32) -> String {
    let ty = rng.pick(&[Ty::Num, Ty::Str, Ty::Bool, Ty::Arr, Ty::Obj]);
    of(rng, ty, d)
}

fn any_scalar(rng: &mut Rng, d: u32) -> String {
    let ty = rng.pick(&[Ty::Num, Ty::Str]);
    of(rng, ty, d)
}

fn pick_array(rng: &mut Rng) -> &'static str {
    rng.pick(&["nums", "items", "tags", "nested.z"])
}

fn num_array(rng: &mut Rng, d: u32) -> String {
    match rng.below(4) {
        0 => "nums".into(),
        1 => "items.price".into(),
        2 => format!("[{}, {}]", of(rng, Ty::Num, d), of(rng, Ty::Num, d)),
        _ => format!("[0..{}]", rng.below(5)),
    }
}

fn str_array(rng: &mut Rng, d: u32) -> String {
    match rng.below(3) {
        0 => "tags".into(),
        1 => "items.name".into(),
        _ => format!("$split({}, \",\")", of(rng, Ty::Str, d)),
    }
}

/// A predicate on the items of an array: the item itself (`$`) or a field.
fn predicate(rng: &mut Rng, d: u32) -> String {
    match rng.below(4) {
        0 => format!("$ > {}", rng.below(4)),
        1 => format!("price >= {}", rng.below(4)),
        2 => rng.below(3).to_string(),
        _ => of(rng, Ty::Bool, d.min(1)),
    }
}

fn lambda_body(rng: &mut Rng) -> String {
    rng.pick(&["$v * 2", "$v + 1", "$string($v)", "$v > 1", "-$v"])
        .to_owned()
}

fn quoted(rng: &mut Rng) -> String {
    let s = rng.pick(STRINGS);
    format!("\"{}\"", s.replace('"', "\\\""))
}
