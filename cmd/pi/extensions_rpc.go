package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/pi-go/pi-go/internal/extensions"
)

// rpcExtensionUI is the extension UI sub-protocol of pi's RPC mode (docs/rpc-extension-ui.md): every
// ctx.ui call is an extension_ui_request on stdout; a dialog waits for the extension_ui_response with
// its id (or its timeout); extension errors are extension_error records.
type rpcExtensionUI struct {
	mu      sync.Mutex
	write   func(json.RawMessage)
	early   []json.RawMessage // records written before the server attached
	pending map[string]chan json.RawMessage
}

func newRPCExtensionUI() *rpcExtensionUI {
	return &rpcExtensionUI{pending: map[string]chan json.RawMessage{}}
}

// Attach is called by the RPC server before it reads the first command.
func (u *rpcExtensionUI) Attach(write func(json.RawMessage)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.write = write
	for _, r := range u.early {
		write(r)
	}
	u.early = nil
}

func (u *rpcExtensionUI) emit(record json.RawMessage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.write == nil {
		u.early = append(u.early, record)
		return
	}
	u.write(record)
}

// Response routes an extension_ui_response to the dialog waiting for it; strays are ignored.
func (u *rpcExtensionUI) Response(line []byte) {
	var r struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &r) != nil {
		return
	}
	id, ok := r.ID.(string)
	if !ok {
		return
	}
	u.mu.Lock()
	ch := u.pending[id]
	delete(u.pending, id)
	u.mu.Unlock()
	if ch != nil {
		ch <- json.RawMessage(bytes.Clone(line))
	}
}

func (u *rpcExtensionUI) request(ctx context.Context, params json.RawMessage, dialog bool) (json.RawMessage, error) {
	id := uuid.NewString()
	// {"type":"extension_ui_request","id":…, then the request's own fields, in the order pi writes them.
	var b bytes.Buffer
	b.WriteString(`{"type":"extension_ui_request","id":`)
	idJSON, _ := json.Marshal(id)
	b.Write(idJSON)
	var compact bytes.Buffer
	if json.Compact(&compact, params) != nil {
		return nil, errors.New("ui: params are not JSON")
	}
	if body := compact.Bytes(); len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	if !dialog {
		u.emit(b.Bytes())
		return nil, nil
	}
	ch := make(chan json.RawMessage, 1)
	u.mu.Lock()
	u.pending[id] = ch
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		delete(u.pending, id)
		u.mu.Unlock()
	}()
	u.emit(b.Bytes())
	var p struct {
		Timeout int64 `json:"timeout"`
	}
	_ = json.Unmarshal(params, &p)
	var expired <-chan time.Time
	if p.Timeout > 0 {
		// The extension resolves its own default at the timeout; stop waiting then as well.
		t := time.NewTimer(time.Duration(p.Timeout) * time.Millisecond)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r := <-ch:
		return r, nil
	case <-expired:
		return nil, nil
	case <-ctx.Done():
		return nil, nil
	}
}

func (u *rpcExtensionUI) reportError(e extensions.ExtensionError) {
	rec, _ := json.Marshal(struct {
		Type          string `json:"type"`
		ExtensionPath string `json:"extensionPath"`
		Event         string `json:"event"`
		Error         string `json:"error"`
	}{"extension_error", e.ExtensionPath, e.Event, e.Error})
	u.emit(rec)
}

// rpcUI is the host's RPC sub-protocol end, when there is a host in RPC mode.
func (e *extensionHost) rpcUI() (*rpcExtensionUI, bool) {
	if e == nil {
		return nil, false
	}
	ui, ok := e.ui.(*rpcExtensionUI)
	return ui, ok
}
