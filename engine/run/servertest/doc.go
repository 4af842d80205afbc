// Package servertest runs whole evaluations through the API and browser
// adapters: the notes and todo-web examples with their reference and broken
// submissions, and servers and pages that misbehave. It holds tests only;
// they live apart from package run's so their servers and browsers get
// their own test binary and time budget.
package servertest
