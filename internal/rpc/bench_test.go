package rpc

import (
	"encoding/base64"
	"strings"
	"testing"
)

// BenchmarkParseCommandLine measures what every input line costs before its command runs: UTF-8
// decoding, the JSON.parse-compatible check and the decoding of the fields, for a prompt carrying a
// 1 MB image.
func BenchmarkParseCommandLine(b *testing.B) {
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG-ish bytes ", 1<<16)))[:1<<20]
	line := []byte(`{"id":"req-1","type":"prompt","message":"What is in this picture? ünïcödé \u2028 ok",` +
		`"images":[{"type":"image","data":"` + img + `","mimeType":"image/png"}]}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		text := decodeUTF8(line)
		if err := checkJSON(text); err != nil {
			b.Fatal(string(appendJSONUTF16(nil, err.jsMessage(text))))
		}
		c, resp := parseCommand(text)
		if resp != nil || c == nil {
			b.Fatal("not a command")
		}
		if _, err := c.images(); err != nil {
			b.Fatal(err)
		}
	}
}
