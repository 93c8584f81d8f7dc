package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// maxUnbrokenWord is the widest word a column keeps whole when the table must shrink.
const maxUnbrokenWord = 30

// table draws a table in box characters, as pi does: columns at their natural width when the table
// fits, otherwise shrunk towards the width of their longest word (at most maxUnbrokenWord) with
// the cells word-wrapped; the header bold, a rule between every two rows. When not even one column
// each fits, the table's markdown is shown as it is.
func (r *mdRenderer) table(t *mdTable, width int, base mdStyle) []string {
	var rows [][]string // cells' styled text, header first
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		st := base
		if row == t.FirstChild() {
			st = mdStyle{attr: theme.AttrBold}.over(base)
		}
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.cell(c, st))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil
	}
	cols := len(rows[0])
	avail := width - (3*cols + 1) // "│ " + " │ " between columns + " │"
	if avail < cols {
		var out []string
		for _, seg := range t.source {
			l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
			out = append(out, wordWrap(base.apply(r.th, l), width)...)
		}
		return out
	}
	widths := columnWidths(rows, cols, avail, width)

	rule := func(left, mid, right string) string {
		parts := make([]string, cols)
		for i, w := range widths {
			parts[i] = strings.Repeat("─", w)
		}
		return left + "─" + strings.Join(parts, "─"+mid+"─") + "─" + right
	}
	out := []string{rule("┌", "┬", "┐")}
	for i, row := range rows {
		if i > 0 {
			out = append(out, rule("├", "┼", "┤"))
		}
		wrapped := make([][]string, cols)
		height := 1
		for c := range cols {
			wrapped[c] = wordWrap(row[c], widths[c])
			height = max(height, len(wrapped[c]))
		}
		for l := 0; l < height; l++ {
			parts := make([]string, cols)
			for c := range cols {
				s := ""
				if l < len(wrapped[c]) {
					s = wrapped[c][l]
				}
				parts[c] = s + strings.Repeat(" ", max(widths[c]-Width(s), 0))
			}
			out = append(out, "│ "+strings.Join(parts, " │ ")+" │")
		}
	}
	return append(out, rule("└", "┴", "┘"))
}

// cell is a table cell's inline markdown, styled, on one line.
func (r *mdRenderer) cell(c ast.Node, st mdStyle) string {
	w := newInlineWriter(r.th, r.src, st)
	w.inCell = true
	w.children(c)
	return strings.Join(w.lines(), " ")
}

// columnWidths chooses the width of each column: avail cells are left between the borders of a
// table at most width wide.
func columnWidths(rows [][]string, cols, avail, width int) []int {
	natural := make([]int, cols)
	minWord := make([]int, cols)
	for c := range cols {
		minWord[c] = 1
	}
	for _, row := range rows {
		for c, s := range row {
			natural[c] = max(natural[c], Width(s))
			minWord[c] = max(minWord[c], min(longestWord(s), maxUnbrokenWord))
		}
	}
	least := append([]int(nil), minWord...)
	if sum(least) > avail {
		// Not even the longest words fit: every column gets one cell, and the rest is shared in
		// proportion to how much more than one cell each longest word needs.
		extra := avail - cols
		weight := 0
		for _, w := range minWord {
			weight += w - 1
		}
		for c := range least {
			least[c] = 1
			if weight > 0 {
				least[c] += (minWord[c] - 1) * extra / weight
			}
		}
		for c, left := 0, avail-sum(least); left > 0 && c < cols; c, left = c+1, left-1 {
			least[c]++
		}
	}
	widths := make([]int, cols)
	if sum(natural)+3*cols+1 <= width {
		for c := range widths {
			widths[c] = max(natural[c], least[c])
		}
		return widths
	}
	// Shrink: each column gets its least width plus a share of what is left, in proportion to how
	// much it would grow up to its natural width; rounding leftovers go one by one to the columns
	// still below their natural width.
	potential := 0
	for c := range cols {
		potential += max(natural[c]-least[c], 0)
	}
	extra := max(avail-sum(least), 0)
	for c := range widths {
		widths[c] = least[c]
		if potential > 0 {
			widths[c] += max(natural[c]-least[c], 0) * extra / potential
		}
	}
	for left := avail - sum(widths); left > 0; {
		grew := false
		for c := 0; c < cols && left > 0; c++ {
			if widths[c] < natural[c] {
				widths[c]++
				left--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return widths
}

func longestWord(s string) int {
	longest := 0
	for _, w := range strings.Fields(ansi.Strip(s)) {
		longest = max(longest, Width(w))
	}
	return longest
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}
