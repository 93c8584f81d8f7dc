package rpc

import (
	"errors"
	"strings"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// A command line is checked by checkJSON before its fields are read, so the fields can be cut out of
// the text in one pass instead of through encoding/json, which validates every nested value again:
// a prompt with a large image is read at memory speed. Every function here still fails cleanly on
// malformed input instead of trusting it.

var errMalformed = errors.New("malformed JSON")

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just after the JSON value that starts at s[i].
func skipValue(s string, i int) (int, error) {
	if i >= len(s) {
		return 0, errMalformed
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				end, err := skipString(s, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errMalformed
	}
	start := i
	for i < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[i])) {
		i++
	}
	if i == start {
		return 0, errMalformed
	}
	return i, nil
}

// skipString returns the index just after the string whose opening quote is s[i].
func skipString(s string, i int) (int, error) {
	i++
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return 0, errMalformed
		}
		end := i + j
		backslashes := 0
		for k := end - 1; k >= i && s[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
}

// splitObject returns the members of the object s as raw JSON values; a repeated key keeps its last
// value, as JSON.parse does.
func splitObject(s string) (map[string]string, error) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return nil, errMalformed
	}
	out := map[string]string{}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return out, nil
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return nil, errMalformed
		}
		end, err := skipString(s, i)
		if err != nil {
			return nil, err
		}
		key, ok := unquoteJSON(s[i:end])
		if !ok {
			return nil, errMalformed
		}
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return nil, errMalformed
		}
		i = skipSpace(s, i+1)
		end, err = skipValue(s, i)
		if err != nil {
			return nil, err
		}
		out[key] = s[i:end]
		i = skipSpace(s, end)
		if i >= len(s) {
			return nil, errMalformed
		}
		if s[i] == '}' {
			return out, nil
		}
		if s[i] != ',' {
			return nil, errMalformed
		}
		i = skipSpace(s, i+1)
	}
}

// splitArray returns the elements of the array s as raw JSON values.
func splitArray(s string) ([]string, error) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return nil, errMalformed
	}
	var out []string
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return out, nil
	}
	for {
		end, err := skipValue(s, i)
		if err != nil {
			return nil, err
		}
		out = append(out, s[i:end])
		i = skipSpace(s, end)
		if i >= len(s) {
			return nil, errMalformed
		}
		if s[i] == ']' {
			return out, nil
		}
		if s[i] != ',' {
			return nil, errMalformed
		}
		i = skipSpace(s, i+1)
	}
}

// unquoteJSON decodes a JSON string literal. A lone surrogate escape, which a Go string cannot hold,
// becomes U+FFFD.
func unquoteJSON(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body, true
	}
	// body is only read and out is new, so neither is copied to change its type.
	out, ok := jsonx.AppendUnquoted(make([]byte, 0, len(body)), unsafe.Slice(unsafe.StringData(body), len(body)))
	if !ok {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}
