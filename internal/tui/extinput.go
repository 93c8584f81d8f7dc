package tui

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
)

// ctx.ui.onTerminalInput: while an extension listens, every key is offered to it first, as the bytes
// a terminal sends (typed characters one at a time, as pi-tui splits them). Its answer may consume
// the key or replace its bytes; pi-go then handles what is left as if it had been typed. Keys wait in
// order for the answers; an extension that does not answer within terminalInputTimeout lets the key
// through unchanged.

const terminalInputTimeout = time.Second

// extInputOnMsg: whether an extension listens to the terminal's input.
type extInputOnMsg struct{ active bool }

// extInputAnswerMsg is the listeners' answer for the key at the head of the queue.
type extInputAnswerMsg struct {
	consume bool
	data    string
	changed bool
}

// pendingInput is a key waiting for the listeners: its bytes, and the key itself for when they are
// left unchanged.
type pendingInput struct {
	data string
	key  tea.KeyMsg
}

// SetTerminalInput says whether an extension listens to the terminal's input.
func (u *ExtensionUI) SetTerminalInput(active bool) { u.relay.send(extInputOnMsg{active}) }

func (msg extInputOnMsg) apply(m *model) tea.Cmd {
	m.ext.inputListeners = msg.active
	return nil
}

// handleKey handles a key, offering it to the extensions' input listeners first when there are any.
func (m *model) handleKey(k tea.KeyMsg) tea.Cmd {
	offer := m.opts.ExtensionUI.terminalInputHook()
	if offer == nil || !m.ext.inputListeners && len(m.ext.inputQueue) == 0 {
		return m.handleKeyNow(k)
	}
	datas := terminalInputs(k)
	if len(datas) == 0 {
		m.ext.inputQueue = append(m.ext.inputQueue, pendingInput{key: k})
	}
	for _, d := range datas {
		key := k
		if len(datas) > 1 {
			key = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(d)}
		}
		m.ext.inputQueue = append(m.ext.inputQueue, pendingInput{data: d, key: key})
	}
	return m.nextInput()
}

// nextInput handles the keys at the head of the queue that need no answer and offers the next one.
func (m *model) nextInput() tea.Cmd {
	var cmds []tea.Cmd
	for !m.ext.inputAsked && len(m.ext.inputQueue) > 0 {
		head := m.ext.inputQueue[0]
		if head.data == "" || !m.ext.inputListeners {
			m.ext.inputQueue = m.ext.inputQueue[1:]
			cmds = append(cmds, m.handleKeyNow(head.key))
			continue
		}
		m.ext.inputAsked = true
		offer, ctx, data := m.opts.ExtensionUI.terminalInputHook(), m.ctx, head.data
		cmds = append(cmds, m.op(func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, terminalInputTimeout)
			defer cancel()
			consume, out, err := offer(ctx, data)
			if err != nil {
				return extInputAnswerMsg{} // unanswered: the key goes through
			}
			return extInputAnswerMsg{consume: consume, data: out, changed: out != data}
		}))
	}
	return tea.Batch(cmds...)
}

func (msg extInputAnswerMsg) apply(m *model) tea.Cmd {
	if !m.ext.inputAsked || len(m.ext.inputQueue) == 0 {
		return nil
	}
	head := m.ext.inputQueue[0]
	m.ext.inputQueue, m.ext.inputAsked = m.ext.inputQueue[1:], false
	var cmds []tea.Cmd
	switch {
	case msg.consume:
	case !msg.changed:
		cmds = append(cmds, m.handleKeyNow(head.key))
	default:
		for _, k := range keysOfBytes(msg.data) {
			cmds = append(cmds, m.handleKeyNow(k))
		}
	}
	return tea.Batch(append(cmds, m.nextInput())...)
}

// legacyKeyOf reads back the named keys of legacyKeys.
var legacyKeyOf = func() map[string]tea.KeyType {
	out := map[string]tea.KeyType{}
	for t, seq := range legacyKeys {
		out[seq] = t
	}
	return out
}()

// keysOfBytes are the keys a listener's replacement bytes stand for: bracketed paste, the named
// keys' sequences (with an ESC prefix for Alt), control bytes, and text. A sequence pi-go cannot read
// is dropped.
func keysOfBytes(data string) []tea.KeyMsg {
	if s, ok := strings.CutPrefix(data, "\x1b[200~"); ok {
		s, _ = strings.CutSuffix(s, "\x1b[201~")
		return []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune(s), Paste: true}}
	}
	var out []tea.KeyMsg
	for data != "" {
		if seq := longestSeq(data); seq != "" && seq != "\x1b" {
			out = append(out, keyOfType(legacyKeyOf[seq], false))
			data = data[len(seq):]
			continue
		}
		alt := len(data) > 1 && data[0] == 0x1b
		rest := data
		if alt {
			rest = data[1:]
			if seq := longestSeq(rest); seq != "" {
				out = append(out, keyOfType(legacyKeyOf[seq], true))
				data = rest[len(seq):]
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(rest)
		switch {
		case r < 0x20 || r == 0x7f:
			out = append(out, tea.KeyMsg{Type: tea.KeyType(r), Alt: alt})
		default:
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: alt})
		}
		data = rest[n:]
	}
	return out
}

// longestSeq is the longest sequence of legacyKeys data starts with ("" for none).
func longestSeq(data string) string {
	best := ""
	for seq := range legacyKeyOf {
		if len(seq) > len(best) && strings.HasPrefix(data, seq) {
			best = seq
		}
	}
	return best
}

func keyOfType(t tea.KeyType, alt bool) tea.KeyMsg {
	k := tea.KeyMsg{Type: t, Alt: alt}
	if t == tea.KeySpace {
		k.Runes = []rune{' '}
	}
	return k
}

// terminalInputHook is the hook that offers input to the extensions' listeners (nil without one).
func (u *ExtensionUI) terminalInputHook() func(context.Context, string) (bool, string, error) {
	if u == nil {
		return nil
	}
	return u.hooks.TerminalInput
}
