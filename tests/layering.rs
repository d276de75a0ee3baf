//! The module layers of `src/lib.rs`'s `# Layout`, checked on the import graph of the sources.
//!
//! Every `use` tree and every `crate::`/`super::`/`self::` path in code (comments, strings and
//! test modules left out) is resolved to the file of the module it names, which gives a graph of
//! files. On that graph: no file-level import cycle; nothing below the commands imports them;
//! the bots know no game; the wire knows no game; the rules know no terminal, runtime or network;
//! the engine and the session are pure. A module declaring and re-exporting its own children is
//! structure, not an import, and is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file under `src/` is (`games/mia/ui/mod.rs` → `games::mia::ui`).
fn module_of(rel: &str) -> Module {
    let mut parts: Module = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `text` without comments, and with every string and char literal emptied; the line breaks
/// stay, so a place in it is on the line it was on in `text`.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        let from = i;
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.extend(std::iter::repeat_n('\n', line_breaks(&b[from..i])));
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&b, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            out.extend(std::iter::repeat_n(
                '\n',
                line_breaks(&b[from..j.min(b.len())]),
            ));
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
            out.extend(std::iter::repeat_n(
                '\n',
                line_breaks(&b[from..i.min(b.len())]),
            ));
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            let close = if next == Some('\\') {
                (i + 2..b.len().min(i + 12)).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    out.push_str("' '");
                    i = k + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn line_breaks(b: &[char]) -> usize {
    b.iter().filter(|c| **c == '\n').count()
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// `code` without the bodies of inline `#[cfg(test)] mod name { … }` modules (their line breaks
/// stay).
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let t = after.trim_start();
        let is_inline_mod =
            t.starts_with("mod ") && t.find(['{', ';']).is_some_and(|k| t.as_bytes()[k] == b'{');
        if !is_inline_mod {
            out.push_str(&rest[..at + "#[cfg(test)]".len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let open = after.find('{').unwrap();
        let mut depth = 0usize;
        let mut end = after.len();
        for (k, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.extend(std::iter::repeat_n(
            '\n',
            after[..end].matches('\n').count(),
        ));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The paths a `use` tree names (`a::{b, c::{d as e}}` → `a::b`, `a::c::d`).
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    // Renames go first (`d as e,` → `d,`), then the blanks.
    let mut words = tree.split_whitespace();
    let mut tree = String::new();
    while let Some(w) = words.next() {
        if w == "as" {
            let renamed = words.next().unwrap_or("");
            tree.push_str(renamed.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
        } else {
            tree.push_str(w);
        }
    }
    let mut out = Vec::new();
    expand(&[], &tree, &mut out);
    out
}

fn expand(prefix: &[String], t: &str, out: &mut Vec<Vec<String>>) {
    if let Some(inner) = t.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        for item in split_top(inner) {
            expand(prefix, item, out);
        }
        return;
    }
    if let Some(k) = t.find("::{") {
        if t.ends_with('}') {
            let mut p = prefix.to_vec();
            p.extend(t[..k].split("::").map(str::to_string));
            expand(&p, &t[k + 2..], out);
            return;
        }
    }
    let mut p = prefix.to_vec();
    p.extend(t.split("::").filter(|s| !s.is_empty()).map(str::to_string));
    out.push(p);
}

fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
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
    if start < s.len() {
        out.push(&s[start..]);
    }
    out.into_iter().filter(|x| !x.is_empty()).collect()
}

/// The source tree as modules: each file's module, its code, and the modules it imports, plus
/// the external crates it names.
struct Graph {
    modules: BTreeSet<Module>,
    imports: BTreeMap<Module, BTreeSet<Module>>,
    crates: BTreeMap<Module, BTreeSet<String>>,
}

const EXTERNAL: &[&str] = &[
    "tokio",
    "ratatui",
    "crossterm",
    "nostr_sdk",
    "nostr_lmdb",
    "tokio_tungstenite",
    "tokio_rustls",
    "tungstenite",
];

fn graph(root: &Path) -> Graph {
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(root.join("src"))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(f).unwrap())
        })
        .filter(|(rel, _)| rel != "main.rs")
        .collect();
    let modules: BTreeSet<Module> = texts.iter().map(|(r, _)| module_of(r)).collect();
    // Files that are test modules (`#[cfg(test)] mod tests;`) are not part of the library.
    let mut test_files = BTreeSet::new();
    for (rel, text) in &texts {
        let code = code_only(text);
        let mut rest = code.as_str();
        while let Some(at) = rest.find("#[cfg(test)]") {
            rest = &rest[at + "#[cfg(test)]".len()..];
            let t = rest.trim_start();
            let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
            if let Some(decl) = t.strip_prefix("mod ") {
                let name: String = decl
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if decl[name.len()..].trim_start().starts_with(';') {
                    let mut m = module_of(rel);
                    m.push(name);
                    test_files.insert(m);
                }
            }
        }
    }
    let resolve = |me: &Module, segs: &[String]| -> Option<Module> {
        let first = segs.first()?.as_str();
        let (mut base, rest): (Module, &[String]) = match first {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (me.clone(), &segs[1..]),
            "super" => {
                let mut b = me.clone();
                let mut k = 0;
                while segs.get(k).map(String::as_str) == Some("super") {
                    b.pop();
                    k += 1;
                }
                (b, &segs[k..])
            }
            _ => {
                let mut child = me.clone();
                child.push(first.to_string());
                if modules.contains(&child) {
                    (me.clone(), segs)
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().cloned());
        (1..=base.len())
            .rev()
            .map(|n| base[..n].to_vec())
            .find(|m| modules.contains(m))
    };
    let mut imports = BTreeMap::new();
    let mut crates = BTreeMap::new();
    for (rel, text) in &texts {
        let me = module_of(rel);
        if test_files.contains(&me) {
            continue;
        }
        let code = without_test_modules(&code_only(text));
        let mut paths: Vec<Vec<String>> = Vec::new();
        let mut rest = code.as_str();
        while let Some(at) = rest.find("use ") {
            let before = rest[..at].chars().last();
            rest = &rest[at + 4..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(end) = rest.find(';') {
                paths.extend(expand_use(&rest[..end]));
            }
        }
        for token in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            if token.contains("::") {
                paths.push(
                    token
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                );
            }
        }
        let mut to = BTreeSet::new();
        let mut ext = BTreeSet::new();
        for p in &paths {
            if let Some(first) = p.first() {
                if EXTERNAL.contains(&first.as_str()) {
                    ext.insert(first.clone());
                }
            }
            if let Some(m) = resolve(&me, p) {
                if !m.starts_with(&me) {
                    to.insert(m);
                }
            }
        }
        imports.insert(me.clone(), to);
        crates.insert(me, ext);
    }
    Graph {
        modules,
        imports,
        crates,
    }
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Groups of modules that import each other (Tarjan's strongly connected components).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.imports.get(v).into_iter().flatten() {
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
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                group.push(name(w));
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.imports.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn the_graph() -> Graph {
    let g = graph(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(g.modules.len() > 100, "the sources were not found");
    g
}

fn under(m: &Module, prefix: &str) -> bool {
    let p: Vec<&str> = prefix.split("::").collect();
    m.len() >= p.len() && m.iter().zip(&p).all(|(a, b)| a == b)
}

/// A game's presentation: the shared `games::ui`, every game's (or kit's) `ui` part, and the
/// game scripts.
fn presentation(m: &Module) -> bool {
    under(m, "ui")
        || under(m, "games::ui")
        || under(m, "games::script")
        || (m.len() >= 3 && m[0] == "games" && m[2] == "ui")
}

/// The terminal front end: the interfaces, the commands, and every panel (the part of a game's
/// presentation that draws with ratatui, built with the `terminal` feature).
fn terminal(m: &Module) -> bool {
    under(m, "ui")
        || under(m, "app")
        || under(m, "games::ui::panel")
        || under(m, "games::ui::theme")
        || under(m, "games::ui::generic")
        || under(m, "games::dice::ui")
        || (m.len() >= 4 && m[0] == "games" && m[2] == "ui" && m[3] == "panel")
}

#[test]
fn no_file_level_import_cycle() {
    let g = the_graph();
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// (modules a rule covers, modules or crates they must not import, why). A module matched by
/// `scope` and by the exceptions is left out.
struct Rule {
    scope: &'static [&'static str],
    except: fn(&Module) -> bool,
    banned_modules: &'static [&'static str],
    banned_presentation: bool,
    banned_terminal: bool,
    banned_crates: &'static [&'static str],
    why: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        scope: &[""],
        except: |m| under(m, "app"),
        banned_modules: &["app"],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &[],
        why: "only main.rs and the commands use the commands",
    },
    Rule {
        scope: &["bots"],
        except: |_| false,
        banned_modules: &["games", "table", "net", "ui"],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &["tokio", "nostr_sdk", "ratatui", "crossterm"],
        why: "bots/ keeps the trait, the random bot, levels and the arena; a game's bots live \
              with the game",
    },
    Rule {
        scope: &["wire"],
        except: |_| false,
        banned_modules: &[
            "games", "bots", "table", "net", "ui", "history", "identity", "config", "feedback",
            "variants",
        ],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &["tokio", "ratatui", "crossterm"],
        why: "the wire format knows no game: a variant is a game's name and its text",
    },
    Rule {
        scope: &["engine", "cards", "fair", "games", "bots"],
        except: presentation,
        banned_modules: &[
            "table", "net", "ui", "app", "history", "variants", "feedback",
        ],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &[
            "tokio",
            "nostr_sdk",
            "nostr_lmdb",
            "ratatui",
            "crossterm",
            "tokio_tungstenite",
            "tokio_rustls",
        ],
        why: "rules, bots and cryptography know no table runtime, network or terminal",
    },
    Rule {
        scope: &[
            "engine",
            "cards",
            "fair",
            "games",
            "bots",
            "wire",
            "table::session",
            "table::chance",
            "table::check",
        ],
        except: presentation,
        banned_modules: &[],
        banned_presentation: false,
        banned_terminal: true,
        banned_crates: &["ratatui", "crossterm"],
        why: "the core imports no front end",
    },
    Rule {
        scope: &["games"],
        // The registry is where a game's rules meet its words (`TableGame: GameUi`).
        except: |m| presentation(m) || under(m, "games::registry"),
        banned_modules: &[],
        banned_presentation: true,
        banned_terminal: false,
        banned_crates: &[],
        why: "a game's rules know nothing of how they read: words, scripts and panels are its ui",
    },
    Rule {
        scope: &[
            "engine", "cards", "fair", "games", "bots", "wire", "table", "net", "history",
            "variants", "feedback", "identity",
        ],
        except: presentation,
        banned_modules: &["ui"],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &[],
        why: "interfaces sit on top: the runtime reports through callbacks",
    },
    Rule {
        scope: &[
            "engine",
            "table::session",
            "table::chance",
            "table::whisper",
            "table::check",
        ],
        except: |_| false,
        banned_modules: &[
            "net",
            "table::runner",
            "table::lobby",
            "table::journal",
            "table::verify",
            "table::demo",
            "table::clock",
            "table::error",
            "history",
            "identity",
            "config",
            "feedback",
            "variants",
        ],
        banned_presentation: false,
        banned_terminal: false,
        banned_crates: &["tokio"],
        why: "the engine and the session are pure: time and randomness are passed in",
    },
];

#[test]
fn every_module_stays_in_its_layer() {
    let g = the_graph();
    let mut broken = Vec::new();
    for rule in RULES {
        for (m, to) in &g.imports {
            let in_scope = rule.scope.iter().any(|s| s.is_empty() || under(m, s));
            if !in_scope || (rule.except)(m) {
                continue;
            }
            for t in to {
                let banned = rule.banned_modules.iter().any(|b| under(t, b))
                    || (rule.banned_presentation && presentation(t))
                    || (rule.banned_terminal && terminal(t));
                if banned {
                    broken.push(format!("{} imports {} ({})", name(m), name(t), rule.why));
                }
            }
            for c in &g.crates[m] {
                if rule.banned_crates.contains(&c.as_str()) {
                    broken.push(format!("{} uses {c} ({})", name(m), rule.why));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

/// The rules' code draws no OS randomness and reads no clock, whatever path it takes to them.
#[test]
fn the_pure_modules_take_no_time_and_no_os_randomness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut broken = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(root.join("src"))
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let pure = [
            "engine/",
            "table/session/",
            "table/chance/",
            "table/whisper.rs",
            "table/check.rs",
            "games/",
            "bots/",
            "fair/",
            "wire/",
        ]
        .iter()
        .any(|p| rel.starts_with(p));
        if !pure {
            continue;
        }
        let code = without_test_modules(&code_only(&std::fs::read_to_string(&f).unwrap()));
        // The cryptography spreads a chain's verification over threads (`fair::shuffle`); the
        // rules and the session run on the caller's.
        let threads: &[&str] = if rel.starts_with("fair/") {
            &[]
        } else {
            &["std::thread"]
        };
        for banned in ["OsRng", "thread_rng", "SystemTime", "Instant::now"]
            .iter()
            .chain(threads)
        {
            if code.contains(banned) {
                broken.push(format!("{rel} uses {banned}"));
            }
        }
    }
    assert!(broken.is_empty(), "impure code:\n{}", broken.join("\n"));
}

/// The checker itself: it finds imports written in each form, and a cycle.
#[test]
fn the_checker_reads_imports_in_every_form() {
    let paths = expand_use("crate::a::{b, c::{d as e, f}, self}");
    assert_eq!(
        paths,
        vec![
            vec!["crate", "a", "b"],
            vec!["crate", "a", "c", "d"],
            vec!["crate", "a", "c", "f"],
            vec!["crate", "a", "self"],
        ]
    );
    let code = code_only("let s = \"crate::x\"; // crate::y\nuse crate::z; let c = '\"';");
    assert!(!code.contains("crate::x") && !code.contains("crate::y"));
    assert!(code.contains("crate::z"));
    let code = without_test_modules("a\n#[cfg(test)]\nmod tests { use crate::q; { } }\nb");
    assert!(!code.contains("crate::q") && code.contains('b'));

    let m = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    let mut g = Graph {
        modules: [m("a"), m("b"), m("c")].into(),
        imports: BTreeMap::new(),
        crates: BTreeMap::new(),
    };
    g.imports.insert(m("a"), [m("b")].into());
    g.imports.insert(m("b"), [m("c")].into());
    g.imports.insert(m("c"), [m("a")].into());
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
    g.imports.insert(m("c"), BTreeSet::new());
    assert!(cycles(&g).is_empty());

    // And on the real sources it sees the edges it must.
    let real = the_graph();
    assert!(real.imports[&m("games::registry")].contains(&m("bots")));
    assert!(real.crates[&m("net::pool")].contains("nostr_sdk"));
}

/// The core (the library without its default features: the rules, their words, the bots, the
/// cryptography, the wire and the session) depends on no runtime and no terminal crate; the
/// program does.
#[test]
fn the_core_builds_no_runtime_and_no_terminal_crate() {
    let tree = |args: &[&str]| -> String {
        let out = std::process::Command::new(env!("CARGO"))
            .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
            .args(args)
            .arg("--manifest-path")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let has = |text: &str, krate: &str| text.lines().any(|l| l.starts_with(&format!("{krate} v")));
    let banned = [
        "tokio",
        "ratatui",
        "crossterm",
        "nostr-lmdb",
        "nostr-sdk",
        "mio",
    ];
    let core = tree(&["--no-default-features"]);
    for krate in banned {
        assert!(!has(&core, krate), "the core builds {krate}");
    }
    let program = tree(&[]);
    for krate in banned {
        assert!(
            has(&program, krate),
            "the checker does not see {krate} in the program"
        );
    }
}

/// The longest a function outside tests may be, in lines from its `fn` to its closing brace.
const LONGEST_FN: usize = 150;

/// Every function with a body in `code` (comments, strings and test modules taken out, line
/// breaks kept): its name, first line (1-based) and length in lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b: Vec<char> = code.chars().collect();
    let line_at = |k: usize| 1 + line_breaks(&b[..k]);
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let is_fn =
            b[i] == 'f' && b[i + 1] == 'n' && !ident_before(&b, i) && b[i + 2].is_whitespace();
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < b.len() && b[j].is_whitespace() {
            j += 1;
        }
        let name: String = b[j..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        // `fn(u8) -> u8` is a type, not a function.
        if name.is_empty() {
            i = j;
            continue;
        }
        // The body opens at the first brace before any `;` (a declaration without a body).
        let Some(open) = (j..b.len()).find(|&k| b[k] == '{' || b[k] == ';') else {
            break;
        };
        if b[open] == ';' {
            i = open;
            continue;
        }
        let mut depth = 0usize;
        let mut close = b.len() - 1;
        for (k, ch) in b.iter().enumerate().skip(open) {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = line_at(i);
        found.push((name, first, line_at(close) - first + 1));
        // Functions nested in this one are measured too.
        i = open;
    }
    found
}

/// A file of tests only: a `tests` module in a file of its own, or a test module's folder.
fn test_file(rel: &str) -> bool {
    rel.split('/')
        .any(|p| p == "tests" || p == "tests.rs" || p.ends_with("_tests.rs"))
}

/// No function outside tests runs over [`LONGEST_FN`] lines: a longer one mixes jobs that want
/// names of their own.
#[test]
fn no_function_outside_tests_is_over_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut long = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(root.join("src"))
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if test_file(&rel) {
            continue;
        }
        let code = without_test_modules(&code_only(&std::fs::read_to_string(f).unwrap()));
        for (name, line, len) in functions(&code) {
            if len > LONGEST_FN {
                long.push(format!("src/{rel}:{line} fn {name}: {len} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FN} lines:\n{}",
        long.join("\n")
    );
}

/// The measure itself: bodies, declarations, types, strings and comments.
#[test]
fn the_function_measure_counts_lines_from_fn_to_its_brace() {
    let src = "trait T { fn decl(&self); }\n\
               fn short(f: fn(u8) -> u8) -> u8 {\n    f(1)\n}\n\
               /* fn commented() {\n\n} */\n\
               fn with_string() {\n    let s = \"{ not a brace\n still the string\";\n    \
               let t = '{';\n}\n";
    let code = without_test_modules(&code_only(src));
    let got = functions(&code);
    assert_eq!(
        got,
        vec![
            ("short".to_string(), 2, 3),
            ("with_string".to_string(), 8, 5)
        ]
    );
    let long = format!(
        "fn long() {{\n{}}}\n",
        "    step();\n".repeat(LONGEST_FN - 1)
    );
    assert_eq!(
        functions(&code_only(&long)),
        vec![("long".to_string(), 1, LONGEST_FN + 1)]
    );
    let tested = format!("#[cfg(test)]\nmod tests {{\n{long}}}\nfn after() {{}}\n");
    assert_eq!(
        functions(&without_test_modules(&code_only(&tested))),
        vec![("after".to_string(), LONGEST_FN + 5, 1)]
    );
}
