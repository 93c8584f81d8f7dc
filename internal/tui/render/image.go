package render

import (
	"encoding/base64"
	"encoding/binary"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/termimage"
)

// imageHeadBytes is how much of an image is decoded to find its size: PNG, GIF and WebP keep it in
// the first 30 bytes; JPEG after its metadata segments, which this usually covers.
const imageHeadBytes = 64 << 10

// imagePlaceholder is pi's one-line stand-in for an image block, "[Image: [image/png] 640x480]"
// (the size is left out when it cannot be read).
func imagePlaceholder(c provider.Content) string {
	mime := c.MimeType
	if mime == "" {
		mime = "image/unknown"
	}
	w, h, ok := imageSize(c.Data, mime)
	return termimage.Fallback(mime, w, h, ok)
}

// ImageSize reads the pixel size from the header of base64 image data; ok is false when it cannot.
func ImageSize(data, mime string) (w, h int, ok bool) { return imageSize(data, mime) }

// imageSize reads the pixel size from the header of base64 image data.
func imageSize(data, mime string) (w, h int, ok bool) {
	n := min(len(data), base64.StdEncoding.EncodedLen(imageHeadBytes))
	n -= n % 4
	buf, err := base64.StdEncoding.DecodeString(strings.TrimRight(data[:n], "\n"))
	if err != nil && len(buf) == 0 {
		return 0, 0, false
	}
	switch mime {
	case "image/png":
		if len(buf) >= 24 && string(buf[1:4]) == "PNG" {
			return int(binary.BigEndian.Uint32(buf[16:])), int(binary.BigEndian.Uint32(buf[20:])), true
		}
	case "image/gif":
		if len(buf) >= 10 && (string(buf[:6]) == "GIF87a" || string(buf[:6]) == "GIF89a") {
			return int(binary.LittleEndian.Uint16(buf[6:])), int(binary.LittleEndian.Uint16(buf[8:])), true
		}
	case "image/jpeg":
		return jpegSize(buf)
	case "image/webp":
		return webpSize(buf)
	}
	return 0, 0, false
}

func jpegSize(b []byte) (int, int, bool) {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 {
		return 0, 0, false
	}
	for i := 2; i+9 < len(b); {
		if b[i] != 0xff {
			i++
			continue
		}
		marker := b[i+1]
		// SOF0..SOF15 carry the size, except DHT (c4), JPG (c8) and DAC (cc).
		if marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc {
			return int(binary.BigEndian.Uint16(b[i+7:])), int(binary.BigEndian.Uint16(b[i+5:])), true
		}
		size := int(binary.BigEndian.Uint16(b[i+2:]))
		if size < 2 {
			return 0, 0, false
		}
		i += 2 + size
	}
	return 0, 0, false
}

func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8 ":
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff), true
	case "VP8L":
		bits := binary.LittleEndian.Uint32(b[21:])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	case "VP8X":
		w := int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w + 1, h + 1, true
	}
	return 0, 0, false
}
