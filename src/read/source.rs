//! The byte source: a transcript file, memory-mapped or read.
//!
//! # Choosing a constructor
//!
//! | constructor | cost of the final text of a 1 GB file | risk |
//! |---|---|---|
//! | [`Transcript::open_mmap`] | the pages of the last few lines | `SIGBUS` if another process truncates the file |
//! | [`Transcript::read_tail`] | one read of the window | answers only what the window holds |
//! | [`Transcript::read`] | reading 1 GB | none |
//!
//! A memory map is the zero-copy path that keeps the hook's latency flat.
//! Its price is that a mapped file which shrinks underneath us turns the
//! next access to a vanished page into `SIGBUS`, which kills the process
//! unless it handles the signal. Transcripts grow by appending, which is
//! harmless, but a user may rotate or truncate them. As in ripgrep, that
//! choice is the caller's, and it is made visible: `open_mmap` is an
//! `unsafe fn`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::Format;
use crate::error::Error;

/// A transcript's bytes, from a memory map or a buffer.
///
/// Queries such as [`Transcript::final_assistant_text`] and
/// [`Transcript::current_turn`] read only the bytes they need: on a
/// memory-mapped file, the final text of a 1 GB session costs what that of
/// a 1 KB session does.
///
/// A transcript may be a *window*: the tail of a file, made by
/// [`Transcript::read_tail`]. The partial line at the start of a window is
/// not a line and is never looked at.
pub struct Transcript {
    data: Data,
    /// The file offset of `data[0]`.
    origin: u64,
    /// Where the first whole line starts in `data`: 0, except in a window
    /// that starts mid-line.
    body_start: usize,
    /// Whether the file goes on past the bytes held: a head window.
    head_cut: bool,
    path: Option<PathBuf>,
    /// The agent whose format the bytes have, judged once.
    format: std::sync::OnceLock<Format>,
}

enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("path", &self.path)
            .field("mapped", &matches!(self.data, Data::Mapped(_)))
            .field("origin", &self.origin)
            .field("len", &self.data().len())
            .finish()
    }
}

impl Transcript {
    /// Memory-map the transcript at `path`.
    ///
    /// Files that cannot be mapped usefully are read instead: empty files,
    /// pipes, FIFOs and `/proc`-like files that report a size of 0.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is a directory. The
    /// error names the path.
    ///
    /// # Safety
    ///
    /// The caller must ensure that no process truncates the file while the
    /// returned `Transcript` is alive, or accept the consequence: reading a
    /// page that a truncation removed raises `SIGBUS`, which terminates the
    /// process unless it installs a handler for it. (Bytes *appended* while
    /// the map is alive are harmless: they are simply not seen.) This
    /// reasoning rests on the operating system's mmap semantics and should
    /// be treated as suspect on exotic file systems.
    pub unsafe fn open_mmap<P: AsRef<Path>>(
        path: P,
    ) -> Result<Transcript, Error> {
        // SAFETY: the caller's contract is ours.
        unsafe { Transcript::open_mmap_checked(path.as_ref(), false) }
    }

    /// [`Transcript::open_mmap`], refusing special files when `regular`.
    ///
    /// # Safety
    ///
    /// As [`Transcript::open_mmap`].
    unsafe fn open_mmap_checked(
        path: &Path,
        regular: bool,
    ) -> Result<Transcript, Error> {
        let (mut file, meta) =
            if regular { open_regular(path)? } else { open_file(path)? };
        if !meta.is_file() || meta.len() == 0 {
            return Transcript::read_from(path, file);
        }
        // SAFETY: the caller has accepted the risk of truncation, per this
        // function's contract. The map is read-only and private to us.
        let map =
            unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let t = Transcript {
            data: Data::Mapped(map),
            origin: 0,
            body_start: 0,
            head_cut: false,
            path: Some(path.to_path_buf()),
            format: Default::default(),
        };
        // The format of a big file from a small read, not from the map's
        // first pages (see `Format::of_prefix`). In a small one, the head
        // shares the tail's page tables, and a fault there costs less than
        // the read.
        if meta.len() >= FORMAT_PROBE_MIN_FILE {
            let mut head = [0; FORMAT_PROBE_BYTES];
            if let Ok(n) = read_full(&mut file, &mut head) {
                let whole = n as u64 >= meta.len();
                if let Some(format) = Format::of_prefix(&head[..n], whole) {
                    let _ = t.format.set(format);
                }
            }
        }
        Ok(t)
    }

