package record

// aheadLine is one line a read-ahead gives: a trial, or, when lost is set,
// the key of a line whose key reads but whose whole does not (see
// Reader.lost).
type aheadLine struct {
	t    *Trial
	key  TrialKey
	lost bool
}

// aheadBatch is how many lines a read-ahead decodes before handing them
// over: enough that the hand-over costs nothing next to the decoding.
const aheadBatch = 256

// readAhead scans rd on a goroutine of its own, decoding lines while each
// consumes those before them on the caller's: decoding is half of a slim
// read, and what readers do with each trial (verdicts, tallies) the other
// half. each gets every line in order until it returns false, and may not
// keep a trial past the call: once each is done with a batch, its trials'
// memory is decoded into again (Reader.alloc), which spares the
// collector most of what a large read would allocate. readAhead returns
// once the scanning goroutine has ended, so rd's Warnings and Err are then
// final and its source may be used again.
func readAhead(rd *Reader, each func(aheadLine) bool) {
	batches := make(chan []aheadLine, 4)
	done := make(chan []aheadLine, 8) // batches each is through with
	stop := make(chan struct{})
	go func() {
		defer close(batches)
		batch := make([]aheadLine, 0, aheadBatch)
		var spare []*Trial
		rd.alloc = func() *Trial {
			if len(spare) == 0 {
				select {
				case b := <-done:
					for _, l := range b {
						if l.t != nil {
							spare = append(spare, l.t)
						}
					}
				default:
				}
			}
			if n := len(spare); n > 0 {
				t := spare[n-1]
				spare = spare[:n-1]
				return t
			}
			return new(Trial)
		}
		rd.lost = func(k TrialKey) { batch = append(batch, aheadLine{key: k, lost: true}) }
		send := func() bool {
			select {
			case batches <- batch:
				batch = make([]aheadLine, 0, aheadBatch)
				return true
			case <-stop:
				return false
			}
		}
		for rd.Scan() {
			batch = append(batch, aheadLine{t: rd.Trial()})
			if len(batch) >= aheadBatch && !send() {
				return
			}
		}
		if len(batch) > 0 {
			send()
		}
	}()
	for b := range batches {
		for _, s := range b {
			if !each(s) {
				close(stop)
				for range batches {
				}
				return
			}
		}
		select {
		case done <- b:
		default: // the scanner has trials enough to reuse
		}
	}
}
