package session

import "github.com/pi-go/pi-go/internal/provider"

// DecodeMessage decodes the message of a message entry with d without keeping it in the entry, for
// readers that pass over every message once (the HTML export) and must not hold a large session
// decoded in memory. A message already decoded by Message is returned as it is.
func (e *Entry) DecodeMessage(d *provider.MessageDecoder) (provider.Message, error) {
	m, _, err := e.decodeMessage(d.Decode)
	return m, err
}
