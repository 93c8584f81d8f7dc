package jsonx

import (
	"math"
	"strconv"
)

// AppendNumber appends f as JSON.stringify writes a number: the shortest decimal that reads back as
// f, in exponent form below 1e-6 and from 1e21 on (1e-7, 1.5e+21), 0 for negative zero, and null for
// NaN and the infinities.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Go writes two exponent digits at least (1e-07), JavaScript the fewest (1e-7).
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
