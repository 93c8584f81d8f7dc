package harness

import (
	"slices"
	"testing"
)

// The active tools as pi 1.6's createAgentSession and tool registry pick them.
func TestSelectToolNames(t *testing.T) {
	for _, tc := range []struct {
		sel      ToolSelection
		want     []string
		warnings int
	}{
		{ToolSelection{}, []string{"read", "bash", "edit", "write"}, 0},
		{ToolSelection{Defaults: []string{"ls", "read"}}, []string{"ls", "read"}, 0},
		{ToolSelection{Defaults: []string{}}, nil, 0},
		{ToolSelection{Tools: []string{"gr*", "read"}, ToolsSet: true}, []string{"read", "grep"}, 0},
		{ToolSelection{Tools: []string{"*"}, ToolsSet: true}, BuiltinToolNames, 0},
		{ToolSelection{Tools: []string{"+grep", "-bash"}, ToolsSet: true}, []string{"read", "edit", "write", "grep"}, 0},
		{ToolSelection{Tools: []string{"+grep"}, ToolsSet: true, NoTools: true}, []string{"grep"}, 0},
		{ToolSelection{NoTools: true}, nil, 0},
		{ToolSelection{Tools: []string{"ls"}, ToolsSet: true, NoTools: true}, []string{"ls"}, 0},
		{ToolSelection{Tools: nil, ToolsSet: true}, nil, 0},
		{ToolSelection{Exclude: []string{"b*", "write"}}, []string{"read", "edit"}, 0},
		{ToolSelection{Tools: []string{"read", "nope", "x*"}, ToolsSet: true}, []string{"read"}, 2},
		{ToolSelection{Tools: []string{"+nope"}, ToolsSet: true}, []string{"read", "bash", "edit", "write"}, 1},
		{ToolSelection{Defaults: []string{"codemode", "read"}}, []string{"read"}, 0},
	} {
		got, warnings := SelectToolNames(tc.sel)
		if !slices.Equal(got, tc.want) || len(warnings) != tc.warnings {
			t.Errorf("%+v: %q %q, want %q and %d warnings", tc.sel, got, warnings, tc.want, tc.warnings)
		}
	}
}

func TestMatchStar(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"gr*", "grep", true}, {"*", "", true}, {"*e*", "read", true}, {"*e*", "bash", false},
		{"r*d", "read", true}, {"r*d", "reads", false}, {"a*a", "a", false}, {"a*a", "aa", true},
		{"*ep", "grep", true}, {"g*e*p", "grep", true}, {"mcp__*__x", "mcp__s__x", true},
	} {
		if got := matchStar(tc.pattern, tc.name); got != tc.want {
			t.Errorf("matchStar(%q, %q) = %v", tc.pattern, tc.name, got)
		}
	}
}
