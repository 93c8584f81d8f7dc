package demo

import (
	"encoding/json"
	"strings"
	"testing"
)

// wantCall checks that a response is exactly the given tool calls, each with valid JSON arguments.
func wantCalls(t *testing.T, s streamed, want ...[2]string) {
	t.Helper()
	if len(s.Calls) != len(want) {
		t.Fatalf("want %d tool calls, got %d:\n%s", len(want), len(s.Calls), s)
	}
	if s.Finish != "tool_calls" {
		t.Errorf("finish_reason = %q, want tool_calls", s.Finish)
	}
	ids := map[string]bool{}
	for i, w := range want {
		c := s.Calls[i]
		if c.Name != w[0] {
			t.Errorf("call %d: name %q, want %q", i, c.Name, w[0])
		}
		if c.Type != "function" || !strings.HasPrefix(c.ID, "call_") || ids[c.ID] {
			t.Errorf("call %d: type %q id %q (want function, a fresh call_ id)", i, c.Type, c.ID)
		}
		ids[c.ID] = true
		var got, exp map[string]any
		if err := json.Unmarshal([]byte(c.Args), &got); err != nil {
			t.Fatalf("call %d: arguments are not JSON: %v: %s", i, err, c.Args)
		}
		if err := json.Unmarshal([]byte(w[1]), &exp); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		eb, _ := json.Marshal(exp)
		if string(gb) != string(eb) {
			t.Errorf("call %d: arguments %s, want %s", i, gb, eb)
		}
	}
}

