package jsonx

// Runs of bytes that a JSON string holds as they are are found eight bytes at a time ("SIMD within a
// register"): a long text is mostly such runs, broken by a quote, a backslash or a control character.

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// specialMask marks, in the high bit of each byte, the bytes of x that end a run of plain string
// characters: '"', '\\' and control characters. Bits above the lowest may be false positives; only the
// lowest set bit is exact, and it is the only one used.
func specialMask(x uint64) uint64 {
	q := x ^ ('"' * swarOnes)
	bs := x ^ ('\\' * swarOnes)
	return ((q - swarOnes) &^ q & swarHighs) |
		((bs - swarOnes) &^ bs & swarHighs) |
		((x - 0x20*swarOnes) &^ x & swarHighs)
}

// notPlainASCII marks, like specialMask, the bytes of x that are not plain ASCII: those and the bytes
// of 0x80 or more. It is cheaper, as a byte of 0x80 or more needs no excluding here.
func notPlainASCII(x uint64) uint64 {
	return ((x - 0x20*swarOnes) | x | ((x ^ '"'*swarOnes) - swarOnes) | ((x ^ '\\'*swarOnes) - swarOnes)) & swarHighs
}

// Exact tests, for counting: each marks, in the high bit of each byte, exactly the bytes of x that
// pass (no carry crosses a byte).
const swarLow7 = 0x7f7f7f7f7f7f7f7f

// equalBytes marks the bytes of x equal to c.
func equalBytes(x uint64, c byte) uint64 {
	t := x ^ (uint64(c) * swarOnes)
	return ^((t&swarLow7 + swarLow7) | t | swarLow7)
}

// controlBytes marks the bytes of x below 0x20.
func controlBytes(x uint64) uint64 {
	return ^((x&swarLow7 + (0x80-0x20)*swarOnes) | x | swarLow7)
}

// load64 reads s[i:i+8] as a little-endian word (the compiler makes it one load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
