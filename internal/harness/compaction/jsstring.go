package compaction

import (
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// pi measures and cuts text in JavaScript string units (UTF-16 code units) and writes tool arguments
// with JSON.stringify. The helpers here reproduce both, so that token estimates, truncation points and
// the serialised conversation are the ones pi computes for the same session.

// jsLen is the JavaScript length of s: its number of UTF-16 code units.
func jsLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b < 0x80:
			n++
		case b&0xC0 == 0x80: // continuation byte
		case b >= 0xF0: // four-byte sequence: a surrogate pair
			n += 2
		default:
			n++
		}
	}
	return n
}

// jsSliceHead returns at most the first n UTF-16 code units of s without splitting a surrogate pair
// (pi 1.6's sliceHead): a character the limit falls inside is left out whole. (pi 0.73.1 kept its lone
// first half, which reached the server as U+FFFD.)
func jsSliceHead(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// jsLess orders strings as JavaScript's default sort does: by UTF-16 code units.
func jsLess(a, b string) bool {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) < len(b)
	}
	// back up to the start of the character that differs (both strings share the bytes before i)
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return utf16Lead(ra) < utf16Lead(rb) || (utf16Lead(ra) == utf16Lead(rb) && ra < rb)
}

// utf16Lead is the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + ((r - 0x10000) >> 10)
	}
	return r
}

// sortJS sorts ss in place as Array.prototype.sort() with no comparator.
func sortJS(ss []string) { sort.Slice(ss, func(i, j int) bool { return jsLess(ss[i], ss[j]) }) }

// jsMember is one property of an object as JSON.parse creates it: its key and its value written by
// JSON.stringify.
type jsMember struct {
	key   string
	value []byte
}

var errJSON = errors.New("invalid JSON")

// jsObjectEntries returns Object.entries(JSON.parse(raw)) with each value JSON.stringify'd, in
// JavaScript's property order: array-index keys ("0", "7", ...) first in numeric order, then the
// others in order of first appearance; a repeated key keeps its first place and its last value.
func jsObjectEntries(raw []byte) ([]jsMember, error) {
	p := jsonParser{data: raw}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return nil, errJSON
	}
	members, err := p.object()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, errJSON
	}
	return members, nil
}

// jsStringify is JSON.stringify(JSON.parse(raw)).
func jsStringify(raw []byte) ([]byte, error) {
	p := jsonParser{data: raw}
	out, err := p.value(nil)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, errJSON
	}
	return out, nil
}

// jsonParser re-writes JSON values as JavaScript would after a parse/stringify round trip.
type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value appends the stringified value at p.pos to dst.
func (p *jsonParser) value(dst []byte) ([]byte, error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, errJSON
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		members, err := p.object()
		if err != nil {
			return nil, err
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendString(dst, m.key)
			dst = append(dst, ':')
			dst = append(dst, m.value...)
		}
		return append(dst, '}'), nil
	case c == '[':
		p.pos++
		dst = append(dst, '[')
		p.skipSpace()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return append(dst, ']'), nil
		}
		for first := true; ; first = false {
			if !first {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = p.value(dst); err != nil {
				return nil, err
			}
			p.skipSpace()
			if p.pos >= len(p.data) {
				return nil, errJSON
			}
			if p.data[p.pos] == ']' {
				p.pos++
				return append(dst, ']'), nil
			}
			if p.data[p.pos] != ',' {
				return nil, errJSON
			}
			p.pos++
		}
	case c == '"':
		return p.appendStr(dst)
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	default:
		return p.number(dst)
	}
}

func (p *jsonParser) literal(dst []byte, lit string) ([]byte, error) {
	if len(p.data)-p.pos < len(lit) || string(p.data[p.pos:p.pos+len(lit)]) != lit {
		return nil, errJSON
	}
	p.pos += len(lit)
	return append(dst, lit...), nil
}

// number writes a JSON number as JavaScript prints the double it parses to.
func (p *jsonParser) number(dst []byte) ([]byte, error) {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	text := string(p.data[start:p.pos])
	if text == "" || !json.Valid([]byte(text)) {
		return nil, errJSON
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, errJSON
	}
	return jsonx.AppendNumber(dst, f), nil
}

