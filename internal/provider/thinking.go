package provider

// DefaultThinkingLevel is the level used when neither the CLI, the scoped model, the session nor the
// settings name one.
const DefaultThinkingLevel = ThinkingMedium

// IsThinkingLevel reports whether s names a thinking level.
func IsThinkingLevel(s string) bool {
	_, err := ParseThinkingLevel(s)
	return err == nil
}

// SupportedThinkingLevels lists the levels a model accepts, in increasing order: only off for a
// model without reasoning; otherwise every level except those its ThinkingLevelMap marks null, xhigh
// only when the map names a value for it (or its compat allows it, see supportsXHigh), and max only
// when the map names a value for it (pi 1.6).
func SupportedThinkingLevels(m *Model) []ThinkingLevel {
	if m == nil || !m.Reasoning {
		return []ThinkingLevel{ThinkingOff}
	}
	out := make([]ThinkingLevel, 0, len(ThinkingLevels))
	for _, level := range ThinkingLevels {
		mapped, present := m.ThinkingLevelMap[level]
		if present && mapped == nil {
			continue
		}
		if level == ThinkingXHigh && !supportsXHigh(m, present) || level == ThinkingMax && !present {
			continue
		}
		out = append(out, level)
	}
	return out
}

// supportsXHigh: xhigh is offered when the model maps it, or its compat says supportsXhigh or maps
// xhigh in its own thinkingLevelMap (the same rule the OpenAI-compatible provider applies).
func supportsXHigh(m *Model, mapped bool) bool {
	if mapped {
		return true
	}
	return m.Compat != nil && (Bool(m.Compat.SupportsXHigh, false) || m.Compat.ThinkingLevelMap[string(ThinkingXHigh)] != "")
}

// ClampThinkingLevel returns level if the model supports it, else the nearest supported level above
// it, else the nearest below it (pi's clampThinkingLevel): xhigh or max on a model without them
// becomes high, minimal on a model that cannot go below high becomes high, anything on a model without
// reasoning becomes off. An unknown level becomes the lowest supported one.
func ClampThinkingLevel(m *Model, level ThinkingLevel) ThinkingLevel {
	supported := SupportedThinkingLevels(m)
	has := func(l ThinkingLevel) bool {
		for _, s := range supported {
			if s == l {
				return true
			}
		}
		return false
	}
	if has(level) {
		return level
	}
	idx := -1
	for i, l := range ThinkingLevels {
		if l == level {
			idx = i
		}
	}
	if idx == -1 || len(supported) == 0 {
		return lowest(supported)
	}
	for i := idx; i < len(ThinkingLevels); i++ {
		if has(ThinkingLevels[i]) {
			return ThinkingLevels[i]
		}
	}
	for i := idx - 1; i >= 0; i-- {
		if has(ThinkingLevels[i]) {
			return ThinkingLevels[i]
		}
	}
	return lowest(supported)
}

func lowest(levels []ThinkingLevel) ThinkingLevel {
	if len(levels) == 0 {
		return ThinkingOff
	}
	return levels[0]
}

// NextThinkingLevel is the level after current in the model's supported levels, wrapping around
// (Shift+Tab, cycle_thinking_level). ok is false for a model without reasoning, which has nothing to
// cycle. A current level the model does not support starts the cycle at its first level.
func NextThinkingLevel(m *Model, current ThinkingLevel) (next ThinkingLevel, ok bool) {
	if m == nil || !m.Reasoning {
		return "", false
	}
	levels := SupportedThinkingLevels(m)
	for i, l := range levels {
		if l == current {
			return levels[(i+1)%len(levels)], true
		}
	}
	return lowest(levels), true
}
