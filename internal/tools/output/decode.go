package output

import "unicode/utf8"

// replacement is U+FFFD, what a decoder writes for bytes that are not UTF-8.
const replacement = "\uFFFD"

// Decoder decodes a byte stream as UTF-8 the way a WHATWG TextDecoder does (Node's): each maximal
// invalid subsequence becomes one U+FFFD, and a sequence cut at the end of a chunk is kept for the
// next one. Valid input passes through without copying.
type Decoder struct {
	carry []byte
	join  []byte
	out   []byte
}

// Decode returns the text of p (after any carried bytes); final flushes an unfinished sequence as
// U+FFFD. The result is valid only until the next call.
func (d *Decoder) Decode(p []byte, final bool) []byte {
	if len(d.carry) > 0 {
		d.join = append(append(d.join[:0], d.carry...), p...)
		p = d.join
		d.carry = d.carry[:0]
	} else if utf8.Valid(p) {
		return p
	}
	d.out = d.out[:0]
	n, complete := decodeInto(&d.out, p, final)
	if !complete {
		d.carry = append(d.carry, p[n:]...)
	}
	return d.out
}

// decodeInto appends the decoded text of p to *out. Without final, an incomplete sequence at the
// end stops decoding: it returns how many bytes were consumed and complete=false.
func decodeInto(out *[]byte, p []byte, final bool) (consumed int, complete bool) {
	i := 0
	for i < len(p) {
		b := p[i]
		if b < utf8.RuneSelf {
			start := i
			for i < len(p) && p[i] < utf8.RuneSelf {
				i++
			}
			*out = append(*out, p[start:i]...)
			continue
		}
		need, lo, hi := leadByte(b)
		if need == 0 {
			*out = append(*out, replacement...)
			i++
			continue
		}
		j := i + 1
		ok := true
		for k := 0; k < need; k++ {
			if j >= len(p) {
				if !final {
					return i, false
				}
				ok = false
				break
			}
			c := p[j]
			if k == 0 {
				if c < lo || c > hi {
					ok = false
					break
				}
			} else if c < 0x80 || c > 0xBF {
				ok = false
				break
			}
			j++
		}
		if ok {
			*out = append(*out, p[i:j]...)
		} else {
			// The maximal invalid subpart is the lead plus the continuation bytes that fit; the
			// offending byte starts the next round.
			*out = append(*out, replacement...)
		}
		i = j
	}
	return i, true
}

// leadByte returns how many continuation bytes lead byte b needs and the allowed range of the first.
func leadByte(b byte) (need int, lo, hi byte) {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 1, 0x80, 0xBF
	case b == 0xE0:
		return 2, 0xA0, 0xBF
	case b >= 0xE1 && b <= 0xEC, b == 0xEE, b == 0xEF:
		return 2, 0x80, 0xBF
	case b == 0xED:
		return 2, 0x80, 0x9F
	case b == 0xF0:
		return 3, 0x90, 0xBF
	case b >= 0xF1 && b <= 0xF3:
		return 3, 0x80, 0xBF
	case b == 0xF4:
		return 3, 0x80, 0x8F
	}
	return 0, 0, 0
}

// LossyString decodes a whole byte slice as Node's utf-8 decoding would.
func LossyString(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	var out []byte
	decodeInto(&out, p, true)
	return string(out)
}
