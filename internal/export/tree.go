package export

import "strconv"

// treeRow is what the sidebar keeps of an entry: a few bytes, so the tree of a huge session costs
// little memory.
type treeRow struct {
	id, parent, kind, text string
}

// writeTree writes the session tree as a flat list in depth-first order. A row is indented only
// where the conversation branches (as pi's /tree draws it), so a long linear session does not
// march off to the right, and the list is flat so the browser never nests thousands of elements.
func (p *page) writeTree() {
	index := make(map[string]int, len(p.rows))
	for i, r := range p.rows {
		index[r.id] = i
	}
	children := make(map[string][]int, len(p.rows))
	var roots []int
	for i, r := range p.rows {
		if _, ok := index[r.parent]; r.parent == "" || !ok || r.parent == r.id {
			roots = append(roots, i)
			continue
		}
		children[r.parent] = append(children[r.parent], i)
	}
	p.str("<nav id=\"tree\">\n<div class=\"tree-head\"><input id=\"tree-filter\" type=\"search\" placeholder=\"Filter the tree…\">" +
		"<label><input type=\"checkbox\" id=\"tree-tools\"> tool results</label></div>\n<div id=\"tree-rows\">\n")
	type frame struct{ row, depth int }
	stack := make([]frame, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{roots[i], 0})
	}
	seen := make([]bool, len(p.rows))
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[f.row] {
			continue
		}
		seen[f.row] = true
		r := p.rows[f.row]
		p.writeRow(r, f.depth)
		kids := children[r.id]
		depth := f.depth
		if len(kids) > 1 {
			depth++
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{kids[i], depth})
		}
	}
	p.str("</div>\n</nav>\n")
}

func (p *page) writeRow(r treeRow, depth int) {
	p.str(`<a class="row k-` + r.kind)
	if p.active[r.id] {
		p.str(" on")
	}
	if r.id == p.src.LeafID {
		p.str(" leaf")
	}
	p.str(`" href="#e-`)
	p.esc(r.id)
	p.str(`" data-id="`)
	p.esc(r.id)
	p.str(`" data-p="`)
	p.esc(r.parent)
	p.str(`" style="--d:` + strconv.Itoa(min(depth, 40)) + `">`)
	if l := p.labels[r.id]; l != "" {
		p.str(`<span class="label">`)
		p.esc(l)
		p.str("</span> ")
	}
	p.esc(r.text)
	p.str("</a>\n")
}
