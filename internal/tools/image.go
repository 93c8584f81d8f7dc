package tools

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	stddraw "image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/big"
	"os"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/pi-go/pi-go/internal/provider"
)

// Image MIME types the read tool sends as attachments (pi's set).
const (
	mimePNG  = "image/png"
	mimeJPEG = "image/jpeg"
	mimeGIF  = "image/gif"
	mimeWebP = "image/webp"
	// mimeBMP is read (pi 1.6) and sent converted to PNG.
	mimeBMP = "image/bmp"
)

// imageSniffBytes is how much of a file image detection looks at (pi's file-type sniff size).
const imageSniffBytes = 4100

// imageMIMEType names the image format of a file from its first bytes (magic numbers, never the
// extension), or returns "" for anything else. An animated PNG counts as PNG (pi's sniffer calls it
// image/apng and then reads it as text).
func imageMIMEType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return mimeJPEG
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return mimePNG
	case bytes.HasPrefix(head, []byte("GIF")):
		return mimeGIF
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return mimeWebP
	case bytes.HasPrefix(head, []byte("BM")) && imageIsBMP(head):
		return mimeBMP
	}
	return ""
}

// imageIsBMP checks a BMP header as pi 1.6 does (isBmp): the declared sizes agree, the DIB header is
// one of the known sizes, one colour plane, a usual bit depth.
func imageIsBMP(b []byte) bool {
	if len(b) < 26 {
		return false
	}
	fileSize := binary.LittleEndian.Uint32(b[2:])
	pixelOffset := binary.LittleEndian.Uint32(b[10:])
	dibSize := binary.LittleEndian.Uint32(b[14:])
	if fileSize != 0 && fileSize < 26 || uint64(pixelOffset) < 14+uint64(dibSize) || fileSize != 0 && pixelOffset >= fileSize {
		return false
	}
	var planes, bits uint16
	switch {
	case dibSize == 12:
		planes, bits = binary.LittleEndian.Uint16(b[22:]), binary.LittleEndian.Uint16(b[24:])
	case dibSize >= 40 && dibSize <= 124 && len(b) >= 30:
		planes, bits = binary.LittleEndian.Uint16(b[26:]), binary.LittleEndian.Uint16(b[28:])
	default:
		return false
	}
	switch bits {
	case 1, 4, 8, 16, 24, 32:
		return planes == 1
	}
	return false
}

