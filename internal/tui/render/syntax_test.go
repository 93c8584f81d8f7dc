package render

import (
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// classOf lexes code as lang and returns the class of the token holding the first occurrence of
// needle; the test fails when needle is split between tokens of different classes.
func classOf(t *testing.T, lang, code, needle string) tokClass {
	t.Helper()
	lx := lexerFor(lang)
	if lx == nil {
		t.Fatalf("no lexer for %q", lang)
	}
	at := strings.Index(code, needle)
	if at < 0 {
		t.Fatalf("%q not in %q", needle, code)
	}
	var tk tokens
	lx(code, &tk)
	tk.add(tcPlain, len(code))
	for _, sp := range tk.spans {
		if at < sp.end {
			if at+len(needle) > sp.end {
				t.Fatalf("%s: %q is split at %d in %q", lang, needle, sp.end, code)
			}
			return sp.class
		}
	}
	t.Fatalf("%q not covered", needle)
	return 0
}

var classNames = [numTokClasses]string{"plain", "comment", "keyword", "type", "function", "variable", "string",
	"number", "operator", "punctuation", "meta", "added", "removed"}

func TestHighlightClasses(t *testing.T) {
	cases := []struct {
		lang, code, needle string
		want               tokClass
	}{
		{"go", "func main() {}", "func", tcKeyword},
		{"go", "func main() {}", "main", tcFunction},
		{"go", "func (r *T) Name() error {}", "r", tcPlain},
		{"go", "func (r *T) Name() error {}", "Name", tcFunction},
		{"go", "func (r *T) Name() error {}", "error", tcType},
		{"go", "x := `raw\nstring` + \"s\\\"q\"", "`raw\nstring`", tcString},
		{"go", "x := `raw\nstring` + \"s\\\"q\"", `"s\"q"`, tcString},
		{"go", "return nil // done", "nil", tcNumber},
		{"go", "return nil // done", "// done", tcComment},
		{"go", "n := 0x1F + 2.5e-3", "0x1F", tcNumber},
		{"go", "n := 0x1F + 2.5e-3", "2.5e-3", tcNumber},
		{"go", "a := b /* c */ + d", "/* c */", tcComment},
		{"go", "type Point struct{}", "Point", tcType},
		{"go", "r := 'x'", "'x'", tcString},
		{"golang", "x := len(s)", "len", tcType},
		{"python", "def norm(self):\n    \"\"\"Doc\n    more\"\"\"", "\"\"\"Doc\n    more\"\"\"", tcString},
		{"python", "def norm(self):", "norm", tcFunction},
		{"py", "@dataclass\nclass A: pass", "@dataclass", tcMeta},
		{"py", "x = f'{y}' + rb\"z\"", "f'{y}'", tcString},
		{"py", "x = f'{y}' + rb\"z\"", "rb\"z\"", tcString},
		{"py", "x = None  # c", "None", tcNumber},
		{"py", "x = None  # c", "# c", tcComment},
		{"ts", "interface Opts { n?: number }", "Opts", tcType},
		{"ts", "const s = `a ${b}\nc`", "`a ${b}\nc`", tcString},
		{"js", "const $el = document.body", "document", tcType},
		{"rust", "impl<'a> Point<'a> {}", "Point", tcType}, // a lifetime is no character literal
		{"rust", "let c = 'x';", "'x'", tcString},
		{"rust", "println!(\"hi\");", "println", tcFunction},
		{"rust", "#[derive(Debug)]\nstruct A;", "#[derive(Debug)]", tcMeta},
		{"rust", `let s = r#"a "q" b"#;`, `r#"a "q" b"#`, tcString},
		{"rs", "fn new() -> Self { Some(1) }", "Some", tcNumber},
		{"c", "#include <stdio.h>\nint x;", "#include <stdio.h>", tcMeta},
		{"c", "#include <stdio.h>\nint x;", "int", tcType},
		{"cpp", "auto p = std::make_unique<T>();", "make_unique", tcPlain},
		{"cpp", "auto p = nullptr;", "nullptr", tcNumber},
		{"java", "public class Main extends Base {}", "Base", tcType},
		{"java", "@Override void run() {}", "@Override", tcMeta},
		{"bash", "echo \"$HOME\" # note", "# note", tcComment},
		{"bash", "echo ${x} $1 a#b", "${x}", tcVariable},
		{"bash", "echo ${x} $1 a#b", "$1", tcVariable},
		{"bash", "echo ${x} $1 a#b", "a#b", tcPlain},
		{"sh", "if [ -n x ]; then ls -la; fi", "then", tcKeyword},
		{"sql", "select id from users where name like 'a%'", "select", tcKeyword},
		{"sql", "SELECT id FROM t -- c", "-- c", tcComment},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, `"name"`, tcVariable},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, `"pi"`, tcString},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, "true", tcNumber},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "name", tcVariable},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "key2", tcVariable},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "# c", tcComment},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "http://x", tcPlain},
		{"yaml", "run: |\n  echo a: b\nnext: 1", "  echo a: b", tcString},
		{"yaml", "run: |\n  echo a: b\nnext: 1", "next", tcVariable},
		{"toml", "[package]\nname = \"pi\" # c", "[package]", tcType},
		{"toml", "[package]\nname = \"pi\" # c", "name", tcVariable},
		{"toml", "[package]\nname = \"pi\" # c", `"pi"`, tcString},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "p", tcKeyword},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "class", tcVariable},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, `"x"`, tcString},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "<!-- c -->", tcComment},
		{"html", "<script>const x = 1;</script>", "const", tcKeyword},
		{"xml", `<?xml version="1.0"?><a/>`, `<?xml version="1.0"?>`, tcMeta},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", ".nav", tcType},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", ":hover", tcFunction},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "color", tcVariable},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "#fff", tcNumber},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "1.5em", tcNumber},
		{"css", "@media (x) { a { b: url(http://x/y) } }", "@media", tcKeyword},
		{"css", "@import 'a.css';\nbody { color: red }", "body", tcKeyword},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "-old", tcRemoved},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "+new", tcAdded},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "@@ -1 +1 @@", tcMeta},
		{"markdown", "# Title\n- item `code`", "# Title", tcKeyword},
		{"markdown", "# Title\n- item `code`", "`code`", tcString},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "build", tcFunction},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "$(BIN)", tcVariable},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "# c", tcComment},
		{"ruby", "def greet(name)\n  @quiet\nend", "@quiet", tcVariable},
		{"lua", "local x = 1 -- c", "-- c", tcComment},
		{"php", "<?php echo $name; ?>", "$name", tcVariable},
		{"kotlin", "fun main() {}", "main", tcFunction},
		{"dockerfile", "FROM golang:1.26 AS build", "FROM", tcKeyword},
	}
	for _, c := range cases {
		if got := classOf(t, c.lang, c.code, c.needle); got != c.want {
			t.Errorf("%s %q: %q is %s, want %s", c.lang, c.code, c.needle, classNames[got], classNames[c.want])
		}
	}
}

