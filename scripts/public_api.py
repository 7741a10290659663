#!/usr/bin/env python3
"""The public API of the `mcpgraph` facade as a sorted list of lines, from
rustdoc's JSON output of the facade and of the crates it re-exports from.

Usage: public_api.py FACADE.json DEP.json... > public-api.txt

Each line is one item a user can name, with its signature: the facade's
re-exports resolved to the items they name (rustdoc's JSON does not inline
items of other crates), their public fields, variants, inherent methods,
trait items and the traits they implement. `#[doc(hidden)]` items are left
out: they are the generator's contract, not the API.
"""

import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


class Crate:
    def __init__(self, doc):
        self.doc = doc
        self.index = doc["index"]
        self.by_path = {}
        for id_, summary in doc["paths"].items():
            if summary["crate_id"] == 0:
                self.by_path[tuple(summary["path"])] = id_

    def item(self, id_):
        return self.index.get(str(id_))


def hidden(item):
    return any("doc(hidden)" in str(a) for a in item.get("attrs", []))


def ty(t):
    """A type as Rust spells it (enough to see a change)."""
    if t is None:
        return "()"
    (kind, v), = t.items()
    if kind == "primitive":
        return v
    if kind == "generic":
        return v
    if kind == "resolved_path":
        return v["path"] + args(v.get("args"))
    if kind == "borrowed_ref":
        life = (v["lifetime"] + " ") if v.get("lifetime") else ""
        mut = "mut " if v["is_mutable"] else ""
        return f"&{life}{mut}{ty(v['type'])}"
    if kind == "raw_pointer":
        return f"*{'mut' if v['is_mutable'] else 'const'} {ty(v['type'])}"
    if kind == "tuple":
        return "(" + ", ".join(ty(x) for x in v) + ")"
    if kind == "slice":
        return f"[{ty(v)}]"
    if kind == "array":
        return f"[{ty(v['type'])}; {v['len']}]"
    if kind == "impl_trait":
        return "impl " + " + ".join(bound(b) for b in v)
    if kind == "dyn_trait":
        parts = [p["trait"]["path"] + args(p["trait"].get("args")) for p in v["traits"]]
        if v.get("lifetime"):
            parts.append(v["lifetime"])
        return "dyn " + " + ".join(parts)
    if kind == "qualified_path":
        trait = v.get("trait")
        trait_s = f" as {trait['path']}" if trait else ""
        return f"<{ty(v['self_type'])}{trait_s}>::{v['name']}"
    if kind == "function_pointer":
        sig = v["sig"]
        ins = ", ".join(ty(t) for _, t in sig["inputs"])
        return f"fn({ins}) -> {ty(sig.get('output'))}"
    return kind


def args(a):
    if not a:
        return ""
    if "angle_bracketed" in a:
        ab = a["angle_bracketed"]
        parts = []
        for g in ab["args"]:
            (k, v), = g.items()
            parts.append(ty(v) if k == "type" else (v if k == "lifetime" else str(v)))
        for c in ab.get("constraints", []):
            binding = c.get("binding", {})
            if "equality" in binding:
                eq = binding["equality"]
                parts.append(f"{c['name']} = {ty(eq['type']) if 'type' in eq else eq}")
        return "<" + ", ".join(parts) + ">" if parts else ""
    if "parenthesized" in a:
        p = a["parenthesized"]
        return "(" + ", ".join(ty(x) for x in p["inputs"]) + ")" + (
            f" -> {ty(p['output'])}" if p.get("output") else "")
    return ""


def bound(b):
    if "trait_bound" in b:
        t = b["trait_bound"]["trait"]
        return t["path"] + args(t.get("args"))
    if "outlives" in b:
        return b["outlives"]
    return str(b)


def generics(g):
    params = []
    for p in g.get("params", []):
        kind = p["kind"]
        if "type" in kind:
            bounds = kind["type"].get("bounds", [])
            params.append(p["name"] + (": " + " + ".join(bound(b) for b in bounds) if bounds else ""))
        elif "lifetime" in kind:
            params.append(p["name"])
        elif "const" in kind:
            params.append(f"const {p['name']}: {ty(kind['const']['type'])}")
    return "<" + ", ".join(params) + ">" if params else ""


def function(name, f):
    sig = f["sig"]
    header = f.get("header", {})
    prefix = ("const " if header.get("is_const") else "") + ("async " if header.get("is_async") else "")
    ins = ", ".join(
        "self" if n == "self" and ty(t) == "Self"
        else ("&self" if n == "self" and ty(t) == "&Self" else f"{n}: {ty(t)}")
        for n, t in sig["inputs"])
    out = sig.get("output")
    ret = f" -> {ty(out)}" if out is not None else ""
    return f"{prefix}fn {name}{generics(f['generics'])}({ins}){ret}"


