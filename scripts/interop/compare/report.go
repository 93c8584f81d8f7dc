package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// report prints findings as they come, every line of them also to a file (stdout shows at most
// maxLines per comparison), and counts the kinds of differences per check for the summary.
type report struct {
	verbose     bool
	maxLines    int
	differences int
	errors      int

	file    io.WriteCloser
	current string
	noted   map[string]bool
	// kinds[check][kind] counts difference lines; example[check][kind] is the first comparison.
	kinds   map[string]map[string]int
	example map[string]map[string]string
	order   []string
}

func newReport(path string, verbose bool, maxLines int) (*report, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &report{verbose: verbose, maxLines: maxLines, file: f, noted: map[string]bool{},
		kinds: map[string]map[string]int{}, example: map[string]map[string]string{}}, nil
}

func (r *report) close() { r.file.Close() }

func (r *report) printf(format string, args ...any) {
	fmt.Printf(format, args...)
	fmt.Fprintf(r.file, format, args...)
}

func (r *report) section(name string) {
	r.current = name
	r.noted = map[string]bool{}
	r.order = append(r.order, name)
	r.printf("\n=== %s\n", name)
}

// same records a comparison that matched.
func (r *report) same(what string) {
	if r.verbose {
		r.printf("  same: %s\n", what)
	}
}

// diffs records the differences of one comparison (none: it matched).
func (r *report) diffs(what string, d []string) {
	if len(d) == 0 {
		r.same(what)
		return
	}
	r.differences++
	r.printf("  DIFF %s:\n", what)
	for i, line := range d {
		if r.maxLines <= 0 || i < r.maxLines {
			fmt.Printf("    %s\n", line)
		} else if i == r.maxLines {
			fmt.Printf("    … %d more (diffs.txt has them)\n", len(d)-i)
		}
		fmt.Fprintf(r.file, "    %s\n", line)
		r.count(what, line)
	}
}

func (r *report) count(what, line string) {
	if r.kinds[r.current] == nil {
		r.kinds[r.current] = map[string]int{}
		r.example[r.current] = map[string]string{}
	}
	k := diffKind(line)
	if r.kinds[r.current][k] == 0 {
		r.example[r.current][k] = what
	}
	r.kinds[r.current][k]++
}

// note records a known, accepted difference.
func (r *report) note(format string, args ...any) {
	r.printf("  note: %s\n", fmt.Sprintf(format, args...))
}

// noteOnce records a note once per check.
func (r *report) noteOnce(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if !r.noted[text] {
		r.noted[text] = true
		r.note("%s", text)
	}
}

func (r *report) errorf(format string, args ...any) {
	r.errors++
	r.printf("  ERROR: %s\n", fmt.Sprintf(format, args...))
}

// printSummary lists, per check, each kind of difference with how many lines had it and the first
// comparison it occurred in, most frequent first.
func (r *report) printSummary() {
	r.printf("\n=== summary: kinds of differences (count, first comparison)\n")
	for _, check := range r.order {
		kinds := r.kinds[check]
		if len(kinds) == 0 {
			continue
		}
		r.printf("  %s: %d kinds\n", check, len(kinds))
		var ks []string
		for k := range kinds {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool {
			if kinds[ks[i]] != kinds[ks[j]] {
				return kinds[ks[i]] > kinds[ks[j]]
			}
			return ks[i] < ks[j]
		})
		for _, k := range ks {
			r.printf("    %5d  %s   (%s)\n", kinds[k], k, r.example[check][k])
		}
	}
}

var (
	lineIndexRe  = regexp.MustCompile(`^\[\d+ `)
	onlyInRe     = regexp.MustCompile(`^line \d+ only in `)
	arrayIndexRe = regexp.MustCompile(`\[\d+\]`)
	lacksAddsRe  = regexp.MustCompile(`^(pi-go (?:lacks|adds) [^(]*?) \(`)
	valuesRe     = regexp.MustCompile(`^pi .*, pi-go `)
)

// diffKind reduces a difference line to its kind: line numbers, array indices and values left out,
// so the same difference on every event of a type counts as one kind.
func diffKind(line string) string {
	line = strings.SplitN(line, "\n", 2)[0]
	if onlyInRe.MatchString(line) {
		return onlyInRe.ReplaceAllString(line, "only in ")
	}
	line = lineIndexRe.ReplaceAllString(line, "[")
	path, rest, ok := strings.Cut(line, ": ")
	if !ok {
		path, rest = strings.TrimSuffix(line, ":"), ""
	}
	path = arrayIndexRe.ReplaceAllString(path, "[]")
	switch {
	case lacksAddsRe.MatchString(rest):
		rest = lacksAddsRe.FindStringSubmatch(rest)[1]
	case strings.HasPrefix(rest, "only in "):
		// "only in pi: system {…}": the side and the element's role or type.
		if f := strings.Fields(rest); len(f) >= 4 {
			rest = strings.Join(f[:4], " ")
		}
	case strings.HasPrefix(rest, "key order "):
	case strings.HasPrefix(rest, "length pi "):
		rest = "length differs"
	case valuesRe.MatchString(rest) || rest == "":
		rest = "values differ"
	default:
		if len(rest) > 80 {
			rest = rest[:80] + "…"
		}
	}
	return path + ": " + rest
}
