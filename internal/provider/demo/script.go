package demo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// reply is what the demo decided to say: optional reasoning, text, and tool calls.
type reply struct {
	Thinking string
	Text     string
	Calls    []plannedCall
}

type plannedCall struct {
	Name string
	Args string // a JSON object
}

// planner decides the reply to one request. Everything it says is a function of the request, so the
// same transcript always gets the same answer (tests), while different transcripts get different
// wording (the seed), so the demo feels alive.
type planner struct {
	c      *conversation
	seed   uint64 // see seedFor
	seeded bool
	first  bool // no assistant message yet: the answer starts by saying this is the demo
}

func plan(c *conversation) reply {
	p := &planner{c: c, first: true}
	for _, m := range c.Messages {
		if m.Role == "assistant" {
			p.first = false
		}
	}
	r := p.plan()
	if !c.Reasoning {
		r.Thinking = ""
	}
	return r
}

const (
	fnvOffset64 uint64 = 14695981039346656037
	fnvPrime64  uint64 = 1099511628211
)

// fnv1a continues the 64-bit FNV-1a hash h with s (hash/fnv's New64a, without its []byte).
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// requestSeed is FNV-1a of the last prompt and the message count, worked out on first use: a
// compaction's prompt is tens of megabytes, and its answer picks no wording.
func (p *planner) requestSeed() uint64 {
	if !p.seeded {
		h := fnvOffset64
		if i := p.lastUser(len(p.c.Messages)); i >= 0 {
			h = fnv1a(h, p.c.Messages[i].Text)
		}
		p.seed, p.seeded = fnv1a(h, "|"+strconv.Itoa(len(p.c.Messages))), true
	}
	return p.seed
}

// pick chooses one of options, varying with the request and with salt (so two choices in one answer
// do not move in lockstep).
func (p *planner) pick(salt string, options ...string) string {
	return options[p.choose(salt, len(options))]
}

// choose is pick for callers that need the index.
func (p *planner) choose(salt string, n int) int {
	return int(p.seedFor(salt) % uint64(n))
}

func (p *planner) plan() reply {
	msgs := p.c.Messages
	last := len(msgs) - 1
	for last >= 0 && (msgs[last].Role == "system" || msgs[last].Role == "developer") {
		last--
	}
	if last < 0 {
		return p.answer("", 0, "")
	}
	switch msgs[last].Role {
	case "tool":
		return p.afterTools(last)
	case "assistant":
		return reply{
			Thinking: "The transcript ends with my own message, so there is nothing new to answer. I'll say so briefly.",
			Text:     "(Demo model) The conversation ends with my own message, so there is nothing new for me to answer. Send a message and I'll pick it up.",
		}
	}
	// The last message is the user's.
	if r, ok := p.summaryRequest(msgs[last].Text); ok {
		return r
	}
	if strings.HasPrefix(msgs[last].Text, "Attached image(s) from tool result:") && last > 0 && msgs[last-1].Role == "tool" {
		return p.afterTools(last - 1)
	}
	// Steering messages delivered together (queue mode "all") arrive as consecutive user messages.
	firstOfRun := last
	for firstOfRun > 0 && msgs[firstOfRun-1].Role == "user" {
		firstOfRun--
	}
	prev := last - 1
	switch {
	case firstOfRun > 0 && msgs[firstOfRun-1].Role == "tool":
		return p.steered(last, firstOfRun-1)
	case prev >= 0 && msgs[prev].Role == "user" && strings.TrimSpace(msgs[prev].Text) != "":
		note := fmt.Sprintf("(Your previous message, %s, never got an answer: either you pressed Escape, or both arrived together. I'll go with the newest one.)", quote(msgs[prev].Text, 50))
		return p.answer(msgs[last].Text, msgs[last].Images, note)
	}
	return p.answer(msgs[last].Text, msgs[last].Images, "")
}

// lastUser is the index of the last user message before end, or -1.
func (p *planner) lastUser(end int) int {
	for i := end - 1; i >= 0; i-- {
		if p.c.Messages[i].Role == "user" && !strings.HasPrefix(p.c.Messages[i].Text, "Attached image(s) from tool result:") {
			return i
		}
	}
	return -1
}

// answer replies to a user message: a tool call for a recognised request, else an explanation.
func (p *planner) answer(text string, images int, note string) reply {
	var head []string
	if p.first {
		head = append(head, p.intro())
	}
	if note != "" {
		head = append(head, note)
	}
	if images > 0 {
		head = append(head, fmt.Sprintf("You attached %s. I'm scripted, so I can't look at %s; a model that takes image input receives %s as `image_url` parts of the request.",
			plural(images, "image", "images"), pronoun(images), pronoun(images)))
	}
	text, files := splitFileBlocks(text)
	for _, f := range files {
		head = append(head, "You attached "+p.describeFile(f.name, f.content))
	}
	in := recognise(text)
	r, ok := p.toolRequest(in)
	if !ok {
		t := detectTopic(text)
		if len(files) > 0 && (t == topicFallback || strings.TrimSpace(text) == "") {
			r.Thinking = "The user attached files with @. I'll describe what they contain; I can't do more with them as a scripted demo."
			r.Text = p.closing("files")
		} else {
			r.Text, r.Thinking = p.topicAnswer(t, text)
		}
	}
	r.Text = joinParagraphs(append(head, r.Text)...)
	return r
}

// intro is the first sentence of a session: the demo says what it is.
func (p *planner) intro() string {
	return p.pick("intro",
		"Hi! This is pi-go's **offline demo model**: a scripted stand-in that runs entirely on your machine, with no network and no API key.",
		"Hello, you're talking to pi-go's **offline demo model**. It is scripted and offline: nothing leaves your machine, and no real LLM is involved.",
		"This is the **offline demo model** pi-go starts with when no real model is configured. My words are scripted; the streaming, tool calls and session around them are the real thing.",
	)
}

