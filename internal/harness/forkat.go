package harness

import "errors"

// ForkAt starts a new session holding the active path up to and including entryID, of any type (pi's
// fork with position "at": an extension's ctx.fork(id, {position: "at"})). Unlike Fork, nothing is
// handed back for the editor.
func (s *Session) ForkAt(entryID string) error {
	store := s.Store()
	if store.Entry(entryID) == nil {
		return errors.New("Invalid entry ID for forking") //nolint:staticcheck // pi's text
	}
	if err := s.guardSessionChange("session_before_fork", map[string]any{"entryId": entryID, "position": "at"}); err != nil {
		return err
	}
	s.Abort()
	defer s.sessionChanged("fork", store.SessionFile())
	if _, err := store.CreateBranchedSession(entryID); err != nil {
		return err
	}
	s.agent.SetSessionID(store.SessionID())
	s.clearDisplayQueues()
	return s.adoptStore()
}
