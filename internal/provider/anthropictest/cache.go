package anthropictest

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// Cache simulates Anthropic's prompt cache closely enough to measure where a client puts its
// cache_control breakpoints: a request is read as its blocks in cache order (tools, system blocks,
// then each message's content blocks, a string content counting as one text block), each block
// without its cache_control. A breakpoint stores the prefix that ends at its block; a later request
// reads the longest of its prefixes that was stored (at any block, as Anthropic looks back from each
// breakpoint), writes what lies between that and its last breakpoint, and pays the rest as input.
// Tokens are counted as bytes of canonical JSON / 4.
type Cache struct {
	mu     sync.Mutex
	stored map[[32]byte]bool
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{stored: map[[32]byte]bool{}} }

// Account returns the usage of one request (output 57) and stores its breakpoints.
func (c *Cache) Account(body []byte) Usage {
	var req struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return Usage{Output: 57}
	}
	type block struct {
		v      any
		marked bool
	}
	var blocks []block
	add := func(m map[string]any) {
		_, marked := m["cache_control"]
		cp := map[string]any{}
		for k, v := range m {
			if k != "cache_control" {
				cp[k] = v
			}
		}
		blocks = append(blocks, block{cp, marked})
	}
	for _, t := range req.Tools {
		add(t)
	}
	for _, s := range req.System {
		add(s)
	}
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			add(map[string]any{"role": m.Role, "type": "text", "text": s})
			continue
		}
		var parts []map[string]any
		_ = json.Unmarshal(m.Content, &parts)
		for i, p := range parts {
			p["role"] = m.Role
			if i == 0 {
				p["first"] = true // message boundaries are part of the prefix
			}
			add(p)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := sha256.New()
	tokens, read, lastMark := 0, 0, 0
	var marks [][32]byte
	for _, b := range blocks {
		data, _ := json.Marshal(b.v)
		h.Write(data)
		tokens += (len(data) + 3) / 4
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		if c.stored[sum] {
			read = tokens
		}
		if b.marked {
			lastMark = tokens
			marks = append(marks, sum)
		}
	}
	for _, m := range marks {
		c.stored[m] = true
	}
	write := max(lastMark-read, 0)
	return Usage{Input: tokens - read - write, CacheRead: read, CacheWrite: write, Output: 57}
}
