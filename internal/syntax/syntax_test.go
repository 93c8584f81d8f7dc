package syntax

import (
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/syntax/syntaxtest"
)

// classOf lexes code as lang and returns the class of the token holding the first occurrence of
// needle; the test fails when needle is split between tokens of different classes.
func classOf(t *testing.T, lang, code, needle string) Class {
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
	tk.add(ClassPlain, len(code))
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

var classNames = [NumClasses]string{"plain", "comment", "keyword", "type", "function", "variable", "string",
	"number", "operator", "punctuation", "meta", "added", "removed"}

func TestHighlightClasses(t *testing.T) {
	cases := []struct {
		lang, code, needle string
		want               Class
	}{
		{"go", "func main() {}", "func", ClassKeyword},
		{"go", "func main() {}", "main", ClassFunction},
		{"go", "func (r *T) Name() error {}", "r", ClassPlain},
		{"go", "func (r *T) Name() error {}", "Name", ClassFunction},
		{"go", "func (r *T) Name() error {}", "error", ClassType},
		{"go", "x := `raw\nstring` + \"s\\\"q\"", "`raw\nstring`", ClassString},
		{"go", "x := `raw\nstring` + \"s\\\"q\"", `"s\"q"`, ClassString},
		{"go", "return nil // done", "nil", ClassNumber},
		{"go", "return nil // done", "// done", ClassComment},
		{"go", "n := 0x1F + 2.5e-3", "0x1F", ClassNumber},
		{"go", "n := 0x1F + 2.5e-3", "2.5e-3", ClassNumber},
		{"go", "a := b /* c */ + d", "/* c */", ClassComment},
		{"go", "type Point struct{}", "Point", ClassType},
		{"go", "r := 'x'", "'x'", ClassString},
		{"golang", "x := len(s)", "len", ClassType},
		{"python", "def norm(self):\n    \"\"\"Doc\n    more\"\"\"", "\"\"\"Doc\n    more\"\"\"", ClassString},
		{"python", "def norm(self):", "norm", ClassFunction},
		{"py", "@dataclass\nclass A: pass", "@dataclass", ClassMeta},
		{"py", "x = f'{y}' + rb\"z\"", "f'{y}'", ClassString},
		{"py", "x = f'{y}' + rb\"z\"", "rb\"z\"", ClassString},
		{"py", "x = None  # c", "None", ClassNumber},
		{"py", "x = None  # c", "# c", ClassComment},
		{"ts", "interface Opts { n?: number }", "Opts", ClassType},
		{"ts", "const s = `a ${b}\nc`", "`a ${b}\nc`", ClassString},
		{"js", "const $el = document.body", "document", ClassType},
		{"rust", "impl<'a> Point<'a> {}", "Point", ClassType}, // a lifetime is no character literal
		{"rust", "let c = 'x';", "'x'", ClassString},
		{"rust", "println!(\"hi\");", "println", ClassFunction},
		{"rust", "#[derive(Debug)]\nstruct A;", "#[derive(Debug)]", ClassMeta},
		{"rust", `let s = r#"a "q" b"#;`, `r#"a "q" b"#`, ClassString},
		{"rs", "fn new() -> Self { Some(1) }", "Some", ClassNumber},
		{"c", "#include <stdio.h>\nint x;", "#include <stdio.h>", ClassMeta},
		{"c", "#include <stdio.h>\nint x;", "int", ClassType},
		{"cpp", "auto p = std::make_unique<T>();", "make_unique", ClassPlain},
		{"cpp", "auto p = nullptr;", "nullptr", ClassNumber},
		{"java", "public class Main extends Base {}", "Base", ClassType},
		{"java", "@Override void run() {}", "@Override", ClassMeta},
		{"bash", "echo \"$HOME\" # note", "# note", ClassComment},
		{"bash", "echo ${x} $1 a#b", "${x}", ClassVariable},
		{"bash", "echo ${x} $1 a#b", "$1", ClassVariable},
		{"bash", "echo ${x} $1 a#b", "a#b", ClassPlain},
		{"sh", "if [ -n x ]; then ls -la; fi", "then", ClassKeyword},
		{"sql", "select id from users where name like 'a%'", "select", ClassKeyword},
		{"sql", "SELECT id FROM t -- c", "-- c", ClassComment},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, `"name"`, ClassVariable},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, `"pi"`, ClassString},
		{"json", `{"name": "pi", "n": 1.5, "ok": true}`, "true", ClassNumber},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "name", ClassVariable},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "key2", ClassVariable},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "# c", ClassComment},
		{"yaml", "name: pi\nlist:\n  - key2: 1 # c\nurl: http://x", "http://x", ClassPlain},
		{"yaml", "run: |\n  echo a: b\nnext: 1", "  echo a: b", ClassString},
		{"yaml", "run: |\n  echo a: b\nnext: 1", "next", ClassVariable},
		{"toml", "[package]\nname = \"pi\" # c", "[package]", ClassType},
		{"toml", "[package]\nname = \"pi\" # c", "name", ClassVariable},
		{"toml", "[package]\nname = \"pi\" # c", `"pi"`, ClassString},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "p", ClassKeyword},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "class", ClassVariable},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, `"x"`, ClassString},
		{"html", `<p class="x">a &amp; b</p><!-- c -->`, "<!-- c -->", ClassComment},
		{"html", "<script>const x = 1;</script>", "const", ClassKeyword},
		{"xml", `<?xml version="1.0"?><a/>`, `<?xml version="1.0"?>`, ClassMeta},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", ".nav", ClassType},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", ":hover", ClassFunction},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "color", ClassVariable},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "#fff", ClassNumber},
		{"css", ".nav > a:hover { color: #fff; margin: 1.5em; }", "1.5em", ClassNumber},
		{"css", "@media (x) { a { b: url(http://x/y) } }", "@media", ClassKeyword},
		{"css", "@import 'a.css';\nbody { color: red }", "body", ClassKeyword},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "-old", ClassRemoved},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "+new", ClassAdded},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", "@@ -1 +1 @@", ClassMeta},
		{"markdown", "# Title\n- item `code`", "# Title", ClassKeyword},
		{"markdown", "# Title\n- item `code`", "`code`", ClassString},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "build", ClassFunction},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "$(BIN)", ClassVariable},
		{"makefile", "BIN := x\nbuild: $(BIN)\n\tgo build # c", "# c", ClassComment},
		{"ruby", "def greet(name)\n  @quiet\nend", "@quiet", ClassVariable},
		{"lua", "local x = 1 -- c", "-- c", ClassComment},
		{"php", "<?php echo $name; ?>", "$name", ClassVariable},
		{"kotlin", "fun main() {}", "main", ClassFunction},
		{"dockerfile", "FROM golang:1.26 AS build", "FROM", ClassKeyword},
	}
	for _, c := range cases {
		if got := classOf(t, c.lang, c.code, c.needle); got != c.want {
			t.Errorf("%s %q: %q is %s, want %s", c.lang, c.code, c.needle, classNames[got], classNames[c.want])
		}
	}
}

