package provider

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// ConnectionErrorMessage explains a request to target that got no HTTP response, in the words every
// API package uses: nothing listening on a local port and an unknown host end with NotRetryingNote
// (waiting for them is not worth the user's time); TLS failures are named as such; anything else is a
// "Connection error", which IsRetryable reads as transient.
func ConnectionErrorMessage(err error, target string) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var dnsErr *net.DNSError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr x509.CertificateInvalidError
	var verifyErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		if addr, local := localAddr(err); local {
			// Nothing listens on this machine's port: a mistyped --base-url, or a server not started.
			// Waiting seconds for it is not worth the user's time.
			return fmt.Sprintf("Connection refused by %s: nothing is listening on %s (is the server running, "+
				"is the base URL right?)%s", target, addr, NotRetryingNote)
		}
		return fmt.Sprintf("Connection refused by %s: is the server running? (%v)", target, err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Sprintf("Cannot resolve host %q for %s: no such host (is the base URL right?)%s",
			dnsErr.Name, target, NotRetryingNote)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("Connection error: cannot resolve host %q for %s (%v)", dnsErr.Name, target, err)
	case errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &certErr),
		errors.As(err, &verifyErr), errors.As(err, &recordErr), errors.As(err, &alertErr):
		return fmt.Sprintf("TLS error talking to %s: %v", target, err)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("Request to %s timed out: %v", target, err)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Sprintf("Connection error: %s closed the connection before answering (%v)", target, err)
	}
	return fmt.Sprintf("Connection error talking to %s: %v", target, err)
}

// localAddr returns the address a refused connection was dialled to, and whether it is on this machine
// (a loopback or unspecified IP).
func localAddr(err error) (string, bool) {
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Addr == nil {
		return "", false
	}
	var ip net.IP
	switch a := opErr.Addr.(type) {
	case *net.TCPAddr:
		ip = a.IP
	default:
		host, _, splitErr := net.SplitHostPort(a.String())
		if splitErr != nil {
			return "", false
		}
		ip = net.ParseIP(host)
	}
	return opErr.Addr.String(), ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// ServerRetryWait reads the wait a server asked for: retry-after-ms, then Retry-After (seconds or an
// HTTP date, counted from now). A wait in the past is 0.
func ServerRetryWait(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(ms) {
			return max(time.Duration(ms*float64(time.Millisecond)), 0), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(secs) {
		return max(time.Duration(secs*float64(time.Second)), 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
