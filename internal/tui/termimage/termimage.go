// Package termimage draws images in the terminal as pi-tui does: the kitty graphics protocol or
// iTerm2's inline images, chosen from the terminal's environment (pi's detection, PI_IMAGE_PROTOCOL,
// the terminal.images setting), and pi's one-line text stand-in where neither is spoken. It is a
// leaf: it knows escape sequences and image headers, nothing of the transcript.
package termimage

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/gif" // decoders for the PNG transcoding kitty needs
	_ "image/jpeg"
	"image/png"
	"math"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp"
)

// Protocol is how the terminal draws images.
type Protocol string

const (
	None   Protocol = ""
	Kitty  Protocol = "kitty"
	ITerm2 Protocol = "iterm2"
)

// Detect is pi-tui's detection: the terminal.images setting ("kitty", "iterm2", "off" for false;
// "" or "auto" detect) wins over PI_IMAGE_PROTOCOL (kitty, iterm2, none or 0), which wins over
// the environment. Inside tmux or screen there are no images, as in pi (the multiplexer does not
// pass the sequences on).
func Detect(getenv func(string) string, setting string) Protocol {
	switch setting {
	case "kitty":
		return Kitty
	case "iterm2":
		return ITerm2
	case "off":
		return None
	}
	switch strings.ToLower(getenv("PI_IMAGE_PROTOCOL")) {
	case "kitty":
		return Kitty
	case "iterm2":
		return ITerm2
	case "none", "0":
		return None
	}
	termProgram := strings.ToLower(getenv("TERM_PROGRAM"))
	term := strings.ToLower(getenv("TERM"))
	set := func(k string) bool { return getenv(k) != "" }
	switch {
	case set("TMUX") || strings.HasPrefix(term, "tmux"), strings.HasPrefix(term, "screen"):
		return None
	case termProgram == "herdr", termProgram == "rex",
		termProgram == "orca" && getenv("ORCA_IMAGE_PROTOCOL") == "kitty",
		set("KITTY_WINDOW_ID") || termProgram == "kitty",
		termProgram == "ghostty" || strings.Contains(term, "ghostty") || set("GHOSTTY_RESOURCES_DIR"),
		set("WEZTERM_PANE") || termProgram == "wezterm",
		termProgram == "warpterminal" || set("WARP_SESSION_ID") || set("WARP_TERMINAL_SESSION_UUID"):
		return Kitty
	case set("ITERM_SESSION_ID") || termProgram == "iterm.app":
		return ITerm2
	}
	return None
}

// Cell is a terminal cell's size in pixels (pi's default, 9x18, when the terminal does not say).
type Cell struct{ WidthPx, HeightPx int }

// DefaultCell is pi-tui's assumed cell size.
var DefaultCell = Cell{WidthPx: 9, HeightPx: 18}

// CellSize is how many columns and rows an image of w x h pixels takes drawn at most maxCols wide
// and maxRows high (maxRows 0: no limit), as pi-tui's calculateImageCellSize; optimize picks the
// column or row count that distorts the aspect ratio least (pi does for kitty, which stretches the
// image to the cells).
func CellSize(w, h, maxCols, maxRows int, cell Cell, optimize bool) (cols, rows int) {
	maxW := float64(max(1, maxCols))
	iw, ih := float64(max(1, w)), float64(max(1, h))
	cw, ch := float64(cell.WidthPx), float64(cell.HeightPx)
	widthScale := maxW * cw / iw
	heightScale := widthScale
	if maxRows > 0 {
		heightScale = float64(maxRows) * ch / ih
	}
	scale := math.Min(widthScale, heightScale)
	cols = max(1, min(int(maxW), int(math.Ceil(iw*scale/cw))))
	rows = max(1, int(math.Ceil(ih*scale/ch)))
	if maxRows > 0 {
		rows = min(rows, maxRows)
	}
	if !optimize {
		return cols, rows
	}
	if widthScale <= heightScale {
		rows = lessDistorted(rows, float64(cols)*cw*ih/(iw*ch))
	} else {
		cols = lessDistorted(cols, float64(rows)*ch*iw/(ih*cw))
	}
	return cols, rows
}

func lessDistorted(upper int, ideal float64) int {
	if upper <= 1 {
		return upper
	}
	lower := upper - 1
	du := math.Max(float64(upper)/ideal, ideal/float64(upper))
	dl := math.Max(float64(lower)/ideal, ideal/float64(lower))
	if dl < du {
		return lower
	}
	return upper
}

// kittyChunk is the most base64 data one kitty command carries (the protocol's 4096).
const kittyChunk = 4096