    /// Like [`Transcript::open_mmap`], for a path a user named: anything
    /// but a regular file (a FIFO, a device, a socket) is refused with an
    /// error naming the path, and the open itself never waits (on a FIFO
    /// with no writer). So memory is bounded by the map, whatever the
    /// path names: `/dev/zero` is refused rather than read for ever.
    ///
    /// # Errors
    ///
    /// As [`Transcript::open_mmap`], and when `path` is not a regular
    /// file.
    ///
    /// # Safety
    ///
    /// As [`Transcript::open_mmap`].
    pub unsafe fn open_mmap_regular<P: AsRef<Path>>(
        path: P,
    ) -> Result<Transcript, Error> {
        let path = path.as_ref();
        open_regular(path)?;
        // SAFETY: the caller's contract is `open_mmap`'s. The path was a
        // regular file a moment ago; it is checked again on the open
        // below, whose descriptor is the one mapped.
        unsafe { Transcript::open_mmap_checked(path, true) }
    }

    /// Read the whole transcript at `path` into memory.
    ///
    /// This is safe against concurrent truncation, at the price of reading
    /// every byte. Prefer [`Transcript::read_tail`] when only the end of the
    /// session matters.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is a directory.
    pub fn read<P: AsRef<Path>>(path: P) -> Result<Transcript, Error> {
        let path = path.as_ref();
        let (file, _) = open_file(path)?;
        Transcript::read_from(path, file)
    }

    /// Read only the last `window` bytes of the transcript at `path`.
    ///
    /// Queries then see only the whole lines inside the window. A query
    /// whose answer lies further back returns `None`; callers that need an
    /// answer can retry with a bigger window. [`Transcript::entrypoint`]
    /// answers only when the window holds the start of the file.
    ///
    /// Non-seekable sources (pipes, FIFOs, size-0 files) are read to the
    /// end, keeping the last `window` bytes.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is a directory.
    pub fn read_tail<P: AsRef<Path>>(
        path: P,
        window: u64,
    ) -> Result<Transcript, Error> {
        let path = path.as_ref();
        let (file, meta) = open_file(path)?;
        Transcript::tail_of(path, file, meta, window)
    }

    /// [`Transcript::read_tail`] of a regular file only: a special file is
    /// refused, and the open never waits. The hook, `scan` and every reader
    /// of a file a transcript names (a subagent's) read this way.
    pub(crate) fn read_tail_regular(
        path: &Path,
        window: u64,
    ) -> Result<Transcript, Error> {
        let (file, meta) = open_regular(path)?;
        Transcript::tail_of(path, file, meta, window)
    }

    fn tail_of(
        path: &Path,
        mut file: File,
        meta: std::fs::Metadata,
        window: u64,
    ) -> Result<Transcript, Error> {
        let len = meta.len();
        if !meta.is_file() || len == 0 {
            let mut t = Transcript::read_from(path, file)?;
            if let Data::Owned(ref mut buf) = t.data {
                let cut = buf.len().saturating_sub(
                    usize::try_from(window).unwrap_or(usize::MAX),
                );
                buf.drain(..cut);
                t.origin = cut as u64;
            }
            t.body_start = t.first_line_start();
            return Ok(t);
        }
        let origin = len.saturating_sub(window);
        let buf = file
            .seek(SeekFrom::Start(origin))
            .and_then(|_| read_span(&mut file, len - origin))
            .map_err(|e| Error::io(path, e))?;
        let mut t = Transcript {
            data: Data::Owned(buf),
            origin,
            body_start: 0,
            head_cut: false,
            path: Some(path.to_path_buf()),
            format: Default::default(),
        };
        t.body_start = t.first_line_start();
        Ok(t)
    }

    /// Read only the first `len` bytes of the transcript at `path`.
    ///
    /// Enough for [`Transcript::entrypoint`], which looks only at the head:
    /// pass 1 MiB or less. A last line cut by the window is known to be cut.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is a directory.
    pub fn read_head<P: AsRef<Path>>(
        path: P,
        len: u64,
    ) -> Result<Transcript, Error> {
        let path = path.as_ref();
        let (file, meta) = open_file(path)?;
        Transcript::head_of(path, file, meta, len)
    }

    /// [`Transcript::read_head`] of a regular file only, as
    /// [`Transcript::read_tail_regular`].
    pub(crate) fn read_head_regular(
        path: &Path,
        len: u64,
    ) -> Result<Transcript, Error> {
        let (file, meta) = open_regular(path)?;
        Transcript::head_of(path, file, meta, len)
    }

