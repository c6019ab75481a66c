//! The crate's shape, read from its source: three layers whose imports
//! point down only, no circle of imports between files, and functions short
//! enough to read.
//!
//! The library is read → judge → run (see the crate's documentation). A
//! test that reads the imports keeps it so: an arrow that runs back up, or
//! a circle, fails here, with the files that make it. The layers are the
//! library's; the binary (`src/main.rs` and `src/cmd/`, a crate above it)
//! is read for circles of its own. Items under `#[cfg(test)]` are left
//! out, as they are of the build.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path, from the crate root: `["read", "turn"]`.
type ModPath = Vec<String>;

/// The layers, bottom first, and the top-level modules of each.
const LAYERS: &[(&str, &[&str])] = &[
    ("read", &["error", "keywords", "read"]),
    ("judge", &["changes", "config", "gates", "judge"]),
    ("run", &["hook", "archive", "internals"]),
];

/// The longest a function may be, in lines (its comments too), outside
/// tests.
const MAX_FN_LINES: usize = 80;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir, "rs")
}

/// The module path of a library file: `src/read/mod.rs` is `read`,
/// `src/read/turn.rs` is `read::turn`, `src/lib.rs` the root.
fn module_of(file: &Path) -> ModPath {
    let rel = file.strip_prefix(src()).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The source of a file without the items under `#[cfg(test)]`, and
/// without its comment lines unless `comments` (an attribute line, then an item to its closing brace at
/// the same indentation).
fn code_of(text: &str, comments: bool) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if is_test_cfg(trimmed) {
            skip_item(&mut lines);
            continue;
        }
        // A block comment (the crate's `/*! … */` docs) holds no import.
        if trimmed.starts_with("/*") {
            if !trimmed.contains("*/") {
                lines.by_ref().find(|l| l.contains("*/"));
            }
            continue;
        }
        if !comments && trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Whether an attribute line builds its item for tests only:
/// `#[cfg(test)]`, `#[cfg(all(test, feature = "hook"))]`.
fn is_test_cfg(line: &str) -> bool {
    let Some(cfg) = line.strip_prefix("#[cfg(") else { return false };
    let words: Vec<&str> = cfg
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    let any_or_not = words.iter().any(|w| matches!(*w, "any" | "not"));
    words.contains(&"test") && !any_or_not
}

/// Pass over the item after a `#[cfg(test)]`: its other attributes, then
/// one line when it ends there (`mod tests;`, `use …;`), or every line to
/// `close`, its closing brace.
fn skip_item<'a>(lines: &mut impl Iterator<Item = &'a str>) {
    // The item's first line, past its other attributes.
    let Some(first) = lines.by_ref().find(|l| !l.trim().starts_with("#["))
    else {
        return;
    };
    // An item of one line: `mod tests;`, a field `count: usize,`.
    let t = first.trim_end();
    if t.ends_with(';') || t.ends_with(',') || t.ends_with('}') {
        return;
    }
    // A block: rustfmt closes it at the indentation it opened at.
    let indent = &first[..first.len() - first.trim_start().len()];
    let close = format!("{indent}}}");
    lines.by_ref().find(|l| l.trim_end() == close);
}

/// The `use` declarations of `code`, expanded: each imported path whole,
/// with the name it is known by (`use a::b as c` is `c`).
fn uses(code: &str) -> Vec<(Vec<String>, String)> {
    let mut out = vec![];
    let mut rest = code;
    while let Some(i) = find_use(rest) {
        let after = &rest[i..];
        let body_start = after.find("use ").unwrap() + 4;
        let end = after.find(';').unwrap();
        expand(&after[body_start..end], &mut vec![], &mut out);
        rest = &after[end..];
    }
    out
}

/// Where the next `use` declaration starts (at a line's start, after an
/// optional visibility).
fn find_use(code: &str) -> Option<usize> {
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        if t.starts_with("use ") {
            return Some(at + line.find("use ").unwrap());
        }
        at += line.len();
    }
    None
}

/// Expand one use tree (`a::{b, c::{d, e as f}}`) onto `prefix`.
fn expand(
    tree: &str,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        let n = prefix.len();
        prefix.extend(head);
        for part in split_top(inner) {
            expand(part, prefix, out);
        }
        prefix.truncate(n);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    let mut full = prefix.clone();
    full.extend(path.split("::").map(|s| s.trim().to_string()));
    if full.last().is_some_and(|s| s == "self") {
        full.pop();
    }
    let name = alias
        .map(String::from)
        .or_else(|| full.last().cloned())
        .unwrap_or_default();
    if !full.is_empty() {
        out.push((full, name));
    }
}