// skipValue moves past the value at p.pos, to the ',', '}' or ']' that follows it, without decoding
// it; false when the input ends first.
func (p *jsonParser) skipValue() bool {
	depth := 0
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '"':
			p.pos++
			for p.pos < len(p.data) && p.data[p.pos] != '"' {
				if p.data[p.pos] == '\\' {
					p.pos++
				}
				p.pos++
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
		case ',':
			if depth == 0 {
				return true
			}
		}
		p.pos++
	}
	return false
}

// appendStr appends the string at p.pos as it is written after a parse/stringify round trip. A string
// already in that form (the usual case: pi and pi-go write tool arguments so) is copied as it is;
// any other is decoded and written again.
func (p *jsonParser) appendStr(dst []byte) ([]byte, error) {
	d := p.data
	for i := p.pos + 1; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			dst = append(dst, d[p.pos:i+1]...)
			p.pos = i + 1
			return dst, nil
		case c == '\\' && i+1 < len(d) && canonicalEscape(d[i+1:]):
			if d[i+1] == 'u' {
				i += 6
			} else {
				i += 2
			}
			continue
		case c >= 0x20 && c < utf8.RuneSelf && c != '\\':
			i++
			continue
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRune(d[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		break // anything else: decode and write again
	}
	s, err := p.str()
	if err != nil {
		return nil, err
	}
	return jsonx.AppendString(dst, s), nil
}

// canonicalEscape reports whether the escape after a backslash (esc) is one JSON.stringify writes:
// \" \\ \n \r \t \b \f, or \u00xx (lower-case hex) for another control character.
func canonicalEscape(esc []byte) bool {
	switch esc[0] {
	case '"', '\\', 'n', 'r', 't', 'b', 'f':
		return true
	case 'u':
		if len(esc) < 5 || esc[1] != '0' || esc[2] != '0' || (esc[3] != '0' && esc[3] != '1') {
			return false
		}
		h := esc[4]
		var v byte
		switch {
		case h >= '0' && h <= '9':
			v = h - '0'
		case h >= 'a' && h <= 'f':
			v = h - 'a' + 10
		default:
			return false
		}
		v += (esc[3] - '0') << 4
		return v != '\b' && v != '\t' && v != '\n' && v != '\f' && v != '\r'
	}
	return false
}

// str reads a JSON string at p.pos. One without escapes is taken as it is; one with escapes is
// decoded as JSON.parse (and encoding/json) decodes it.
func (p *jsonParser) str() (string, error) {
	start := p.pos
	for p.pos++; p.pos < len(p.data); p.pos++ {
		switch p.data[p.pos] {
		case '\\':
			out, end, err := jsonx.Unquote(nil, p.data, start)
			if err != nil {
				return "", errJSON
			}
			p.pos = end
			return string(out), nil
		case '"':
			p.pos++
			return string(p.data[start+1 : p.pos-1]), nil
		}
	}
	return "", errJSON
}

// object reads an object at p.pos into its members in JavaScript's property order.
func (p *jsonParser) object() ([]jsMember, error) {
	p.pos++ // {
	var members []jsMember
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return members, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, errJSON
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, errJSON
		}
		p.pos++
		val, err := p.value(nil)
		if err != nil {
			return nil, err
		}
		members = setMember(members, key, val)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errJSON
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		if p.data[p.pos] != ',' {
			return nil, errJSON
		}
		p.pos++
	}
	return orderMembers(members), nil
}

// setMember adds a property, or replaces the value of a repeated one in place.
func setMember(members []jsMember, key string, val []byte) []jsMember {
	for i := range members {
		if members[i].key == key {
			members[i].value = val
			return members
		}
	}
	return append(members, jsMember{key, val})
}

// orderMembers moves array-index keys to the front in ascending numeric order, as JavaScript
// enumerates an object's own properties.
func orderMembers(members []jsMember) []jsMember {
	n := 0
	for _, m := range members {
		if _, ok := arrayIndex(m.key); ok {
			n++
		}
	}
	if n == 0 {
		return members
	}
	out := make([]jsMember, 0, len(members))
	for _, m := range members {
		if _, ok := arrayIndex(m.key); ok {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := arrayIndex(out[i].key)
		b, _ := arrayIndex(out[j].key)
		return a < b
	})
	for _, m := range members {
		if _, ok := arrayIndex(m.key); !ok {
			out = append(out, m)
		}
	}
	return out
}

// arrayIndex reports whether key is the canonical form of an array index (0 … 2³²−2).
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, v < math.MaxUint32
}
