//! `stopgate scan [PATH...]`: findings across transcript archives.

use std::cmp::Reverse;
use std::io::{self, IsTerminal, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use stopgate::archive::{self, FileReport, Finding, ScanOptions, TurnReport};
use stopgate::judge::Judge;
use stopgate::read::Format as AgentFormat;

use super::health::HealthBuilder;
use super::inert::{csv_cell, terminal};
use super::label::session_label;
use super::report::{
    percent, trend, Counts, Flagged, Summary, SummaryBuilder,
};
use super::when::{self, Edge, When};

/// Output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A summary: totals, rates, the worst sessions, throughput.
    Table,
    /// One JSON object per turn with findings (or per turn: --all-turns).
    Jsonl,
    /// The JSONL columns as CSV.
    Csv,
    /// One self-contained HTML page (works offline): a chart per project
    /// over time, sortable tables, each finding with its evidence.
    Html,
    /// The JSONL rows as a Parquet file (zstd), written to --output; with
    /// --files-output, a second file with one row per file scanned. Needs
    /// a build with the `parquet` feature.
    Parquet,
}

/// When the table has colours.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

impl ColorWhen {
    fn choice(self) -> anstream::ColorChoice {
        match self {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        }
    }
}

/// Arguments of `stopgate scan`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories to scan; directories are searched for *.jsonl,
    /// subagent files included. Default: every agent's store that exists:
    /// Claude Code's ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects),
    /// Codex CLI's ($CODEX_HOME/sessions, else ~/.codex/sessions) and
    /// Gemini CLI's ($GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp).
    paths: Vec<PathBuf>,

    /// Only this agent's transcripts (claude, codex or gemini), told by
    /// their format; without PATHs, only its store is scanned.
    #[arg(long, value_name = "AGENT", value_parser = super::AGENTS)]
    agent: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,

    /// With --format jsonl, csv or parquet, write every turn, not only
    /// those with findings.
    #[arg(long)]
    all_turns: bool,

    /// With --format parquet: the file to write (required). It is written
    /// under a temporary name beside it and renamed at the end.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// With --format parquet: also write one row per file scanned (path,
    /// session, agent, bytes, lines, corrupt lines, turns, and the error
    /// of a file that could not be read) to this Parquet file.
    #[arg(long, value_name = "FILE")]
    files_output: Option<PathBuf>,

    /// Only turns on or after this: a date (2026-03-20, from its start), an
    /// RFC 3339 timestamp (2026-03-20T10:00:00Z, as scan prints them), a
    /// local time (2026-03-20T09:30) or a span back from now (30m, 12h,
    /// 7d, 2w). Files last modified before it are skipped without being
    /// read.
    #[arg(long, value_name = "WHEN", value_parser = when::parse)]
    since: Option<When>,

    /// Only turns on or before this: the same forms as --since; a date
    /// means the whole of that day.
    #[arg(long, value_name = "WHEN", value_parser = when::parse)]
    until: Option<When>,

    /// The time zone dates and local times are read in: an IANA name
    /// (Asia/Tokyo), UTC, or local (the default: this machine's zone).
    #[arg(long, value_name = "ZONE", default_value = "local", value_parser = when::parse_tz)]
    tz: jiff::tz::TimeZone,

    /// Threads to scan with (default: the number of cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Exit 1 when any finding is reported (for CI).
    #[arg(long)]
    fail_on_findings: bool,

    /// No progress bar (there is none anyway when stderr is not a terminal).
    #[arg(long)]
    no_progress: bool,

    /// Colours in the table: auto (on a terminal, unless NO_COLOR is set),
    /// always or never.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: ColorWhen,

    /// Use this stopgate.toml instead of searching for one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Skip lines longer than this many bytes (counted in the summary), so
    /// that memory stays near this much per thread. At most 1 GiB.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = stopgate::read::DEFAULT_MAX_LINE,
        value_parser = parse_max_line
    )]
    max_line_bytes: usize,

    /// Read files in chunks of this many bytes (for testing).
    #[arg(long, hide = true, default_value_t = stopgate::read::DEFAULT_CHUNK)]
    chunk_size: usize,
}

/// The most `--max-line-bytes` accepts: 1 GiB.
///
/// A line is held in memory several times over while it is read and
/// parsed (the read buffer, the parser's copy, its tape), and the parser's
/// arena cannot report a failed allocation: it panics. A cap of
/// `u64::MAX` turned the cap off, and under an address-space limit
/// (`ulimit -v`) a long line then panicked the scan. A bounded cap keeps
/// the memory a scan may ask for something a user chose knowingly.
const MAX_LINE_LIMIT: usize = 1 << 30;

/// `--max-line-bytes`: a byte count no greater than [`MAX_LINE_LIMIT`].
fn parse_max_line(s: &str) -> Result<usize, String> {
    let n: u64 = s.parse().map_err(|e| format!("{e}"))?;
    usize::try_from(n).ok().filter(|&n| n <= MAX_LINE_LIMIT).ok_or_else(|| {
        format!(
            "{n} is over the limit of {MAX_LINE_LIMIT} bytes (1 GiB): a \
                 line is held in memory several times over"
        )
    })
}

