package jsonx

import (
	"math/rand"
	"strings"
	"testing"
)

// benchText is code-like text of about n bytes: words, quotes, backslashes, tabs and newlines (escaped
// in JSON), some non-ASCII; the mix of a coding session's messages.
func benchText(n int) string {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields(`func main() { return err != nil if := range for _, v fmt.Println("hello") x.y = z
		// comment the of to and a in is it that package import struct type map[string]int
		ok total += n; "quoted" 'c' path\to\file.go:42 error: failed café naïve 日本 → ✓`)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		switch r.Intn(10) {
		case 0:
			b.WriteString("\n\t")
		case 1:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

var benchStrings = map[string]string{
	"short": "toolCall",
	"code":  benchText(10 << 10),
	"prose": strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200),
	"cjk":   strings.Repeat("日本語のテキストです。", 200),
}

func BenchmarkAppendString(b *testing.B) {
	for _, name := range []string{"short", "code", "prose", "cjk"} {
		s := benchStrings[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			buf := make([]byte, 0, 2*len(s)+16)
			for b.Loop() {
				buf = AppendString(buf[:0], s)
			}
		})
	}
}

func BenchmarkUnquote(b *testing.B) {
	for _, name := range []string{"short", "code", "prose", "cjk"} {
		lit := AppendString(nil, benchStrings[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(lit)))
			var buf []byte
			for b.Loop() {
				var err error
				if buf, _, err = Unquote(buf[:0], lit, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