// Whatever the input, every language gives one line per source line, with the source's text, each
// line closing its styles.
func TestHighlightIsLossless(t *testing.T) {
	th := theme.Dark(termenv.ANSI256)
	inputs := []string{"", "\n", "\n\n", "x", "\"unterminated", "'", "`", "/* open", "<!-- open", "<a b=\"c", "'\\",
		"#", "$", "${", "@", "r#\"", "\"\"\"", "---\n+++\n@@", "a: |\n  b\n", "[x", "```", "日本語 \"文字列\" // 注釈",
		"\t\tindented\ttabs", "\\", "{\"a\": [1, {\"b\": null}]}"}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("abcXYZ019 \t\n\"'`#$@{}[]()<>!-+*/=;:,.\\|&%?~_^")
	for range 200 {
		b := make([]byte, rng.Intn(80))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	var names []string
	for name := range languages() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, code := range inputs {
			lines := colourLines(th, code, languages()[name])
			want := strings.Split(code, "\n")
			if len(lines) != len(want) {
				t.Fatalf("%s %q: %d lines, want %d", name, code, len(lines), len(want))
			}
			for i, l := range lines {
				if ansi.Strip(l) != want[i] {
					t.Fatalf("%s %q: line %d is %q, want %q", name, code, i, ansi.Strip(l), want[i])
				}
				if st := sgrStateAfter("", l); st != "" {
					t.Fatalf("%s %q: line %d leaves %q open", name, code, i, st)
				}
			}
		}
	}
}

func TestLanguageNames(t *testing.T) {
	for file, want := range map[string]string{
		"main.go": "go", "/x/y/App.TSX": "typescript", "a.d.ts": "typescript", "Makefile": "makefile",
		"Dockerfile": "dockerfile", "x.yml": "yaml", "build.sh": "bash", "README": "", "x.unknown": "",
		"lib.rs": "rust", "style.scss": "css", "q.sql": "sql", "change.patch": "diff", "dir.go/file": "",
	} {
		if got := languageForPath(file); got != want {
			t.Errorf("languageForPath(%q) = %q, want %q", file, got, want)
		}
	}
	for _, alias := range []string{"Go", "golang", "js", "TSX", "py3", "c++", "C#", "zsh", "yml", "patch", "md"} {
		if lexerFor(alias) == nil {
			t.Errorf("no lexer for %q", alias)
		}
	}
	for _, none := range []string{"", "text", "plaintext", "output", "unknownlang"} {
		if lexerFor(none) != nil {
			t.Errorf("a lexer for %q", none)
		}
	}
}

// Code in a language without a lexer keeps pi's plain code-block colour; known languages are coloured.
func TestHighlightCodeColours(t *testing.T) {
	th := theme.Dark(termenv.ANSI256)
	plain := highlightCode(th, "some output\n", "text")
	if len(plain) != 2 || plain[0] != th.Fg(theme.MdCodeBlock, "some output") || plain[1] != "" {
		t.Fatalf("unknown language: %q", plain)
	}
	goLines := highlightCode(th, "func main() {}", "go")
	if !strings.Contains(goLines[0], th.FgSeq(theme.SyntaxKeyword)+"func") ||
		!strings.Contains(goLines[0], th.FgSeq(theme.SyntaxFunction)+"main") {
		t.Fatalf("go not coloured: %q", goLines[0])
	}
	if got := highlightCode(theme.Dark(termenv.Ascii), "func main() {}", "go"); got[0] != "func main() {}" {
		t.Fatalf("Ascii profile coloured: %q", got[0])
	}
}
