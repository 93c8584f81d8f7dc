package main

import (
	"fmt"
	"strings"
)

// diffValues lists the differences between a (pi) and b (pi-go) under path: missing and extra keys,
// key order, array lengths, types and values. Long values are shortened in the report.
func diffValues(path string, a, b any) []string {
	var out []string
	switch x := a.(type) {
	case *Obj:
		y, ok := b.(*Obj)
		if !ok {
			return []string{fmt.Sprintf("%s: pi %s, pi-go %s", path, short(a), short(b))}
		}
		var missing, extra []string
		for _, k := range x.Keys {
			if _, ok := y.M[k]; !ok {
				missing = append(missing, k)
			}
		}
		for _, k := range y.Keys {
			if _, ok := x.M[k]; !ok {
				extra = append(extra, k)
			}
		}
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("%s: pi-go lacks %s (pi: %s)", path, strings.Join(missing, ", "), shortFields(x, missing)))
		}
		if len(extra) > 0 {
			out = append(out, fmt.Sprintf("%s: pi-go adds %s (%s)", path, strings.Join(extra, ", "), shortFields(y, extra)))
		}
		if len(missing) == 0 && len(extra) == 0 && strings.Join(x.Keys, ",") != strings.Join(y.Keys, ",") {
			out = append(out, fmt.Sprintf("%s: key order pi [%s], pi-go [%s]", path, strings.Join(x.Keys, ","), strings.Join(y.Keys, ",")))
		}
		for _, k := range x.Keys {
			if yv, ok := y.M[k]; ok {
				out = append(out, diffValues(path+"."+k, x.M[k], yv)...)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: pi %s, pi-go %s", path, short(a), short(b))}
		}
		if len(x) != len(y) {
			out = append(out, fmt.Sprintf("%s: length pi %d, pi-go %d", path, len(x), len(y)))
			if sa, sb, ok := elementSignatures(x, y); ok {
				return append(out, diffAligned(path, x, y, sa, sb)...)
			}
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			out = append(out, diffValues(fmt.Sprintf("%s[%d]", path, i), x[i], y[i])...)
		}
	default:
		if render(a) != render(b) {
			out = append(out, fmt.Sprintf("%s: pi %s, pi-go %s", path, short(a), short(b)))
		}
	}
	return out
}

func shortFields(o *Obj, keys []string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+short(o.M[k]))
	}
	return strings.Join(parts, " ")
}

func short(v any) string {
	s := render(v)
	if len(s) > 400 {
		s = s[:300] + " … " + s[len(s)-80:]
	}
	return s
}

// elementSignatures names the elements of two arrays of objects by their role or type (messages,
// entries, content blocks), when every element has one.
func elementSignatures(x, y []any) ([]string, []string, bool) {
	sig := func(list []any) ([]string, bool) {
		out := make([]string, len(list))
		for i, v := range list {
			o, ok := v.(*Obj)
			if !ok {
				return nil, false
			}
			if out[i] = o.Str("role"); out[i] == "" {
				out[i] = o.Str("type")
			}
			if out[i] == "" {
				return nil, false
			}
		}
		return out, true
	}
	sa, okA := sig(x)
	sb, okB := sig(y)
	return sa, sb, okA && okB
}

// diffAligned compares arrays of different lengths element by element along a longest common
// subsequence of their signatures, so one extra message (pi 1.6's system message) is reported as
// that, not as every later message differing from its neighbour. Paths use pi's index (pi-go's for
// elements only pi-go has).
func diffAligned(path string, x, y []any, sa, sb []string) []string {
	var out []string
	ia, ib := 0, 0
	flush := func(toA, toB int) {
		for ; ia < toA; ia++ {
			out = append(out, fmt.Sprintf("%s[%d]: only in pi: %s %s", path, ia, sa[ia], short(x[ia])))
		}
		for ; ib < toB; ib++ {
			out = append(out, fmt.Sprintf("%s[%d]: only in pi-go: %s %s", path, ib, sb[ib], short(y[ib])))
		}
	}
	for _, p := range lcs(sa, sb) {
		flush(p[0], p[1])
		out = append(out, diffValues(fmt.Sprintf("%s[%d]", path, p[0]), x[p[0]], y[p[1]])...)
		ia, ib = p[0]+1, p[1]+1
	}
	flush(len(x), len(y))
	return out
}
