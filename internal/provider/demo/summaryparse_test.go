package demo

import (
	"hash/fnv"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The summary prompt is split without regular expressions (a compaction sends megabytes); these are
// the obvious versions it must agree with.
var refConversation = regexp.MustCompile(`(?s)^<conversation>\n(.*)\n</conversation>\n\n(.*)$`)

func refParseTranscript(s string) []transcriptPart {
	var parts []transcriptPart
	for _, line := range strings.Split(s, "\n") {
		started := false
		for _, p := range partPrefixes {
			if strings.HasPrefix(line, p) {
				parts = append(parts, transcriptPart{role: strings.Trim(p, "[]: "), text: line[len(p):]})
				started = true
				break
			}
		}
		if !started && len(parts) > 0 {
			parts[len(parts)-1].text += "\n" + line
		}
	}
	return parts
}

func TestSummaryPromptSplitting(t *testing.T) {
	pieces := []string{"<conversation>\n", "\n</conversation>\n\n", "\n", "[User]: ", "[Assistant]: ", "[Tool result]: ",
		"[Assistant tool calls]: ", "text", " ", "## Goal", "[User]:x", ""}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		if r.Intn(4) > 0 {
			b.WriteString("<conversation>\n")
		}
		for n := r.Intn(12); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		conv, instr, ok := conversationPrompt(s)
		m := refConversation.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (conv != m[1] || instr != m[2]) {
			t.Fatalf("conversationPrompt(%q) = %q, %q, %v; regexp %q", s, conv, instr, ok, m)
		}
		if got, want := parseTranscript(s), refParseTranscript(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("parseTranscript(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestFNV1aMatchesHashFNV(t *testing.T) {
	for _, s := range []string{"", "a", "hello|12", strings.Repeat("é\x00\xff", 100)} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got := fnv1a(fnvOffset64, s); got != h.Sum64() {
			t.Errorf("fnv1a(%q) = %x, hash/fnv %x", s, got, h.Sum64())
		}
	}
}

func TestRuneCount(t *testing.T) {
	for _, s := range []string{"", "abc", "é日😀", "\xff\x80a\xe2\x82", strings.Repeat("ab\xc3", 50)} {
		if got, want := runeCount([]byte(s)), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestPathArgsMatchTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`\bpath="((?:[^"\\]|\\.)*)"`)
	pieces := []string{`path="`, `"`, `\`, "\n", "a", "x", ", ", "é", "\xff", `filepath="`, `\"`, `\\`, " path=", "_"}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for n := r.Intn(10); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		var want []string
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			want = append(want, m[1])
		}
		if got := pathArgs(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("pathArgs(%q) = %q, regexp %q", s, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	ref := func(s string, max int) string {
		if utf8.RuneCountInString(s) <= max {
			return s
		}
		r := []rune(s)
		return strings.TrimRight(string(r[:max-1]), " ") + "…"
	}
	for _, s := range []string{"", "short", strings.Repeat("ab ", 100), strings.Repeat("é\xff ", 80), "日本語のテキスト" + strings.Repeat(" ", 200)} {
		for _, max := range []int{1, 2, 5, 120} {
			if got, want := clip(s, max), ref(s, max); got != want {
				t.Errorf("clip(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}
