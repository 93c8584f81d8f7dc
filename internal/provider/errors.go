package provider

import (
	"regexp"
	"strconv"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// overflowPatterns match the error texts servers return when the input exceeds the context window
// (pi 0.73.1's list, one per known server wording).
var overflowPatterns = []*lazyregexp.Regexp{
	lazyregexp.New(`(?i)prompt is too long`),
	lazyregexp.New(`(?i)request_too_large`),
	lazyregexp.New(`(?i)input is too long for requested model`),
	lazyregexp.New(`(?i)exceeds the context window`),
	lazyregexp.New(`(?i)input token count.*exceeds the maximum`),
	lazyregexp.New(`(?i)maximum prompt length is \d+`),
	lazyregexp.New(`(?i)reduce the length of the messages`),
	lazyregexp.New(`(?i)maximum context length is \d+ tokens`),
	lazyregexp.New(`(?i)exceeds the limit of \d+`),
	lazyregexp.New(`(?i)exceeds the available context size`),
	lazyregexp.New(`(?i)greater than the context length`),
	lazyregexp.New(`(?i)context window exceeds limit`),
	lazyregexp.New(`(?i)exceeded model token limit`),
	lazyregexp.New(`(?i)too large for model with \d+ maximum context length`),
	lazyregexp.New(`(?i)model_context_window_exceeded`),
	lazyregexp.New(`(?i)prompt too long; exceeded (?:max )?context length`),
	lazyregexp.New(`(?i)context[_ ]length[_ ]exceeded`),
	lazyregexp.New(`(?i)too many tokens`),
	lazyregexp.New(`(?i)token limit exceeded`),
	lazyregexp.New(`(?i)^4(?:00|13)\s*(?:status code)?\s*\(no body\)`),
}

// nonOverflowPatterns exclude throttling texts that would otherwise match ("Too many tokens, please
// wait" is a rate limit, not an overflow).
var nonOverflowPatterns = []*lazyregexp.Regexp{
	lazyregexp.New(`(?i)^(?:Throttling error|Service unavailable):`),
	lazyregexp.New(`(?i)rate limit`),
	lazyregexp.New(`(?i)too many requests`),
}

// retryablePattern is pi 0.73.1's list of transient failures, with pi 1.6's Anthropic additions. pi-go's own transport errors are worded to
// match it: "Connection refused", "Connection error", "Connection lost", "timed out", "ended without".
var retryablePattern = lazyregexp.New(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|` +
	`429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|` +
	`connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|` +
	`upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|` +
	`timed? out|timeout|terminated|retry delay|` +
	// pi 1.6: Anthropic streams cut short, and gateways relaying a dropped stream as an api_error event.
	`stream ended before message_stop|connection.?closed`)

// NotRetryingNote ends the texts of errors that pi-go knows a retry cannot fix (nothing listens on a
// local port, an unknown host, a server asking for a longer wait than the retry limit): IsRetryable
// never retries a text that carries it, whatever else the text says.
const NotRetryingNote = "; not retrying"

// permanentPatterns are errors a retry cannot fix, checked before retryablePattern: the note above; a
// client error in the "<status> <message>" form (400 that is not an overflow, 401, 403, 404: the
// request, the key or the URL is wrong); and pi 1.6's quota and billing limits, which reset after
// hours, not seconds (pi-ai's NON_RETRYABLE_PROVIDER_LIMIT_ERROR_PATTERN).
var permanentPatterns = []*lazyregexp.Regexp{
	lazyregexp.New(regexp.QuoteMeta(NotRetryingNote)),
	lazyregexp.New(`^4(?:00|01|03|04) `),
	lazyregexp.New(`(?i)GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance|` +
		`insufficient_quota|out of budget|quota exceeded|billing|subscription_sharing_usage_limit_exceeded|` +
		`subscription_sharing_workplace_individual_usage_limit_exceeded|"code"\s*:\s*"?1308(?:[^0-9]|$)`),
}

// IsContextOverflow reports whether msg failed because the request did not fit the model's context
// window (pi-reference §1.9, as pi 0.73.1): an error whose text matches a known overflow wording, or a
// "successful" answer whose input exceeded contextWindow (servers that accept overflow silently), or a
// length stop with no output after the server truncated the input to fill the window. contextWindow 0
// checks the error text only.
func IsContextOverflow(msg *AssistantMessage, contextWindow int) bool {
	if msg == nil {
		return false
	}
	if msg.StopReason == StopReasonError && msg.ErrorMessage != "" && matchesOverflow(msg.ErrorMessage) {
		return true
	}
	if contextWindow <= 0 {
		return false
	}
	input := msg.Usage.Input + msg.Usage.CacheRead
	switch msg.StopReason {
	case StopReasonStop:
		return input > contextWindow
	case StopReasonLength:
		return msg.Usage.Output == 0 && float64(input) >= float64(contextWindow)*0.99
	}
	return false
}

func matchesOverflow(text string) bool {
	for _, p := range nonOverflowPatterns {
		if p.MatchString(text) {
			return false
		}
	}
	for _, p := range overflowPatterns {
		if p.MatchString(text) {
			return true
		}
	}
	return false
}

// IsRetryable reports whether msg failed in a way worth retrying after a pause (pi-reference §6.7 with
// pi 0.73.1's additions): an error that is not a context overflow, not one a retry cannot fix (see
// permanentPatterns), and whose text names a transient condition (rate limit, overload, 5xx, dropped
// or refused connection, timeout).
func IsRetryable(msg *AssistantMessage) bool {
	if msg == nil || msg.StopReason != StopReasonError || msg.ErrorMessage == "" {
		return false
	}
	if IsContextOverflow(msg, 0) {
		return false
	}
	for _, p := range permanentPatterns {
		if p.MatchString(msg.ErrorMessage) {
			return false
		}
	}
	// pi's pattern looks for status codes anywhere in the text; pi-go's texts name the URL, whose port
	// ("127.0.0.1:42927") must not read as a 429.
	return retryablePattern.MatchString(urlPattern.ReplaceAllString(msg.ErrorMessage, "<url>"))
}

// urlPattern finds the URLs pi-go's error texts name.
var urlPattern = lazyregexp.New(`[a-z][a-z0-9+.-]*://[^\s"']+`)

// reportedWindowPatterns find the context window in the overflow texts that name it: OpenAI's and
// vLLM's "maximum context length is N tokens", llama.cpp's "available context size (N tokens)" and its
// n_ctx field, Anthropic's "N tokens > M maximum", and "M maximum context length".
var reportedWindowPatterns = []*lazyregexp.Regexp{
	lazyregexp.New(`(?i)maximum context length is (\d+) tokens`),
	lazyregexp.New(`(?i)available context size \((\d+) tokens\)`),
	lazyregexp.New(`"n_ctx"\s*:\s*(\d+)`),
	lazyregexp.New(`(?i)prompt is too long: \d+ tokens > (\d+) maximum`),
	lazyregexp.New(`(?i)too large for model with (\d+) maximum context length`),
}

// ReportedContextWindow is the context window a context-overflow error names, when it names one: a
// model registered (or guessed, for a --base-url server) with a larger window than its server has
// learns the real one from the first overflow.
func ReportedContextWindow(msg *AssistantMessage) (int, bool) {
	if msg == nil || msg.StopReason != StopReasonError || !matchesOverflow(msg.ErrorMessage) {
		return 0, false
	}
	for _, p := range reportedWindowPatterns {
		if m := p.FindStringSubmatch(msg.ErrorMessage); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}
