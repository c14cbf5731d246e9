package stats_test

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/stats"
)

func ExampleRate() {
	r := stats.Rate{K: 10, N: 12}
	lo, hi := r.Wilson95()
	fmt.Println(r)
	fmt.Printf("%.3f in [%.3f, %.3f]\n", r.Value(), lo, hi)
	fmt.Println(stats.Rate{}, stats.Rate{}.Empty())
	// Output:
	// 83.3% [55.2–95.3] (10/12)
	// 0.833 in [0.552, 0.953]
	// – true
}

func ExamplePassHatK() {
	// A case tried 4 times passed twice: a second try often rescues it
	// (pass@2), but two tries in a row rarely both pass (pass^2).
	fmt.Printf("pass@2 = %.4f\n", stats.PassAtK(4, 2, 2))
	fmt.Printf("pass^2 = %.4f\n", stats.PassHatK(4, 2, 2))

	cases := []stats.CaseCount{{N: 4, C: 2}, {N: 4, C: 4}}
	mean, ok := stats.MeanPassHatK(cases, 2)
	fmt.Printf("mean pass^2 = %.4f (ok=%v)\n", mean, ok)
	_, ok = stats.MeanPassHatK(cases, 5) // more draws than trials
	fmt.Println("k=5 ok:", ok)
	// Output:
	// pass@2 = 0.8333
	// pass^2 = 0.1667
	// mean pass^2 = 0.5833 (ok=true)
	// k=5 ok: false
}
