package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ArgumentCompletion is one suggestion a command gives for its arguments (pi's AutocompleteItem).
type ArgumentCompletion struct {
	Value       string `json:"value"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// completionTimeout bounds one completion call: the editor asks on every keystroke, and a slow
// extension must not leave a stale list for long.
const completionTimeout = 5 * time.Second

// CompleteCommand asks the extension that registered the command name for completions of prefix,
// the argument text typed so far. None (nil) when the command completes nothing or answers null.
func (h *Host) CompleteCommand(ctx context.Context, name, prefix string) ([]ArgumentCompletion, error) {
	for _, p := range h.live(ctx) {
		for _, c := range p.registrations().Commands {
			if c.Name != name {
				continue
			}
			if !c.Completes {
				return nil, nil
			}
			res, err := p.call(ctx, hostMessage{Type: msgComplete, Name: name, Prefix: &prefix}, completionTimeout, nil)
			if err != nil {
				return nil, fmt.Errorf("/%s completions: %w", name, err)
			}
			if len(res) == 0 || string(res) == "null" {
				return nil, nil
			}
			var items []ArgumentCompletion
			if err := json.Unmarshal(res, &items); err != nil {
				return nil, fmt.Errorf("/%s completions: %w", name, err)
			}
			return items, nil
		}
	}
	return nil, nil
}
