package harness

// RefreshModel takes the current model's entry from the model list again, when the list changed
// under it (an extension re-registered its provider: another base URL, other limits). Nothing is
// recorded in the session: the model is the same provider and id. A model the list no longer has
// is kept.
func (s *Session) RefreshModel() {
	cur := s.agent.Model()
	if s.opts.Models == nil || cur == nil {
		return
	}
	if m := s.opts.Models.Find(cur.Provider, cur.ID); m != nil && m != cur {
		s.agent.SetModel(m)
	}
}
