package provider

import (
	"encoding/json"
	"strings"
)

var emptyObject = json.RawMessage("{}")

// RepairJSONObject turns the arguments of a tool call that is still streaming into a valid JSON
// object: complete input is returned as it is; incomplete input is closed (open string, arrays and
// objects) after dropping a trailing member that cannot be completed. Anything that is not an object
// gives "{}". It never fails.
func RepairJSONObject(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" || s[0] != '{' {
		return emptyObject
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	cur := s
	for attempt := 0; attempt < 8 && cur != ""; attempt++ {
		closed, cut := closeJSON(cur)
		if closed != "" && json.Valid([]byte(closed)) {
			return json.RawMessage(closed)
		}
		if cut <= 0 || cut >= len(cur) {
			break
		}
		cur = cur[:cut]
	}
	return emptyObject
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
