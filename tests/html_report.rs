//! `stopgate scan --format html`: one self-contained page, opened by a real
//! browser (headless Chromium) with no console error, its script run, and
//! a screenshot taken. Skips with a notice where Chromium is missing.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| {
            std::env::split_paths(&path).map(move |d| d.join(name))
        })
        .find(|p| p.is_file())
}

fn report(dir: &Path) -> PathBuf {
    let out = Command::new(BIN)
        .args(["scan", "--no-progress", "--format", "html", "fixtures/"])
        .current_dir(root())
        .env("HOME", dir)
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = dir.join("report.html");
    std::fs::write(&file, &out.stdout).unwrap();
    file
}

/// The page holds every section and the evidence, and names no file or
/// server outside itself.
#[test]
fn the_page_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(report(dir.path())).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    for want in [
        "<h2>Summary</h2>",
        "<h2>By project</h2>",
        "<h2>Findings</h2>",
        "<svg",
        "<details>",
        "unaudited_change",
        "which…would you prefer",
        "28 change turns</td>",
        "<h2>Hook health</h2>",
    ] {
        assert!(page.contains(want), "no {want:?}");
    }
    for outside in ["src=", "href=", "@import", "url("] {
        assert!(!page.contains(outside), "the page loads {outside}");
    }
}

#[test]
fn chromium_opens_it_without_console_errors() {
    let Some(browser) = chromium() else {
        println!("skip: Chromium not found on PATH; the HTML report is not opened in a browser");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = report(dir.path());
    let url = format!("file://{}", file.display());
    let run = |extra: &[&str]| {
        let profile = dir.path().join("profile");
        let out = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(&url)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        for line in log.lines() {
            assert!(
                !(line.contains("CONSOLE") || line.contains("Uncaught")),
                "console: {line}"
            );
        }
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            log,
        )
    };
    // The script ran: the body is marked ready and the findings table
    // sorted by date.
    let (ok, dom, log) = run(&["--dump-dom"]);
    assert!(ok, "{log}");
    assert!(dom.contains("data-ready=\"1\""), "{dom}");
    assert!(dom.contains("data-sorted=\"1 desc\""), "{dom}");
    // And it renders: a screenshot of the page.
    let shot = dir.path().join("report.png");
    let (ok, _, log) = run(&[
        "--window-size=1280,2000",
        &format!("--screenshot={}", shot.display()),
    ]);
    assert!(ok, "{log}");
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}

/// The findings rows of a big report, past what stays in memory, reach
/// the page whole: 800 flagged sessions hold as many rows as 800 times
/// one.
#[test]
fn rows_past_the_memory_spool_reach_the_page() {
    let scan = |dir: &Path| {
        let out = Command::new(BIN)
            .args(["scan", "--no-progress", "--threads", "2"])
            .args(["--format", "html"])
            .arg(dir)
            .env_remove("STOPGATE_CONFIG")
            .env_remove("CLAUDE_PROJECT_DIR")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let session = root().join("fixtures/transcripts/turn_kinds.jsonl");
    let (one, many) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::copy(&session, one.path().join("s.jsonl")).unwrap();
    for i in 0..800 {
        std::fs::copy(&session, many.path().join(format!("s{i:04}.jsonl")))
            .unwrap();
    }
    let (one, many) = (scan(one.path()), scan(many.path()));
    let rows = |page: &str| page.matches("<details>").count();
    assert!(rows(&one) > 0);
    assert!(many.len() > 256 << 10, "{} bytes: no spill", many.len());
    assert_eq!(rows(&many), 800 * rows(&one));
    assert!(many.trim_end().ends_with("</html>"));
}
