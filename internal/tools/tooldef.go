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

// errAborted is what a tool returns when the run is aborted (pi's text, the same for read, write,
// edit, grep, find and ls).
var errAborted = errors.New("Operation aborted")
