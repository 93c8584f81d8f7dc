package termimage

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		setting string
		want    Protocol
	}{
		{"plain xterm", map[string]string{"TERM": "xterm-256color"}, "", None},
		{"kitty window", map[string]string{"KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"}, "", Kitty},
		{"ghostty", map[string]string{"TERM_PROGRAM": "ghostty"}, "", Kitty},
		{"wezterm pane", map[string]string{"WEZTERM_PANE": "0"}, "auto", Kitty},
		{"iterm", map[string]string{"TERM_PROGRAM": "iTerm.app"}, "", ITerm2},
		{"iterm session", map[string]string{"ITERM_SESSION_ID": "w0t0p0"}, "", ITerm2},
		{"tmux inside kitty", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "KITTY_WINDOW_ID": "1"}, "", None},
		{"screen", map[string]string{"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}, "", None},
		{"env forces kitty in tmux", map[string]string{"TMUX": "x", "PI_IMAGE_PROTOCOL": "KITTY"}, "", Kitty},
		{"env turns off", map[string]string{"KITTY_WINDOW_ID": "1", "PI_IMAGE_PROTOCOL": "none"}, "", None},
		{"setting wins over env", map[string]string{"PI_IMAGE_PROTOCOL": "kitty"}, "iterm2", ITerm2},
		{"setting false", map[string]string{"KITTY_WINDOW_ID": "1"}, "off", None},
		{"orca needs its variable", map[string]string{"TERM_PROGRAM": "orca"}, "", None},
	}
	for _, tt := range tests {
		if got := Detect(envOf(tt.env), tt.setting); got != tt.want {
			t.Errorf("%s: Detect = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestEncodeKittySingleAndChunked(t *testing.T) {
	if got, want := EncodeKitty("QUJD", 10, 5, 7), "\x1b_Ga=T,f=100,q=2,C=1,c=10,r=5,i=7;QUJD\x1b\\"; got != want {
		t.Errorf("single = %q, want %q", got, want)
	}
	data := strings.Repeat("A", 4096*2+10)
	got := EncodeKitty(data, 3, 2, 0)
	parts := strings.Split(got, "\x1b\\")
	if len(parts) != 4 || parts[3] != "" {
		t.Fatalf("%d commands", len(parts)-1)
	}
	if !strings.HasPrefix(parts[0], "\x1b_Ga=T,f=100,q=2,C=1,c=3,r=2,m=1;") || len(parts[0]) != len("\x1b_Ga=T,f=100,q=2,C=1,c=3,r=2,m=1;")+4096 {
		t.Errorf("first chunk %q…", parts[0][:40])
	}
	if parts[1] != "\x1b_Gm=1;"+strings.Repeat("A", 4096) {
		t.Errorf("middle chunk %q…", parts[1][:20])
	}
	if parts[2] != "\x1b_Gm=0;"+strings.Repeat("A", 10) {
		t.Errorf("last chunk %q", parts[2])
	}
}

func TestEncodeITerm2(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("hello")) // 5 bytes, one "=" of padding
	if got, want := EncodeITerm2(b64, 40), "\x1b]1337;File=inline=1;size=5;width=40;height=auto:"+b64+"\x07"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCellSizeAsPiTUI(t *testing.T) {
	// Values computed with pi-tui's calculateImageCellSize (9x18 cells).
	tests := []struct {
		w, h, maxCols, maxRows int
		optimize               bool
		cols, rows             int
	}{
		{640, 480, 60, 30, false, 60, 23},
		{640, 480, 60, 30, true, 60, 23},
		{100, 50, 60, 30, false, 60, 15}, // small images are drawn at the full width, as pi does
		{300, 2000, 60, 30, false, 9, 30},
		{300, 2000, 60, 30, true, 9, 30},
		{1, 1, 60, 30, false, 60, 30},
		{180, 72, 60, 30, true, 60, 12},
		{1000, 37, 80, 40, true, 80, 2},
	}
	for _, tt := range tests {
		cols, rows := CellSize(tt.w, tt.h, tt.maxCols, tt.maxRows, DefaultCell, tt.optimize)
		if cols != tt.cols || rows != tt.rows {
			t.Errorf("CellSize(%dx%d, %d, %d, %v) = %d x %d, want %d x %d", tt.w, tt.h, tt.maxCols, tt.maxRows, tt.optimize, cols, rows, tt.cols, tt.rows)
		}
	}
}

func pngB64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestLines(t *testing.T) {
	b64 := pngB64(t, 180, 72) // 60 x 12 cells at most 60 wide
	lines, ok := Lines(Kitty, b64, "image/png", 180, 72, 60, 3)
	if !ok || len(lines) != 12 || lines[0] != EncodeKitty(b64, 60, 12, 3) || lines[1] != "" {
		t.Errorf("kitty lines %d ok %v: %q", len(lines), ok, lines[0][:min(40, len(lines[0]))])
	}
	lines, ok = Lines(ITerm2, b64, "image/png", 180, 72, 60, 0)
	if !ok || len(lines) != 12 || lines[0] != "" || lines[11] != "\x1b[11A"+EncodeITerm2(b64, 60) {
		t.Errorf("iterm2 lines %q", lines)
	}
	if _, ok := Lines(None, b64, "image/png", 180, 72, 60, 0); ok {
		t.Error("drawn without a protocol")
	}
	// Kitty takes PNG only: a JPEG is converted.
	var jb bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 18, 18))
	img.Set(1, 1, color.White)
	if err := jpeg.Encode(&jb, img, nil); err != nil {
		t.Fatal(err)
	}
	lines, ok = Lines(Kitty, base64.StdEncoding.EncodeToString(jb.Bytes()), "image/jpeg", 18, 18, 60, 0)
	if !ok || !strings.Contains(lines[0], "f=100") {
		t.Fatalf("jpeg for kitty not drawn: %v", ok)
	}
	payload := lines[0][strings.Index(lines[0], ";")+1 : strings.Index(lines[0], "\x1b\\")]
	raw, _ := base64.StdEncoding.DecodeString(payload)
	if !bytes.HasPrefix(raw, []byte("\x89PNG")) {
		t.Error("the JPEG was not converted to PNG")
	}
	if _, ok := Lines(Kitty, "bm90IGFuIGltYWdl", "image/jpeg", 1, 1, 60, 0); ok {
		t.Error("undecodable data drawn")
	}
}

func TestFallback(t *testing.T) {
	if got := Fallback("image/png", 640, 480, true); got != "[Image: [image/png] 640x480]" {
		t.Error(got)
	}
	if got := Fallback("image/webp", 0, 0, false); got != "[Image: [image/webp]]" {
		t.Error(got)
	}
}
