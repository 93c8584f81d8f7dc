package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// decodeArgs unmarshals a tool call's arguments into v with a clear error.
func decodeArgs(tool string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s tool input is invalid: %w", tool, err)
	}
	return nil
}

// jsNumber formats f as JavaScript's String(number) does for the values tools meet (limits,
// timeouts): integers without a fraction, others in the shortest round-tripping form.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	case math.Abs(f) >= 1e-6 && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	// Go writes e-07 / e+21, JavaScript e-7 / e+21.
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' && i+2 < len(s) && s[i+2] == '0' {
			return s[:i+2] + s[i+3:]
		}
	}
	return s
}

// countReached reports whether count has reached a limit given as a JSON number (pi compares
// count >= limit, so a fractional limit rounds up).
func countReached(count int, limit float64) bool {
	return float64(count) >= limit
}