def render(crate, id_, path, out):
    item = crate.item(id_)
    if item is None or hidden(item):
        return
    (kind, inner), = item["inner"].items()
    if kind == "struct":
        out.add(f"pub struct {path}{generics(inner['generics'])}")
        fields = inner["kind"].get("plain", {}).get("fields", [])
        for fid in fields:
            field = crate.item(fid)
            if field and field["visibility"] == "public" and not hidden(field):
                out.add(f"pub {path}::{field['name']}: {ty(field['inner']['struct_field'])}")
        impls(crate, inner["impls"], path, out)
    elif kind == "enum":
        attrs = " ".join(str(a) for a in item.get("attrs", []))
        marker = "#[non_exhaustive] " if "non_exhaustive" in attrs else ""
        out.add(f"{marker}pub enum {path}{generics(inner['generics'])}")
        for vid in inner["variants"]:
            variant = crate.item(vid)
            vk = variant["inner"]["variant"]["kind"]
            if isinstance(vk, dict) and "tuple" in vk:
                fields = [ty(crate.item(f)["inner"]["struct_field"]) for f in vk["tuple"] if f is not None]
                out.add(f"{path}::{variant['name']}({', '.join(fields)})")
            elif isinstance(vk, dict) and "struct" in vk:
                names = [crate.item(f)["name"] + ": " + ty(crate.item(f)["inner"]["struct_field"])
                         for f in vk["struct"]["fields"]]
                out.add(f"{path}::{variant['name']} {{ {', '.join(names)} }}")
            else:
                out.add(f"{path}::{variant['name']}")
        impls(crate, inner["impls"], path, out)
    elif kind == "trait":
        out.add(f"pub trait {path}{generics(inner['generics'])}")
        for tid in inner["items"]:
            member = crate.item(tid)
            if member is None or hidden(member):
                continue
            (mk, mi), = member["inner"].items()
            if mk == "function":
                out.add(f"{path}::{function(member['name'], mi)}")
            elif mk == "assoc_const":
                out.add(f"const {path}::{member['name']}: {ty(mi['type'])}")
            elif mk == "assoc_type":
                out.add(f"type {path}::{member['name']}")
    elif kind == "function":
        out.add(f"pub {function(path, inner)}")
    elif kind == "type_alias":
        out.add(f"pub type {path} = {ty(inner['type'])}")
    elif kind == "macro":
        out.add(f"macro {path}!")
    else:
        out.add(f"pub {kind} {path}")


def impls(crate, ids, path, out):
    for iid in ids:
        impl = crate.item(iid)
        if impl is None or hidden(impl):
            continue
        inner = impl["inner"]["impl"]
        if inner.get("is_synthetic") or inner.get("blanket_impl"):
            continue
        trait = inner.get("trait")
        if trait:
            if trait["path"] in ("StructuralPartialEq",):
                continue
            out.add(f"impl {trait['path']}{args(trait.get('args'))} for {path}")
            continue
        for mid in inner["items"]:
            member = crate.item(mid)
            if member is None or member["visibility"] != "public" or hidden(member):
                continue
            (mk, mi), = member["inner"].items()
            if mk == "function":
                out.add(f"pub {path}::{function(member['name'], mi)}")
            elif mk == "assoc_const":
                out.add(f"pub const {path}::{member['name']}: {ty(mi['type'])}")


def main():
    facade = load(sys.argv[1])
    deps = {}
    for path in sys.argv[2:]:
        doc = load(path)
        name = doc["index"][str(doc["root"])]["name"]
        deps[name] = Crate(doc)
    root_name = facade["index"][str(facade["root"])]["name"]
    out = set()
    root = facade["index"][str(facade["root"])]["inner"]["module"]
    for id_ in root["items"]:
        item = facade["index"][str(id_)]
        if hidden(item):
            continue
        (kind, inner), = item["inner"].items()
        if kind != "use":
            render(Crate(facade), id_, f"{root_name}::{item['name']}", out)
            continue
        target = facade["paths"].get(str(inner["id"]))
        public = f"{root_name}::{inner['name']}"
        crate_name = target["path"][0] if target else None
        dep = deps.get(crate_name)
        if target is None or dep is None:
            out.add(f"pub use {public} ({inner['source']})")
            continue
        if target["kind"] == "macro":
            out.add(f"macro {public}!")
            continue
        dep_id = dep.by_path.get(tuple(target["path"]))
        if dep_id is None:
            out.add(f"pub use {public} ({inner['source']})")
            continue
        render(dep, dep_id, public, out)
    for line in sorted(out):
        print(line)


if __name__ == "__main__":
    main()