/// Run `stopgate scan`.
pub fn run(args: &Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("stopgate: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    check_format_flags(args)?;
    let config = super::config::load_strict(args.config.as_deref())?;
    let judge = Judge::for_bulk(&config).map_err(|e| e.to_string())?;
    let agent = args.agent.as_deref().and_then(AgentFormat::from_name);
    let paths = if args.paths.is_empty() {
        default_roots(agent)?
    } else {
        args.paths.clone()
    };
    let (since, until) = date_range(args)?;
    // A file last written before `--since` holds no turn in range.
    let since_mtime = since
        .map(std::time::SystemTime::try_from)
        .transpose()
        .map_err(|e| format!("--since: {e}"))?;
    let mut walk =
        archive::Walk::new(&paths, since_mtime).map_err(|e| e.to_string())?;
    let threads = thread_count(args.threads);
    // The bar's totals take a walk of their own: the scan's walk hands out
    // files as it finds them, and never lists them all.
    let bar = progress_bar(args, || {
        let walk = archive::Walk::new(&paths, since_mtime).ok()?;
        Some(walk.fold((0, 0), |(n, bytes), c| (n + 1, bytes + c.len)))
    });
    let options = scan_options(args, since, until);
    let mut out = output(args);
    let mut sink = Sink::new(args, &mut out).map_err(|e| e.to_string())?;
    let mut tally = Tally::default();
    let mut found = 0usize;
    let started = Instant::now();
    let files_done = AtomicU64::new(0);
    archive::scan_files_each(
        walk.by_ref(),
        &judge,
        &options,
        threads,
        &|len| advance(bar.as_ref(), &files_done, len),
        &mut |report| {
            found += 1;
            if agent.is_some_and(|a| report.agent != a)
                && report.error.is_none()
            {
                return;
            }
            tally.add(report);
            sink.add(report);
        },
    )
    .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let elapsed = started.elapsed();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if found == 0 && walk.skipped_by_date() == 0 {
        say_none_found(args.format, &paths);
        // A Parquet file is written all the same, with no rows: whatever
        // reads it next finds the file it was promised.
        if walk.errors().is_empty() && args.format != Format::Parquet {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let walked = WalkNotes {
        skipped_by_date: walk.skipped_by_date(),
        errors: walk.errors(),
    };
    let written = sink.finish(&tally, &walked, elapsed, threads);
    let written = written.and_then(|()| match args.format {
        Format::Table => write_range(&mut out, since, until, &args.tz),
        _ => Ok(()),
    });
    match written.and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(format!("writing output: {e}")),
    }
    Ok(exit_code(args, &tally, &walked))
}

/// The flags that only some formats take.
fn check_format_flags(args: &Args) -> Result<(), String> {
    if args.all_turns && matches!(args.format, Format::Table | Format::Html) {
        return Err("--all-turns picks the rows of --format jsonl, csv or \
                    parquet; the table and the HTML report count every turn \
                    already"
            .into());
    }
    let parquet = args.format == Format::Parquet;
    if parquet && !cfg!(feature = "parquet") {
        return Err("--format parquet needs a stopgate built with Parquet: \
                    cargo install stopgate --features parquet"
            .into());
    }
    if parquet && args.output.is_none() {
        return Err("--format parquet writes a file: add --output FILE".into());
    }
    if let Some(dir) = [&args.output, &args.files_output]
        .into_iter()
        .flatten()
        .find(|p| p.is_dir())
    {
        return Err(format!("{}: is a folder, not a file", dir.display()));
    }
    let absolute = |p: &Option<PathBuf>| {
        p.as_deref().map(|p| std::path::absolute(p).unwrap_or(p.into()))
    };
    if args.output.is_some()
        && absolute(&args.output) == absolute(&args.files_output)
    {
        return Err("--output and --files-output name the same file: the \
                    files table would replace the turns"
            .into());
    }
    if !parquet && (args.output.is_some() || args.files_output.is_some()) {
        return Err("--output and --files-output are for --format parquet; \
                    the other formats write to standard output"
            .into());
    }
    Ok(())
}

/// Move the progress bar, if any, past a file of `len` bytes.
fn advance(
    bar: Option<&indicatif::ProgressBar>,
    files_done: &AtomicU64,
    len: u64,
) {
    let done = files_done.fetch_add(1, Ordering::Relaxed) + 1;
    if let Some(b) = bar {
        b.inc(len);
        b.set_message(done.to_string());
    }
}

/// Standard output, buffered. Only the table has colours; the stream
/// strips them when they are not wanted (a pipe, NO_COLOR, --color never).
fn output(
    args: &Args,
) -> io::BufWriter<anstream::AutoStream<io::StdoutLock<'static>>> {
    let choice = match args.format {
        Format::Table => args.color.choice(),
        _ => anstream::ColorChoice::Never,
    };
    io::BufWriter::new(anstream::AutoStream::new(io::stdout().lock(), choice))
}

/// The scan's exit status, once its output is written: 1 with
/// `--fail-on-findings` when anything was found. A count of what could not
/// be read goes to stderr when stdout is data, not the table.
fn exit_code(args: &Args, tally: &Tally, walked: &WalkNotes<'_>) -> ExitCode {
    if args.format != Format::Table {
        let unreadable = tally.unreadable.len() + walked.errors.len();
        if unreadable > 0 {
            eprintln!(
                "stopgate: {unreadable} files or entries could not be read"
            );
        }
    }
    if args.fail_on_findings && tally.findings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A date range: its first and last instants, either open.
type Range = (Option<jiff::Timestamp>, Option<jiff::Timestamp>);

/// `--since` and `--until`, resolved; a warning when no turn can match.
fn date_range(args: &Args) -> Result<Range, String> {
    let now = jiff::Timestamp::now();
    let edge = |w: &Option<When>, edge: Edge, flag: &str| {
        w.as_ref()
            .map(|w| when::resolve(w, edge, &args.tz, now))
            .transpose()
            .map_err(|e| format!("{flag}: {e}"))
    };
    let since = edge(&args.since, Edge::Since, "--since")?;
    let until = edge(&args.until, Edge::Until, "--until")?;
    if let (Some(s), Some(u)) = (since, until) {
        if s > u {
            eprintln!(
                "stopgate: warning: --since ({s}) is after --until ({u}): no \
                 turn can match"
            );
        }
    }
    Ok((since, until))
}

/// The scan's threads: `--threads`, at most 4 per core, or one per core.
fn thread_count(asked: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max_threads = cores.saturating_mul(4);
    match asked {
        Some(n) if n > max_threads => {
            eprintln!(
                "stopgate: --threads {n} clamped to {max_threads} (4 per core)"
            );
            max_threads
        }
        Some(n) => n.max(1),
        None => cores,
    }
}

/// The reading settings of the command line.
fn scan_options(
    args: &Args,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
) -> ScanOptions {
    let mut options = ScanOptions::default();
    options.chunk_size = args.chunk_size;
    options.since = since;
    options.until = until;
    options.max_line = args.max_line_bytes;
    options
}

/// Say that `paths` hold no transcript: a table of zeros would read as
/// "you never audit".
fn say_none_found(format: Format, paths: &[PathBuf]) {
    let under: Vec<String> =
        paths.iter().map(|p| p.display().to_string()).collect();
    let msg = format!("no transcripts found under {}", under.join(", "));
    match format {
        Format::Table => println!("{}", terminal(&msg)),
        Format::Jsonl | Format::Csv | Format::Html | Format::Parquet => {
            eprintln!("stopgate: {msg}")
        }
    }
}

/// The stores scanned when no PATH is given: every agent's (or `only`'s)
/// that exists; Claude Code's when none does, so that the "no transcripts
/// found" message names where they were looked for.
fn default_roots(only: Option<AgentFormat>) -> Result<Vec<PathBuf>, String> {
    let var = |k: &str| std::env::var(k).ok();
    let home = || var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let codex = || match var("CODEX_HOME").filter(|h| !h.is_empty()) {
        Some(h) => Some(PathBuf::from(h).join("sessions")),
        None => Some(home()?.join(".codex/sessions")),
    };
    let gemini = || {
        let base = var("GEMINI_CLI_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(home)?;
        Some(base.join(".gemini/tmp"))
    };
    let claude = || archive::default_root(var);
    let stores: Vec<(AgentFormat, Option<PathBuf>)> = vec![
        (AgentFormat::Claude, claude()),
        (AgentFormat::Codex, codex()),
        (AgentFormat::Gemini, gemini()),
    ];
    let wanted: Vec<(AgentFormat, PathBuf)> = stores
        .into_iter()
        .filter(|(a, _)| only.is_none_or(|o| o == *a))
        .filter_map(|(a, p)| Some((a, p?)))
        .collect();
    let first = wanted
        .first()
        .map(|(_, p)| p.clone())
        .ok_or("no PATH given and HOME is not set")?;
    let existing: Vec<PathBuf> =
        wanted.into_iter().map(|(_, p)| p).filter(|p| p.is_dir()).collect();
    Ok(if existing.is_empty() { vec![first] } else { existing })
}

fn progress_bar(
    args: &Args,
    totals: impl FnOnce() -> Option<(u64, u64)>,
) -> Option<indicatif::ProgressBar> {
    if args.no_progress || !io::stderr().is_terminal() {
        return None;
    }
    let (files, bytes) = totals()?;
    // Drawn only once set up, so the first frame is a whole one.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(bytes),
        indicatif::ProgressDrawTarget::hidden(),
    );
    // The bar takes what the terminal's width leaves, so the line never
    // wraps (an 80-column terminal included); sizes in the IEC units of
    // the table.
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} {msg}/{prefix} files [{wide_bar}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {eta}",
    )
    .ok()?
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(files.to_string());
    bar.set_message("0");
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    // The first frame at once, not after the first tick.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(120));
    Some(bar)
}

/// The columns of one turn, shared by JSONL and CSV.
struct Row<'a> {
    report: &'a FileReport,
    turn: &'a TurnReport,
}

