package anthropic

import (
	"bytes"
	"encoding/json"
)

// ExtraProviderThinkingLevel is the field pi 1.6 records on an answer of an effort-marker model: the
// effort it was given, replayed before that answer in later requests.
const ExtraProviderThinkingLevel = "providerThinkingLevel"

func jsonUnmarshalString(raw json.RawMessage, dst *string) bool {
	return json.Unmarshal(raw, dst) == nil
}

// appendCompactJSON appends a JSON value without insignificant spaces, as JSON.stringify writes a
// parsed value (invalid JSON is sent as an empty object).
func appendCompactJSON(b []byte, v []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return append(b, "{}"...)
	}
	return append(b, buf.Bytes()...)
}