    fn head_of(
        path: &Path,
        mut file: File,
        meta: std::fs::Metadata,
        len: u64,
    ) -> Result<Transcript, Error> {
        // One byte past the window tells whether the file goes on.
        let want = len.saturating_add(1);
        let mut buf = if meta.is_file() {
            // Just opened: the position is the start.
            read_span(&mut file, want.min(meta.len().saturating_add(1)))
                .map_err(|e| Error::io(path, e))?
        } else {
            vec![]
        };
        // A pipe, or a file that grew since it was measured: read on.
        let more = want - buf.len() as u64;
        if more > 0 && (!meta.is_file() || buf.len() as u64 > meta.len()) {
            file.take(more)
                .read_to_end(&mut buf)
                .map_err(|e| Error::io(path, e))?;
        }
        let head_cut = buf.len() as u64 > len;
        buf.truncate(usize::try_from(len).unwrap_or(usize::MAX));
        Ok(Transcript {
            data: Data::Owned(buf),
            origin: 0,
            body_start: 0,
            head_cut,
            path: Some(path.to_path_buf()),
            format: Default::default(),
        })
    }

    /// Run `query` on growing tail windows of the file at `path` until it
    /// answers.
    ///
    /// The first window is `initial` bytes; each retry doubles it, until
    /// the window holds the whole file, when `query` gets its last chance.
    /// This is safe against concurrent truncation (the file is read, not
    /// mapped) and flat in the file's size: a query whose answer lies in
    /// the last 64 KiB reads 64 KiB of a 1 GB file.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is not a regular
    /// file (a special file is refused at once, never waited on).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use stopgate::read::Transcript;
    ///
    /// # fn main() -> Result<(), stopgate::Error> {
    /// // The last text of the last 64 KiB, or of the first window that
    /// // holds one.
    /// let text = Transcript::read_tail_until("session.jsonl", 64 << 10, |t| {
    ///     t.final_assistant_text().map(|f| f.into_text())
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn read_tail_until<P, R>(
        path: P,
        initial: u64,
        mut query: impl FnMut(&Transcript) -> Option<R>,
    ) -> Result<Option<R>, Error>
    where
        P: AsRef<Path>,
    {
        Transcript::read_tail_within(
            path.as_ref(),
            initial,
            u64::MAX,
            |t, _| query(t),
        )
    }

    /// Like [`Transcript::read_tail_until`], but no window is larger than
    /// `max` bytes, whatever the bytes are; `query` is told when the window
    /// it gets is the last (it holds the file's head, or it is `max` bytes
    /// long).
    pub(crate) fn read_tail_within<R>(
        path: &Path,
        initial: u64,
        max: u64,
        mut query: impl FnMut(&Transcript, bool) -> Option<R>,
    ) -> Result<Option<R>, Error> {
        let mut window = initial.clamp(1, max.max(1));
        loop {
            let t = Transcript::read_tail_regular(path, window)?;
            let last = t.has_head() || window >= max;
            let answer = query(&t, last);
            if answer.is_some() || last {
                return Ok(answer);
            }
            window = window.saturating_mul(2).min(max);
        }
    }

    /// A transcript over bytes already in memory.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::Transcript;
    ///
    /// let t = Transcript::from_bytes(b"{\"type\":\"summary\"}\n".to_vec());
    /// assert_eq!(t.as_bytes().len(), 19);
    /// ```
    pub fn from_bytes(bytes: Vec<u8>) -> Transcript {
        Transcript {
            data: Data::Owned(bytes),
            origin: 0,
            body_start: 0,
            head_cut: false,
            path: None,
            format: Default::default(),
        }
    }

    fn read_from(path: &Path, mut file: File) -> Result<Transcript, Error> {
        let mut buf = Vec::new();
        file.read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
        Ok(Transcript {
            data: Data::Owned(buf),
            origin: 0,
            body_start: 0,
            head_cut: false,
            path: Some(path.to_path_buf()),
            format: Default::default(),
        })
    }

    /// In a window that starts mid-file, the first whole line begins after
    /// the first `\n`, unless the byte before the window was itself a
    /// `\n`, which we cannot know: so the partial first piece is dropped.
    fn first_line_start(&self) -> usize {
        if self.origin == 0 {
            return 0;
        }
        let data = self.data();
        memchr::memchr(b'\n', data).map_or(data.len(), |i| i + 1)
    }

    fn data(&self) -> &[u8] {
        match self.data {
            Data::Mapped(ref m) => m,
            Data::Owned(ref v) => v,
        }
    }

    /// The agent whose transcript format the bytes have ([`Format::of`]),
    /// judged from their first lines once, then remembered.
    ///
    /// [`Format::of`]: super::Format::of
    pub fn format(&self) -> Format {
        *self.format.get_or_init(|| Format::of(self.as_bytes()))
    }

