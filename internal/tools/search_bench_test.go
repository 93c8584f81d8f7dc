package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/search"
)

// The benchmark tree: 50,000 files, about 500 MB, generated once into os.TempDir() and kept there
// between runs (never committed). 50 top folders x 20 folders x 50 files; one file in five is Go; the
// literal searchBenchNeedle is in 20 files, so a search with the default limit reads the whole tree.
const (
	searchBenchTreeName = "pi-go-bench-tree-v1"
	searchBenchNeedle   = "zq_pi_go_needle_7f3a"
	searchBenchTop      = 50
	searchBenchMid      = 20
	searchBenchFiles    = 50
	searchBenchFileSize = 10 * 1000
)

func searchBenchTree(b *testing.B) string {
	b.Helper()
	dir, err := searchBenchGenerate(filepath.Join(os.TempDir(), searchBenchTreeName))
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// searchBenchGenerate writes the tree unless a complete one is already there.
func searchBenchGenerate(dir string) (string, error) {
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return struct interface package import const var type map chan select " +
		"range defer go if else for switch case default break continue fallthrough goto nil true false " +
		"error string int byte rune float64 context ctx err result value index buffer reader writer")
	// A 1 MB pool of source-like lines; each file is a window of it.
	var pool strings.Builder
	for pool.Len() < 1<<20 {
		n := 3 + rng.IntN(10)
		pool.WriteString(strings.Repeat("\t", rng.IntN(3)))
		for i := range n {
			if i > 0 {
				pool.WriteByte(' ')
			}
			pool.WriteString(words[rng.IntN(len(words))])
		}
		pool.WriteByte('\n')
	}
	text := pool.String()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\nbuild/\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return "", err
	}
	n := 0
	for top := range searchBenchTop {
		for mid := range searchBenchMid {
			sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", top), fmt.Sprintf("mod%02d", mid))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return "", err
			}
			for f := range searchBenchFiles {
				ext := ".txt"
				if f%5 == 0 {
					ext = ".go"
				}
				start := rng.IntN(len(text) - 2*searchBenchFileSize)
				body := text[start : start+searchBenchFileSize]
				if n%2500 == 1234 {
					body = body[:searchBenchFileSize/2] + searchBenchNeedle + body[searchBenchFileSize/2:]
				}
				name := filepath.Join(sub, fmt.Sprintf("file%02d%s", f, ext))
				if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
					return "", err
				}
				n++
			}
		}
	}
	return dir, os.WriteFile(done, nil, 0o644)
}

func searchBenchRun(b *testing.B, tool loop.Tool, args string, wantLines int) {
	b.Helper()
	call := loop.ToolCall{Args: json.RawMessage(args)}
	b.ResetTimer()
	for b.Loop() {
		res, err := tool.Execute(context.Background(), call, nil)
		if err != nil {
			b.Fatal(err)
		}
		if wantLines > 0 {
			if got := strings.Count(bashText(res), "\n") + 1; got != wantLines {
				b.Fatalf("%d lines, want %d", got, wantLines)
			}
		}
	}
}

// go test ./internal/tools/ -run '^$' -bench 'Grep(Literal|Regex)' -benchtime 5x
func BenchmarkGrepLiteralPureGo(b *testing.B) {
	dir := searchBenchTree(b)
	searchBenchRun(b, &grepTool{cwd: dir, backend: search.PureGo}, `{"pattern":"`+searchBenchNeedle+`","literal":true}`, 20)
}

func BenchmarkGrepLiteralRipgrep(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed")
	}
	dir := searchBenchTree(b)
	searchBenchRun(b, &grepTool{cwd: dir, backend: search.Auto}, `{"pattern":"`+searchBenchNeedle+`","literal":true}`, 20)
}

func BenchmarkGrepRegexPureGo(b *testing.B) {
	dir := searchBenchTree(b)
	searchBenchRun(b, &grepTool{cwd: dir, backend: search.PureGo}, `{"pattern":"zq_pi_\\w+_7f3a"}`, 20)
}

func BenchmarkGrepRegexRipgrep(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed")
	}
	dir := searchBenchTree(b)
	searchBenchRun(b, &grepTool{cwd: dir, backend: search.Auto}, `{"pattern":"zq_pi_\\w+_7f3a"}`, 20)
}

// go test ./internal/tools/ -run '^$' -bench 'Find' -benchtime 5x
// The limit is raised so the walk lists all 10,000 .go files (the default stops at 1,000); the text
// shown is cut at 50 KB (2,327 paths and the notice).
func BenchmarkFindGoFilesPureGo(b *testing.B) {
	dir := searchBenchTree(b)
	searchBenchRun(b, newFindTool(dir, search.PureGo), `{"pattern":"**/*.go","limit":100000}`, 2329)
}

func BenchmarkFindGoFilesFd(b *testing.B) {
	dir := searchBenchTree(b)
	tool := newFindTool(dir, search.Auto)
	if !tool.finder.UsesFd(dir) {
		b.Skip("fd is not installed")
	}
	searchBenchRun(b, tool, `{"pattern":"**/*.go","limit":100000}`, 2329)
}

func BenchmarkFindGoFilesDefaultLimitPureGo(b *testing.B) {
	dir := searchBenchTree(b)
	searchBenchRun(b, newFindTool(dir, search.PureGo), `{"pattern":"**/*.go"}`, 1002)
}