impl Row<'_> {
    /// A key unique to the row ([`FileReport::turn_key`]).
    fn key(&self) -> String {
        self.report.turn_key(self.turn)
    }

    fn findings(&self) -> Vec<&'static str> {
        self.turn.findings.iter().map(|e| e.finding.as_str()).collect()
    }

    /// The evidence of the first finding: its rule, what matched, the
    /// final text's line and an excerpt. (JSONL carries every finding's.)
    fn first_evidence(&self) -> Option<&archive::Evidence> {
        self.turn.findings.first()
    }
}

/// The rows of one file: every turn with `--all-turns`, else the turns
/// with findings.
fn rows(report: &FileReport, all: bool) -> impl Iterator<Item = Row<'_>> {
    report
        .turns
        .iter()
        .map(move |t| Row { report, turn: t })
        .filter(move |row| all || !row.turn.findings.is_empty())
}

/// Where a scan's reports go, one file at a time, in the files' order:
/// rows straight out for JSONL and CSV; counts for the table; counts and
/// the turns with findings for the HTML report. No sink keeps every turn,
/// so a scan's memory does not grow with the archive.
enum Sink<'w, W: Write> {
    Jsonl {
        out: &'w mut W,
        all: bool,
        error: Option<io::Error>,
    },
    Csv {
        w: csv::Writer<&'w mut W>,
        all: bool,
        /// Whether the header is out: it goes out with the first row, or
        /// at the end, so that a scan that finds nothing writes nothing.
        header: bool,
        error: Option<io::Error>,
    },
    Table {
        out: &'w mut W,
        summary: SummaryBuilder,
    },
    Html {
        out: &'w mut W,
        summary: SummaryBuilder,
        /// The findings table's rows, in memory up to a MiB, then on disk.
        rows: tempfile::SpooledTempFile,
        error: Option<io::Error>,
    },
    #[cfg(feature = "parquet")]
    Parquet(Box<super::parquet::ParquetSink>),
}

