package shell

import (
	"bytes"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/tools/output"
)

// Capture accumulates streamed command output in bounded memory, as pi's OutputAccumulator: it
// decodes UTF-8 as it goes, keeps only a rolling tail of the text for display, counts lines and bytes
// of everything, and once the output passes the limits writes all of it (the earlier bytes too) to a
// file in the output directory (bounded: spool).
type Capture struct {
	maxLines, maxBytes int
	// rolling is how much decoded tail is kept at least; the tail is cut back to it once it doubles.
	rolling int

	dec             output.Decoder
	tail            []byte
	tailAtLineStart bool
	totalRaw        int
	totalBytes      int
	totalLines      int
	lastLineBytes   int

	// pending holds the raw output until a spill file exists (at most about maxBytes).
	pending  [][]byte
	spilling bool
	spool    *spool
	finished bool
}

// NewCapture returns an empty capture; its spill file, once needed, is <filePrefix>-<hex>.log in dir.
func NewCapture(dir *OutputDir, filePrefix string) *Capture {
	return &Capture{
		maxLines:        output.DefaultMaxLines,
		maxBytes:        output.DefaultMaxBytes,
		rolling:         2 * output.DefaultMaxBytes,
		spool:           newSpool(dir, filePrefix),
		tailAtLineStart: true,
		totalLines:      1,
	}
}

// Append adds one raw chunk; the chunk is not retained.
func (o *Capture) Append(raw []byte) {
	o.totalRaw += len(raw)
	o.appendText(o.dec.Decode(raw, false))
	if o.spilling || o.spillNeeded() {
		o.ensureFile()
		o.spool.write(raw)
	} else if len(raw) > 0 {
		o.pending = append(o.pending, bytes.Clone(raw))
	}
}

// Finish flushes the decoder; after it the output is complete.
func (o *Capture) Finish() {
	if o.finished {
		return
	}
	o.finished = true
	o.appendText(o.dec.Decode(nil, true))
	if o.spillNeeded() {
		o.ensureFile()
	}
}

func (o *Capture) appendText(text []byte) {
	if len(text) == 0 {
		return
	}
	o.totalBytes += len(text)
	o.tail = append(o.tail, text...)
	if len(o.tail) > 2*o.rolling {
		start := len(o.tail) - o.rolling
		for start < len(o.tail) && !utf8.RuneStart(o.tail[start]) {
			start++
		}
		o.tailAtLineStart = o.tail[start-1] == '\n'
		n := copy(o.tail, o.tail[start:])
		o.tail = o.tail[:n]
	}
	if nl := bytes.Count(text, []byte{'\n'}); nl == 0 {
		o.lastLineBytes += len(text)
	} else {
		o.totalLines += nl
		o.lastLineBytes = len(text) - bytes.LastIndexByte(text, '\n') - 1
	}
}

// spillNeeded says the full output must go to a file.
func (o *Capture) spillNeeded() bool {
	return o.totalRaw > o.maxBytes || o.totalBytes > o.maxBytes || o.totalLines > o.maxLines
}

// Snapshot is the tail-truncated text so far with truncation totals over everything; with persist
// and a truncated output it makes sure the spill file exists.
func (o *Capture) Snapshot(persist bool) (output.Truncation, string) {
	text := o.tail
	if !o.tailAtLineStart {
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	t := output.TruncateTail(string(text), o.maxLines, o.maxBytes)
	truncated := o.truncated()
	switch {
	case !truncated:
		t.TruncatedBy = nil
	case t.TruncatedBy == nil:
		by := "lines"
		if o.totalBytes > o.maxBytes {
			by = "bytes"
		}
		t.TruncatedBy = &by
	}
	t.Truncated = truncated
	t.TotalLines = o.totalLines
	t.TotalBytes = o.totalBytes
	if persist && truncated {
		o.ensureFile()
	}
	return t, o.spool.path
}

// truncated is pi's truncation test, on the decoded text.
func (o *Capture) truncated() bool {
	return o.totalLines > o.maxLines || o.totalBytes > o.maxBytes
}

// ensureFile starts the spill file with the output so far.
func (o *Capture) ensureFile() {
	if o.spilling {
		return
	}
	o.spilling = true
	if o.spool.open() {
		for _, chunk := range o.pending {
			o.spool.write(chunk)
		}
	}
	// Without a file the output is still shown truncated; there is just no full copy.
	o.pending = nil
}

// Close closes the spill file, if any.
func (o *Capture) Close() { o.spool.close() }

// LastLineBytes is the size of the output's last line (after its last newline).
func (o *Capture) LastLineBytes() int { return o.lastLineBytes }

// DroppedNote is the addition to "Full output: <path>" once the file had to drop the output's start
// ("" while it holds all of it).
func (o *Capture) DroppedNote() string { return o.spool.droppedNote() }
