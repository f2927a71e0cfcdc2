// Package frontier provides the crawler's fetch queue: a bounded,
// multi-level priority queue built on Go channels.
//
// Items of a higher priority (level 0 is the highest) are always handed out
// before items of a lower one that are already queued; within a level the
// order is FIFO. Pop blocks in a select on the level channels, the context
// and the close signal, so an idle consumer costs nothing and wakes as soon
// as an item arrives, unlike the sleep-and-poll loop of seed 002, which adds
// up to a second of latency and wakes idle consumers for nothing.
//
// Typical use: robots.txt fetches and shallow pages on level 0, deeper pages
// on lower levels.
package frontier
