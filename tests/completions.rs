//! `stopgate completions SHELL` and `stopgate man`, generated from the
//! command-line definitions.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn run(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = run(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for word in ["stopgate", "scan", "install", "--all-turns"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    // The bash script parses.
    let out = run(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stopgate.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    if let Ok(check) = Command::new("bash").arg("-n").arg(&file).output() {
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_page() {
    let out = run(&["man"]);
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH stopgate 1"), "{page}");
    for word in ["scan", "install", "uninstall", "doctor", "completions"] {
        assert!(page.contains(word), "no {word}");
    }
}

/// Every page the main page names (stopgate-scan(1), …) is there:
/// `stopgate man SUBCOMMAND` prints it.
#[test]
fn every_subcommand_page_the_main_page_names() {
    let main = String::from_utf8(run(&["man"]).stdout).unwrap();
    let named: Vec<&str> = main
        .lines()
        .filter_map(|l| l.strip_prefix("stopgate\\-"))
        .filter_map(|l| l.strip_suffix("(1)"))
        .collect();
    assert!(named.contains(&"scan"), "{main}");
    for sub in named {
        let out = run(&["man", sub]);
        assert!(out.status.success(), "stopgate man {sub}");
        let page = String::from_utf8(out.stdout).unwrap();
        assert!(page.contains(&format!(".TH stopgate-{sub} 1")), "{page}");
    }
    let out = run(&["man", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}
