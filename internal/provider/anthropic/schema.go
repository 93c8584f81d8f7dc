package anthropic

import "github.com/pi-go/pi-go/internal/provider/strictschema"

// anthropicStrictUnsupported is Anthropic's own list of keywords its strict tool mode rejects (pi's
// isAnthropicStrictUnsupportedKeyword); with one, a tool is sent without strict.
func anthropicStrictUnsupported(key string, v *strictschema.Node) bool {
	switch key {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxItems", "uniqueItems",
		"minContains", "maxContains", "minProperties", "maxProperties":
		return true
	case "minItems":
		return v.Raw() != "0" && v.Raw() != "1"
	case "format":
		s, ok := v.Str()
		if !ok {
			return true
		}
		switch s {
		case "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid":
			return false
		}
		return true
	}
	return false
}
