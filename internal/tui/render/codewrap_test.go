package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// A code line wider than the screen breaks between words, and its continuation rows keep the
// line's indentation.
func TestCodeLinesWrapBetweenWordsKeepingTheirIndent(t *testing.T) {
	r := New(Options{Theme: theme.Dark(termenv.TrueColor), Home: "/home/user"})
	md := "```go\nfunc main() {\n        if someCondition && anotherCondition || thirdCondition { return }\n}\n```"
	m := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(md)}}
	var got []string
	for _, l := range r.AssistantMessage(m, AssistantOptions{}, 40) {
		got = append(got, strings.TrimRight(ansi.Strip(l), " "))
	}
	want := []string{
		"",
		" ```go",
		"   func main() {",
		"           if someCondition &&",
		"           anotherCondition ||",
		"           thirdCondition { return }",
		"   }",
		" ```",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
