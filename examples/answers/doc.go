// Package answers holds the answercheck example: a test function plugin
// that judges agent runs by their final answer, and recorded runs to try it
// on (see README.md).
package answers