// toolRequest turns a recognised request into tool calls, or explains why it cannot. ok is false when
// the message asked for no tool.
func (p *planner) toolRequest(in intent) (reply, bool) {
	switch in.kind {
	case intentRun:
		if !p.c.Tools["bash"] {
			return p.toolMissing("run commands", "bash"), true
		}
		return reply{
			Thinking: fmt.Sprintf("The user wants me to run `%s`. The bash tool is offered, so I'll call it with that exact command and report the output and exit status when the result comes back.", in.command),
			Text:     fmt.Sprintf(p.pick("run", "Running `%s`.", "Let me run `%s` with the `bash` tool.", "Sure, running `%s` now."), in.command),
			Calls:    []plannedCall{{Name: "bash", Args: jsonObject("command", in.command)}},
		}, true
	case intentRead:
		return p.readRequest(in.paths), true
	case intentList:
		return p.listRequest(in.dir, false), true
	case intentExplore:
		return p.listRequest("", true), true
	case intentRunVague:
		return reply{
			Thinking: "The user asked me to run something but gave no command I can use verbatim. A scripted demo should not guess; I'll ask for the exact command.",
			Text: p.pick("vague",
				"I'd need the exact command: I'm a scripted demo and don't guess. Put it in backticks, for example: run `go test ./...` or run `ls -la`.",
				"Which command exactly? Say, for example, run `go test ./...` or run `git status`, and I'll pass it to the `bash` tool as it is."),
		}, true
	}
	return reply{}, false
}

func (p *planner) readRequest(paths []string) reply {
	list := codeList(paths)
	switch {
	case p.c.Tools["read"]:
		r := reply{
			Thinking: fmt.Sprintf("The user wants to see %s. The read tool is offered, so I'll call it%s and summarise what comes back.", list,
				map[bool]string{true: " once per file, in parallel", false: ""}[len(paths) > 1]),
			Text: fmt.Sprintf(p.pick("read", "Let me read %s.", "Reading %s.", "Opening %s with the `read` tool."), list),
		}
		for _, path := range paths {
			r.Calls = append(r.Calls, plannedCall{Name: "read", Args: jsonObject("path", path)})
		}
		return r
	case p.c.Tools["bash"]:
		cmd := "cat --"
		for _, path := range paths {
			cmd += " " + shellQuote(path)
		}
		return reply{
			Thinking: "The user wants to see a file, but the read tool is not offered. bash is, so `cat` will do.",
			Text:     fmt.Sprintf("The `read` tool isn't enabled in this session, so I'll use `bash` to show %s.", list),
			Calls:    []plannedCall{{Name: "bash", Args: jsonObject("command", cmd)}},
		}
	}
	return p.toolMissing("read files", "read")
}

// listRequest lists a directory with ls, or with bash `ls -la` when ls is not offered. explore makes
// it the first step of a look around the project.
func (p *planner) listRequest(dir string, explore bool) reply {
	where := ""
	if dir != "" {
		where = " in `" + dir + "`"
	}
	thinking := fmt.Sprintf("The user wants to see the files%s.", where)
	text := fmt.Sprintf(p.pick("list", "Let me list the files%s.", "I'll take a look at the directory%s.", "Listing the files%s."), where)
	if explore {
		thinking = "The user wants an overview of the project. A real agent would start with the directory listing, then read the README and the build manifest; I'll do the same, one step per turn."
		text = p.pick("explore",
			"Let me look around: first the directory listing, then whatever README and manifest it shows.",
			"I'll explore step by step: list the directory, read the README and manifest I find, then summarise.")
	}
	path := dir
	if path == "" {
		path = "."
	}
	switch {
	case p.c.Tools["ls"]:
		return reply{Thinking: thinking + " The ls tool is offered; I'll call it.", Text: text,
			Calls: []plannedCall{{Name: "ls", Args: jsonObject("path", path)}}}
	case p.c.Tools["bash"]:
		cmd := "ls -la"
		if dir != "" {
			cmd += " -- " + shellQuote(dir)
		}
		return reply{Thinking: thinking + " The ls tool is not offered, but bash is: `" + cmd + "` will do.", Text: text,
			Calls: []plannedCall{{Name: "bash", Args: jsonObject("command", cmd)}}}
	}
	return p.toolMissing("list files", "ls")
}

// toolMissing explains that the tools a request needs are not enabled.
func (p *planner) toolMissing(what, tool string) reply {
	var offered []string
	for name := range p.c.Tools {
		offered = append(offered, name)
	}
	have := "no tools at all (it was started with `--no-tools`, or a `--tools` list without them)"
	if len(offered) > 0 {
		have = "only " + codeList(sortedStrings(offered))
	}
	return reply{
		Thinking: fmt.Sprintf("The user wants me to %s, but neither %s nor bash is among the tools this session offers. I'll explain how to enable them.", what, tool),
		Text: fmt.Sprintf("I'd %s with the `%s` tool, but this session offers %s. Start pi-go with `--tools read,bash,ls` (or without `--tools`) to let me use them.",
			what, tool, have),
	}
}

// jsonObject builds a one-field JSON object as a model writes it (JSON.stringify: "ls && pwd", not
// "ls \u0026\u0026 pwd").
func jsonObject(key, value string) string {
	b := append([]byte{'{'}, jsonx.AppendString(nil, key)...)
	b = append(b, ':')
	b = jsonx.AppendString(b, value)
	return string(append(b, '}'))
}
