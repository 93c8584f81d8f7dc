package rpc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllLines(t *testing.T, r io.Reader, max int) (lines []string, tooLong []int64) {
	t.Helper()
	lr := newLineReader(r, max)
	for {
		line, size, long, err := lr.next()
		if errors.Is(err, io.EOF) {
			return lines, tooLong
		}
		if err != nil {
			t.Fatal(err)
		}
		if long {
			tooLong = append(tooLong, size)
			lines = append(lines, "<too long>")
			continue
		}
		lines = append(lines, string(line))
	}
}

func TestLineReaderFraming(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"lf", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"only one cr is stripped", "a\r\r\n", []string{"a\r"}},
		{"cr alone is not a separator", "a\rb\n", []string{"a\rb"}},
		{"unicode separators are characters", "{\"m\":\"x\u2028y\u2029z\"}\n", []string{"{\"m\":\"x\u2028y\u2029z\"}"}},
		{"last line without lf", "a\nb", []string{"a", "b"}},
		{"last line is a lone cr", "a\n\r", []string{"a", ""}},
		{"empty lines are records", "\n\r\n", []string{"", ""}},
		{"nothing", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
				got, _ := readAllLines(t, r, 1<<20)
				if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
					t.Errorf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestLineReaderTooLong(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	in := "ok\n" + long + "\r\n" + strings.Repeat("y", 100) + "\r\n" + long
	got, sizes := readAllLines(t, strings.NewReader(in), 100)
	want := []string{"ok", "<too long>", strings.Repeat("y", 100), "<too long>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q", got)
	}
	if len(sizes) != 2 || sizes[0] != 200_001 || sizes[1] != 200_000 {
		t.Errorf("sizes %v", sizes)
	}
}

func TestDecodeUTF8MaximalSubparts(t *testing.T) {
	cases := map[string]string{
		"a\xffb":         "a\uFFFDb",
		"\xe2\x82A":      "\uFFFDA", // a truncated three-byte sequence is one replacement
		"\xf0\x9f\x98":   "\uFFFD",
		"\xed\xa0\x80":   "\uFFFD\uFFFD\uFFFD", // an encoded surrogate is three bad bytes
		"\xc0\xaf":       "\uFFFD\uFFFD",
		"ok \u2028 \xef": "ok \u2028 \uFFFD",
		"\uFFFD":         "\uFFFD",
	}
	for in, want := range cases {
		if got := decodeUTF8([]byte(in)); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
