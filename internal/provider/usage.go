package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Usage is the token accounting of one assistant message (or of a tool run); Cost is in USD.
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int
	// CacheWrite1h is the part of CacheWrite written with one-hour retention (only Anthropic reports it).
	CacheWrite1h int
	// Reasoning is the part of Output spent on reasoning, for providers that report it.
	Reasoning   int
	TotalTokens int
	Cost        Cost
	// Keys says which optional keys the JSON object has, and where: pi 1.6's providers build their
	// usage objects in different key orders, and a usage read from a file is written back as it was.
	// The zero value is the object of a response whose usage never arrived.
	Keys UsageKeys
}

// UsageKeys is a set of the optional keys of a usage object.
type UsageKeys uint8

const (
	// UsageReasoning: "reasoning" follows "cacheWrite" (pi's OpenAI-compatible, Responses and Google
	// providers).
	UsageReasoning UsageKeys = 1 << iota
	// UsageCacheWrite1h: "cacheWrite1h" follows "cost" (Anthropic).
	UsageCacheWrite1h
	// UsageReasoningLast: "reasoning" comes last, after "cost" and "cacheWrite1h" (Anthropic).
	UsageReasoningLast
	// UsageTotalFromProvider: the cost has "totalFromProvider" (every usage pi 1.6 priced).
	UsageTotalFromProvider
)

// Cost of a message in USD, per token kind.
type Cost struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	Total      float64
	// TotalFromProvider: Total is what the provider billed, not the catalogue estimate.
	TotalFromProvider bool
}

// ContextTokens is how much of the context window the request used: totalTokens when known, else the
// sum of the parts.
func (u Usage) ContextTokens() int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// Add accumulates other into u (the keys of u stay as they are: a sum is not written back).
func (u *Usage) Add(other Usage) {
	u.Input += other.Input
	u.Output += other.Output
	u.CacheRead += other.CacheRead
	u.CacheWrite += other.CacheWrite
	u.CacheWrite1h += other.CacheWrite1h
	u.Reasoning += other.Reasoning
	u.TotalTokens += other.TotalTokens
	u.Cost.Input += other.Cost.Input
	u.Cost.Output += other.Cost.Output
	u.Cost.CacheRead += other.Cost.CacheRead
	u.Cost.CacheWrite += other.Cost.CacheWrite
	u.Cost.Total += other.Cost.Total
}

// CalculateCost fills u.Cost from the model's prices (USD per million tokens), as a catalogue estimate
// (pi's calculateCost).
func (u *Usage) CalculateCost(prices ModelCost) {
	u.Cost.Input = prices.Input / 1e6 * float64(u.Input)
	u.Cost.Output = prices.Output / 1e6 * float64(u.Output)
	u.Cost.CacheRead = prices.CacheRead / 1e6 * float64(u.CacheRead)
	// One-hour cache writes (Anthropic) cost twice the input price, the rest the cache-write price.
	long := u.CacheWrite1h
	u.Cost.CacheWrite = (prices.CacheWrite*float64(u.CacheWrite-long) + prices.Input*2*float64(long)) / 1e6
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
	u.Cost.TotalFromProvider = false
	u.Keys |= UsageTotalFromProvider
}

// MarshalJSON writes the usage object as pi does.
func (u Usage) MarshalJSON() ([]byte, error) { return u.appendJSON(nil), nil }

// AppendJSON appends the usage object to b, as MarshalJSON writes it: JSON mode and RPC write it with
// every streamed delta, into the line they are building.
func (u Usage) AppendJSON(b []byte) []byte { return u.appendJSON(b) }

// appendJSON writes the usage object without reflection; it is on the path of every streamed delta.
func (u Usage) appendJSON(b []byte) []byte {
	b = append(b, `{"input":`...)
	b = strconv.AppendInt(b, int64(u.Input), 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, int64(u.Output), 10)
	b = append(b, `,"cacheRead":`...)
	b = strconv.AppendInt(b, int64(u.CacheRead), 10)
	b = append(b, `,"cacheWrite":`...)
	b = strconv.AppendInt(b, int64(u.CacheWrite), 10)
	if u.Keys&UsageReasoning != 0 {
		b = append(b, `,"reasoning":`...)
		b = strconv.AppendInt(b, int64(u.Reasoning), 10)
	}
	b = append(b, `,"totalTokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"cost":{"input":`...)
	b = appendJSFloat(b, u.Cost.Input)
	b = append(b, `,"output":`...)
	b = appendJSFloat(b, u.Cost.Output)
	b = append(b, `,"cacheRead":`...)
	b = appendJSFloat(b, u.Cost.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = appendJSFloat(b, u.Cost.CacheWrite)
	b = append(b, `,"total":`...)
	b = appendJSFloat(b, u.Cost.Total)
	if u.Keys&UsageTotalFromProvider != 0 {
		b = append(b, `,"totalFromProvider":`...)
		b = strconv.AppendBool(b, u.Cost.TotalFromProvider)
	}
	b = append(b, '}')
	if u.Keys&UsageCacheWrite1h != 0 {
		b = append(b, `,"cacheWrite1h":`...)
		b = strconv.AppendInt(b, int64(u.CacheWrite1h), 10)
	}
	if u.Keys&(UsageReasoningLast|UsageReasoning) == UsageReasoningLast {
		b = append(b, `,"reasoning":`...)
		b = strconv.AppendInt(b, int64(u.Reasoning), 10)
	}
	return append(b, '}')
}

// UnmarshalJSON reads a usage object, recording which optional keys it has and where "reasoning"
// was. Unknown keys are ignored; a null member counts as absent.
func (u *Usage) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*u = Usage{}
	ints := []struct {
		key string
		dst *int
		bit UsageKeys
	}{
		{"input", &u.Input, 0}, {"output", &u.Output, 0}, {"cacheRead", &u.CacheRead, 0},
		{"cacheWrite", &u.CacheWrite, 0}, {"totalTokens", &u.TotalTokens, 0},
		{"cacheWrite1h", &u.CacheWrite1h, UsageCacheWrite1h}, {"reasoning", &u.Reasoning, UsageReasoning},
	}
	for _, f := range ints {
		v, ok := raw[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		var n float64
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("usage.%s: %w", f.key, err)
		}
		*f.dst = int(n)
		u.Keys |= f.bit
	}
	if u.Keys&UsageReasoning != 0 && reasoningAfterCost(data) {
		u.Keys = u.Keys&^UsageReasoning | UsageReasoningLast
	}
	if v, ok := raw["cost"]; ok && string(v) != "null" {
		var c struct {
			Input, Output, CacheRead, CacheWrite, Total float64
			TotalFromProvider                           *bool `json:"totalFromProvider"`
		}
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("usage.cost: %w", err)
		}
		u.Cost = Cost{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, Total: c.Total}
		if c.TotalFromProvider != nil {
			u.Cost.TotalFromProvider = *c.TotalFromProvider
			u.Keys |= UsageTotalFromProvider
		}
	}
	return nil
}

// reasoningAfterCost reports whether the object's "reasoning" member follows its "cost" member (the
// key order of pi's Anthropic provider). Only top-level keys are looked at.
func reasoningAfterCost(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return false
	}
	sawCost := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case "cost":
			sawCost = true
		case "reasoning":
			return sawCost
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// appendJSFloat writes a cost as JSON.stringify does (negative zero as 0).
func appendJSFloat(b []byte, f float64) []byte {
	return jsonx.AppendNumber(b, f)
}
