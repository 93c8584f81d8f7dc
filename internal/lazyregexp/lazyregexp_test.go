package lazyregexp

import (
	"sync"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`a(\d+)`)
	if r.re != nil {
		t.Fatal("compiled before use")
	}
	if got := r.FindStringSubmatch("xa12"); len(got) != 2 || got[1] != "12" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	first := r.re
	if !r.MatchString("a1") || r.re != first {
		t.Fatal("compiled twice")
	}
	if got := r.ReplaceAllString("a1 a2", "b$1"); got != "b1 b2" {
		t.Fatalf("ReplaceAllString = %q", got)
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	r := New(`^x+$`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !r.MatchString("xxx") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}

func TestInvalidPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic")
		}
	}()
	r.MatchString("x")
}
