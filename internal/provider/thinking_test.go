package provider

import (
	"fmt"
	"testing"
)

func levels(ls []ThinkingLevel) string { return fmt.Sprint(ls) }

func TestSupportedThinkingLevels(t *testing.T) {
	plain := &Model{Reasoning: true}
	tests := []struct {
		name  string
		model *Model
		want  string
	}{
		{"no reasoning", &Model{}, "[off]"},
		{"no reasoning with map", &Model{ThinkingLevelMap: levelMap("xhigh=xhigh")}, "[off]"},
		{"nil model", nil, "[off]"},
		{"reasoning", plain, "[off minimal low medium high]"},
		{"gpt-5: off unsupported", &Model{Reasoning: true, ThinkingLevelMap: levelMap("off=null")}, "[minimal low medium high]"},
		{"gpt-5.2: xhigh mapped", &Model{Reasoning: true, ThinkingLevelMap: levelMap("off=null xhigh=xhigh")}, "[minimal low medium high xhigh]"},
		{"deepseek v4", &Model{Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max")}, "[off high xhigh]"},
		{"compat supportsXhigh", &Model{Reasoning: true, Compat: &Compat{SupportsXHigh: Ptr(true)}}, "[off minimal low medium high xhigh]"},
		{"compat map xhigh", &Model{Reasoning: true, Compat: &Compat{ThinkingLevelMap: map[string]string{"xhigh": "max"}}}, "[off minimal low medium high xhigh]"},
		{"max mapped", &Model{Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh max=max")}, "[off minimal low medium high xhigh max]"},
		{"max without xhigh", &Model{Reasoning: true, ThinkingLevelMap: levelMap("max=max")}, "[off minimal low medium high max]"},
		{"compat supportsXhigh gives no max", &Model{Reasoning: true, Compat: &Compat{SupportsXHigh: Ptr(true)}}, "[off minimal low medium high xhigh]"},
		{"null beats compat", &Model{Reasoning: true, ThinkingLevelMap: levelMap("xhigh=null"), Compat: &Compat{SupportsXHigh: Ptr(true)}}, "[off minimal low medium high]"},
	}
	for _, tt := range tests {
		if got := levels(SupportedThinkingLevels(tt.model)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestClampThinkingLevel(t *testing.T) {
	plain := &Model{Reasoning: true}
	gpt5 := &Model{Reasoning: true, ThinkingLevelMap: levelMap("off=null")}
	ds := &Model{Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max")}
	none := &Model{}
	tests := []struct {
		model *Model
		in    ThinkingLevel
		want  ThinkingLevel
	}{
		{plain, ThinkingMedium, ThinkingMedium},
		{plain, ThinkingXHigh, ThinkingHigh}, // no xhigh: nearest below
		{plain, ThinkingMax, ThinkingHigh},
		{&Model{Reasoning: true, ThinkingLevelMap: levelMap("max=max")}, ThinkingXHigh, ThinkingMax}, // upward first
		{gpt5, ThinkingOff, ThinkingMinimal}, // off unsupported: nearest above
		{gpt5, ThinkingXHigh, ThinkingHigh},
		{ds, ThinkingMinimal, ThinkingHigh}, // upward first
		{ds, ThinkingMedium, ThinkingHigh},
		{ds, ThinkingOff, ThinkingOff},
		{none, ThinkingHigh, ThinkingOff},
		{plain, ThinkingLevel("bogus"), ThinkingOff}, // unknown: lowest supported
		{gpt5, ThinkingLevel("bogus"), ThinkingMinimal},
	}
	for _, tt := range tests {
		if got := ClampThinkingLevel(tt.model, tt.in); got != tt.want {
			t.Errorf("clamp(%v, %s) = %s, want %s", SupportedThinkingLevels(tt.model), tt.in, got, tt.want)
		}
	}
	// Every level unsupported still yields a level.
	all := &Model{Reasoning: true, ThinkingLevelMap: levelMap("off=null minimal=null low=null medium=null high=null")}
	if got := ClampThinkingLevel(all, ThinkingHigh); got != ThinkingOff {
		t.Errorf("nothing supported: %s", got)
	}
}

func TestNextThinkingLevel(t *testing.T) {
	plain := &Model{Reasoning: true}
	seq := []ThinkingLevel{ThinkingOff}
	cur := ThinkingOff
	for i := 0; i < 5; i++ {
		next, ok := NextThinkingLevel(plain, cur)
		if !ok {
			t.Fatal("reasoning model must cycle")
		}
		seq = append(seq, next)
		cur = next
	}
	if levels(seq) != "[off minimal low medium high off]" {
		t.Errorf("cycle %v", seq)
	}
	if _, ok := NextThinkingLevel(&Model{}, ThinkingOff); ok {
		t.Error("non-reasoning model must not cycle")
	}
	ds := &Model{Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max")}
	if next, _ := NextThinkingLevel(ds, ThinkingMedium); next != ThinkingOff {
		t.Errorf("unsupported current restarts at the first level, got %s", next)
	}
	if next, _ := NextThinkingLevel(ds, ThinkingHigh); next != ThinkingXHigh {
		t.Errorf("high -> %s", next)
	}
	maxed := &Model{Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh max=max")}
	if next, _ := NextThinkingLevel(maxed, ThinkingXHigh); next != ThinkingMax {
		t.Errorf("xhigh -> %s", next)
	}
	if next, _ := NextThinkingLevel(maxed, ThinkingMax); next != ThinkingOff {
		t.Errorf("max -> %s", next)
	}
}

func TestIsThinkingLevel(t *testing.T) {
	if !IsThinkingLevel("xhigh") || !IsThinkingLevel("max") || IsThinkingLevel("maximum") || IsThinkingLevel("") {
		t.Error("IsThinkingLevel")
	}
}
