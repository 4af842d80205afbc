// Package parquet writes a run's case records as a Parquet file (one row per
// case, attribute verdicts as a nested list) for analysts: DuckDB, pandas,
// Spark and friends read it directly. Rows are written as they stream in
// and row groups are flushed by size, so memory stays bounded whatever the
// run's length.
package parquet

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
	"github.com/wasmeval/wasmeval/engine/result"
)

// FileName is the Parquet file's name inside a run directory.
const FileName = "results.parquet"

// Limits of one buffered row group. Rows are held in memory (column
// buffers) until their group is flushed; flushing by bytes as well as rows
// bounds memory when cases carry large outputs.
const (
	maxGroupRows  = 4096
	maxGroupBytes = 8 << 20
)

// Writer streams rows into a Parquet file.
type Writer struct {
	f          *os.File
	buf        *bufio.Writer
	w          *pq.GenericWriter[Row]
	path, tmp  string
	runID, sub string
	// problem, when set, replaces the problem column (SetRun).
	problem string
	// maxRows and maxBytes bound a row group (Layout).
	maxRows    int
	maxBytes   int
	spool      *spoolPool
	rows       int64
	groupRows  int
	groupBytes int
	batch      []Row
}

// Layout sizes a file's row groups and pages. The zero Layout is a run's:
// row groups of at most maxGroupRows rows and maxGroupBytes bytes, pages
// of parquet-go's default size, held in memory until their group is
// flushed.
type Layout struct {
	// GroupRows and GroupBytes bound a row group's rows and its rows'
	// estimated bytes (maxGroupRows, maxGroupBytes when 0).
	GroupRows, GroupBytes int
	// PageBytes is the size at which a column's page is cut (parquet-go's
	// 256 KiB when 0). Every column keeps a buffer of this size, and a
	// dictionary column's holds its indexes until then.
	PageBytes int
	// Spool keeps the compressed pages of the row group being written in
	// unlinked temporary files beside the output instead of memory.
	Spool bool
}

// TableLayout is for a table of millions of rows, a batch's: the writer
// keeps every row group's metadata and page index until Close (Parquet
// puts them in the footer), so fewer, larger row groups keep memory flat
// as rows grow; their pages wait on disk, and pages of 64 KiB keep the
// columns' buffers small. BenchmarkResultsParquet in engine/batch
// measures it.
var TableLayout = Layout{GroupRows: 1 << 20, GroupBytes: 64 << 20, PageBytes: 64 << 10, Spool: true}

// Create starts a Parquet file at path. It is written to a temporary file
// and renamed into place by Close, so readers never see half a file; the
// file has the run directory's mode (runfile.CreateTemp). runID and
// submission fill the columns of the same name.
func Create(path, runID, submission string) (*Writer, error) {
	return CreateLayout(path, runID, submission, Layout{})
}