impl<'w, W: Write> Sink<'w, W> {
    fn new(args: &Args, out: &'w mut W) -> io::Result<Sink<'w, W>> {
        let all = args.all_turns;
        Ok(match args.format {
            Format::Jsonl => Sink::Jsonl { out, all, error: None },
            Format::Csv => Sink::Csv {
                w: csv::Writer::from_writer(out),
                all,
                header: false,
                error: None,
            },
            Format::Table => {
                Sink::Table { out, summary: SummaryBuilder::new(&args.tz) }
            }
            Format::Html => Sink::Html {
                out,
                summary: SummaryBuilder::new(&args.tz),
                rows: tempfile::spooled_tempfile(HTML_ROWS_IN_MEMORY),
                error: None,
            },
            #[cfg(feature = "parquet")]
            Format::Parquet => {
                let sink = super::parquet::ParquetSink::create(
                    args.output
                        .as_deref()
                        .expect("checked: --output is given"),
                    args.files_output.as_deref(),
                    all,
                )?;
                Sink::Parquet(Box::new(sink))
            }
            #[cfg(not(feature = "parquet"))]
            Format::Parquet => unreachable!("refused by check_format_flags"),
        })
    }

    /// Take one file's report. A write error is kept for
    /// [`Sink::finish`], and nothing more is written after it.
    fn add(&mut self, report: &mut FileReport) {
        match self {
            Sink::Jsonl { out, all, error: error @ None } => {
                *error = write_jsonl(&mut **out, report, *all).err();
            }
            Sink::Csv { w, all, header, error: error @ None } => {
                *error = write_csv(w, header, report, *all).err();
            }
            Sink::Jsonl { .. } | Sink::Csv { .. } => {}
            Sink::Table { summary, .. } => summary.add(report),
            #[cfg(feature = "parquet")]
            Sink::Parquet(sink) => sink.add(report),
            Sink::Html { summary, rows, error, .. } => {
                summary.add(report);
                // Taken only when flagged: what is left is freed by the
                // thread that scanned the file.
                let flagged = report
                    .turns
                    .iter()
                    .any(|t| !t.findings.is_empty())
                    .then(|| Flagged::of(std::mem::take(report)))
                    .flatten();
                if let (Some(f), None) = (flagged, &error) {
                    let mut h = String::new();
                    super::html::finding_rows(&mut h, &f);
                    *error = rows.write_all(h.as_bytes()).err();
                }
            }
        }
    }

    /// Write what comes after the last file: the table, or the HTML page.
    fn finish(
        self,
        tally: &Tally,
        walked: &WalkNotes<'_>,
        elapsed: Duration,
        threads: usize,
    ) -> io::Result<()> {
        match self {
            Sink::Jsonl { error, .. } => error.map_or(Ok(()), Err),
            #[cfg(feature = "parquet")]
            Sink::Parquet(sink) => sink.finish(),
            Sink::Csv { mut w, mut header, error, .. } => match error {
                Some(e) => Err(e),
                None => {
                    write_csv_header(&mut w, &mut header)?;
                    w.flush()
                }
            },
            Sink::Table { out, summary } => write_table(
                out,
                tally,
                &summary.finish(),
                walked,
                elapsed,
                threads,
            ),
            Sink::Html { out, summary, mut rows, error } => {
                if let Some(e) = error {
                    return Err(e);
                }
                rows.seek(io::SeekFrom::Start(0))?;
                let scanned = format!(
                    "{} files, {}, scanned in {:.1} s on {}",
                    tally.files,
                    human_bytes(tally.bytes),
                    elapsed.as_secs_f64(),
                    jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M UTC")
                );
                super::html::write(out, &summary.finish(), &mut rows, &scanned)
            }
        }
    }
}

/// How much of the HTML report's findings rows stay in memory before they
/// go to a temporary file: the rows of about 500 flagged sessions. At 1
/// MiB, the spool (and its growth, twice the size while it doubles) was
/// most of what an HTML scan of 100,000 sessions held over a scan of one
/// (`benches/scan_memory.sh`).
const HTML_ROWS_IN_MEMORY: usize = 256 << 10;

/// What the walk left out, for the table: files too old for `--since`,
/// and entries that could not be read.
struct WalkNotes<'a> {
    skipped_by_date: usize,
    errors: &'a [String],
}

/// What the table says besides the summary's counts, tallied one file at
/// a time.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    subagent_files: usize,
    /// Subagent files whose session's main file is missing.
    orphans: usize,
    bytes: u64,
    corrupt: u64,
    too_long: u64,
    /// Files that could not be read, with why.
    unreadable: Vec<String>,
    turns: usize,
    /// Findings over every turn.
    findings: usize,
    /// The sessions with the most findings, most first (at most
    /// [`WORST`]).
    worst: Vec<Worst>,
}

/// How many of the worst sessions the table lists.
const WORST: usize = 10;

/// One of the worst sessions.
#[derive(Debug)]
struct Worst {
    label: String,
    path: PathBuf,
    findings: usize,
    turns: usize,
}

