package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// Error texts are worded so that provider.IsRetryable classifies them as pi classifies the errors of
// its SDK: refused and failed connections, drops and timeouts are transient; TLS failures and malformed
// data are not.

// httpErrorMessage formats an error status the way pi's SDK does, "<status> <server's message>", with
// "<status> status code (no body)" for an empty body. Unlike pi, a body without an "error" object
// (vLLM's {"message": …}, FastAPI's {"detail": …}, plain text) is still quoted; a client error a retry
// cannot fix (400 that is not an overflow, 401, 403, 404) names the URL; and a server-requested wait
// beyond maxRetryDelay (when > 0) is said to end the attempts.
func httpErrorMessage(status int, body []byte, target string, retryAfter time.Duration, hasRetryAfter bool,
	maxRetryDelay time.Duration) string {
	text := serverErrorText(body)
	var msg string
	if text == "" {
		msg = fmt.Sprintf("%d status code (no body)", status)
	} else {
		msg = fmt.Sprintf("%d %s", status, text)
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		if !provider.IsContextOverflow(&provider.AssistantMessage{StopReason: provider.StopReasonError, ErrorMessage: msg}, 0) {
			msg += " (POST " + target + ")"
		}
	}
	if hasRetryAfter {
		msg += fmt.Sprintf(" (retry after %s)", retryAfter.Round(time.Second))
		if maxRetryDelay > 0 && retryAfter > maxRetryDelay {
			msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
				seconds(retryAfter), seconds(maxRetryDelay), provider.NotRetryingNote)
		}
	}
	return msg
}

// serverErrorText extracts the human part of an error body.
func serverErrorText(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return plainText(body)
	}
	if e, ok := obj["error"]; ok && truthy(bytes.TrimSpace(e)) {
		return errorObjectText(e)
	}
	for _, k := range []string{"message", "detail", "error_message"} {
		if v, ok := obj[k]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil && s != "" {
				return s
			}
			if t := compactJSON(v); t != "" && t != "null" {
				return t
			}
		}
	}
	return compactJSON(body)
}

// errorObjectText is the text of an "error" member, in an error response or inside the stream: its
// message (or the whole value when there is none), plus OpenRouter's upstream details in metadata.raw.
func errorObjectText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e struct {
		Message  json.RawMessage `json:"message"`
		Metadata struct {
			Raw json.RawMessage `json:"raw"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return compactJSON(raw)
	}
	var text string
	switch {
	case json.Unmarshal(e.Message, &text) == nil && text != "":
	case len(e.Message) > 0 && string(e.Message) != "null":
		// go-openai joins a list of messages (schema errors); so do we.
		var list []string
		if json.Unmarshal(e.Message, &list) == nil {
			text = strings.Join(list, ", ")
		} else {
			text = compactJSON(e.Message)
		}
	default:
		text = compactJSON(raw)
	}
	if r := e.Metadata.Raw; len(r) > 0 && truthy(bytes.TrimSpace(r)) {
		var rs string
		if json.Unmarshal(r, &rs) != nil {
			rs = compactJSON(r)
		}
		text += "\n" + rs
	}
	return text
}

func compactJSON(v []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return plainText(v)
	}
	return b.String()
}

// plainText shortens a non-JSON body (an HTML error page, a proxy's message) to a readable line.
func plainText(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	const limit = 500
	if len(s) > limit {
		s = truncate(s, limit) + "…"
	}
	return s
}

// redactURL hides credentials that may be written into a base URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// secretHeader reports headers whose values must never be quoted.
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "auth") || strings.Contains(n, "key") || strings.Contains(n, "token") ||
		strings.Contains(n, "secret") || strings.Contains(n, "cookie")
}

// redactor removes secrets (the API key and secret header values) from a text.
type redactor []string

func newRedactor(apiKey string, headers map[string]string) redactor {
	var r redactor
	if len(apiKey) >= 4 {
		r = append(r, apiKey)
	}
	for k, v := range headers {
		if secretHeader(k) {
			v = strings.TrimSpace(strings.TrimPrefix(v, "Bearer "))
			if len(v) >= 4 {
				r = append(r, v)
			}
		}
	}
	return r
}

func (r redactor) apply(s string) string {
	for _, secret := range r {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}

// seconds writes a wait for people: "300 s", "1.5 s", "50 ms".
func seconds(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + " s"
}
