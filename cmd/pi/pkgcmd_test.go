package main

import "testing"

// pi update's targets and conflicts, as pi's parsePackageCommand decides them.
func TestParsePackageUpdateTargets(t *testing.T) {
	cases := []struct {
		args                       []string
		target, extension, problem string
		note                       bool
	}{
		{args: []string{"update"}, target: "self", note: true},
		{args: []string{"update", "--extensions"}, target: "extensions"},
		{args: []string{"update", "--self", "--extensions"}, target: "all"},
		{args: []string{"update", "--all"}, target: "all"},
		{args: []string{"update", "pi"}, target: "self"},
		{args: []string{"update", "self", "--extensions"}, target: "all"},
		{args: []string{"update", "npm:foo"}, target: "extensions", extension: "npm:foo"},
		{args: []string{"update", "--extension", "git:github.com/u/r"}, target: "extensions", extension: "git:github.com/u/r"},
		{args: []string{"update", "--models"}, target: "models"},
		{args: []string{"update", "npm:foo", "--all"}, target: "extensions", extension: "npm:foo", problem: "--all cannot be combined with a positional source"},
		{args: []string{"update", "--extension"}, target: "self", problem: "missing --extension", note: true},
		{args: []string{"update", "--extension", "a", "--extension", "b"}, target: "extensions", extension: "a", problem: "--extension can only be provided once"},
		{args: []string{"update", "-l"}, target: "self", problem: "option -l", note: true},
	}
	for _, c := range cases {
		got := parsePackageCommand(c.args)
		problem := got.conflict
		if got.missingValue != "" {
			problem = "missing " + got.missingValue
		}
		if got.invalidOption != "" {
			problem = "option " + got.invalidOption
		}
		if got.target != c.target || got.extension != c.extension || problem != c.problem || got.skippedExtsNote != c.note {
			t.Errorf("%v: got target %q extension %q problem %q note %v", c.args, got.target, got.extension, problem, got.skippedExtsNote)
		}
	}
	if c := parsePackageCommand([]string{"uninstall", "-l", "./x", "--approve"}); c.command != "remove" || !c.local || c.source != "./x" || c.approve == nil || !*c.approve {
		t.Errorf("uninstall: %+v", c)
	}
}
