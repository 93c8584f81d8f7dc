package rpc

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// lineReader splits a byte stream into records as pi's RPC reader does: on LF only (U+2028 and U+2029
// are ordinary characters), one trailing CR removed, and a last record without LF still returned at
// the end of the stream.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// next returns the next record. A record longer than max bytes is read through and discarded, and
// reported with tooLong set (its size in bytes in size), so one oversized line never costs more than
// max bytes of memory and never desynchronises the records after it. err is io.EOF after the last
// record, or the read error.
func (l *lineReader) next() (line []byte, size int64, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, rerr := l.r.ReadSlice('\n')
		size += int64(len(chunk))
		if !tooLong {
			// max+2 leaves room for the CR and LF that are not part of the record.
			if len(buf)+len(chunk) > l.max+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case rerr == nil:
			buf = buf[:max(len(buf)-1, 0)]
			size--
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF) && size > 0:
			// The last record had no LF; the next call reports EOF.
		default:
			return nil, 0, false, rerr
		}
		if n := len(buf); n > 0 && buf[n-1] == '\r' {
			buf = buf[:n-1]
		}
		if tooLong || len(buf) > l.max {
			return nil, size, true, nil
		}
		if buf == nil {
			buf = []byte{}
		}
		return buf, size, false, nil
	}
}

// decodeUTF8 turns a record into text as Node's UTF-8 decoder does: each maximal ill-formed
// subsequence becomes one U+FFFD (the WHATWG rule), so positions in error messages match pi's.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			sb.WriteByte(b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return sb.String()
}

// maximalSubpart is the length of the ill-formed sequence starting at b[0]: a valid lead byte and the
// valid continuation bytes after it, or the single invalid byte.
func maximalSubpart(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}
