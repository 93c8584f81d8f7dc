package config

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// manyProvidersJSON is a models.json with n custom providers of two models each.
func manyProvidersJSON(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  // generated\n  \"providers\": {\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `    "prov-%05d": {"baseUrl": "http://127.0.0.1:9/%d/v1", "apiKey": "KEY_%d", "api": "openai-completions",
      "headers": {"X-Team": "t%d"},
      "models": [{"id": "model-%d-a", "name": "Model %d A", "contextWindow": 32000, "maxTokens": 4096},
                 {"id": "model-%d-b", "reasoning": true, "input": ["text", "image"], "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},}]}`,
			i, i, i, i, i, i, i)
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

// loadForStartup is what pi-go does with models.json before its first prompt: parse and validate the
// file, build the registry, and list the models with credentials.
func loadForStartup(tb testing.TB, path string) int {
	registry, cfg, err := LoadRegistry(path)
	if err != nil {
		tb.Fatal(err)
	}
	auth := NewAuth(AuthOptions{Getenv: func(string) string { return "" }, Models: cfg})
	return len(registry.Available(auth.HasAuth))
}

// BenchmarkLoadModelsJSON shows the load is linear in the number of providers: the time per
// provider (ns/provider) stays flat from 200 to 20,000.
func BenchmarkLoadModelsJSON(b *testing.B) {
	for _, n := range []int{200, 2000, 20000} {
		b.Run(fmt.Sprintf("providers=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "models.json")
			if err := os.WriteFile(path, manyProvidersJSON(n), 0o600); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := loadForStartup(b, path); got < 2*n {
					b.Fatalf("%d models available, want at least %d", got, 2*n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/provider")
		})
	}
}

// Building the registry and finding the models with credentials is linear in the number of
// providers: one pass over 20,000 providers costs about what twenty passes over 1,000 cost, not twenty
// times as much (each custom model was compared with every model before it, and each credential check
// scanned every provider). The cost is the process's CPU time, which other processes on the machine
// do not inflate as they do the wall clock; the bound sits far from both 1x and 20x, and one run of
// the large case has to meet it.
func TestModelsJSONLookupsAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds registries of 20,000 providers")
	}
	run := func(n, times int) time.Duration {
		cfg := manyProviders(n)
		// without the collector the cost is the work itself: a collection marks the whole live heap,
		// which is larger in the large case
		runtime.GC()
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		start := cpuTime(t)
		for range times {
			registry := provider.NewRegistry(provider.BuiltinModels(), cfg.Customization())
			auth := NewAuth(AuthOptions{Getenv: func(string) string { return "" }, Models: cfg})
			if got := len(registry.Available(auth.HasAuth)); got < n {
				t.Fatalf("%d models available, want %d", got, n)
			}
		}
		return cpuTime(t) - start
	}
	const small, large = 1000, 40000
	best := time.Duration(math.MaxInt64)
	for range 2 {
		best = min(best, run(small, large/small))
	}
	var tries []time.Duration
	for range 3 {
		d := run(large, 1)
		if d <= 10*best {
			t.Logf("CPU time of %d × %d providers: %v; of %d once: %v (%.1fx)", large/small, small, best, large, d, float64(d)/float64(best))
			return
		}
		tries = append(tries, d)
	}
	t.Fatalf("CPU time of %d × %d providers: %v, of %d providers once: %v: the cost grows faster than the providers",
		large/small, small, best, large, tries)
}

// manyProviders is a parsed models.json of n custom providers with one model each, built in memory
// (parsing is measured by BenchmarkLoadModelsJSON).
func manyProviders(n int) *ModelsConfig {
	cfg := &ModelsConfig{Path: "models.json", byName: make(map[string]int, n)}
	for i := range n {
		name := fmt.Sprintf("prov-%05d", i)
		cfg.byName[name] = i
		cfg.Providers = append(cfg.Providers, ProviderConfig{Name: name, BaseURL: "http://127.0.0.1:9/v1",
			APIKey: "KEY", API: provider.APIOpenAICompletions, Models: []ModelDefinition{{ID: fmt.Sprintf("model-%d", i)}}})
	}
	return cfg
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
