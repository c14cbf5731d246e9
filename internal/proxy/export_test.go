package proxy

// Waiting is how many chats wait for a turn, for the tests of the queue.
func (s *Server) Waiting() int64 { return s.admit.waiting.Load() }

// Bodies is what the chat bodies being read hold now, and the most they
// ever held at once.
func (s *Server) Bodies() (held, peak int64) {
	s.bodies.mu.Lock()
	defer s.bodies.mu.Unlock()
	return s.bodies.held, s.bodies.peak
}