impl Tally {
    fn add(&mut self, r: &FileReport) {
        self.files += 1;
        self.subagent_files += usize::from(r.subagent);
        self.orphans += usize::from(r.note.is_some());
        self.bytes += r.bytes;
        self.corrupt += r.corrupt;
        self.too_long += r.too_long;
        if let Some(e) = &r.error {
            self.unreadable.push(format!("{}: {e}", r.path.display()));
        }
        let mut findings = 0;
        for t in &r.turns {
            self.turns += 1;
            findings += t.findings.len();
        }
        self.findings += findings;
        if findings > 0 {
            rank_worst(&mut self.worst, findings, &r.path, || Worst {
                label: session_label(r),
                path: r.path.clone(),
                findings,
                turns: r.turns.len(),
            });
        }
    }
}

/// Put a session with `findings` among the `worst`, which are kept
/// sorted (most findings first, then by path) and at most [`WORST`]
/// long, as a stable sort after a push would keep them. The session's row
/// is made only if it ranks: making a label for every file was most of
/// the allocation on the thread that writes the reports.
fn rank_worst(
    worst: &mut Vec<Worst>,
    findings: usize,
    path: &Path,
    make: impl FnOnce() -> Worst,
) {
    fn key(findings: usize, path: &Path) -> (Reverse<usize>, &Path) {
        (Reverse(findings), path)
    }
    let ranks = worst.len() < WORST
        || worst.last().is_some_and(|last| {
            key(findings, path) < key(last.findings, &last.path)
        });
    if ranks {
        let at = worst.partition_point(|w| {
            key(w.findings, &w.path) <= key(findings, path)
        });
        worst.insert(at, make());
        worst.truncate(WORST);
    }
}

