package compaction

import (
	"bytes"
	"testing"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// A string already written as JSON.stringify writes it is copied as it is; every string must come out
// as decoding and writing it again would.
func checkAppendStr(t *testing.T, raw []byte) {
	t.Helper()
	ref := jsonParser{data: raw}
	s, refErr := ref.str()
	fast := jsonParser{data: raw}
	got, err := fast.appendStr(nil)
	if (err == nil) != (refErr == nil) {
		t.Fatalf("%q: error %v, reference %v", raw, err, refErr)
	}
	if err != nil {
		return
	}
	if want := jsonx.AppendString(nil, s); !bytes.Equal(got, want) || fast.pos != ref.pos {
		t.Fatalf("%q: wrote %q (to %d), want %q (to %d)", raw, got, fast.pos, want, ref.pos)
	}
}

var appendStrSeeds = []string{`"plain"`, `"a\"b\\c\nd\re\tf\bg\fh"`, `"\u0001\u001f\u000a\u000A\u0041\u2028\ud83d\ude00\ud800"`,
	`"\/"`, "\"caf\xc3\xa9 \xff \xef\xbf\xbd\"", "\"tab\there\"", `"unterminated`, `"\`, `"\u00`, `""`, `"x" tail`}

func TestAppendStrMatchesDecodeAndWrite(t *testing.T) {
	for _, s := range appendStrSeeds {
		checkAppendStr(t, []byte(s))
	}
}

func FuzzAppendStr(f *testing.F) {
	for _, s := range appendStrSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAppendStr(t, append([]byte{'"'}, body...))
	})
}
