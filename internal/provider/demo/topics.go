package demo

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// topic is what a message without a tool request is about.
type topic int

const (
	topicFallback topic = iota
	topicGreeting
	topicThanks
	topicHelp
	topicSteer
	topicFollowUp
	topicAbort
	topicSessions
	topicConfig
	topicThinking
	topicIdentity
	topicTools
	topicCode
)

// topicRules are tried in order; the first match wins, so specific subjects come before general ones.
var topicRules = []struct {
	topic topic
	re    *lazyregexp.Regexp
}{
	{topicSteer, lazyregexp.New(`(?i)\bsteer`)},
	{topicFollowUp, lazyregexp.New(`(?i)\bfollow[- ]?ups?\b|alt\+enter|\bqueue`)},
	{topicAbort, lazyregexp.New(`(?i)\babort|\bescape\b|\besc\b|\binterrupt|\bcancel`)},
	{topicConfig, lazyregexp.New(`(?i)api[ _-]?key|openai|ollama|llama|vllm|base[- ]?url|models\.json|real model|configur|\bset ?up\b|\bprovider|\bmodels?\b|\bkey\b|\bgpt|\bclaude|\bdeepseek|\bgroq|\bopenrouter`)},
	{topicThinking, lazyregexp.New(`(?i)\bthink|\breasoning|\bthoughts?\b`)},
	{topicSessions, lazyregexp.New(`(?i)\bsessions?\b|\bresume|\bhistory\b|\bcontinue\b|\bsaved?\b`)},
	{topicIdentity, lazyregexp.New(`(?i)who are you|what are you|\bpi-go\b|what is (?:pi|this)\b|\bare you (?:real|an? (?:ai|llm|bot|model))`)},
	{topicTools, lazyregexp.New(`(?i)\btools?\b`)},
	{topicHelp, lazyregexp.New(`(?i)\bhelp\b|what can (?:you|i) do|how does (?:this|it) work|\bdemo\b|\bshow me\b|\bfeatures?\b|\bkeys?\b|\bshortcuts?\b|what (?:should|can) i try`)},
	{topicCode, lazyregexp.New(`(?i)\b(?:write|edit|fix|refactor|implement|create|add|change|debug|bug|code|function|test)\b`)},
	{topicThanks, lazyregexp.New(`(?i)\b(?:thanks|thank you|thx|cheers|great|nice|cool|awesome|perfect)\b`)},
	{topicGreeting, lazyregexp.New(`(?i)^\W*(?:hi|hello|hey|yo|hiya|howdy|good (?:morning|afternoon|evening))\b`)},
}

func detectTopic(text string) topic {
	text = strings.TrimSpace(text)
	if text == "" {
		return topicHelp
	}
	for _, r := range topicRules {
		if r.re.MatchString(text) {
			return r.topic
		}
	}
	return topicFallback
}

// The texts the demo explains itself with. Keys are pi-go's (and pi's) defaults.
const (
	pitch = "pi-go is a coding agent for your terminal, compatible with pi: a language model reads your requests, " +
		"works in this directory through tools (`read`, `bash`, `edit`, `write`, and on request `grep`, `find`, `ls`) " +
		"and streams its answers back. Everything around my words is the real machinery (streaming, tool calls, " +
		"the session); only the words are canned."

	tryTools     = "- **Tools**: “list the files”, “read README.md”, “run `go version`” or “summarise this project”."
	trySteer     = "- **Steering**: ask me to “run `sleep 3 && ls`”, then type a message and press **Enter** while it runs; I get it as soon as the command finishes."
	tryFollowUp  = "- **Follow-ups**: **Alt+Enter** queues a message for when I'm done."
	tryAbort     = "- **Abort**: **Escape** stops me mid-sentence; whatever you had queued goes back into the editor."
	tryThinking  = "- **Thinking**: **Shift+Tab** cycles the thinking level; when it is on I stream a short (scripted) reasoning first."
	trySessions  = "- **Sessions**: the conversation is saved as you go; `pi -c` continues the last one, `pi -r` picks an older one."
	configBrief  = "To talk to a real model: set `ANTHROPIC_API_KEY`, `OPENAI_API_KEY` or `GEMINI_API_KEY`, or start `pi --base-url http://localhost:11434/v1 --model qwen2.5-coder` for a local OpenAI-compatible server (Ollama, llama.cpp, vLLM), or add a provider to `~/.pi/agent/models.json`."
	configDetail = "To use a real model instead of me:\n\n" +
		"1. **Anthropic, OpenAI or Google**: `export ANTHROPIC_API_KEY=…` (or `OPENAI_API_KEY`, `GEMINI_API_KEY`) and start `pi` (pick a model with `--model`).\n" +
		"2. **Any OpenAI-compatible server**: `pi --base-url http://localhost:11434/v1 --model qwen2.5-coder` works with Ollama, llama.cpp or vLLM, with no key if the server needs none (`OPENAI_BASE_URL` does the same).\n" +
		"3. **Several providers**: describe them in `~/.pi/agent/models.json`:\n\n" +
		"```json\n" +
		"{ \"providers\": { \"ollama\": {\n" +
		"    \"baseUrl\": \"http://localhost:11434/v1\",\n" +
		"    \"api\": \"openai-completions\",\n" +
		"    \"apiKey\": \"ollama\",\n" +
		"    \"models\": [ { \"id\": \"qwen2.5-coder\" } ] } } }\n" +
		"```\n\n" +
		"The other built-in hosts (OpenRouter, Groq, DeepSeek, Mistral, xAI, Cerebras) read their own `…_API_KEY` variable. Inside pi, `/model` switches between the models you have set up."
)

