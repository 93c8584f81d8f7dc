package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
)

// readCall runs tool with args (a Go value marshalled to JSON).
func readCall(t *testing.T, tool loop.Tool, args any) (loop.ToolResult, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Execute(context.Background(), loop.ToolCall{ID: "call-1", Name: tool.Definition().Name, Args: raw}, nil)
}

// readText joins the text blocks of a result, as pi's tests do.
func readText(r loop.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == provider.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func readWriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readNumberedLines(n int, format string) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(format, i+1)
	}
	return strings.Join(lines, "\n")
}

func readArgs(path string, offset, limit int) map[string]any {
	args := map[string]any{"path": path}
	if offset != 0 {
		args["offset"] = offset
	}
	if limit != 0 {
		args["limit"] = limit
	}
	return args
}

// TestReadMatchesPiTests replays pi's read tests (tools.test.ts) and the notices of pi-reference §7.3.
func TestReadMatchesPiTests(t *testing.T) {
	dir := t.TempDir()
	tool := NewRead(dir, ReadOptions{})
	hundred := readWriteFile(t, dir, "hundred.txt", readNumberedLines(100, "Line %d"))
	big := readWriteFile(t, dir, "large.txt", readNumberedLines(2500, "Line %d"))
	wide := readWriteFile(t, dir, "large-bytes.txt", readNumberedLines(500, "Line %d: "+strings.Repeat("x", 200)))
	longFirst := readWriteFile(t, dir, "long-line.txt", strings.Repeat("y", 60*1024)+"\nsecond")

	cases := []struct {
		name        string
		args        map[string]any
		want        string // the whole text, when exact
		contains    []string
		notContains []string
		details     bool
	}{
		{name: "small file verbatim", args: readArgs(readWriteFile(t, dir, "test.txt", "Hello, world!\nLine 2\nLine 3"), 0, 0),
			want: "Hello, world!\nLine 2\nLine 3"},
		{name: "line limit", args: readArgs(big, 0, 0), details: true,
			contains:    []string{"Line 1\n", "Line 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"},
			notContains: []string{"Line 2001"}},
		{name: "byte limit", args: readArgs(wide, 0, 0), details: true,
			contains: []string{"Line 1:", "\n\n[Showing lines 1-243 of 500 (50.0KB limit). Use offset=244 to continue.]"}},
		{name: "offset", args: readArgs(hundred, 51, 0),
			want: strings.SplitN(readNumberedLines(100, "Line %d"), "\n", 51)[50]},
		{name: "limit", args: readArgs(hundred, 0, 10),
			want: readNumberedLines(10, "Line %d") + "\n\n[90 more lines in file. Use offset=11 to continue.]"},
		{name: "offset and limit", args: readArgs(hundred, 41, 20),
			contains:    []string{"Line 41\n", "Line 60\n\n[40 more lines in file. Use offset=61 to continue.]"},
			notContains: []string{"Line 40\n", "Line 61"}},
		{name: "offset past the line limit", args: readArgs(big, 401, 0), details: true,
			contains: []string{"Line 401\n", "Line 2400\n\n[Showing lines 401-2400 of 2500. Use offset=2401 to continue.]"}},
		{name: "limit past the end", args: readArgs(hundred, 95, 50), want: "Line 95\nLine 96\nLine 97\nLine 98\nLine 99\nLine 100"},
		{name: "first line over 50KB", args: readArgs("long-line.txt", 0, 0), details: true,
			want: "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' long-line.txt | head -c 51200]"},
		{name: "long line after an offset", args: readArgs(longFirst, 2, 0), want: "second"},
		{name: "offset zero is the start", args: map[string]any{"path": hundred, "offset": 0, "limit": 1},
			want: "Line 1\n\n[99 more lines in file. Use offset=2 to continue.]"},
		{name: "empty file", args: readArgs(readWriteFile(t, dir, "empty.txt", ""), 0, 0), want: ""},
		{name: "trailing newline is a line", args: readArgs(readWriteFile(t, dir, "nl.txt", "a\nb\n"), 3, 0), want: ""},
		{name: "crlf kept", args: readArgs(readWriteFile(t, dir, "crlf.txt", "a\r\nb\r\n"), 0, 0), want: "a\r\nb\r\n"},
		{name: "png extension with text", args: readArgs(readWriteFile(t, dir, "not-an-image.png", "definitely not a png"), 0, 0),
			want: "definitely not a png"},
		{name: "invalid UTF-8 becomes U+FFFD", args: readArgs(readWriteFile(t, dir, "latin1.txt", "caf\xe9\n"), 0, 0), want: "caf\uFFFD\n"},
		{name: "@ prefix and relative path", args: readArgs("@hundred.txt", 100, 0), want: "Line 100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := readCall(t, tool, c.args)
			if err != nil {
				t.Fatal(err)
			}
			text := readText(res)
			if c.want != "" || len(c.contains) == 0 {
				if text != c.want {
					t.Errorf("text\n got %q\nwant %q", text, c.want)
				}
			}
			for _, s := range c.contains {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q; tail: %q", s, text[max(0, len(text)-200):])
				}
			}
			for _, s := range c.notContains {
				if strings.Contains(text, s) {
					t.Errorf("text contains %q", s)
				}
			}
			if (res.Details != nil) != c.details {
				t.Errorf("details = %#v, want present=%v", res.Details, c.details)
			}
		})
	}
}

