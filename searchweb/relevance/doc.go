// Package relevance measures how well a search ranks the pages that answer
// judged queries.
//
// A judged set is a text file of queries a reader would type, each with the
// pages that answer it (Parse reads it). Evaluate runs each query through
// searchweb.Results, as the search page and `linksrus search` run it, and
// finds the place on the first page of results of the first page that
// answers it; MRR, SuccessAt and Summarize turn the places into the usual
// figures: the mean reciprocal rank at 10 and how often the right page is
// first, and in the top 3.
//
// The figures are meant for comparing rankings on the same corpus and the
// same judged set, so that a change to the ranking is measured before it
// is kept; they say little across corpora.
package relevance