// EncodeKitty is the kitty graphics command that transmits PNG data (base64) and shows it over cols
// x rows cells without moving the cursor (pi's a=T,f=100,q=2,C=1), with image id when id is not 0;
// data longer than one chunk goes in chunks with m=1 … m=0.
func EncodeKitty(b64 string, cols, rows int, id uint32) string {
	params := []string{"a=T", "f=100", "q=2", "C=1"}
	if cols > 0 {
		params = append(params, "c="+strconv.Itoa(cols))
	}
	if rows > 0 {
		params = append(params, "r="+strconv.Itoa(rows))
	}
	if id != 0 {
		params = append(params, "i="+strconv.FormatUint(uint64(id), 10))
	}
	head := strings.Join(params, ",")
	if len(b64) <= kittyChunk {
		return "\x1b_G" + head + ";" + b64 + "\x1b\\"
	}
	var b strings.Builder
	for off := 0; off < len(b64); off += kittyChunk {
		chunk := b64[off:min(off+kittyChunk, len(b64))]
		last := off+kittyChunk >= len(b64)
		switch {
		case off == 0:
			b.WriteString("\x1b_G" + head + ",m=1;" + chunk + "\x1b\\")
		case last:
			b.WriteString("\x1b_Gm=0;" + chunk + "\x1b\\")
		default:
			b.WriteString("\x1b_Gm=1;" + chunk + "\x1b\\")
		}
	}
	return b.String()
}

// EncodeITerm2 is iTerm2's inline-image sequence for base64 data, cols cells wide with the height
// following the aspect ratio (pi's width=N;height=auto).
func EncodeITerm2(b64 string, cols int) string {
	size := base64.StdEncoding.DecodedLen(len(b64)) - strings.Count(b64[max(len(b64)-2, 0):], "=")
	params := []string{"inline=1", "size=" + strconv.Itoa(size)}
	if cols > 0 {
		params = append(params, "width="+strconv.Itoa(cols))
	}
	params = append(params, "height=auto")
	return "\x1b]1337;File=" + strings.Join(params, ";") + ":" + b64 + "\x07"
}

// Fallback is pi's text stand-in for an image: "[Image: [image/png] 640x480]" (without the size
// when it is not known).
func Fallback(mime string, w, h int, sized bool) string {
	s := "[Image: [" + mime + "]"
	if sized {
		s += " " + strconv.Itoa(w) + "x" + strconv.Itoa(h)
	}
	return s + "]"
}

// Lines draws an image (base64 data of type mime, w x h pixels) for the protocol at most maxCols
// wide: the lines a transcript shows, as pi-tui's Image component. Kitty: the sequence on the first
// line, then empty lines over which the image is drawn; iTerm2: the empty lines first, then the
// sequence after a cursor-up to their top. ok is false when it cannot be drawn (no protocol, or a
// non-PNG image for kitty that cannot be converted).
func Lines(p Protocol, b64, mime string, w, h, maxCols int, id uint32) (lines []string, ok bool) {
	if p == None || b64 == "" {
		return nil, false
	}
	maxCols = max(1, maxCols)
	maxRows := max(1, int(math.Ceil(float64(maxCols*DefaultCell.WidthPx)/float64(DefaultCell.HeightPx))))
	if p == Kitty && mime != "image/png" {
		png, pw, ph, err := toPNG(b64)
		if err != nil {
			return nil, false
		}
		b64, w, h = png, pw, ph
	}
	cols, rows := CellSize(w, h, maxCols, maxRows, DefaultCell, p == Kitty)
	if p == Kitty {
		lines = append(lines, EncodeKitty(b64, cols, rows, id))
		for range rows - 1 {
			lines = append(lines, "")
		}
		return lines, true
	}
	for range rows - 1 {
		lines = append(lines, "")
	}
	up := ""
	if rows > 1 {
		up = "\x1b[" + strconv.Itoa(rows-1) + "A"
	}
	return append(lines, up+EncodeITerm2(b64, cols)), true
}

// toPNG converts base64 JPEG, GIF or WebP data to base64 PNG (kitty's f=100 takes only PNG).
func toPNG(b64 string) (string, int, int, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", 0, 0, err
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return "", 0, 0, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", 0, 0, err
	}
	b := img.Bounds()
	return base64.StdEncoding.EncodeToString(buf.Bytes()), b.Dx(), b.Dy(), nil
}

// IsImageLine reports whether a line carries an image sequence.
func IsImageLine(line string) bool {
	return strings.Contains(line, "\x1b_G") || strings.Contains(line, "\x1b]1337;File=")
}