fn write_jsonl(
    out: &mut impl Write,
    report: &FileReport,
    all: bool,
) -> io::Result<()> {
    for row in rows(report, all) {
        let t = row.turn;
        let line = JsonRow {
            key: row.key(),
            file: row.report.path_text(),
            file_escaped: row.report.path.to_str().is_none(),
            session_id: &row.report.session_id,
            project: row.report.project.as_deref(),
            turn: t.turn,
            kind: t.kind.as_str(),
            timestamp: t.timestamp.as_deref(),
            entrypoint: row.report.entrypoint.as_deref(),
            agent: row.report.agent.as_str(),
            changed: t.changed,
            audit: &t.audit,
            findings: row.findings(),
            evidence: t
                .findings
                .iter()
                .map(|e| JsonEvidence {
                    finding: e.finding.as_str(),
                    rule: e.rule.as_str(),
                    matched: &e.matched,
                    line: e.line,
                    excerpt: &e.excerpt,
                })
                .collect(),
            subagents: &t.subagents,
            changes: &t.changes,
            unguarded: t.unguarded,
            hooks_ran: &t.hooks_ran,
            hook_blocked: t.hook_blocked,
            hook_blocks: t.hook_blocks,
            blocking_hooks: &t.blocking_hooks,
            hook_faults: t
                .hook_faults
                .iter()
                .map(|f| JsonFault {
                    event: f.event(),
                    command: f.command(),
                    timed_out: f.timed_out(),
                })
                .collect(),
            blocks_overridden: t.blocks_overridden,
            note: row.report.note.as_deref(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// For serde: a count of zero is left out of a row.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One JSONL row, in column order.
#[derive(serde::Serialize)]
struct JsonRow<'a> {
    /// Unique to the row: see `Row::key`.
    key: String,
    file: String,
    /// Set when the name is not UTF-8: `file` then spells each byte that
    /// is not as `\xNN`, and each backslash as `\\`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    file_escaped: bool,
    session_id: &'a str,
    project: Option<&'a str>,
    turn: usize,
    kind: &'static str,
    timestamp: Option<&'a str>,
    entrypoint: Option<&'a str>,
    agent: &'static str,
    changed: bool,
    audit: &'a str,
    findings: Vec<&'static str>,
    evidence: Vec<JsonEvidence<'a>>,
    subagents: &'a [String],
    /// Where the turn's changes came from (`archive::TurnReport::changes`).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    changes: &'a [String],
    /// How many times stopgate's hook failed open in the turn.
    #[serde(skip_serializing_if = "is_zero")]
    unguarded: usize,
    hooks_ran: &'a [String],
    hook_blocked: bool,
    hook_blocks: usize,
    blocking_hooks: &'a [String],
    /// The hooks that failed in the turn (errors and timeouts).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hook_faults: Vec<JsonFault<'a>>,
    /// How many consecutive Stop blocks the client overrode to end the
    /// turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks_overridden: Option<usize>,
    /// What to know about the file (`archive::FileReport::note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

/// A hook's fault in a JSONL row.
#[derive(serde::Serialize)]
struct JsonFault<'a> {
    event: &'a str,
    command: Option<&'a str>,
    timed_out: bool,
}

/// One finding's evidence in a JSONL row.
#[derive(serde::Serialize)]
struct JsonEvidence<'a> {
    finding: &'static str,
    rule: &'static str,
    matched: &'a [String],
    line: Option<u64>,
    excerpt: &'a str,
}

/// The CSV header.
const CSV_COLUMNS: [&str; 27] = [
    "key",
    "file",
    "session_id",
    "project",
    "turn",
    "kind",
    "timestamp",
    "entrypoint",
    "agent",
    "changed",
    "audit",
    "findings",
    "rules",
    "matched",
    "line",
    "excerpt",
    "subagents",
    "hooks_ran",
    "hook_blocked",
    "hook_blocks",
    "blocking_hooks",
    "lines",
    "excerpts",
    "hook_faults",
    "blocks_overridden",
    "note",
    "changes",
];

/// The header, unless it is out already.
fn write_csv_header<W: Write>(
    w: &mut csv::Writer<W>,
    header: &mut bool,
) -> io::Result<()> {
    if !*header {
        w.write_record(CSV_COLUMNS)?;
        *header = true;
    }
    Ok(())
}

fn write_csv<W: Write>(
    w: &mut csv::Writer<W>,
    header: &mut bool,
    report: &FileReport,
    all: bool,
) -> io::Result<()> {
    write_csv_header(w, header)?;
    for row in rows(report, all) {
        w.write_record(csv_cells(&row).map(csv_cell))?;
    }
    Ok(())
}

/// One row's cells, in the order of [`CSV_COLUMNS`]. List cells are JSON
/// arrays: shell commands hold every separator a plain list could use
/// (`;`, `|`, `,`). No cell is a formula (`csv_cell`): a transcript's
/// `cwd` or text may start with `=`.
fn csv_cells(row: &Row<'_>) -> [String; 27] {
    let list =
        |items: Vec<&str>| serde_json::to_string(&items).unwrap_or_default();
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    [
        row.key(),
        row.report.path_text(),
        row.report.session_id.clone(),
        row.report.project.clone().unwrap_or_default(),
        row.turn.turn.to_string(),
        row.turn.kind.as_str().to_string(),
        row.turn.timestamp.clone().unwrap_or_default(),
        row.report.entrypoint.clone().unwrap_or_default(),
        row.report.agent.as_str().to_string(),
        row.turn.changed.to_string(),
        row.turn.audit.clone(),
        list(row.findings()),
        list(row.turn.findings.iter().map(|e| e.rule.as_str()).collect()),
        serde_json::to_string(
            &row.turn.findings.iter().map(|e| &e.matched).collect::<Vec<_>>(),
        )
        .unwrap_or_default(),
        row.first_evidence()
            .and_then(|e| e.line)
            .map(|l| l.to_string())
            .unwrap_or_default(),
        row.first_evidence().map(|e| e.excerpt.clone()).unwrap_or_default(),
        list(strs(&row.turn.subagents)),
        list(strs(&row.turn.hooks_ran)),
        row.turn.hook_blocked.to_string(),
        row.turn.hook_blocks.to_string(),
        list(strs(&row.turn.blocking_hooks)),
        // Every finding's line and excerpt, in the order of
        // `findings`; `line` and `excerpt` hold the first's.
        serde_json::to_string(
            &row.turn.findings.iter().map(|e| e.line).collect::<Vec<_>>(),
        )
        .unwrap_or_default(),
        list(row.turn.findings.iter().map(|e| e.excerpt.as_str()).collect()),
        list(strs(
            &row.turn.hook_faults.iter().map(fault_text).collect::<Vec<_>>(),
        )),
        row.turn.blocks_overridden.map(|n| n.to_string()).unwrap_or_default(),
        row.report.note.clone().unwrap_or_default(),
        list(strs(&row.turn.changes)),
    ]
}

/// A hook's fault in a word or two: `Stop: stopgate hook (timed out)`.
fn fault_text(f: &stopgate::read::HookFault) -> String {
    let event = if f.event().is_empty() { "hook" } else { f.event() };
    let what = if f.timed_out() { "timed out" } else { "failed" };
    match f.command() {
        Some(c) => format!("{event}: {c} ({what})"),
        None => format!("{event} ({what})"),
    }
}

/// The range of turns the table counts, when `--since` or `--until` set
/// one, in the zone they were read in.
fn write_range(
    out: &mut impl Write,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
    tz: &jiff::tz::TimeZone,
) -> io::Result<()> {
    if since.is_none() && until.is_none() {
        return Ok(());
    }
    let show = |t: Option<jiff::Timestamp>, open: &str| {
        t.map_or(open.to_string(), |t| {
            t.to_zoned_datetime(tz.clone())
                .strftime("%Y-%m-%d %H:%M:%S %:z")
                .to_string()
        })
    };
    writeln!(
        out,
        "\nturns from {} to {}",
        show(since, "the first"),
        show(until, "the last")
    )
}

fn write_table(
    out: &mut impl Write,
    tally: &Tally,
    summary: &Summary,
    walked: &WalkNotes<'_>,
    elapsed: Duration,
    threads: usize,
) -> io::Result<()> {
    write_scanned(out, tally, summary, walked, elapsed, threads)?;
    writeln!(out)?;
    if tally.turns == 0 {
        // A table of zeros would read as "you never audit"; the range, if
        // one was given, is written after this.
        return writeln!(out, "no turns to judge in these files");
    }
    write_totals(out, summary)?;
    writeln!(out)?;
    write_findings(out, summary)?;
    write_breakdowns(out, summary)?;
    write_worst(out, &tally.worst)?;
    writeln!(out)?;
    write_health(out, &summary.health)
}

/// What was read, how fast, and what could not be.
fn write_scanned(
    out: &mut impl Write,
    tally: &Tally,
    summary: &Summary,
    walked: &WalkNotes<'_>,
    elapsed: Duration,
    threads: usize,
) -> io::Result<()> {
    let bytes = tally.bytes;
    let unreadable: Vec<&String> =
        tally.unreadable.iter().chain(walked.errors).collect();
    let secs = elapsed.as_secs_f64();
    writeln!(
        out,
        "scanned {} files ({} subagent), {}, {} turns ({} with file changes)",
        tally.files,
        tally.subagent_files,
        human_bytes(bytes),
        tally.turns,
        summary.all.change_turns
    )?;
    writeln!(
        out,
        "in {:.3} s on {threads} thread{}: {}/s",
        secs,
        if threads == 1 { "" } else { "s" },
        human_bytes(if secs > 0.0 {
            (bytes as f64 / secs) as u64
        } else {
            bytes
        })
    )?;
    if tally.orphans > 0 {
        let files = if tally.orphans == 1 { "file" } else { "files" };
        writeln!(
            out,
            "{} subagent {files} whose session's main file is missing: \
             their turns stand alone, unjudged (--all-turns lists them)",
            tally.orphans
        )?;
    }
    if walked.skipped_by_date > 0 {
        writeln!(
            out,
            "skipped {} files last modified before --since",
            walked.skipped_by_date
        )?;
    }
    writeln!(
        out,
        "corrupt lines skipped: {}; unreadable files: {}",
        tally.corrupt,
        unreadable.len()
    )?;
    for u in unreadable.iter().take(10) {
        writeln!(out, "  {}", terminal(u))?;
    }
    if tally.too_long > 0 {
        writeln!(
            out,
            "lines over the length cap skipped: {} (raise --max-line-bytes to read them)",
            tally.too_long
        )?;
    }
    Ok(())
}

/// The change turns and how they were audited, and the dates they span.
/// Audits by how they were written, so a team that audits in its own
/// words is not told it never audits.
fn write_totals(out: &mut impl Write, summary: &Summary) -> io::Result<()> {
    let n = summary.all.unaudited;
    writeln!(
        out,
        "change turns: {}; {}, unaudited {}",
        summary.all.change_turns,
        summary.all.audit_breakdown(),
        paint(if n > 0 { BAD } else { GOOD }, &n.to_string()),
    )?;
    if let (Some(a), Some(b)) = (summary.first, summary.last) {
        writeln!(
            out,
            "turns dated {} to {}",
            summary.show(a),
            summary.show(b)
        )?;
    }
    Ok(())
}

/// One row per finding: its turns, and its rate over the turns it could
/// be found in.
fn write_findings(out: &mut impl Write, summary: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        paint(
            HEAD,
            &format!("{:<18} {:>7} {:>6}  over", "finding", "turns", "rate")
        )
    )?;
    for f in Finding::ALL {
        let n = summary.all.of(f);
        let of = summary.all.denominator(f);
        let rate = if of > 0 { n as f64 * 100.0 / of as f64 } else { 0.0 };
        writeln!(
            out,
            "{:<18} {} {:>5.1}%  of {} {}",
            f.as_str(),
            paint(if n > 0 { BAD } else { GOOD }, &format!("{n:>7}")),
            rate,
            of,
            Counts::denominator_name(f)
        )?;
    }
    Ok(())
}

/// Hook health: whether the Stop hooks ran and held, per project, and the
/// sessions where something went wrong with them.
fn write_health(
    out: &mut impl Write,
    health: &HealthBuilder,
) -> io::Result<()> {
    let all = &health.all;
    writeln!(out, "{}", paint(HEAD, "hook health"))?;
    if !all.any_trace() {
        return writeln!(
            out,
            "no hook activity recorded (only interactive Claude Code sessions \
             record which Stop hooks ran)"
        );
    }
    if all.unguarded > 0 {
        let times = match all.unguarded {
            1 => "once".to_string(),
            n => format!("{n} times"),
        };
        let line = format!(
            "stopgate's hook told the user it was not guarding {times} \
             (it fails open; run `stopgate doctor`)"
        );
        writeln!(out, "{}", paint(BAD, &line))?;
    }
    writeln!(
        out,
        "{:<16} {:>6} {:>14} {:>6} {:>9} {:>6} {:>8} {:>7}",
        "project",
        "stops",
        "stopgate ran",
        "blocks",
        "overrode",
        "errors",
        "timeouts",
        "unguard"
    )?;
    for (project, h) in &health.by_project {
        if h.stops == 0 && !h.any_trace() {
            continue;
        }
        writeln!(
            out,
            "{:<16} {:>6} {:>14} {:>6} {:>9} {:>6} {:>8} {:>7}",
            clip(&terminal(project), 16),
            h.stops,
            h.ran_cell(),
            h.blocks,
            h.overridden,
            h.errors,
            h.timeouts,
            h.unguarded
        )?;
    }
    writeln!(
        out,
        "{}",
        paint(
            DIM,
            "(stopgate ran: Stops after which stopgate's hook ran, of those whose\n \
             transcript records the Stop hooks; overrode: turns the client ended over\n \
             consecutive blocks; errors, timeouts: hooks of any event)"
        )
    )?;
    for t in &health.troubled {
        writeln!(
            out,
            "{}  {}",
            paint(BAD, &clip(&terminal(&t.label), 60)),
            super::health::trouble_words(&t.health)
        )?;
        writeln!(out, "    {}", terminal(&archive::path_text(&t.path)))?;
    }
    Ok(())
}

/// Per project and per period: change turns, how they were audited, and
/// each finding, so a lead sees where and when audits are skipped.
fn write_breakdowns(
    out: &mut impl Write,
    summary: &Summary,
) -> io::Result<()> {
    // One report for every agent a team runs: each agent's own row, when
    // the scan saw more than one.
    if summary.by_agent.len() > 1 {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            paint(HEAD, &breakdown_header("by agent", 16, ""))
        )?;
        for (agent, c) in &summary.by_agent {
            writeln!(out, "{}", breakdown_row(&terminal(agent), 16, c, ""))?;
        }
    }
    writeln!(out)?;
    writeln!(out, "{}", paint(HEAD, &breakdown_header("by project", 16, "")))?;
    for (project, c) in &summary.by_project {
        let name = clip(&terminal(project), 16);
        writeln!(out, "{}", breakdown_row(&name, 16, c, ""))?;
    }
    if !summary.by_period.is_empty() {
        writeln!(out)?;
        let name = format!("by {}", summary.period.noun());
        writeln!(
            out,
            "{}",
            paint(HEAD, &breakdown_header(&name, 12, "  trend"))
        )?;
        let mut before = None;
        for (start, c) in &summary.by_period {
            let share = c.audited_share();
            let t = trend(before, share);
            let style = match t.chars().next() {
                Some('+') => GOOD,
                Some('-') => BAD,
                _ => anstyle::Style::new(),
            };
            let t = format!("  {}", paint(style, &t));
            writeln!(out, "{}", breakdown_row(start, 12, c, &t))?;
            before = share.or(before);
        }
    }
    writeln!(
        out,
        "{}",
        paint(
            DIM,
            "(marker, plain, ran, esc: audited by a marker, in plain language, by\n \
             a check the turn ran, by the escape hatch; unc: the judge could not\n \
             tell; unaud: no audit; defer: deferral; capit: capitulation;\n \
             unver: unverified claim)"
        )
    )?;

    Ok(())
}

