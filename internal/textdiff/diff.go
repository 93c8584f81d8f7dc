package textdiff

import (
	"fmt"
	"strings"
)

// A line diff computed like jsdiff's diffLines (the library pi uses; same Myers variant and
// tie-breaks, so the hunks agree line for line), printed in pi's numbered format.

// part is one run of a line diff: lines common to both sides, added, or removed.
type part struct {
	lines          []string // each may end with its "\n" (see partLine)
	added, removed bool
}

// partLine is a line of a part without its line break.
func partLine(token string) string { return strings.TrimSuffix(token, "\n") }

// component is a link of the reversed list of runs a diff path has taken.
type component struct {
	count          int
	added, removed bool
	prev           *component
}

type diffPath struct {
	oldPos int // last old token consumed
	last   *component
}

// diagonals maps a diagonal (old position minus new position, may be negative) to the
// furthest path on it.
type diagonals struct{ pos, neg []*diffPath }

func (d *diagonals) get(k int) *diffPath {
	if k >= 0 {
		if k < len(d.pos) {
			return d.pos[k]
		}
		return nil
	}
	if -k-1 < len(d.neg) {
		return d.neg[-k-1]
	}
	return nil
}

func (d *diagonals) set(k int, p *diffPath) {
	s, i := &d.pos, k
	if k < 0 {
		s, i = &d.neg, -k-1
	}
	for len(*s) <= i {
		if p == nil {
			return
		}
		*s = append(*s, nil)
	}
	(*s)[i] = p
}

// splitLines splits s into lines that keep their "\n" (the last one may lack it).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	tokens := strings.SplitAfter(s, "\n")
	if tokens[len(tokens)-1] == "" {
		tokens = tokens[:len(tokens)-1]
	}
	return tokens
}

// diffLines diffs two texts line by line.
func diffLines(oldText, newText string) []part {
	oldT, newT := splitLines(oldText), splitLines(newText)
	oldLen, newLen := len(oldT), len(newT)

	extractCommon := func(p *diffPath, diagonal int) int {
		oldPos := p.oldPos
		newPos := oldPos - diagonal
		common := 0
		for newPos+1 < newLen && oldPos+1 < oldLen && oldT[oldPos+1] == newT[newPos+1] {
			newPos++
			oldPos++
			common++
		}
		if common > 0 {
			p.last = &component{count: common, prev: p.last}
		}
		p.oldPos = oldPos
		return newPos
	}
	addToPath := func(p *diffPath, added, removed bool, oldPosInc int) *diffPath {
		last := p.last
		if last != nil && last.added == added && last.removed == removed {
			return &diffPath{oldPos: p.oldPos + oldPosInc,
				last: &component{count: last.count + 1, added: added, removed: removed, prev: last.prev}}
		}
		return &diffPath{oldPos: p.oldPos + oldPosInc,
			last: &component{count: 1, added: added, removed: removed, prev: last}}
	}
	build := func(last *component) []part {
		var comps []*component
		for c := last; c != nil; c = c.prev {
			comps = append(comps, c)
		}
		parts := make([]part, 0, len(comps))
		oldPos, newPos := 0, 0
		for i := len(comps) - 1; i >= 0; i-- {
			c := comps[i]
			var tokens []string
			if c.removed {
				tokens = oldT[oldPos : oldPos+c.count]
				oldPos += c.count
			} else {
				tokens = newT[newPos : newPos+c.count]
				newPos += c.count
				if !c.added {
					oldPos += c.count
				}
			}
			parts = append(parts, part{lines: tokens, added: c.added, removed: c.removed})
		}
		return parts
	}

	var best diagonals
	start := &diffPath{oldPos: -1}
	best.set(0, start)
	newPos := extractCommon(start, 0)
	if start.oldPos+1 >= oldLen && newPos+1 >= newLen {
		return build(start.last)
	}
	// Once a diffPath reaches the right or bottom edge, diagonals beyond it need not be considered.
	minDiagonal, maxDiagonal := -(oldLen + newLen + 1), oldLen+newLen+1
	for editLength := 1; editLength <= oldLen+newLen; editLength++ {
		for diagonal := max(minDiagonal, -editLength); diagonal <= min(maxDiagonal, editLength); diagonal += 2 {
			removePath, addPath := best.get(diagonal-1), best.get(diagonal+1)
			if removePath != nil {
				best.set(diagonal-1, nil)
			}
			canAdd := false
			if addPath != nil {
				addNewPos := addPath.oldPos - diagonal
				canAdd = 0 <= addNewPos && addNewPos < newLen
			}
			canRemove := removePath != nil && removePath.oldPos+1 < oldLen
			if !canAdd && !canRemove {
				best.set(diagonal, nil)
				continue
			}
			// Branch from the diffPath that got furthest through the old text.
			var p *diffPath
			if !canRemove || (canAdd && removePath.oldPos < addPath.oldPos) {
				p = addToPath(addPath, true, false, 0)
			} else {
				p = addToPath(removePath, false, true, 1)
			}
			newPos = extractCommon(p, diagonal)
			if p.oldPos+1 >= oldLen && newPos+1 >= newLen {
				return build(p.last)
			}
			best.set(diagonal, p)
			if p.oldPos+1 >= oldLen {
				maxDiagonal = min(maxDiagonal, diagonal-1)
			}
			if newPos+1 >= newLen {
				minDiagonal = max(minDiagonal, diagonal+1)
			}
		}
	}
	return nil // unreachable: editLength oldLen+newLen always reaches the end
}

