package render

import "testing"

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := newLRU[string, int](2)
	c.put("a", 1)
	c.put("b", 2)
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Fatal("a missing")
	}
	c.put("c", 3) // evicts b, the least recently used
	if _, ok := c.get("b"); ok {
		t.Fatal("b not evicted")
	}
	c.put("a", 10)
	if v, _ := c.get("a"); v != 10 || c.len() != 2 {
		t.Fatalf("a = %d, len = %d", v, c.len())
	}
}

// A Renderer is shared: its caches are locked.
func TestRendererConcurrentUse(t *testing.T) {
	r := newGoldenRenderer()
	res := textResult("package main", map[string]any{"diff": sampleDiff})
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 20; i++ {
				r.Markdown().Render(sampleAnswer, 60+i%3)
				r.Tool(ToolView{Name: "read", Args: []byte(`{"path":"main.go"}`), Status: ToolDone, Result: res}, 80)
				r.Tool(ToolView{Name: "edit", Args: []byte(`{"path":"main.go"}`), Status: ToolDone, Result: res}, 80)
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