/// `a, b::{c, d}, e` split at its top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, vec![]);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The paths written inline in code: `crate::a::b`, `super::x::y`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let re = regex::Regex::new(
        r"\b([A-Za-z_][A-Za-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)",
    )
    .unwrap();
    re.captures_iter(code)
        .map(|c| {
            let mut p = vec![c[1].to_string()];
            p.extend(
                c[2].split("::").filter(|s| !s.is_empty()).map(String::from),
            );
            p
        })
        .collect()
}

/// The library, read: each module's file, its code and its imports.
struct Crate {
    files: BTreeMap<ModPath, PathBuf>,
    imports: BTreeMap<ModPath, Vec<(Vec<String>, String)>>,
    inline: BTreeMap<ModPath, Vec<Vec<String>>>,
}

impl Crate {
    /// The library: every file under `src/` but the binary's.
    fn read() -> Crate {
        Crate::of(|rel| !rel.starts_with("cmd") && rel != Path::new("main.rs"))
    }

    /// The binary: `src/main.rs`, its root, and `src/cmd/`.
    fn read_binary() -> Crate {
        Crate::of(|rel| rel.starts_with("cmd") || rel == Path::new("main.rs"))
    }

    /// The crate of the files under `src/` that `keep` keeps (by their
    /// path under it).
    fn of(keep: impl Fn(&Path) -> bool) -> Crate {
        let mut c = Crate {
            files: BTreeMap::new(),
            imports: BTreeMap::new(),
            inline: BTreeMap::new(),
        };
        for file in rust_files(&src()) {
            let rel = file.strip_prefix(src()).unwrap();
            if !keep(rel) {
                continue;
            }
            let mut m = module_of(&file);
            // The binary's root is its crate's, as `lib.rs` is the library's.
            if m == ["main"] {
                m.clear();
            }
            let code =
                code_of(&std::fs::read_to_string(&file).unwrap(), false);
            c.imports.insert(m.clone(), uses(&code));
            c.inline.insert(m.clone(), inline_paths(&code));
            c.files.insert(m, file);
        }
        c
    }

    /// `path` as written in module `from`, made absolute.
    fn absolute(&self, from: &ModPath, path: &[String]) -> Option<ModPath> {
        let mut base: ModPath = from.clone();
        let mut segs = path;
        match segs.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                segs = &segs[1..];
            }
            Some("super") => {
                while segs.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    segs = &segs[1..];
                }
            }
            Some("self") => segs = &segs[1..],
            // A child module of this file (`en::TABLE` in `lang/mod.rs`),
            // or a name this file imports (`use super::shown;`, then
            // `shown::find`); anything else is an outside crate.
            Some(first) => {
                let mut child = from.clone();
                child.push(first.to_string());
                let mut abs = if self.files.contains_key(&child) {
                    child
                } else {
                    let (full, _) =
                        self.imports[from].iter().find(|(_, n)| n == first)?;
                    if full.first() == Some(&segs[0]) {
                        return None; // `use memchr;`
                    }
                    self.absolute(from, full)?
                };
                abs.extend(segs[1..].iter().cloned());
                return Some(abs);
            }
            None => return None,
        }
        base.extend(segs.iter().cloned());
        Some(base)
    }

    /// The file that defines what `path` (absolute) names, following
    /// imports through the modules on the way, so that a name a `mod.rs`
    /// re-exports leads to the file that defines it.
    fn target(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let mut module: ModPath = vec![];
        for (i, seg) in path.iter().enumerate() {
            let mut next = module.clone();
            next.push(seg.clone());
            if self.files.contains_key(&next) {
                module = next;
                continue;
            }
            // An item of `module`: defined there, or imported into it.
            let imported =
                self.imports[&module].iter().find(|(_, name)| name == seg);
            if let Some((full, _)) = imported {
                let abs = self.absolute(&module, full)?;
                let mut rest = abs;
                rest.extend(path[i + 1..].iter().cloned());
                return self.target(&rest, depth + 1);
            }
            return Some(module);
        }
        Some(module)
    }

    /// The paths in `m` that lead to `t`: why the graph has that arrow.
    fn why(&self, m: &ModPath, t: &ModPath) -> Vec<String> {
        self.imports[m]
            .iter()
            .map(|(p, _)| p.clone())
            .chain(self.inline[m].iter().cloned())
            .filter(|p| {
                self.absolute(m, p)
                    .and_then(|a| self.target(&a, 0))
                    .is_some_and(|x| &x == t)
            })
            .map(|p| p.join("::"))
            .collect()
    }

    /// The files each file takes names from: module → modules.
    fn edges(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let mut out: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
        for m in self.files.keys() {
            let paths = self.imports[m]
                .iter()
                .map(|(p, _)| p.clone())
                .chain(self.inline[m].iter().cloned());
            let set = out.entry(m.clone()).or_default();
            for p in paths {
                let Some(abs) = self.absolute(m, &p) else { continue };
                if let Some(t) = self.target(&abs, 0) {
                    // An ancestor counts too: what a child takes from its
                    // parent's own file ties the two, as the parent's use
                    // of the child does.
                    if &t != m {
                        set.insert(t);
                    }
                }
            }
        }
        out
    }
}

