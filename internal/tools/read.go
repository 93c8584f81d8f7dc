package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
)

//go:embed read.md
var readDescription string

const readSchema = `{"type":"object","required":["path"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},` +
	`"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},` +
	`"limit":{"type":"number","description":"Maximum number of lines to read"}}}`

// readBinarySniff is how much of the start of a file is checked for NUL bytes. A text file has none;
// nearly every binary format has some early on (git and ripgrep use the same test).
const readBinarySniff = 8 * 1024

// ReadOptions configure the read tool.
type ReadOptions struct {
	// DisableImageResize sends images as they are, however large (settings images.autoResize: false).
	DisableImageResize bool
	// ImagesUnsupportedBy returns the current model's id when it takes no image input ("" when it
	// does); an image result then says so in its details (pi 1.6's imageUnsupportedByModel). Nil means
	// every model takes images.
	ImagesUnsupportedBy func() string
}

// ReadArgs are the read tool's arguments.
type ReadArgs struct {
	Path   string   `json:"path"`
	Offset *float64 `json:"offset,omitempty"`
	Limit  *float64 `json:"limit,omitempty"`
}

// ReadDetails is the read tool's details object: present only when the output was truncated.
type ReadDetails struct {
	Truncation *output.Truncation `json:"truncation,omitempty"`
	// ImageUnsupportedByModel names the current model when it takes no images: the request will
	// carry a placeholder instead of the image.
	ImageUnsupportedByModel string `json:"imageUnsupportedByModel,omitempty"`
}

type readTool struct {
	cwd       string
	opts      ReadOptions
	limits    imageLimits
	chunkSize int
}

// NewRead returns the read tool, resolving relative paths against cwd.
func NewRead(cwd string, opts ReadOptions) loop.Tool {
	return &readTool{cwd: cwd, opts: opts, limits: imageDefaultLimits(), chunkSize: readChunkSize}
}

func (t *readTool) Definition() provider.ToolDefinition {
	return withPreferStrictSampling(toolDefinition("read", readDescription, readSchema))
}

func (t *readTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	res, err := t.read(ctx, call)
	if err != nil {
		return res, err
	}
	res.StructuredContent = readOutput(res.Content)
	return res, nil
}

// readImageOutput is read's structured content for an image, in pi 1.6's key order.
type readImageOutput struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Note     string `json:"note"`
}

// readOutput is read's structured content (pi 1.6): the image and its note, or the text for text
// files and images that could not be sent.
func readOutput(content []provider.Content) any {
	var text string
	var image *provider.Content
	sawText := false
	for i := range content {
		switch c := &content[i]; {
		case c.Type == provider.ContentText && !sawText:
			text, sawText = c.Text, true
		case c.Type == provider.ContentImage && image == nil:
			image = c
		}
	}
	if image != nil {
		return readImageOutput{Type: "image", Data: image.Data, MimeType: image.MimeType, Note: text}
	}
	return text
}