func TestLanguageNames(t *testing.T) {
	for file, want := range map[string]string{
		"main.go": "go", "/x/y/App.TSX": "typescript", "a.d.ts": "typescript", "Makefile": "makefile",
		"Dockerfile": "dockerfile", "x.yml": "yaml", "build.sh": "bash", "README": "", "x.unknown": "",
		"lib.rs": "rust", "style.scss": "css", "q.sql": "sql", "change.patch": "diff", "dir.go/file": "",
	} {
		if got := LanguageForPath(file); got != want {
			t.Errorf("LanguageForPath(%q) = %q, want %q", file, got, want)
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

// Whatever the input, every language's spans cover the code exactly, in order, without empty spans.
func TestTokenizeCoversTheCode(t *testing.T) {
	inputs := syntaxtest.Samples()
	for _, name := range Languages() {
		for _, code := range inputs {
			spans, ok := Tokenize(code, name)
			if !ok {
				t.Fatalf("no lexer for listed language %q", name)
			}
			at := 0
			for _, sp := range spans {
				if sp.End < at || (sp.End == at && len(code) > 0) || sp.Class >= NumClasses {
					t.Fatalf("%s %q: bad span %+v after %d", name, code, sp, at)
				}
				at = sp.End
			}
			if at != len(code) {
				t.Fatalf("%s %q: spans end at %d of %d", name, code, at, len(code))
			}
		}
	}
}
