package jsonx

import (
	"strings"
	"testing"
)

var benchStrings = map[string]string{
	"short": "toolCall",
	"code":  strings.Repeat("func main() {\n\tfmt.Println(\"hello, wörld\") // a \\ b\n}\n", 200),
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
