package tools

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
)

// Fixtures from pi's own image tests (2x2 PNG and JPEG, 1x1 PNG) and Modernizr's 1x1 WebPs.
const (
	imgTinyPNG      = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACAQMAAABIeJ9nAAAAIGNIUk0AAHomAACAhAAA+gAAAIDoAAB1MAAA6mAAADqYAAAXcJy6UTwAAAAGUExURf8AAP///0EdNBEAAAABYktHRAH/Ai3eAAAAB3RJTUUH6gEOADM5Ddoh/wAAAAxJREFUCNdjYGBgAAAABAABJzQnCgAAACV0RVh0ZGF0ZTpjcmVhdGUAMjAyNi0wMS0xNFQwMDo1MTo1NyswMDowMOnKzHgAAAAldEVYdGRhdGU6bW9kaWZ5ADIwMjYtMDEtMTRUMDA6NTE6NTcrMDA6MDCYl3TEAAAAKHRFWHRkYXRlOnRpbWVzdGFtcAAyMDI2LTAxLTE0VDAwOjUxOjU3KzAwOjAwz4JVGwAAAABJRU5ErkJggg=="
	imgTinyJPEG     = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAACAAIDAREAAhEBAxEB/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/xAAVAQEBAAAAAAAAAAAAAAAAAAAGCf/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AD3VTB3/2Q=="
	imgPixelPNG     = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+X2Z0AAAAASUVORK5CYII="
	imgWebPLossless = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="
	imgWebPLossy    = "UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA"
)

func imgB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// imgNoise is a w x h image of random pixels: it compresses badly, so its PNG is large.
func imgNoise(w, h int, seed uint64) *image.NRGBA {
	rng := rand.New(rand.NewPCG(seed, seed))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xFF
	}
	return img
}

func imgEncodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func imgDecodeFitted(t *testing.T, f *imageFitted) image.Image {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(f.data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("fitted %s does not decode: %v", f.mimeType, err)
	}
	return img
}

