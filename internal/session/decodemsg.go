package session

import (
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
)

// DecodeMessage decodes the message of a message entry with d without keeping it in the entry, for
// readers that pass over every message once (the HTML export) and must not hold a large session
// decoded in memory. A message already decoded by Message is returned as it is.
func (e *Entry) DecodeMessage(d *provider.MessageDecoder) (provider.Message, error) {
	if e.Type != TypeMessage {
		return nil, fmt.Errorf("entry %s is a %s entry, not a message", e.ID, e.Type)
	}
	if m := e.cached(); m != nil {
		return m, nil
	}
	line, err := e.Raw()
	if err != nil {
		return nil, err
	}
	m, err := d.Decode(line[e.msgStart:e.msgEnd])
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	return m, nil
}
