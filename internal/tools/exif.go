package tools

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"
)

// imageEXIFOrientation reads the EXIF orientation (1-8) of a JPEG or WebP file; 1 when there is none.
// Like pi, only the first APP1 segment of a JPEG is considered.
func imageEXIFOrientation(data []byte) int {
	tiff := -1
	switch {
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xD8:
		tiff = imageJPEGTIFFOffset(data)
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		tiff = imageWebPTIFFOffset(data)
	}
	if tiff < 0 {
		return 1
	}
	return imageTIFFOrientation(data, tiff)
}

var imageExifHeader = []byte("Exif\x00\x00")

func imageJPEGTIFFOffset(data []byte) int {
	for pos := 2; pos < len(data)-1; {
		if data[pos] != 0xFF {
			return -1
		}
		marker := data[pos+1]
		switch {
		case marker == 0xFF: // fill byte
			pos++
			continue
		case marker == 0xDA || marker == 0xD9: // image data or end: no EXIF before it
			return -1
		case marker == 0xE1:
			start := pos + 4
			if start+6 > len(data) || !bytes.Equal(data[start:start+6], imageExifHeader) {
				return -1
			}
			return start + 6
		}
		if pos+4 > len(data) {
			return -1
		}
		pos += 2 + int(binary.BigEndian.Uint16(data[pos+2:]))
	}
	return -1
}

func imageWebPTIFFOffset(data []byte) int {
	for pos := 12; pos+8 <= len(data); {
		id := string(data[pos : pos+4])
		size := int(binary.LittleEndian.Uint32(data[pos+4:]))
		start := pos + 8
		if size < 0 || start+size > len(data) {
			return -1
		}
		if id == "EXIF" {
			// Some files put "Exif\0\0" before the TIFF header.
			if size >= 6 && bytes.Equal(data[start:start+6], imageExifHeader) {
				return start + 6
			}
			return start
		}
		pos = start + size + size%2 // chunks are padded to even sizes
	}
	return -1
}

func imageTIFFOrientation(data []byte, tiff int) int {
	if tiff+8 > len(data) {
		return 1
	}
	var order binary.ByteOrder = binary.BigEndian
	if data[tiff] == 'I' && data[tiff+1] == 'I' {
		order = binary.LittleEndian
	}
	ifd := tiff + int(order.Uint32(data[tiff+4:]))
	if ifd < tiff || ifd+2 > len(data) {
		return 1
	}
	count := int(order.Uint16(data[ifd:]))
	for i := range count {
		entry := ifd + 2 + i*12
		if entry+12 > len(data) {
			return 1
		}
		if order.Uint16(data[entry:]) == 0x0112 {
			if v := int(order.Uint16(data[entry+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// imageOrient turns src upright according to an EXIF orientation.
func imageOrient(src image.Image, orientation int) image.Image {
	if orientation <= 1 || orientation > 8 {
		return src
	}
	b := src.Bounds()
	in := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(in, in.Bounds(), src, b.Min, draw.Src)
	w, h := b.Dx(), b.Dy()
	ow, oh := w, h
	if orientation >= 5 {
		ow, oh = h, w
	}
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	for y := range oh {
		for x := range ow {
			var sx, sy int
			switch orientation {
			case 2: // mirrored
				sx, sy = w-1-x, y
			case 3: // upside down
				sx, sy = w-1-x, h-1-y
			case 4: // mirrored upside down
				sx, sy = x, h-1-y
			case 5: // transposed
				sx, sy = y, x
			case 6: // turned a quarter clockwise
				sx, sy = y, h-1-x
			case 7: // transversed
				sx, sy = w-1-y, h-1-x
			case 8: // turned a quarter anticlockwise
				sx, sy = w-1-y, x
			}
			copy(out.Pix[out.PixOffset(x, y):out.PixOffset(x, y)+4], in.Pix[in.PixOffset(sx, sy):in.PixOffset(sx, sy)+4])
		}
	}
	return out
}