/// The ten sessions with the most findings, labelled for people.
fn write_worst(out: &mut impl Write, worst: &[Worst]) -> io::Result<()> {
    if !worst.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{:<60} {:>8} {:>6}",
            "worst sessions (project · date · first prompt)",
            "findings",
            "turns"
        )?;
        for w in worst {
            writeln!(
                out,
                "{:<60} {:>8} {:>6}",
                clip(&terminal(&w.label), 60),
                w.findings,
                w.turns
            )?;
        }
    }
    Ok(())
}

/// The table's colours; the output stream strips them when they are not
/// wanted.
const BAD: anstyle::Style = anstyle::Style::new()
    .fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Red)));
const GOOD: anstyle::Style = anstyle::Style::new()
    .fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Green)));
const WARN: anstyle::Style = anstyle::Style::new()
    .fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Yellow)));
const HEAD: anstyle::Style = anstyle::Style::new().bold();
const DIM: anstyle::Style = anstyle::Style::new().dimmed();

/// `s` in `style`.
fn paint(style: anstyle::Style, s: &str) -> String {
    format!("{style}{s}{style:#}")
}

/// An audited share, `width` wide, green from 80%, red under 50%.
fn share_cell(share: Option<f64>, width: usize) -> String {
    let style = match share {
        Some(p) if p >= 80.0 => GOOD,
        Some(p) if p >= 50.0 => WARN,
        Some(_) => BAD,
        None => anstyle::Style::new(),
    };
    paint(style, &format!("{:>width$}", percent(share)))
}

