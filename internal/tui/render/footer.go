package render

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// FooterInfo is what the footer shows (pi-reference §8.4).
type FooterInfo struct {
	Cwd         string // shown with the home directory as "~"
	GitBranch   string // "" outside a repository
	SessionName string
	// Token totals over every assistant message of the session file, all branches included.
	Input, Output, CacheRead, CacheWrite int
	Cost                                 float64 // USD
	Subscription                         bool    // OAuth subscription: cost shown with "(sub)"
	// ContextPercent is the share of the context window the last request used; ContextUnknown says
	// it is not known (after a compaction, until the next answer): "?".
	ContextPercent float64
	ContextUnknown bool
	ContextWindow  int
	AutoCompact    bool
	// Model is the model id ("" shows "no-model"); Provider is shown in front when more than one
	// provider is available (ProviderCount > 1) and it fits.
	Model         string
	Provider      string
	ProviderCount int
	Reasoning     bool   // the model reasons: the thinking level is shown
	ThinkingLevel string // "off", "minimal", ... ("" counts as off)
	// ExtensionStatuses are shown on a third line, sorted by key.
	ExtensionStatuses map[string]string
}

// Footer renders pi's footer: the working directory line and the stats line (tokens, cost, context
// usage; the model right-aligned), plus extension statuses. No line is wider than width.
func (r *Renderer) Footer(f FooterInfo, width int) []string {
	width = max(width, 1)
	pwd := r.shortenPath(f.Cwd)
	if f.GitBranch != "" {
		pwd += " (" + f.GitBranch + ")"
	}
	if f.SessionName != "" {
		pwd += " • " + f.SessionName
	}
	pwdLine := r.th.Fg(theme.Dim, Truncate(oneLine(pwd), width, "..."))

	var stats []string
	if f.Input > 0 {
		stats = append(stats, "↑"+FormatTokens(f.Input))
	}
	if f.Output > 0 {
		stats = append(stats, "↓"+FormatTokens(f.Output))
	}
	if f.CacheRead > 0 {
		stats = append(stats, "R"+FormatTokens(f.CacheRead))
	}
	if f.CacheWrite > 0 {
		stats = append(stats, "W"+FormatTokens(f.CacheWrite))
	}
	if f.Cost != 0 || f.Subscription {
		c := "$" + toFixed(f.Cost, 3)
		if f.Subscription {
			c += " (sub)"
		}
		stats = append(stats, c)
	}
	auto := ""
	if f.AutoCompact {
		auto = " (auto)"
	}
	ctx := "?/" + FormatTokens(f.ContextWindow) + auto
	if !f.ContextUnknown {
		ctx = toFixed(f.ContextPercent, 1) + "%/" + FormatTokens(f.ContextWindow) + auto
	}
	ctxKey := theme.Dim
	switch {
	case !f.ContextUnknown && f.ContextPercent > 90:
		ctxKey = theme.Error
	case !f.ContextUnknown && f.ContextPercent > 70:
		ctxKey = theme.Warning
	}

	// Lay out in plain text first, then colour the pieces.
	head := strings.Join(stats, " ")
	if head != "" {
		head += " "
	}
	left := head + ctx
	if Width(left) > width {
		left = Truncate(left, width, "...")
	}
	leftW := Width(left)

	model := f.Model
	if model == "" {
		model = "no-model"
	}
	right := model
	if f.Reasoning {
		level := f.ThinkingLevel
		if level == "" || level == "off" {
			right += " • thinking off"
		} else {
			right += " • " + level
		}
	}
	const minPad = 2
	if f.ProviderCount > 1 && f.Provider != "" && f.Model != "" {
		if withProvider := "(" + f.Provider + ") " + right; leftW+minPad+Width(withProvider) <= width {
			right = withProvider
		}
	}
	if leftW+minPad+Width(right) > width {
		if avail := width - leftW - minPad; avail > 0 {
			right = Truncate(right, avail, "")
		} else {
			right = ""
		}
	}
	pad := ""
	if right != "" {
		pad = strings.Repeat(" ", max(width-leftW-Width(right), 0))
	}

	var statsLine string
	if len(left) > len(head) && strings.HasPrefix(left, head) {
		// The context part survived truncation: colour it on its own.
		statsLine = r.th.Fg(theme.Dim, head) + r.th.Fg(ctxKey, left[len(head):])
	} else {
		statsLine = r.th.Fg(theme.Dim, left)
	}
	statsLine += r.th.Fg(theme.Dim, pad+right)
	lines := []string{pwdLine, statsLine}

	if len(f.ExtensionStatuses) > 0 {
		keys := make([]string, 0, len(f.ExtensionStatuses))
		for k := range f.ExtensionStatuses {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, strings.Join(strings.Fields(oneLine(f.ExtensionStatuses[k])), " "))
		}
		lines = append(lines, Truncate(strings.Join(parts, " "), width, r.th.Fg(theme.Dim, "...")))
	}
	return lines
}

// FormatTokens is pi's token count display: 999, 1.2k, 12k, 1.2M, 12M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 10000:
		return toFixed(float64(n)/1000, 1) + "k"
	case n < 1000000:
		return strconv.Itoa(jsRound(float64(n)/1000)) + "k"
	case n < 10000000:
		return toFixed(float64(n)/1000000, 1) + "M"
	default:
		return strconv.Itoa(jsRound(float64(n)/1000000)) + "M"
	}
}

// jsRound is JavaScript's Math.round: halves go up.
func jsRound(x float64) int { return int(math.Floor(x + 0.5)) }

// toFixed is JavaScript's Number.prototype.toFixed for non-negative x: the nearest decimal with d
// digits to the exact binary value, halves rounded up (Go's formatting rounds exact halves to even).
func toFixed(x float64, d int) string {
	if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) || x >= 1e21 {
		return strconv.FormatFloat(x, 'f', d, 64)
	}
	scale := new(big.Float).SetPrec(256).SetFloat64(math.Pow10(d))
	v := new(big.Float).SetPrec(256).SetFloat64(x)
	v.Mul(v, scale)
	n, _ := v.Int(nil) // floor for non-negative values
	frac := new(big.Float).SetPrec(256).Sub(v, new(big.Float).SetInt(n))
	if frac.Cmp(big.NewFloat(0.5)) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	s := n.String()
	if d == 0 {
		return s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	return s[:len(s)-d] + "." + s[len(s)-d:]
}
