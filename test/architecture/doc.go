// Package architecture holds the test that keeps the house as README's
// "Packages" section draws it: which package of ours may import which.
// It has no code of its own.
package architecture