func (t *readTool) read(ctx context.Context, call loop.ToolCall) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args ReadArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("read: invalid arguments: %w", err)
	}
	start, limit := 0, -1
	if args.Offset != nil {
		start = max(0, int(min(math.Trunc(*args.Offset), math.MaxInt32))-1)
	}
	if args.Limit != nil {
		n := math.Trunc(*args.Limit)
		if n < 1 {
			return loop.ToolResult{}, fmt.Errorf("Invalid limit %s: limit must be at least 1.", readJSNumber(*args.Limit))
		}
		limit = int(min(n, math.MaxInt32))
	}
	abs := ResolveReadPath(args.Path, t.cwd)

	// Stat before opening: opening a named pipe would block.
	info, err := os.Stat(abs)
	if err != nil {
		return loop.ToolResult{}, nodeError(err, "access", abs)
	}
	if info.IsDir() {
		return loop.ToolResult{}, fmt.Errorf("Cannot read %s: it is a directory, not a file. List its contents with ls or bash instead.", abs)
	}
	if !info.Mode().IsRegular() {
		return loop.ToolResult{}, fmt.Errorf("Cannot read %s: it is not a regular file (a device, socket or pipe).", abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return loop.ToolResult{}, nodeError(err, "access", abs)
	}
	defer f.Close()

	head := make([]byte, readBinarySniff)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return loop.ToolResult{}, nodeError(err, "read", abs)
	}
	head = head[:n]
	if mime := imageMIMEType(head[:min(n, imageSniffBytes)]); mime != "" {
		return t.readImage(ctx, f, head, mime)
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return loop.ToolResult{}, fmt.Errorf("Cannot read %s: it is UTF-16 text, which read does not decode. Convert it with bash instead (e.g. iconv -f UTF-16 -t UTF-8).", abs)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return loop.ToolResult{}, fmt.Errorf("Cannot read %s: it looks like a binary file (it has NUL bytes). Inspect it with bash instead (e.g. file, xxd or strings).", abs)
	}

	scan := &readScan{start: start, limit: limit, maxLines: output.DefaultMaxLines, maxBytes: output.DefaultMaxBytes}
	// The buffer fits the file (a file that grew since is read in more chunks): a batch of thousands of
	// reads of small files would otherwise hold a full chunk each.
	chunk := min(t.chunkSize, max(int(min(info.Size(), int64(t.chunkSize)))+1, readMinChunk))
	if err := scan.run(ctx, io.MultiReader(bytes.NewReader(head), f), chunk); err != nil {
		if err == errAborted {
			return loop.ToolResult{}, err
		}
		return loop.ToolResult{}, nodeError(err, "read", abs)
	}
	return readTextResult(scan, args)
}

// readTextResult words the scan as pi's read tool does.
func readTextResult(s *readScan, args ReadArgs) (loop.ToolResult, error) {
	if s.beyondEnd {
		return loop.ToolResult{}, fmt.Errorf("Offset %s is beyond end of file (%d lines total)", readJSNumber(*args.Offset), s.fileLines)
	}
	tr := &output.Truncation{
		Content:     string(s.kept),
		Truncated:   s.truncatedBy != "",
		TotalLines:  s.selLines,
		TotalBytes:  s.selBytes,
		OutputLines: s.keptLines,
		OutputBytes: len(s.kept),
		MaxLines:    s.maxLines,
		MaxBytes:    s.maxBytes,
	}
	if tr.Truncated {
		by := s.truncatedBy
		tr.TruncatedBy = &by
		tr.FirstLineExceedsLimit = s.firstLineBytes > s.maxBytes
	}
	first := s.start + 1
	text := tr.Content
	var details any
	switch {
	case tr.FirstLineExceedsLimit:
		text = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, output.FormatSize(s.firstLineBytes), output.FormatSize(s.maxBytes), first, args.Path, s.maxBytes)
		details = &ReadDetails{Truncation: tr}
	case tr.Truncated:
		last := first + tr.OutputLines - 1
		if s.truncatedBy == "lines" {
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", first, last, s.fileLines, last+1)
		} else {
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]",
				first, last, s.fileLines, output.FormatSize(s.maxBytes), last+1)
		}
		details = &ReadDetails{Truncation: tr}
	case s.limit >= 0 && s.start+s.selLines < s.fileLines:
		next := s.start + s.selLines
		text += fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", s.fileLines-next, next+1)
	}
	return loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}, Details: details}, nil
}