func TestRecognisedRequestsCallTools(t *testing.T) {
	withLs := []string{"read", "bash", "edit", "write", "ls"}
	tests := []struct {
		name  string
		tools []string
		msg   string
		calls [][2]string
	}{
		{"list with ls", withLs, "list the files", [][2]string{{"ls", `{"path":"."}`}}},
		{"list without ls uses bash", defaultTools(), "What files are here?", [][2]string{{"bash", `{"command":"ls -la"}`}}},
		{"list a directory", withLs, "show me the files in internal/provider", [][2]string{{"ls", `{"path":"internal/provider"}`}}},
		{"list a directory with bash", defaultTools(), "list the contents of cmd/", [][2]string{{"bash", `{"command":"ls -la -- cmd/"}`}}},
		{"bare ls", withLs, "ls", [][2]string{{"ls", `{"path":"."}`}}},
		{"read a file", defaultTools(), "read README.md", [][2]string{{"read", `{"path":"README.md"}`}}},
		{"show me a file", defaultTools(), "show me main.go", [][2]string{{"read", `{"path":"main.go"}`}}},
		{"file name alone", defaultTools(), "go.mod?", [][2]string{{"read", `{"path":"go.mod"}`}}},
		{"read two files in parallel", defaultTools(), "Can you read README.md and internal/loop/agent.go?",
			[][2]string{{"read", `{"path":"README.md"}`}, {"read", `{"path":"internal/loop/agent.go"}`}}},
		{"read a backticked dotfile", defaultTools(), "what's in `.gitignore`", [][2]string{{"read", `{"path":".gitignore"}`}}},
		{"read without read tool uses bash", []string{"bash"}, "open notes.txt and Makefile", [][2]string{{"bash", `{"command":"cat -- notes.txt Makefile"}`}}},
		{"run backticked", defaultTools(), "run `go version`", [][2]string{{"bash", `{"command":"go version"}`}}},
		{"run plain", defaultTools(), "run ls -la", [][2]string{{"bash", `{"command":"ls -la"}`}}},
		{"run politely", defaultTools(), "Could you please run git status for me?", [][2]string{{"bash", `{"command":"git status"}`}}},
		{"run with shell operators", defaultTools(), "run `sleep 3 && ls | wc -l`", [][2]string{{"bash", `{"command":"sleep 3 && ls | wc -l"}`}}},
		{"dollar prompt", defaultTools(), "$ make test", [][2]string{{"bash", `{"command":"make test"}`}}},
		{"lone backticked command", defaultTools(), "`uname -a`", [][2]string{{"bash", `{"command":"uname -a"}`}}},
		{"fenced command", defaultTools(), "please execute this:\n```sh\necho hi\n```", [][2]string{{"bash", `{"command":"echo hi"}`}}},
		{"explore", defaultTools(), "summarise this project", [][2]string{{"bash", `{"command":"ls -la"}`}}},
		{"explore with ls", withLs, "What is this repo?", [][2]string{{"ls", `{"path":"."}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ask(t, newChat(tt.tools...).user(tt.msg))
			wantCalls(t, s, tt.calls...)
			if !strings.Contains(s.Text, "offline demo model") {
				t.Errorf("the first answer of a session must say it is the offline demo model:\n%s", s.Text)
			}
		})
	}
}

func TestRequestsWithoutToolCalls(t *testing.T) {
	tests := []struct {
		name  string
		tools []string
		msg   string
		want  []string
	}{
		{"question mentioning run", defaultTools(), "how do I run pi-go with ollama?", []string{"--base-url", "models.json"}},
		{"run without a command", defaultTools(), "run the tests", []string{"command", "`go test ./...`"}},
		{"no tools enabled", nil, "list the files", []string{"`--no-tools`", "--tools read,bash,ls"}},
		{"bash not offered", []string{"read"}, "run `go version`", []string{"`bash`", "only `read`"}},
		{"steering explained", defaultTools(), "what is steering?", []string{"**Enter**", "sleep 3"}},
		{"abort explained", defaultTools(), "how do I abort?", []string{"**Escape**"}},
		{"config", defaultTools(), "how do I use my OpenAI API key?", []string{"OPENAI_API_KEY", "--base-url", "models.json"}},
		{"code request is declined honestly", defaultTools(), "fix the bug in the parser", []string{"real model", "`edit`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A second turn, so the intro does not mask what is being tested.
			s := ask(t, newChat(tt.tools...).user("hi").assistant("Hello!").user(tt.msg))
			if len(s.Calls) != 0 || s.Finish != "stop" {
				t.Fatalf("want a plain answer, got:\n%s", s)
			}
			for _, w := range tt.want {
				if !strings.Contains(s.Text, w) {
					t.Errorf("answer lacks %q:\n%s", w, s.Text)
				}
			}
			if strings.Contains(s.Text, "offline demo model**") {
				t.Errorf("only the first answer of a session introduces the demo:\n%s", s.Text)
			}
		})
	}
}

func TestFirstAnswerExplainsPiGo(t *testing.T) {
	s := ask(t, newChat(defaultTools()...).user("hello"))
	for _, w := range []string{"offline demo model", "pi-go", "Enter", "Alt+Enter", "Escape", "OPENAI_API_KEY", "--base-url", "~/.pi/agent/models.json", "pi -c"} {
		if !strings.Contains(s.Text, w) {
			t.Errorf("first answer lacks %q:\n%s", w, s.Text)
		}
	}
	if s.Thinking != "" {
		t.Errorf("no reasoning was requested, but got some: %q", s.Thinking)
	}
}

func TestAnswersFromToolResults(t *testing.T) {
	lsOut := "README.md\ncmd/\ngo.mod\ninternal/\nmain.go\n.gitignore\n"
	lsLa := "total 20\ndrwxr-xr-x  3 u u 4096 Nov 30 01:04 .\ndrwxr-xr-x 10 u u 4096 Nov 30 01:04 ..\n" +
		"-rw-r--r--  1 u u   59 Nov 30 01:04 README.md\n-rw-r--r--  1 u u   17 Nov 30 01:04 notes.txt\ndrwxr-xr-x  2 u u 4096 Nov 30 01:04 src\n"
	readme := "# Demo project\n\nA tiny project for the tool-call scenario.\n\n## Usage\n\nRun it.\n"
	tests := []struct {
		name string
		chat *chat
		want []string
	}{
		{"ls listing counted", newChat("ls").user("list files").call("", "call_a", "ls", `{"path":"."}`).result("call_a", lsOut),
			[]string{"6 entries", "2 directories", "`cmd/`", "4 files", "Go module", "One is hidden"}},
		{"ls -la listing counted", newChat("bash").user("list files").call("", "call_a", "bash", `{"command":"ls -la"}`).result("call_a", lsLa),
			[]string{"exit status 0", "3 entries", "`src/`", "2 files", "`README.md`"}},
		{"empty directory", newChat("ls").user("ls").call("", "c", "ls", `{"path":"empty"}`).result("c", "(empty directory)"),
			[]string{"empty directory"}},
		{"ls error", newChat("ls").user("ls nope/").call("", "c", "ls", `{"path":"nope/"}`).result("c", "Path not found: /tmp/x/nope"),
			[]string{"failed", "Path not found: /tmp/x/nope"}},
		{"file quoted", newChat("read").user("read README.md").call("", "c", "read", `{"path":"README.md"}`).result("c", readme),
			[]string{"`README.md`", "7 lines", "# Demo project", "A tiny project for the tool-call scenario.", "“Usage”", "```markdown"}},
		{"truncated file", newChat("read").user("read big.txt").call("", "c", "read", `{"path":"big.txt"}`).
			result("c", "line 1\nline 2\n\n[Showing lines 1-2000 of 5000. Use offset=2001 to continue.]"),
			[]string{"only part of it", "Showing lines 1-2000 of 5000"}},
		{"missing file", newChat("read").user("read nope.go").call("", "c", "read", `{"path":"nope.go"}`).
			result("c", "ENOENT: no such file or directory, access '/w/nope.go'"),
			[]string{"Reading `nope.go` failed", "ENOENT"}},
		{"go.mod facts", newChat("read").user("read go.mod").call("", "c", "read", `{"path":"go.mod"}`).
			result("c", "module example.com/x\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v1.2.0 // indirect\n)\n"),
			[]string{"module `example.com/x`", "Go 1.26.0", "2 requirements"}},
		{"command output and status", newChat("bash").user("run `go version`").call("", "c", "bash", `{"command":"go version"}`).
			result("c", "go version go1.26.8 linux/amd64\n"),
			[]string{"`go version`", "exit status 0", "1 line", "go version go1.26.8 linux/amd64", "Go 1.26.8 on linux/amd64"}},
		{"failing command", newChat("bash").user("run make").call("", "c", "bash", `{"command":"make"}`).
			result("c", "make: *** No targets specified and no makefile found.  Stop.\n\n\nCommand exited with code 2"),
			[]string{"`make` failed with exit status 2", "No targets specified"}},
		{"silent command", newChat("bash").user("run true").call("", "c", "bash", `{"command":"true"}`).result("c", "(no output)"),
			[]string{"exit status 0", "printed nothing"}},
		{"timed out command", newChat("bash").user("run sleep 9").call("", "c", "bash", `{"command":"sleep 9"}`).
			result("c", "Command timed out after 2 seconds"), []string{"timed out after 2 seconds"}},
		{"long output excerpted", newChat("bash").user("run seq 100").call("", "c", "bash", `{"command":"seq 100"}`).
			result("c", seq(100)), []string{"100 lines", "\n1\n", "… (93 more lines)", "\n100\n"}},
		{"parallel results in order", newChat("read").user("read a.txt and b.txt").
			call("", "c1", "read", `{"path":"a.txt"}`, "c2", "read", `{"path":"b.txt"}`).result("c1", "alpha\n").result("c2", "beta\n"),
			[]string{"`a.txt`", "alpha", "`b.txt`", "beta"}},
		{"unknown tool", newChat("grep").user("grep for foo").call("", "c", "grep", `{"pattern":"foo"}`).result("c", "a.go:3: foo\nb.go:9: foo()\n"),
			[]string{"`grep`", "2 lines", "a.go:3: foo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ask(t, tt.chat)
			if len(s.Calls) != 0 || s.Finish != "stop" {
				t.Fatalf("want a final answer, got:\n%s", s)
			}
			for _, w := range tt.want {
				if !strings.Contains(s.Text, w) {
					t.Errorf("answer lacks %q:\n%s", w, s.Text)
				}
			}
			if strings.Index(s.Text, "alpha") > strings.Index(s.Text, "beta") {
				t.Errorf("results must be reported in call order:\n%s", s.Text)
			}
		})
	}
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strings.TrimSpace(strings.Repeat(" ", 0)) + itoa(i) + "\n")
	}
	return b.String()
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestSteeringIsAcknowledged(t *testing.T) {
	c := newChat(defaultTools()...).user("run `sleep 3 && ls`").
		call("Running it.", "call_1", "bash", `{"command":"sleep 3 && ls"}`).
		result("call_1", "README.md\nmain.go\n").
		user("actually, read main.go instead")
	s := ask(t, c)
	wantCalls(t, s, [2]string{"read", `{"path":"main.go"}`})
	for _, w := range []string{"“actually, read main.go instead”", "`sleep 3 && ls`", "already finished"} {
		if !strings.Contains(s.Text, w) {
			t.Errorf("steering answer lacks %q:\n%s", w, s.Text)
		}
	}
	if !strings.Contains(strings.ToLower(s.Text), "steer") && !strings.Contains(s.Text, "Understood") {
		t.Errorf("the answer does not acknowledge the steering message:\n%s", s.Text)
	}

	// Steering with nothing to act on: acknowledged, and adapted to without a tool call.
	c2 := newChat(defaultTools()...).user("run ls").call("", "call_1", "bash", `{"command":"ls"}`).
		result("call_1", "a\nb\n").user("be brief from now on")
	s2 := ask(t, c2)
	if len(s2.Calls) != 0 || !strings.Contains(s2.Text, "“be brief from now on”") {
		t.Errorf("steering without a request should be acknowledged in text:\n%s", s2)
	}

	// Asking to stop.
	s3 := ask(t, newChat(defaultTools()...).user("run ls").call("", "c", "bash", `{"command":"ls"}`).result("c", "a\n").user("stop"))
	if len(s3.Calls) != 0 || !strings.Contains(s3.Text, "I'll stop here") {
		t.Errorf("a stop request should stop:\n%s", s3)
	}
}

func TestAbortedToolIsMentioned(t *testing.T) {
	c := newChat(defaultTools()...).user("run `sleep 30`").call("", "c", "bash", `{"command":"sleep 30"}`).
		result("c", "Command aborted").user("read go.mod")
	s := ask(t, c)
	wantCalls(t, s, [2]string{"read", `{"path":"go.mod"}`})
	if !strings.Contains(s.Text, "`sleep 30` was aborted") {
		t.Errorf("the aborted call is not mentioned:\n%s", s.Text)
	}
}

func TestUnansweredPreviousMessage(t *testing.T) {
	// After an abort the aborted assistant message is dropped, leaving two user messages in a row.
	s := ask(t, newChat(defaultTools()...).user("tell me a long story").user("read go.mod"))
	wantCalls(t, s, [2]string{"read", `{"path":"go.mod"}`})
	if !strings.Contains(s.Text, "“tell me a long story”") {
		t.Errorf("the unanswered message is not mentioned:\n%s", s.Text)
	}
}

func TestExploreRunsSeveralTurns(t *testing.T) {
	c := newChat("read", "ls").user("summarise this project")
	s1 := ask(t, c)
	wantCalls(t, s1, [2]string{"ls", `{"path":"."}`})
	c.call(s1.Text, s1.Calls[0].ID, "ls", s1.Calls[0].Args).result(s1.Calls[0].ID, "README.md\ncmd/\ngo.mod\ninternal/\n")
	s2 := ask(t, c)
	wantCalls(t, s2, [2]string{"read", `{"path":"README.md"}`}, [2]string{"read", `{"path":"go.mod"}`})
	c.call(s2.Text, s2.Calls[0].ID, "read", s2.Calls[0].Args, s2.Calls[1].ID, "read", s2.Calls[1].Args).
		result(s2.Calls[0].ID, "# Widget\n\nMakes widgets.\n").result(s2.Calls[1].ID, "module example.com/widget\n\ngo 1.26\n")
	s3 := ask(t, c)
	if len(s3.Calls) != 0 || s3.Finish != "stop" {
		t.Fatalf("the third turn should summarise:\n%s", s3)
	}
	for _, w := range []string{"4 entries", "# Widget", "module `example.com/widget`", "real model"} {
		if !strings.Contains(s3.Text, w) {
			t.Errorf("summary lacks %q:\n%s", w, s3.Text)
		}
	}
}

func TestReasoningStreamsFirstWhenRequested(t *testing.T) {
	c := newChat(defaultTools()...).user("read README.md")
	c.reasoning = "medium"
	raw := post(t, c.body())
	s := parseSSE(t, raw)
	if s.Thinking == "" || !strings.Contains(s.Thinking, "README.md") {
		t.Fatalf("want reasoning about the request, got %q", s.Thinking)
	}
	firstContent := strings.Index(string(raw), `"content":"Hi`)
	if firstContent < 0 {
		firstContent = strings.Index(string(raw), `{"content":`)
	}
	lastReasoning := strings.LastIndex(string(raw), `"reasoning_content":`)
	if lastReasoning < 0 || firstContent < 0 || lastReasoning > firstContent {
		t.Errorf("reasoning must stream before the content")
	}
	if s.Usage == nil || s.Usage.CompletionTokensDetails.ReasoningTokens == 0 {
		t.Errorf("usage must count reasoning tokens: %+v", s.Usage)
	}
	c.reasoning = "none"
	if s := ask(t, c); s.Thinking != "" {
		t.Errorf("reasoning_effort none must not stream reasoning")
	}
}

func TestDeterministicButVaried(t *testing.T) {
	c := newChat(defaultTools()...).user("hello there").assistant("Hi!").user("what's the weather like?")
	a, b := post(t, c.body()), post(t, c.body())
	sa, sb := parseSSE(t, a), parseSSE(t, b)
	if sa.Text != sb.Text || sa.ID != sb.ID {
		t.Errorf("the same request must get the same answer")
	}
	intros := map[string]bool{}
	for _, msg := range []string{"hello", "hi", "hey there", "good morning", "what is this?", "yo", "help", "hello!"} {
		s := ask(t, newChat(defaultTools()...).user(msg))
		intros[firstLine(s.Text)] = true
	}
	if len(intros) < 2 {
		t.Errorf("first answers should vary in wording across prompts, got only %v", intros)
	}
}

func TestMaxTokensCutsTheAnswer(t *testing.T) {
	c := newChat(defaultTools()...).user("help")
	c.maxTokens = 10
	s := ask(t, c)
	if s.Finish != "length" {
		t.Errorf("finish_reason = %q, want length", s.Finish)
	}
	if n := tokens(s.Text); n > 10 {
		t.Errorf("answer has ~%d tokens, more than max_completion_tokens 10", n)
	}
	if s.Usage.CompletionTokens > 10 {
		t.Errorf("completion_tokens %d > 10", s.Usage.CompletionTokens)
	}
}

func TestUsageLooksReal(t *testing.T) {
	small := ask(t, newChat(defaultTools()...).user("hi"))
	u := small.Usage
	if u == nil {
		t.Fatal("no usage chunk although include_usage was set")
	}
	if u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.PromptTokens < 50 || u.CompletionTokens < 50 {
		t.Errorf("implausible usage %+v", u)
	}
	if want := tokens(small.Text); u.CompletionTokens != want {
		t.Errorf("completion_tokens %d, want the text's estimate %d", u.CompletionTokens, want)
	}
	// A long transcript: more prompt tokens, and the part an earlier request sent counts as cached.
	big := newChat(defaultTools()...).user("read big.txt").call("", "c", "read", `{"path":"big.txt"}`).
		result("c", strings.Repeat("0123456789abcdef\n", 1000)).assistant("It is big.").user("thanks")
	ub := ask(t, big).Usage
	if ub.PromptTokens < 17000/4 || ub.PromptTokensDetails.CachedTokens == 0 || ub.PromptTokensDetails.CachedTokens%128 != 0 ||
		ub.PromptTokensDetails.CachedTokens > ub.PromptTokens {
		t.Errorf("implausible usage for a long transcript: %+v", ub)
	}
	c := newChat(defaultTools()...).user("hi")
	c.noUsage = true
	if s := ask(t, c); s.Usage != nil {
		t.Errorf("usage chunk sent without stream_options.include_usage")
	}
}

func TestCommandsInsideTextAreNotRun(t *testing.T) {
	for _, msg := range []string{
		"Here is the log I got:\nthen run `rm -rf /tmp/x` and it failed",
		`<file name="/w/README.md">
# Tool

To install, run make install.
</file>
`,
		"how would I run `make install` here?",
	} {
		s := ask(t, newChat(defaultTools()...).user(msg))
		for _, c := range s.Calls {
			if c.Name == "bash" {
				t.Errorf("%q ran a command: %s", msg, c.Args)
			}
		}
	}
}

func TestAttachedFilesAreDescribed(t *testing.T) {
	msg := "<file name=\"/w/main.go\">\npackage main\n\nfunc main() {}\n</file>\n"
	s := ask(t, newChat(defaultTools()...).user("hi").assistant("Hello").user(msg))
	if len(s.Calls) != 0 || !strings.Contains(s.Text, "You attached `/w/main.go`") || !strings.Contains(s.Text, "package `main`") {
		t.Errorf("attached file not described:\n%s", s)
	}
	// A request next to the attachment is still served.
	s = ask(t, newChat(defaultTools()...).user(msg+"\nrun `go vet ./...`"))
	wantCalls(t, s, [2]string{"bash", `{"command":"go vet ./..."}`})
}

func TestSummaryRequestsFollowTheFormat(t *testing.T) {
	conversation := "[User]: read README.md please\n\n[Assistant]: Reading it.\n\n" +
		"[Assistant tool calls]: read(path=\"README.md\"); bash(command=\"ls -la\")\n\n[Tool result]: # Demo\n\n[User]: now run the tests"
	instructions := "The messages above are a conversation to summarize.\n\nUse this EXACT format:\n\n## Goal\n[…]\n\n" +
		"## Constraints & Preferences\n- […]\n\n## Progress\n### Done\n- [x] […]\n\n### In Progress\n- [ ] […]\n\n### Blocked\n- […]\n\n" +
		"## Key Decisions\n- **[Decision]**: […]\n\n## Next Steps\n1. […]\n\n## Critical Context\n- […]\n\nKeep each section concise."
	c := newChat().user("<conversation>\n" + conversation + "\n</conversation>\n\n" + instructions)
	c.system = "You are a context summarization assistant."
	s := ask(t, c)
	if len(s.Calls) != 0 || s.Finish != "stop" {
		t.Fatalf("summary must be plain text:\n%s", s)
	}
	want := []string{"## Goal\n- read README.md please\n- now run the tests", "### Done\n- [x] read(path=\"README.md\")\n- [x] bash(command=\"ls -la\")",
		"### In Progress\n- [ ] now run the tests", "## Next Steps\n1. Continue with: now run the tests", "Files involved: `README.md`", "demo"}
	for _, w := range want {
		if !strings.Contains(s.Text, w) {
			t.Errorf("summary lacks %q:\n%s", w, s.Text)
		}
	}
	if strings.Contains(s.Text, "offline demo model**") || strings.Contains(s.Text, "[…]") {
		t.Errorf("summary must not introduce the demo or keep placeholders:\n%s", s.Text)
	}
}

func TestSeveralSteeringMessagesAtOnce(t *testing.T) {
	c := newChat(defaultTools()...).user("run ls").call("", "c", "bash", `{"command":"ls"}`).result("c", "a\n").
		user("wait").user("read go.mod instead")
	s := ask(t, c)
	wantCalls(t, s, [2]string{"read", `{"path":"go.mod"}`})
	if !strings.Contains(s.Text, "“read go.mod instead”") || !strings.Contains(s.Text, "1 message before it") {
		t.Errorf("both steering messages should be acknowledged:\n%s", s.Text)
	}
}
