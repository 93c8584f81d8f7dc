package provider

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// PatternMatch is the result of resolving one model pattern.
type PatternMatch struct {
	Model *Model // nil when nothing matched
	// Thinking is the level named by a ":<level>" suffix, "" when there was none.
	Thinking ThinkingLevel
	// Warning is set when the pattern matched but part of it was ignored.
	Warning string
}

// FindExactModelReference matches ref as "provider/id" or as a bare id, case-insensitively. A bare id
// shared by several providers is ambiguous and matches nothing.
func FindExactModelReference(ref string, models []*Model) *Model {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil
	}
	lower := strings.ToLower(ref)
	if m, n := only(models, func(m *Model) bool { return strings.ToLower(m.Provider+"/"+m.ID) == lower }); n > 0 {
		return m
	}
	if prov, id, ok := strings.Cut(ref, "/"); ok {
		prov, id = strings.TrimSpace(prov), strings.TrimSpace(id)
		if prov != "" && id != "" {
			m, n := only(models, func(m *Model) bool {
				return strings.EqualFold(m.Provider, prov) && strings.EqualFold(m.ID, id)
			})
			if n > 0 {
				return m
			}
		}
	}
	m, _ := only(models, func(m *Model) bool { return strings.ToLower(m.ID) == lower })
	return m
}

// only returns the single model matching keep and the number of matches (the model is nil unless
// exactly one matched).
func only(models []*Model, keep func(*Model) bool) (*Model, int) {
	var found *Model
	n := 0
	for _, m := range models {
		if keep(m) {
			found = m
			n++
		}
	}
	if n != 1 {
		return nil, n
	}
	return found, 1
}

var datedSuffix = lazyregexp.New(`-\d{8}$`)

// isAlias reports whether id names a moving alias rather than a dated snapshot: ids ending in
// -latest, or without a -YYYYMMDD suffix.
func isAlias(id string) bool {
	return strings.HasSuffix(id, "-latest") || !datedSuffix.MatchString(id)
}

// matchModel is pi's tryMatchModel: an exact reference, else a case-insensitive substring of the id
// or name, preferring aliases (highest id first) over dated snapshots (newest first).
func matchModel(pattern string, models []*Model) *Model {
	if m := FindExactModelReference(pattern, models); m != nil {
		return m
	}
	p := strings.ToLower(pattern)
	var aliases, dated []*Model
	for _, m := range models {
		if !strings.Contains(strings.ToLower(m.ID), p) && !strings.Contains(strings.ToLower(m.Name), p) {
			continue
		}
		if isAlias(m.ID) {
			aliases = append(aliases, m)
		} else {
			dated = append(dated, m)
		}
	}
	pick := aliases
	if len(pick) == 0 {
		pick = dated
	}
	if len(pick) == 0 {
		return nil
	}
	sort.SliceStable(pick, func(i, j int) bool { return compareIDs(pick[i].ID, pick[j].ID) > 0 })
	return pick[0]
}

// compareIDs orders ids as JavaScript's localeCompare does (ICU root collation, which pi uses to
// rank fuzzy matches): punctuation before digits before letters, letters compared without case
// first, and at equal letters lower case before upper case.
func compareIDs(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if wa, wb := collationWeight(ra[i]), collationWeight(rb[i]); wa != wb {
			return cmpInt(wa, wb)
		}
	}
	if len(ra) != len(rb) {
		return cmpInt(len(ra), len(rb))
	}
	for i := range ra {
		if ra[i] != rb[i] {
			// Same letter, different case: lower case first.
			return cmpInt(caseRank(ra[i]), caseRank(rb[i]))
		}
	}
	return 0
}

// icuASCIIOrder is printable ASCII in ICU root collation order, upper case folded onto lower case.
const icuASCIIOrder = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"

func collationWeight(r rune) int {
	if r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	if r < 128 {
		if i := strings.IndexRune(icuASCIIOrder, r); i >= 0 {
			return i
		}
		return -1 // control characters sort first
	}
	return len(icuASCIIOrder) + int(r)
}

