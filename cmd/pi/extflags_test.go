package main

import (
	"reflect"
	"testing"

	"github.com/spf13/cobra"
)

func TestSplitExtensionFlags(t *testing.T) {
	var opts Options
	var listModels string
	cmd := &cobra.Command{}
	bindFlags(cmd, &opts, &listModels)
	rest, ext := splitExtensionFlags(cmd.Flags(), []string{
		"--plan", "--help", "--model", "--not-a-value", "--preset=fast", "-e", "--x.ts", "hello", "--", "--after"})
	wantRest := []string{"--help", "--model", "--not-a-value", "-e", "--x.ts", "hello", "--", "--after"}
	if !reflect.DeepEqual(rest, wantRest) {
		t.Fatalf("rest %q", rest)
	}
	if !reflect.DeepEqual(ext, map[string]any{"plan": true, "preset": "fast"}) {
		t.Fatalf("extension flags %v", ext)
	}
}
