package theme

import "testing"

func TestEveryKeyHasPisName(t *testing.T) {
	seen := map[string]bool{}
	for k := range Key(numKeys) {
		if name := k.Name(); name == "" || seen[name] {
			t.Fatalf("key %d: name %q missing or repeated", k, name)
		} else {
			seen[name] = true
		}
	}
	c := Named("light", "").Colors()
	if c["syntaxKeyword"] != "#2f7899" || c["userMessageBg"] != "#dfe7ec" {
		t.Fatalf("light colours: %v", c)
	}
	for k, v := range c {
		if len(v) != 7 || v[0] != '#' {
			t.Fatalf("%s: %q is not a #rrggbb colour", k, v)
		}
	}
	if !Named("dark", "").IsDark() || Named("system", "15;0").IsDark() == Named("system", "0;15").IsDark() {
		t.Fatal("Named does not follow Resolve")
	}
}
