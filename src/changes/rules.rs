//! The rule table: whether one tool use changes files, and why.
//!
//! An editing tool always does. A shell command does when one of its
//! simple commands is a redirection to a file or a row of [`RULES`]
//! (`rm`, `mv`, `sed -i`, `git commit`, …); the command is lexed
//! ([`super::lexer`]) and each simple command judged on its own.

use super::lexer::{is_device, lex, Word};
use crate::read::{ToolCall, ToolInput, EDIT_TOOLS};

/// Why a tool use counts as a file change.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum ChangeReason {
    /// An editing tool, such as `Write`, `Edit`, `apply_patch` or `replace`.
    EditTool,
    /// Output redirected to a file with `>`, `>>`, `&>` or similar.
    Redirect,
    /// A command from the rule table; the name is the table's row.
    Command(&'static str),
}

/// Whether a tool use with this name and input changes files: see
/// [`tool_changes_files`].
pub(crate) fn input_changes_files(
    name: &str,
    input: &ToolInput<'_>,
) -> Option<ChangeReason> {
    if EDIT_TOOLS.contains(&name) {
        return Some(ChangeReason::EditTool);
    }
    input.shell_command(name).and_then(|c| bash_changes_files(&c))
}

/// Whether `call`, a tool use the reader kept, changes files by itself
/// (a launch of a subagent that changed files is [`TurnChanges`](super::TurnChanges)'s to
/// say).
///
/// # Example
///
/// ```
/// use stopgate::judge::{change_of, ChangeReason};
/// use stopgate::read::ToolCall;
///
/// let edit = ToolCall::new(Some("t1"), "Edit", None, 0, 0);
/// let grep = ToolCall::new(Some("t2"), "Bash", Some("grep -i todo f"), 0, 1);
/// assert_eq!(change_of(&edit), Some(ChangeReason::EditTool));
/// assert_eq!(change_of(&grep), None);
/// ```
pub fn change_of(call: &ToolCall) -> Option<ChangeReason> {
    if call.edits() {
        return Some(ChangeReason::EditTool);
    }
    call.command().and_then(bash_changes_files)
}

/// Whether a tool use with this name, and for a shell tool this command,
/// changes files.
///
/// An editing tool (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`, Codex
/// CLI's `apply_patch`, Gemini CLI's `write_file` and `replace`) always
/// does; a shell tool (`Bash`, Gemini CLI's `run_shell_command`, Codex
/// CLI's `exec_command`, `shell`, `shell_command` and `local_shell`) does
/// when its command does (a redirection, `rm`, `mv`, `sed -i`, `git
/// commit`, and the like); any other tool does not.
///
/// # Example
///
/// ```
/// use stopgate::judge::tool_changes_files;
///
/// assert!(tool_changes_files("Edit", None).is_some());
/// assert!(tool_changes_files("Bash", Some("sed -i s/a/b/ f")).is_some());
/// assert!(tool_changes_files("Bash", Some("grep -i todo f")).is_none());
/// assert!(tool_changes_files("Read", Some("rm -rf /")).is_none());
/// ```
pub fn tool_changes_files(
    name: &str,
    command: Option<&str>,
) -> Option<ChangeReason> {
    input_changes_files(name, &ToolInput::of_command(command))
}

/// [`tool_changes_files`] of a tool's JSON input: for a shell tool, its
/// command as Claude Code, Gemini CLI and Codex CLI write it (`command`,
/// `cmd`, or an argument vector).
#[cfg(feature = "hook")]
pub(crate) fn json_input_changes_files(
    name: &str,
    input: &serde_json::Value,
) -> Option<ChangeReason> {
    input_changes_files(name, &ToolInput::of_value(input))
}

/// Whether a shell command changes files, and by which rule.
pub fn bash_changes_files(command: &str) -> Option<ChangeReason> {
    bash_changes_files_at(command, 0)
}