fn layer_of(m: &ModPath) -> usize {
    let top = m.first().map_or("", String::as_str);
    LAYERS
        .iter()
        .position(|(_, mods)| mods.contains(&top))
        .unwrap_or_else(|| panic!("module {m:?} is in no layer of LAYERS"))
}

fn name(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

#[test]
fn the_layers_point_down() {
    let c = Crate::read();
    let mut up = vec![];
    for (from, tos) in c.edges() {
        if from.is_empty() {
            continue; // lib.rs declares every layer
        }
        for to in tos {
            if !to.is_empty() && layer_of(&to) > layer_of(&from) {
                up.push(format!(
                    "{} ({}) -> {} ({})",
                    name(&from),
                    LAYERS[layer_of(&from)].0,
                    name(&to),
                    LAYERS[layer_of(&to)].0
                ));
            }
        }
    }
    assert!(up.is_empty(), "imports that run back up:\n{}", up.join("\n"));
}

#[test]
fn no_file_imports_in_a_circle() {
    for c in [Crate::read(), Crate::read_binary()] {
        let circles = circles_of(&c);
        assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
    }
}

/// The circles of imports among `c`'s files, each with the imports that
/// tie it.
fn circles_of(c: &Crate) -> Vec<String> {
    let edges = c.edges();
    // Tarjan's strongly connected components.
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        circles: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = vec![];
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                scc.push(name(w));
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.circles.push(scc);
            }
        }
    }
    let mut s = State {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on: BTreeSet::new(),
        circles: vec![],
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    let mut circles: Vec<String> = vec![];
    for circle in &s.circles {
        circles.push(circle.join(" <-> "));
        let m = |n: &String| -> ModPath {
            if n == "crate" {
                vec![]
            } else {
                n.split("::").map(String::from).collect()
            }
        };
        for a in circle {
            for b in circle {
                let why = c.why(&m(a), &m(b));
                if !why.is_empty() && a != b {
                    circles.push(format!("  {a} -> {b}: {}", why.join(", ")));
                }
            }
        }
    }
    circles
}

/// The graph is read, not assumed: known arrows are there.
#[test]
fn the_graph_sees_known_imports() {
    let edges = Crate::read().edges();
    let m = |s: &str| s.split("::").map(String::from).collect::<ModPath>();
    // `use super::plain_audit::PlainAudit` in gates/shown.rs.
    assert!(edges[&m("gates::shown")].contains(&m("gates::plain_audit")));
    // `crate::read::{ToolCall, Turn}`, re-exported by read/mod.rs from
    // turn.rs.
    assert!(edges[&m("changes::turn")].contains(&m("read::turn")));
    // judge.rs takes `Config` from config.rs.
    assert!(edges[&m("judge")].contains(&m("config")));
}

#[test]
fn functions_are_short_enough_to_read() {
    let fn_re = regex::Regex::new(
        r#"^(\s*)(?:pub(?:\([a-z]+\))? )?(?:const )?(?:unsafe )?(?:extern "C" )?fn (\w+)"#,
    )
    .unwrap();
    let mut long = vec![];
    for file in rust_files(&src()) {
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_of(&text, true);
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(c) = fn_re.captures(line) else { continue };
            if line.trim_end().ends_with(';') {
                continue; // a declaration in a trait
            }
            let close = format!("{}}}", &c[1]);
            let Some(len) = lines[i..].iter().position(|l| *l == close) else {
                continue;
            };
            if len + 1 > MAX_FN_LINES {
                long.push(format!(
                    "{}: fn {} is {} lines",
                    file.strip_prefix(src()).unwrap().display(),
                    &c[2],
                    len + 1
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        long.join("\n")
    );
}
