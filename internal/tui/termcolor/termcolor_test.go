package termcolor

import (
	"testing"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		bg, fg *theme.RGB
		done   bool
	}{
		{"\x1b]11;rgb:0000/0000/0000\x07\x1b]10;rgb:ffff/ffff/ffff\x07\x1b[?62;22c", &theme.RGB{}, &theme.RGB{R: 255, G: 255, B: 255}, true},
		{"\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\", &theme.RGB{R: 0xfd, G: 0xf6, B: 0xe3}, nil, false},
		{"\x1b]11;rgb:8/8/8\x07\x1b[?1;2c", &theme.RGB{R: 136, G: 136, B: 136}, nil, true},
		{"\x1b]11;#282c34\x07", &theme.RGB{R: 0x28, G: 0x2c, B: 0x34}, nil, false},
		{"\x1b]11;rgba:1e1e/1e1e/2e2e/ffff\x07", &theme.RGB{R: 0x1e, G: 0x1e, B: 0x2e}, nil, false},
		{"\x1b[?6c", nil, nil, true}, // a terminal without OSC 11
		{"\x1b]11;rgb:zz/00/00\x07", nil, nil, false},
		{"\x1b]11;rgb:ffff/ff", nil, nil, false}, // not complete yet
	}
	for _, tt := range tests {
		bg, fg, done := parse([]byte(tt.in))
		if !same(bg, tt.bg) || !same(fg, tt.fg) || done != tt.done {
			t.Errorf("parse(%q) = %v, %v, %v; want %v, %v, %v", tt.in, bg, fg, done, tt.bg, tt.fg, tt.done)
		}
	}
}

func same(a, b *theme.RGB) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