// readImage answers with the image (scaled down unless disabled) and pi's note.
func (t *readTool) readImage(ctx context.Context, f *os.File, head []byte, mime string) (loop.ToolResult, error) {
	rest, err := io.ReadAll(f)
	if err != nil {
		return loop.ToolResult{}, nodeError(err, "read", f.Name())
	}
	data := append(head, rest...)
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	// pi 1.6 sends a BMP as a PNG and says so.
	var converted string
	if mime == mimeBMP {
		png, ok := imageBMPToPNG(data)
		if !ok {
			text := "Read image file [" + mime + "]\n[Image omitted: could not be converted to a supported inline image format.]"
			return loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}, nil
		}
		data, mime, converted = png, mimePNG, "\n[Image converted from image/bmp to image/png.]"
	}
	var details any
	if t.opts.ImagesUnsupportedBy != nil {
		if id := t.opts.ImagesUnsupportedBy(); id != "" {
			details = &ReadDetails{ImageUnsupportedByModel: id}
		}
	}
	if t.opts.DisableImageResize {
		return loop.ToolResult{Content: []provider.Content{
			provider.TextContent("Read image file [" + mime + "]" + converted),
			provider.ImageContent(base64.StdEncoding.EncodeToString(data), mime),
		}, Details: details}, nil
	}
	fitted := imageFit(data, mime, t.limits)
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	if fitted == nil {
		text := "Read image file [" + mime + "]\n[Image omitted: could not be resized below the inline image size limit.]"
		return loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}, nil
	}
	text := "Read image file [" + fitted.mimeType + "]" + converted
	if dim := imageDimensionNote(fitted); dim != "" {
		text += "\n" + dim
	}
	return loop.ToolResult{Content: []provider.Content{
		provider.TextContent(text),
		provider.ImageContent(fitted.data, fitted.mimeType),
	}, Details: details}, nil
}

// readJSNumber prints a number as JavaScript does in a template string (for the numbers pi echoes).
func readJSNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// readChunkSize is how much of a file the text reader holds at a time.
const readChunkSize = 256 * 1024

// readMinChunk is the smallest buffer the text reader uses, for small files.
const readMinChunk = 4096

// readScan is one streaming pass over a text file: it skips to the first selected line, keeps the
// head of the selection that fits the output limits, and only counts the rest, so memory stays at a
// chunk plus the kept output whatever the file size. The results are those pi gets by splitting the
// whole file on "\n" (except that byte counts of lines it did not keep count invalid UTF-8 bytes as
// one byte where pi's decoder counts three).
type readScan struct {
	// Inputs.
	start              int // first selected line, 0-based
	limit              int // lines to select (at least 1); < 0 selects to the end of the file
	maxLines, maxBytes int

	// Results.
	fileLines      int    // lines in the whole file (a trailing newline adds an empty line)
	beyondEnd      bool   // start >= fileLines
	selLines       int    // lines in the selection
	selBytes       int    // bytes of the selection, lines joined by "\n"
	kept           []byte // the whole lines of the selection that fit the limits, joined by "\n"
	keptLines      int
	truncatedBy    string // "", "lines" or "bytes"
	firstLineBytes int    // size of the first selected line
}

const (
	readPhaseSkip  = iota // before the selection
	readPhaseKeep         // in the selection, keeping lines
	readPhaseCount        // in the selection, past the limits: counting only
	readPhaseRest         // after the selection
)

// readScanner carries the state of a readScan between chunks.
type readScanner struct {
	*readScan
	phase    int
	pos      int64 // file offset of the chunk being processed
	newlines int   // newlines seen so far
	selStart int64 // file offset where the selection begins
	selEnd   int64 // file offset where it ends (exclusive, before the newline)
	growth   int   // bytes added to kept lines by replacing invalid UTF-8
	cur      []byte
	curLen   int  // raw length of the selected line being read
	curOver  bool // it is longer than maxBytes, so it is counted, not kept
}

