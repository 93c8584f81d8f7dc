package rpc

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// This file reproduces the messages of JSON.parse in Node 20 (V8 11.3), the runtime pi 0.73.1 names
// as its minimum: pi answers an unparseable line with "Failed to parse command: " and that message, so
// a client matching on it sees the same text from pi-go. The checker follows V8's JsonParser step by
// step; positions and quoted context are counted in UTF-16 code units, as JavaScript strings are.

// v8Token is V8's classification of one character (one_char_json_tokens).
type v8Token int

const (
	tokIllegal v8Token = iota
	tokEOS
	tokString
	tokNumber
	tokLiteral // t, f, n
	tokWhitespace
	tokColon
	tokComma
	tokLBrack
	tokRBrack
	tokLBrace
	tokRBrace
)

func classify(c byte) v8Token {
	switch c {
	case '"':
		return tokString
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return tokNumber
	case 't', 'f', 'n':
		return tokLiteral
	case ' ', '\t', '\r', '\n':
		return tokWhitespace
	case ':':
		return tokColon
	case ',':
		return tokComma
	case '[':
		return tokLBrack
	case ']':
		return tokRBrack
	case '{':
		return tokLBrace
	case '}':
		return tokRBrace
	}
	return tokIllegal
}

// V8's message templates that carry a position.
const (
	msgUnexpectedNumber       = "Unexpected number in JSON at position "
	msgUnexpectedString       = "Unexpected string in JSON at position "
	msgExpectedPropOrRBrace   = "Expected property name or '}' in JSON at position "
	msgExpectedCommaOrRBrack  = "Expected ',' or ']' after array element in JSON at position "
	msgExpectedCommaOrRBrace  = "Expected ',' or '}' after property value in JSON at position "
	msgExpectedColon          = "Expected ':' after property name in JSON at position "
	msgExpectedQuotedProp     = "Expected double-quoted property name in JSON at position "
	msgExponentMissing        = "Exponent part is missing a number in JSON at position "
	msgUnterminatedString     = "Unterminated string in JSON at position "
	msgBadControlChar         = "Bad control character in string literal in JSON at position "
	msgBadUnicodeEscape       = "Bad Unicode escape in JSON at position "
	msgBadEscapedChar         = "Bad escaped character in JSON at position "
	msgNoNumberAfterMinus     = "No number after minus sign in JSON at position "
	msgUnterminatedFraction   = "Unterminated fractional number in JSON at position "
	msgNonWhitespaceAfterJSON = "Unexpected non-whitespace character after JSON at position "
	msgUnexpectedEnd          = "Unexpected end of JSON input"
)

// jsonParseError is a failed JSON.parse: the message template (with its position still to add) or,
// for "Unexpected token", the byte offset of the offending character.
type jsonParseError struct {
	template string // "" for the unexpected-token family
	offset   int    // byte offset of the error in the source
}

// v8Parser checks a document the way V8's JsonParser reads it.
type v8Parser struct {
	s string
	i int
}

// checkJSON reports the first error JSON.parse would throw for s, or nil when s is valid JSON.
func checkJSON(s string) *jsonParseError {
	p := &v8Parser{s: s}
	return p.parse()
}

func (p *v8Parser) fail(template string) *jsonParseError {
	return &jsonParseError{template: template, offset: p.i}
}

// unexpected is V8's ReportUnexpectedToken without a specific message.
func (p *v8Parser) unexpected(tok v8Token) *jsonParseError {
	switch tok {
	case tokEOS:
		return &jsonParseError{template: msgUnexpectedEnd, offset: p.i}
	case tokNumber:
		return p.fail(msgUnexpectedNumber)
	case tokString:
		return p.fail(msgUnexpectedString)
	}
	return &jsonParseError{offset: p.i}
}

// unexpectedChar is V8's ReportUnexpectedCharacter for the character at the cursor.
func (p *v8Parser) unexpectedChar() *jsonParseError {
	return p.unexpected(p.peekToken())
}

func (p *v8Parser) peekToken() v8Token {
	if p.i >= len(p.s) {
		return tokEOS
	}
	return classify(p.s[p.i])
}

func (p *v8Parser) skipWhitespace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// expectNext skips whitespace and consumes c, or fails with template.
func (p *v8Parser) expectNext(c byte, template string) *jsonParseError {
	p.skipWhitespace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return nil
	}
	return p.fail(template)
}

