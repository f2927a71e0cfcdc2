package relevance

import "fmt"

// A place is where on the page of results the first page that answers a
// query stands: 1 for the first result, 0 when no page that answers it is
// there.

// ReciprocalRank is 1/place when place is within the first k results, and
// 0 otherwise (not found, or found lower down).
func ReciprocalRank(place, k int) float64 {
	if place < 1 || place > k {
		return 0
	}
	return 1 / float64(place)
}

// MRR is the mean reciprocal rank at k of places, one a query: the mean of
// ReciprocalRank(place, k). It is 0 for no queries.
func MRR(places []int, k int) float64 {
	if len(places) == 0 {
		return 0
	}
	var sum float64
	for _, p := range places {
		sum += ReciprocalRank(p, k)
	}
	return sum / float64(len(places))
}

// SuccessAt is success@k of places: how many queries have a page that
// answers them within the first k results.
func SuccessAt(places []int, k int) int {
	n := 0
	for _, p := range places {
		if p >= 1 && p <= k {
			n++
		}
	}
	return n
}

// Scores are the figures a judged set is reported by.
type Scores struct {
	// Queries is the number of judged queries.
	Queries int `json:"queries"`
	// MRR10 is the mean reciprocal rank at 10 (MRR(places, 10)).
	MRR10 float64 `json:"mrr_at_10"`
	// Success1 and Success3 count the queries answered by the first
	// result, and by one of the first three.
	Success1 int `json:"success_at_1"`
	Success3 int `json:"success_at_3"`
}

// Summarize returns the Scores of places, one a query.
func Summarize(places []int) Scores {
	return Scores{
		Queries:  len(places),
		MRR10:    MRR(places, 10),
		Success1: SuccessAt(places, 1),
		Success3: SuccessAt(places, 3),
	}
}

// String reads "MRR@10 0.772  success@1 19/30  success@3 27/30".
func (s Scores) String() string {
	return fmt.Sprintf("MRR@10 %.3f  success@1 %d/%d  success@3 %d/%d", s.MRR10, s.Success1, s.Queries, s.Success3, s.Queries)
}
