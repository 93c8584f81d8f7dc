package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"
)

// grepMatcher decides which lines match, line by line as ripgrep does. A required literal (the
// fixed string itself, or one a regex cannot match without) is found with a fast byte search; a
// regex then checks only the lines that hold it.
type grepMatcher struct {
	lit  []byte    // exact literal to find, or nil
	fold *grepFold // ASCII case-insensitive literal to find, or nil
	// re checks candidate lines; nil when the literal alone decides.
	re *regexp.Regexp
}

// grepNewMatcher compiles pi's grep parameters. Regex syntax is Go's RE2, which accepts the
// expressions ripgrep's Rust regex does short of a few Unicode classes.
func grepNewMatcher(pattern string, literal, ignoreCase bool) (*grepMatcher, error) {
	m := &grepMatcher{}
	if literal {
		if !ignoreCase {
			m.lit = []byte(pattern)
			return m, nil
		}
		if grepIsASCII(pattern) {
			m.fold = grepNewFold(pattern)
			return m, nil
		}
		pattern = regexp.QuoteMeta(pattern)
	}
	expr := "(?m)" + grepUnicodeClasses(pattern)
	if ignoreCase {
		expr = "(?mi)" + grepUnicodeClasses(pattern)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, grepRegexError(pattern, err)
	}
	m.re = re
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
		lit, fold := grepRequiredLiteral(parsed.Simplify())
		switch {
		case lit == "" || strings.ContainsRune(lit, '\n'):
		case !fold:
			m.lit = []byte(lit)
		case grepIsASCII(lit):
			m.fold = grepNewFold(lit)
		}
	}
	return m, nil
}

// grepUnicodeClasses makes \d, \w and \s Unicode-aware, as they are in ripgrep's Rust regex (Go's
// are ASCII). Their negations are rewritten outside brackets only; \b stays ASCII.
func grepUnicodeClasses(p string) string {
	if !strings.Contains(p, "\\") {
		return p
	}
	const (
		word  = `\p{L}\p{M}\p{Nd}\p{Pc}`
		digit = `\p{Nd}`
		space = `\t\n\v\f\r \x{85}\p{Z}`
	)
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			i++
			var set string
			negated := next == 'W' || next == 'D' || next == 'S'
			switch next {
			case 'w', 'W':
				set = word
			case 'd', 'D':
				set = digit
			case 's', 'S':
				set = space
			}
			switch {
			case set == "":
				b.WriteByte('\\')
				b.WriteByte(next)
			case inClass && !negated:
				b.WriteString(set)
			case inClass:
				b.WriteByte('\\')
				b.WriteByte(next)
			case negated:
				b.WriteString("[^" + set + "]")
			default:
				b.WriteString("[" + set + "]")
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal member.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && i+1 < len(p) && p[i+1] == ':':
			// A POSIX class like [:alpha:] inside brackets.
			if j := strings.Index(p[i:], ":]"); j > 0 {
				b.WriteString(p[i : i+j+2])
				i += j + 1
			} else {
				b.WriteByte(c)
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// grepRegexError words a regex error like ripgrep's first line ("regex parse error:").
func grepRegexError(pattern string, err error) error {
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		msg = string(se.Code)
	}
	return fmt.Errorf("regex parse error:\n    %s\nerror: %s", pattern, msg)
}

// grepRequiredLiteral finds a literal every match must contain, with whether it is case-folded.
func grepRequiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return grepRequiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return grepRequiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		for _, sub := range re.Sub {
			if lit, fold := grepRequiredLiteral(sub); len(lit) > len(best) {
				best, bestFold = lit, fold
			}
		}
		return best, bestFold
	}
	return "", false
}

func grepIsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// grepFold finds an ASCII literal regardless of case: it scans for the pattern's rarest byte (both
// cases) with IndexByte and compares around each hit.
type grepFold struct {
	pat    []byte // lower case
	anchor int
	lo, up byte
}

// grepByteRank orders bytes from common to rare in source and prose; bytes not listed are rare.
const grepByteRank = " etaoinsrhldcumfpgwybvkxjqz_\n"

func grepNewFold(s string) *grepFold {
	f := &grepFold{pat: []byte(strings.ToLower(s))}
	best := -1
	for i, c := range f.pat {
		rank := strings.IndexByte(grepByteRank, c)
		if rank < 0 {
			rank = len(grepByteRank)
		}
		if rank > best {
			best, f.anchor = rank, i
		}
	}
	if len(f.pat) > 0 {
		f.lo = f.pat[f.anchor]
		f.up = f.lo
		if f.lo >= 'a' && f.lo <= 'z' {
			f.up = f.lo - 'a' + 'A'
		}
	}
	return f
}

// index returns the first position of the pattern in b, or -1.
func (f *grepFold) index(b []byte) int {
	n := len(f.pat)
	if n == 0 {
		return 0
	}
	last := len(b) - n + f.anchor // last position the anchor byte may take
	nextLo, nextUp := -1, -1
	pos := f.anchor
	for pos <= last {
		if nextLo < pos {
			if j := bytes.IndexByte(b[pos:], f.lo); j < 0 {
				nextLo = len(b)
			} else {
				nextLo = pos + j
			}
		}
		if f.up == f.lo {
			nextUp = nextLo
		} else if nextUp < pos {
			if j := bytes.IndexByte(b[pos:], f.up); j < 0 {
				nextUp = len(b)
			} else {
				nextUp = pos + j
			}
		}
		c := min(nextLo, nextUp)
		if c > last {
			return -1
		}
		start := c - f.anchor
		if grepEqualFold(b[start:start+n], f.pat) {
			return start
		}
		pos = c + 1
	}
	return -1
}