// check skips whitespace and consumes c when it is next.
func (p *v8Parser) check(c byte) bool {
	p.skipWhitespace()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *v8Parser) parse() *jsonParseError {
	var stack []byte // '{' or '['
	for {
		// Produce a value.
		p.skipWhitespace()
		switch p.peekToken() {
		case tokString:
			p.i++
			if err := p.scanString(); err != nil {
				return err
			}
		case tokNumber:
			if err := p.scanNumber(); err != nil {
				return err
			}
		case tokLiteral:
			if err := p.scanLiteral(); err != nil {
				return err
			}
		case tokLBrace:
			p.i++
			if p.check('}') {
				break
			}
			stack = append(stack, '{')
			if err := p.propertyKey(msgExpectedPropOrRBrace, true); err != nil {
				return err
			}
			continue
		case tokLBrack:
			p.i++
			if p.check(']') {
				break
			}
			stack = append(stack, '[')
			continue
		default:
			return p.unexpectedChar()
		}

		// Consume the value: close every container it completes.
		for {
			if len(stack) == 0 {
				p.skipWhitespace()
				if p.i < len(p.s) {
					return p.fail(msgNonWhitespaceAfterJSON)
				}
				return nil
			}
			if stack[len(stack)-1] == '{' {
				if p.check(',') {
					if err := p.propertyKey(msgExpectedQuotedProp, false); err != nil {
						return err
					}
					break
				}
				if err := p.expectNext('}', msgExpectedCommaOrRBrace); err != nil {
					return err
				}
			} else {
				if p.check(',') {
					break
				}
				if err := p.expectNext(']', msgExpectedCommaOrRBrack); err != nil {
					return err
				}
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// propertyKey reads `"key" :`, failing with missingKey when no key starts here. V8 names the missing
// colon only after an object's first key; after later keys it reports the token it found.
func (p *v8Parser) propertyKey(missingKey string, first bool) *jsonParseError {
	if err := p.expectNext('"', missingKey); err != nil {
		return err
	}
	if err := p.scanString(); err != nil {
		return err
	}
	if first {
		return p.expectNext(':', msgExpectedColon)
	}
	if p.check(':') {
		return nil
	}
	return p.unexpectedChar()
}

// scanString reads the rest of a string whose opening quote was consumed.
func (p *v8Parser) scanString() *jsonParseError {
	for {
		for p.i < len(p.s) && !stringStop[p.s[p.i]] {
			p.i++
		}
		if p.i >= len(p.s) {
			return p.fail(msgUnterminatedString)
		}
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return p.unexpected(tokEOS)
			}
			switch e := p.s[p.i]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				for k := 0; k < 4; k++ {
					p.i++
					if p.i >= len(p.s) || !jsonx.IsHex(p.s[p.i]) {
						return p.fail(msgBadUnicodeEscape)
					}
				}
				p.i++
			default:
				if e >= utf8.RuneSelf {
					// V8 looks at the UTF-16 unit: Latin-1 characters are illegal escapes, anything
					// beyond is reported as an unexpected token.
					if r, _ := utf8.DecodeRuneInString(p.s[p.i:]); r > 0xFF {
						return p.unexpected(tokIllegal)
					}
				}
				return p.fail(msgBadEscapedChar)
			}
		default:
			return p.fail(msgBadControlChar)
		}
	}
}

// stringStop marks the bytes that end a run of plain string characters.
var stringStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *v8Parser) digitAt() bool { return p.i < len(p.s) && isDigit(p.s[p.i]) }

func (p *v8Parser) scanNumber() *jsonParseError {
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
		if p.digitAt() {
			return p.unexpected(tokNumber)
		}
	} else {
		if !p.digitAt() {
			return p.fail(msgNoNumberAfterMinus)
		}
		for p.digitAt() {
			p.i++
		}
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digitAt() {
			return p.fail(msgUnterminatedFraction)
		}
		for p.digitAt() {
			p.i++
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digitAt() {
			return p.fail(msgExponentMissing)
		}
		for p.digitAt() {
			p.i++
		}
	}
	return nil
}

// scanLiteral reads true, false or null; V8 reports the first character that differs.
func (p *v8Parser) scanLiteral() *jsonParseError {
	var lit string
	switch p.s[p.i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		lit = "null"
	}
	p.i++
	for k := 1; k < len(lit); k++ {
		if p.i >= len(p.s) {
			return p.unexpected(tokEOS)
		}
		if p.s[p.i] != lit[k] {
			return p.unexpectedChar()
		}
		p.i++
	}
	return nil
}

// jsMessage renders the error as JavaScript would show e.message, in UTF-16 code units (the quoted
// context may cut a surrogate pair, as V8's does).
func (e *jsonParseError) jsMessage(src string) []uint16 {
	pos := utf16Len(src[:e.offset])
	if e.template == msgUnexpectedEnd {
		return utf16.Encode([]rune(msgUnexpectedEnd))
	}
	if e.template != "" {
		return utf16.Encode([]rune(e.template + strconv.Itoa(pos)))
	}
	units := utf16.Encode([]rune(src))
	if isSpecialJSONSource(src) {
		return concatUnits(`"`, units, `" is not valid JSON`)
	}
	// V8 quotes the whole source when it is short, else 10 units either side of the error.
	const maxContext = 10
	token := units[pos : pos+1]
	head := concatUnits("Unexpected token '", token, "', ")
	if len(units) < 2*maxContext+1 {
		return append(head, concatUnits(`"`, units, `" is not valid JSON`)...)
	}
	switch {
	case pos < maxContext:
		return append(head, concatUnits(`"`, units[:pos+maxContext], `"... is not valid JSON`)...)
	case pos < len(units)-maxContext:
		return append(head, concatUnits(`..."`, units[pos-maxContext:pos+maxContext], `"... is not valid JSON`)...)
	default:
		return append(head, concatUnits(`..."`, units[pos-maxContext:], `" is not valid JSON`)...)
	}
}

// isSpecialJSONSource is V8's IsSpecialString: sources that JSON.parse(String(x)) produces for common
// non-JSON values get a message of their own.
func isSpecialJSONSource(s string) bool {
	switch s {
	case "[object Object]", "undefined", "Infinity", "NaN":
		return true
	}
	return false
}

func concatUnits(before string, mid []uint16, after string) []uint16 {
	out := utf16.Encode([]rune(before))
	out = append(out, mid...)
	return append(out, utf16.Encode([]rune(after))...)
}

// utf16Len is the length of s as a JavaScript string.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