// suggestions are the one-line invitations the demo rotates through at the end of its answers.
var suggestions = []string{
	"say “list the files” to see a tool call",
	"say “read README.md” (or any file here) to see the `read` tool",
	"say “run `go version`” to see the `bash` tool",
	"say “summarise this project” to watch several tool calls in a row",
	"ask me to “run `sleep 3 && ls`” and press Enter with a new message while it runs: that's steering",
	"press Escape while I'm answering to abort",
	"press Shift+Tab to change the thinking level and see my (scripted) reasoning",
}

// suggest picks n different suggestions.
func (p *planner) suggest(salt string, n int) []string {
	start := int(p.seedFor(salt) % uint64(len(suggestions)))
	out := make([]string, 0, n)
	for i := 0; i < n && i < len(suggestions); i++ {
		out = append(out, suggestions[(start+i*3)%len(suggestions)])
	}
	return out
}

func (p *planner) seedFor(salt string) uint64 {
	return p.requestSeed() ^ fnv1a(fnvOffset64, salt)
}

// closing is the last line of an answer: one suggestion of what to try next.
func (p *planner) closing(salt string) string {
	s := p.suggest(salt, 1)[0]
	switch p.choose(salt+"-lead", 3) {
	case 0:
		return "Next, you could " + s + "."
	case 1:
		return "Want more? " + capitalise(s) + "."
	}
	return "Something else to try: " + s + "."
}

