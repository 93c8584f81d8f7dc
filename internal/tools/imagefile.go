package tools

import (
	"encoding/base64"
	"io"
	"os"

	"github.com/pi-go/pi-go/internal/provider"
)

// LoadImageFile reads path for an `@file` argument. isImage is false for anything that is not a
// JPEG/PNG/GIF/WebP by its magic bytes (the caller inlines it as text). For an image, img is the block
// to attach (resized to pi's limits unless noResize) and note pi's dimension note ("" when unchanged);
// img is nil when the image cannot be brought under the size limit.
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
	if noResize {
		c := provider.ImageContent(base64.StdEncoding.EncodeToString(data), mime)
		return &c, "", true, nil
	}
	fitted := imageFit(data, mime, imageDefaultLimits())
	if fitted == nil {
		return nil, "", true, nil
	}
	c := provider.ImageContent(fitted.data, fitted.mimeType)
	return &c, imageDimensionNote(fitted), true, nil
}
