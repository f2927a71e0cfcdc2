package scope

import "strconv"

// Reason is the outcome of Check: InScope or why a link is out of scope.
type Reason uint8

// The possible outcomes of Check.
const (
	// InScope means the link passed every rule and may be fetched.
	InScope Reason = iota
	// SkipInvalid means the URL is nil, relative or not http(s).
	SkipInvalid
	// SkipDepth means the link is deeper than Config.MaxDepth.
	SkipDepth
	// SkipHost means Config.SameHostOnly is set and the host is no seed's.
	SkipHost
	// SkipDomain means the registrable domain is not accepted.
	SkipDomain
	// SkipExcluded means the URL matched a Config.Exclude pattern.
	SkipExcluded
	// SkipNotIncluded means Config.Include is set and no pattern matched.
	SkipNotIncluded
	// SkipFilter means Config.Filter returned false.
	SkipFilter
)

var reasonNames = [...]string{
	InScope:         "in scope",
	SkipInvalid:     "invalid URL",
	SkipDepth:       "too deep",
	SkipHost:        "other host",
	SkipDomain:      "domain not accepted",
	SkipExcluded:    "excluded by pattern",
	SkipNotIncluded: "not matched by include patterns",
	SkipFilter:      "rejected by filter",
}

// String returns a short human-readable description, for crawl reports.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "scope.Reason(" + strconv.Itoa(int(r)) + ")"
}