// grepEqualFold compares b with a lower-case ASCII pattern.
func grepEqualFold(b, lower []byte) bool {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// find returns the bounds of the first candidate in b (start -1 when there is none): a literal
// occurrence, or a regex match that may still run past the end of its line.
func (m *grepMatcher) find(b []byte) (start, end int) {
	switch {
	case m.lit != nil:
		i := bytes.Index(b, m.lit)
		return i, i + len(m.lit)
	case m.fold != nil:
		i := m.fold.index(b)
		return i, i + len(m.fold.pat)
	}
	loc := m.re.FindIndex(b)
	if loc == nil {
		return -1, -1
	}
	return loc[0], loc[1]
}

// scan reports every matching line of region (whole lines, the last one possibly without its
// newline) with its 1-based number, counting from firstLine. It stops when emit returns false and
// returns the number of the line after the region and whether it was stopped.
func (m *grepMatcher) scan(region []byte, firstLine int, emit func(line int, text []byte) bool) (int, bool) {
	at, counted, line := 0, 0, firstLine
	for at < len(region) {
		start, end := m.find(region[at:])
		if start < 0 {
			break
		}
		start += at
		end += at
		ls := bytes.LastIndexByte(region[:start], '\n') + 1
		le := len(region)
		if i := bytes.IndexByte(region[start:], '\n'); i >= 0 {
			le = start + i
		}
		if m.re != nil && (m.lit != nil || m.fold != nil || end > le) && !m.re.Match(region[ls:le]) {
			// The literal is there but the regex does not match this line (or the match ran past it).
			at = le + 1
			continue
		}
		line += bytes.Count(region[counted:ls], []byte{'\n'})
		counted = ls
		textEnd := le
		if le < len(region) {
			textEnd = le + 1
		}
		if !emit(line, region[ls:textEnd]) {
			return line, true
		}
		at = le + 1
	}
	return line + bytes.Count(region[counted:], []byte{'\n'}), false
}

// grepScanner searches files with one reusable buffer.
type grepScanner struct {
	m   *grepMatcher
	buf []byte
}

// grepBufferSize is ripgrep's initial line buffer: binary detection looks at what each fill reads,
// so the same size gives the same verdicts.
const grepBufferSize = 64 * 1024

// searchFile reports the matching lines of one file, at most max. With quitOnNUL (files found by
// walking, not named), a NUL byte ends the search as in ripgrep: lines of the buffer fill that saw
// it and everything after are not searched. Like ripgrep, a UTF-8 byte-order mark is dropped and a
// UTF-16 file (with its mark) is searched as UTF-8.
func (s *grepScanner) searchFile(path string, quitOnNUL bool, max int, emit func(line int, text []byte)) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return s.search(grepFD(fd), true, quitOnNUL, max, emit)
}

// grepFD reads a file descriptor without the os.File machinery (one syscall per read).
type grepFD int

func (fd grepFD) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (s *grepScanner) search(r io.Reader, sniffBOM, quitOnNUL bool, max int, emit func(line int, text []byte)) error {
	if s.buf == nil {
		s.buf = make([]byte, grepBufferSize)
	}
	buf := s.buf
	defer func() {
		if len(buf) <= 4*grepBufferSize {
			s.buf = buf
		}
	}()
	end, line, found := 0, 1, 0
	eof := false
	for !eof {
		// Fill the free space up to the buffer's size, like one read of ripgrep's line buffer.
		oldEnd := end
		for end < len(buf) {
			n, err := r.Read(buf[end:])
			end += n
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				return err
			}
		}
		if sniffBOM {
			sniffBOM = false
			switch {
			case bytes.HasPrefix(buf[:end], []byte{0xEF, 0xBB, 0xBF}):
				end = copy(buf, buf[3:end])
			case bytes.HasPrefix(buf[:end], []byte{0xFF, 0xFE}), bytes.HasPrefix(buf[:end], []byte{0xFE, 0xFF}):
				rest, err := io.ReadAll(r)
				if err != nil {
					return err
				}
				text := grepDecodeUTF16(append(append([]byte(nil), buf[:end]...), rest...))
				return s.search(bytes.NewReader(text), false, quitOnNUL, max, emit)
			}
		}
		if quitOnNUL && bytes.IndexByte(buf[oldEnd:end], 0) >= 0 {
			break
		}
		region := buf[:end]
		if !eof {
			last := bytes.LastIndexByte(region, '\n')
			if last < 0 {
				// One line fills the buffer: grow it and read on.
				grown := make([]byte, 2*len(buf))
				copy(grown, buf[:end])
				buf = grown
				continue
			}
			region = buf[:last+1]
		}
		var stopped bool
		line, stopped = s.m.scan(region, line, func(n int, text []byte) bool {
			emit(n, text)
			found++
			return found < max
		})
		if stopped {
			break
		}
		end = copy(buf, buf[len(region):end])
	}
	return nil
}

// grepDecodeUTF16 turns UTF-16 with a byte-order mark into UTF-8 (the mark dropped, bad units as
// U+FFFD).
func grepDecodeUTF16(b []byte) []byte {
	big := b[0] == 0xFE
	b = b[2:]
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if big {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	out := []byte(string(utf16.Decode(units)))
	if len(b)%2 == 1 {
		out = append(out, "\uFFFD"...)
	}
	return out
}
