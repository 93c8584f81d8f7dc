// Package lazyregexp is a regular expression compiled on its first use. A package-level
// regexp.MustCompile runs in every process that links the package, before main, whether the
// expression is ever used or not (pi --version links the error classifiers and the demo model's
// intent patterns); a Regexp declared with New costs nothing until it is matched.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. A Regexp must not be copied after first use.
// Its methods are those of regexp.Regexp, and it is safe for concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns a Regexp for expr. An invalid expression panics on first use, as regexp.MustCompile
// panics at initialisation.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Re is the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// String is the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// The methods below are regexp.Regexp's, on the compiled expression.

func (r *Regexp) MatchString(s string) bool                  { return r.Re().MatchString(s) }
func (r *Regexp) FindString(s string) string                 { return r.Re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int             { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string       { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int     { return r.Re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllString(s string, n int) []string     { return r.Re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.Re().FindAllStringIndex(s, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
