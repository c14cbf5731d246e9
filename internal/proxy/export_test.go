package proxy

// Waiting is how many chats wait for a turn, for the tests of the queue.
func (s *Server) Waiting() int64 { return s.admit.waiting.Load() }
