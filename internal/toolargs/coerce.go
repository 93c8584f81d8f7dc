package toolargs

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// Type coercion of tool arguments before validation, as pi does for plain JSON schemas (and as AJV's
// coerceTypes does): "5" becomes 5 where a number is expected, "true" becomes true, numbers and booleans
// become strings, null becomes the type's zero value. Models often quote numbers; pi accepts that.

// coercer walks a value and its schema; unions (anyOf/oneOf) are resolved by validating candidates
// against the branch, which is why it needs the compiled schema.
type coercer struct {
	schema *Schema
}

// coerce returns the coerced value and whether anything changed. ptr is the schema's JSON pointer.
func (c *coercer) coerce(v any, schema any, ptr string) (any, bool) {
	s, ok := schema.(map[string]any)
	if !ok {
		return v, false
	}
	changed := false
	if all, ok := s["allOf"].([]any); ok {
		for i, sub := range all {
			var ch bool
			v, ch = c.coerce(v, sub, ptr+"/allOf/"+strconv.Itoa(i))
			changed = changed || ch
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if subs, ok := s[kw].([]any); ok {
			var ch bool
			v, ch = c.coerceUnion(v, subs, ptr+"/"+kw)
			changed = changed || ch
		}
	}
	types := schemaTypes(s)
	matchesMember := false
	if len(types) > 1 {
		for _, t := range types {
			if matchesJSONType(v, t) {
				matchesMember = true
				break
			}
		}
	}
	if len(types) > 0 && !matchesMember {
		for _, t := range types {
			if cand, ok := coercePrimitive(v, t); ok {
				v, changed = cand, true
				break
			}
		}
	}
	if hasType(types, "object") {
		if obj, ok := v.(map[string]any); ok && c.coerceObject(obj, s, ptr) {
			changed = true
		}
	}
	if hasType(types, "array") {
		if arr, ok := v.([]any); ok && c.coerceArray(arr, s, ptr) {
			changed = true
		}
	}
	return v, changed
}

// coerceUnion takes the first branch whose coerced candidate validates against that branch.
func (c *coercer) coerceUnion(v any, subs []any, ptr string) (any, bool) {
	for i, sub := range subs {
		subPtr := ptr + "/" + strconv.Itoa(i)
		cand, changed := c.coerce(deepCopy(v), sub, subPtr)
		if c.schema.check(subPtr, cand) {
			return cand, changed
		}
	}
	return v, false
}

func (c *coercer) coerceObject(obj map[string]any, s map[string]any, ptr string) bool {
	changed := false
	props, _ := s["properties"].(map[string]any)
	for key, sub := range props {
		if val, ok := obj[key]; ok {
			nv, ch := c.coerce(val, sub, ptr+"/properties/"+escapePointer(key))
			if ch {
				obj[key] = nv
				changed = true
			}
		}
	}
	if extra, ok := s["additionalProperties"].(map[string]any); ok {
		for key, val := range obj {
			if _, defined := props[key]; defined {
				continue
			}
			if nv, ch := c.coerce(val, extra, ptr+"/additionalProperties"); ch {
				obj[key] = nv
				changed = true
			}
		}
	}
	return changed
}

func (c *coercer) coerceArray(arr []any, s map[string]any, ptr string) bool {
	changed := false
	switch items := s["items"].(type) {
	case []any:
		for i := range arr {
			if i >= len(items) {
				break
			}
			if nv, ch := c.coerce(arr[i], items[i], ptr+"/items/"+strconv.Itoa(i)); ch {
				arr[i] = nv
				changed = true
			}
		}
	case map[string]any:
		for i := range arr {
			if nv, ch := c.coerce(arr[i], items, ptr+"/items"); ch {
				arr[i] = nv
				changed = true
			}
		}
	}
	return changed
}

func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func hasType(types []string, t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

func matchesJSONType(v any, t string) bool {
	switch t {
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && isInteger(numberValue(n))
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "null":
		return v == nil
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func isInteger(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) }

// coercePrimitive converts v towards type t; ok is false when nothing changes (v already fits, or no
// conversion applies).
func coercePrimitive(v any, t string) (any, bool) {
	switch t {
	case "number", "integer":
		switch x := v.(type) {
		case nil:
			return json.Number("0"), true
		case bool:
			if x {
				return json.Number("1"), true
			}
			return json.Number("0"), true
		case string:
			if strings.TrimSpace(x) == "" {
				return v, false
			}
			f, ok := jsStringToNumber(x)
			if !ok || math.IsInf(f, 0) || (t == "integer" && !isInteger(f)) {
				return v, false
			}
			return json.Number(jsNumberString(f)), true
		}
	case "boolean":
		switch x := v.(type) {
		case nil:
			return false, true
		case string:
			if x == "true" {
				return true, true
			}
			if x == "false" {
				return false, true
			}
		case json.Number:
			switch numberValue(x) {
			case 1:
				return true, true
			case 0:
				return false, true
			}
		}
	case "string":
		switch x := v.(type) {
		case nil:
			return "", true
		case json.Number:
			return jsNumberString(numberValue(x)), true
		case bool:
			return strconv.FormatBool(x), true
		}
	case "null":
		switch x := v.(type) {
		case string:
			if x == "" {
				return nil, true
			}
		case json.Number:
			if numberValue(x) == 0 {
				return nil, true
			}
		case bool:
			if !x {
				return nil, true
			}
		}
	}
	return v, false
}

var (
	jsDecimal = lazyregexp.New(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	jsRadix   = lazyregexp.New(`^0([xX][0-9a-fA-F]+|[bB][01]+|[oO][0-7]+)$`)
)

// jsStringToNumber is JavaScript's Number(string) for the forms it accepts: decimal literals (with
// surrounding whitespace), Infinity, and 0x / 0b / 0o integers.
func jsStringToNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if jsDecimal.MatchString(s) {
		// The syntax is checked, so an error can only be a range error: f is then ±Inf or 0, the
		// values JavaScript gets too.
		f, _ := strconv.ParseFloat(s, 64)
		return f, true
	}
	if jsRadix.MatchString(s) {
		base := map[byte]int{'x': 16, 'X': 16, 'b': 2, 'B': 2, 'o': 8, 'O': 8}[s[1]]
		n, err := strconv.ParseUint(s[2:], base, 64)
		if err != nil {
			// Too large for 64 bits: JavaScript still gets a (rounded) number.
			f := 0.0
			for _, d := range s[2:] {
				digit, _ := strconv.ParseUint(string(d), base, 8)
				f = f*float64(base) + float64(digit)
			}
			return f, true
		}
		return float64(n), true
	}
	return 0, false
}

// deepCopy copies the maps and slices of a decoded JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
