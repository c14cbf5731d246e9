package stats

import "testing"

func TestLabel(t *testing.T) {
	tests := []struct {
		n, c int
		want string
	}{
		{5, 5, StablePass},
		{1, 1, StablePass},
		{5, 0, StableFail},
		{1, 0, StableFail},
		{0, 0, StableFail}, // documented: no trials is not a pass
		{5, 1, Flaky},
		{5, 4, Flaky},
		{2, 1, Flaky},
	}
	for _, tt := range tests {
		if got := Label(tt.n, tt.c); got != tt.want {
			t.Errorf("Label(%d, %d) = %q, want %q", tt.n, tt.c, got, tt.want)
		}
	}
	if StablePass != "stable-pass" || StableFail != "stable-fail" || Flaky != "flaky" {
		t.Error("label constants changed")
	}
}
