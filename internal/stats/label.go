package stats

// Flakiness labels returned by Label.
const (
	StablePass = "stable-pass"
	StableFail = "stable-fail"
	Flaky      = "flaky"
)

// Label classifies a case from n trials with c passes: StablePass when every
// trial passed (n > 0), StableFail when none did, Flaky otherwise. A case
// with no trials is StableFail, so report n beside the label; c should lie
// in [0, n].
func Label(n, c int) string {
	switch {
	case n > 0 && c == n:
		return StablePass
	case c == 0:
		return StableFail
	default:
		return Flaky
	}
}
