package provider

import (
	"encoding/json"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

var emptyObject = json.RawMessage("{}")

// RepairJSONObject turns the arguments of a tool call that is still streaming into a valid JSON
// object: complete input is returned as it is; strings holding raw control characters or invalid
// escapes (as some local models write them) are repaired as pi does; incomplete input is closed (open
// string, arrays and objects) after dropping a trailing member that cannot be completed. Anything that
// is not an object gives "{}". It never fails.
func RepairJSONObject(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" || s[0] != '{' {
		return emptyObject
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	repaired, changed := repairJSONStrings(s)
	if changed && json.Valid([]byte(repaired)) {
		return json.RawMessage(repaired)
	}
	// A repaired text only differs in strings that could not be valid, so it is the one to close.
	if out, ok := closeObject(repaired); ok {
		return out
	}
	return emptyObject
}

// closeObject completes an incomplete object, dropping trailing members that cannot be completed.
func closeObject(s string) (json.RawMessage, bool) {
	cur := s
	for attempt := 0; attempt < 8 && cur != ""; attempt++ {
		closed, cut := closeJSON(cur)
		if closed != "" && json.Valid([]byte(closed)) {
			return json.RawMessage(closed), true
		}
		if cut <= 0 || cut >= len(cur) {
			break
		}
		cur = cur[:cut]
	}
	return nil, false
}

// closeJSON appends what an incomplete JSON text needs to be complete, and returns the position of the
// last structural boundary (after '{', '[' or before a ',' outside strings), where the text can be cut
// to drop a member that cannot be completed.
func closeJSON(s string) (closed string, cut int) {
	var stack []byte
	inString, escaped := false, false
	cut = -1
	lastEscapeStart := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
				lastEscapeStart = i
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, c)
			cut = i + 1
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			cut = i
		}
	}
	var b strings.Builder
	body := s
	if inString {
		// Drop an escape sequence that was cut in half.
		if escaped {
			body = body[:len(body)-1]
		} else if lastEscapeStart >= 0 && lastEscapeStart+1 < len(body) && body[lastEscapeStart+1] == 'u' &&
			len(body)-lastEscapeStart < 6 {
			body = body[:lastEscapeStart]
		}
		b.WriteString(body)
		b.WriteByte('"')
	} else {
		body = strings.TrimRight(body, " \t\r\n")
		body = strings.TrimSuffix(body, ",")
		b.WriteString(body)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.String(), cut
}

// repairJSONStrings fixes string literals the way pi's repairJson does: raw control characters are
// escaped, and a backslash that does not start a valid escape is doubled (kept as a character).
func repairJSONStrings(s string) (string, bool) {
	needs := false
	inString := false
	for i := 0; i < len(s) && !needs; i++ {
		c := s[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			// A backslash at the very end is an escape cut by streaming: the closer drops it.
			if i+1 < len(s) && !validEscape(s, i) {
				needs = true
			}
			i++
		case c < 0x20:
			needs = true
		}
	}
	if !needs {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	inString = false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !inString {
			b.WriteByte(c)
			inString = c == '"'
			continue
		}
		switch {
		case c == '"':
			b.WriteByte(c)
			inString = false
		case c == '\\' && i+1 == len(s):
			b.WriteByte(c)
		case c == '\\':
			if validEscape(s, i) {
				n := 2
				if s[i+1] == 'u' && i+6 <= len(s) && isHex4(s[i+2:i+6]) {
					n = 6
				}
				b.WriteString(s[i : i+n])
				i += n - 1
			} else {
				b.WriteString(`\\`)
			}
		case c < 0x20:
			var esc [6]byte
			b.Write(jsonx.AppendEscaped(esc[:0], s[i:i+1]))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// validEscape reports whether the backslash at s[i] starts an escape JSON allows (\u needs four hex
// digits only when they are all there; a cut-off \u is left for the closer to drop).
func validEscape(s string, i int) bool {
	switch s[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
		return true
	}
	return false
}

func isHex4(s string) bool {
	return jsonx.IsHex(s[0]) && jsonx.IsHex(s[1]) && jsonx.IsHex(s[2]) && jsonx.IsHex(s[3])
}
