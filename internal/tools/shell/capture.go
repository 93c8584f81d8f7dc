package shell

import (
	"bytes"
	"fmt"
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

	// whole is the raw output while it is at most FullOutputMax bytes; past that, rawHead keeps its first
	// half and rawTail at least its last half (FullOutput).
	whole, rawHead, rawTail []byte
	overFull                bool
}

// FullOutputMax bounds FullOutput, the output given whole to programmatic callers (pi 1.6's bash
// structured content): past it the middle is left out.
const FullOutputMax = 1 << 20

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
	o.keepFull(raw)
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

// keepFull keeps what FullOutput needs of the raw output: all of it up to FullOutputMax bytes, then
// its first and (a rolling window of) its last half.
func (o *Capture) keepFull(raw []byte) {
	const half = FullOutputMax / 2
	if !o.overFull {
		if len(o.whole)+len(raw) <= FullOutputMax {
			o.whole = append(o.whole, raw...)
			return
		}
		o.overFull = true
		all := append(o.whole, raw...)
		o.rawHead = append([]byte(nil), all[:half]...)
		o.rawTail = append([]byte(nil), all[half:]...)
		o.whole = nil
	} else {
		o.rawTail = append(o.rawTail, raw...)
	}
	if len(o.rawTail) > 2*half {
		n := copy(o.rawTail, o.rawTail[len(o.rawTail)-half:])
		o.rawTail = o.rawTail[:n]
	}
}

// FullOutput is the whole output decoded, as pi 1.6 reads it back for bash's structured content: up
// to FullOutputMax bytes as it is, a longer one as its first and last FullOutputMax/2 bytes (cut at
// character boundaries) around a note of the bytes left out; truncated says so.
func (o *Capture) FullOutput() (text string, truncated bool) {
	if !o.overFull {
		return decodeWhole(o.whole, true), false
	}
	const half = FullOutputMax / 2
	tail := o.rawTail[len(o.rawTail)-half:]
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	omitted := o.totalRaw - 2*half
	return decodeWhole(o.rawHead, false) + fmt.Sprintf("\n\n[... %d bytes omitted ...]\n\n", omitted) + decodeWhole(tail, true), true
}

// decodeWhole decodes text as a fresh TextDecoder does: a leading byte order mark is dropped, bytes
// that are not UTF-8 become U+FFFD; without final, an unfinished sequence at the end is dropped.
func decodeWhole(p []byte, final bool) string {
	p = bytes.TrimPrefix(p, []byte("\xef\xbb\xbf"))
	var d output.Decoder
	return string(d.Decode(p, final))
}

// Close closes the spill file, if any.
func (o *Capture) Close() { o.spool.close() }

// LastLineBytes is the size of the output's last line (after its last newline).
func (o *Capture) LastLineBytes() int { return o.lastLineBytes }

// DroppedNote is the addition to "Full output: <path>" once the file had to drop the output's start
// ("" while it holds all of it).
func (o *Capture) DroppedNote() string { return o.spool.droppedNote() }
