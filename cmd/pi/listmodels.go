package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
)

// listModels prints the models that have credentials, optionally fuzzy-filtered (--list-models).
func (a *app) listModels(search string) error {
	a.flushWarnings()
	models := a.registry.Available(func(p string) bool { return a.auth.HasAuth(p) || a.registry.VirtualOnly(p) })
	if len(models) == 0 {
		fmt.Fprintln(a.io.Out, noModelsMessage)
		return nil
	}
	var rows []*provider.Model
	for _, m := range models {
		if search == "" || fuzzyMatch(search, m.Provider+" "+m.ID) {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.io.Out, "No models matching %q\n", search)
		return nil
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Provider != rows[j].Provider {
			return strings.ToLower(rows[i].Provider) < strings.ToLower(rows[j].Provider)
		}
		return strings.ToLower(rows[i].ID) < strings.ToLower(rows[j].ID)
	})
	return a.printModels(rows)
}

// listServerModels prints the models a --base-url server lists at GET <base>/models (the OpenAI
// API's model list, which Ollama, llama.cpp, vLLM and the hosted services serve), with the defaults a
// model of that endpoint gets; search filters as in listModels.
func (a *app) listServerModels(ctx context.Context, search string) error {
	a.flushWarnings()
	ep := a.endpoint
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.BaseURL+"/models", nil)
	if err != nil {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	if key, _, err := a.auth.APIKey(ctx, ep.Provider); err == nil && !key.IsZero() {
		req.Header.Set("Authorization", "Bearer "+key.Reveal())
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("Error: cannot list the models of %s: %v", ep.BaseURL, err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("Error: cannot list the models of %s: %v", ep.BaseURL, err)}
	}
	if resp.StatusCode != http.StatusOK {
		return &exitError{code: 1, msg: fmt.Sprintf("Error: GET %s/models: %d %s", ep.BaseURL, resp.StatusCode,
			strings.TrimSpace(string(body)))}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("Error: GET %s/models: not a model list: %v", ep.BaseURL, err)}
	}
	var rows []*provider.Model
	for _, d := range list.Data {
		if d.ID == "" || search != "" && !fuzzyMatch(search, ep.Provider+" "+d.ID) {
			continue
		}
		if m, err := ep.Model(d.ID); err == nil {
			rows = append(rows, &m)
		}
	}
	if len(rows) == 0 {
		if search != "" {
			fmt.Fprintf(a.io.Out, "No models matching %q\n", search)
		} else {
			fmt.Fprintf(a.io.Out, "%s lists no models\n", ep.BaseURL)
		}
		return nil
	}
	sort.SliceStable(rows, func(i, j int) bool { return strings.ToLower(rows[i].ID) < strings.ToLower(rows[j].ID) })
	return a.printModels(rows)
}

// printModels prints one line per model in columns two spaces apart, under a header.
func (a *app) printModels(rows []*provider.Model) error {
	table := [][]string{{"provider", "model", "context", "max-out", "thinking", "images"}}
	for _, m := range rows {
		table = append(table, []string{m.Provider, m.ID, formatTokenCount(m.ContextWindow),
			formatTokenCount(m.MaxTokens), yesNo(m.Reasoning), yesNo(m.SupportsImages())})
	}
	widths := make([]int, len(table[0]))
	for _, r := range table {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range table {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
		}
		b.WriteByte('\n')
	}
	_, err := fmt.Fprint(a.io.Out, b.String())
	return err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// formatTokenCount is pi's 200000 → "200K", 1000000 → "1M", 1048576 → "1.0M".
func formatTokenCount(n int) string {
	switch {
	case n >= 1_000_000:
		if n%1_000_000 == 0 {
			return strconv.Itoa(n/1_000_000) + "M"
		}
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 1_000:
		if n%1_000 == 0 {
			return strconv.Itoa(n/1_000) + "K"
		}
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "K"
	}
	return strconv.Itoa(n)
}

// fuzzyMatch reports whether every space-separated token of query appears in text as a
// case-insensitive subsequence.
func fuzzyMatch(query, text string) bool {
	text = strings.ToLower(text)
	for _, tok := range strings.Fields(strings.ToLower(query)) {
		i := 0
		for _, r := range text {
			if i < len(tok) {
				c, size := utf8.DecodeRuneInString(tok[i:])
				if r == c {
					i += size
				}
			}
		}
		if i < len(tok) {
			return false
		}
	}
	return true
}
