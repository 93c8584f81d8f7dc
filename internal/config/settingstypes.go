package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
)

// The settings whose value is one of several JSON kinds (pi 1.6's schema unions). Each decodes
// itself and refuses anything else; settingKind names what it takes when checkValue reports a value
// of the wrong type. The zero value of each is "not set".

// settingKind is implemented by the union types: what the setting takes, for messages.
type settingKind interface {
	settingKind() string
}

var errSettingKind = errors.New("value of the wrong kind")

// QuietStartup is quietStartup: true hides the startup header, "header" keeps the header and hides
// what follows it (pi-go shows nothing else there), false shows everything.
type QuietStartup struct {
	set, quiet, headerOnly bool
}

func (q *QuietStartup) UnmarshalJSON(data []byte) error {
	var b bool
	if json.Unmarshal(data, &b) == nil {
		*q = QuietStartup{set: true, quiet: b}
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil && s == "header" {
		*q = QuietStartup{set: true, headerOnly: true}
		return nil
	}
	return errSettingKind
}

func (QuietStartup) settingKind() string { return `a boolean or "header"` }

// HidesHeader reports whether the startup header is hidden (quietStartup true).
func (q QuietStartup) HidesHeader() bool { return q.quiet }

// HeaderOnly reports whether quietStartup is "header".
func (q QuietStartup) HeaderOnly() bool { return q.headerOnly }

// BoolOrAuto is a terminal capability override: true, false or "auto" (the default: detect).
type BoolOrAuto struct {
	set, value bool
}

func (v *BoolOrAuto) UnmarshalJSON(data []byte) error {
	var b bool
	if json.Unmarshal(data, &b) == nil {
		*v = BoolOrAuto{set: true, value: b}
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil && s == "auto" {
		*v = BoolOrAuto{}
		return nil
	}
	return errSettingKind
}

func (BoolOrAuto) settingKind() string { return `a boolean or "auto"` }

// Override returns the forced value and true, or false when the terminal is to be detected.
func (v BoolOrAuto) Override() (value, set bool) { return v.value, v.set }

// TerminalImages is terminal.images: "kitty", "iterm2", "auto" or false.
type TerminalImages string

func (v *TerminalImages) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("false")) {
		*v = "off"
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil && (s == "kitty" || s == "iterm2" || s == "auto") {
		*v = TerminalImages(s)
		return nil
	}
	return errSettingKind
}

func (TerminalImages) settingKind() string { return `"kitty", "iterm2", "auto" or false` }

// NumberOrAuto is fullscreenWheelScrollLines: a number or "auto".
type NumberOrAuto struct {
	set   bool
	value float64
}

// Number is the number set, ok false for "auto" (or nothing set).
func (v NumberOrAuto) Number() (n float64, ok bool) { return v.value, v.set }

func (v *NumberOrAuto) UnmarshalJSON(data []byte) error {
	var f float64
	if json.Unmarshal(data, &f) == nil {
		*v = NumberOrAuto{set: true, value: f}
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil && s == "auto" {
		*v = NumberOrAuto{}
		return nil
	}
	return errSettingKind
}

func (NumberOrAuto) settingKind() string { return `a number or "auto"` }

// PackageSource is a packages entry: a source string, or an object with a "source" and resource
// filters (internal/packages installs and resolves them).
type PackageSource struct {
	Source string
	Filter *PackageFilter
}

var packageFilterType = reflect.TypeOf(PackageFilter{})

// PackageFilter is the object form of a packages entry.
type PackageFilter struct {
	Source     string   `json:"source"`
	Autoload   *bool    `json:"autoload,omitempty"`
	Extensions []string `json:"extensions,omitempty"`
	Skills     []string `json:"skills,omitempty"`
	Prompts    []string `json:"prompts,omitempty"`
	Themes     []string `json:"themes,omitempty"`
}

func (p *PackageSource) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*p = PackageSource{Source: s}
		return nil
	}
	var generic any
	if json.Unmarshal(data, &generic) != nil {
		return errSettingKind
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return errSettingKind
	}
	if _, isString := obj["source"].(string); !isString {
		return errSettingKind
	}
	if _, problems, ok := checkValue(obj, packageFilterType, ""); !ok || len(problems) > 0 {
		return errSettingKind
	}
	var f PackageFilter
	if err := json.Unmarshal(data, &f); err != nil {
		return errSettingKind
	}
	*p = PackageSource{Source: f.Source, Filter: &f}
	return nil
}

func (PackageSource) settingKind() string {
	return `a package source string or an object with a "source" string and string arrays`
}