/// A row of the rule table: the command name, and the test on its
/// arguments that makes it write.
struct Rule {
    name: &'static str,
    writes: fn(&[Word<'_>]) -> bool,
}

fn always(_: &[Word<'_>]) -> bool {
    true
}

/// Some argument is a short-option cluster holding `flag`, such as `-i`,
/// `-pi` or `-i.bak`, or the long option `long`.
fn short_or_long(args: &[Word<'_>], flag: char, long: &str) -> bool {
    args.iter().any(|a| {
        (a.starts_with('-')
            && !a.starts_with("--")
            && a[1..].starts_with(|c: char| c.is_ascii_alphabetic())
            // The cluster ends at the first non-letter (`-i.bak`).
            && a[1..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| c == flag))
            || (!long.is_empty()
                && a.strip_prefix(long).is_some_and(|rest| {
                    rest.is_empty() || rest.starts_with('=')
                }))
    })
}

fn has(args: &[Word<'_>], any: &[&str]) -> bool {
    args.iter().any(|a| any.contains(&&**a))
}

fn sed_in_place(args: &[Word<'_>]) -> bool {
    short_or_long(args, 'i', "--in-place")
}

fn perl_in_place(args: &[Word<'_>]) -> bool {
    short_or_long(args, 'i', "")
}

fn tee_to_file(args: &[Word<'_>]) -> bool {
    args.iter().any(|a| !a.starts_with('-') && !is_device(a))
}

fn dd_to_file(args: &[Word<'_>]) -> bool {
    args.iter().any(|a| a.strip_prefix("of=").is_some_and(|t| !is_device(t)))
}

fn git_writes(args: &[Word<'_>]) -> bool {
    // Skip global options such as `-C dir` and `-c k=v`.
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(&*args[i], "-C" | "-c") { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else { return false };
    let rest = &args[i + 1..];
    match &**sub {
        "apply" => {
            !has(rest, &["--check", "--stat", "--numstat", "--summary"])
        }
        "am" | "mv" | "rm" | "merge" | "rebase" | "pull" | "cherry-pick"
        | "revert" | "switch" | "clean" => true,
        // `--staged` alone restores the index (unstages): no file changes.
        "restore" => {
            !has(rest, &["--staged", "-S"])
                || has(rest, &["--worktree", "-W", "-SW", "-WS"])
        }
        "checkout" => {
            !has(rest, &["-b", "-B"]) || rest.iter().any(|a| a == "--")
        }
        "reset" => has(rest, &["--hard", "--merge", "--keep"]),
        "stash" => {
            rest.first().is_some_and(|s| matches!(&**s, "pop" | "apply"))
        }
        _ => false,
    }
}

fn tar_extracts(args: &[Word<'_>]) -> bool {
    args.first().is_some_and(|a| {
        let a = a.trim_start_matches('-');
        !a.is_empty()
            && a.chars().all(|c| c.is_ascii_alphabetic())
            && a.contains('x')
    }) || short_or_long(args, 'x', "--extract")
}

fn not_check(args: &[Word<'_>]) -> bool {
    !has(
        args,
        &["--check", "--diff", "-l", "--list-different", "-d", "--dry-run"],
    )
}

fn prettier_writes(args: &[Word<'_>]) -> bool {
    has(args, &["--write", "-w"])
}

fn gofmt_writes(args: &[Word<'_>]) -> bool {
    has(args, &["-w"])
}

fn fix_flag(args: &[Word<'_>]) -> bool {
    args.iter().any(|a| a == "--fix" || a.starts_with("--fix="))
}

fn clang_format_writes(args: &[Word<'_>]) -> bool {
    has(args, &["-i"])
}

fn cargo_writes(args: &[Word<'_>]) -> bool {
    match args.first().map(|a| &**a) {
        Some("fmt") => not_check(&args[1..]),
        // A dependency added, removed or upgraded: the manifest and the
        // lock file.
        Some("fix" | "add" | "remove" | "update") => true,
        Some("clippy") => fix_flag(&args[1..]),
        _ => false,
    }
}

fn go_writes(args: &[Word<'_>]) -> bool {
    matches!(args.first().map(|a| &**a), Some("fmt" | "generate" | "get"))
        || (args.first().is_some_and(|a| a == "mod")
            && args.get(1).is_some_and(|a| a == "tidy"))
}

/// npm adding, removing or upgrading a dependency writes `package.json`
/// and its lock file (`npm install left-pad@1.3`); installing from the
/// lock file (`npm ci`, a bare `npm install`) or a query (`npm ls`) does
/// not.
fn npm_writes(args: &[Word<'_>]) -> bool {
    match args.first().map(|a| &**a) {
        Some("install" | "i" | "add") => {
            args[1..].iter().any(|a| !a.starts_with('-'))
        }
        Some("uninstall" | "remove" | "rm" | "un" | "update" | "up") => true,
        _ => false,
    }
}

/// yarn, pnpm, poetry and uv adding, removing or upgrading a dependency
/// (`yarn add`, `pnpm remove`, `poetry update`, `uv lock`): the manifest
/// and the lock file.
fn package_writes(args: &[Word<'_>]) -> bool {
    matches!(
        args.first().map(|a| &**a),
        Some("add" | "remove" | "upgrade" | "up" | "update" | "lock")
    )
}

fn ruff_writes(args: &[Word<'_>]) -> bool {
    match args.first().map(|a| &**a) {
        Some("format") => not_check(&args[1..]),
        Some("check") => fix_flag(&args[1..]),
        _ => false,
    }
}

/// The table. Every row has a test in this module's tests, and so does
/// every read-only look-alike.
const RULES: &[Rule] = &[
    Rule { name: "sed", writes: sed_in_place },
    Rule { name: "perl", writes: perl_in_place },
    Rule { name: "tee", writes: tee_to_file },
    Rule { name: "git", writes: git_writes },
    Rule { name: "patch", writes: always },
    Rule { name: "mv", writes: always },
    Rule { name: "cp", writes: always },
    Rule { name: "rm", writes: always },
    Rule { name: "rmdir", writes: always },
    Rule { name: "touch", writes: always },
    Rule { name: "mkdir", writes: always },
    Rule { name: "truncate", writes: always },
    Rule { name: "ln", writes: always },
    Rule { name: "install", writes: always },
    Rule { name: "dd", writes: dd_to_file },
    Rule { name: "tar", writes: tar_extracts },
    Rule { name: "unzip", writes: always },
    Rule { name: "rsync", writes: always },
    Rule { name: "cargo", writes: cargo_writes },
    Rule { name: "rustfmt", writes: not_check },
    Rule { name: "go", writes: go_writes },
    Rule { name: "gofmt", writes: gofmt_writes },
    Rule { name: "prettier", writes: prettier_writes },
    Rule { name: "eslint", writes: fix_flag },
    Rule { name: "black", writes: not_check },
    Rule { name: "isort", writes: not_check },
    Rule { name: "ruff", writes: ruff_writes },
    Rule { name: "clang-format", writes: clang_format_writes },
    Rule { name: "shfmt", writes: gofmt_writes },
    Rule { name: "npm", writes: npm_writes },
    Rule { name: "yarn", writes: package_writes },
    Rule { name: "pnpm", writes: package_writes },
    Rule { name: "poetry", writes: package_writes },
    Rule { name: "uv", writes: package_writes },
];

/// Commands that run the command that follows them.
const WRAPPERS: &[&str] = &[
    "sudo", "env", "command", "builtin", "exec", "nohup", "time", "nice",
    "xargs", "npx", "timeout",
];

/// Judge one simple command. `depth` bounds `bash -c` recursion.
///
/// `find … -exec CMD …` is judged by CMD, which may be another `find`:
/// a loop walks into each, never a recursion, and each word is looked at
/// a bounded number of times, so a command of 200,000 nested `-exec`s is
/// judged in one pass (a recursion rescanned the rest at each level:
/// quadratic time, then a stack overflow).
fn judge(words: &[Word<'_>], depth: usize) -> Option<ChangeReason> {
    let mut words = words;
    let mut depth = depth;
    // Inside an outer `find`'s `-exec`: these words are part of the outer
    // one's arguments, which held no `-delete` and end at its terminator.
    let mut inside_find = false;
    loop {
        let i = command_start(words);
        let name = words.get(i)?;
        let name = name.rsplit('/').next().unwrap_or(name);
        let args = &words[i + 1..];
        if matches!(name, "bash" | "sh" | "zsh" | "dash") && depth < 4 {
            let pos = args.iter().position(|a| {
                a == "-c" || (a.starts_with('-') && a.ends_with('c'))
            })?;
            return bash_changes_files_at(args.get(pos + 1)?, depth + 1);
        }
        if name != "find" {
            let rule = RULES.iter().find(|r| r.name == name)?;
            return (rule.writes)(args)
                .then_some(ChangeReason::Command(rule.name));
        }
        if !inside_find && has(args, &["-delete"]) {
            return Some(ChangeReason::Command("find"));
        }
        let pos = args.iter().position(|a| a == "-exec" || a == "-execdir")?;
        let run = &args[pos + 1..];
        // The outer terminator was the first after its `-exec`: none is
        // left inside.
        let end = match inside_find {
            true => None,
            false => run.iter().position(|a| a == ";" || a == "+"),
        }
        .unwrap_or(run.len());
        (words, depth, inside_find) = (&run[..end], depth + 1, true);
    }
}

/// Where the command of a simple command starts: past `VAR=value`
/// assignments and wrappers (`sudo`, `env`, `timeout 5`, …) with their
/// options.
fn command_start(words: &[Word<'_>]) -> usize {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let base = w.rsplit('/').next().unwrap_or(w);
        if is_assignment(w) {
            i += 1;
        } else if WRAPPERS.contains(&base) {
            i += 1;
            while words
                .get(i)
                .is_some_and(|a| a.starts_with('-') || is_assignment(a))
            {
                i += 1;
            }
            if base == "timeout" && words.get(i).is_some() {
                i += 1; // the duration
            }
        } else {
            break;
        }
    }
    i
}

/// [`bash_changes_files`] at a `bash -c` nesting depth.
fn bash_changes_files_at(command: &str, depth: usize) -> Option<ChangeReason> {
    let lexed = lex(command);
    if lexed.file_redirect {
        return Some(ChangeReason::Redirect);
    }
    lexed.commands.iter().find_map(|words| judge(words, depth))
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (command, expected rule or None). One row for every rule, and for
    /// every read-only look-alike.
    const TABLE: &[(&str, Option<&str>)] = &[
        // Redirects.
        ("echo hi > out.txt", Some("redirect")),
        ("echo hi >> log.txt", Some("redirect")),
        ("make 2> errors.log", Some("redirect")),
        ("make &> build.log", Some("redirect")),
        ("echo x >| f", Some("redirect")),
        (
            "cat > src/a.rs <<'EOF'\nfn main() { if a > b {} }\nEOF",
            Some("redirect"),
        ),
        ("echo x>out", Some("redirect")),
        ("echo x >&out.log", Some("redirect")),
        // Read-only look-alikes of redirects.
        ("git diff > /dev/null", None),
        ("cargo test 2>&1", None),
        ("cargo build 2>/dev/null", None),
        ("ls &>/dev/null", None),
        ("echo err >&2", None),
        ("cat a | head", None),
        ("python - <<'EOF'\nif a > b:\n    print(1)\nEOF", None),
        ("grep -c '>' src/a.rs", None),
        ("echo \"a > b\"", None),
        ("diff <(sort a) <(sort b)", None),
        ("tee >(wc -l) < input", None),
        // In-place editors.
        ("sed -i 's/a/b/' f.rs", Some("sed")),
        ("sed -i.bak 's/a/b/' f.rs", Some("sed")),
        ("sed -Ei 's/a/b/' f.rs", Some("sed")),
        ("sed --in-place 's/a/b/' f.rs", Some("sed")),
        ("sed -n '1,5p' f.rs", None),
        ("sed 's/i/j/' f.rs", None),
        ("perl -pi -e 's/a/b/' f", Some("perl")),
        ("perl -i -pe 's/a/b/' f", Some("perl")),
        ("perl -ne 'print if /x/' f", None),
        ("grep -i todo src/", None),
        ("rg -i todo", None),
        // tee.
        ("echo x | tee out.txt", Some("tee")),
        ("echo x | tee -a out.txt", Some("tee")),
        ("echo x | tee /dev/null", None),
        // git.
        ("git apply fix.patch", Some("git")),
        ("git apply --check fix.patch", None),
        ("git am 0001.patch", Some("git")),
        ("git checkout -- src/a.rs", Some("git")),
        ("git checkout main", Some("git")),
        ("git checkout -b feature", None),
        ("git restore src/a.rs", Some("git")),
        ("git restore --staged logs/a.json", None),
        ("git restore -S a.rs", None),
        ("git restore --staged --worktree a.rs", Some("git")),
        ("git restore -SW a.rs", Some("git")),
        ("git reset --hard HEAD~1", Some("git")),
        ("git reset HEAD~1", None),
        ("git mv a b", Some("git")),
        ("git rm a", Some("git")),
        ("git stash pop", Some("git")),
        ("git stash list", None),
        ("git -C repo checkout -- a", Some("git")),
        ("git diff", None),
        ("git status", None),
        ("git log --oneline", None),
        ("git add -A", None),
        ("git commit -m 'x > y'", None),
        // File utilities.
        ("patch -p1 < fix.patch", Some("patch")),
        ("mv a b", Some("mv")),
        ("cp a b", Some("cp")),
        ("rm -rf target/tmp", Some("rm")),
        ("rmdir empty", Some("rmdir")),
        ("touch new.rs", Some("touch")),
        ("mkdir -p src/new", Some("mkdir")),
        ("truncate -s 0 f", Some("truncate")),
        ("ln -s a b", Some("ln")),
        ("install -m 755 bin /usr/local/bin/", Some("install")),
        ("dd if=/dev/zero of=disk.img bs=1M count=1", Some("dd")),
        ("dd if=disk.img of=/dev/null", None),
        ("tar xzf a.tgz", Some("tar")),
        ("tar -xf a.tar", Some("tar")),
        ("tar tzf a.tgz", None),
        ("unzip a.zip", Some("unzip")),
        ("rsync -a src/ dst/", Some("rsync")),
        ("cat a.rs", None),
        ("ls -la", None),
        ("head -n 5 f", None),
        // Formatters that write in place.
        ("cargo fmt", Some("cargo")),
        ("cargo fmt --check", None),
        ("cargo fix --allow-dirty", Some("cargo")),
        ("cargo clippy --fix", Some("cargo")),
        ("cargo clippy -- -D warnings", None),
        ("cargo test", None),
        ("cargo build --release", None),
        ("rustfmt src/lib.rs", Some("rustfmt")),
        ("rustfmt --check src/lib.rs", None),
        ("go fmt ./...", Some("go")),
        ("go mod tidy", Some("go")),
        ("go test ./...", None),
        ("gofmt -w .", Some("gofmt")),
        ("gofmt -l .", None),
        ("prettier --write src", Some("prettier")),
        ("prettier --check src", None),
        ("npx prettier --write .", Some("prettier")),
        ("eslint --fix .", Some("eslint")),
        ("eslint .", None),
        ("black .", Some("black")),
        ("black --check .", None),
        ("isort .", Some("isort")),
        ("ruff format .", Some("ruff")),
        ("ruff format --check .", None),
        ("ruff check --fix .", Some("ruff")),
        ("ruff check .", None),
        ("clang-format -i a.c", Some("clang-format")),
        ("clang-format a.c", None),
        ("shfmt -w a.sh", Some("shfmt")),
        ("pytest -x", None),
        ("npm test", None),
        // Dependencies added, removed or upgraded.
        ("npm install jsonwebtoken@9.0.0", Some("npm")),
        ("npm i -D vitest", Some("npm")),
        ("npm uninstall left-pad", Some("npm")),
        ("npm install", None),
        ("npm ci", None),
        ("npm ls react", None),
        ("npm run build", None),
        ("yarn add react@18", Some("yarn")),
        ("yarn test", None),
        ("pnpm remove lodash", Some("pnpm")),
        ("pnpm install --frozen-lockfile", None),
        ("poetry add requests", Some("poetry")),
        ("poetry run pytest", None),
        ("uv lock --upgrade-package httpx", Some("uv")),
        ("uv run pytest", None),
        ("cargo add serde --features derive", Some("cargo")),
        ("cargo update -p tokio", Some("cargo")),
        ("go get golang.org/x/sync@v0.7.0", Some("go")),
        // Wrappers, compound commands, nesting.
        ("sudo rm /tmp/x", Some("rm")),
        ("FOO=1 sed -i s/a/b/ f", Some("sed")),
        ("env -i PATH=/bin touch x", Some("touch")),
        ("timeout 10 rm x", Some("rm")),
        ("cd src && sed -i 's/a/b/' f", Some("sed")),
        ("cargo test; git checkout -- .", Some("git")),
        ("ls | xargs rm", Some("rm")),
        ("bash -c 'echo x > f'", Some("redirect")),
        ("sh -c \"sed -i s/a/b/ f\"", Some("sed")),
        ("bash -c 'grep -i x f'", None),
        ("find . -name '*.tmp' -delete", Some("find")),
        ("find . -name '*.rs' -exec sed -i 's/a/b/' {} \\;", Some("sed")),
        ("find . -name '*.rs' -exec grep -i x {} \\;", None),
        ("/usr/bin/rm x", Some("rm")),
        ("echo $(rm x)", Some("rm")),
        ("", None),
    ];

    fn rule_name(r: ChangeReason) -> &'static str {
        match r {
            ChangeReason::EditTool => "edit",
            ChangeReason::Redirect => "redirect",
            ChangeReason::Command(name) => name,
        }
    }

    #[test]
    fn table() {
        let mut failures = vec![];
        for &(cmd, want) in TABLE {
            let got = bash_changes_files(cmd).map(rule_name);
            if got != want {
                failures.push(format!("{cmd:?}: got {got:?}, want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    /// Shapes of command that once took time quadratic in their length
    /// (`find . -exec ` × 200k + `rm x`, 2.6 MB, took 104 s): each is
    /// judged in one pass.
    #[test]
    fn linear_in_the_command() {
        const N: usize = 200_000;
        let shapes = [
            ("find . -exec ", "rm x", Some("rm")),
            ("find . -exec ", "ls \\; -delete", Some("find")),
            ("find . -exec sudo ", "grep x", None),
            ("find -exec find . -exec ", "sed -i s/a/b/ f", Some("sed")),
            ("sudo env A=1 ", "rm x", Some("rm")),
            ("xargs -0 ", "touch f", Some("touch")),
            ("a ", "b > f", Some("redirect")),
            ("echo x; ", "ls", None),
            ("$(", "rm x", Some("rm")),
        ];
        for (repeat, tail, want) in shapes {
            let cmd = format!("{}{tail}", repeat.repeat(N));
            let started = std::time::Instant::now();
            let got = bash_changes_files(&cmd).map(rule_name);
            let took = started.elapsed();
            assert_eq!(got, want, "{repeat:?} × {N} + {tail:?}");
            assert!(
                took < std::time::Duration::from_millis(500),
                "{repeat:?} × {N} + {tail:?}: {took:?}"
            );
        }
    }

    /// The judge as first written, recursing into each `-exec`: the
    /// oracle for the loop.
    fn recursive_judge(
        words: &[Word<'_>],
        depth: usize,
    ) -> Option<ChangeReason> {
        let i = command_start(words);
        let name = words.get(i)?;
        let name = name.rsplit('/').next().unwrap_or(name);
        let args = &words[i + 1..];
        if matches!(name, "bash" | "sh" | "zsh" | "dash") && depth < 4 {
            let pos = args.iter().position(|a| {
                a == "-c" || (a.starts_with('-') && a.ends_with('c'))
            })?;
            return bash_changes_files_at(args.get(pos + 1)?, depth + 1);
        }
        if name == "find" {
            if has(args, &["-delete"]) {
                return Some(ChangeReason::Command("find"));
            }
            let pos =
                args.iter().position(|a| a == "-exec" || a == "-execdir")?;
            let end = args[pos + 1..]
                .iter()
                .position(|a| a == ";" || a == "+")
                .map_or(args.len(), |e| pos + 1 + e);
            return recursive_judge(&args[pos + 1..end], depth + 1);
        }
        let rule = RULES.iter().find(|r| r.name == name)?;
        (rule.writes)(args).then_some(ChangeReason::Command(rule.name))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn same_as_the_recursive_judge(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "find", ".", "-exec", "-execdir", ";", "+", "-delete", "rm",
                "sed", "-i", "grep", "sudo", "env", "A=1", "timeout", "5",
                "bash", "-c", "rm x", "find . -delete", "{}", "git", "mv",
            ]), 0..24),
            depth in 0usize..5,
        ) {
            let words: Vec<Word<'_>> =
                words.into_iter().map(std::borrow::Cow::Borrowed).collect();
            proptest::prop_assert_eq!(
                judge(&words, depth),
                recursive_judge(&words, depth)
            );
        }
    }

    #[test]
    fn every_rule_has_a_row() {
        for rule in RULES {
            assert!(
                TABLE.iter().any(|&(_, want)| want == Some(rule.name)),
                "rule {} has no test row",
                rule.name
            );
        }
    }

    #[test]
    fn edit_tools_and_others() {
        for t in EDIT_TOOLS {
            assert_eq!(
                tool_changes_files(t, None),
                Some(ChangeReason::EditTool)
            );
        }
        assert_eq!(tool_changes_files("Read", None), None);
        assert_eq!(tool_changes_files("Bash", None), None);
        fn of(input: &serde_json::Value) -> Option<ChangeReason> {
            input_changes_files("Bash", &ToolInput::of_value(input))
        }
        assert_eq!(of(&serde_json::json!({"command": 5})), None);
        assert!(of(&serde_json::json!({"command": ["rm", "a"]})).is_some());
    }
}