func TestImageMIMETypeByMagic(t *testing.T) {
	cases := []struct {
		name string
		head []byte
		want string
	}{
		{"png", imgB64(t, imgPixelPNG), mimePNG},
		{"jpeg", imgB64(t, imgTinyJPEG), mimeJPEG},
		{"gif87a", []byte("GIF87a\x01\x00\x01\x00"), mimeGIF},
		{"gif89a", []byte("GIF89a\x01\x00\x01\x00"), mimeGIF},
		{"webp", imgB64(t, imgWebPLossy), mimeWebP},
		{"riff but not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"text", []byte("definitely not a png"), ""},
		{"empty", nil, ""},
		{"short png prefix", []byte("\x89PN"), ""},
	}
	for _, c := range cases {
		if got := imageMIMEType(c.head); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestImageFitKeepsSmallImages(t *testing.T) {
	lim := imageLimits{maxWidth: 100, maxHeight: 100, maxBytes: 1 << 20, jpegQuality: 80}
	for _, c := range []struct{ name, data, mime string }{
		{"png", imgTinyPNG, mimePNG}, {"jpeg", imgTinyJPEG, mimeJPEG},
		{"webp lossless", imgWebPLossless, mimeWebP}, {"webp lossy", imgWebPLossy, mimeWebP},
	} {
		f := imageFit(imgB64(t, c.data), c.mime, lim)
		if f == nil {
			t.Fatalf("%s: not fitted", c.name)
		}
		if f.resized || f.data != c.data || f.mimeType != c.mime {
			t.Errorf("%s: small image was changed: resized=%v mime=%s", c.name, f.resized, f.mimeType)
		}
		if c.mime != mimeWebP && (f.originalWidth != 2 || f.originalHeight != 2 || f.width != 2 || f.height != 2) {
			t.Errorf("%s: dimensions %dx%d -> %dx%d", c.name, f.originalWidth, f.originalHeight, f.width, f.height)
		}
		if imageDimensionNote(f) != "" {
			t.Errorf("%s: a note for an unchanged image", c.name)
		}
	}
}

func TestImageFitScalesToDimensionLimits(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 300, 100))
	for i := range src.Pix {
		src.Pix[i] = 0x80
	}
	f := imageFit(imgEncodePNG(t, src), mimePNG, imageLimits{maxWidth: 50, maxHeight: 50, maxBytes: 1 << 20, jpegQuality: 80})
	if f == nil || !f.resized {
		t.Fatalf("not resized: %+v", f)
	}
	if f.originalWidth != 300 || f.originalHeight != 100 || f.width != 50 || f.height != 17 {
		t.Fatalf("dimensions %dx%d -> %dx%d, want 300x100 -> 50x17", f.originalWidth, f.originalHeight, f.width, f.height)
	}
	if b := imgDecodeFitted(t, f).Bounds(); b.Dx() != 50 || b.Dy() != 17 {
		t.Fatalf("encoded image is %v", b)
	}
	want := "[Image: original 300x100, displayed at 50x17. Multiply coordinates by 6.00 to map to original image.]"
	if got := imageDimensionNote(f); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}

func TestImageFitPicksTheSmallerEncoding(t *testing.T) {
	// A flat image compresses far better as PNG; noise is smaller as JPEG.
	flat := image.NewNRGBA(image.Rect(0, 0, 160, 160))
	for i := range flat.Pix {
		flat.Pix[i] = 0xFF
	}
	lim := imageLimits{maxWidth: 80, maxHeight: 80, maxBytes: 1 << 20, jpegQuality: 80}
	if f := imageFit(imgEncodePNG(t, flat), mimePNG, lim); f == nil || f.mimeType != mimePNG {
		t.Errorf("flat image: %+v", f)
	}
	if f := imageFit(imgEncodePNG(t, imgNoise(160, 160, 1)), mimePNG, lim); f == nil || f.mimeType != mimeJPEG {
		t.Errorf("noisy image: %+v", f)
	}
}

func TestImageFitHonoursTheByteLimit(t *testing.T) {
	data := imgEncodePNG(t, imgNoise(100, 100, 2))
	limit := len(data) / 4
	f := imageFit(data, mimePNG, imageLimits{maxWidth: 2000, maxHeight: 2000, maxBytes: limit, jpegQuality: 80})
	if f == nil {
		t.Fatal("no candidate under the limit")
	}
	if len(f.data) >= limit {
		t.Fatalf("base64 payload %d is not under %d", len(f.data), limit)
	}
	if !f.resized || f.originalWidth != 100 {
		t.Fatalf("unexpected result %+v", f)
	}
	// Nothing fits in 10 bytes of base64: pi reports the image as omitted.
	if f := imageFit(data, mimePNG, imageLimits{maxWidth: 2000, maxHeight: 2000, maxBytes: 10, jpegQuality: 80}); f != nil {
		t.Fatalf("fitted into 10 bytes: %+v", f)
	}
}

func TestImageFitAcceptsPNGWithBadChecksums(t *testing.T) {
	// pi's test PNG has a wrong IDAT CRC; pi's decoder takes it, so must we.
	f := imageFit(imgB64(t, imgPixelPNG), mimePNG, imageDefaultLimits())
	if f == nil || f.data != imgPixelPNG || f.resized || f.width != 1 {
		t.Fatalf("pi's 1x1 PNG: %+v", f)
	}
}

func TestImageFitRejectsUndecodableImages(t *testing.T) {
	junk := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3}, 50)...)
	if f := imageFit(junk, mimePNG, imageDefaultLimits()); f != nil {
		t.Fatalf("garbage after a PNG signature was accepted: %+v", f)
	}
}

// imgJPEGWithOrientation returns a w x h JPEG carrying an EXIF orientation tag.
func imgJPEGWithOrientation(t *testing.T, w, h, orientation int, littleEndian bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, imgNoise(w, h, 3), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	var order binary.AppendByteOrder = binary.BigEndian
	tiff := []byte("MM\x00\x2a")
	if littleEndian {
		order = binary.LittleEndian
		tiff = []byte("II\x2a\x00")
	}
	tiff = order.AppendUint32(tiff, 8)
	tiff = order.AppendUint16(tiff, 2) // two entries: an unrelated tag, then the orientation
	tiff = order.AppendUint16(tiff, 0x010F)
	tiff = order.AppendUint16(tiff, 2)
	tiff = order.AppendUint32(tiff, 1)
	tiff = order.AppendUint32(tiff, 0)
	tiff = order.AppendUint16(tiff, 0x0112)
	tiff = order.AppendUint16(tiff, 3)
	tiff = order.AppendUint32(tiff, 1)
	tiff = order.AppendUint16(tiff, uint16(orientation))
	tiff = order.AppendUint16(tiff, 0)
	tiff = order.AppendUint32(tiff, 0)
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1}
	seg = binary.BigEndian.AppendUint16(seg, uint16(len(app1)+2))
	seg = append(seg, app1...)
	jpg := buf.Bytes()
	return append(append(append([]byte{}, jpg[:2]...), seg...), jpg[2:]...)
}

