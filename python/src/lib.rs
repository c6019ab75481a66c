//! `stopgate._stopgate`: the archive scanner for Python, its rows as Arrow.
//!
//! This is the thin native half of the `stopgate` Python package; the
//! package's Python half (`stopgate/__init__.py`) wraps it in pyarrow
//! types, and the Spark and Ray adapters sit on that. The scan is the
//! binary's own (`stopgate::archive`), judged by the same `Judge`, so a
//! row here is a row of `stopgate scan --all-turns`.
//!
//! The rows leave through the Arrow C stream interface: each result is an
//! object with `__arrow_c_stream__`, which pyarrow (and polars, duckdb)
//! import without a copy and without tying this build to their versions.
//! The GIL is released while files are scanned.

#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use stopgate::archive::arrow::{
    file_schema, turn_schema, FileBatches, TurnBatches, BATCH_ROWS,
};
use stopgate::archive::{self, Candidate, FileReport, ScanOptions};
use stopgate::config::Config;
use stopgate::judge::Judge;
use stopgate::ErrorKind;

/// One table of a scan's rows, ready to be taken once through
/// `__arrow_c_stream__`.
#[pyclass(module = "stopgate._stopgate", frozen)]
struct Rows {
    schema: SchemaRef,
    batches: Mutex<Option<Vec<RecordBatch>>>,
}

#[pymethods]
impl Rows {
    /// The rows as an Arrow C stream, in a capsule named
    /// `arrow_array_stream`. A requested schema is not honoured: the
    /// columns are always the documented ones.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = self
            .batches
            .lock()
            .map_err(|_| {
                PyRuntimeError::new_err("the rows' lock is poisoned")
            })?
            .take()
            .ok_or_else(|| {
                PyRuntimeError::new_err("these rows were read already")
            })?;
        let reader = RecordBatchIterator::new(
            batches.into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule holds the stream itself: its consumer moves it out
        // (leaving `release` null), else dropping the capsule releases it.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

impl Rows {
    fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Rows {
        Rows { schema, batches: Mutex::new(Some(batches)) }
    }
}

/// Both tables of a scan, as batches.
#[derive(Default)]
struct Tables {
    turns: Vec<RecordBatch>,
    files: Vec<RecordBatch>,
}

/// Gathers reports into both tables, cutting batches as rows gather.
struct Gather {
    turns: TurnBatches,
    files: FileBatches,
    out: Tables,
}

impl Gather {
    fn new(all_turns: bool) -> Gather {
        Gather {
            turns: TurnBatches::new(all_turns),
            files: FileBatches::new(),
            out: Tables::default(),
        }
    }

    fn add(&mut self, report: &FileReport) {
        self.turns.push(report);
        self.files.push(report);
        if self.turns.len() >= BATCH_ROWS {
            self.out.turns.push(self.turns.finish());
        }
        if self.files.len() >= BATCH_ROWS {
            self.out.files.push(self.files.finish());
        }
    }

    /// Scan `files` on `threads` threads, in their order.
    fn scan<I>(
        &mut self,
        files: I,
        judge: &Judge,
        threads: usize,
    ) -> PyResult<()>
    where
        I: IntoIterator<Item = Candidate>,
        I::IntoIter: Send,
    {
        let options = ScanOptions::default();
        let each = &mut |report: &mut FileReport| self.add(report);
        archive::scan_files_each(
            files,
            judge,
            &options,
            threads,
            &|_| {},
            each,
        )
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// A row of the files table for an entry the walk could not read
    /// (a folder without permission, a FIFO named as a path): its `file`
    /// is empty and its `error` the message, which names the entry.
    fn add_walk_error(&mut self, message: &str) {
        let mut report = FileReport::default();
        report.error = Some(message.to_string());
        self.files.push(&report);
    }

    fn finish(mut self) -> Tables {
        if !self.turns.is_empty() {
            self.out.turns.push(self.turns.finish());
        }
        if !self.files.is_empty() {
            self.out.files.push(self.files.finish());
        }
        self.out
    }
}

/// The judge of a scan: from `config` (a stopgate.toml), else the
/// defaults.
fn judge(config: Option<&Path>) -> PyResult<Judge> {
    let config = match config {
        Some(path) if !path.exists() => {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: no such config file",
                path.display()
            )))
        }
        // The error names the file, its line and its column.
        Some(path) => Config::from_file(path)
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
        None => Config::default(),
    };
    Judge::for_bulk(&config).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn into_py(tables: Tables, py: Python<'_>) -> PyResult<(Py<Rows>, Py<Rows>)> {
    let turns = Py::new(py, Rows::new(turn_schema(), tables.turns))?;
    let files = Py::new(py, Rows::new(file_schema(), tables.files))?;
    Ok((turns, files))
}

/// Scan the `*.jsonl` files under `paths` (files or folders, subagent
/// files folded into the turns that launched them, as `stopgate scan`
/// does) on `threads` threads. With `listed`, `paths` are files as
/// [`list_files`] gave them, scanned as they are without a walk: one that
/// has gone since is a row of the files table with its error, not an
/// exception, so that one vanished file does not fail a distributed job.
/// Returns the turns and the files, each an object with
/// `__arrow_c_stream__`; both are built whole before they are returned.
#[pyfunction]
#[pyo3(signature = (paths, *, config = None, threads = None, all_turns = true, listed = false))]
fn scan_paths(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    config: Option<PathBuf>,
    threads: Option<usize>,
    all_turns: bool,
    listed: bool,
) -> PyResult<(Py<Rows>, Py<Rows>)> {
    let judge = judge(config.as_deref())?;
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    });
    let tables = py.detach(|| -> PyResult<Tables> {
        let mut gather = Gather::new(all_turns);
        if listed {
            let files = paths.into_iter().map(|p| {
                let len = std::fs::metadata(&p).map_or(0, |m| m.len());
                Candidate::new(p, len)
            });
            gather.scan(files, &judge, threads)?;
        } else {
            let mut walk =
                archive::Walk::new(&paths, None).map_err(missing)?;
            gather.scan(walk.by_ref(), &judge, threads)?;
            for e in walk.errors() {
                gather.add_walk_error(e);
            }
        }
        Ok(gather.finish())
    })?;
    into_py(tables, py)
}

