package tools

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// toolDefinition is a tool as the model sees it: its name, its description (the .md file beside it)
// and the JSON schema of its arguments.
func toolDefinition(name, description, schema string) provider.ToolDefinition {
	return provider.ToolDefinition{Name: name, Description: strings.TrimSpace(description), Parameters: json.RawMessage(schema)}
}

// preferStrictSampling is the constrained-sampling preference pi 1.6 gives read, bash, edit and
// write: strict JSON-schema sampling where the provider offers it. It is part of their declaration in
// the transcript's system messages.
var preferStrictSampling = json.RawMessage(`{"type":"json_schema","strict":"prefer"}`)

// withPreferStrictSampling is def declaring preferStrictSampling.
func withPreferStrictSampling(def provider.ToolDefinition) provider.ToolDefinition {
	def.ConstrainedSampling = preferStrictSampling
	return def
}

// errAborted is what a tool returns when the run is aborted (pi's text, the same for read, write,
// edit, grep, find and ls).
var errAborted = errors.New("Operation aborted")
