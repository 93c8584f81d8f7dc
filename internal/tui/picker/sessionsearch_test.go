package picker

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/session"
)

func TestThreadSessionsNestsForks(t *testing.T) {
	now := time.Now()
	infos := []session.Info{
		{Path: "/s/c", Modified: now, ParentSessionPath: "/s/a"},
		{Path: "/s/b", Modified: now.Add(-time.Minute)},
		{Path: "/s/a", Modified: now.Add(-2 * time.Minute)},
		{Path: "/s/d", Modified: now.Add(-3 * time.Minute), ParentSessionPath: "/s/c"},
		{Path: "/s/e", Modified: now.Add(-4 * time.Minute), ParentSessionPath: "/s/missing"},
	}
	var got []string
	for _, r := range threadSessions(infos) {
		got = append(got, strings.Repeat(">", r.depth)+filepath.Base(r.info.Path))
	}
	if want := "b a >c >>d e"; strings.Join(got, " ") != want {
		t.Fatalf("threaded = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestSessionQuerySyntax(t *testing.T) {
	in := session.Info{ID: "0123abcd", Name: "Refactor parser", FirstMessage: "please   fix the   lexer", Cwd: "/home/u/proj"}
	for q, want := range map[string]bool{
		"":                true,
		"rfp":             true,  // fuzzy
		`"fix the lexer"`: true,  // phrase, whitespace squeezed
		`"lexer fix"`:     false, // phrase order matters
		"re:^0123":        true,
		"re:PARSER$":      false, // the name is followed by the first message
		"re:(":            false, // bad regex matches nothing
		`"fix lex`:        true,  // unbalanced quote: plain tokens
	} {
		got := len(filterSessions([]session.Info{in}, q, sortRecent)) == 1
		if got != want {
			t.Errorf("query %q matches = %v, want %v", q, got, want)
		}
	}
}