// DefaultContext is how many unchanged lines pi shows around a change.
const DefaultContext = 4

// Format renders the change from oldText to newText in pi's format (pi's generateDiffString):
// "+"/"-"/" ", the line number right-aligned (new numbers for added lines, old numbers otherwise), a
// space, the text; context lines around changes and " <pad> ..." for skipped stretches. It also
// returns the first changed line in the new text (0 when nothing changed).
func Format(oldText, newText string, contextLines int) (string, int) {
	parts := diffLines(oldText, newText)
	width := len(fmt.Sprint(max(strings.Count(oldText, "\n"), strings.Count(newText, "\n")) + 1))
	var out []string
	line := func(sign byte, n int, text string) {
		out = append(out, fmt.Sprintf("%c%*d %s", sign, width, n, partLine(text)))
	}
	skipped := " " + strings.Repeat(" ", width) + " ..."
	oldNum, newNum, firstChanged := 1, 1, 0
	lastWasChange := false
	for i, part := range parts {
		raw := part.lines
		if part.added || part.removed {
			if firstChanged == 0 {
				firstChanged = newNum
			}
			for _, text := range raw {
				if part.added {
					line('+', newNum, text)
					newNum++
				} else {
					line('-', oldNum, text)
					oldNum++
				}
			}
			lastWasChange = true
			continue
		}
		context := func(lines []string) {
			for _, text := range lines {
				line(' ', oldNum, text)
				oldNum++
				newNum++
			}
		}
		skip := func(n int) {
			out = append(out, skipped)
			oldNum += n
			newNum += n
		}
		nextIsChange := i < len(parts)-1 && (parts[i+1].added || parts[i+1].removed)
		switch {
		case lastWasChange && nextIsChange:
			if len(raw) <= contextLines*2 {
				context(raw)
			} else {
				context(raw[:contextLines])
				skip(len(raw) - 2*contextLines)
				context(raw[len(raw)-contextLines:])
			}
		case lastWasChange:
			shown := raw[:min(contextLines, len(raw))]
			context(shown)
			if n := len(raw) - len(shown); n > 0 {
				skip(n)
			}
		case nextIsChange:
			n := max(0, len(raw)-contextLines)
			if n > 0 {
				skip(n)
			}
			context(raw[n:])
		default:
			oldNum += len(raw)
			newNum += len(raw)
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), firstChanged
}
