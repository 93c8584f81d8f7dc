package demo

import (
	"encoding/json"
	"fmt"
	"strings"
)

// outcome is one tool result joined with the call that asked for it.
type outcome struct {
	Name string
	Args map[string]any
	Text string
}

func (o outcome) arg(key string) string {
	s, _ := o.Args[key].(string)
	return s
}

// label names the call in prose: `go version`, `README.md`, `ls .`.
func (o outcome) label() string {
	switch o.Name {
	case "bash":
		return "`" + clip(o.arg("command"), 60) + "`"
	case "read":
		return "`" + o.arg("path") + "`"
	case "ls":
		path := o.arg("path")
		if path == "" {
			path = "."
		}
		return "`ls " + path + "`"
	}
	return "the `" + o.Name + "` call"
}

// toolRun returns the outcomes of the consecutive tool messages ending at index end (inclusive), and
// the index of the assistant message that made the calls (-1 if there is none).
func (p *planner) toolRun(end int) ([]outcome, int) {
	msgs := p.c.Messages
	start := end
	for start > 0 && msgs[start-1].Role == "tool" {
		start--
	}
	calls := map[string]wireToolCall{}
	asst := -1
	if start > 0 && msgs[start-1].Role == "assistant" {
		asst = start - 1
		for _, tc := range msgs[asst].ToolCalls {
			calls[tc.ID] = tc
		}
	}
	var out []outcome
	for i := start; i <= end; i++ {
		o := outcome{Name: "unknown", Text: msgs[i].Text}
		if tc, ok := calls[msgs[i].ToolCallID]; ok {
			o.Name = tc.Function.Name
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &o.Args) // tolerant: a bad argument string leaves Args empty
		}
		out = append(out, o)
	}
	return out, asst
}

// afterTools answers from the results that end the transcript at index end.
func (p *planner) afterTools(end int) reply {
	outcomes, asst := p.toolRun(end)
	origin := -1
	if asst >= 0 {
		origin = p.lastUser(asst)
	}
	if origin >= 0 && recognise(p.c.Messages[origin].Text).kind == intentExplore {
		return p.explore(origin, end)
	}
	var parts []string
	var names []string
	for _, o := range outcomes {
		parts = append(parts, p.summarise(o))
		names = append(names, o.Name)
	}
	parts = append(parts, p.closing("after-"+strings.Join(names, ",")))
	return reply{
		Thinking: p.resultsThinking(outcomes),
		Text:     joinParagraphs(parts...),
	}
}

// steered answers a user message that arrived after tool results: a steering message (or the next
// prompt after an abort).
func (p *planner) steered(userIdx, toolEnd int) reply {
	outcomes, _ := p.toolRun(toolEnd)
	steer := p.c.Messages[userIdx]
	var aborted, done []string
	for _, o := range outcomes {
		if o.aborted() {
			aborted = append(aborted, o.label())
		} else {
			done = append(done, o.label()+" "+o.brief())
		}
	}
	in := recognise(steer.Text)
	var ack, thinking string
	if len(aborted) > 0 {
		ack = fmt.Sprintf("Noted: %s was aborted before it finished, so I have no result from it.", strings.Join(aborted, " and "))
		thinking = "The previous tool call was aborted and the user has written again. I'll mention the abort and answer the new message."
	} else {
		ack = p.pick("steer",
			"Got it: you steered me while I was working (%s).",
			"Steering message received: %s.",
			"Understood, you sent %s while I was busy.")
		ack = fmt.Sprintf(ack, quote(steer.Text, 60))
		if earlier := userIdx - toolEnd - 1; earlier > 0 {
			ack += fmt.Sprintf(" (I read the %s before it too.)", plural(earlier, "message", "messages"))
		}
		if len(done) > 0 {
			ack += " " + capitalise(fmt.Sprintf("%s had already finished, so nothing is lost.", strings.Join(done, "; ")))
		}
		thinking = "A user message arrived after the tool results, before I answered them: that's a steering message. I'll acknowledge it and follow the new instruction instead of carrying on with the old plan."
	}
	if r, ok := p.toolRequest(in); ok {
		r.Text = joinParagraphs(ack+" "+p.pick("course", "Changing course.", "Switching to that.", "Adapting my plan."), r.Text)
		r.Thinking = thinking + " " + r.Thinking
		return r
	}
	t := detectTopic(steer.Text)
	if t != topicFallback && t != topicThanks && t != topicGreeting {
		body, _ := p.topicAnswer(t, steer.Text)
		return reply{Thinking: thinking, Text: joinParagraphs(ack, body)}
	}
	if reStop.MatchString(steer.Text) {
		return reply{Thinking: thinking + " The user wants me to stop, so I'll stop here.",
			Text: joinParagraphs(ack, "I'll stop here. "+p.closing("stop"))}
	}
	return reply{
		Thinking: thinking,
		Text: joinParagraphs(ack, p.pick("adapt",
			"As a scripted demo I can't truly act on it, but this is where a real model changes plans: your message is in its context, right after the tool results.",
			"I'm only a script, so I can't follow that for real; a real model would take it from here, with the tool results so far still in its context."),
			p.closing("adapt")),
	}
}

