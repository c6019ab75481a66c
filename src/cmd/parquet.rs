//! `stopgate scan --format parquet`: the scan's rows as a Parquet file.
//!
//! The rows are `stopgate::archive::arrow`'s, written with zstd as each
//! few thousand gather, in row groups of a bounded size, so a scan's
//! memory stays that of a row group whatever the archive's size. Each file is written beside its destination under
//! a temporary name and renamed into place at the end: a scan that stops
//! half-way leaves no Parquet file without its footer behind.

use std::fs::{File, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use stopgate::archive::arrow::{
    file_schema, turn_schema, FileBatches, TurnBatches, BATCH_ROWS,
};
use stopgate::archive::FileReport;

/// Rows per row group: the writer holds a row group's pages until it is
/// full, so this, not the archive, bounds what a scan holds.
const ROW_GROUP_ROWS: usize = 8 * BATCH_ROWS;

/// The turns table, and the files table when one is asked for.
pub struct ParquetSink {
    turns: Table<TurnBatches>,
    files: Option<Table<FileBatches>>,
    error: Option<io::Error>,
}

impl ParquetSink {
    /// A sink writing the turns (every turn when `all_turns`, else those
    /// with findings) to `output`, and each file's status to `files`.
    pub fn create(
        output: &Path,
        files: Option<&Path>,
        all_turns: bool,
    ) -> io::Result<ParquetSink> {
        let turns = Table::create(output, TurnBatches::new(all_turns))?;
        let files = files
            .map(|path| Table::create(path, FileBatches::new()))
            .transpose()?;
        Ok(ParquetSink { turns, files, error: None })
    }

    /// Take one file's report; a write error is kept for
    /// [`ParquetSink::finish`], and nothing more is written after it.
    pub fn add(&mut self, report: &FileReport) {
        if self.error.is_some() {
            return;
        }
        self.turns.rows.push(report);
        let mut written = self.turns.write_if_full();
        if let Some(files) = &mut self.files {
            files.rows.push(report);
            written = written.and_then(|()| files.write_if_full());
        }
        self.error = written.err();
    }

    /// Write the last rows and the footers, and move the files into place.
    pub fn finish(self) -> io::Result<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.turns.finish()?;
        self.files.map_or(Ok(()), Table::finish)
    }
}

/// Rows of one kind on their way to one Parquet file.
struct Table<R> {
    rows: R,
    writer: ArrowWriter<tempfile::NamedTempFile>,
    path: std::path::PathBuf,
}

/// What both kinds of rows give: their count and a batch.
trait Rows {
    fn schema() -> arrow_schema::SchemaRef;
    fn len(&self) -> usize;
    fn batch(&mut self) -> arrow_array::RecordBatch;
}

impl Rows for TurnBatches {
    fn schema() -> arrow_schema::SchemaRef {
        turn_schema()
    }
    fn len(&self) -> usize {
        TurnBatches::len(self)
    }
    fn batch(&mut self) -> arrow_array::RecordBatch {
        self.finish()
    }
}

impl Rows for FileBatches {
    fn schema() -> arrow_schema::SchemaRef {
        file_schema()
    }
    fn len(&self) -> usize {
        FileBatches::len(self)
    }
    fn batch(&mut self) -> arrow_array::RecordBatch {
        self.finish()
    }
}

impl<R: Rows> Table<R> {
    fn create(path: &Path, rows: R) -> io::Result<Table<R>> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".stopgate-")
            .suffix(".parquet.partial")
            // As any file the user writes: the umask decides, not 0600.
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| with_path(e, path))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(temp, R::schema(), Some(props))
            .map_err(|e| with_path(io::Error::other(e), path))?;
        Ok(Table { rows, writer, path: path.to_path_buf() })
    }

    fn write_if_full(&mut self) -> io::Result<()> {
        if self.rows.len() >= BATCH_ROWS {
            self.write()?;
        }
        Ok(())
    }

    fn write(&mut self) -> io::Result<()> {
        let batch = self.rows.batch();
        self.writer
            .write(&batch)
            .map_err(|e| with_path(io::Error::other(e), &self.path))
    }

    fn finish(mut self) -> io::Result<()> {
        if self.rows.len() > 0 {
            self.write()?;
        }
        let temp = self
            .writer
            .into_inner()
            .map_err(|e| with_path(io::Error::other(e), &self.path))?;
        temp.as_file().sync_all().map_err(|e| with_path(e, &self.path))?;
        let _: File = temp
            .persist(&self.path)
            .map_err(|e| with_path(e.error, &self.path))?;
        Ok(())
    }
}

/// An error that names the file it is about.
fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