// topicAnswer is the reply to a message that asked for no tool, and the reasoning that led to it.
func (p *planner) topicAnswer(t topic, text string) (answer, thinking string) {
	asked := quote(text, 60)
	switch t {
	case topicHelp:
		lead := p.pick("help", "Here's what you can try with me:", "This demo can show you the main moves:", "Some things to try:")
		if p.first {
			lead = pitch + "\n\n" + lead
		}
		return joinParagraphs(lead, strings.Join([]string{tryTools, trySteer, tryFollowUp, tryAbort, tryThinking, trySessions}, "\n"), configBrief),
			"The user wants to know what they can do here. I'll list the features the demo can show and how to configure a real model."
	case topicGreeting:
		if p.first {
			return joinParagraphs(pitch, "Some things to try:", strings.Join([]string{tryTools, trySteer, tryFollowUp, tryAbort, tryThinking, trySessions}, "\n"), configBrief),
				"A greeting as the first message of the session: I'll introduce pi-go and what the demo can show."
		}
		return p.pick("greet", "Hello again!", "Hi there!", "Hey!") + " I'm still the scripted demo. " + capitalise(p.suggest("greet", 1)[0]) + ", or ask for “help”.",
			"A greeting. I'll greet back and suggest something to try."
	case topicThanks:
		return p.pick("thanks", "You're welcome!", "Glad it helps!", "Any time!") + " " + p.closing("thanks"),
			"The user is pleased. A short answer and one more thing to try."
	case topicSteer:
		return "**Steering** changes my course while I work: type a message and press **Enter** while I'm streaming or a tool is running. " +
				"It waits in the queue (shown under the conversation) and is delivered as soon as the current tool calls finish; they are never cut short.\n\n" +
				"Try it: ask me to “run `sleep 3 && ls`”, and while it runs send “actually, read README.md instead”.",
			"The user asks about steering. I'll explain Enter while busy and suggest a slow command to try it on."
	case topicFollowUp:
		return "**Follow-ups** (**Alt+Enter** while I'm working) wait until I would otherwise stop, then start a new turn: handy for “and then…” requests. " +
				"Steering (**Enter**) is delivered sooner, at the next tool boundary. Both show in the queue under the conversation, and **Escape** puts them back into the editor.",
			"The user asks about follow-up messages. I'll contrast them with steering."
	case topicAbort:
		return "**Escape** aborts the run at once: the request to the model is cancelled (my partial answer stays, marked as aborted), running commands are killed, " +
				"and any queued steering or follow-up messages return to the editor so nothing you typed is lost. Try it on a long answer: ask me for “help” and press Escape halfway.",
			"The user asks about aborting. I'll explain what Escape does and how to try it."
	case topicSessions:
		return "Every conversation is a session, saved as you go under `~/.pi/agent/sessions/` as JSONL in the same format pi uses, so pi and pi-go can open each other's sessions. " +
				"`pi -c` continues the most recent one, `pi -r` lets you pick one, `--session <file>` opens a given file and `--no-session` keeps nothing.",
			"The user asks about sessions. I'll explain where they are stored and how to continue or resume them."
	case topicConfig:
		return configDetail,
			"The user asks how to use a real model. I'll give the three ways: OPENAI_API_KEY, --base-url, and models.json."
	case topicThinking:
		return "With a reasoning model, pi-go shows the model's thinking before its answer. **Shift+Tab** cycles the thinking level (off, minimal, low, medium, high). " +
				"My “thinking” is a short scripted passage, but it arrives through the same `reasoning_content` field a DeepSeek or vLLM server streams, so the display is the real one.",
			"The user asks about thinking. I'll explain the thinking levels and that mine is scripted."
	case topicIdentity:
		return joinParagraphs("I'm not a language model at all: I'm a script inside pi-go that speaks the OpenAI streaming protocol, so the real provider code runs with no network.", pitch, configBrief),
			"The user asks what I am. I'll be plain about being a script, then say what pi-go is."
	case topicTools:
		return "pi-go gives a model tools that act in this directory: `read` (files and images), `bash` (any shell command), `edit` (exact text replacements, shown as a diff) and `write`; " +
				"`grep`, `find` and `ls` can be enabled with `--tools`. I use `ls`, `read` and `bash` when you ask: try “read go.mod” or “run `git status`”.",
			"The user asks about tools. I'll list pi-go's tools and say which ones the demo uses."
	case topicCode:
		return joinParagraphs(
				"Writing or changing code is where a real model comes in: I'm scripted and won't pretend to. With a real model, pi-go would read the relevant files, change them with `edit` (an exact text replacement, shown as a diff) or `write`, and run your tests with `bash`.",
				"What I can show is the machinery: "+p.suggest("code", 1)[0]+".", configBrief),
			"The user wants code written or changed: " + asked + ". A scripted demo cannot do that honestly; I'll say so and point to a real model."
	}
	// Fallback.
	lead := p.pick("fallback",
		"I'm a scripted demo, so I can't really answer "+asked+"; a real model would.",
		"That's a question for a real model: I only follow a script, so I can't do much with "+asked+".",
		"I wish I could help with "+asked+", but I'm pi-go's offline demo and only know a few tricks.")
	if p.first {
		return joinParagraphs(pitch, "Some things to try:", strings.Join([]string{tryTools, trySteer, tryFollowUp, tryAbort, tryThinking, trySessions}, "\n"), configBrief),
			"The first message of the session and nothing I recognise: I'll introduce pi-go and what the demo can show."
	}
	var items []string
	for _, s := range p.suggest("fallback", 3) {
		items = append(items, "- "+capitalise(s))
	}
	return joinParagraphs(lead, "Here's what I can show you instead:", strings.Join(items, "\n"), configBrief),
		"The user said " + asked + ". Nothing there I can act on as a scripted demo; I'll say so, suggest what to try and how to get a real model."
}

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
