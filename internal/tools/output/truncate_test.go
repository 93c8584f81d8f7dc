package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// truncGolden is testdata/truncate.json, produced by pi 0.73.1's own truncate.js (gen.mjs).
type truncGolden struct {
	Truncate []struct {
		Content  string     `json:"content"`
		MaxLines int        `json:"maxLines"`
		MaxBytes int        `json:"maxBytes"`
		Head     Truncation `json:"head"`
		Tail     Truncation `json:"tail"`
	} `json:"truncate"`
	FormatSize []struct {
		N    int    `json:"n"`
		Text string `json:"text"`
	} `json:"formatSize"`
	TruncateLine []struct {
		Line   string `json:"line"`
		Max    int    `json:"max"`
		Result struct {
			Text         string `json:"text"`
			WasTruncated bool   `json:"wasTruncated"`
		} `json:"result"`
	} `json:"truncateLine"`
}

func truncLoadGolden(t *testing.T) truncGolden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "truncate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g truncGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Truncate) == 0 || len(g.FormatSize) == 0 || len(g.TruncateLine) == 0 {
		t.Fatal("golden file has empty sections")
	}
	return g
}

func truncJSON(t *testing.T, v Truncation) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestTruncateHeadAndTailMatchPi(t *testing.T) {
	g := truncLoadGolden(t)
	for i, c := range g.Truncate {
		if got, want := truncJSON(t, TruncateHead(c.Content, c.MaxLines, c.MaxBytes)), truncJSON(t, c.Head); got != want {
			t.Errorf("case %d head(%q, %d, %d)\n got %s\nwant %s", i, c.Content, c.MaxLines, c.MaxBytes, got, want)
		}
		if got, want := truncJSON(t, TruncateTail(c.Content, c.MaxLines, c.MaxBytes)), truncJSON(t, c.Tail); got != want {
			t.Errorf("case %d tail(%q, %d, %d)\n got %s\nwant %s", i, c.Content, c.MaxLines, c.MaxBytes, got, want)
		}
	}
}

func TestFormatSizeMatchesPi(t *testing.T) {
	for _, c := range truncLoadGolden(t).FormatSize {
		if got := FormatSize(c.N); got != c.Text {
			t.Errorf("FormatSize(%d) = %q, pi says %q", c.N, got, c.Text)
		}
	}
	if got := FormatSize(DefaultMaxBytes); got != "50.0KB" {
		t.Errorf("FormatSize(DefaultMaxBytes) = %q", got)
	}
}

func TestTruncateLineMatchesPi(t *testing.T) {
	for _, c := range truncLoadGolden(t).TruncateLine {
		got, cut := TruncateLine(c.Line, c.Max)
		want := c.Result.Text
		// pi cuts inside a surrogate pair where Go drops the whole character (see TruncateLine).
		if strings.ContainsRune(want, '\uFFFD') && !strings.ContainsRune(c.Line, '\uFFFD') {
			want = strings.Replace(want, "\uFFFD", "", 1)
		}
		if got != want || cut != c.Result.WasTruncated {
			t.Errorf("TruncateLine(%q, %d) = %q, %v; pi says %q, %v", c.Line, c.Max, got, cut, c.Result.Text, c.Result.WasTruncated)
		}
	}
}

func TestTruncateHeadDefaults(t *testing.T) {
	lines := make([]string, 2500)
	for i := range lines {
		lines[i] = "Line"
	}
	tr := TruncateHead(strings.Join(lines, "\n"), DefaultMaxLines, DefaultMaxBytes)
	if !tr.Truncated || *tr.TruncatedBy != "lines" || tr.OutputLines != 2000 || tr.TotalLines != 2500 {
		t.Fatalf("unexpected truncation %+v", tr)
	}
	long := strings.Repeat("x", DefaultMaxBytes+1) + "\nshort"
	tr = TruncateHead(long, DefaultMaxLines, DefaultMaxBytes)
	if !tr.FirstLineExceedsLimit || tr.Content != "" || *tr.TruncatedBy != "bytes" {
		t.Fatalf("first line over the limit: %+v", tr)
	}
}
