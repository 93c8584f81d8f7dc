package theme

import "testing"

func TestEveryKeyHasPisName(t *testing.T) {
	seen := map[string]bool{}
	for k, name := range keyNames {
		if name == "" || seen[name] {
			t.Fatalf("key %d: name %q missing or repeated", k, name)
		}
		seen[name] = true
	}
	c := Named("light", "").Colors()
	if c["syntaxKeyword"] != "#0000FF" || c["userMessageBg"] != "#e8e8e8" {
		t.Fatalf("light colours: %v", c)
	}
	if _, ok := c["text"]; ok {
		t.Fatal("the terminal's default text colour is exported")
	}
	if !Named("dark", "").IsDark() || Named("system", "15;0").IsDark() == Named("system", "0;15").IsDark() {
		t.Fatal("Named does not follow Resolve")
	}
}