func TestReadTruncationDetails(t *testing.T) {
	dir := t.TempDir()
	p := readWriteFile(t, dir, "large.txt", readNumberedLines(2500, "Line %d"))
	res, err := readCall(t, NewRead(dir, ReadOptions{}), readArgs(p, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	data, err := provider.MarshalJS(res.Details)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Truncation map[string]any `json:"truncation"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	tr := got.Truncation
	if tr["truncated"] != true || tr["truncatedBy"] != "lines" || tr["totalLines"] != 2500.0 || tr["outputLines"] != 2000.0 ||
		tr["maxLines"] != 2000.0 || tr["maxBytes"] != 51200.0 || tr["firstLineExceedsLimit"] != false || tr["lastLinePartial"] != false {
		t.Errorf("details.truncation = %v", tr)
	}
	if content, _ := tr["content"].(string); !strings.HasSuffix(content, "Line 2000") {
		t.Errorf("details.truncation.content ends %q", content[max(0, len(content)-20):])
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	tool := NewRead(dir, ReadOptions{})
	short := readWriteFile(t, dir, "short.txt", "Line 1\nLine 2\nLine 3")
	binary := readWriteFile(t, dir, "prog.bin", "\x7fELF\x02\x01\x01\x00\x00\x00")
	utf16 := readWriteFile(t, dir, "utf16.txt", "\xff\xfeh\x00i\x00")
	unreadable := readWriteFile(t, dir, "secret.txt", "x")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing file", readArgs("nonexistent.txt", 0, 0),
			"ENOENT: no such file or directory, access '" + filepath.Join(dir, "nonexistent.txt") + "'"},
		{"offset beyond end", readArgs(short, 100, 0), "Offset 100 is beyond end of file (3 lines total)"},
		{"offset just past the end", readArgs(short, 4, 0), "Offset 4 is beyond end of file (3 lines total)"},
		{"huge fractional offset", map[string]any{"path": short, "offset": 1e15 + 0.5}, "Offset 1000000000000000.5 is beyond end of file (3 lines total)"},
		{"directory", readArgs(dir, 0, 0),
			"Cannot read " + dir + ": it is a directory, not a file. List its contents with ls or bash instead."},
		{"binary", readArgs(binary, 0, 0),
			"Cannot read " + binary + ": it looks like a binary file (it has NUL bytes). Inspect it with bash instead (e.g. file, xxd or strings)."},
		{"UTF-16", readArgs(utf16, 0, 0),
			"Cannot read " + utf16 + ": it is UTF-16 text, which read does not decode. Convert it with bash instead (e.g. iconv -f UTF-16 -t UTF-8)."},
		{"zero limit", map[string]any{"path": short, "limit": 0}, "Invalid limit 0: limit must be at least 1."},
		{"negative limit", map[string]any{"path": short, "limit": -5}, "Invalid limit -5: limit must be at least 1."},
	}
	if os.Geteuid() != 0 { // root reads anything
		cases = append(cases, struct {
			name string
			args map[string]any
			want string
		}{"unreadable", readArgs(unreadable, 0, 0), "EACCES: permission denied, access '" + unreadable + "'"})
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		cases = append(cases, struct {
			name string
			args map[string]any
			want string
		}{"device", readArgs("/dev/null", 0, 0), "Cannot read /dev/null: it is not a regular file (a device, socket or pipe)."})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readCall(t, tool, c.args)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v\nwant %s", err, c.want)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Execute(ctx, loop.ToolCall{Name: "read", Args: json.RawMessage(`{"path":"short.txt"}`)}, nil)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("aborted read: %v", err)
	}
}

// readCancellingReader cancels its context once it has served a first chunk.
type readCancellingReader struct {
	cancel context.CancelFunc
	served int
}

func (r *readCancellingReader) Read(p []byte) (int, error) {
	if r.served > 0 {
		r.cancel()
	}
	r.served++
	for i := range p {
		p[i] = 'x'
		if i%50 == 49 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

func TestReadAbortsDuringALongRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An endless file: only the abort can end this read.
	scan := &readScan{start: 1 << 40, limit: -1, maxLines: output.DefaultMaxLines, maxBytes: output.DefaultMaxBytes}
	err := scan.run(ctx, &readCancellingReader{cancel: cancel}, 4096)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("got %v", err)
	}
}

func TestReadDefinition(t *testing.T) {
	def := NewRead("/", ReadOptions{}).Definition()
	want := fmt.Sprintf("Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to %d lines or %dKB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.", output.DefaultMaxLines, output.DefaultMaxBytes/1024)
	if def.Name != "read" || def.Description != want {
		t.Errorf("definition %q: %q", def.Name, def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if req, _ := schema["required"].([]any); len(req) != 1 || req[0] != "path" {
		t.Errorf("required = %v", schema["required"])
	}
}

// readPi is pi's read.js text path on a whole string: the reference the streaming reader must match.
func readPi(content string, offset, limit, maxLines, maxBytes int, path string) (string, *output.Truncation, string) {
	all := strings.Split(content, "\n")
	start := max(0, offset-1)
	if start >= len(all) {
		return "", nil, fmt.Sprintf("Offset %d is beyond end of file (%d lines total)", offset, len(all))
	}
	var selected string
	userLimited := -1
	if limit > 0 {
		end := min(start+limit, len(all))
		selected = strings.Join(all[start:end], "\n")
		userLimited = end - start
	} else {
		selected = strings.Join(all[start:], "\n")
	}
	tr := output.TruncateHead(selected, maxLines, maxBytes)
	first := start + 1
	switch {
	case tr.FirstLineExceedsLimit:
		return fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, output.FormatSize(len(all[start])), output.FormatSize(maxBytes), first, path, maxBytes), &tr, ""
	case tr.Truncated:
		last := first + tr.OutputLines - 1
		if *tr.TruncatedBy == "lines" {
			return tr.Content + fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", first, last, len(all), last+1), &tr, ""
		}
		return tr.Content + fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]", first, last, len(all), output.FormatSize(maxBytes), last+1), &tr, ""
	case userLimited >= 0 && start+userLimited < len(all):
		return tr.Content + fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", len(all)-(start+userLimited), start+userLimited+1), nil, ""
	}
	return tr.Content, nil, ""
}

// TestReadStreamingMatchesPi compares the streaming reader with pi's whole-file algorithm on random
// files, offsets, limits and tiny chunk sizes (so lines and limits straddle chunk boundaries).
func TestReadStreamingMatchesPi(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "bc", "é", "日本", "😀", " ", "\t", "xxxxxxxxxx"}
	for i := range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			if rng.IntN(4) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		content := b.String()
		offset, limit := rng.IntN(12), 0
		if rng.IntN(2) == 0 {
			limit = 1 + rng.IntN(8)
		}
		maxLines, maxBytes := 1+rng.IntN(6), 1+rng.IntN(30)
		chunk := 1 + rng.IntN(9)

		wantText, wantTr, wantErr := readPi(content, offset, limit, maxLines, maxBytes, "f.txt")
		scan := &readScan{start: max(0, offset-1), limit: -1, maxLines: maxLines, maxBytes: maxBytes}
		if limit > 0 {
			scan.limit = limit
		}
		if err := scan.run(context.Background(), strings.NewReader(content), chunk); err != nil {
			t.Fatal(err)
		}
		args := ReadArgs{Path: "f.txt"}
		if offset != 0 {
			o := float64(offset)
			args.Offset = &o
		}
		res, err := readTextResult(scan, args)
		if wantErr != "" || err != nil {
			if err == nil || err.Error() != wantErr {
				t.Fatalf("case %d %q offset=%d: error %v, want %q", i, content, offset, err, wantErr)
			}
			continue
		}
		if got := readText(res); got != wantText {
			t.Fatalf("case %d %q offset=%d limit=%d max=%d/%d chunk=%d\n got %q\nwant %q", i, content, offset, limit, maxLines, maxBytes, chunk, got, wantText)
		}
		var gotTr *output.Truncation
		if d, ok := res.Details.(*ReadDetails); ok {
			gotTr = d.Truncation
		}
		gj, _ := json.Marshal(gotTr)
		wj, _ := json.Marshal(wantTr)
		if string(gj) != string(wj) {
			t.Fatalf("case %d %q offset=%d limit=%d max=%d/%d chunk=%d details\n got %s\nwant %s", i, content, offset, limit, maxLines, maxBytes, chunk, gj, wj)
		}
	}
}

// TestReadDoesNotLoadTheFile reads the middle of a 16 MB file and checks that the allocations stay
// far below the file's size.
func TestReadDoesNotLoadTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.txt")
	readWriteBigFile(t, p, 16<<20)
	tool := NewRead(dir, ReadOptions{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := readCall(t, tool, readArgs(p, 100_000, 100))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(readText(res), "line 100000 ") || !strings.Contains(readText(res), "more lines in file. Use offset=100100 to continue.]") {
		t.Fatalf("unexpected text %q", readText(res)[:80])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Fatalf("reading 100 lines of a 16 MB file allocated %d bytes", alloc)
	}
}

// readWriteBigFile writes a file of about size bytes of numbered 80-byte lines without holding it.
func readWriteBigFile(t testing.TB, path string, size int) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 0, 1<<20)
	lines := 0
	for written := 0; written < size; {
		lines++
		buf = fmt.Appendf(buf, "line %d %s\n", lines, strings.Repeat("z", 70-len(fmt.Sprint(lines))))
		if len(buf) > cap(buf)-128 {
			n, err := f.Write(buf)
			if err != nil {
				t.Fatal(err)
			}
			written += n
			buf = buf[:0]
		}
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestReadImages(t *testing.T) {
	dir := t.TempDir()
	pixel := imgB64(t, imgPixelPNG)
	if err := os.WriteFile(filepath.Join(dir, "image.txt"), pixel, 0o644); err != nil {
		t.Fatal(err)
	}
	wide := image.NewNRGBA(image.Rect(0, 0, 250, 100))
	for i := range wide.Pix {
		wide.Pix[i] = 0xC0
	}
	if err := os.WriteFile(filepath.Join(dir, "wide.png"), imgEncodePNG(t, wide), 0o644); err != nil {
		t.Fatal(err)
	}

	res, err := readCall(t, NewRead(dir, ReadOptions{}), readArgs("image.txt", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 || res.Content[0].Text != "Read image file [image/png]" || res.Content[1].Type != provider.ContentImage ||
		res.Content[1].MimeType != "image/png" || res.Content[1].Data != imgPixelPNG || res.Details != nil {
		t.Fatalf("1x1 PNG named .txt: %+v", res)
	}

	// pi's limits are 2000x2000; a tenth of them keeps the test fast under -race.
	small := NewRead(dir, ReadOptions{}).(*readTool)
	if small.limits != (imageLimits{maxWidth: 2000, maxHeight: 2000, maxBytes: 4718592, jpegQuality: 80}) {
		t.Fatalf("default image limits %+v are not pi's", small.limits)
	}
	small.limits.maxWidth, small.limits.maxHeight = 200, 200
	res, err = readCall(t, small, readArgs("wide.png", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	wantNote := "Read image file [image/png]\n[Image: original 250x100, displayed at 200x80. Multiply coordinates by 1.25 to map to original image.]"
	if len(res.Content) != 2 || res.Content[0].Text != wantNote {
		t.Fatalf("resized image text %q", res.Content[0].Text)
	}
	data, _ := base64.StdEncoding.DecodeString(res.Content[1].Data)
	if cfg, _, err := image.DecodeConfig(strings.NewReader(string(data))); err != nil || cfg.Width != 200 || cfg.Height != 80 {
		t.Fatalf("resized image %+v %v", cfg, err)
	}

	// pi 1.6: for a model without image input the result names it in its details (the request then
	// carries a placeholder); the text has no note.
	res, err = readCall(t, NewRead(dir, ReadOptions{DisableImageResize: true, ImagesUnsupportedBy: func() string { return "mock-model" }}), readArgs("wide.png", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.Details.(*ReadDetails); res.Content[0].Text != "Read image file [image/png]" || !ok || d.ImageUnsupportedByModel != "mock-model" ||
		len(res.Content) != 2 || len(res.Content[1].Data) != base64.StdEncoding.EncodedLen(len(imgEncodePNG(t, wide))) {
		t.Fatalf("unresized image for a text-only model: %q %+v", res.Content[0].Text, res.Details)
	}

	tiny := NewRead(dir, ReadOptions{}).(*readTool)
	tiny.limits = imageLimits{maxWidth: 2000, maxHeight: 2000, maxBytes: 8, jpegQuality: 80}
	res, err = readCall(t, tiny, readArgs("wide.png", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]" {
		t.Fatalf("image over every limit: %+v", res.Content)
	}
}

// A read of a small file holds a buffer of about the file's size, not a 256 KiB chunk: a batch of
// thousands of reads in one answer held them all at once.
func TestReadOfASmallFileAllocatesLittle(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := NewRead(dir, ReadOptions{})
	raw, _ := json.Marshal(readArgs(p, 0, 0))
	call := loop.ToolCall{ID: "call-1", Name: "read", Args: raw}
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := tool.Execute(context.Background(), call, nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perRead := (after.TotalAlloc - before.TotalAlloc) / runs; perRead > 64<<10 {
		t.Errorf("a read of a 6-byte file allocates %d bytes", perRead)
	}
}

// read's structured content (pi 1.6): the text of a text file (with read's notices, as the model gets
// it), the image and its note for an image, the text when an image could not be sent.
func TestReadStructuredContent(t *testing.T) {
	dir := t.TempDir()
	readWriteFile(t, dir, "a.txt", "one\ntwo\nthree\n")
	if err := os.WriteFile(filepath.Join(dir, "pixel.png"), imgB64(t, imgPixelPNG), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := readCall(t, NewRead(dir, ReadOptions{}), readArgs("a.txt", 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.StructuredContent != readText(res) || !strings.HasPrefix(readText(res), "two") {
		t.Errorf("text: structured %q, content %q", res.StructuredContent, readText(res))
	}
	res, err = readCall(t, NewRead(dir, ReadOptions{}), readArgs("pixel.png", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(loop.ToolResult{Content: res.Content[:0], StructuredContent: res.StructuredContent})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[],"structuredContent":{"type":"image","data":"` + imgPixelPNG + `","mimeType":"image/png","note":"Read image file [image/png]"}}`; string(data) != want {
		t.Errorf("image:\n got %s\nwant %s", data, want)
	}
	if _, err := readCall(t, NewRead(dir, ReadOptions{}), readArgs("missing.txt", 0, 0)); err == nil {
		t.Fatal("a missing file was read")
	}
}