// imageBMPToPNG converts a BMP to PNG (pi 1.6 sends no BMP to a model); ok is false when the BMP
// cannot be decoded or is absurdly large.
func imageBMPToPNG(data []byte) ([]byte, bool) {
	cfg, err := bmp.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > imageMaxPixels {
		return nil, false
	}
	img, err := bmp.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// imageLimits bound what is sent to the model (pi's resize options).
type imageLimits struct {
	maxWidth, maxHeight int
	maxBytes            int // of the base64 payload
	jpegQuality         int
}

// imageDefaultLimits are pi's: 2000x2000 and 4.5 MB of base64 (headroom below Anthropic's 5 MB).
func imageDefaultLimits() imageLimits {
	return imageLimits{maxWidth: 2000, maxHeight: 2000, maxBytes: 4.5 * 1024 * 1024, jpegQuality: 80}
}

// imageMaxPixels refuses to decode absurd images (decompression bombs): 100 megapixels is ~400 MB
// of pixels. Such an image is reported as not resizable, as pi reports a decoder failure.
const imageMaxPixels = 100_000_000

// imageFitted is an image ready to send.
type imageFitted struct {
	data                          string // base64
	mimeType                      string
	originalWidth, originalHeight int
	width, height                 int
	resized                       bool
}

// imageDimensionNote is pi's hint that maps coordinates back to the original, or "" when the image
// was sent as it is.
func imageDimensionNote(img *imageFitted) string {
	if !img.resized {
		return ""
	}
	scale := float64(img.originalWidth) / float64(img.width)
	return fmt.Sprintf("[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %s to map to original image.]",
		img.originalWidth, img.originalHeight, img.width, img.height, imageToFixed(scale, 2))
}

// imageToFixed formats x as JavaScript's Number.prototype.toFixed(digits) does: the exact binary
// value rounded to digits decimals, ties away from zero (Go's %f rounds ties to even).
func imageToFixed(x float64, digits int) string {
	r := new(big.Rat).SetFloat64(math.Abs(x))
	if r == nil { // NaN or Inf
		return fmt.Sprint(x)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor, r is positive
	s := n.String()
	if digits > 0 {
		if len(s) <= digits {
			s = fmt.Sprintf("%0*s", digits+1, s)
		}
		s = s[:len(s)-digits] + "." + s[len(s)-digits:]
	}
	if x < 0 && n.Sign() != 0 {
		s = "-" + s
	}
	return s
}

// imageFit returns the image as it may be sent: unchanged when it is within the limits, otherwise
// scaled down (EXIF orientation applied) and re-encoded. It returns nil when the image cannot be
// decoded or cannot be brought under the byte limit, which pi reports as an omitted image.
//
// Strategy (pi's, see DESIGN): fit within maxWidth x maxHeight keeping the aspect ratio; encode PNG
// and JPEG at jpegQuality and keep the smaller if it fits; else JPEG at falling qualities; else
// shrink by a quarter and try again, down to 1x1.
func imageFit(data []byte, mimeType string, lim imageLimits) *imageFitted {
	cfg, err := imageDecodeConfig(data, mimeType)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > imageMaxPixels {
		return nil
	}
	src, err := imageDecode(data, mimeType)
	if err != nil && mimeType == mimePNG {
		// pi's decoder accepts PNGs whose chunk checksums are wrong (pi's own test image has one);
		// Go's refuses them, so retry with the checksums recomputed.
		src, err = imageDecode(imageFixPNGChecksums(data), mimeType)
	}
	if err != nil {
		return nil
	}
	orientation := imageEXIFOrientation(data)
	ow, oh := src.Bounds().Dx(), src.Bounds().Dy()
	if orientation >= 5 {
		ow, oh = oh, ow
	}
	if ow <= lim.maxWidth && oh <= lim.maxHeight && base64.StdEncoding.EncodedLen(len(data)) < lim.maxBytes {
		return &imageFitted{data: base64.StdEncoding.EncodeToString(data), mimeType: mimeType,
			originalWidth: ow, originalHeight: oh, width: ow, height: oh}
	}
	src = imageOrient(src, orientation)

	w, h := ow, oh
	if w > lim.maxWidth {
		h = int(math.Round(float64(h) * float64(lim.maxWidth) / float64(w)))
		w = lim.maxWidth
	}
	if h > lim.maxHeight {
		w = int(math.Round(float64(w) * float64(lim.maxHeight) / float64(h)))
		h = lim.maxHeight
	}
	w, h = max(w, 1), max(h, 1)
	fitted := func(encoded []byte, mime string) *imageFitted {
		return &imageFitted{data: base64.StdEncoding.EncodeToString(encoded), mimeType: mime,
			originalWidth: ow, originalHeight: oh, width: w, height: h, resized: true}
	}
	fits := func(encoded []byte) bool {
		return encoded != nil && base64.StdEncoding.EncodedLen(len(encoded)) < lim.maxBytes
	}
	for {
		scaled := imageScale(src, w, h)
		// Both encodings at once: they are the slow part, and independent.
		pngDone := make(chan []byte, 1)
		go func() { pngDone <- imageEncodePNG(scaled) }()
		jpegData := imageEncodeJPEG(scaled, lim.jpegQuality)
		pngData := <-pngDone
		best, bestMIME := pngData, mimePNG
		if jpegData != nil && (pngData == nil || len(jpegData) < len(pngData)) {
			best, bestMIME = jpegData, mimeJPEG
		}
		if fits(best) {
			return fitted(best, bestMIME)
		}
		for _, q := range []int{70, 55, 40} {
			if q >= lim.jpegQuality {
				continue
			}
			if data := imageEncodeJPEG(scaled, q); fits(data) {
				return fitted(data, mimeJPEG)
			}
		}
		if w == 1 && h == 1 {
			return nil
		}
		nw, nh := w, h
		if w > 1 {
			nw = max(1, int(math.Floor(float64(w)*0.75)))
		}
		if h > 1 {
			nh = max(1, int(math.Floor(float64(h)*0.75)))
		}
		w, h = nw, nh
	}
}

// imageScale resizes src to w x h. While the image is at least twice the target size it is halved
// with a box filter (cheap, and every pixel counts); Catmull-Rom does the rest. A 12-megapixel photo
// scales in a fraction of the time a single Catmull-Rom pass over it takes.
func imageScale(src image.Image, w, h int) *image.RGBA {
	if b := src.Bounds(); b.Dx() >= 2*w && b.Dy() >= 2*h {
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		stddraw.Draw(rgba, rgba.Bounds(), src, b.Min, stddraw.Src)
		for rgba.Rect.Dx() >= 2*w && rgba.Rect.Dy() >= 2*h {
			rgba = imageHalve(rgba)
		}
		src = rgba
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}

// imageHalve averages each 2x2 block of src (premultiplied colours average correctly); an odd last
// row or column is dropped.
func imageHalve(src *image.RGBA) *image.RGBA {
	w, h := src.Rect.Dx()/2, src.Rect.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		top := src.Pix[2*y*src.Stride:]
		bottom := src.Pix[(2*y+1)*src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for x := range w {
			i := 8 * x
			for c := range 4 {
				sum := uint32(top[i+c]) + uint32(top[i+4+c]) + uint32(bottom[i+c]) + uint32(bottom[i+4+c])
				out[4*x+c] = uint8((sum + 2) / 4)
			}
		}
	}
	return dst
}

func imageDecodeConfig(data []byte, mimeType string) (image.Config, error) {
	r := bytes.NewReader(data)
	switch mimeType {
	case mimePNG:
		return png.DecodeConfig(r)
	case mimeJPEG:
		return jpeg.DecodeConfig(r)
	case mimeGIF:
		return gif.DecodeConfig(r)
	case mimeWebP:
		return webp.DecodeConfig(r)
	}
	return image.Config{}, fmt.Errorf("unsupported image type %s", mimeType)
}

func imageDecode(data []byte, mimeType string) (image.Image, error) {
	r := bytes.NewReader(data)
	switch mimeType {
	case mimePNG:
		return png.Decode(r)
	case mimeJPEG:
		return jpeg.Decode(r)
	case mimeGIF:
		return gif.Decode(r) // the first frame
	case mimeWebP:
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("unsupported image type %s", mimeType)
}

// imageFixPNGChecksums returns a copy of a PNG with every chunk's CRC recomputed.
func imageFixPNGChecksums(data []byte) []byte {
	out := bytes.Clone(data)
	for pos := 8; pos+12 <= len(out); {
		n := int(binary.BigEndian.Uint32(out[pos:]))
		end := pos + 8 + n
		if n < 0 || end+4 > len(out) {
			break
		}
		binary.BigEndian.PutUint32(out[end:], crc32.ChecksumIEEE(out[pos+4:end]))
		pos = end + 4
	}
	return out
}

// imageEncodePNG favours speed: the PNG only has to beat the JPEG when the image suits PNG (flat
// colours, text), where even the fastest level compresses well.
func imageEncodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil
	}
	return buf.Bytes()
}

func imageEncodeJPEG(img image.Image, quality int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil
	}
	return buf.Bytes()
}

// LoadImageFile reads path for an `@file` argument. isImage is false for anything that is not a
// JPEG/PNG/GIF/WebP/BMP by its magic bytes (the caller inlines it as text). For an image, img is the
// block to attach (a BMP converted to PNG, resized to pi's limits unless noResize) and note pi's hints
// (conversion, dimensions; "" when there are none); when the image cannot be sent, img is nil and
// note says why.
func LoadImageFile(path string, noResize bool) (img *provider.Content, note string, isImage bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", false, err
	}
	head := make([]byte, imageSniffBytes)
	n, err := io.ReadFull(f, head)
	f.Close()
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, "", false, err
	}
	mime := imageMIMEType(head[:n])
	if mime == "" {
		return nil, "", false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", true, err
	}
	var hints []string
	if mime == mimeBMP {
		png, ok := imageBMPToPNG(data)
		if !ok {
			return nil, "[Image omitted: could not be converted to a supported inline image format.]", true, nil
		}
		data, mime = png, mimePNG
		hints = append(hints, "[Image converted from image/bmp to image/png.]")
	}
	if noResize {
		c := provider.ImageContent(base64.StdEncoding.EncodeToString(data), mime)
		return &c, strings.Join(hints, "\n"), true, nil
	}
	fitted := imageFit(data, mime, imageDefaultLimits())
	if fitted == nil {
		return nil, "[Image omitted: could not be resized below the inline image size limit.]", true, nil
	}
	if dim := imageDimensionNote(fitted); dim != "" {
		hints = append(hints, dim)
	}
	c := provider.ImageContent(fitted.data, fitted.mimeType)
	return &c, strings.Join(hints, "\n"), true, nil
}
