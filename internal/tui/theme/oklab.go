package theme

import "math"

// Oklab and OKHSL are Björn Ottosson's colour spaces (https://bottosson.github.io/posts/colorpicker/,
// MIT licensed reference implementation). pi's theme files write colours in them, so the conversions
// here follow the reference step for step: a theme must give the same sRGB values here as in pi.

type vec3 [3]float64

type mat3 [3]vec3

func (m mat3) mul(v vec3) vec3 {
	var out vec3
	for i, row := range m {
		out[i] = row[0]*v[0] + row[1]*v[1] + row[2]*v[2]
	}
	return out
}

var (
	linearSRGBToLMS = mat3{
		{0.4122214694707629, 0.5363325372617349, 0.0514459932675022},
		{0.2119034958178251, 0.6806995506452344, 0.1073969535369405},
		{0.0883024591900564, 0.2817188391361215, 0.6299787016738222},
	}
	lmsToLab = mat3{
		{0.210454268309314, 0.793617774702305, -0.0040720430116193},
		{1.9779985324311684, -2.42859224204858, 0.450593709617411},
		{0.0259040424655478, 0.7827717124575296, -0.8086757549230774},
	}
	labToLMS = mat3{
		{1, 0.3963377773761749, 0.2158037573099136},
		{1, -0.1055613458156586, -0.0638541728258133},
		{1, -0.0894841775298119, -1.2914855480194092},
	}
	lmsToLinearSRGB = mat3{
		{4.0767416360759583, -3.3077115392580629, 0.2309699031821043},
		{-1.2684379732850315, 2.6097573492876882, -0.341319376002657},
		{-0.0041960761386756, -0.7034186179359362, 1.7076146940746117},
	}
)

// saturationFit holds, per sRGB channel, the (a, b) half-plane where that channel clips first and
// the polynomial that approximates the maximum saturation there.
var saturationFit = [3]struct {
	plane [2]float64
	k     [5]float64
}{
	{[2]float64{-1.8817031, -0.80936501}, [5]float64{1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245}},
	{[2]float64{1.8144408, -1.19445267}, [5]float64{0.73956515, -0.45954404, 0.08285427, 0.12541073, -0.14503204}},
	{[2]float64{0.13110758, 1.81333971}, [5]float64{1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167}},
}

const (
	toeK1 = 0.206
	toeK2 = 0.03
	toeK3 = (1 + toeK1) / (1 + toeK2)
)

// okhslLightnessFromOklab is OKHSL's "toe": Oklab lightness to OKHSL lightness.
func okhslLightnessFromOklab(x float64) float64 {
	return 0.5 * (toeK3*x - toeK1 + math.Sqrt(math.Pow(toeK3*x-toeK1, 2)+4*toeK2*toeK3*x))
}

// oklabLightnessFromOkhsl inverts the toe.
func oklabLightnessFromOkhsl(x float64) float64 { return (x*x + toeK1*x) / (toeK3 * (x + toeK2)) }

func linearToSRGB(v float64) float64 {
	if v > 0.0031308 {
		return 1.055*math.Pow(v, 1/2.4) - 0.055
	}
	return 12.92 * v
}

func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func oklabToLinearSRGB(lab vec3) vec3 {
	lms := labToLMS.mul(lab)
	for i := range lms {
		lms[i] = math.Pow(lms[i], 3)
	}
	return lmsToLinearSRGB.mul(lms)
}

func linearSRGBToOklab(rgb vec3) vec3 {
	lms := linearSRGBToLMS.mul(rgb)
	for i := range lms {
		lms[i] = math.Cbrt(lms[i])
	}
	return lmsToLab.mul(lms)
}

// rgbToOklab converts sRGB channels (0-255) to Oklab.
func rgbToOklab(r, g, b float64) vec3 {
	return linearSRGBToOklab(vec3{srgbToLinear(r / 255), srgbToLinear(g / 255), srgbToLinear(b / 255)})
}

// jsRound rounds as JavaScript's Math.round does: halves go up, also for negative numbers.
func jsRound(v float64) float64 { return math.Floor(v + 0.5) }

// linearSRGBToRGB clips each channel to the gamut and rounds it to 0-255.
func linearSRGBToRGB(lin vec3) (r, g, b uint8) {
	var out [3]uint8
	for i, v := range lin {
		out[i] = uint8(jsRound(math.Min(1, math.Max(0, linearToSRGB(v))) * 255))
	}
	return out[0], out[1], out[2]
}

// lmsSlopes is how fast each cube-root LMS component changes along the chroma direction (a, b).
func lmsSlopes(a, b float64) vec3 {
	var out vec3
	for i, row := range labToLMS {
		out[i] = row[1]*a + row[2]*b
	}
	return out
}