/// The header of a per-project or per-period table.
fn breakdown_header(name: &str, width: usize, tail: &str) -> String {
    format!(
        "{name:<width$} {:>7} {:>6} {:>5} {:>4} {:>4} {:>4} {:>5} {:>6} {:>5} {:>5} {:>5} {:>6}{tail}",
        "changes", "marker", "plain", "ran", "esc", "unc", "unaud", "hollow", "defer", "capit", "unver", "audit%"
    )
}

/// One row of a per-project or per-period table.
fn breakdown_row(name: &str, width: usize, c: &Counts, tail: &str) -> String {
    let unaud = paint(
        if c.unaudited > 0 { BAD } else { anstyle::Style::new() },
        &format!("{:>5}", c.unaudited),
    );
    format!(
        "{name:<width$} {:>7} {:>6} {:>5} {:>4} {:>4} {:>4} {unaud} {:>6} {:>5} {:>5} {:>5} {}{tail}",
        c.change_turns,
        c.marker,
        c.plain,
        c.grounded,
        c.escape,
        c.uncertain,
        c.hollow,
        c.of(Finding::Deferral),
        c.of(Finding::Capitulation),
        c.of(Finding::UnverifiedClaim),
        share_cell(c.audited_share(), 6),
    )
}

/// `s` cut to `width` characters, with an ellipsis when cut.
fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

fn human_bytes(n: u64) -> String {
    let f = n as f64;
    match n {
        n if n >= 1 << 30 => format!("{:.2} GiB", f / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", f / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", f / 1024.0),
        n => format!("{n} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rank_worst` against a push, a stable sort and a cut, on sessions
    /// with many ties; and it makes a row only for a session that ranks.
    #[test]
    fn the_worst_are_those_a_sort_would_keep() {
        let mut made = 0;
        let mut worst = vec![];
        let mut naive: Vec<(usize, PathBuf)> = vec![];
        for i in 0..500usize {
            let findings = 1 + (i * 7919) % 5;
            let path = PathBuf::from(format!("p{:03}", (i * 104_729) % 300));
            rank_worst(&mut worst, findings, &path, || {
                made += 1;
                Worst {
                    label: String::new(),
                    path: path.clone(),
                    findings,
                    turns: 0,
                }
            });
            naive.push((findings, path));
            naive.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            naive.truncate(WORST);
            let got: Vec<(usize, PathBuf)> =
                worst.iter().map(|w| (w.findings, w.path.clone())).collect();
            assert_eq!(got, naive, "after {i}");
        }
        assert!(made < 100, "{made} rows made for 500 sessions");
    }
}
