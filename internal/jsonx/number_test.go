package jsonx

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// numberRef is ECMAScript's Number::toString for a finite, non-zero double, step by step from the
// shortest digits that read back as it.
func numberRef(f float64) string {
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	frac := ""
	if k > 1 {
		frac = "." + digits[1:]
	}
	expSign := "+"
	if n-1 < 0 {
		expSign = "-"
	}
	return sign + digits[:1] + frac + "e" + expSign + strconv.Itoa(max(n-1, 1-n))
}

func TestAppendNumberIsJSONStringify(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", math.Copysign(0, -1): "0", 1: "1", -1.5: "-1.5", 0.1: "0.1", 1e21: "1e+21", 1.5e21: "1.5e+21",
		123456789012345680000: "123456789012345680000", 1e-6: "0.000001", 1e-7: "1e-7", -2.5e-10: "-2.5e-10",
		5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e+308", math.NaN(): "null", math.Inf(1): "null",
		math.Inf(-1): "null",
	} {
		if got := string(AppendNumber(nil, f)); got != want {
			t.Errorf("AppendNumber(%v) = %s, want %s", f, got, want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
			continue
		}
		if i%2 == 0 { // also numbers of everyday size
			f = math.Ldexp(f, -math.Ilogb(f)+r.Intn(140)-70)
		}
		if got, want := string(AppendNumber(nil, f)), numberRef(f); got != want {
			t.Fatalf("AppendNumber(%v) = %s, want %s", f, got, want)
		}
	}
}
