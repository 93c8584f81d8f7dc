package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// scanSeeds are JSON texts, valid and not, that reach every branch of the scanner.
var scanSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{"a":[1,2.5e-3,-0,true,false,null]}}],"usage":{"input":1,"cost":{"total":1e-7}}}`,
	` { "a" : [ ] , "b" : { } , "c" : [ 1 , 2 ] } `, `[]`, `{}`, `""`, `null`, `true`, `false`, `0`, `-0`, `-0.5e-3`,
	`1E+2`, `123456789012345`, `1234567890123456789`, `1e400`, `-1e400`, `1e-400`, `"\ud83d\ude00\ud800x\u00e9\"\\\/\b\f\n\r\t"`,
	"\"caf\xc3\xa9 \xff \xe2\x82\"", `{"a":"b","a":"c"}`, `{"\u0061":1,"a\nb":2}`, "{\"\xff\":1}",
	`[1,[2,[3,{"x":[4]}]]]`, `{"a":1}{`, `[1] x`, `[1,]`, `[,1]`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":}`, `{1:2}`,
	`{"a":1 "b":2}`, `[1 2]`, `tru`, `trux`, `nul`, `fals`, `-`, `-a`, `01`, `1.`, `1.a`, `1e`, `1e+`, `1ex`, `.5`,
	`+1`, `"abc`, `"\x"`, `"\u12"`, `"\u12z4"`, "\"a\x01b\"", `"\`, `"\u`, `"\ud800\u12`, `[`, `{`, `{"a"`, `{"a":`,
	`{"a":1`, `[1`, `[1,`, ``, ` `, "\x00", "[\x00]", `}`, `]`, `:`, `,`, "\t\r\n 1 \t\r\n",
	`"` + strings.Repeat(`a\n`, 40000) + `"`, `"` + strings.Repeat("日本", 40000) + `\u00e9"`,
	`[` + strings.Repeat(`"0123456789",`, 10000) + `1]`,
}

// decodeRef is what encoding/json makes of data: its value (numbers as float64, out of range ones as
// ±Inf, as JSON.parse reads them) or its syntax error.
func decodeRef(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, syn
		}
		// A number out of float64's range: read again with json.Number.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		return numbersToFloats(v), nil
	}
	return v, nil
}

func numbersToFloats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		for i := range x {
			x[i] = numbersToFloats(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbersToFloats(x[k])
		}
	}
	return v
}

// walk builds the value at s's position with the scanner's calls.
func walk(s *Scanner) any {
	switch c := s.Peek(); {
	case c == '{':
		m := map[string]any{}
		s.Object(func(key []byte) {
			k := string(key)
			m[k] = walk(s)
		})
		return m
	case c == '[':
		a := []any{}
		s.Array(func(i int) {
			if i != len(a) {
				s.Fail(errors.New("array index out of step"))
			}
			a = append(a, walk(s))
		})
		return a
	case c == '"':
		return string(s.Str())
	case c == '-' || (c >= '0' && c <= '9'):
		f, _ := s.Number()
		return f
	case c == 't' || c == 'f':
		s.Skip()
		return c == 't'
	}
	s.Skip()
	return nil
}

// inputs gives data to scanners in memory and through readers that cut it everywhere.
func inputs(data []byte) map[string]func(*Scanner) {
	return map[string]func(*Scanner){
		"memory":  func(s *Scanner) { s.Reset(data) },
		"reader":  func(s *Scanner) { s.ResetReader(bytes.NewReader(data), int64(len(data))) },
		"bytes":   func(s *Scanner) { s.ResetReader(iotest.OneByteReader(bytes.NewReader(data)), -1) },
		"halves":  func(s *Scanner) { s.ResetReader(iotest.HalfReader(bytes.NewReader(data)), -1) },
		"dataEOF": func(s *Scanner) { s.ResetReader(iotest.DataErrReader(bytes.NewReader(data)), -1) },
	}
}

// sameError reports whether the scanner's error is encoding/json's for the same input: the same text
// and place, but where encoding/json, which feeds a space at the end of the input, reads a cut
// literal, number or escape as a bad ' '.
func sameError(got error, want *json.SyntaxError, data []byte) bool {
	var se *SyntaxError
	if !errors.As(got, &se) {
		return false
	}
	if se.Error() == "unexpected end of JSON input" {
		return se.Offset == int64(len(data)) && (want.Error() == se.Error() || strings.Contains(want.Error(), "' '"))
	}
	return se.Error() == want.Error() && (se.Error() == "exceeded max depth" || se.Offset+1 == want.Offset)
}

func checkScan(t *testing.T, data []byte) {
	t.Helper()
	want, werr := decodeRef(data)
	var syn *json.SyntaxError
	if werr != nil && !errors.As(werr, &syn) {
		t.Fatalf("%q: encoding/json: %v", data, werr)
	}
	if Valid(data) != (werr == nil) {
		t.Fatalf("%q: Valid = %v, encoding/json: %v", data, Valid(data), werr)
	}
	for name, reset := range inputs(data) {
		var s Scanner
		reset(&s)
		got := walk(&s)
		s.End()
		if werr != nil {
			if !sameError(s.Err(), syn, data) {
				t.Fatalf("%s %.200q: error %v, encoding/json %q at %d", name, data, s.Err(), syn, syn.Offset)
			}
			continue
		}
		if s.Err() != nil {
			t.Fatalf("%s %.200q: %v", name, data, s.Err())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %.200q:\ngot  %#v\nwant %#v", name, data, got, want)
		}
		reset(&s)
		s.Skip()
		s.End()
		if s.Err() != nil {
			t.Fatalf("%s %.200q: Skip: %v", name, data, s.Err())
		}
		reset(&s)
		if raw := s.Raw(); !bytes.Equal(raw, bytes.TrimLeft(data, " \t\r\n")[:len(raw)]) || !json.Valid(raw) {
			t.Fatalf("%s %.200q: Raw = %.200q", name, data, raw)
		}
	}
	if werr != nil {
		return
	}
	// On valid JSON the loose skip ends exactly where the strict one does.
	var s Scanner
	s.Reset(data)
	strict := s
	strict.Skip()
	s.SkipLoose()
	if s.Err() != nil || s.Pos() != strict.Pos() {
		t.Fatalf("%.200q: SkipLoose ends at %d (%v), Skip at %d", data, s.Pos(), s.Err(), strict.Pos())
	}
}

func TestScannerIsEncodingJSON(t *testing.T) {
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
}

// TestScannerTruncated: every prefix of a line is read as encoding/json reads it (a torn session line,
// a chunk cut short).
func TestScannerTruncated(t *testing.T) {
	line := []byte(`{"role":"user","content":[{"type":"text","text":"a\"b\u00e9\ud83d\ude00 x"}],"n":-1.5e+3,"ok":true,"no":null}`)
	for i := range line {
		checkScan(t, line[:i])
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range scanSeeds {
		if len(s) < 4096 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}

func TestScannerDepth(t *testing.T) {
	for _, c := range []struct {
		depth int
		ok    bool
	}{{maxDepth, true}, {maxDepth + 1, false}} {
		for _, open := range []string{"[", `{"a":`} {
			closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
			data := []byte(strings.Repeat(open, c.depth) + "1" + strings.Repeat(closing, c.depth))
			for name, reset := range inputs(data) {
				var s Scanner
				reset(&s)
				walk(&s)
				s.End()
				if (s.Err() == nil) != c.ok || (!c.ok && s.Err().Error() != "exceeded max depth") {
					t.Errorf("%s, %d × %s: %v", name, c.depth, open, s.Err())
				}
			}
			if Valid(data) != c.ok {
				t.Errorf("Valid(%d × %s) = %v", c.depth, open, !c.ok)
			}
		}
	}
}

func TestScannerNumbers(t *testing.T) {
	for lit, want := range map[string]float64{
		"0": 0, "-7": -7, "123456789012345": 123456789012345, "1234567890123456789": 1234567890123456789,
		"2.5": 2.5, "-1e-7": -1e-7, "1E2": 100, "1e400": math.Inf(1), "-1e400": math.Inf(-1), "1e-400": 0,
		"9007199254740993": 9007199254740992,
	} {
		var s Scanner
		s.Reset([]byte(lit))
		if got, ok := s.Number(); !ok || got != want || s.Err() != nil {
			t.Errorf("Number(%s) = %v, %v (%v); want %v", lit, got, ok, s.Err(), want)
		}
	}
	var s Scanner
	s.Reset([]byte(`"1"`))
	if _, ok := s.Number(); ok || s.Err() != nil || s.Pos() != 3 {
		t.Errorf(`Number("1") = %v, %v at %d; want the string skipped`, ok, s.Err(), s.Pos())
	}
}

// TestScannerStrings: strings that stand for their own bytes are views into the input; decoded ones
// stay valid until Reset in memory, until the next string from a reader.
func TestScannerStrings(t *testing.T) {
	data := []byte(`["plain","esc\naped","caf\u00e9",5,"last"]`)
	var s Scanner
	s.Reset(data)
	var got [][]byte
	s.Array(func(int) { got = append(got, s.Str()) })
	if s.Err() != nil || len(got) != 5 || got[3] != nil {
		t.Fatalf("strings %q, %v", got, s.Err())
	}
	for i, want := range []string{"plain", "esc\naped", "café", "", "last"} {
		if string(got[i]) != want {
			t.Errorf("string %d = %q, want %q", i, got[i], want)
		}
	}
	if &got[0][0] != &data[2] {
		t.Error("a plain string is no view into the input")
	}

	long := strings.Repeat("é\n", LongString)
	data = []byte(`{"k":"` + strings.ReplaceAll(long, "\n", `\n`) + `","x":"after"}`)
	s.ResetReader(iotest.HalfReader(bytes.NewReader(data)), int64(len(data)))
	var kept string
	s.Object(func(key []byte) {
		if isK := string(key) == "k"; isK { // the key is let go when the value is read
			kept = s.Detach(s.Str())
		} else {
			s.Skip()
		}
	})
	if s.Err() != nil || kept != long {
		t.Fatalf("detached string of %d bytes, want %d (%v)", len(kept), len(long), s.Err())
	}
}

// TestScannerFail: a caller's error stops the scan where it is given.
func TestScannerFail(t *testing.T) {
	stop := errors.New("enough")
	var s Scanner
	s.Reset([]byte(`{"a":1,"b":2,"c":3}`))
	var keys []string
	ok := s.Object(func(key []byte) {
		keys = append(keys, string(key))
		if s.Skip(); string(key) == "b" {
			s.Fail(stop)
		}
	})
	s.Fail(errors.New("later"))
	if ok || s.Err() != stop || strings.Join(keys, ",") != "a,b" || s.Peek() != 0 {
		t.Fatalf("Object = %v, err %v, keys %v", ok, s.Err(), keys)
	}
}

// TestScannerReadError: what the reader fails with is the scan's error, not a syntax error.
func TestScannerReadError(t *testing.T) {
	boom := errors.New("connection reset")
	var s Scanner
	s.ResetReader(io.MultiReader(strings.NewReader(`{"a":"bc`), iotest.ErrReader(boom)), -1)
	walk(&s)
	if s.Err() != boom {
		t.Fatalf("error %v, want %v", s.Err(), boom)
	}
}

// TestScannerPositions: Pos and Input cut out values, in memory and from a reader.
func TestScannerPositions(t *testing.T) {
	data := []byte(`{"a": [1, 2] ,"b":{"c":"d"}}`)
	for name, reset := range inputs(data) {
		var s Scanner
		reset(&s)
		var spans []string
		s.Object(func([]byte) {
			s.Peek()
			start := s.Pos()
			s.Skip()
			spans = append(spans, string(data[start:s.Pos()]))
		})
		if s.Err() != nil || strings.Join(spans, "|") != `[1, 2]|{"c":"d"}` {
			t.Errorf("%s: spans %q (%v)", name, spans, s.Err())
		}
		if in := s.Input(); (name == "memory") != (in != nil) {
			t.Errorf("%s: Input = %q", name, in)
		}
	}
}
