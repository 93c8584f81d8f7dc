package theme

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Color is one resolved theme colour: an xterm palette index, or an sRGB colour. A colour written
// as oklch() keeps its Oklab lightness, which pi uses to tell a dark theme from a light one.
type Color struct {
	Indexed bool
	Index   uint8
	R, G, B uint8
	// oklchL is the lightness of an oklch() colour (hasL); other colours compute it from sRGB.
	oklchL float64
	hasL   bool
}

// Hex is the colour as "#rrggbb" (a palette index as the xterm default of that index).
func (c Color) Hex() string {
	r, g, b := c.RGB()
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

var basicColors = [16][3]uint8{
	{0, 0, 0}, {128, 0, 0}, {0, 128, 0}, {128, 128, 0}, {0, 0, 128}, {128, 0, 128}, {0, 128, 128}, {192, 192, 192},
	{128, 128, 128}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {0, 0, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
}

var cubeValues = [6]float64{0, 95, 135, 175, 215, 255}

// RGB is the colour's sRGB channels; a palette index maps to xterm's default palette.
func (c Color) RGB() (r, g, b uint8) {
	if !c.Indexed {
		return c.R, c.G, c.B
	}
	i := int(c.Index)
	switch {
	case i < 16:
		return basicColors[i][0], basicColors[i][1], basicColors[i][2]
	case i < 232:
		i -= 16
		return uint8(cubeValues[i/36]), uint8(cubeValues[i%36/6]), uint8(cubeValues[i%6])
	default:
		v := uint8(8 + (i-232)*10)
		return v, v, v
	}
}

// lightness is the colour's Oklab lightness (0-1).
func (c Color) lightness() float64 {
	if c.hasL {
		return c.oklchL
	}
	r, g, b := c.RGB()
	return rgbToOklab(float64(r), float64(g), float64(b))[0]
}

// ANSI256 is the nearest xterm 256-colour index, chosen as pi chooses it: the nearest 6x6x6 cube
// colour, unless the colour is nearly grey and a grey-ramp step is closer (luma-weighted distance).
func (c Color) ANSI256() uint8 {
	if c.Indexed {
		return c.Index
	}
	r, g, b := float64(c.R), float64(c.G), float64(c.B)
	closest := func(values []float64, target float64) int {
		best, dist := 0, math.Inf(1)
		for i, v := range values {
			if d := math.Abs(target - v); d < dist {
				best, dist = i, d
			}
		}
		return best
	}
	ri, gi, bi := closest(cubeValues[:], r), closest(cubeValues[:], g), closest(cubeValues[:], b)
	cube := 16 + 36*ri + 6*gi + bi
	var grays [24]float64
	for i := range grays {
		grays[i] = float64(8 + i*10)
	}
	gray := jsRound(0.299*r + 0.587*g + 0.114*b)
	gOff := closest(grays[:], gray)
	gv := grays[gOff]
	dist := func(x, y, z float64) float64 {
		return (r-x)*(r-x)*0.299 + (g-y)*(g-y)*0.587 + (b-z)*(b-z)*0.114
	}
	spread := math.Max(r, math.Max(g, b)) - math.Min(r, math.Min(g, b))
	if spread < 10 && dist(gv, gv, gv) < dist(cubeValues[ri], cubeValues[gi], cubeValues[bi]) {
		return uint8(232 + gOff)
	}
	return uint8(cube)
}

const numberPattern = `[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?`

var (
	hexPattern   = regexp.MustCompile(`^#([[:xdigit:]]{3}|[[:xdigit:]]{6})$`)
	oklchPattern = regexp.MustCompile(`(?i)^oklch\(\s*(` + numberPattern + `)(%)?\s+(` + numberPattern + `)\s+(` +
		numberPattern + `)(?:deg)?\s*\)$`)
	okhslPattern = regexp.MustCompile(`(?i)^okhsl\(\s*(` + numberPattern + `)(?:deg)?\s+(` + numberPattern + `)(%)?\s+(` +
		numberPattern + `)(%)?\s*\)$`)
)

// ParseColor reads a colour string as pi's theme files write it: "#rgb", "#rrggbb", "oklch(L C H)"
// (L a number or a percentage) or "okhsl(H S L)" (S and L numbers 0-1 or percentages).
func ParseColor(s string) (Color, error) {
	if m := hexPattern.FindStringSubmatch(s); m != nil {
		d := m[1]
		if len(d) == 3 {
			d = string([]byte{d[0], d[0], d[1], d[1], d[2], d[2]})
		}
		v, _ := strconv.ParseUint(d, 16, 32)
		return Color{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v)}, nil
	}
	if m := oklchPattern.FindStringSubmatch(s); m != nil {
		l := parseFloat(m[1])
		if m[2] != "" {
			l /= 100
		}
		c, h := parseFloat(m[3]), parseFloat(m[4])
		if l < 0 || l > 1 {
			return Color{}, fmt.Errorf("invalid color value %q: lightness must be between 0 and 1", s)
		}
		if c < 0 {
			return Color{}, fmt.Errorf("invalid color value %q: chroma must not be negative", s)
		}
		return oklchColor(l, c, jsMod(jsMod(h, 360)+360, 360)), nil
	}
	if m := okhslPattern.FindStringSubmatch(s); m != nil {
		h, sat, l := parseFloat(m[1]), parseFloat(m[2]), parseFloat(m[4])
		if m[3] != "" {
			sat /= 100
		}
		if m[5] != "" {
			l /= 100
		}
		if sat < 0 || sat > 1 || l < 0 || l > 1 {
			return Color{}, fmt.Errorf("invalid color value %q: saturation and lightness must be between 0 and 1", s)
		}
		r, g, b := okhslToRGB(h, sat, l)
		return Color{R: r, G: g, B: b}, nil
	}
	return Color{}, fmt.Errorf("invalid color value %q", s)
}

func parseFloat(s string) float64 {
	v, _ := strconv.ParseFloat(strings.ToLower(s), 64)
	return v
}

// oklchColor maps an OKLCH colour into sRGB, keeping its hue and lightness and reducing chroma
// (bisection) until it fits; the grey of that lightness is the fallback, so oklch(100% 0.3 150) is
// white.
func oklchColor(l, c, h float64) Color {
	rad := h * math.Pi / 180
	cos, sin := math.Cos(rad), math.Sin(rad)
	at := func(chroma float64) vec3 { return oklabToLinearSRGB(vec3{l, chroma * cos, chroma * sin}) }
	inGamut := func(v vec3) bool {
		const eps = 1e-7
		for _, ch := range v {
			if ch < -eps || ch > 1+eps {
				return false
			}
		}
		return true
	}
	lin := at(c)
	if !inGamut(lin) {
		lin = at(0)
		lo, hi := 0.0, c
		for range 20 {
			mid := (lo + hi) / 2
			if cand := at(mid); inGamut(cand) {
				lo, lin = mid, cand
			} else {
				hi = mid
			}
		}
	}
	r, g, b := linearSRGBToRGB(lin)
	return Color{R: r, G: g, B: b, oklchL: l, hasL: true}
}
