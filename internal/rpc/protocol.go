package rpc

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// response is one `{id?, type:"response", command, success, data?|error}` record, its fields already
// encoded as pi writes them.
type response struct {
	id      []byte // the command's id as JSON.stringify echoes it; nil when the command had none
	command []byte // the command name as JSON; nil when pi's is undefined (input that is no object)
	success bool
	data    []byte // the data as JSON; nil for a response without data
	errJSON []byte // the error message as a JSON string
}

func (r *response) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if r.id != nil {
		b.WriteString(`"id":`)
		b.Write(r.id)
		b.WriteByte(',')
	}
	b.WriteString(`"type":"response"`)
	if r.command != nil {
		b.WriteString(`,"command":`)
		b.Write(r.command)
	}
	if r.success {
		b.WriteString(`,"success":true`)
		if r.data != nil {
			b.WriteString(`,"data":`)
			b.Write(r.data)
		}
	} else {
		b.WriteString(`,"success":false,"error":`)
		b.Write(r.errJSON)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonNull is data that is present and null (cycle_model with nothing to cycle to).
var jsonNull = json.RawMessage("null")

// parseFailure is pi's answer to a line it could not parse: no id, command "parse".
func parseFailure(message []byte) *response {
	return &response{command: []byte(`"parse"`), errJSON: message}
}

func parseFailureText(msg string) *response {
	return parseFailure(jsonx.AppendString(nil, "Failed to parse command: "+msg))
}

// command is one parsed request.
type command struct {
	id     []byte // JSON of the id to echo, nil when absent
	typ    string
	fields map[string]string // raw JSON values
}

func (c *command) name() []byte { return jsonx.AppendString(nil, c.typ) }

// ok is a success without data.
func (c *command) ok() *response {
	return &response{id: c.id, command: c.name(), success: true}
}

// okData is a success with data (any value MarshalJS can write; json.RawMessage as is).
func (c *command) okData(v any) *response {
	data, err := provider.MarshalJS(v)
	if err != nil {
		return c.fail(fmt.Errorf("encoding the %s result: %w", c.typ, err))
	}
	return &response{id: c.id, command: c.name(), success: true, data: data}
}

// okRaw is a success whose data is already encoded.
func (c *command) okRaw(data []byte) *response {
	return &response{id: c.id, command: c.name(), success: true, data: data}
}

// fail is the command's error response: pi 0.73.1 attributes every failure to the command's id and type.
func (c *command) fail(err error) *response {
	return c.failText(err.Error())
}

func (c *command) failText(msg string) *response {
	return &response{id: c.id, command: c.name(), errJSON: jsonx.AppendString(nil, msg)}
}

// jsonKind names a raw JSON value's type for error messages.
func jsonKind(raw string) string {
	raw = strings.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// present reports whether the field was given a non-null value (JavaScript treats a null optional field
// as absent).
func (c *command) present(name string) bool {
	raw, ok := c.fields[name]
	return ok && jsonKind(raw) != "null"
}

func (c *command) typeError(name, want string) error {
	if raw, ok := c.fields[name]; ok {
		return fmt.Errorf("Invalid %q in %s: expected %s, got %s", name, c.typ, want, jsonKind(raw))
	}
	return fmt.Errorf("Missing %q in %s: expected %s", name, c.typ, want)
}

// str reads a string field that must be there.
func (c *command) str(name string) (string, error) {
	raw, ok := c.fields[name]
	if !ok || jsonKind(raw) != "a string" {
		return "", c.typeError(name, "a string")
	}
	s, ok := unquoteJSON(raw)
	if !ok {
		return "", c.typeError(name, "a string")
	}
	return s, nil
}

// optStr reads a string field that may be absent or null.
func (c *command) optStr(name string) (string, bool, error) {
	if !c.present(name) {
		return "", false, nil
	}
	s, err := c.str(name)
	return s, err == nil, err
}

// optBoolean reads a boolean field that may be absent or null.
func (c *command) optBoolean(name string) (bool, error) {
	if !c.present(name) {
		return false, nil
	}
	return c.boolean(name)
}

// boolean reads a boolean field that must be there.
func (c *command) boolean(name string) (bool, error) {
	switch raw := c.fields[name]; raw {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, c.typeError(name, "a boolean")
}

// message reads a prompt's text and its optional images.
func (c *command) message() (string, []provider.Content, error) {
	text, err := c.str("message")
	if err != nil {
		return "", nil, err
	}
	images, err := c.images()
	return text, images, err
}

// images reads the optional images field: ImageContent objects with base64 data. Each is checked so a
// bad attachment is refused here instead of breaking every later request of the session.
func (c *command) images() ([]provider.Content, error) {
	if !c.present("images") {
		return nil, nil
	}
	list, err := splitArray(c.fields["images"])
	if err != nil {
		return nil, c.typeError("images", "an array of images")
	}
	out := make([]provider.Content, 0, len(list))
	for i, raw := range list {
		where := "images[" + strconv.Itoa(i) + "]"
		fields, err := splitObject(raw)
		if err != nil {
			return nil, fmt.Errorf("Invalid %s in %s: expected an image {type: \"image\", data, mimeType}, got %s", where, c.typ, jsonKind(raw))
		}
		img := &command{typ: where + " of " + c.typ, fields: fields}
		typ, err := img.str("type")
		if err != nil {
			return nil, err
		}
		data, err := img.str("data")
		if err != nil {
			return nil, err
		}
		mime, err := img.str("mimeType")
		if err != nil {
			return nil, err
		}
		switch _, derr := base64.StdEncoding.DecodeString(data); {
		case typ != provider.ContentImage:
			return nil, fmt.Errorf("Invalid %s in %s: type is %q, not \"image\"", where, c.typ, typ)
		case mime == "":
			return nil, fmt.Errorf("Invalid %s in %s: mimeType is empty", where, c.typ)
		case derr != nil:
			return nil, fmt.Errorf("Invalid %s in %s: data is not base64 (%v)", where, c.typ, derr)
		}
		out = append(out, provider.ImageContent(data, mime))
	}
	return out, nil
}

// A command line is checked whole by checkJSON before its fields are read, so the fields are cut out
// of the text with jsonx.Scanner in one pass, their values only delimited (SkipLoose) until they are
// read: a prompt with a large image is read at memory speed. The helpers below still fail cleanly on
// malformed input instead of trusting it.

var errMalformed = errors.New("malformed JSON")

// textBytes is text as bytes for a scanner, which only reads them.
func textBytes(text string) []byte { return unsafe.Slice(unsafe.StringData(text), len(text)) }

// splitObject returns the members of the object text as raw JSON values; a repeated key keeps its last
// value, as JSON.parse does.
func splitObject(text string) (map[string]string, error) {
	var s jsonx.Scanner
	s.Reset(textBytes(text))
	out := map[string]string{}
	isObject := s.Object(func(key []byte) {
		s.Peek()
		start := s.Pos()
		s.SkipLoose()
		// key is text's own bytes, or a buffer of s's that only grows: neither is copied.
		out[unsafe.String(unsafe.SliceData(key), len(key))] = text[start:s.Pos()]
	})
	if !isObject {
		return nil, cmp.Or(s.Err(), errMalformed)
	}
	return out, nil
}

// splitArray returns the elements of the array text as raw JSON values.
func splitArray(text string) ([]string, error) {
	var s jsonx.Scanner
	s.Reset(textBytes(text))
	var out []string
	isArray := s.Array(func(int) {
		s.Peek()
		start := s.Pos()
		s.SkipLoose()
		out = append(out, text[start:s.Pos()])
	})
	if !isArray {
		return nil, cmp.Or(s.Err(), errMalformed)
	}
	return out, nil
}

// unquoteJSON decodes a JSON string literal. A lone surrogate escape, which a Go string cannot hold,
// becomes U+FFFD.
func unquoteJSON(raw string) (string, bool) {
	var s jsonx.Scanner
	s.Reset(textBytes(raw))
	if s.Peek() != '"' {
		return "", false
	}
	b := s.Str()
	if s.End(); s.Err() != nil {
		return "", false
	}
	// b is raw's own bytes, or a buffer of s's that nothing else holds: neither is copied.
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}