// explore drives "summarise this project": after the listing, read the README and manifest it shows;
// after that (or if there is nothing to read), summarise everything gathered.
func (p *planner) explore(origin, end int) reply {
	var all []outcome
	rounds := 0
	for i := origin + 1; i <= end; i++ {
		if p.c.Messages[i].Role == "assistant" && len(p.c.Messages[i].ToolCalls) > 0 {
			rounds++
		}
		if p.c.Messages[i].Role == "tool" && (i == end || p.c.Messages[i+1].Role != "tool") {
			run, _ := p.toolRun(i)
			all = append(all, run...)
		}
	}
	var entries []string
	readDone := false
	for _, o := range all {
		if l, ok := o.listing(); ok {
			entries = l.entries
		}
		if o.Name == "read" || (o.Name == "bash" && strings.HasPrefix(o.arg("command"), "cat ")) {
			readDone = true
		}
	}
	if !readDone && rounds < 2 {
		if files := interestingFiles(entries); len(files) > 0 && (p.c.Tools["read"] || p.c.Tools["bash"]) {
			r := p.readRequest(files)
			verb := "looks"
			if len(files) > 1 {
				verb = "look"
			}
			r.Thinking = fmt.Sprintf("The listing has %s. %s %s like the best next read for an overview. %s",
				plural(len(entries), "entry", "entries"), codeList(files), verb, r.Thinking)
			r.Text = p.pick("explore-next", "The listing shows %s; let me read %s next.", "I see %s. Reading %s for the big picture.")
			r.Text = fmt.Sprintf(r.Text, plural(len(entries), "entry", "entries"), codeList(files))
			return r
		}
	}
	var parts []string
	parts = append(parts, p.pick("explore-done", "Here's my (scripted) overview:", "What I found:", "Summary of the look around:"))
	for _, o := range all {
		parts = append(parts, p.summarise(o))
	}
	parts = append(parts, "That's as far as a scripted demo goes. A real model would now read the code itself and answer questions about it. "+configBrief)
	return reply{
		Thinking: fmt.Sprintf("I have %s from this exploration. Time to put them together into a short overview.", plural(len(all), "tool result", "tool results")),
		Text:     joinParagraphs(parts...),
	}
}

// interestingFiles picks, from a listing, the README and the build manifest worth reading first.
func interestingFiles(entries []string) []string {
	var readme, manifest string
	for _, e := range entries {
		lower := strings.ToLower(e)
		if readme == "" && strings.HasPrefix(lower, "readme") && !strings.HasSuffix(e, "/") {
			readme = e
		}
		if manifest == "" {
			switch e {
			case "go.mod", "package.json", "Cargo.toml", "pyproject.toml", "pom.xml", "build.gradle", "Gemfile", "composer.json", "mix.exs", "setup.py":
				manifest = e
			}
		}
	}
	var out []string
	for _, f := range []string{readme, manifest} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// resultsThinking is the reasoning before answering from tool results.
func (p *planner) resultsThinking(outcomes []outcome) string {
	if len(outcomes) == 1 {
		return fmt.Sprintf("The result of %s is back. I'll say what it shows, key facts first (counts, the first lines, the exit status), then suggest something else to try.", outcomes[0].label())
	}
	return fmt.Sprintf("All %d tool results are back. I'll go through them in order, key facts first, then suggest something else to try.", len(outcomes))
}
