package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// DefaultMaxAgentDelay is retry.maxAgentDelayMs's default (pi 1.6).
const DefaultMaxAgentDelay = 60 * time.Second

// MaxAgentDelay is retry.maxAgentDelayMs (pi 1.6, default 60 s): the longest the harness waits before an
// automatic retry. The back-off is capped at it; a server that asks for a longer wait is not retried.
// pi reads 0 as "retry at once"; pi-go takes 0 and negative values as unset (the default), since a
// limit of 0 would refuse every server-requested wait.
func (s Settings) MaxAgentDelay() time.Duration {
	if s.Retry.MaxAgentDelayMs > 0 {
		return time.Duration(s.Retry.MaxAgentDelayMs) * time.Millisecond
	}
	return DefaultMaxAgentDelay
}

// HTTPIdleTimeout is httpIdleTimeoutMs (pi 1.6): the longest a request may wait for the response
// headers, or between two reads of the body. 0 means not set (the caller's default applies: pi's is
// 300 s); a negative value means disabled (0 or "disabled" in the file). A value pi refuses is treated
// as not set; SettingsManager.TimeoutWarnings reports it.
func (s Settings) HTTPIdleTimeout() time.Duration { return timeoutSetting(s.HTTPIdleTimeoutMs) }

// ContentIdleTimeout is contentIdleTimeoutMs, a pi-go key that pi ignores: the longest a streaming
// answer may go without content (text, thinking, a tool call, the finish reason or usage) while bytes
// still arrive: keep-alive comments, empty deltas and a body that trickles in do not count. Same values
// and the same 0/negative convention as HTTPIdleTimeout; when not set the caller uses the call's idle
// timeout, so keep-alives never stretch a stream beyond the time a silent one is allowed.
func (s Settings) ContentIdleTimeout() time.Duration { return timeoutSetting(s.ContentIdleTimeoutMs) }

// timeoutKeys are the top-level timeout settings, as their accessors read them.
var timeoutKeys = []string{"httpIdleTimeoutMs", "websocketConnectTimeoutMs", "contentIdleTimeoutMs"}

func timeoutSetting(raw json.RawMessage) time.Duration {
	ms, set, err := parseTimeoutMs(raw)
	switch {
	case !set || err != nil:
		return 0
	case ms == 0:
		return -1
	}
	return time.Duration(min(ms, float64(math.MaxInt64/int64(time.Millisecond)))) * time.Millisecond
}

// parseTimeoutMs reads a timeout as pi 1.6's parseHttpIdleTimeoutMs does: a finite number ≥ 0 (a
// fraction is dropped), a string holding one, or "disabled" (any case) for 0. null and an absent key
// are not set.
func parseTimeoutMs(raw json.RawMessage) (ms float64, set bool, err error) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return 0, false, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, true, err
	}
	switch v := v.(type) {
	case float64:
		ms = v
	case string:
		t := strings.TrimSpace(v)
		if strings.EqualFold(t, "disabled") {
			return 0, true, nil
		}
		n, perr := strconv.ParseFloat(t, 64)
		if t == "" || perr != nil {
			return 0, true, fmt.Errorf("%q is neither a number of milliseconds nor \"disabled\"", v)
		}
		ms = n
	default:
		return 0, true, fmt.Errorf("%s is neither a number of milliseconds nor \"disabled\"", text)
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0, true, fmt.Errorf("%s is not a timeout (milliseconds ≥ 0, or 0 or \"disabled\" to disable it)", text)
	}
	return math.Floor(ms), true, nil
}

// TimeoutWarnings names every timeout setting whose value cannot be used, file by file (pi stops with
// "Invalid httpIdleTimeoutMs setting"; pi-go uses the default and says so).
func (m *SettingsManager) TimeoutWarnings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, f := range []struct {
		path string
		obj  *jsonx.Object
	}{{m.globalPath, m.global}, {m.projectPath, m.project}} {
		if f.obj == nil {
			continue
		}
		for _, key := range timeoutKeys {
			raw, ok := f.obj.Get(key)
			if !ok {
				continue
			}
			if _, _, err := parseTimeoutMs(raw); err != nil {
				out = append(out, fmt.Sprintf("%s: %s: %v; using the default", f.path, key, err))
			}
		}
	}
	return out
}

// ProxyEnv is what the global httpProxy setting adds to the environment (pi 1.6): the proxy as
// HTTP_PROXY and HTTPS_PROXY, each only where the environment has neither spelling of it, so a
// proxy the user exported wins. Go's HTTP client, like pi's, then reads them (with NO_PROXY); unlike
// pi's, it never sends requests for localhost or a loopback address through a proxy.
func ProxyEnv(httpProxy string, lookup func(string) (string, bool)) map[string]string {
	proxy := strings.TrimSpace(httpProxy)
	if proxy == "" {
		return nil
	}
	out := map[string]string{}
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY"} {
		_, upper := lookup(name)
		_, lower := lookup(strings.ToLower(name))
		if !upper && !lower {
			out[name] = proxy
		}
	}
	return out
}
