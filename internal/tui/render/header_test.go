package render

import "testing"

func TestVersionLabel(t *testing.T) {
	for in, want := range map[string]string{
		"0.1.0": "v0.1.0", "v0.73.1": "v0.73.1", "dev": "dev", "(devel)": "(devel)", "": "", " dev ": "dev",
		"1.0.0-rc1": "v1.0.0-rc1", "vnext": "vnext",
	} {
		if got := versionLabel(in); got != want {
			t.Errorf("versionLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
