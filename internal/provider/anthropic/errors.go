package anthropic

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
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
		if ra, ok := retryAfter(e.Response.Header); ok {
			msg += fmt.Sprintf(" (retry after %s)", ra.Round(time.Second))
			if maxRetryDelay > 0 && ra > maxRetryDelay {
				msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
					ra.Round(time.Second), maxRetryDelay.Round(time.Second), provider.NotRetryingNote)
			}
		}
	}
	return msg
}

// retryAfter reads retry-after-ms or retry-after (seconds or an HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// connectionMessage explains a request that got no HTTP response, worded as the openai package words
// it: nothing listening on a local port or an unknown host are not worth retrying; TLS failures are
// not transient; anything else is a "Connection error", which the retry reads as transient.
func connectionMessage(err error, target string) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		if addr, local := localAddr(err); local {
			return fmt.Sprintf("Connection refused by %s: nothing is listening on %s (is the server running, "+
				"is the base URL right?)%s", target, addr, provider.NotRetryingNote)
		}
		return fmt.Sprintf("Connection refused by %s: is the server running? (%v)", target, err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Sprintf("Cannot resolve host %q for %s: no such host (is the base URL right?)%s",
			dnsErr.Name, target, provider.NotRetryingNote)
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return fmt.Sprintf("TLS error talking to %s: %v", target, err)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("Request to %s timed out: %v", target, err)
	}
	return fmt.Sprintf("Connection error talking to %s: %v", target, err)
}

// localAddr returns the address a refused connection was dialled to, and whether it is on this machine.
func localAddr(err error) (string, bool) {
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Addr == nil {
		return "", false
	}
	host, _, splitErr := net.SplitHostPort(opErr.Addr.String())
	if splitErr != nil {
		return "", false
	}
	ip := net.ParseIP(host)
	return opErr.Addr.String(), ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
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