func TestImageEXIFOrientation(t *testing.T) {
	for o := 1; o <= 8; o++ {
		for _, le := range []bool{false, true} {
			if got := imageEXIFOrientation(imgJPEGWithOrientation(t, 4, 2, o, le)); got != o {
				t.Errorf("orientation %d (little endian %v) read as %d", o, le, got)
			}
		}
	}
	if got := imageEXIFOrientation(imgB64(t, imgTinyJPEG)); got != 1 {
		t.Errorf("JPEG without EXIF: %d", got)
	}
	// WebP: an EXIF chunk after the image chunk, with and without the "Exif\0\0" prefix.
	for _, prefix := range []string{"", "Exif\x00\x00"} {
		webp := imgB64(t, imgWebPLossless)
		exif := append([]byte(prefix), "II\x2a\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00"...)
		chunk := append([]byte("EXIF"), binary.LittleEndian.AppendUint32(nil, uint32(len(exif)))...)
		chunk = append(chunk, exif...)
		if len(exif)%2 == 1 {
			chunk = append(chunk, 0)
		}
		if got := imageEXIFOrientation(append(webp, chunk...)); got != 8 {
			t.Errorf("WebP EXIF (prefix %q): %d", prefix, got)
		}
	}
}

func TestImageOrientMatchesPiMapping(t *testing.T) {
	const w, h = 3, 2
	src := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			src.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), A: 0xFF})
		}
	}
	// pi moves each source pixel (x, y) to a destination index; flips happen in place.
	rot6 := func(x, y int) (int, int) { i := x*h + (h - 1 - y); return i % h, i / h }
	rot8 := func(x, y int) (int, int) { i := (w-1-x)*h + y; return i % h, i / h }
	forward := map[int]func(x, y int) (int, int){
		2: func(x, y int) (int, int) { return w - 1 - x, y },
		3: func(x, y int) (int, int) { return w - 1 - x, h - 1 - y },
		4: func(x, y int) (int, int) { return x, h - 1 - y },
		5: func(x, y int) (int, int) { dx, dy := rot6(x, y); return h - 1 - dx, dy },
		6: rot6,
		7: func(x, y int) (int, int) { dx, dy := rot8(x, y); return h - 1 - dx, dy },
		8: rot8,
	}
	for o, move := range forward {
		got := imageOrient(src, o)
		for y := range h {
			for x := range w {
				dx, dy := move(x, y)
				if c := color.NRGBAModel.Convert(got.At(dx, dy)).(color.NRGBA); c.R != uint8(x) || c.G != uint8(y) {
					t.Errorf("orientation %d: pixel (%d,%d) should land at (%d,%d), found the one from (%d,%d)", o, x, y, dx, dy, c.R, c.G)
				}
			}
		}
	}
}

func TestImageFitAppliesOrientationWhenResizing(t *testing.T) {
	data := imgJPEGWithOrientation(t, 40, 20, 6, false)
	f := imageFit(data, mimeJPEG, imageLimits{maxWidth: 10, maxHeight: 10, maxBytes: 1 << 20, jpegQuality: 80})
	if f == nil {
		t.Fatal("not fitted")
	}
	if f.originalWidth != 20 || f.originalHeight != 40 || f.width != 5 || f.height != 10 {
		t.Fatalf("dimensions %dx%d -> %dx%d, want 20x40 -> 5x10", f.originalWidth, f.originalHeight, f.width, f.height)
	}
	if b := imgDecodeFitted(t, f).Bounds(); b.Dx() != 5 || b.Dy() != 10 {
		t.Fatalf("encoded image is %v", b)
	}
}

