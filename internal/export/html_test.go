package export

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The page's content (everything but the fixed style sheet and script) is pinned by a golden file.
func TestHTMLGolden(t *testing.T) {
	page := renderHTML(t, openFixture(t, "rich.jsonl"), HTMLOptions{SystemPrompt: "You are pi.",
		Tools: []ToolInfo{{Name: "read", Description: "Read a file"}}})
	start := strings.Index(page, "<main id=\"transcript\">")
	end := strings.Index(page, "<script>")
	if start < 0 || end < start {
		t.Fatalf("no transcript or script in the page")
	}
	got := page[start:end]
	golden := filepath.Join("testdata", "rich.golden.html")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s (run go test -update to accept):\n%s", golden, firstDiff(got, string(want)))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}

func TestHTMLStructure(t *testing.T) {
	page := renderHTML(t, openFixture(t, "rich.jsonl"), HTMLOptions{})
	mustContain := []struct{ what, text string }{
		{"content security policy", `<meta http-equiv="Content-Security-Policy" content="default-src 'none'`},
		{"theme colours", "--c-accent:#8abeb7;"},
		{"derived page background", "--page-bg:#24252e;"},
		{"title from the session name", "<title>Fix greeting</title>"},
		{"user markdown", "<strong>main.go</strong>"},
		{"user HTML shown as text", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"pasted image as a data URI", `<img class="img" alt="image" loading="lazy" src="data:image/png;base64,iVBOR`},
		{"thinking", `<div class="thinking"><div class="md"><p>The user wants a <em>fix</em>.`},
		{"highlighted code block", `<pre class="code" data-lang="go"><code><span class="hk">func</span> <span class="hf">main</span>`},
		{"table", "<table>"},
		{"remote markdown image as a link", `<a class="mdimg" href="https://example.com/x.png">[image: remote]</a>`},
		{"read call", `<span class="tool-name">read</span> <span class="path">main.go</span>`},
		{"bash call", `<pre class="cmd">$ `},
		{"read result highlighted as Go", `<pre class="out"><span class="hk">package</span> main`},
		{"long output collapsed", `<details class="more"><summary>20 more lines`},
		{"tool error", `<div class="who err">`},
		{"edit diff added", `<span class="da">+ 4 	fmt.Println(&#34;hello&#34;)`},
		{"edit diff removed", `<span class="dr">- 4 	fmt.Println(&#34;hi&#34;)`},
		{"model change", `<div class="info">Model: openai/gpt-5</div>`},
		{"thinking level", `<div class="info">Thinking: high</div>`},
		{"compaction", `compacted 45,000 tokens`},
		{"compaction summary markdown", "<h2>Goal</h2>"},
		{"shell command exit code", "exit code 1"},
		{"assistant error", `<div class="error">Error: overloaded</div>`},
		{"per-message cost", "anthropic/claude-sonnet-4-5 · ↑1,200 ↓80 · $0.0123"},
		{"total cost", "<dt>Cost</dt><dd>$0.0293</dd>"},
		{"label in the tree", `<span class="label">first answer</span>`},
		{"leaf in the tree", `class="row k-aux on leaf" href="#e-a0000015"`},
		{"string user content", "Thanks! Done?"},
	}
	for _, c := range mustContain {
		if !strings.Contains(page, c.text) {
			t.Errorf("%s: %q not in the page", c.what, c.text)
		}
	}
	// The abandoned answer is in the page, hidden as off the active branch; the answers on it are not.
	if !regexp.MustCompile(`<article class="e k-assistant off" id="e-b0000001" data-p="a0000003">`).MatchString(page) {
		t.Error("the side branch is not marked off")
	}
	if !strings.Contains(page, `<article class="e k-assistant" id="e-a0000014" data-p="a0000013">`) {
		t.Error("the active branch's last answer is marked off")
	}
	if n := strings.Count(page, "<article "); n != 16 {
		t.Errorf("%d articles, want one per entry (16)", n)
	}
	if n := strings.Count(page, `<a class="row `); n != 16 {
		t.Errorf("%d tree rows, want 16", n)
	}
	// Offline: the only script is the page's own (the others are inert text), nothing has a remote
	// source.
	if n := strings.Count(page, "<script") - strings.Count(page, `<script type="text/x-pi-more">`); n != 1 {
		t.Errorf("%d script elements, want 1", n)
	}
	if strings.Count(page, "</script") != strings.Count(page, "<script") {
		t.Error("an output's text ends a script element early")
	}
	for _, m := range regexp.MustCompile(`(?i)\s(?:src|srcset|poster|data)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "data:") {
			t.Errorf("an element loads %q", m[1])
		}
	}
	if strings.Contains(page, "<link") || strings.Contains(page, "@import") || strings.Contains(page, "url(") {
		t.Error("the page references an external resource")
	}
}

// Colours go into the style sheet verbatim, so anything but #rrggbb is refused.
func TestThemeColoursAreChecked(t *testing.T) {
	th := Theme{Dark: true, Colors: map[string]string{"accent": "red;}</style><script>", "x}y": "#000000", "muted": "#123456"}}
	css := th.cssVars()
	if strings.Contains(css, "script") || strings.Contains(css, "x}y") {
		t.Fatalf("unchecked colour in %s", css)
	}
	if !strings.Contains(css, "--c-muted:#123456;") || !strings.Contains(css, "--c-accent:#8abeb7;") {
		t.Fatalf("colours missing from %s", css)
	}
}

// A session without a file has nothing to export, as pi says.
func TestHTMLFileNeedsASessionFile(t *testing.T) {
	if _, err := HTMLFile(t.Context(), Source{}, "", t.TempDir(), HTMLOptions{}); err != ErrNothingToExport {
		t.Fatalf("err = %v", err)
	}
}

func TestImageTypesAreChecked(t *testing.T) {
	for mime, want := range map[string]bool{"image/png": true, "image/svg+xml": true, "image/x-icon": true,
		"text/html": false, "image/": false, `image/png" onerror="x`: false, "image/png;base64": false} {
		if got := isImageMIME(mime); got != want {
			t.Errorf("isImageMIME(%q) = %v", mime, got)
		}
	}
	if isBase64(`AAAA" onerror="x`) || !isBase64("iVBORw0KGgo=") {
		t.Error("isBase64")
	}
}
