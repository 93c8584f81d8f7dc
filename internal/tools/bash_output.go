package tools

import (
	"bytes"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/tools/output"
)

// bashOutput accumulates streamed command output in bounded memory, as pi's OutputAccumulator: it
// decodes UTF-8 as it goes, keeps only a rolling tail of the text for display, counts lines and bytes
// of everything, and once the output passes the limits writes all of it (the earlier bytes too) to a
// file in the output directory (bounded: bashSpool).
type bashOutput struct {
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
	spool    *bashSpool
	finished bool
}

func newBashOutput(dir *OutputDir, filePrefix string) *bashOutput {
	return &bashOutput{
		maxLines:        output.DefaultMaxLines,
		maxBytes:        output.DefaultMaxBytes,
		rolling:         2 * output.DefaultMaxBytes,
		spool:           newBashSpool(dir, filePrefix),
		tailAtLineStart: true,
		totalLines:      1,
	}
}

// append adds one raw chunk; the chunk is not retained.
func (o *bashOutput) append(raw []byte) {
	o.totalRaw += len(raw)
	o.appendText(o.dec.Decode(raw, false))
	if o.spilling || o.spillNeeded() {
		o.ensureFile()
		o.spool.write(raw)
	} else if len(raw) > 0 {
		o.pending = append(o.pending, bytes.Clone(raw))
	}
}

// finish flushes the decoder; after it the output is complete.
func (o *bashOutput) finish() {
	if o.finished {
		return
	}
	o.finished = true
	o.appendText(o.dec.Decode(nil, true))
	if o.spillNeeded() {
		o.ensureFile()
	}
}

func (o *bashOutput) appendText(text []byte) {
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
func (o *bashOutput) spillNeeded() bool {
	return o.totalRaw > o.maxBytes || o.totalBytes > o.maxBytes || o.totalLines > o.maxLines
}

// snapshot is the tail-truncated text so far with truncation totals over everything; with persist
// and a truncated output it makes sure the spill file exists.
func (o *bashOutput) snapshot(persist bool) (output.Truncation, string) {
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
func (o *bashOutput) truncated() bool {
	return o.totalLines > o.maxLines || o.totalBytes > o.maxBytes
}

// ensureFile starts the spill file with the output so far.
func (o *bashOutput) ensureFile() {
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

// closeFile closes the spill file, if any.
func (o *bashOutput) closeFile() { o.spool.close() }
