package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/pi-go/pi-go/internal/provider"
)

// statusMessage words an error status as pi's SDK does, "<status> <body>" ("529 {"type":"error",
// "error":{"type":"overloaded_error",…}}"), which provider.IsRetryable reads: overloaded and 429 are
// transient, 400/401/403/404 are not. A Retry-After longer than maxRetryDelay (when > 0) ends the
// attempts, as pi's does.
func statusMessage(e *sdk.Error, maxRetryDelay time.Duration) string {
	body := strings.TrimSpace(e.RawJSON())
	var msg string
	if body == "" {
		msg = fmt.Sprintf("%d status code (no body)", e.StatusCode)
	} else {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(body)) == nil {
			body = compact.String()
		}
		msg = fmt.Sprintf("%d %s", e.StatusCode, body)
	}
	if e.Response != nil {
		if ra, ok := provider.ServerRetryWait(e.Response.Header, time.Now()); ok {
			msg += fmt.Sprintf(" (retry after %s)", ra.Round(time.Second))
			if maxRetryDelay > 0 && ra > maxRetryDelay {
				msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
					ra.Round(time.Second), maxRetryDelay.Round(time.Second), provider.NotRetryingNote)
			}
		}
	}
	return msg
}

// connectionLostMessage words a stream that broke off.
func connectionLostMessage(err error) string {
	return fmt.Sprintf("Connection lost: %v", err)
}

// redact removes the API key from a message.
func redact(msg, key string) string {
	if key == "" {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}