// run reads r to the end (checking ctx between chunks) and fills s.
func (s *readScan) run(ctx context.Context, r io.Reader, chunkSize int) error {
	sc := &readScanner{readScan: s}
	if s.start == 0 {
		sc.phase = readPhaseKeep
	}
	buf := make([]byte, chunkSize)
	for {
		if ctx.Err() != nil {
			return errAborted
		}
		n, err := io.ReadFull(r, buf)
		sc.feed(buf[:n])
		sc.pos += int64(n)
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	sc.finish()
	return nil
}

// readAdvance consumes up to k newlines of data and returns the bytes consumed (through the k-th
// newline, or all of data) and the newlines found.
func readAdvance(data []byte, k int) (consumed, found int) {
	if c := bytes.Count(data, []byte{'\n'}); c < k {
		return len(data), c
	}
	for found < k {
		consumed += bytes.IndexByte(data[consumed:], '\n') + 1
		found++
	}
	return consumed, found
}

func (sc *readScanner) feed(data []byte) {
	base := sc.pos
	off := 0
	for off < len(data) {
		rest := data[off:]
		switch sc.phase {
		case readPhaseSkip:
			consumed, found := readAdvance(rest, sc.start-sc.newlines)
			sc.newlines += found
			off += consumed
			if sc.newlines == sc.start {
				sc.phase = readPhaseKeep
				sc.selStart = base + int64(off)
			}
		case readPhaseKeep:
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				sc.addToLine(rest)
				off = len(data)
				continue
			}
			sc.addToLine(rest[:i])
			sc.newlines++
			sc.endLine(base + int64(off+i))
			off += i + 1
		case readPhaseCount:
			if sc.limit < 0 {
				c := bytes.Count(rest, []byte{'\n'})
				sc.newlines += c
				sc.selLines += c
				off = len(data)
				continue
			}
			consumed, found := readAdvance(rest, sc.limit-sc.selLines)
			sc.newlines += found
			sc.selLines += found
			off += consumed
			if sc.selLines == sc.limit {
				sc.selEnd = base + int64(off) - 1
				sc.phase = readPhaseRest
			}
		case readPhaseRest:
			sc.newlines += bytes.Count(rest, []byte{'\n'})
			off = len(data)
		}
	}
}

func (sc *readScanner) addToLine(seg []byte) {
	sc.curLen += len(seg)
	if sc.curOver {
		return
	}
	if len(sc.cur)+len(seg) > sc.maxBytes {
		sc.curOver, sc.cur = true, nil
		return
	}
	sc.cur = append(sc.cur, seg...)
}

// endLine closes the selected line that ends at file offset end.
func (sc *readScanner) endLine(end int64) {
	j := sc.selLines
	size := sc.curLen
	var text []byte
	if !sc.curOver {
		text = readValidUTF8(sc.cur)
		size = len(text)
	}
	if j == 0 {
		sc.firstLineBytes = size
	}
	sep := 0
	if j > 0 {
		sep = 1
	}
	if !sc.curOver && j < sc.maxLines && len(sc.kept)+sep+size <= sc.maxBytes {
		if j > 0 {
			sc.kept = append(sc.kept, '\n')
		}
		sc.kept = append(sc.kept, text...)
		sc.keptLines++
		sc.growth += size - sc.curLen
	} else {
		sc.truncatedBy = "bytes"
		if j >= sc.maxLines {
			sc.truncatedBy = "lines"
		}
		sc.phase = readPhaseCount
	}
	sc.selLines++
	sc.selEnd = end
	sc.cur, sc.curLen, sc.curOver = sc.cur[:0], 0, false
	if sc.limit >= 0 && sc.selLines == sc.limit {
		sc.phase = readPhaseRest
	}
}

// finish accounts for the last line, which no newline ends.
func (sc *readScanner) finish() {
	eof := sc.pos
	switch sc.phase {
	case readPhaseSkip:
		sc.beyondEnd = true
	case readPhaseKeep:
		sc.endLine(eof)
	case readPhaseCount:
		sc.selLines++
		sc.selEnd = eof
	}
	sc.fileLines = sc.newlines + 1
	if !sc.beyondEnd {
		sc.selBytes = int(sc.selEnd-sc.selStart) + sc.growth
	}
}

// readValidUTF8 returns b, with each byte that is not part of valid UTF-8 replaced by U+FFFD (pi
// decodes files as UTF-8 the same way, and JSON cannot carry invalid bytes).
func readValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}