/// Scan one transcript held in memory; `name` names it in the rows and
/// decides its session. Returns the turns and the file's row, as
/// [`scan_paths`] does.
#[pyfunction]
#[pyo3(signature = (name, data, *, config = None, all_turns = true))]
fn scan_bytes(
    py: Python<'_>,
    name: PathBuf,
    data: &[u8],
    config: Option<PathBuf>,
    all_turns: bool,
) -> PyResult<(Py<Rows>, Py<Rows>)> {
    let judge = judge(config.as_deref())?;
    let tables = py.detach(|| {
        let options = ScanOptions::default();
        let report = archive::scan_bytes(&name, data, &judge, &options);
        let mut gather = Gather::new(all_turns);
        gather.add(&report);
        gather.finish()
    });
    into_py(tables, py)
}

/// The `*.jsonl` files under `paths`, as the scan walks them: in path
/// order, directory symlinks not followed, each with its size in bytes;
/// and the entries the walk could not read, with why. The engines'
/// adapters group the files into partitions by size.
#[pyfunction]
fn list_files(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Listed> {
    py.detach(|| {
        let mut walk = archive::Walk::new(&paths, None).map_err(missing)?;
        let files = walk.by_ref().map(|c| (c.path, c.len)).collect();
        Ok((files, walk.errors().to_vec()))
    })
}

/// What [`list_files`] gives: the files with their sizes, and the errors.
type Listed = (Vec<(PathBuf, u64)>, Vec<String>);

/// A path that does not exist is Python's `FileNotFoundError`.
fn missing(e: stopgate::Error) -> PyErr {
    match e.kind() {
        ErrorKind::MissingPath => PyFileNotFoundError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// The native half of the `stopgate` package.
#[pymodule]
fn _stopgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rows>()?;
    m.add_function(wrap_pyfunction!(scan_paths, m)?)?;
    m.add_function(wrap_pyfunction!(scan_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(list_files, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
