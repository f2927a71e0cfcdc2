// Package graphtest is the conformance suite every linkgraph backend runs:
// one set of tests, so that all backends agree on the semantics documented
// on linkgraph.Graph.
//
// A backend's test calls Run with a function that returns a new, empty
// graph:
//
//	func TestConformance(t *testing.T) {
//		graphtest.Run(t, func(t *testing.T) linkgraph.Graph { return memory.New() })
//	}
package graphtest

import (
	"testing"

	"github.com/linksrus/linksrus/linkgraph"
)

// NewGraph returns a new, empty graph for one test. Run closes it when the
// test ends; closing it twice must be harmless.
type NewGraph func(t *testing.T) linkgraph.Graph

// Run runs the whole suite as subtests of t, one graph per subtest.
func Run(t *testing.T, newGraph NewGraph) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, linkgraph.Graph)
	}{
		{"UpsertAndFindLink", testUpsertAndFindLink},
		{"UpsertKeepsIDAndLaterRetrievedAt", testUpsertKeepsIDAndLaterRetrievedAt},
		{"FindMissingLink", testFindMissingLink},
		{"InvalidLinks", testInvalidLinks},
		{"UpsertLinksBatch", testUpsertLinksBatch},
		{"UpsertLinksBatchIsAtomic", testUpsertLinksBatchIsAtomic},
		{"ConcurrentUpsertsOfOneURL", testConcurrentUpsertsOfOneURL},
		{"LinkRangePartitioning", testLinkRangePartitioning},
		{"LinkRangeBounds", testLinkRangeBounds},
		{"LinkTimeFilter", testLinkTimeFilter},
		{"RetrievedAtFollowsClockReadings", testRetrievedAtFollowsClockReadings},
		{"EdgeBoundWithinMicrosecond", testEdgeBoundWithinMicrosecond},
		{"ManyLinksAcrossPages", testManyLinksAcrossPages},
		{"WritesDuringIteration", testWritesDuringIteration},
		{"UpsertEdgeAndRefresh", testUpsertEdgeAndRefresh},
		{"UpsertEdgeKeepsLaterUpdatedAt", testUpsertEdgeKeepsLaterUpdatedAt},
		{"UpsertEdgesBatch", testUpsertEdgesBatch},
		{"UnknownEdgeLinks", testUnknownEdgeLinks},
		{"EdgeRangeAndTimeFilter", testEdgeRangeAndTimeFilter},
		{"RemoveStaleEdges", testRemoveStaleEdges},
		{"CrawlerRefreshPattern", testCrawlerRefreshPattern},
		{"EdgeStampsFollowClockReadings", testEdgeStampsFollowClockReadings},
		{"RefreshEdges", testRefreshEdges},
		{"ValidatorsTravelWithRetrieval", testValidatorsTravelWithRetrieval},
		{"ValidatorsInBatches", testValidatorsInBatches},
		{"InvalidValidators", testInvalidValidators},
		{"NoMutationThroughPointers", testNoMutationThroughPointers},
		{"IteratorBehaviour", testIteratorBehaviour},
		{"ClosedGraph", testClosedGraph},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGraph(t)
			t.Cleanup(func() {
				if err := g.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, g)
		})
	}
}
