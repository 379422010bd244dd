package otlp

// Unexported checks, for the external tests.
var (
	CheckProto = checkProto
	CheckJSON  = checkJSON
)

// FollowedStreams is how many streams the gate follows, over every
// connection: those of calls not over yet.
func (s *GRPCServer) FollowedStreams() int {
	s.gate.mu.Lock()
	conns := make([]*gateConn, 0, len(s.gate.conns))
	for _, c := range s.gate.conns {
		conns = append(conns, c)
	}
	s.gate.mu.Unlock()
	n := 0
	for _, c := range conns {
		c.mu.Lock()
		n += len(c.streams)
		c.mu.Unlock()
	}
	return n
}