// CreateLayout is Create with row groups and pages sized by l.
func CreateLayout(path, runID, submission string, l Layout) (*Writer, error) {
	f, err := runfile.CreateTemp(filepath.Dir(path), ".results-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("create parquet file: %w", err)
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	var opts []pq.WriterOption
	if l.PageBytes > 0 {
		opts = append(opts, pq.PageBufferSize(l.PageBytes))
	}
	var spool *spoolPool
	if l.Spool {
		spool = &spoolPool{dir: filepath.Dir(path)}
		opts = append(opts, pq.ColumnPageBuffers(spool))
	}
	w := pq.NewGenericWriter[Row](buf, append(opts,
		pq.Compression(&zstdCodec{}),
		pq.CreatedBy("wasmeval", "", ""),
		pq.KeyValueMetadata("wasmeval.run_id", runID),
		pq.KeyValueMetadata("wasmeval.manifest", "manifest.json"),
		// Min/max bounds of free-text columns say nothing a query can use,
		// and for a large value they are the value again: a 50 MB expected
		// output was stored twice more in the footer, and four more times in
		// page statistics (which this version of parquet-go writes unless
		// told not to).
		pq.DataPageStatistics(false),
		pq.SkipPageBounds("case"),
		pq.SkipPageBounds("instruction"),
		pq.SkipPageBounds("error"),
		pq.SkipPageBounds("plugin_error"),
		pq.SkipPageBounds("mock_calls"),
		pq.SkipPageBounds("mock_error"),
		pq.SkipPageBounds("attributes", "list", "element", "actual"),
		pq.SkipPageBounds("attributes", "list", "element", "expected"),
		pq.SkipPageBounds("attributes", "list", "element", "diff"),
	)...)
	wr := &Writer{f: f, buf: buf, w: w, spool: spool, path: path, tmp: f.Name(), runID: runID, sub: submission,
		maxRows: maxGroupRows, maxBytes: maxGroupBytes}
	if l.GroupRows > 0 {
		wr.maxRows = l.GroupRows
	}
	if l.GroupBytes > 0 {
		wr.maxBytes = l.GroupBytes
	}
	return wr, nil
}

// SetRun makes the rows added from now on carry this run id, submission
// and, when problem is not empty, problem (else the record's own): one file
// can then hold the cases of many runs, as a batch's table does, through
// the same schema and streaming as a run's.
func (w *Writer) SetRun(runID, submission, problem string) {
	w.runID, w.sub, w.problem = runID, submission, problem
}

// Add appends one case.
func (w *Writer) Add(r *result.CaseRecord) error {
	row, err := FromRecord(w.runID, w.sub, r)
	if err != nil {
		return fmt.Errorf("parquet row of %s: %w", r.Key(), err)
	}
	if w.problem != "" {
		row.Problem = w.problem
	}
	w.batch = append(w.batch, row)
	w.groupBytes += rowBytes(&row)
	if len(w.batch) >= 256 || w.groupBytes >= w.maxBytes {
		if err := w.writeBatch(); err != nil {
			return err
		}
	}
	if w.groupRows >= w.maxRows || w.groupBytes >= w.maxBytes {
		return w.flushGroup()
	}
	return nil
}

func (w *Writer) writeBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	if _, err := w.w.Write(w.batch); err != nil {
		return fmt.Errorf("write parquet rows: %w", err)
	}
	w.rows += int64(len(w.batch))
	w.groupRows += len(w.batch)
	clear(w.batch) // drop references to the strings just encoded
	w.batch = w.batch[:0]
	return nil
}

func (w *Writer) flushGroup() error {
	if err := w.writeBatch(); err != nil {
		return err
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("flush parquet row group: %w", err)
	}
	w.groupRows, w.groupBytes = 0, 0
	return nil
}

// Rows is how many rows were written so far.
func (w *Writer) Rows() int64 { return w.rows + int64(len(w.batch)) }

// Close finishes the file (footer, sync) and moves it into place.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.writeBatch()
	if err == nil {
		err = w.w.Close()
	}
	if err == nil {
		err = w.buf.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if w.spool != nil {
		w.spool.close()
	}
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("write parquet file %s: %w", w.path, err)
	}
	return nil
}

// Abort discards the file.
func (w *Writer) Abort() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
		os.Remove(w.tmp)
	}
	if w.spool != nil {
		w.spool.close()
	}
}

// rowBytes estimates what a row holds in the writer's buffers.
func rowBytes(r *Row) int {
	n := 128 + len(r.ID) + len(r.Group) + len(r.Checkpoint)
	for _, s := range []*string{r.Case, r.Error, r.PluginError, r.Instruction, r.MockCalls, r.MockError} {
		if s != nil {
			n += len(*s)
		}
	}
	for _, t := range r.Tags {
		n += 8 + len(t)
	}
	for _, t := range r.Apps {
		n += 8 + len(t)
	}
	for i := range r.Attributes {
		a := &r.Attributes[i]
		n += 32 + len(a.Attribute) + len(a.Actual) + len(a.Expected) + len(a.Diff)
	}
	return n
}

// FromJournal writes the Parquet file for the journal at journalPath,
// streaming it record by record, one row per attempt of each case's
// epochs (the attempt and epoch columns tell them apart; a duplicate
// record of an attempt is left out, see report.ReadEveryAttempt). It
// returns the number of rows.
func FromJournal(journalPath, path, runID, submission string) (int64, error) {
	w, err := Create(path, runID, submission)
	if err != nil {
		return 0, err
	}
	if _, err := report.ReadEveryAttempt(journalPath, w.Add); err != nil {
		w.Abort()
		return 0, err
	}
	n := w.Rows()
	return n, w.Close()
}
