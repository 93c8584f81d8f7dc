package google

import (
	"bytes"
	"encoding/json"

	"github.com/pi-go/pi-go/internal/provider/strictschema"
)

// Strict tool sampling (pi's constrained-sampling.js, in strictschema): on Gemini 3 and later, a tool
// that asks for JSON-schema constrained sampling is declared with a strict schema and the call mode
// VALIDATED; a schema strict mode cannot express keeps its own and the tool is sent as it is.

// strictSchema is pi's makeStrictJsonSchema on a tool's parameters, as the plain values genai writes
// (numbers keep their text); ok is false when strict mode cannot express them.
func strictSchema(params []byte) (any, bool) {
	n, err := strictschema.Parse(params)
	if err != nil {
		return nil, false
	}
	s, err := strictschema.Make(n, nil)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(s.AppendJSON(nil)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}