    /// The bytes that queries look at: every whole line the source holds.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data()[self.body_start..]
    }

    /// The file offset of the first byte of [`Transcript::as_bytes`].
    pub fn base_offset(&self) -> u64 {
        self.origin + self.body_start as u64
    }

    /// Whether the file goes on past the bytes held: true only for a
    /// [`Transcript::read_head`] window shorter than the file.
    pub fn is_head_cut(&self) -> bool {
        self.head_cut
    }

    /// Whether the bytes start at the start of the file.
    ///
    /// False only for a [`Transcript::read_tail`] window that did not reach
    /// back to the file's first byte.
    pub fn has_head(&self) -> bool {
        self.origin == 0
    }

    /// The path this transcript was opened from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The 1-based number of the line that starts at file offset `offset`.
    ///
    /// This counts line terminators from the start of the file, so it
    /// costs time linear in `offset`: use it for reports, not on a hot
    /// path. It returns `None` for a window without the file's head, or an
    /// offset outside the transcript.
    pub fn line_number(&self, offset: u64) -> Option<u64> {
        if !self.has_head() {
            return None;
        }
        let end = usize::try_from(offset).ok()?;
        let before = self.data().get(..end)?;
        Some(memchr::memchr_iter(b'\n', before).count() as u64 + 1)
    }
}

/// How many bytes of a mapped file are read to tell its format: the first
/// line of a real session is a few hundred bytes.
const FORMAT_PROBE_BYTES: usize = 4 << 10;

/// The smallest mapped file whose format is probed by a read: from 2 MiB,
/// its head and its tail need page tables of their own.
const FORMAT_PROBE_MIN_FILE: u64 = 2 << 20;

/// Fill `buf` from `file`'s position, or as much as it holds; how many
/// bytes were read.
fn read_full(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Up to `len` bytes of `file` from its position, fewer if it ends first,
/// leaving the position after them.
///
/// The buffer is sized once, so the bytes are read in one call (a few for
/// a slow file) and never copied to a bigger buffer as `read_to_end` does
/// from a small start: for a 64 KiB window, twelve reads and as many
/// copies became one.
fn read_span(file: &mut File, len: u64) -> std::io::Result<Vec<u8>> {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let mut buf = vec![0; len];
    let filled = read_full(file, &mut buf)?;
    buf.truncate(filled);
    Ok(buf)
}

/// Open `path` to read, and refuse it unless it is a regular file: the
/// open never waits (`O_NONBLOCK`, so a FIFO with no writer cannot hold
/// it), and the check is on the opened descriptor (`fstat`), so a file
/// swapped for a FIFO after it was listed is caught.
pub(crate) fn open_regular(
    path: &Path,
) -> Result<(File, std::fs::Metadata), Error> {
    let file = open_nonblocking(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(Error::not_a_file(path, "a directory"));
    }
    if !ft.is_file() {
        return Err(Error::special(path, special_kind(&ft)));
    }
    Ok((file, meta))
}

/// What a special file is, in words.
fn special_kind(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    let _ = ft;
    "a special file"
}

/// Open `path` to read without waiting on the open. `O_NONBLOCK` needs
/// `libc`, which comes with the `config` feature; without it, the path is
/// checked first, which leaves a race the check after the open cannot
/// close (the open may wait).
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    #[cfg(all(unix, feature = "config"))]
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
    }
    #[cfg(not(all(unix, feature = "config")))]
    {
        if !std::fs::metadata(path)?.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        File::open(path)
    }
}

fn open_file(path: &Path) -> Result<(File, std::fs::Metadata), Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::not_a_file(path, "a directory"));
    }
    Ok((file, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapped file big enough for the format probe gets the format the
    /// whole bytes have: decided by the probe's read, or, when its first
    /// line runs past the probe, from the map.
    #[test]
    fn a_big_mapped_file_keeps_its_format() {
        let filler = format!("{}\n", r#"{"type":"progress","data":{}}"#);
        let cases: [(&str, Format); 4] = [
            (r#"{"type":"session_meta","payload":{}}"#, Format::Codex),
            (
                r#"{"sessionId":"s","projectHash":"h","kind":"main"}"#,
                Format::Gemini,
            ),
            (r#"{"type":"user","message":{"content":"hi"}}"#, Format::Claude),
            // A first line past the probe, then Codex's.
            ("", Format::Codex),
        ];
        for (first, want) in cases {
            let mut bytes = String::new();
            if first.is_empty() {
                let long = "x".repeat(FORMAT_PROBE_BYTES * 2);
                bytes.push_str(&format!(
                    "{{\"type\":\"session_meta\",\"payload\":{{\"t\":\"{long}\"}}}}\n"
                ));
            } else {
                bytes.push_str(first);
                bytes.push('\n');
            }
            while (bytes.len() as u64) < FORMAT_PROBE_MIN_FILE + 1024 {
                bytes.push_str(&filler);
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(Format::of(bytes.as_bytes()), want);
            // SAFETY: the file is ours and nothing truncates it.
            let t = unsafe { Transcript::open_mmap(&path) }.unwrap();
            assert_eq!(t.format(), want, "{first}");
        }
    }
}