// maxSaturation is the largest saturation (C/L) inside sRGB for the hue (a, b): the polynomial fit,
// refined by one Halley step.
func maxSaturation(a, b float64) float64 {
	ch := 2
	for i := 0; i < 2; i++ {
		p := saturationFit[i].plane
		if p[0]*a+p[1]*b > 1 {
			ch = i
			break
		}
	}
	k := saturationFit[ch].k
	w := lmsToLinearSRGB[ch]
	s := k[0] + k[1]*a + k[2]*b + k[3]*a*a + k[4]*a*b
	slopes := lmsSlopes(a, b)
	var f, f1, f2 float64
	for i := range 3 {
		base := 1 + s*slopes[i]
		f += w[i] * math.Pow(base, 3)
		f1 += w[i] * (3 * slopes[i] * math.Pow(base, 2))
		f2 += w[i] * (6 * math.Pow(slopes[i], 2) * base)
	}
	return s - (f*f1)/(f1*f1-0.5*f*f2)
}

// cusp is the Oklab lightness and chroma of the most saturated sRGB colour of the hue (a, b).
func cusp(a, b float64) (l, c float64) {
	s := maxSaturation(a, b)
	rgb := oklabToLinearSRGB(vec3{1, s * a, s * b})
	l = math.Cbrt(1 / math.Max(rgb[0], math.Max(rgb[1], rgb[2])))
	return l, l * s
}

// maxChroma is the chroma where the line of constant lightness l leaves the sRGB gamut.
func maxChroma(a, b, l, cuspL, cuspC float64) float64 {
	if l <= cuspL {
		return cuspC * l / cuspL
	}
	// Upper half: the triangle's edge, then one Halley step against each channel reaching 1.
	t := cuspC * (l - 1) / (cuspL - 1)
	slopes := lmsSlopes(a, b)
	var lms, cubes, first, second vec3
	for i := range 3 {
		lms[i] = l + t*slopes[i]
		cubes[i] = math.Pow(lms[i], 3)
		first[i] = 3 * slopes[i] * math.Pow(lms[i], 2)
		second[i] = 6 * math.Pow(slopes[i], 2) * lms[i]
	}
	dot := func(row, v vec3) float64 { return row[0]*v[0] + row[1]*v[1] + row[2]*v[2] }
	step := math.MaxFloat64
	for _, row := range lmsToLinearSRGB {
		f := dot(row, cubes) - 1
		f1 := dot(row, first)
		f2 := dot(row, second)
		u := f1 / (f1*f1 - 0.5*f*f2)
		s := math.MaxFloat64
		if u >= 0 {
			s = -f * u
		}
		step = math.Min(step, s)
	}
	return t + step
}

// chromaStops are OKHSL's reference chromas at lightness l and hue (a, b): c0, cMid and cMax.
func chromaStops(l, a, b float64) (c0, cMid, cMax float64) {
	cl, cc := cusp(a, b)
	cMax = maxChroma(a, b, l, cl, cc)
	k := cMax / math.Min(l*(cc/cl), (1-l)*(cc/(1-cl)))
	midS := 0.11516993 + 1/(7.4477897+4.1590124*b+
		a*(-2.19557347+1.75198401*b+a*(-2.13704948-10.02301043*b+a*(-4.24894561+5.38770819*b+4.69891013*a))))
	midT := 0.11239642 + 1/(1.6132032-0.68124379*b+
		a*(0.40370612+0.90148123*b+a*(-0.27087943+0.6122399*b+a*(0.00299215-0.45399568*b-0.14661872*a))))
	cMid = 0.9 * k * math.Sqrt(math.Sqrt(1/(1/math.Pow(l*midS, 4)+1/math.Pow((1-l)*midT, 4))))
	c0 = math.Sqrt(1 / (1/math.Pow(l*0.4, 2) + 1/math.Pow((1-l)*0.8, 2)))
	return c0, cMid, cMax
}

// okhslToRGB converts OKHSL (hue in degrees, saturation and lightness 0-1) to sRGB channels,
// clipped and rounded.
func okhslToRGB(hue, sat, light float64) (r, g, b uint8) {
	l := oklabLightnessFromOkhsl(light)
	lab := vec3{l, 0, 0}
	if l > 0 && l < 1 && sat > 0 {
		angle := 2 * math.Pi * jsMod(jsMod(hue, 360)+360, 360) / 360
		a, bb := math.Cos(angle), math.Sin(angle)
		c0, cMid, cMax := chromaStops(l, a, bb)
		// Chroma rises from 0 through cMid at s = 0.8 to cMax at s = 1.
		var chroma float64
		if sat < 0.8 {
			t := 1.25 * sat
			k1 := 0.8 * c0
			chroma = t * k1 / (1 - (1-k1/cMid)*t)
		} else {
			t := 5 * (sat - 0.8)
			k1 := 0.2 * math.Pow(cMid, 2) * math.Pow(1.25, 2) / c0
			chroma = cMid + t*k1/(1-(1-k1/(cMax-cMid))*t)
		}
		lab = vec3{l, chroma * a, chroma * bb}
	}
	return linearSRGBToRGB(oklabToLinearSRGB(lab))
}

// jsMod is JavaScript's % on numbers: the result takes the dividend's sign.
func jsMod(x, y float64) float64 { return math.Mod(x, y) }