func caseRank(r rune) int {
	if r >= 'A' && r <= 'Z' {
		return 1
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParseModelPattern resolves a pattern that may end in ":<thinking level>". The whole pattern is
// tried first, so ids containing colons (OpenRouter's ":free", ":thinking") match as they are; then
// the text after the last colon is split off and the rest resolved again, so the longest matching
// prefix wins. A suffix that is not a thinking level makes the match fail when strict (the CLI's
// --model), or is ignored with a warning otherwise (--models, /model).
func ParseModelPattern(pattern string, models []*Model, strict bool) PatternMatch {
	if m := matchModel(pattern, models); m != nil {
		return PatternMatch{Model: m}
	}
	colon := strings.LastIndex(pattern, ":")
	if colon == -1 {
		return PatternMatch{}
	}
	prefix, suffix := pattern[:colon], pattern[colon+1:]
	if IsThinkingLevel(suffix) {
		inner := ParseModelPattern(prefix, models, strict)
		if inner.Model != nil && inner.Warning == "" {
			inner.Thinking = ThinkingLevel(suffix)
		}
		return inner
	}
	if strict {
		return PatternMatch{}
	}
	inner := ParseModelPattern(prefix, models, strict)
	if inner.Model != nil {
		return PatternMatch{
			Model:   inner.Model,
			Warning: fmt.Sprintf("Invalid thinking level %q in pattern %q. Using default instead.", suffix, pattern),
		}
	}
	return inner
}

// CLIModel is a model chosen with --provider/--model.
type CLIModel struct {
	Model    *Model
	Thinking ThinkingLevel // from a ":<level>" suffix, "" when none
	Warning  string        // e.g. the synthetic-model notice
	// Synthetic is set when Model was made up for an unknown id of a known provider (a clone of the
	// provider's default model with that id).
	Synthetic bool
}

// ErrNoModels is returned by ResolveCLIModel when the registry is empty.
var ErrNoModels = errors.New("No models available. Check your installation or add models to models.json.")

// ResolveCLIModel resolves --model (and --provider) as pi does. Every model is a candidate, not only
// those with auth, so --api-key works for first-time setup. Rules, in order: a known provider in
// --provider, or before the first "/" of the model, narrows the candidates; an exact id (or
// provider/id) wins; otherwise ParseModelPattern (strict) within the candidates; an inferred
// provider that matches nothing falls back to the whole text across all models (ids like
// "openai/gpt-oss-120b" on OpenRouter or Groq); finally a known provider with an unknown id gets a
// synthetic model. Errors carry pi's messages.
func (r *Registry) ResolveCLIModel(cliProvider, cliModel string) (CLIModel, error) {
	if cliModel == "" {
		return CLIModel{}, nil
	}
	all := r.models()
	if len(all) == 0 {
		return CLIModel{}, ErrNoModels
	}
	canonical := map[string]string{}
	for _, m := range all {
		canonical[strings.ToLower(m.Provider)] = m.Provider
	}
	prov := ""
	if cliProvider != "" {
		var ok bool
		if prov, ok = canonical[strings.ToLower(cliProvider)]; !ok {
			return CLIModel{}, fmt.Errorf("Unknown provider %q. Use --list-models to see available providers/models.", cliProvider)
		}
	}
	pattern := cliModel
	inferred := false
	if prov == "" {
		if before, after, ok := strings.Cut(cliModel, "/"); ok {
			if c, known := canonical[strings.ToLower(before)]; known {
				prov, pattern, inferred = c, after, true
			}
		}
	}
	exactAnywhere := func() *Model {
		lower := strings.ToLower(cliModel)
		for _, m := range all {
			if strings.ToLower(m.ID) == lower || strings.ToLower(m.Provider+"/"+m.ID) == lower {
				return m
			}
		}
		return nil
	}
	if prov == "" {
		if m := exactAnywhere(); m != nil {
			return CLIModel{Model: m}, nil
		}
	}
	if cliProvider != "" && prov != "" {
		if p := prov + "/"; len(cliModel) >= len(p) && strings.EqualFold(cliModel[:len(p)], p) {
			pattern = cliModel[len(p):]
		}
	}
	candidates := all
	if prov != "" {
		candidates = nil
		for _, m := range all {
			if m.Provider == prov {
				candidates = append(candidates, m)
			}
		}
	}
	res := ParseModelPattern(pattern, candidates, true)
	if res.Model != nil {
		return CLIModel{Model: res.Model, Thinking: res.Thinking, Warning: res.Warning}, nil
	}
	if inferred {
		if m := exactAnywhere(); m != nil {
			return CLIModel{Model: m}, nil
		}
		if fb := ParseModelPattern(cliModel, all, true); fb.Model != nil {
			return CLIModel{Model: fb.Model, Thinking: fb.Thinking, Warning: fb.Warning}, nil
		}
	}
	if prov != "" {
		if m := syntheticModel(prov, pattern, all); m != nil {
			warning := fmt.Sprintf("Model %q not found for provider %q. Using custom model id.", pattern, prov)
			if res.Warning != "" {
				warning = res.Warning + " " + warning
			}
			return CLIModel{Model: m, Warning: warning, Synthetic: true}, nil
		}
	}
	display := cliModel
	if prov != "" {
		display = prov + "/" + pattern
	}
	return CLIModel{Warning: res.Warning}, fmt.Errorf("Model %q not found. Use --list-models to see available models.", display)
}

// syntheticModel clones the provider's default model (or its first model) under a new id, for a
// model the catalogue does not know yet.
func syntheticModel(prov, id string, all []*Model) *Model {
	var first, def *Model
	defID := DefaultModelID(prov)
	for _, m := range all {
		if m.Provider != prov {
			continue
		}
		if first == nil {
			first = m
		}
		if def == nil && defID != "" && m.ID == defID {
			def = m
		}
	}
	base := def
	if base == nil {
		base = first
	}
	if base == nil {
		return nil
	}
	m := base.Clone()
	m.ID, m.Name = id, id
	return m
}

// ScopedModel is one entry of --models / enabledModels: a model and the thinking level its pattern
// named ("" inherits the session's level).
type ScopedModel struct {
	Model    *Model
	Thinking ThinkingLevel
}

// ResolveModelScope resolves --models patterns against the available models. A pattern containing
// *, ? or [ is a glob matched case-insensitively against "provider/id" and against the id (an
// optional valid ":<level>" suffix applies to every match); any other pattern goes through
// ParseModelPattern. Duplicates are dropped. Warnings are returned for the caller to print.
func ResolveModelScope(patterns []string, available []*Model) (scoped []ScopedModel, warnings []string) {
	add := func(m *Model, level ThinkingLevel) {
		for _, s := range scoped {
			if SameModel(s.Model, m) {
				return
			}
		}
		scoped = append(scoped, ScopedModel{Model: m, Thinking: level})
	}
	for _, pattern := range patterns {
		if strings.ContainsAny(pattern, "*?[") {
			glob, level := pattern, ThinkingLevel("")
			if i := strings.LastIndex(pattern, ":"); i != -1 && IsThinkingLevel(pattern[i+1:]) {
				glob, level = pattern[:i], ThinkingLevel(pattern[i+1:])
			}
			// An id such as "bracketed-model[1m]" is not a glob: an exact reference wins (pi 1.6).
			if m := FindExactModelReference(glob, available); m != nil {
				add(m, level)
				continue
			}
			glob = strings.ToLower(glob)
			matched := false
			for _, m := range available {
				if globMatch(glob, strings.ToLower(m.Provider+"/"+m.ID)) || globMatch(glob, strings.ToLower(m.ID)) {
					matched = true
					add(m, level)
				}
			}
			if !matched {
				warnings = append(warnings, fmt.Sprintf("No models match pattern %q", pattern))
			}
			continue
		}
		res := ParseModelPattern(pattern, available, false)
		if res.Warning != "" {
			warnings = append(warnings, res.Warning)
		}
		if res.Model == nil {
			warnings = append(warnings, fmt.Sprintf("No models match pattern %q", pattern))
			continue
		}
		add(res.Model, res.Thinking)
	}
	return scoped, warnings
}

// globMatch is minimatch's matching for model ids: * and ? stay within a "/" segment, ** crosses
// them, [..] and {a,b} work; a malformed pattern matches nothing.
func globMatch(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return err == nil && ok
}

// CycleModel returns the model after current in models (before it when backward), wrapping around;
// a current model not in the list counts as the first. nil when there are fewer than two models.
func CycleModel(models []*Model, current *Model, backward bool) *Model {
	i, ok := cycleIndex(len(models), func(i int) bool { return SameModel(models[i], current) }, backward)
	if !ok {
		return nil
	}
	return models[i]
}

// CycleScopedModel is CycleModel over scoped models, skipping those whose provider lacks auth
// (hasAuth nil keeps all). ok is false when fewer than two remain.
func CycleScopedModel(scoped []ScopedModel, current *Model, backward bool, hasAuth func(provider string) bool) (next ScopedModel, ok bool) {
	var usable []ScopedModel
	for _, s := range scoped {
		if hasAuth == nil || hasAuth(s.Model.Provider) {
			usable = append(usable, s)
		}
	}
	i, ok := cycleIndex(len(usable), func(i int) bool { return SameModel(usable[i].Model, current) }, backward)
	if !ok {
		return ScopedModel{}, false
	}
	return usable[i], true
}

func cycleIndex(n int, isCurrent func(int) bool, backward bool) (int, bool) {
	if n <= 1 {
		return 0, false
	}
	cur := 0
	for i := 0; i < n; i++ {
		if isCurrent(i) {
			cur = i
			break
		}
	}
	if backward {
		return (cur - 1 + n) % n, true
	}
	return (cur + 1) % n, true
}

// DefaultAvailableModel is pi's last-resort choice: the default model of the first built-in provider
// (in BuiltinProviders order) that is among the available models, else the first available model,
// else nil.
func DefaultAvailableModel(available []*Model) *Model {
	for _, p := range BuiltinProviders() {
		for _, m := range available {
			if m.Provider == p.Name && m.ID == p.DefaultModel {
				return m
			}
		}
	}
	if len(available) == 0 {
		return nil
	}
	return available[0]
}
