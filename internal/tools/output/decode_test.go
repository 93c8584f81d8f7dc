package output

import (
	"strings"
	"testing"
)

func TestDecoderMatchesTextDecoder(t *testing.T) {
	// Expected values are what Node's TextDecoder produces.
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xe2\x82", "\uFFFD"},
		{"\xe2\x82a", "\uFFFDa"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98\x80", "\U0001F600"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},
	}
	for _, tc := range tests {
		if got := LossyString([]byte(tc.in)); got != tc.want {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
		// Byte by byte through the streaming decoder gives the same text.
		var d Decoder
		var out strings.Builder
		for i := 0; i < len(tc.in); i++ {
			out.Write(d.Decode([]byte{tc.in[i]}, false))
		}
		out.Write(d.Decode(nil, true))
		if out.String() != tc.want {
			t.Errorf("%q streamed: got %q want %q", tc.in, out.String(), tc.want)
		}
	}
}
