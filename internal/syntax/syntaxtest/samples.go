// Package syntaxtest holds the inputs that tests of the lexers and of their callers share.
package syntaxtest

import "math/rand"

// Samples are code that stresses a lexer: empty and unterminated constructs of the languages,
// non-ASCII text, and 200 random strings of the characters lexers treat specially (seeded, so a
// failure repeats).
func Samples() []string {
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
	return inputs
}