func TestImageToFixedMatchesJavaScript(t *testing.T) {
	// Values checked with node: (x).toFixed(d).
	cases := []struct {
		x      float64
		digits int
		want   string
	}{
		{1.5, 2, "1.50"}, {1.125, 2, "1.13"}, {1.005, 2, "1.00"}, {2.0 / 3.0, 2, "0.67"},
		{1, 2, "1.00"}, {2000.0 / 1000.0, 2, "2.00"}, {0.005, 2, "0.01"}, {1.25, 1, "1.3"},
		{2.5, 0, "3"}, {-1.125, 2, "-1.13"}, {0.001, 2, "0.00"}, {4032.0 / 2000.0, 2, "2.02"},
	}
	for _, c := range cases {
		if got := imageToFixed(c.x, c.digits); got != c.want {
			t.Errorf("toFixed(%v, %d) = %q, want %q", c.x, c.digits, got, c.want)
		}
	}
}

func TestImageHalveAveragesBlocks(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 2)) // the odd last column is dropped
	vals := []uint8{10, 20, 30, 40, 250, 0, 0, 0, 100, 200}
	for i, v := range vals {
		x, y := i%5, i/5
		src.SetRGBA(x, y, color.RGBA{R: v, G: v / 2, B: 0, A: 255})
	}
	got := imageHalve(src)
	if got.Rect.Dx() != 2 || got.Rect.Dy() != 1 {
		t.Fatalf("halved to %v", got.Rect)
	}
	// (10+20+0+0)/4 rounds to 8 (7.5 up); (30+40+0+100)/4 = 42.5 -> 43.
	if r := got.RGBAAt(0, 0).R; r != 8 {
		t.Errorf("first block red %d", r)
	}
	if r := got.RGBAAt(1, 0).R; r != 43 {
		t.Errorf("second block red %d", r)
	}
	if a := got.RGBAAt(1, 0).A; a != 255 {
		t.Errorf("alpha %d", a)
	}
}

func TestImageScaleHalvesThenInterpolates(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range src.Pix {
		src.Pix[i] = 0x40
	}
	got := imageScale(src, 90, 67)
	if got.Rect.Dx() != 90 || got.Rect.Dy() != 67 {
		t.Fatalf("scaled to %v", got.Rect)
	}
	if c := got.RGBAAt(45, 33); c.R != 0x40 || c.A != 0x40 {
		t.Errorf("a flat image changed colour: %v", c)
	}
}

// BenchmarkImageFit12MP downscales a 4032x3024 JPEG photo to pi's 2000x1500 limit.
func BenchmarkImageFit12MP(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 4032, 3024))
	for y := range 3024 {
		for x := range 4032 {
			i := src.PixOffset(x, y)
			src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = byte(x*y>>8), byte(x), byte(y), 0xFF
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if f := imageFit(data, mimeJPEG, imageDefaultLimits()); f == nil || f.width != 2000 || f.height != 1500 {
			b.Fatalf("fitted %+v", f)
		}
	}
}

// pi 1.6 reads BMP files and sends them as PNG, saying so; a file that only starts with "BM" is text.
func TestReadBMP(t *testing.T) {
	dir := t.TempDir()
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	src.Set(1, 1, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := bmp.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pic.bmp"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bm.txt"), []byte("BM is how this text starts, and it goes on for a while\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := readCall(t, NewRead(dir, ReadOptions{}), readArgs("pic.bmp", 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 || res.Content[0].Text != "Read image file [image/png]\n[Image converted from image/bmp to image/png.]" ||
		res.Content[1].MimeType != "image/png" {
		t.Fatalf("bmp result %+v", res.Content)
	}
	data, _ := base64.StdEncoding.DecodeString(res.Content[1].Data)
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != 3 || img.Bounds().Dy() != 2 {
		t.Fatalf("png %v %v", img, err)
	}
	if r, _, _, _ := img.At(1, 1).RGBA(); r>>8 != 200 {
		t.Errorf("pixel lost in the conversion")
	}
	res, err = readCall(t, NewRead(dir, ReadOptions{}), readArgs("bm.txt", 0, 0))
	if err != nil || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, "BM is how") {
		t.Fatalf("text starting with BM: %+v %v", res.Content, err)
	}
	img2, note, isImage, err := LoadImageFile(filepath.Join(dir, "pic.bmp"), false)
	if err != nil || !isImage || img2 == nil || img2.MimeType != "image/png" || note != "[Image converted from image/bmp to image/png.]" {
		t.Errorf("@file bmp: %v %q %v %v", img2, note, isImage, err)
	}
}
